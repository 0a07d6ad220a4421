// SPDX-License-Identifier: GPL-2.0
/*
 * doctor: each GPU's memory BARs (sysfs resource), its Resizable BAR
 * capability (PCI config space, libpci) and, for NVIDIA's driver, whether
 * BAR1 covers the VRAM (nvidia-smi, doctor_vram.c) and is aligned as its
 * BAR1 P2P path needs.
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "doctor_int.h"
#include "pci_scan.h"

#define MIB		(1ULL << 20)
/* Where the extended configuration space starts. */
#define CFG_SPACE_SIZE	0x100

/* The sizes of @mask (bit n: 1 MiB << n), "64 MiB to 32 GiB" when gapless. */
static void sizes_text(unsigned long long mask, char *buf, size_t len)
{
	char a[16], b[16];
	int lo = -1, hi = -1, n;
	size_t off = 0;

	buf[0] = '\0';
	for (n = 0; n < 64; n++) {
		if (!(mask >> n & 1))
			continue;
		if (lo < 0)
			lo = n;
		hi = n;
	}
	if (lo < 0)
		return;
	if (mask >> lo == (2ULL << (hi - lo)) - 1) {
		doctor_size_text(MIB << lo, a, sizeof(a));
		doctor_size_text(MIB << hi, b, sizeof(b));
		snprintf(buf, len, lo == hi ? "%s" : "%s to %s", a, b);
		return;
	}
	for (n = lo; n <= hi && off < len; n++) {
		if (!(mask >> n & 1))
			continue;
		doctor_size_text(MIB << n, a, sizeof(a));
		off += snprintf(buf + off, len - off, "%s%s", off ? ", " : "",
				a);
	}
}

/* ---- Resizable BAR (PCIe extended capability 0x15), through libpci */

/* The size of ROOT/sys/bus/pci/devices/ADDR/config (4096 for PCIe). */
static long long config_size(const struct host *h, const char *addr)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/%s/config",
		 h->root, addr);
	return stat(path, &st) ? -1 : (long long)st.st_size;
}

static int rebar_scan(struct pci_access *pacc, void *arg)
{
	struct host *h = arg;
	struct pci_cap *cap;
	struct pci_dev *d;
	unsigned int ctrl, sizes, n, k;
	char a[16];
	size_t i;

	for (d = pacc->devices; d; d = d->next) {
		snprintf(a, sizeof(a), "%04x:%02x:%02x.%x", d->domain & 0xffff,
			 d->bus, d->dev, d->func);
		for (i = 0; i < h->ngpus && strcmp(a, h->gpus[i].addr); i++)
			;
		if (i == h->ngpus)
			continue;
		/*
		 * No extended space (a config file of 256 bytes: PCI, not
		 * PCIe): no capability.  Reads of all ones past it: the
		 * space past 64 bytes is root's to read.
		 */
		if (config_size(h, a) <= CFG_SPACE_SIZE) {
			h->gpus[i].rebar_state = REBAR_NONE;
			continue;
		}
		if (pci_read_long(d, CFG_SPACE_SIZE) == 0xffffffff) {
			h->gpus[i].rebar_state = REBAR_UNREADABLE;
			continue;
		}
		cap = pci_find_cap(d, PCI_EXT_CAP_ID_REBAR, PCI_CAP_EXTENDED);
		h->gpus[i].rebar_state = cap ? REBAR_CAP : REBAR_NONE;
		if (!cap)
			continue;
		/* Entry k: capability at +4 + 8k, control at +8 + 8k. */
		ctrl = pci_read_long(d, cap->addr + 8);
		n = (ctrl >> 5) & 7;
		for (k = 0; k < n && k < REBAR_BARS; k++) {
			struct rebar *rb = &h->gpus[i].rebar[k];

			sizes = pci_read_long(d, cap->addr + 4 + 8 * k);
			ctrl = pci_read_long(d, cap->addr + 8 + 8 * k);
			rb->bar = ctrl & 7;
			rb->cur = MIB << ((ctrl >> 8) & 0x3f);
			/* Bits 4..31: 1 MiB .. 128 TiB; control 16..31 more. */
			rb->sizes = (unsigned long long)(sizes >> 4) |
				    (unsigned long long)(ctrl >> 16) << 28;
		}
		h->gpus[i].nrebar = k;
	}
	return 0;
}

