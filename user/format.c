// SPDX-License-Identifier: GPL-2.0
/* Output formats of the p2pmap CLI.  Tests grep these: keep them stable. */
#include <inttypes.h>
#include <string.h>

#include "format.h"

const char *format_link_state(uint32_t state)
{
	static const char * const names[] = {
		[P2PMAP_LINK_PENDING] = "pending",
		[P2PMAP_LINK_MAPPED] = "mapped",
		[P2PMAP_LINK_NATIVE] = "native",
		[P2PMAP_LINK_BLOCKED] = "blocked",
		[P2PMAP_LINK_ERROR] = "error",
	};

	if (state < sizeof(names) / sizeof(names[0]) && names[state])
		return names[state];
	return "unknown";
}

char *format_size(char *buf, size_t len, uint64_t bytes)
{
	static const char * const units[] = {
		"KiB", "MiB", "GiB", "TiB", "PiB", "EiB",
	};
	unsigned int u = 0;
	double v;

	if (bytes < 1024) {
		snprintf(buf, len, "%" PRIu64 " B", bytes);
		return buf;
	}
	v = (double)bytes / 1024;
	/* Move up a unit while the value would print as 1024.0 or more. */
	while (v >= 1023.95 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, len, "%.1f %s", v, units[u]);
	return buf;
}

char *format_bar_flags(char *buf, size_t len, uint32_t flags)
{
	snprintf(buf, len, "%s%s",
		 flags & P2PMAP_BAR_F_64BIT ? " 64bit" : "",
		 flags & P2PMAP_BAR_F_PREFETCH ? " prefetch" : "");
	return buf;
}

void format_list_header(FILE *f)
{
	fprintf(f, "%-12s  %-9s  %-4s %-6s %-7s %-12s %-7s %s\n",
		"ADDRESS", "ID", "NUMA", "GROUP", "TYPE", "DRIVER",
		"TRACKED", "NAME");
}

void format_list_entry(FILE *f, const struct list_entry *e)
{
	static const char * const tracked[] = {
		[LIST_TRACKED_UNKNOWN] = "-",
		[LIST_TRACKED_NO] = "no",
		[LIST_TRACKED_YES] = "yes",
	};
	char id[16], group[16], size[FORMAT_SIZE_LEN], flags[32];
	unsigned int i;

	snprintf(id, sizeof(id), "%04x:%04x", e->vendor, e->device);
	if (e->iommu_group >= 0)
		snprintf(group, sizeof(group), "%d", e->iommu_group);
	else
		strcpy(group, "-");

	fprintf(f, "%-12s  %-9s  %-4d %-6s %-7s %-12s %-7s %s\n",
		e->addr, id, e->numa_node, group,
		e->group_type[0] ? e->group_type : "-",
		e->driver[0] ? e->driver : "-",
		tracked[e->tracked], e->name[0] ? e->name : "-");

	for (i = 0; i < e->nbars; i++) {
		const struct p2pmap_bar *b = &e->bars[i];

		fprintf(f, "    BAR%" PRIu32 " 0x%016" PRIx64 " %s%s\n",
			b->index, b->start,
			format_size(size, sizeof(size), b->size),
			format_bar_flags(flags, sizeof(flags), b->flags));
	}
}

void format_status(FILE *f, const struct p2pmap_link *links, size_t n)
{
	char size[FORMAT_SIZE_LEN];
	size_t i;
	unsigned int r;

	if (!n) {
		fprintf(f, "no links configured\n");
		return;
	}

	fprintf(f, "%-16s%-14s%-9s%-11s%-7s%s\n",
		"INITIATOR", "TARGET", "STATE", "MAPPED", "RANGES", "REASON");
	for (i = 0; i < n; i++) {
		const struct p2pmap_link *l = &links[i];

		fprintf(f, "%-12s -> %-12s  %-8s %-10s %-6u %s\n",
			l->initiator, l->target,
			l->has_state ? format_link_state(l->state) : "-",
			l->has_mapped_bytes ?
				format_size(size, sizeof(size), l->mapped_bytes) :
				"-",
			l->nranges, l->reason[0] ? l->reason : "-");

		for (r = 0; r < l->nranges && r < P2PMAP_NR_BARS; r++) {
			const struct p2pmap_range *rg = &l->ranges[r];

			fprintf(f, "    BAR%" PRIu32 " iova 0x%016" PRIx64
				" size %s pages %" PRIu64 "\n",
				rg->bar, rg->iova,
				format_size(size, sizeof(size), rg->size),
				rg->pages);
		}
	}
}

void format_link_result(FILE *f, const struct p2pmap_link *l)
{
	fprintf(f, "link %s -> %s: %s", l->initiator, l->target,
		l->has_state ? format_link_state(l->state) : "unknown");
	if (l->reason[0])
		fprintf(f, " (%s)", l->reason);
	fputc('\n', f);
}
