// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: what the next boot does with p2pmap.  DKMS (which kernels have
 * the module built, the running one among them?), the softdep that "p2pmap
 * config save" writes so that modprobe loads p2pmap before the GPU driver,
 * and the initramfs (holding p2pmap, it must hold the saved configuration
 * too: it was built after the modprobe.d file changed).
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "doctor_int.h"
#include "link_sysfs.h"
#include "softdep_verdict.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "VERSION"
#endif

#define DKMS_DIR	DOCTOR_DKMS_DIR

/* Names in ROOT/REL, sorted; the caller frees them (n < 0: none). */
static int list(const struct host *h, const char *rel, struct dirent ***names)
{
	char path[2 * PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	return scandir(path, names, NULL, alphasort);
}

static void list_free(struct dirent **names, int n)
{
	int i;

	for (i = 0; i < n; i++)
		free(names[i]);
	if (n >= 0)
		free(names);
}

/* Has DKMS built p2pmap VER for kernel KVER (any architecture)? */
bool doctor_dkms_built(const struct host *h, const char *ver,
		       const char *kver)
{
	char rel[PATH_MAX / 2], mod[PATH_MAX];
	struct dirent **arch, **files;
	bool built = false;
	int na, nf, i, j;

	snprintf(rel, sizeof(rel), "%s/%.200s/%.200s", DKMS_DIR, ver, kver);
	na = list(h, rel, &arch);
	for (i = 0; i < na && !built; i++) {
		if (arch[i]->d_name[0] == '.')
			continue;
		snprintf(mod, sizeof(mod), "%s/%.200s/module", rel,
			 arch[i]->d_name);
		nf = list(h, mod, &files);
		for (j = 0; j < nf; j++)
			built = built ||
				!strncmp(files[j]->d_name, "p2pmap.ko", 9);
		list_free(files, nf);
	}
	list_free(arch, na);
	return built;
}

/*
 * The package of kernel @rel's headers, which DKMS builds against:
 * Proxmox VE's kernels ("6.8.12-4-pve") have proxmox-headers-REL (before
 * Proxmox VE 8: pve-headers-REL) and proxmox-default-headers for the
 * kernels to come; Debian's linux-headers-REL and linux-headers-ARCH.
 */
void doctor_headers_package(const char *rel, char *buf, size_t len)
{
	size_t n = strlen(rel);
	const char *flavour = strrchr(rel, '-');

	if (n > 4 && !strcmp(rel + n - 4, "-pve"))
		snprintf(buf, len,
			 "apt install proxmox-headers-%s (and proxmox-default-headers, for the kernels to come; pve-headers-%s before Proxmox VE 8)",
			 rel, rel);
	else
		snprintf(buf, len,
			 "apt install linux-headers-%s (and linux-headers-%s, for the kernels to come)",
			 rel, flavour ? flavour + 1 : "amd64");
}

/*
 * ROOT/var/lib/dkms/p2pmap/VER/KVER/ARCH/module/p2pmap.ko*: the kernels
 * each version is built for (VER/source: added; kernel-KVER-ARCH: the
 * installed one's links, not read).
 */
void doctor_check_dkms(struct host *h)
{
	char osrel[128], text[300], fix[800], rel[PATH_MAX], hdr[400];
	bool run_cli = false, run_other = false;
	struct dirent **vers, **kernels;
	int nv, nk, i, j, built;
	size_t len;

	if (!h->loaded && doctor_need_count(h) < 2 && !doctor_exists(h, DKMS_DIR))
		return;
	if (!doctor_read(h, osrel, sizeof(osrel), "/proc/sys/kernel/osrelease"))
		osrel[0] = '\0';
	nv = list(h, DKMS_DIR, &vers);
	text[0] = '\0';
	for (i = 0; i < nv; i++) {
		const char *ver = vers[i]->d_name;

		if (ver[0] == '.' || !strncmp(ver, "kernel-", 7))
			continue;
		snprintf(rel, sizeof(rel), "%s/%s", DKMS_DIR, ver);
		nk = list(h, rel, &kernels);
		len = strlen(text);
		snprintf(text + len, sizeof(text) - len, "%s%s built for ",
			 len ? "; " : "", ver);
		built = 0;
		for (j = 0; j < nk; j++) {
			const char *k = kernels[j]->d_name;

			if (k[0] == '.' || !doctor_dkms_built(h, ver, k))
				continue;
			len = strlen(text);
			snprintf(text + len, sizeof(text) - len, "%s%s",
				 built++ ? ", " : "", k);
			if (osrel[0] && !strcmp(k, osrel)) {
				if (!strcmp(ver, P2PMAP_VERSION))
					run_cli = true;
				else
					run_other = true;
			}
		}
		if (!built) {
			len = strlen(text);
			snprintf(text + len, sizeof(text) - len, "no kernel");
		}
		list_free(kernels, nk);
	}
	list_free(vers, nv);
	doctor_headers_package(osrel[0] ? osrel : "$(uname -r)", hdr, sizeof(hdr));
	snprintf(rel, sizeof(rel), "/lib/modules/%s/build", osrel);
	if (osrel[0] && !doctor_exists(h, rel))	/* DKMS cannot build without */
		snprintf(fix, sizeof(fix),
			 "%s, then dkms install p2pmap/%s -k %s (the running kernel's headers are not installed: no /lib/modules/%s/build)",
			 hdr, P2PMAP_VERSION, osrel, osrel);
	else
		snprintf(fix, sizeof(fix),
			 "dkms install p2pmap/%s -k %s (with that kernel's headers: %s; or make install in p2pmap's source tree)",
			 P2PMAP_VERSION, osrel[0] ? osrel : "$(uname -r)",
			 hdr);
	if (!text[0])
		doctor_add(h, "p2pmap.dkms", DOCTOR_WARN,
			   "make install in p2pmap's source tree (adds, builds and installs the module through DKMS), or install the p2pmap-dkms package",
			   "p2pmap is not in DKMS (no %s): no kernel update rebuilds it",
			   DKMS_DIR);
	else if (!osrel[0])
		doctor_add(h, "p2pmap.dkms", DOCTOR_SKIP, NULL,
			   "DKMS p2pmap %s; the running kernel is unknown (/proc/sys/kernel/osrelease)",
			   text);
	else if (run_cli)
		doctor_add(h, "p2pmap.dkms", DOCTOR_OK, NULL,
			   "DKMS p2pmap %s: the running kernel %s has the CLI's %s built",
			   text, osrel, P2PMAP_VERSION);
	else if (run_other)
		doctor_add(h, "p2pmap.dkms", DOCTOR_WARN, fix,
			   "DKMS p2pmap %s: the running kernel %s has another version built, not the CLI's %s",
			   text, osrel, P2PMAP_VERSION);
	else
		doctor_add(h, "p2pmap.dkms", DOCTOR_WARN, fix,
			   "DKMS p2pmap %s: the running kernel %s is not among them (modprobe p2pmap finds no module for it)",
			   text, osrel);
}

/*
 * "p2pmap config save" writes SOFTDEP_FILE, whose "softdep DRIVER pre:
 * p2pmap ..." line kmod reads first: modprobe then loads p2pmap, with its
 * options, before the GPU driver, so that p2pmap reserves the other host
 * bridges' windows before the driver's first probe
 * (Documentation/boot-integration.md).  kmod uses only that first line (softdep_verdict.h): one
 * it reads earlier hides ours, and ours must keep the others' modules.
 */
void doctor_check_softdep(struct host *h)
{
	char osrel[128], text[3 * PATH_MAX + 8192], fix[PATH_MAX + 512];
	const char *drv = h->want->driver;
	struct softdep_verdict v;

	if (!doctor_exists(h, CONFIG_FILE) && !doctor_exists(h, SOFTDEP_FILE))
		return;
	if (softdep_judge(h->root, doctor_read(h, osrel, sizeof(osrel),
					       "/proc/sys/kernel/osrelease") ?
			  osrel : NULL, drv, &v))
		return;
	softdep_verdict_text(&v, drv, text, sizeof(text), fix, sizeof(fix));
	doctor_add(h, "p2pmap.softdep",
		   v.state == SOFTDEP_OK ? DOCTOR_OK : DOCTOR_WARN,
		   fix[0] ? fix : NULL, "%s", text);
}

/* Is @module named in an initramfs-tools or dracut configuration? */
struct initramfs {
	bool tools, dracut;		/* which configuration exists */
	char p2pmap[80], gpu[80];	/* where each is named, or "" */
};

static void note(struct initramfs *i, const char *word, const char *driver,
		 const char *where)
{
	if (!strcmp(word, "p2pmap") && !i->p2pmap[0])
		snprintf(i->p2pmap, sizeof(i->p2pmap), "%s", where);
	if (softdep_same_module(word, driver) && !i->gpu[0])
		snprintf(i->gpu, sizeof(i->gpu), "%s", where);
}

/* /etc/initramfs-tools/modules: a module name (and its options) a line. */
static void initramfs_tools(const struct host *h, struct initramfs *i)
{
	const char *rel = "/etc/initramfs-tools/modules";
	char path[PATH_MAX], line[512], *tok, *save;
	FILE *f;

	i->tools = doctor_exists(h, "/etc/initramfs-tools");
	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		tok = strtok_r(line, " \t\n", &save);
		if (tok && tok[0] != '#')
			note(i, tok, h->want->driver, rel);
	}
	if (f)
		fclose(f);
}