/* Fills each GPU's rebar_state and rebar[] with one libpci scan. */
static void rebar_read(struct host *h)
{
	char sysfs[PATH_MAX], why[128];

	if (!h->ngpus)
		return;
	snprintf(sysfs, sizeof(sysfs), "%s/sys/bus/pci", h->root);
	/* On failure each GPU stays REBAR_UNKNOWN. */
	pci_scan_guarded(h->root[0] ? sysfs : NULL, rebar_scan, h, why,
			 sizeof(why));
}

static void check_rebar(struct host *h, const struct gpu *g)
{
	char name[48], text[300], cur[16], max[16], sizes[96];
	bool small = false;
	size_t k, len;
	int top;

	snprintf(name, sizeof(name), "gpu.%s.rebar", g->addr);
	if (g->rebar_state == REBAR_UNKNOWN) {
		doctor_add(h, name, DOCTOR_SKIP, NULL,
			   "%s is not in libpci's scan: Resizable BAR not checked",
			   g->addr);
		return;
	}
	if (g->rebar_state == REBAR_UNREADABLE) {
		doctor_add(h, name, DOCTOR_SKIP,
			   "run as root (the capability sits in the extended configuration space)",
			   "the extended configuration space of %s cannot be read: Resizable BAR not checked",
			   g->addr);
		return;
	}
	if (g->rebar_state == REBAR_NONE || !g->nrebar) {
		doctor_add(h, name, DOCTOR_OK, NULL,
			   "no Resizable BAR capability: the BAR sizes are the device's own");
		return;
	}
	text[0] = '\0';
	for (k = 0; k < g->nrebar; k++) {
		const struct rebar *rb = &g->rebar[k];

		for (top = 63; top > 0 && !(rb->sizes >> top & 1); top--)
			;
		doctor_size_text(rb->cur, cur, sizeof(cur));
		doctor_size_text(MIB << top, max, sizeof(max));
		sizes_text(rb->sizes, sizes, sizeof(sizes));
		len = strlen(text);
		if (rb->sizes && (MIB << top) > rb->cur) {
			small = true;
			snprintf(text + len, sizeof(text) - len,
				 "%sBAR%d %s, but %s supported (%s)",
				 len ? "; " : "", rb->bar, cur, max, sizes);
		} else {
			snprintf(text + len, sizeof(text) - len,
				 "%sBAR%d %s, the largest supported (%s)",
				 len ? "; " : "", rb->bar, cur,
				 sizes[0] ? sizes : "none");
		}
	}
	if (small)
		doctor_add(h, name, DOCTOR_WARN,
			   "enable Resizable BAR and \"Above 4G decoding\" in the firmware setup",
			   "Resizable BAR: %s: the firmware left it small, so a peer reaches only that much of this GPU's memory at once",
			   text);
	else
		doctor_add(h, name, DOCTOR_OK, NULL, "Resizable BAR: %s", text);
}

/* ---- BAR1 against the VRAM, for NVIDIA's driver */

static void check_bar1(struct host *h, const struct gpu *g,
		       const struct vram *v, int nv)
{
	unsigned long long bar1;
	char name[48], size[16];
	int k;

	snprintf(name, sizeof(name), "gpu.%s.bar1", g->addr);
	for (k = 0; k < nv && strcmp(v[k].addr, g->addr); k++)
		;
	if (k == nv || !v[k].fb) {
		doctor_add(h, name, DOCTOR_SKIP, NULL,
			   "%s is not in nvidia-smi's output, or without its FB memory total",
			   g->addr);
		return;
	}
	/* sysfs's BAR1 is what the peers see; else nvidia-smi's. */
	bar1 = g->bar_end[1] ? (g->bar_end[1] - g->bar_start[1] + 1) / MIB :
	       v[k].bar1;
	doctor_size_text(bar1 * MIB, size, sizeof(size));
	if (bar1 >= v[k].fb)
		doctor_add(h, name, DOCTOR_OK, NULL,
			   "BAR1 %s covers the VRAM (nvidia-smi: FB %llu MiB, BAR1 %llu MiB): a peer can reach all of this GPU's memory",
			   size, v[k].fb, v[k].bar1);
	else
		doctor_add(h, name, DOCTOR_WARN,
			   "enable Resizable BAR and \"Above 4G decoding\" in the firmware setup",
			   "BAR1 %s is smaller than the VRAM (nvidia-smi: FB %llu MiB, BAR1 %llu MiB): NVIDIA maps the memory a peer reaches into BAR1, so P2P buffers must fit in it",
			   size, v[k].fb, v[k].bar1);
}

/* ---- BAR1's alignment, for NVIDIA's BAR1 P2P path */

