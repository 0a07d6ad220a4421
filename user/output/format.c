// SPDX-License-Identifier: GPL-2.0
/* Output formats of the p2pmap CLI.  Tests grep these: keep them stable. */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include "bar_hit.h"
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
	/* The policy's word on a tracked device, last: BARs stay under it. */
	if (e->has_admitted)
		fprintf(f, "    %s%s%s\n",
			e->admitted ? "admitted" : "not admitted",
			e->admit_reason[0] ? ": " : "", e->admit_reason);
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

char *format_count(char *buf, size_t len, uint64_t count, uint32_t sources)
{
	snprintf(buf, len, "%s%" PRIu64,
		 fault_sources_lower_bound(sources) ? ">=" : "", count);
	return buf;
}

char *format_time(char *buf, size_t len, uint64_t ns)
{
	time_t t = (time_t)(ns / 1000000000ULL);
	char date[32], zone[8];
	struct tm tm;

	if (!localtime_r(&t, &tm) ||
	    !strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm) ||
	    strftime(zone, sizeof(zone), "%z", &tm) != 5) {
		snprintf(buf, len, "@%" PRIu64, ns);
		return buf;
	}
	/* ISO 8601 extended format: "+0200" -> "+02:00" */
	snprintf(buf, len, "%s%.3s:%.2s", date, zone, zone + 3);
	return buf;
}

char *format_time_ms(char *buf, size_t len, uint64_t ns)
{
	char t[FORMAT_TIME_LEN];

	format_time(t, sizeof(t), ns);
	if (t[0] == '@' || strlen(t) < 6) {
		snprintf(buf, len, "%s", t);
		return buf;
	}
	/* "...T12:00:00" ".123" "+02:00" */
	snprintf(buf, len, "%.*s.%03u%s", (int)strlen(t) - 6, t,
		 (unsigned int)(ns / 1000000ULL % 1000), t + strlen(t) - 6);
	return buf;
}

const char *format_access(uint32_t fault_flags)
{
	return fault_flags & P2PMAP_FAULT_F_WRITE ? "write" : "read";
}

char *format_fault_last(char *buf, size_t len, const struct p2pmap_fault *f)
{
	char when[FORMAT_TIME_LEN] = "";
	char what[48] = "";

	if (f->has_addr)
		snprintf(what, sizeof(what), "0x%" PRIx64 "%s%s", f->last_addr,
			 f->has_flags ? " " : "",
			 f->has_flags ? format_access(f->last_flags) : "");
	if (f->has_time)
		format_time(when, sizeof(when), f->last_time);
	snprintf(buf, len, "%s%s%s", what, what[0] && when[0] ? ", " : "",
		 when);
	return buf;
}

char *format_fault_sources(char *buf, size_t len, uint32_t sources)
{
	uint32_t rest = sources & ~(P2PMAP_FAULT_SRC_TRACEPOINT |
				    P2PMAP_FAULT_SRC_DMAR |
				    P2PMAP_FAULT_SRC_AMDVI_LOG);
	const char *sep = "";
	size_t n = 0;

	buf[0] = '\0';
	if (!sources) {
		snprintf(buf, len, "none");
		return buf;
	}
	if (sources & P2PMAP_FAULT_SRC_TRACEPOINT) {
		n += snprintf(buf + n, len - n, "tracepoint");
		sep = ", ";
	}
	if (n < len && (sources & P2PMAP_FAULT_SRC_DMAR)) {
		n += snprintf(buf + n, len - n, "%sdmar (lower bound)", sep);
		sep = ", ";
	}
	if (n < len && (sources & P2PMAP_FAULT_SRC_AMDVI_LOG)) {
		n += snprintf(buf + n, len - n, "%samdvi-log%s", sep,
			      fault_sources_lower_bound(sources) ?
			      " (lower bound)" : "");
		sep = ", ";
	}
	if (n < len && rest)
		snprintf(buf + n, len - n, "%s0x%" PRIx32, sep, rest);
	return buf;
}

void format_pair_fault(FILE *f, const struct pair_fault *p)
{
	char count[FORMAT_COUNT_LEN], last[FORMAT_LAST_LEN];

	fprintf(f, "faults: %s -> %s  %s", p->initiator, p->target,
		format_count(count, sizeof(count), p->f.count, p->f.sources));
	if (format_fault_last(last, sizeof(last), &p->f)[0])
		fprintf(f, "  (last %s)", last);
	fputc('\n', f);
}

/*
 * Matrix columns: the widest label (report.h: "GPU3", "41:00.0") and two
 * blanks, 6 at least; rows and the key start with the labels.
 */
#define REPORT_COL	6

static int report_width(const struct p2p_report *r)
{
	size_t i, w = REPORT_COL - 2;

	for (i = 0; i < r->ndevs; i++)
		if (strlen(r->labels[i]) > w)
			w = strlen(r->labels[i]);
	return (int)w + 2;
}

/* A matrix column; the last one ends the line, without trailing blanks. */
static void report_col(FILE *f, const char *s, int width, bool last)
{
	if (last)
		fprintf(f, "%s\n", s);
	else
		fprintf(f, "%-*s", width, s);
}

