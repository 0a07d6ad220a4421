// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: the kernels a reboot can start, and p2pmap's DKMS build for each.
 * An installed kernel is ROOT/lib/modules/KVER with ROOT/boot/vmlinuz-KVER.
 * The next boot's kernel, in the order the boot loaders honour them:
 *
 * - /etc/kernel/next-boot-pin, then /etc/kernel/proxmox-boot-pin (first
 *   line: "proxmox-boot-tool kernel pin KVER [--next-boot]", Proxmox VE's
 *   proxmox-kernel-helper; the next-boot pin wins, and is removed at boot);
 * - GRUB: /boot/grub/grubenv's next_entry (grub-reboot), else its
 *   saved_entry with GRUB_DEFAULT=saved, else GRUB_DEFAULT from
 *   /etc/default/grub, when the entry names a kernel ("gnulinux-KVER-
 *   advanced-..." or "..., with Linux KVER");
 * - else the newest installed kernel: GRUB's first entry (GRUB_DEFAULT=0,
 *   Debian's default; grub-mkconfig's 10_linux sorts the kernels with
 *   version_sort, newest first), and systemd-boot's on Proxmox VE
 *   ("default proxmox-*" picks the newest).  Said as an assumption.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

#ifndef P2PMAP_VERSION
#define P2PMAP_VERSION "VERSION"
#endif

#define MAX_KERNELS	32
#define KVER_LEN	128

struct kernels {
	char k[MAX_KERNELS][KVER_LEN];	/* newest first */
	int n;
	char running[KVER_LEN];
	char next[KVER_LEN];
	char how[300];			/* how the next one was found */
};

static int newest_first(const void *a, const void *b)
{
	return strverscmp(b, a);
}

static void installed(const struct host *h, struct kernels *ks)
{
	char path[PATH_MAX], rel[PATH_MAX];
	struct dirent **names;
	int n, i;

	snprintf(path, sizeof(path), "%s/lib/modules", h->root);
	n = scandir(path, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *k = names[i]->d_name;

		snprintf(rel, sizeof(rel), "/boot/vmlinuz-%.200s", k);
		if (k[0] != '.' && strlen(k) < KVER_LEN &&
		    ks->n < MAX_KERNELS && doctor_exists(h, rel))
			snprintf(ks->k[ks->n++], KVER_LEN, "%s", k);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	qsort(ks->k, ks->n, KVER_LEN, newest_first);
}

/*
 * The kernel a GRUB entry names, or false: an id ("gnulinux-advanced-ID>
 * gnulinux-KVER-advanced-ID", the submenu's id first) or a title
 * ("Advanced options ...>Debian GNU/Linux, with Linux KVER").
 */
static bool grub_entry_kernel(const char *entry, char *kver, size_t len)
{
	const char *p, *end;

	for (p = strstr(entry, "gnulinux-"); p; p = strstr(p + 9, "gnulinux-")) {
		end = strstr(p + 9, "-advanced-");
		if (!strncmp(p + 9, "advanced-", 9) ||
		    !strncmp(p + 9, "simple-", 7) || !end || end == p + 9)
			continue;
		snprintf(kver, len, "%.*s", (int)(end - p - 9), p + 9);
		return true;
	}
	p = strstr(entry, "with Linux ");
	if (!p)
		return false;
	snprintf(kver, len, "%s", p + 11);
	kver[strcspn(kver, "'\" ")] = '\0';
	return kver[0];
}

/* KEY=VALUE's value (quotes dropped) from ROOT/REL, or false. */
static bool file_value(const struct host *h, const char *rel, const char *key,
		       char *buf, size_t len)
{
	char path[PATH_MAX], line[512], *v;
	size_t klen = strlen(key);
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) || line[klen] != '=')
			continue;
		v = line + klen + 1;
		v[strcspn(v, "\n")] = '\0';
		if (v[0] == '"' || v[0] == '\'') {
			v[strcspn(v + 1, "\"'") + 1] = '\0';
			v++;
		}
		snprintf(buf, len, "%s", v);
		found = true;			/* the last one counts */
	}
	if (f)
		fclose(f);
	return found && buf[0];
}

static bool pinned(const struct host *h, struct kernels *ks, const char *rel,
		   const char *cmd)
{
	if (!doctor_read(h, ks->next, sizeof(ks->next), "%s", rel) ||
	    !ks->next[0])
		return false;
	snprintf(ks->how, sizeof(ks->how), "%s: %s", rel, cmd);
	return true;
}

static bool from_grub(const struct host *h, struct kernels *ks)
{
	const char *env = "/boot/grub/grubenv", *conf = "/etc/default/grub";
	char def[256] = "", entry[256];

	if (file_value(h, env, "next_entry", entry, sizeof(entry)) &&
	    grub_entry_kernel(entry, ks->next, sizeof(ks->next))) {
		snprintf(ks->how, sizeof(ks->how), "%s next_entry", env);
		return true;
	}
	file_value(h, conf, "GRUB_DEFAULT", def, sizeof(def));
	if (!strcmp(def, "saved") &&
	    file_value(h, env, "saved_entry", entry, sizeof(entry)) &&
	    grub_entry_kernel(entry, ks->next, sizeof(ks->next))) {
		snprintf(ks->how, sizeof(ks->how),
			 "GRUB_DEFAULT=saved, %s saved_entry", env);
		return true;
	}
	if (grub_entry_kernel(def, ks->next, sizeof(ks->next))) {
		snprintf(ks->how, sizeof(ks->how), "GRUB_DEFAULT in %s", conf);
		return true;
	}
	if (!ks->n)
		return false;
	snprintf(ks->next, sizeof(ks->next), "%s", ks->k[0]);
	snprintf(ks->how, sizeof(ks->how),
		 "assumed: the newest installed, GRUB's first entry and systemd-boot's default%s%s%s",
		 def[0] && strcmp(def, "0") ? "; GRUB_DEFAULT=" : "",
		 def[0] && strcmp(def, "0") ? def : "",
		 def[0] && strcmp(def, "0") ? " may choose another" : "");
	return true;
}