/* dracut.conf(.d): add_drivers+=" a b ", force_drivers+=, drivers=. */
static void dracut_file(const struct host *h, const char *rel,
			struct initramfs *i)
{
	char path[PATH_MAX + 300], line[1024], *v, *tok, *save;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		v = strchr(line, '=');
		if (line[0] == '#' || !v || !strstr(line, "drivers"))
			continue;
		for (tok = strtok_r(v + 1, " \t\n\"'", &save); tok;
		     tok = strtok_r(NULL, " \t\n\"'", &save))
			note(i, tok, h->want->driver, rel);
	}
	if (f)
		fclose(f);
}

static void dracut(const struct host *h, struct initramfs *i)
{
	char rel[PATH_MAX];
	struct dirent **names;
	int n, k;

	i->dracut = doctor_exists(h, "/etc/dracut.conf") ||
		    doctor_exists(h, "/etc/dracut.conf.d");
	dracut_file(h, "/etc/dracut.conf", i);
	n = list(h, "/etc/dracut.conf.d", &names);
	for (k = 0; k < n; k++) {
		snprintf(rel, sizeof(rel), "/etc/dracut.conf.d/%.200s",
			 names[k]->d_name);
		if (strstr(names[k]->d_name, ".conf"))
			dracut_file(h, rel, i);
	}
	list_free(names, n);
}

