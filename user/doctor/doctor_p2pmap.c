// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: p2pmap loaded, each direction's link, the module's version
 * against the CLI's, and the live links against the saved ones.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"
#include "link_sysfs.h"
#include "modprobe_check.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "VERSION"
#endif

/*
 * "link auto --numa N" links every GPU of node N on the server's driver:
 * not offered where one is a Proxmox VM's (on nvidia while its VM is
 * stopped), which must never be linked.
 */
static void auto_fix(const struct host *h, const struct gpu *a,
		     const struct gpu *b, char *fix, size_t len)
{
	size_t i;

	snprintf(fix, len, "p2pmap link add %s %s", a->addr, b->addr);
	for (i = 0; i < h->ngpus; i++)
		if (h->gpus[i].vm && h->gpus[i].numa == a->numa &&
		    !strcmp(h->gpus[i].driver, h->want->driver))
			return;
	snprintf(fix + strlen(fix), len - strlen(fix),
		 " (or p2pmap link auto --numa %d)", a->numa);
}

/*
 * Loaded after the GPU driver bound, p2pmap maps a link only when the
 * driver binds again; and modprobe finds p2pmap only where DKMS built it
 * for the running kernel (p2pmap.dkms).
 */
static void late_load_fix(const struct host *h, char *buf, size_t len)
{
	const char *drv = h->want->driver;

	snprintf(buf, len,
		 "modprobe p2pmap (installed with make install or the p2pmap-dkms package; built by DKMS for the running kernel: p2pmap.dkms), then bind %s again, as links map when it binds: stop the server or container using the GPUs and reload %s (modprobe -r %s and the modules using it, then modprobe %s), or reboot",
		 drv, drv, drv, drv);
}

void doctor_check_p2pmap(struct host *h)
{
	char v[64], name[64], fix[160], late[512];
	struct link_sysfs l;
	size_t i, j, need = 0;
	struct doctor_check *c;

	for (i = 0; i < h->ngpus; i++)
		need += doctor_needs_links(h, &h->gpus[i]);
	h->loaded = link_sysfs_loaded(h->root);
	if (!h->loaded && need < 2) {
		doctor_add(h, "p2pmap.loaded", DOCTOR_OK, NULL,
			   "p2pmap is not loaded; fewer than two translated %s GPUs, none needs it",
			   h->want->driver);
		return;
	}
	if (!h->loaded) {
		late_load_fix(h, late, sizeof(late));
		c = doctor_add(h, "p2pmap.loaded", DOCTOR_FAIL,
			       doctor_exists(h, "/sys/module/p2pmap") ? "" : late,
			       "p2pmap is not loaded: no peer BAR is mapped in %zu translated %s GPU(s)' domains",
			       need, h->want->driver);
		doctor_blocking(c);
		return;
	}
	doctor_read(h, v, sizeof(v), "/sys/kernel/p2pmap/version");
	doctor_add(h, "p2pmap.loaded", DOCTOR_OK, NULL, "p2pmap %s is loaded",
		   v[0] ? v : "(version unknown)");

	/*
	 * Every configured link between GPUs, whatever their drivers now
	 * (a GPU that left makes its links pending), and the README's
	 * story (Documentation/faults-to-faster-server.md): a full mesh among the server's GPUs of each NUMA node.
	 */
	for (i = 0; i < h->ngpus; i++) {
		for (j = 0; j < h->ngpus; j++) {
			struct gpu *a = &h->gpus[i], *b = &h->gpus[j];

			if (i == j)
				continue;
			link_sysfs_read(h->root, a->addr, b->addr, &l);
			if (!l.exists && (!doctor_needs_links(h, a) ||
					  !doctor_needs_links(h, b) ||
					  a->numa != b->numa))
				continue;
			snprintf(name, sizeof(name), "link.%s>%s", a->addr,
				 b->addr);
			if (!l.exists) {
				auto_fix(h, a, b, fix, sizeof(fix));
				doctor_add(h, name, DOCTOR_WARN, fix,
					   "no link %s -> %s (same NUMA node %d): P2P in this direction works only if the driver maps it",
					   a->addr, b->addr, a->numa);
			} else if (!strcmp(l.state, "blocked")) {
				/* The policy's word: by design, not a fault. */
				doctor_add(h, name, DOCTOR_WARN, "p2pmap status",
					   "link %s -> %s is blocked%s%s", a->addr,
					   b->addr, l.reason[0] ? ": " : "",
					   l.reason);
			} else if (strcmp(l.state, "mapped")) {
				c = doctor_add(h, name, DOCTOR_FAIL, "p2pmap status",
					       "link %s -> %s is %s%s%s", a->addr,
					       b->addr, l.state,
					       l.reason[0] ? ": " : "", l.reason);
				doctor_blocking(c);
			} else if (l.has_faults && l.faults) {
				c = doctor_add(h, name, DOCTOR_FAIL, "p2pmap faults",
					       "link %s -> %s is mapped but counted %llu fault(s)",
					       a->addr, b->addr,
					       (unsigned long long)l.faults);
				doctor_blocking(c);
			} else {
				doctor_add(h, name, DOCTOR_OK, NULL,
					   "link %s -> %s is mapped, no fault", a->addr,
					   b->addr);
			}
		}
	}
	if (h->container[0])
		doctor_add(h, "p2pmap.config", DOCTOR_SKIP, NULL,
			   "run on the host: this is a container (%s); the configuration the module loads with is the host's /etc/modprobe.d/p2pmap.conf",
			   h->container);
	else if (!doctor_exists(h, "/etc/modprobe.d/p2pmap.conf"))
		doctor_add(h, "p2pmap.config", DOCTOR_WARN, "p2pmap config save",
			   "no /etc/modprobe.d/p2pmap.conf: the links are lost at the next boot");
	else
		doctor_add(h, "p2pmap.config", DOCTOR_OK, NULL,
			   "/etc/modprobe.d/p2pmap.conf exists (p2pmap config check reads it as the module will)");
}

