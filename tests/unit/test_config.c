// SPDX-License-Identifier: GPL-2.0
/* Unit tests for user/host/config.c: the modprobe.d file, its atomic write. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "config_merge.h"
#include "tap.h"
#include "tree.h"

#define WHEN "2023-11-14T22:13:20+00:00"
#define HEAD "# Written by \"p2pmap config save\" on " WHEN ". Loaded by modprobe.\n" \
	"# p2pmap loads before the GPU driver (00-p2pmap-softdep.conf), so links are mapped from its first bind.\n"

static struct p2pmap_link mklink(const char *i, const char *t, uint32_t mask)
{
	struct p2pmap_link l;

	memset(&l, 0, sizeof(l));
	snprintf(l.initiator, sizeof(l.initiator), "%s", i);
	snprintf(l.target, sizeof(l.target), "%s", t);
	l.bar_mask = mask;
	return l;
}

static void render_check(const struct p2pmap_policy *p,
			 const struct p2pmap_link *links, size_t n,
			 const char *want, const char *desc)
{
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	config_render(f, p, links, n, WHEN);
	fclose(f);
	if (!tap_ok(!strcmp(got, want), "%s", desc))
		printf("# got:\n%s# want:\n%s", got, want);
	free(got);
}

static void test_render(void)
{
	struct p2pmap_policy def = { .drivers = "nvidia" };
	struct p2pmap_policy all = {
		.drivers = "nvidia,nouveau", .vendors = "10de",
		.classes = "0302", .numa_nodes = "0,1",
	};
	struct p2pmap_policy none = { .drivers = "" };
	struct p2pmap_link links[3] = {
		mklink("0000:01:00.0", "0000:41:00.0", P2PMAP_BAR_MASK_DEFAULT),
		mklink("0000:41:00.0", "0000:01:00.0", 0x2),
		mklink("0000:41:00.0", "0000:02:00.0", 0),	/* not sent */
	};

	render_check(&def, links, 1,
		     HEAD "options p2pmap drivers=nvidia links=0000:01:00.0>0000:41:00.0\n",
		     "config: default policy, one link (the softdep is in its own file)");
	render_check(&all, links, 3,
		     HEAD "options p2pmap drivers=nvidia,nouveau vendors=10de classes=0302 numa_nodes=0,1 "
		     "links=0000:01:00.0>0000:41:00.0,0000:41:00.0>0000:01:00.0/0x2,0000:41:00.0>0000:02:00.0\n",
		     "config: every filter, a BAR mask");
	render_check(&def, NULL, 0,
		     HEAD "options p2pmap drivers=nvidia\n",
		     "config: no links, no links=");
	render_check(&none, NULL, 0,
		     HEAD "options p2pmap drivers=\n",
		     "config: an empty allowlist is written");
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_write(void)
{
	char dir[] = "/tmp/p2pmap-config-XXXXXX", path[64], tmp[80], bad[96];
	struct stat st;
	char *got;

	if (!mkdtemp(dir)) {
		tap_ok(false, "mkdtemp");
		return;
	}
	snprintf(path, sizeof(path), "%s/p2pmap.conf", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	tap_ok(config_write(path, "one\n", 4) == 0 &&
	       (got = slurp(path)) && !strcmp(got, "one\n"),
	       "config_write creates the file");
	tap_ok(config_write(path, "two\n", 4) == 0 &&
	       (got = slurp(path)) && !strcmp(got, "two\n") &&
	       stat(tmp, &st) && stat(path, &st) == 0 &&
	       (st.st_mode & 0777) == 0644,
	       "config_write replaces it, mode 0644, no .tmp left");
	snprintf(bad, sizeof(bad), "%s/nodir/p2pmap.conf", dir);
	tap_ok(config_write(bad, "x\n", 2) < 0 && stat(bad, &st),
	       "config_write into a missing directory fails");
	unlink(path);
	rmdir(dir);
}

static void merge_check(const char *old, const char *want, const char *desc)
{
	char *got = config_merge(old, "BLOCK\n");

	if (!tap_ok(got && !strcmp(got, want), "%s", desc))
		printf("# got:\n%s# want:\n%s", got, want);
	free(got);
}

static void test_merge(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	merge_check(NULL, "BLOCK\n", "merge: no file: the block");
	merge_check("# mine\noptions nvidia NVreg_DmaRemapPeerMmio=1\n",
		    "# mine\noptions nvidia NVreg_DmaRemapPeerMmio=1\nBLOCK\n",
		    "merge: other lines kept, the block appended");
	merge_check(HEAD "softdep nvidia pre: p2pmap\n"
		    "options p2pmap drivers=nvidia links=0000:01:00.0>0000:41:00.0\n"
		    "# mine\n",
		    "BLOCK\n# mine\n",
		    "merge: its own lines replaced where they were");
	merge_check("options p2pmap dmar_log=N drivers=nvidia \\\n\tlinks=0000:01:00.0>0000:41:00.0 reserve=none\n"
		    "softdep nvidia pre: p2pmap nvidia-uvm\n",
		    "BLOCK\noptions p2pmap dmar_log=N reserve=none\n"
		    "softdep nvidia pre: p2pmap nvidia-uvm\n",
		    "merge: other parameters of its options line kept (continued line), a softdep with more kept");
	merge_check("# no newline at the end", "# no newline at the end\nBLOCK\n",
		    "merge: a last line without a newline");
	f = open_memstream(&buf, &len);
	tap_ok(config_diff(f, "a\nb\n", "a\nc\n") == 2, "diff: one line each way");
	fclose(f);
	tap_ok(!strcmp(buf, "- b\n+ c\n"), "diff: - then +");
	free(buf);
}

#define SOFTDEP_HEAD "# Written by \"p2pmap config save\" on " WHEN ". Loaded by modprobe.\n" \
	"# kmod uses only the first \"softdep DRIVER\" line it reads, and reads\n" \
	"# this file first (modprobe.d files go by name): each line loads p2pmap\n" \
	"# before the GPU driver and keeps the modules of the driver's other lines.\n"

static void softdep_check(const char *root, const char *drivers,
			  const char *want, const char *desc)
{
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);
	int rc = config_render_softdep(f, drivers, root, "6.12.57+deb13-amd64",
				       "/etc/modprobe.d/00-p2pmap-softdep.conf",
				       WHEN);

	fclose(f);
	if (!tap_ok(!rc && !strcmp(got, want), "%s", desc))
		printf("# got:\n%s# want:\n%s", got, want);
	free(got);
}

