// SPDX-License-Identifier: GPL-2.0
/* doctor: the kernel log's IOMMU faults at a GPU's BAR, per pair. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "doctor_int.h"


/* What a pair's fault lines hit: which BARs, and the last one's offset. */
struct pair_hits {
	unsigned int lines;
	unsigned int bars;		/* bit n: BARn */
	int last_bar;
	unsigned long long last_off;
};

/* The GPU whose BAR holds @addr (and which BAR, at what offset), or -1. */
static int gpu_of_bar(const struct host *h, unsigned long long addr,
		      int *bar, unsigned long long *off)
{
	size_t i;
	int b;

	for (i = 0; i < h->ngpus; i++)
		for (b = 0; b < GPU_BARS; b++)
			if (h->gpus[i].bar_end[b] &&
			    addr >= h->gpus[i].bar_start[b] &&
			    addr <= h->gpus[i].bar_end[b]) {
				*bar = b;
				*off = addr - h->gpus[i].bar_start[b];
				return (int)i;
			}
	return -1;
}

/*
 * "BAR1 (the VRAM aperture, where copies and SM loads and stores land;
 * the last at offset 0x40)": which NVIDIA path used a raw peer address.
 */
static void hits_text(const struct gpu *g, const struct pair_hits *p,
		      char *buf, size_t len)
{
	static const char * const role[GPU_BARS] = {
		"registers, where mailbox P2P writes",
		"the VRAM aperture, where copies and SM loads and stores land",
	};
	size_t used = 0;
	int b;

	for (b = 0; b < GPU_BARS && used < len; b++)
		if (p->bars & (1U << b))
			used += snprintf(buf + used, len - used, "%sBAR%d",
					 used ? " and " : "", b);
	if (used >= len)
		return;
	if (p->bars == 1U << p->last_bar)
		snprintf(buf + used, len - used, " (%s%sthe last at offset 0x%llx)",
			 g->vendor == 0x10de && role[p->last_bar] ?
			 role[p->last_bar] : "",
			 g->vendor == 0x10de && role[p->last_bar] ? "; " : "",
			 p->last_off);
	else
		snprintf(buf + used, len - used, " (the last: BAR%d at offset 0x%llx)",
			 p->last_bar, p->last_off);
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

void doctor_check_log(struct host *h, const char *path)
{
	static struct pair_hits hits[DOCTOR_MAX_GPUS][DOCTOR_MAX_GPUS];
	char line[1024], init[16], name[64], fix[128], where[256];
	unsigned int lines = 0, other = 0;
	unsigned long long addr, off = 0;
	struct pair_hits *p;
	int a, b, bar = 0;
	FILE *f;

	memset(hits, 0, sizeof(hits));

	if (!path) {
		doctor_add(h, "log", DOCTOR_SKIP, NULL,
			   "the kernel log was not read (--dmesg FILE, e.g. from dmesg > FILE)");
		return;
	}
	f = fopen(path, "r");
	if (!f) {
		doctor_add(h, "log", DOCTOR_SKIP, NULL, "%s cannot be read: %s", path,
			   strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!fault_line(line, init, sizeof(init), &addr))
			continue;
		lines++;
		a = gpu_index(h, init);
		b = addr ? gpu_of_bar(h, addr, &bar, &off) : -1;
		/* Address 0 or a bridge's devid: nothing to attribute. */
		if (a < 0 || b < 0 || a == b) {
			other++;
			continue;
		}
		p = &hits[a][b];
		p->lines++;
		p->bars |= 1U << bar;
		p->last_bar = bar;
		p->last_off = off;
	}
	fclose(f);
	for (a = 0; a < (int)h->ngpus; a++) {
		for (b = 0; b < (int)h->ngpus; b++) {
			p = &hits[a][b];
			if (!p->lines)
				continue;
			hits_text(&h->gpus[b], p, where, sizeof(where));
			snprintf(name, sizeof(name), "log.%s>%s",
				 h->gpus[a].addr, h->gpus[b].addr);
			/* A Proxmox VM's GPU is never linked. */
			snprintf(fix, sizeof(fix), "p2pmap link add %s %s",
				 h->gpus[a].addr, h->gpus[b].addr);
			doctor_add(h, name, DOCTOR_WARN,
				   h->gpus[a].vm || h->gpus[b].vm ? NULL : fix,
				   "%u IOMMU fault line(s) in %s: %s's DMA to %s's %s was not mapped (before p2pmap, or with the link down)",
				   p->lines, path, h->gpus[a].addr,
				   h->gpus[b].addr, where);
		}
	}
	if (!lines)
		doctor_add(h, "log", DOCTOR_OK, NULL, "no IOMMU fault line in %s",
			   path);
	else
		doctor_add(h, "log", other ? DOCTOR_WARN : DOCTOR_OK, NULL,
			   "%u IOMMU fault line(s) in %s, %u at no GPU's BAR or with no usable address or device (not attributed to a pair)",
			   lines, path, other);
}