/* The loaded module's version against the CLI's (one VERSION file). */
void doctor_check_version(struct host *h)
{
	const char *file = "/sys/kernel/p2pmap/version";
	char v[64];

	if (!h->loaded)
		return;
	if (!doctor_read(h, v, sizeof(v), "%s", file) || !v[0]) {
		file = "/sys/module/p2pmap/version";
		if (!doctor_read(h, v, sizeof(v), "%s", file) || !v[0]) {
			doctor_add(h, "p2pmap.version", DOCTOR_SKIP, NULL,
				   "the loaded module's version cannot be read (/sys/kernel/p2pmap/version, /sys/module/p2pmap/version)");
			return;
		}
	}
	if (strcmp(v, P2PMAP_VERSION))
		doctor_add(h, "p2pmap.version", DOCTOR_WARN,
			   "load the installed module: reboot (or modprobe -r p2pmap && modprobe p2pmap, then rebind the GPU driver so that the links map)",
			   "the loaded module is p2pmap %s (%s), the CLI %s: a module loaded before an upgrade, or from another build",
			   v, file, P2PMAP_VERSION);
	else
		doctor_add(h, "p2pmap.version", DOCTOR_OK, NULL,
			   "the loaded module is p2pmap %s (%s), as the CLI", v, file);
}

/* Is "FROM-TO" among the saved links? */
static bool saved(const struct modprobe_check *res, const char *from,
		  const char *to)
{
	unsigned int i;

	for (i = 0; i < res->links; i++)
		if (!strcmp(res->link[i].initiator, from) &&
		    !strcmp(res->link[i].target, to))
			return true;
	return false;
}

/*
 * The live links (ROOT/sys/kernel/p2pmap/links/FROM-TO) against the
 * links= of the saved configuration, read as "p2pmap config check" and
 * the module read it: a live link not saved is lost at the next boot, a
 * saved one not live was removed, or the module was loaded without it.
 */
void doctor_check_saved(struct host *h)
{
	char path[PATH_MAX], name[48], from[32];
	struct modprobe_check res = { 0 };
	unsigned int i, live = 0, differ = 0;
	struct dirent **names;
	FILE *f, *null;
	int n, k;
	char *dash;

	if (!h->loaded || !doctor_exists(h, CONFIG_FILE))
		return;
	snprintf(path, sizeof(path), "%s%s", h->root, CONFIG_FILE);
	f = fopen(path, "r");
	null = fopen("/dev/null", "w");
	if (!f || !null || modprobe_check(f, CONFIG_FILE, null, &res)) {
		doctor_add(h, "p2pmap.saved", DOCTOR_SKIP, NULL, "%s cannot be read",
			   CONFIG_FILE);
		goto out;
	}
	if (res.problems)
		doctor_add(h, "p2pmap.config.check", DOCTOR_WARN, "p2pmap config check",
			   "%s has %u problem(s) the module would report at the next boot",
			   CONFIG_FILE, res.problems);
	snprintf(path, sizeof(path), "%s/sys/kernel/p2pmap/links", h->root);
	n = scandir(path, &names, NULL, alphasort);
	for (k = 0; k < n; k++) {
		snprintf(from, sizeof(from), "%.31s", names[k]->d_name);
		dash = strchr(from, '-');
		if (from[0] != '.' && dash) {
			*dash++ = '\0';
			live++;
			if (!saved(&res, from, dash)) {
				differ++;
				snprintf(name, sizeof(name), "p2pmap.saved.%s>%s",
					 from, dash);
				doctor_add(h, name, DOCTOR_WARN, "p2pmap config save",
					   "link %s -> %s is live but not saved in %s: it is lost at the next boot",
					   from, dash, CONFIG_FILE);
			}
		}
		free(names[k]);
	}
	if (n >= 0)
		free(names);
	for (i = 0; i < res.links; i++) {
		struct link_sysfs l;

		link_sysfs_read(h->root, res.link[i].initiator,
				res.link[i].target, &l);
		if (l.exists)
			continue;
		differ++;
		snprintf(name, sizeof(name), "p2pmap.saved.%s>%s",
			 res.link[i].initiator, res.link[i].target);
		doctor_add(h, name, DOCTOR_WARN,
			   "p2pmap config apply (or p2pmap config save, if its removal was meant)",
			   "link %s -> %s is saved in %s (line %u) but not live: removed since, or the module was loaded without it",
			   res.link[i].initiator, res.link[i].target, CONFIG_FILE,
			   res.link[i].line);
	}
	if (!differ)
		doctor_add(h, "p2pmap.saved", DOCTOR_OK, NULL,
			   "the %u live link(s) are the %u saved in %s: the next boot configures the same",
			   live, res.links, CONFIG_FILE);
out:
	if (f)
		fclose(f);
	if (null)
		fclose(null);
	modprobe_check_free(&res);
}