static void next_kernel(const struct host *h, struct kernels *ks)
{
	if (pinned(h, ks, "/etc/kernel/next-boot-pin",
		   "proxmox-boot-tool kernel pin --next-boot") ||
	    pinned(h, ks, "/etc/kernel/proxmox-boot-pin",
		   "proxmox-boot-tool kernel pin"))
		return;
	if (!from_grub(h, ks))
		ks->next[0] = '\0';
}

/* "dkms install p2pmap/V -k K" with the headers it needs, into @fix. */
static void install_fix(const struct host *h, const char *kver, char *fix,
			size_t len)
{
	char hdr[400], rel[PATH_MAX];

	doctor_headers_package(kver, hdr, sizeof(hdr));
	snprintf(rel, sizeof(rel), "/lib/modules/%.200s/build", kver);
	if (doctor_exists(h, rel))
		snprintf(fix, len, "dkms install p2pmap/%s -k %s, before the reboot",
			 P2PMAP_VERSION, kver);
	else
		snprintf(fix, len, "%.230s, then dkms install p2pmap/%s -k %.60s, before the reboot (no /lib/modules/%.60s/build: its headers are not installed)",
			 hdr, P2PMAP_VERSION, kver, kver);
}

static void check_next(struct host *h, const struct kernels *ks)
{
	char fix[512];

	if (!ks->next[0]) {
		doctor_add(h, "p2pmap.dkms.next", DOCTOR_SKIP, NULL,
			   "the next boot's kernel is unknown: no pin (/etc/kernel/next-boot-pin, proxmox-boot-pin), no GRUB entry naming one, no installed kernel (/boot/vmlinuz-KVER with /lib/modules/KVER)");
		return;
	}
	if (doctor_dkms_built(h, P2PMAP_VERSION, ks->next)) {
		doctor_add(h, "p2pmap.dkms.next", DOCTOR_OK, NULL,
			   "the next boot's kernel %s (%s) has p2pmap %s built by DKMS",
			   ks->next, ks->how, P2PMAP_VERSION);
		return;
	}
	install_fix(h, ks->next, fix, sizeof(fix));
	doctor_add(h, "p2pmap.dkms.next", DOCTOR_WARN, fix,
		   "the next boot's kernel %s (%s) has no p2pmap %s built by DKMS: after the reboot nvidia binds without p2pmap, and modprobe p2pmap finds no module",
		   ks->next, ks->how, P2PMAP_VERSION);
}

/* The installed kernels, other than the running and the next one. */
static void check_installed(struct host *h, const struct kernels *ks)
{
	char missing[400] = "", all[400] = "", fix[512] = "";
	size_t m = 0, a = 0, f = 0;
	int i;

	if (!ks->n)
		return;
	for (i = 0; i < ks->n; i++) {
		const char *k = ks->k[i];

		a += snprintf(all + a, a < sizeof(all) ? sizeof(all) - a : 0,
			      "%s%s", a ? ", " : "", k);
		if (!strcmp(k, ks->running) || !strcmp(k, ks->next) ||
		    doctor_dkms_built(h, P2PMAP_VERSION, k))
			continue;
		m += snprintf(missing + m,
			      m < sizeof(missing) ? sizeof(missing) - m : 0,
			      "%s%s", m ? ", " : "", k);
		f += snprintf(fix + f, f < sizeof(fix) ? sizeof(fix) - f : 0,
			      "%sdkms install p2pmap/%s -k %s", f ? "; " : "",
			      P2PMAP_VERSION, k);
	}
	if (m)
		doctor_add(h, "p2pmap.dkms.kernels", DOCTOR_WARN, fix,
			   "installed kernels without p2pmap %s built by DKMS: %s (booting one, from the boot menu or after a pin, starts the GPUs without p2pmap)",
			   P2PMAP_VERSION, missing);
	else
		doctor_add(h, "p2pmap.dkms.kernels", DOCTOR_OK, NULL,
			   "every installed kernel (%s) has p2pmap %s built by DKMS, or is judged above",
			   all, P2PMAP_VERSION);
}

/*
 * After p2pmap.dkms (the running kernel): the next boot's kernel and the
 * other installed ones.  Only where DKMS has p2pmap: p2pmap.dkms says so
 * otherwise.
 */
void doctor_check_kernels(struct host *h)
{
	struct kernels *ks;

	if (!doctor_exists(h, DOCTOR_DKMS_DIR))
		return;
	ks = calloc(1, sizeof(*ks));
	if (!ks)
		return;
	if (!doctor_read(h, ks->running, sizeof(ks->running),
			 "/proc/sys/kernel/osrelease"))
		ks->running[0] = '\0';
	installed(h, ks);
	next_kernel(h, ks);
	check_next(h, ks);
	check_installed(h, ks);
	free(ks);
}
