// SPDX-License-Identifier: GPL-2.0
/*
 * user/host/modprobe_softdep.c against kmod itself: for each host tree,
 * the softdep line softdep_scan() puts first must be the one that
 * "modprobe -c -d ROOT -S KVER -C DIR..." (the same directories, in
 * kmod's own order) prints first for the driver, which is the one kmod
 * uses.  Skipped where there is no modprobe.  Then the reader of
 * "modprobe -c" on a fixed output.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modprobe_softdep.h"
#include "tap.h"
#include "tree.h"

#define KVER	"6.12.57+deb13-amd64"

static const char *modprobe;

/* "pre: a b post: c", as both sides are compared. */
static void deps(const struct softdep_line *l, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < l->npre; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : "pre: ",
			      l->pre[i]);
	for (i = 0; i < l->npost; i++)
		n += snprintf(buf + n, len - n, "%s%s", i ? " " : " post: ",
			      l->post[i]);
}

static void cross_check(const char *root, const char *driver,
			const char *desc)
{
	char cmd[4096], ours[2048] = "(none)", kmods[2048] = "(none)";
	struct softdep_view v;
	struct softdep_line k;
	FILE *f;
	int r = -1;

	if (softdep_scan(root, KVER, driver, &v)) {
		tap_ok(false, "%s: scan", desc);
		return;
	}
	if (v.n)
		deps(&v.line[0], ours, sizeof(ours));
	snprintf(cmd, sizeof(cmd),
		 "%s -c -d %s -S %s -C %s/etc/modprobe.d -C %s/run/modprobe.d -C %s/usr/local/lib/modprobe.d -C %s/usr/lib/modprobe.d -C %s/lib/modprobe.d 2>/dev/null",
		 modprobe, root, KVER, root, root, root, root, root);
	f = popen(cmd, "r");
	if (f) {
		r = softdep_kmod_first(f, driver, &k);
		pclose(f);
	}
	if (r == 1)
		deps(&k, kmods, sizeof(kmods));
	if (!tap_ok(r >= 0 && !strcmp(ours, kmods),
		    "%s: the first line is kmod's (%s)", desc, kmods))
		printf("# ours: %s (%s line %u)\n# kmod's: %s\n", ours,
		       v.n ? v.line[0].file : "", v.n ? v.line[0].line : 0,
		       kmods);
	softdep_view_free(&v);
}

static void test_kmod(void)
{
	char root[] = "/tmp/p2pmap-kmod-XXXXXX", cmd[64];

	if (!mkdtemp(root)) {
		tap_ok(false, "mkdtemp");
		return;
	}
	cross_check(root, "nvidia", "no line at all");
	/* Proxmox VE's admin guide, then p2pmap's old single file. */
	put(root, "/etc/modprobe.d/nvidia.conf", "softdep nvidia pre: vfio-pci\n");
	put(root, "/etc/modprobe.d/p2pmap.conf",
	    "softdep nvidia pre: p2pmap\noptions p2pmap drivers=nvidia\n");
	cross_check(root, "nvidia", "Proxmox's nvidia.conf before p2pmap.conf");
	put(root, "/lib/modules/" KVER "/modules.softdep",
	    "softdep nvidia pre: from-modules-softdep\n");
	cross_check(root, "nvidia", "modules.softdep sorts by its name among the files");
	put(root, "/usr/lib/modprobe.d/lib.conf", "softdep nvidia pre: usr-lib\n");
	put(root, "/run/modprobe.d/lib.conf", "softdep nvidia pre: run\n");
	cross_check(root, "nvidia", "a name in /run hides the same name in /usr/lib");
	put(root, "/etc/modprobe.d/lib.conf", "softdep nvidia pre: etc\n");
	cross_check(root, "nvidia", "... and /etc hides /run's");
	put(root, "/usr/local/lib/modprobe.d/k.conf",
	    "# softdep nvidia pre: comment\nsoftdep nvidia\nsoftdep nvidia \\\n   pre: a-b \\\n post: c\n");
	cross_check(root, "nvidia", "a comment, a line without modules, a continued line");
	put(root, "/usr/local/lib/modprobe.d/jj.conf", "softdep nvidia  pre: quirk post: q\n");
	cross_check(root, "nvidia", "two spaces after the module's name: kmod reads no \"pre:\"");
	put(root, "/etc/modprobe.d/j.txt", "softdep nvidia pre: txt\n");
	put(root, "/etc/modprobe.d/.h.conf", "softdep nvidia pre: hidden\n");
	put(root, "/etc/modprobe.d/i.conf", "/");
	put(root, "/lib/modprobe.d/i.conf", "softdep nvidia pre: lib\n");
	cross_check(root, "nvidia", "not .conf, a dot file, a directory named .conf");
	put(root, "/usr/lib/modprobe.d/h.conf",
	    "softdep\tnv*  post: glob\nsoftdep nvidia pre: after-glob\n");
	cross_check(root, "nvidia", "a pattern for the module, tabs");
	put(root, "/lib/modprobe.d/g.conf", "softdep nvidia-drm pre: drm\n");
	cross_check(root, "nvidia_drm", "'-' and '_' alike in the module's name");
	put(root, "/etc/modprobe.d/00-p2pmap-softdep.conf",
	    "softdep nvidia pre: p2pmap vfio-pci\n");
	put(root, "/etc/modprobe.d/0-z.conf", "softdep nvidia pre: zero-dash\n");
	cross_check(root, "nvidia", "00-p2pmap-softdep.conf first, but for 0-z.conf ('-' sorts before '0')");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		tap_ok(false, "rm -rf");
}

static void test_reader(void)
{
	static const char out[] =
		"options p2pmap drivers=nvidia\n"
		"softdep nvidia_drm pre: x\n"
		"softdep nvidia pre: p2pmap vfio-pci post: nvidia-uvm\n"
		"softdep nvidia pre: later\n"
		"\n# End of configuration files. Dumping indexes now:\n\n"
		"softdep nvidia pre: index\n";
	struct softdep_line l;
	FILE *f = fmemopen((void *)out, sizeof(out) - 1, "r");

	tap_ok(softdep_kmod_first(f, "nvidia", &l) == 1 && l.npre == 2 &&
	       !strcmp(l.pre[1], "vfio-pci") && l.npost == 1 &&
	       !strcmp(l.file, "modprobe -c"),
	       "modprobe -c: the first softdep line for the module");
	fclose(f);
	f = fmemopen((void *)out, sizeof(out) - 1, "r");
	tap_ok(softdep_kmod_first(f, "nouveau", &l) == 0,
	       "modprobe -c: none before the indexes");
	fclose(f);
}

int main(void)
{
	static const char * const bins[] = {
		"/usr/sbin/modprobe", "/sbin/modprobe", "/usr/bin/modprobe",
	};
	size_t i;

	for (i = 0; i < sizeof(bins) / sizeof(bins[0]) && !modprobe; i++)
		if (!access(bins[i], X_OK))
			modprobe = bins[i];
	if (modprobe)
		test_kmod();
	else
		printf("# no modprobe here: the cross-check with kmod is skipped\n");
	test_reader();
	return tap_done();
}