#define BAR1_P2P_ALIGN	(512 * MIB)

/*
 * Does the driver use BAR1 P2P (RegistryDwords RMPcieP2PType=1 or 2, or
 * RMForceP2PType=2 before 575.51.02)?  Its default is mailbox P2P
 * (nvrm_registry.h: "mailbox P2P is to be used by default until UVM
 * supports BAR1 P2P").
 */
static bool bar1_p2p_on(const struct host *h)
{
	char val[512];
	const char *v;

	if (!doctor_nvidia_param(h, "RegistryDwords", val, sizeof(val)))
		return false;
	v = strstr(val, "RMPcieP2PType=");
	if (v && (v[14] == '1' || v[14] == '2'))
		return true;
	v = strstr(val, "RMForceP2PType=");
	return v && v[15] == '2';
}

/*
 * NVIDIA's open driver (kern_bus_gh100.c, _kbusCreateStaticBar1IOMMUMapping,
 * since 535.43.02) refuses a peer whose static BAR1 window's DMA address
 * is not 512 MiB-aligned, and falls back to nothing: the P2P object is not
 * created.  With a p2pmap identity range (or DmaRemapPeerMmio=0) that
 * address is BAR1's bus address.  Said only for a BAR1 that breaks it.
 */
static void check_bar1_align(struct host *h, const struct gpu *g, bool on)
{
	char name[48];

	if (!g->bar_end[1] || !(g->bar_start[1] % BAR1_P2P_ALIGN))
		return;
	snprintf(name, sizeof(name), "gpu.%s.bar1_align", g->addr);
	if (on)
		doctor_add(h, name, DOCTOR_WARN,
			   "remove RMPcieP2PType (and RMForceP2PType) from NVreg_RegistryDwords: the default, mailbox P2P, has no such rule",
			   "BAR1 at 0x%llx is not 512 MiB-aligned: NVIDIA's BAR1 P2P path, which RegistryDwords turns on, refuses this GPU as a peer (\"The peer DMA address ... is not aligned\", no fallback)",
			   g->bar_start[1]);
	else
		doctor_add(h, name, DOCTOR_OK, NULL,
			   "BAR1 at 0x%llx is not 512 MiB-aligned, which NVIDIA's BAR1 P2P path refuses; not in use (mailbox P2P, the driver's default)",
			   g->bar_start[1]);
}

/* Each GPU's memory BARs: size, 64-bit, prefetchable (sysfs resource). */
void doctor_check_bars(struct host *h)
{
	char name[48], text[256], size[16], why[200];
	struct vram v[DOCTOR_MAX_GPUS];
	size_t i, len, nvidia = 0;
	int b, nv = -1;
	bool bar1_p2p = bar1_p2p_on(h);

	for (i = 0; i < h->ngpus; i++)
		nvidia += h->gpus[i].vendor == 0x10de &&
			  !strcmp(h->gpus[i].driver, "nvidia");
	rebar_read(h);
	if (nvidia) {
		nv = doctor_vram_read(h, v, DOCTOR_MAX_GPUS, why, sizeof(why));
		if (nv < 0)
			doctor_add(h, "nvidia.vram", DOCTOR_SKIP, NULL,
				   "BAR1 against the VRAM not checked: %s", why);
	}
	for (i = 0; i < h->ngpus; i++) {
		struct gpu *g = &h->gpus[i];

		text[0] = '\0';
		for (b = 0; b < GPU_BARS; b++) {
			if (!g->bar_end[b])
				continue;
			doctor_size_text(g->bar_end[b] - g->bar_start[b] + 1, size,
					 sizeof(size));
			len = strlen(text);
			snprintf(text + len, sizeof(text) - len,
				 "%sBAR%d %s%s%s", len ? ", " : "", b, size,
				 g->bar_flags[b] & 0x100000 ? " 64-bit" : "",
				 g->bar_flags[b] & 0x2000 ? " prefetchable" : "");
		}
		snprintf(name, sizeof(name), "gpu.%s.bars", g->addr);
		doctor_add(h, name, text[0] ? DOCTOR_OK : DOCTOR_SKIP, NULL, "%s",
			   text[0] ? text : "no memory BAR in sysfs's resource file");
		check_rebar(h, g);
		if (g->vendor != 0x10de || strcmp(g->driver, "nvidia"))
			continue;
		if (nv >= 0)
			check_bar1(h, g, v, nv);
		check_bar1_align(h, g, bar1_p2p);
	}
}