void format_report(FILE *f, const struct p2p_report *r)
{
	bool unknown = false;
	size_t i, j;
	int w;

	if (!r->ndevs) {
		/* No link, no matrix; a parameter problem is still said. */
		if (r->param_errors)
			fprintf(f, "verdict: %s\n", r->verdict ? r->verdict : "?");
		return;
	}
	w = report_width(r);
	fprintf(f, "P2P matrix (rows: initiator, columns: target)\n");
	fprintf(f, "%*s", w, "");
	for (j = 0; j < r->ndevs; j++)
		report_col(f, r->labels[j], w, j + 1 == r->ndevs);
	for (i = 0; i < r->ndevs; i++) {
		fprintf(f, "%-*s", w, r->labels[i]);
		for (j = 0; j < r->ndevs; j++) {
			enum p2p_cell c = report_cell(r, i, j);

			unknown |= c == P2P_CELL_UNKNOWN;
			report_col(f, p2p_cell_code(c), w, j + 1 == r->ndevs);
		}
	}
	/* The key: what each label is (GPU indexes; the address's domain). */
	for (i = 0; i < r->ndevs; i++)
		fprintf(f, "%s = %s\n", r->labels[i], r->devs[i]);
	fprintf(f, "legend: X self, OK mapped by p2pmap, NAT native (initiator untranslated), "
		   "PND pending, BLK blocked, ERR error, FLT faulting, -- no link%s\n",
		unknown ? ", ? unknown state" : "");
	if (r->lower_bound)
		fprintf(f, "legend: >=N lower bound: VT-d rate-limits its fault log\n");
	for (i = 0; i < r->npairs; i++)
		format_pair_fault(f, &r->pairs[i]);
	fprintf(f, "verdict: %s\n", r->verdict ? r->verdict : "?");
}

/* "2026-12-05T12:00:00+00:00": LAST TIME's width, where HIT follows. */
#define FAULTS_TIME_W	25

/*
 * The columns of "p2pmap faults" after the name: counts, last fault, and
 * what its address hit (a tracked device's BAR and offset: which NVIDIA
 * path used a raw peer address).
 */
static void faults_cols(FILE *f, const struct p2pmap_fault *ff,
			const char *other, const struct p2pmap_dev *devs,
			size_t n)
{
	char count[FORMAT_COUNT_LEN], hit_text[96] = "";
	char addr[24], when[FORMAT_TIME_LEN];
	struct bar_hit hit;

	if (ff->has_count)
		format_count(count, sizeof(count), ff->count, ff->sources);
	else
		strcpy(count, "-");
	if (ff->has_addr)
		snprintf(addr, sizeof(addr), "0x%" PRIx64, ff->last_addr);
	else
		strcpy(addr, "-");
	if (ff->has_time)
		format_time(when, sizeof(when), ff->last_time);
	else
		strcpy(when, "-");
	fprintf(f, "%-8s ", count);
	if (other)
		fprintf(f, "%-8s ", other);
	if (ff->has_addr && bar_hit_find(devs, n, ff->last_addr, &hit))
		bar_hit_format(hit_text, sizeof(hit_text), &hit);
	fprintf(f, "%-18s %-6s %-*s%s%s\n", addr,
		ff->has_addr && ff->has_flags ?
			format_access(ff->last_flags) : "-",
		hit_text[0] ? FAULTS_TIME_W : 0, when,
		hit_text[0] ? " " : "", hit_text);
}

void format_faults(FILE *f, const struct p2pmap_dev *devs, size_t n)
{
	char other[FORMAT_COUNT_LEN];
	bool pairs = false;
	size_t i;
	unsigned int p;

	if (!n) {
		fprintf(f, "no devices tracked\n");
		return;
	}
	fprintf(f, "%-13s %-8s %-8s %-18s %-6s %-*s %s\n", "DEVICE", "FAULTS",
		"OTHER", "LAST ADDRESS", "ACCESS", FAULTS_TIME_W,
		"LAST TIME", "HIT");
	for (i = 0; i < n; i++) {
		const struct p2pmap_dev *d = &devs[i];

		if (d->has_faults_other)
			format_count(other, sizeof(other), d->faults_other,
				     d->faults.sources);
		else
			strcpy(other, "-");
		fprintf(f, "%-13s ", d->addr);
		faults_cols(f, &d->faults, other, devs, n);
		pairs |= d->npeers > 0;
	}
	if (!pairs)
		return;
	fprintf(f, "\n%-29s %-8s %-18s %-6s %-*s %s\n", "PAIR", "FAULTS",
		"LAST ADDRESS", "ACCESS", FAULTS_TIME_W, "LAST TIME",
		"HIT");
	for (i = 0; i < n; i++) {
		const struct p2pmap_dev *d = &devs[i];

		for (p = 0; p < d->npeers && p < P2PMAP_MAX_PEERS; p++) {
			fprintf(f, "%-12s -> %-12s ", d->addr,
				d->peers[p].target);
			faults_cols(f, &d->peers[p].f, NULL, devs, n);
		}
	}
}