/*
 * The softdep file on a host shaped as Proxmox VE's admin guide
 * (qm-pci-passthrough.adoc) leaves it: "softdep nvidia pre: vfio-pci" in
 * /etc/modprobe.d/nvidia.conf, which kmod reads before p2pmap.conf.
 */
static void test_softdep(void)
{
	char root[] = "/tmp/p2pmap-softdep-XXXXXX", cmd[64];

	if (!mkdtemp(root)) {
		tap_ok(false, "mkdtemp");
		return;
	}
	put(root, "/etc/modprobe.d/nvidia.conf", "softdep nvidia pre: vfio-pci\n");
	put(root, "/etc/modprobe.d/p2pmap.conf",
	    "softdep nvidia pre: p2pmap\noptions p2pmap drivers=nvidia\n");
	softdep_check(root, "nvidia", SOFTDEP_HEAD
		      "# kept from /etc/modprobe.d/nvidia.conf line 1: pre: vfio-pci\n"
		      "softdep nvidia pre: p2pmap vfio-pci\n",
		      "softdep: Proxmox's vfio-pci kept after p2pmap, its origin said");
	put(root, "/etc/modprobe.d/00-p2pmap-softdep.conf",
	    "softdep nvidia pre: p2pmap gone\n");
	put(root, "/usr/lib/modprobe.d/nvidia-x.conf",
	    "softdep nvidia_x pre: no\nsoftdep nvidia pre: vfio_pci \\\n  nvidia-peermem post: nvidia-uvm p2pmap\n");
	put(root, "/lib/modules/6.12.57+deb13-amd64/modules.softdep",
	    "softdep nvidia pre: ecdh_generic\n");
	softdep_check(root, "nvidia,nouveau", SOFTDEP_HEAD
		      "# kept from /lib/modules/6.12.57+deb13-amd64/modules.softdep line 1: pre: ecdh_generic\n"
		      "# kept from /usr/lib/modprobe.d/nvidia-x.conf line 2: pre: vfio_pci nvidia-peermem post: nvidia-uvm\n"
		      "softdep nvidia pre: p2pmap ecdh_generic vfio_pci nvidia-peermem post: nvidia-uvm\n"
		      "softdep nouveau pre: p2pmap\n",
		      "softdep: every line merged in kmod's order ('-' and '_' alike, continued lines, modules.softdep), its own old line not, a line per driver");
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd))
		tap_ok(false, "rm -rf");
}

int main(void)
{
	test_render();
	test_softdep();
	test_write();
	test_merge();
	return tap_done();
}
