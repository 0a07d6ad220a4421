// SPDX-License-Identifier: GPL-2.0
/* The checks of "p2pmap doctor" (doctor.h), in the order of the chain. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doctor.h"
#include "link_sysfs.h"
#include "pci_scan.h"

#define GPU_BARS	6

struct gpu {
	char addr[16];
	unsigned long long bar_start[GPU_BARS], bar_end[GPU_BARS];
	char driver[32];		/* "" unbound */
	int group;			/* -1 unknown */
	char group_type[16];
	int numa;
	char root_bus[32];
	char path[256];			/* /sys/devices/pci.../ADDR */
	unsigned long long bar_flags[GPU_BARS];
};

/* One libpci scan's answers, per switch port (doctor reads a few). */
#define ACS_CACHE	64

struct acs_seen {
	char addr[16];
	int redirects;			/* acs_redirects()'s answer */
};

struct host {
	const char *root;
	struct acs_seen acs[ACS_CACHE];
	size_t nacs;
	const struct doctor_gpus *want;
	struct gpu gpus[DOCTOR_MAX_GPUS];
	size_t ngpus;
	bool pt, snp, tdx, loaded;
	struct doctor_report *r;
};

/* ROOT/PATH's first line into @buf; false when it cannot be read. */
static bool rd(const struct host *h, char *buf, size_t len,
	       const char *fmt, ...)
{
	char rel[PATH_MAX], path[PATH_MAX + 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rel, sizeof(rel), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	return !sysfs_read_line(path, buf, len);
}

static bool exists(const struct host *h, const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	return !stat(path, &st);
}

/* The last component of the link ROOT/REL points to, or "". */
static void link_name(const struct host *h, const char *rel, char *buf,
		      size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	char *slash;

	snprintf(path, sizeof(path), "%s%s", h->root, rel);
	buf[0] = '\0';
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(buf, len, "%.*s", (int)len - 1, slash ? slash + 1 : target);
}

static struct doctor_check *add(struct host *h, const char *name,
				enum doctor_level level, const char *fix,
				const char *fmt, ...)
{
	struct doctor_check *c;
	va_list ap;

	if (h->r->n == DOCTOR_MAX_CHECKS)
		return NULL;
	c = &h->r->c[h->r->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->level = level;
	snprintf(c->fix, sizeof(c->fix), "%s", fix ? fix : "");
	va_start(ap, fmt);
	vsnprintf(c->evidence, sizeof(c->evidence), fmt, ap);
	va_end(ap);
	return c;
}

static void blocking(struct doctor_check *c)
{
	if (c)
		c->blocking = true;
}

/* Is @word a whole word of @line? */
static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = strstr(line, word); p; p = strstr(p + 1, word))
		if ((p == line || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return true;
	return false;
}

static void check_iommu(struct host *h)
{
	char cmdline[4096], path[PATH_MAX];
	const char *kind = NULL;
	struct dirent *e;
	DIR *d;

	if (!rd(h, cmdline, sizeof(cmdline), "/proc/cmdline")) {
		add(h, "iommu.cmdline", DOCTOR_SKIP, NULL,
		    "/proc/cmdline cannot be read");
	} else if (has_word(cmdline, "iommu=pt") ||
		   has_word(cmdline, "amd_iommu=pt")) {
		h->pt = true;
		add(h, "iommu.cmdline", DOCTOR_WARN,
		    "drop iommu=pt where SEV-SNP or device isolation matters, and map the peers with p2pmap",
		    "iommu=pt on the kernel command line: devices sit in identity domains (P2P needs no mapping, but DMA is not isolated)");
	} else if (has_word(cmdline, "amd_iommu=off") ||
		   has_word(cmdline, "intel_iommu=off")) {
		add(h, "iommu.cmdline", DOCTOR_WARN, NULL,
		    "the IOMMU is off on the kernel command line: no translation, no isolation");
	} else {
		add(h, "iommu.cmdline", DOCTOR_OK, NULL,
		    "no iommu=pt and no IOMMU off on the kernel command line");
	}

	snprintf(path, sizeof(path), "%s/sys/class/iommu", h->root);
	d = opendir(path);
	while (d && (e = readdir(d))) {
		if (!strncmp(e->d_name, "ivhd", 4))
			kind = "AMD-Vi";
		else if (!strncmp(e->d_name, "dmar", 4))
			kind = "VT-d";
	}
	if (d)
		closedir(d);
	if (kind)
		add(h, "iommu.driver", DOCTOR_OK, NULL, "%s is active (/sys/class/iommu)",
		    kind);
	else
		add(h, "iommu.driver", DOCTOR_WARN, NULL,
		    "no IOMMU in /sys/class/iommu: peers need no mapping, and nothing isolates DMA");
}

static void check_cc(struct host *h)
{
	char v[16];
	struct doctor_check *c;

	h->snp = rd(h, v, sizeof(v), "/sys/module/kvm_amd/parameters/sev_snp") &&
		 (v[0] == 'Y' || v[0] == '1');
	h->tdx = rd(h, v, sizeof(v), "/sys/module/kvm_intel/parameters/tdx") &&
		 (v[0] == 'Y' || v[0] == '1');
	if (!h->snp && !h->tdx) {
		add(h, "cc", DOCTOR_OK, NULL,
		    "no SEV-SNP or TDX host support enabled (kvm_amd sev_snp, kvm_intel tdx)");
		return;
	}
	if (h->pt) {
		c = add(h, "cc", DOCTOR_FAIL,
			"remove iommu=pt: keep translation and map the peers with p2pmap",
			"%s is on, and iommu=pt puts devices in identity domains, which it does not support",
			h->snp ? "SEV-SNP" : "TDX");
		blocking(c);
		return;
	}
	add(h, "cc", DOCTOR_OK, NULL,
	    "%s is on: the IOMMU must keep translating (no iommu=pt, no identity groups); p2pmap maps the peers inside the default domains",
	    h->snp ? "SEV-SNP" : "TDX");
}

/* The memory BARs from sysfs's resource file ("start end flags" lines). */
static void read_bars(const struct host *h, struct gpu *g)
{
	char path[PATH_MAX];
	unsigned long long st, en, fl;
	FILE *f;
	int i;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/resource",
		 h->root, g->addr);
	f = fopen(path, "r");
	for (i = 0; f && i < GPU_BARS &&
	     fscanf(f, "%llx %llx %llx", &st, &en, &fl) == 3; i++) {
		if (st && en > st && (fl & 0x200)) {	/* IORESOURCE_MEM */
			g->bar_start[i] = st;
			g->bar_end[i] = en;
			g->bar_flags[i] = fl;
		}
	}
	if (f)
		fclose(f);
}

/* "pci0000:40/0000:40:01.1/0000:41:00.0": the device's place in the tree. */
static void device_path(const struct host *h, struct gpu *g)
{
	char path[PATH_MAX], target[PATH_MAX];
	const char *p;
	ssize_t n;

	g->path[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s", h->root,
		 g->addr);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return;
	target[n] = '\0';
	p = strstr(target, "/pci");
	if (p)
		snprintf(g->path, sizeof(g->path), "%.*s",
			 (int)sizeof(g->path) - 1, p + 1);
}

/* The wanted vendor[:device], and a display or 3D controller class. */
static bool is_gpu(const struct host *h, const char *a)
{
	char v[32];

	if (!rd(h, v, sizeof(v), "/sys/bus/pci/devices/%s/vendor", a) ||
	    strtoul(v, NULL, 16) != h->want->vendor)
		return false;
	if (h->want->device &&
	    (!rd(h, v, sizeof(v), "/sys/bus/pci/devices/%s/device", a) ||
	     strtoul(v, NULL, 16) != h->want->device))
		return false;
	if (h->want->any_class)
		return true;
	return rd(h, v, sizeof(v), "/sys/bus/pci/devices/%s/class", a) &&
	       (!strncmp(v, "0x0300", 6) || !strncmp(v, "0x0302", 6));
}

/* NVIDIA display and 3D controllers (class 0x0300xx, 0x0302xx). */
static void find_gpus(struct host *h)
{
	char path[PATH_MAX], v[32], rel[PATH_MAX];
	struct dirent **names;
	struct gpu *g;
	int n, i;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", h->root);
	n = scandir(path, &names, NULL, alphasort);
	for (i = 0; i < n; i++) {
		const char *a = names[i]->d_name;

		if (a[0] != '.' && h->ngpus < DOCTOR_MAX_GPUS &&
		    strlen(a) < sizeof(h->gpus[0].addr) && is_gpu(h, a)) {
			g = &h->gpus[h->ngpus++];
			memset(g, 0, sizeof(*g));
			snprintf(g->addr, sizeof(g->addr), "%.*s",
				 (int)sizeof(g->addr) - 1, a);
			snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/driver", a);
			link_name(h, rel, g->driver, sizeof(g->driver));
			snprintf(rel, sizeof(rel), "/sys/bus/pci/devices/%s/iommu_group", a);
			link_name(h, rel, v, sizeof(v));
			g->group = v[0] ? atoi(v) : -1;
			if (g->group >= 0)
				rd(h, g->group_type, sizeof(g->group_type),
				   "/sys/kernel/iommu_groups/%d/type", g->group);
			g->numa = rd(h, v, sizeof(v),
				     "/sys/bus/pci/devices/%s/numa_node", a) ?
				  atoi(v) : -1;
			if (link_sysfs_root_bus(h->root, a, g->root_bus,
						sizeof(g->root_bus)))
				g->root_bus[0] = '\0';
			read_bars(h, g);
			device_path(h, g);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static bool translated(const struct gpu *g)
{
	return !strcmp(g->group_type, "DMA") || !strcmp(g->group_type, "DMA-FQ");
}

static void check_gpus(struct host *h)
{
	char name[48], path[PATH_MAX], others[128];
	struct dirent *e;
	size_t i, len;
	DIR *d;

	if (!h->ngpus && !h->want->any_class) {
		add(h, "gpus", DOCTOR_WARN, NULL,
		    "no NVIDIA GPU in /sys/bus/pci/devices");
		return;
	}
	if (!h->ngpus) {
		add(h, "gpus", DOCTOR_WARN, NULL,
		    "no device %04x%s%.0x in /sys/bus/pci/devices",
		    h->want->vendor, h->want->device ? ":" : "",
		    h->want->device);
		return;
	}
	for (i = 0; i < h->ngpus; i++) {
		struct gpu *g = &h->gpus[i];

		snprintf(name, sizeof(name), "gpu.%s.driver", g->addr);
		if (!strcmp(g->driver, h->want->driver))
			add(h, name, DOCTOR_OK, NULL,
			    "%s (NUMA node %d) is bound to %s", g->addr,
			    g->numa, g->driver);
		else if (!strcmp(g->driver, "vfio-pci"))
			add(h, name, DOCTOR_OK, NULL,
			    "%s (NUMA node %d) is bound to vfio-pci (a VM's or another VFIO user's): p2pmap never maps into or out of it",
			    g->addr, g->numa);
		else
			add(h, name, DOCTOR_WARN, NULL,
			    "%s (NUMA node %d) is bound to %s", g->addr, g->numa,
			    g->driver[0] ? g->driver : "no driver");

		snprintf(name, sizeof(name), "gpu.%s.group", g->addr);
		others[0] = '\0';
		snprintf(path, sizeof(path), "%s/sys/kernel/iommu_groups/%d/devices",
			 h->root, g->group);
		d = g->group >= 0 ? opendir(path) : NULL;
		while (d && (e = readdir(d))) {
			len = strlen(others);
			if (e->d_name[0] != '.' && strcmp(e->d_name, g->addr) &&
			    len + strlen(e->d_name) + 2 < sizeof(others))
				snprintf(others + len, sizeof(others) - len,
					 "%s%s", len ? " " : "", e->d_name);
		}
		if (d)
			closedir(d);
		if (g->group < 0)
			add(h, name, DOCTOR_WARN, NULL,
			    "%s is in no IOMMU group", g->addr);
		else if (translated(g) && !strcmp(g->driver, h->want->driver))
			add(h, name, others[0] ? DOCTOR_WARN : DOCTOR_OK, NULL,
			    "IOMMU group %d, %s: translated, so a peer's BAR needs a mapping in this GPU's domain%s%s",
			    g->group, g->group_type,
			    others[0] ? "; shares the group with " : "", others);
		else if (translated(g))
			add(h, name, others[0] ? DOCTOR_WARN : DOCTOR_OK, NULL,
			    "IOMMU group %d, default domain %s%s%s", g->group,
			    g->group_type,
			    others[0] ? "; shares the group with " : "", others);
		else
			add(h, name, DOCTOR_WARN, NULL,
			    "IOMMU group %d, %s: P2P needs no mapping, but the group is not isolated%s%s",
			    g->group, g->group_type[0] ? g->group_type : "type unknown",
			    others[0] ? "; shares the group with " : "", others);
	}
}

static void size_text(unsigned long long bytes, char *buf, size_t len)
{
	if (bytes >= 1ULL << 30)
		snprintf(buf, len, "%llu GiB", bytes >> 30);
	else if (bytes >= 1ULL << 20)
		snprintf(buf, len, "%llu MiB", bytes >> 20);
	else
		snprintf(buf, len, "%llu KiB", bytes >> 10);
}

/* Each GPU's memory BARs: size, 64-bit, prefetchable (sysfs resource). */
static void check_bars(struct host *h)
{
	char name[48], text[256], size[16];
	size_t i, len;
	int b;

	for (i = 0; i < h->ngpus; i++) {
		struct gpu *g = &h->gpus[i];

		text[0] = '\0';
		for (b = 0; b < GPU_BARS; b++) {
			if (!g->bar_end[b])
				continue;
			size_text(g->bar_end[b] - g->bar_start[b] + 1, size,
				  sizeof(size));
			len = strlen(text);
			snprintf(text + len, sizeof(text) - len,
				 "%sBAR%d %s%s%s", len ? ", " : "", b, size,
				 g->bar_flags[b] & 0x100000 ? " 64-bit" : "",
				 g->bar_flags[b] & 0x2000 ? " prefetchable" : "");
		}
		snprintf(name, sizeof(name), "gpu.%s.bars", g->addr);
		add(h, name, text[0] ? DOCTOR_OK : DOCTOR_SKIP, NULL, "%s",
		    text[0] ? text : "no memory BAR in sysfs's resource file");
	}
}

/* How many leading path components two GPUs share, and their counts. */
static size_t common_depth(const char *a, const char *b, size_t *na,
			   size_t *nb)
{
	size_t depth = 0, la, lb;
	bool same = true;

	*na = *nb = 0;
	while (*a || *b) {
		la = strcspn(a, "/");
		lb = strcspn(b, "/");
		*na += !!la;
		*nb += !!lb;
		same = same && la && la == lb && !strncmp(a, b, la);
		depth += same;
		a += la + !!a[la];
		b += lb + !!b[lb];
	}
	return depth;
}

/* ---- ACS on the switch ports above a GPU (PCI config space, libpci) */

struct acs_query {
	const char *addr;
	int ctrl;			/* ACS control, -1 no capability */
	bool found;
};

static int acs_scan(struct pci_access *pacc, void *arg)
{
	struct acs_query *q = arg;
	struct pci_cap *cap;
	struct pci_dev *d;
	char a[16];

	for (d = pacc->devices; d; d = d->next) {
		snprintf(a, sizeof(a), "%04x:%02x:%02x.%x", d->domain & 0xffff,
			 d->bus, d->dev, d->func);
		if (strcmp(a, q->addr))
			continue;
		q->found = true;
		cap = pci_find_cap(d, PCI_EXT_CAP_ID_ACS, PCI_CAP_EXTENDED);
		q->ctrl = cap ? pci_read_word(d, cap->addr + PCI_ACS_CTRL) : -1;
		break;
	}
	return 0;
}

/*
 * Does port @addr redirect peer requests and completions upstream (ACS
 * ReqRedir and CmpltRedir)?  1 yes, 0 no (or no ACS), -1 unreadable.
 */
static int acs_read(const struct host *h, const char *addr)
{
	struct acs_query q = { .addr = addr, .ctrl = -1 };
	char sysfs[PATH_MAX], why[128];

	snprintf(sysfs, sizeof(sysfs), "%s/sys/bus/pci", h->root);
	if (pci_scan_guarded(h->root[0] ? sysfs : NULL, acs_scan, &q, why,
			     sizeof(why)) || !q.found)
		return -1;
	if (q.ctrl < 0)
		return 0;
	return (q.ctrl & (PCI_ACS_CTRL_REQ_RED | PCI_ACS_CTRL_CMPLT_RED)) ==
	       (PCI_ACS_CTRL_REQ_RED | PCI_ACS_CTRL_CMPLT_RED);
}

/* acs_read(), once per port: every pair under a switch asks again. */
static int acs_redirects(struct host *h, const char *addr)
{
	struct acs_seen *a;
	size_t i;

	for (i = 0; i < h->nacs; i++)
		if (!strcmp(h->acs[i].addr, addr))
			return h->acs[i].redirects;
	if (h->nacs == ACS_CACHE)
		return acs_read(h, addr);
	a = &h->acs[h->nacs++];
	snprintf(a->addr, sizeof(a->addr), "%.15s", addr);
	a->redirects = acs_read(h, addr);
	return a->redirects;
}

/*
 * The ports a peer request from @g enters below the pair's common bridge:
 * components @common .. last-1 of its path.  Every one must redirect.
 * Returns 1, 0 (naming the first that does not in @port), or -1.
 */
static int path_redirects(struct host *h, const struct gpu *g,
			  size_t common, char *port, size_t len)
{
	char comp[32];
	const char *p = g->path;
	size_t i = 0, n;
	int ret = 1, r;

	while (*p) {
		n = strcspn(p, "/");
		if (i >= common && p[n]) {	/* not the GPU itself */
			snprintf(comp, sizeof(comp), "%.*s", (int)n, p);
			r = acs_redirects(h, comp);
			if (r <= 0 && ret == 1) {
				snprintf(port, len, "%s", comp);
				ret = r;
			}
		}
		i++;
		p += n + !!p[n];
	}
	return ret;
}

/*
 * Each pair of the server's GPUs in nvidia-smi topo's terms: PIX/PXB
 * (under one PCIe switch: P2P may turn there, before the root complex and
 * the IOMMU, unless ACS redirects it), PHB (one host bridge), NODE (host
 * bridges of one NUMA node), SYS (across NUMA nodes).
 */
static void check_paths(struct host *h)
{
	const char *cls, *what;
	char name[64];
	size_t i, j, d, na, nb;

	for (i = 0; i < h->ngpus; i++) {
		for (j = i + 1; j < h->ngpus; j++) {
			struct gpu *a = &h->gpus[i], *b = &h->gpus[j];

			if (strcmp(a->driver, h->want->driver) ||
			    strcmp(b->driver, h->want->driver) || !a->path[0] ||
			    !b->path[0])
				continue;
			snprintf(name, sizeof(name), "path.%s~%s", a->addr,
				 b->addr);
			d = common_depth(a->path, b->path, &na, &nb);
			if (strcmp(a->root_bus, b->root_bus)) {
				cls = a->numa == b->numa ? "NODE" : "SYS";
				what = a->numa == b->numa ?
				       "different host bridges of one NUMA node" :
				       "different NUMA nodes";
			} else if (d <= 1) {
				cls = "PHB";
				what = "one host bridge, different root ports";
			} else {
				/*
				 * The bridges between them: a switch's two
				 * downstream ports and its upstream port (3)
				 * is PIX; more (nested switches) is PXB.
				 */
				cls = (na - 1 - d) + (nb - 1 - d) + 1 <= 3 ?
				      "PIX" : "PXB";
				what = cls[1] == 'I' ? "one PCIe switch" :
				       "PCIe switches below one root port";
			}
			if (!strcmp(cls, "PIX") || !strcmp(cls, "PXB")) {
				char port[32] = "";
				int ra = path_redirects(h, a, d, port, sizeof(port));
				int rb = ra ? path_redirects(h, b, d, port,
							     sizeof(port)) : 0;

				if (ra == 1 && rb == 1)
					add(h, name, DOCTOR_OK, NULL,
					    "%s: %s whose ports redirect peer requests upstream (ACS ReqRedir+ CmpltRedir+): their P2P reaches the root complex and the IOMMU",
					    cls, what);
				else if (!ra || !rb)
					add(h, name, DOCTOR_WARN,
					    "enable ACS ReqRedir and CmpltRedir on the switch's downstream ports (setpci, or the platform's ACS setting), or accept P2P without IOMMU translation",
					    "%s: %s: port %s does not redirect peer requests (no ACS ReqRedir+ CmpltRedir+): their P2P turns in the switch and never reaches the IOMMU, so p2pmap's links do not apply to it",
					    cls, what, port);
				else
					add(h, name, DOCTOR_WARN,
					    "run as root (ACS sits in the extended configuration space)",
					    "%s: %s: the ACS control of port %s cannot be read: without redirection their P2P turns in the switch, before the IOMMU",
					    cls, what, port);
			} else {
				add(h, name, DOCTOR_OK, NULL,
				    "%s: %s: their P2P goes through the root complex and the IOMMU, where p2pmap's links apply",
				    cls, what);
			}
		}
	}
}

static void check_nvidia(struct host *h)
{
	char line[512], path[PATH_MAX];
	bool remap = false, seen = false;
	FILE *f;

	if (!rd(h, line, sizeof(line), "/proc/driver/nvidia/version")) {
		add(h, "nvidia.driver", DOCTOR_SKIP, NULL,
		    "the NVIDIA driver is not loaded (/proc/driver/nvidia/version)");
		return;
	}
	add(h, "nvidia.driver", DOCTOR_OK, NULL, "%s", line);
	snprintf(path, sizeof(path), "%s/proc/driver/nvidia/params", h->root);
	f = fopen(path, "r");
	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "DmaRemapPeerMmio: ", 18)) {
			seen = true;
			remap = atoi(line + 18) != 0;
		} else if (!strncmp(line, "RegistryDwords: ", 16) &&
			   (strstr(line, "RMForceP2PType") ||
			    strstr(line, "RMPcieP2PType") ||
			    strstr(line, "ForceP2P"))) {
			add(h, "nvidia.registry", DOCTOR_WARN, NULL,
			    "%s: the P2P type or P2P itself is forced", line);
		}
	}
	if (f)
		fclose(f);
	if (!seen)
		add(h, "nvidia.peer_mmio", DOCTOR_SKIP, NULL,
		    "no DmaRemapPeerMmio in /proc/driver/nvidia/params");
	else if (remap)
		add(h, "nvidia.peer_mmio", DOCTOR_OK, NULL,
		    "DmaRemapPeerMmio: 1: the driver maps some peer directions itself; p2pmap links cover the others");
	else
		add(h, "nvidia.peer_mmio", DOCTOR_WARN, NULL,
		    "DmaRemapPeerMmio: 0: the driver maps no peer BAR itself: every direction needs a p2pmap link");
}

/* Translated GPUs bound to the server's driver: their P2P needs p2pmap. */
static bool needs_links(const struct host *h, const struct gpu *g)
{
	return translated(g) && !strcmp(g->driver, h->want->driver);
}

static void check_p2pmap(struct host *h)
{
	char v[64], name[64], fix[160];
	struct link_sysfs l;
	size_t i, j, need = 0;
	struct doctor_check *c;

	for (i = 0; i < h->ngpus; i++)
		need += needs_links(h, &h->gpus[i]);
	h->loaded = link_sysfs_loaded(h->root);
	if (!h->loaded && need < 2) {
		add(h, "p2pmap.loaded", DOCTOR_OK, NULL,
		    "p2pmap is not loaded; fewer than two translated %s GPUs, none needs it",
		    h->want->driver);
		return;
	}
	if (!h->loaded) {
		c = add(h, "p2pmap.loaded", DOCTOR_FAIL,
			exists(h, "/sys/module/p2pmap") ? "" :
			"modprobe p2pmap (installed with make install or the p2pmap-dkms package)",
			"p2pmap is not loaded: no peer BAR is mapped in %zu translated %s GPU(s)' domains",
			need, h->want->driver);
		blocking(c);
		return;
	}
	rd(h, v, sizeof(v), "/sys/kernel/p2pmap/version");
	add(h, "p2pmap.loaded", DOCTOR_OK, NULL, "p2pmap %s is loaded",
	    v[0] ? v : "(version unknown)");

	/*
	 * Every configured link between GPUs, whatever their drivers now
	 * (a GPU that left makes its links pending), and the README's
	 * story: a full mesh among the server's GPUs of each NUMA node.
	 */
	for (i = 0; i < h->ngpus; i++) {
		for (j = 0; j < h->ngpus; j++) {
			struct gpu *a = &h->gpus[i], *b = &h->gpus[j];

			if (i == j)
				continue;
			link_sysfs_read(h->root, a->addr, b->addr, &l);
			if (!l.exists && (!needs_links(h, a) ||
					  !needs_links(h, b) ||
					  a->numa != b->numa))
				continue;
			snprintf(name, sizeof(name), "link.%s>%s", a->addr,
				 b->addr);
			if (!l.exists) {
				snprintf(fix, sizeof(fix), "p2pmap link add %s %s (or p2pmap link auto --numa %d)",
					 a->addr, b->addr, a->numa);
				add(h, name, DOCTOR_WARN, fix,
				    "no link %s -> %s (same NUMA node %d): P2P in this direction works only if the driver maps it",
				    a->addr, b->addr, a->numa);
			} else if (!strcmp(l.state, "blocked")) {
				/* The policy's word: by design, not a fault. */
				add(h, name, DOCTOR_WARN, "p2pmap status",
				    "link %s -> %s is blocked%s%s", a->addr,
				    b->addr, l.reason[0] ? ": " : "",
				    l.reason);
			} else if (strcmp(l.state, "mapped")) {
				c = add(h, name, DOCTOR_FAIL, "p2pmap status",
					"link %s -> %s is %s%s%s", a->addr,
					b->addr, l.state,
					l.reason[0] ? ": " : "", l.reason);
				blocking(c);
			} else if (l.has_faults && l.faults) {
				c = add(h, name, DOCTOR_FAIL, "p2pmap faults",
					"link %s -> %s is mapped but counted %llu fault(s)",
					a->addr, b->addr,
					(unsigned long long)l.faults);
				blocking(c);
			} else {
				add(h, name, DOCTOR_OK, NULL,
				    "link %s -> %s is mapped, no fault", a->addr,
				    b->addr);
			}
		}
	}
	if (!exists(h, "/etc/modprobe.d/p2pmap.conf"))
		add(h, "p2pmap.config", DOCTOR_WARN, "p2pmap config save",
		    "no /etc/modprobe.d/p2pmap.conf: the links are lost at the next boot");
	else
		add(h, "p2pmap.config", DOCTOR_OK, NULL,
		    "/etc/modprobe.d/p2pmap.conf exists (p2pmap config check reads it as the module will)");
}

/* ---- the server's environment */

struct env {
	char disable[16], level[16], vllm[16], cvd[64], order[32];
	bool read;
	char from[160];
};

static void env_set(struct env *e, const char *kv)
{
	static const struct {
		const char *key;
		size_t off, len;
	} keys[] = {
		{ "NCCL_P2P_DISABLE=", offsetof(struct env, disable), 16 },
		{ "NCCL_P2P_LEVEL=", offsetof(struct env, level), 16 },
		{ "VLLM_SKIP_P2P_CHECK=", offsetof(struct env, vllm), 16 },
		{ "CUDA_VISIBLE_DEVICES=", offsetof(struct env, cvd), 64 },
		{ "CUDA_DEVICE_ORDER=", offsetof(struct env, order), 32 },
	};
	size_t i, n;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		n = strlen(keys[i].key);
		if (!strncmp(kv, keys[i].key, n))
			snprintf((char *)e + keys[i].off, keys[i].len, "%.*s",
				 (int)strcspn(kv + n, "\"' \n"), kv + n);
	}
}