bool format_event(FILE *f, const struct p2pmap_event *ev)
{
	const struct p2pmap_fault_ntf *n = &ev->fault;
	char count[FORMAT_COUNT_LEN], when[FORMAT_TIME_LEN];

	switch (ev->cmd) {
	case P2PMAP_CMD_DEV_ADD_NTF:
	case P2PMAP_CMD_DEV_DEL_NTF:
	case P2PMAP_CMD_LINK_NTF:
	case P2PMAP_CMD_LINK_DEL_NTF:
	case P2PMAP_CMD_FAULT_NTF:
		if (ev->time_ns)
			fprintf(f, "[%s] ", format_time_ms(when, sizeof(when),
							  ev->time_ns));
		break;
	default:
		return false;
	}
	switch (ev->cmd) {
	case P2PMAP_CMD_DEV_ADD_NTF:
		fprintf(f, "dev-add %s", ev->dev.addr);
		if (ev->dev.driver[0])
			fprintf(f, " driver=%s", ev->dev.driver);
		break;
	case P2PMAP_CMD_DEV_DEL_NTF:
		fprintf(f, "dev-del %s", ev->dev.addr);
		break;
	case P2PMAP_CMD_LINK_NTF:
		fprintf(f, "link %s -> %s %s", ev->link.initiator,
			ev->link.target,
			ev->link.has_state ?
				format_link_state(ev->link.state) : "unknown");
		if (ev->link.reason[0])
			fprintf(f, " (%s)", ev->link.reason);
		break;
	case P2PMAP_CMD_LINK_DEL_NTF:
		fprintf(f, "link-del %s -> %s", ev->link.initiator,
			ev->link.target);
		break;
	case P2PMAP_CMD_FAULT_NTF:
		fprintf(f, "fault %s -> %s new=%" PRIu64 " total=%s",
			n->initiator, n->target[0] ? n->target : "other",
			n->new_faults,
			format_count(count, sizeof(count), n->f.count,
				     n->f.sources));
		/* The module sends no address in events (uapi p2pmap.h). */
		if (n->f.has_addr)
			fprintf(f, " addr=0x%" PRIx64, n->f.last_addr);
		if (n->f.has_flags)
			fprintf(f, " %s", format_access(n->f.last_flags));
		break;
	default:
		return false;
	}
	fputc('\n', f);
	return true;
}

void format_info(FILE *f, const struct p2pmap_info *info)
{
	char sources[96];

	fprintf(f, "version: %s\n", info->version[0] ? info->version : "-");
	fprintf(f, "fault sources: %s\n", info->has_fault_sources ?
		format_fault_sources(sources, sizeof(sources),
				     info->fault_sources) : "-");
	if (info->has_generation)
		fprintf(f, "generation: %" PRIu32 "\n", info->generation);
	else
		fprintf(f, "generation: -\n");
	if (info->has_ranges_reserved)
		fprintf(f, "ranges reserved, unmapped: %" PRIu32 "\n",
			info->ranges_reserved);
	if (info->has_unmap_short)
		fprintf(f, "unmaps that came back short: %" PRIu32 "%s\n",
			info->unmap_short, info->unmap_short ?
			" (PROBLEM: their ranges stay reserved; see dmesg)" : "");
	if (info->has_windows_reserved)
		fprintf(f, "other host bridges' windows reserved: %" PRIu64
			" bytes\n", info->windows_reserved);
	if (info->has_param_errors)
		fprintf(f, "module parameter problems at load: %" PRIu32 "%s%s%s\n",
			info->param_errors,
			info->param_errors ? " (PROBLEM: skipped, see dmesg; first: " : "",
			info->param_errors ? info->param_error : "",
			info->param_errors ? ")" : "");
	if (info->has_fault_log_dropped)
		fprintf(f, "fault-log lines dropped as impossible: %" PRIu64
			"\n", info->fault_log_dropped);
	if (info->fault_log_off[0])
		fprintf(f, "fault logs not read: %s\n", info->fault_log_off);
	if (info->has_sme)
		fprintf(f, "AMD SME: %s\n", format_sme(info->sme));
}

/* enum p2pmap_sme, as info and doctor say it. */
const char *format_sme(uint32_t sme)
{
	switch (sme) {
	case P2PMAP_SME_OFF:
		return "off";
	case P2PMAP_SME_REFUSED:
		return "active: this kernel's AMD IOMMU page table sets the C-bit on MMIO PTEs, no identity range is mapped (PROBLEM: boot without mem_encrypt=on, or a kernel with e2692c4eeaa4, Linux 6.19.4 or 7.0)";
	case P2PMAP_SME_MMIO_PLAIN:
		return "active, MMIO PTEs without the C-bit";
	}
	return "unknown";
}

void format_policy(FILE *f, const struct p2pmap_policy *p)
{
	fprintf(f, "drivers: %s\n", p->drivers[0] ? p->drivers : "none");
	fprintf(f, "vendors: %s\n", p->vendors[0] ? p->vendors : "any");
	fprintf(f, "classes: %s\n", p->classes[0] ? p->classes : "any");
	fprintf(f, "numa nodes: %s\n",
		p->numa_nodes[0] ? p->numa_nodes : "any");
}