static void when(time_t t, char *buf, size_t len)
{
	struct tm tm;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(buf, len, "%Y-%m-%d %H:%M UTC", &tm))
		snprintf(buf, len, "?");
}

/*
 * The initramfs loads the modules it was built with, with the modprobe.d
 * files of that moment (initramfs-tools and dracut copy them).  With p2pmap
 * in it, an image older than the saved configuration maps the old links;
 * with the GPU driver in it and not p2pmap, the driver probes first.
 */
void doctor_check_initramfs(struct host *h)
{
	char osrel[128], image[200], conf_t[32], image_t[32], fix[64];
	const char *drv = h->want->driver;
	const char *conf = CONFIG_FILE;
	struct initramfs i = { 0 };
	struct stat sc, si, ss;
	char path[PATH_MAX];

	if (!doctor_exists(h, CONFIG_FILE))
		return;
	initramfs_tools(h, &i);
	dracut(h, &i);
	snprintf(fix, sizeof(fix), "%s",
		 i.dracut && !i.tools ? "dracut -f" : "update-initramfs -u");
	if (!i.p2pmap[0] && i.gpu[0]) {
		doctor_add(h, "p2pmap.initramfs", DOCTOR_WARN,
			   i.dracut && !i.tools ?
			   "add p2pmap to add_drivers in /etc/dracut.conf.d, then dracut -f" :
			   "add p2pmap to /etc/initramfs-tools/modules, then update-initramfs -u",
			   "%s is loaded from the initramfs (%s) and p2pmap is not: %s probes before p2pmap can reserve the peers' windows",
			   drv, i.gpu, drv);
		return;
	}
	if (!i.p2pmap[0]) {
		doctor_add(h, "p2pmap.initramfs", DOCTOR_OK, NULL,
			   "neither p2pmap nor %s is named in %s: both load from the root file system, with %s",
			   drv, i.tools || i.dracut ?
			   "the initramfs configuration (/etc/initramfs-tools/modules, dracut.conf.d)" :
			   "an initramfs configuration (no initramfs-tools, no dracut)",
			   CONFIG_FILE);
		return;
	}
	if (!doctor_read(h, osrel, sizeof(osrel), "/proc/sys/kernel/osrelease") ||
	    !osrel[0]) {
		doctor_add(h, "p2pmap.initramfs", DOCTOR_SKIP, NULL,
			   "p2pmap is in the initramfs (%s); the running kernel, so its image, is unknown (/proc/sys/kernel/osrelease)",
			   i.p2pmap);
		return;
	}
	if (!strncmp(i.p2pmap, "/etc/dracut", 11))
		snprintf(image, sizeof(image), "/boot/initramfs-%.100s.img",
			 osrel);
	else
		snprintf(image, sizeof(image), "/boot/initrd.img-%.100s",
			 osrel);
	snprintf(path, sizeof(path), "%s%s", h->root, image);
	if (stat(path, &si)) {
		doctor_add(h, "p2pmap.initramfs", DOCTOR_WARN, fix,
			   "p2pmap is in the initramfs (%s), but there is no %s to hold %s",
			   i.p2pmap, image, CONFIG_FILE);
		return;
	}
	snprintf(path, sizeof(path), "%s%s", h->root, CONFIG_FILE);
	if (stat(path, &sc)) {
		doctor_add(h, "p2pmap.initramfs", DOCTOR_SKIP, NULL,
			   "%s cannot be read", CONFIG_FILE);
		return;
	}
	/* The softdep file goes in too: the newer of the two counts. */
	snprintf(path, sizeof(path), "%s%s", h->root, SOFTDEP_FILE);
	if (!stat(path, &ss) && ss.st_mtime > sc.st_mtime) {
		sc = ss;
		conf = SOFTDEP_FILE;
	}
	when(sc.st_mtime, conf_t, sizeof(conf_t));
	when(si.st_mtime, image_t, sizeof(image_t));
	if (sc.st_mtime > si.st_mtime)
		doctor_add(h, "p2pmap.initramfs", DOCTOR_WARN, fix,
			   "p2pmap is in the initramfs (%s), and %s (%s) is newer than %s (%s): at boot p2pmap loads with the configuration before it",
			   i.p2pmap, conf, conf_t, image, image_t);
	else
		doctor_add(h, "p2pmap.initramfs", DOCTOR_OK, NULL,
			   "p2pmap is in the initramfs (%s), and %s (%s) was built after %s (%s): it holds the saved configuration",
			   i.p2pmap, image, image_t, conf, conf_t);
}