/* UnsetEnvironment=A B: those are not passed, whatever set them. */
static void env_unset(struct env *e, char *names)
{
	char *tok, *save = NULL, kv[64];

	for (tok = strtok_r(names, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		snprintf(kv, sizeof(kv), "%.62s=", tok);
		env_set(e, kv);
	}
}

/* KEY=VALUE words of one line ("Environment=A=1 B=2" for units). */
static void env_line(struct env *e, char *line)
{
	char *tok, *save = NULL;

	if (!strncmp(line, "UnsetEnvironment=", 17)) {
		env_unset(e, line + 17);
		return;
	}
	if (!strncmp(line, "Environment=", 12))
		line += 12;
	for (tok = strtok_r(line, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save)) {
		if (*tok == '"' || *tok == '\'')
			tok++;
		if (!strncmp(tok, "export", 6) && !tok[6])
			continue;
		env_set(e, tok);
	}
}

static bool env_file(struct env *e, const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (line[0] != '#')
			env_line(e, line);
	fclose(f);
	return true;
}

static void read_env(struct host *h, const struct doctor_env_source *src,
		     struct env *e)
{
	char path[PATH_MAX], buf[65536];
	struct dirent **names;
	size_t len, off;
	int n, i;
	FILE *f;

	memset(e, 0, sizeof(*e));
	if (src->file) {
		e->read = env_file(e, src->file);
		snprintf(e->from, sizeof(e->from), "%s", src->file);
	} else if (src->unit) {
		snprintf(path, sizeof(path), "%s/etc/systemd/system/%s",
			 h->root, src->unit);
		e->read = env_file(e, path);
		/* Drop-ins after the unit, in name order, as systemd does. */
		snprintf(path, sizeof(path), "%s/etc/systemd/system/%s.d",
			 h->root, src->unit);
		n = scandir(path, &names, NULL, alphasort);
		for (i = 0; i < n; i++) {
			char dropin[PATH_MAX + 256];

			snprintf(dropin, sizeof(dropin), "%s/%s", path,
				 names[i]->d_name);
			if (strstr(names[i]->d_name, ".conf"))
				env_file(e, dropin);
			free(names[i]);
		}
		if (n >= 0)
			free(names);
		snprintf(e->from, sizeof(e->from), "unit %s", src->unit);
	} else if (src->pid) {
		snprintf(path, sizeof(path), "%s/proc/%s/environ", h->root,
			 src->pid);
		f = fopen(path, "r");
		if (f) {
			len = fread(buf, 1, sizeof(buf) - 1, f);
			buf[len] = '\0';
			fclose(f);
			for (off = 0; off < len; off += strlen(buf + off) + 1)
				env_set(e, buf + off);
			e->read = true;
		}
		snprintf(e->from, sizeof(e->from), "process %s", src->pid);
	}
}

static bool cross_root(const struct host *h)
{
	size_t i, j;

	/* The server's GPUs: those bound to its driver, translated or not. */
	for (i = 0; i < h->ngpus; i++)
		for (j = i + 1; j < h->ngpus; j++)
			if (!strcmp(h->gpus[i].driver, h->want->driver) &&
			    !strcmp(h->gpus[j].driver, h->want->driver) &&
			    strcmp(h->gpus[i].root_bus, h->gpus[j].root_bus))
				return true;
	return false;
}

static void check_env(struct host *h, const struct doctor_env_source *src)
{
	struct doctor_check *c;
	struct env e;

	if (!src->file && !src->unit && !src->pid) {
		add(h, "env", DOCTOR_SKIP, NULL,
		    "the server's environment was not read (--unit NAME, --pid PID or --env-file FILE)");
		return;
	}
	read_env(h, src, &e);
	if (!e.read) {
		add(h, "env", DOCTOR_SKIP, NULL, "%s cannot be read", e.from);
		return;
	}
	if (e.disable[0] && strcmp(e.disable, "0")) {
		c = add(h, "env.nccl_p2p_disable", DOCTOR_FAIL,
			"drop NCCL_P2P_DISABLE once p2pmap verify passes (p2pmap env prints what to set)",
			"NCCL_P2P_DISABLE=%s in %s: NCCL uses SHM through host memory, whatever p2pmap maps",
			e.disable, e.from);
		blocking(c);
	} else {
		add(h, "env.nccl_p2p_disable", DOCTOR_OK, NULL,
		    "NCCL_P2P_DISABLE is not set in %s", e.from);
	}
	if (cross_root(h) && strcmp(e.level, "SYS"))
		add(h, "env.nccl_p2p_level", DOCTOR_WARN,
		    "NCCL_P2P_LEVEL=SYS (only once every direction is verified)",
		    "the GPUs sit under different PCI root complexes and NCCL_P2P_LEVEL is %s in %s: NCCL 2.23+ keeps P2P within one host bridge on AMD hosts with more than two GPUs",
		    e.level[0] ? e.level : "unset", e.from);
	else if (e.level[0])
		add(h, "env.nccl_p2p_level", DOCTOR_OK, NULL,
		    "NCCL_P2P_LEVEL=%s in %s", e.level, e.from);
	else
		add(h, "env.nccl_p2p_level", DOCTOR_OK, NULL,
		    "NCCL_P2P_LEVEL is unset in %s; the %s GPUs share one root complex",
		    e.from, h->want->driver);
	if (strcmp(e.vllm, "0"))
		add(h, "env.vllm_skip_p2p_check", DOCTOR_WARN,
		    "p2pmap verify --vllm-cache, then VLLM_SKIP_P2P_CHECK=0",
		    "VLLM_SKIP_P2P_CHECK is %s in %s: vLLM trusts cuDeviceCanAccessPeer, which ignores the IOMMU",
		    e.vllm[0] ? e.vllm : "unset (vLLM's default 1)", e.from);
	else
		add(h, "env.vllm_skip_p2p_check", DOCTOR_OK, NULL,
		    "VLLM_SKIP_P2P_CHECK=0 in %s: vLLM reads p2pmap verify's cache",
		    e.from);
	if (e.cvd[0] && strcmp(e.order, "PCI_BUS_ID"))
		add(h, "env.cuda_device_order", DOCTOR_WARN,
		    "CUDA_DEVICE_ORDER=PCI_BUS_ID",
		    "CUDA_VISIBLE_DEVICES=%s without CUDA_DEVICE_ORDER=PCI_BUS_ID in %s: the ordinals may not name the GPUs in PCI order",
		    e.cvd, e.from);
	else if (e.cvd[0])
		add(h, "env.cuda_device_order", DOCTOR_OK, NULL,
		    "CUDA_VISIBLE_DEVICES=%s with CUDA_DEVICE_ORDER=PCI_BUS_ID in %s",
		    e.cvd, e.from);
	else
		add(h, "env.cuda_device_order", DOCTOR_OK, NULL,
		    "CUDA_VISIBLE_DEVICES is unset in %s: every GPU, in CUDA's order%s",
		    e.from, strcmp(e.order, "PCI_BUS_ID") ? "" : " (PCI_BUS_ID)");
}

/* ---- the kernel log: IOMMU faults at a GPU's BAR */

/* The GPU whose memory BAR holds @addr, or -1. */
static int gpu_of_bar(const struct host *h, unsigned long long addr)
{
	size_t i;
	int b;

	for (i = 0; i < h->ngpus; i++)
		for (b = 0; b < GPU_BARS; b++)
			if (h->gpus[i].bar_end[b] &&
			    addr >= h->gpus[i].bar_start[b] &&
			    addr <= h->gpus[i].bar_end[b])
				return (int)i;
	return -1;
}

static int gpu_index(const struct host *h, const char *addr)
{
	size_t i;

	for (i = 0; i < h->ngpus; i++)
		if (!strcmp(h->gpus[i].addr, addr))
			return (int)i;
	return -1;
}

/*
 * One fault line: its initiator ("DDDD:BB:DD.F") and address, or false.
 *   DMAR: [DMA Read NO_PASID] Request device [bb:dd.f] fault addr 0x...
 *   (7.x: [ssss:bb:dd.f])
 *   <driver> DDDD:BB:DD.F: AMD-Vi: Event logged [IO_PAGE_FAULT domain=..
 *	address=0x... flags=...]
 *   AMD-Vi: Event logged [IO_PAGE_FAULT device=DDDD:BB:DD.F domain=...
 *	address=0x... flags=...]
 */
static bool fault_line(const char *line, char *init, size_t len,
		       unsigned long long *addr)
{
	unsigned int seg = 0, bus, dev, fn;
	const char *p;

	p = strstr(line, "DMAR: [DMA ");
	if (p) {
		p = strstr(p, "Request device [");
		if (!p)
			return false;
		p += 16;
		if (sscanf(p, "%x:%x:%x.%x] fault addr %llx", &seg, &bus,
			   &dev, &fn, addr) != 5) {
			/* 6.x: no segment ("[bb:dd.f]"). */
			seg = 0;
			if (sscanf(p, "%x:%x.%x] fault addr %llx", &bus, &dev,
				   &fn, addr) != 4)
				return false;
		}
		snprintf(init, len, "%04x:%02x:%02x.%x", seg, bus, dev, fn);
		return true;
	}
	p = strstr(line, "Event logged [IO_PAGE_FAULT ");
	if (!p)
		return false;
	if (sscanf(p, "Event logged [IO_PAGE_FAULT device=%x:%x:%x.%x",
		   &seg, &bus, &dev, &fn) == 4) {
		snprintf(init, len, "%04x:%02x:%02x.%x", seg, bus, dev, fn);
	} else {
		/* "<driver> DDDD:BB:DD.F: AMD-Vi: Event logged ..." */
		const char *q = strstr(line, ": AMD-Vi: ");

		if (!q || q - line < 12)
			return false;
		if (sscanf(q - 12, "%x:%x:%x.%x", &seg, &bus, &dev, &fn) != 4)
			return false;
		snprintf(init, len, "%04x:%02x:%02x.%x", seg, bus, dev, fn);
	}
	p = strstr(p, "address=");
	return p && sscanf(p, "address=%llx", addr) == 1;
}

static void check_log(struct host *h, const char *path)
{
	unsigned int count[DOCTOR_MAX_GPUS][DOCTOR_MAX_GPUS] = { { 0 } };
	char line[1024], init[16], name[64], fix[128];
	unsigned int lines = 0, other = 0;
	unsigned long long addr;
	int a, b;
	FILE *f;

	if (!path) {
		add(h, "log", DOCTOR_SKIP, NULL,
		    "the kernel log was not read (--dmesg FILE, e.g. from dmesg > FILE)");
		return;
	}
	f = fopen(path, "r");
	if (!f) {
		add(h, "log", DOCTOR_SKIP, NULL, "%s cannot be read: %s", path,
		    strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!fault_line(line, init, sizeof(init), &addr))
			continue;
		lines++;
		a = gpu_index(h, init);
		b = addr ? gpu_of_bar(h, addr) : -1;
		/* Address 0 or a bridge's devid: nothing to attribute. */
		if (a < 0 || b < 0 || a == b)
			other++;
		else
			count[a][b]++;
	}
	fclose(f);
	for (a = 0; a < (int)h->ngpus; a++) {
		for (b = 0; b < (int)h->ngpus; b++) {
			if (!count[a][b])
				continue;
			snprintf(name, sizeof(name), "log.%s>%s",
				 h->gpus[a].addr, h->gpus[b].addr);
			snprintf(fix, sizeof(fix), "p2pmap link add %s %s",
				 h->gpus[a].addr, h->gpus[b].addr);
			add(h, name, DOCTOR_WARN, fix,
			    "%u IOMMU fault line(s) in %s: %s's DMA to %s's BAR was not mapped (before p2pmap, or with the link down)",
			    count[a][b], path, h->gpus[a].addr,
			    h->gpus[b].addr);
		}
	}
	if (!lines)
		add(h, "log", DOCTOR_OK, NULL, "no IOMMU fault line in %s",
		    path);
	else
		add(h, "log", other ? DOCTOR_WARN : DOCTOR_OK, NULL,
		    "%u IOMMU fault line(s) in %s, %u at no GPU's BAR or with no usable address or device (not attributed to a pair)",
		    lines, path, other);
}

void doctor_run(const char *root, const struct doctor_env_source *env,
		const struct doctor_gpus *gpus, struct doctor_report *r)
{
	struct host *h = calloc(1, sizeof(*h));

	r->n = 0;
	if (!h)
		return;
	h->root = root;
	h->want = gpus;
	h->r = r;
	check_iommu(h);
	check_cc(h);
	find_gpus(h);
	check_gpus(h);
	check_bars(h);
	check_paths(h);
	check_nvidia(h);
	check_p2pmap(h);
	check_log(h, env->dmesg);
	check_env(h, env);
	free(h);
}

const char *doctor_level_name(enum doctor_level l)
{
	static const char * const names[] = {
		[DOCTOR_OK] = "ok", [DOCTOR_WARN] = "warn",
		[DOCTOR_FAIL] = "fail", [DOCTOR_SKIP] = "skip",
	};

	return names[l];
}

const struct doctor_check *doctor_first_blocking(const struct doctor_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->c[i].blocking)
			return &r->c[i];
	return NULL;
}
