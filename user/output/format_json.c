// SPDX-License-Identifier: GPL-2.0
/* The --json outputs.  Keys are stable (JSON.md): add, never rename. */
#include <stdlib.h>
#include <string.h>

#include "bar_hit.h"
#include "format.h"
#include "format_json.h"
#include "json.h"

static void key_str(struct json *j, const char *k, const char *v)
{
	json_key(j, k);
	json_str(j, v);
}

static void key_u64(struct json *j, const char *k, uint64_t v)
{
	json_key(j, k);
	json_u64(j, v);
}

static void key_bool(struct json *j, const char *k, bool v)
{
	json_key(j, k);
	json_bool(j, v);
}

/* -1 ("unknown", "none") as null */
static void key_int_or_null(struct json *j, const char *k, int v)
{
	json_key(j, k);
	if (v < 0)
		json_null(j);
	else
		json_s64(j, v);
}

static void bar_flags(struct json *j, uint32_t flags)
{
	json_key(j, "flags");
	json_arr_begin(j);
	if (flags & P2PMAP_BAR_F_64BIT)
		json_str(j, "64bit");
	if (flags & P2PMAP_BAR_F_PREFETCH)
		json_str(j, "prefetch");
	json_arr_end(j);
}

void json_list(FILE *f, const struct list_entry *e, size_t n)
{
	char id[8];
	struct json j;
	size_t i;
	unsigned int b;

	json_init(&j, f);
	json_doc_begin(&j);
	json_key(&j, "devices");
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		json_obj_begin(&j);
		key_str(&j, "address", e[i].addr);
		snprintf(id, sizeof(id), "%04x", e[i].vendor);
		key_str(&j, "vendor", id);
		snprintf(id, sizeof(id), "%04x", e[i].device);
		key_str(&j, "device", id);
		json_key(&j, "name");
		json_str_or_null(&j, e[i].name);
		key_int_or_null(&j, "numa_node", e[i].numa_node);
		key_int_or_null(&j, "iommu_group", e[i].iommu_group);
		json_key(&j, "group_type");
		json_str_or_null(&j, e[i].group_type);
		json_key(&j, "driver");
		json_str_or_null(&j, e[i].driver);
		json_key(&j, "tracked");
		if (e[i].tracked == LIST_TRACKED_UNKNOWN)
			json_null(&j);
		else
			json_bool(&j, e[i].tracked == LIST_TRACKED_YES);
		json_key(&j, "admitted");
		if (e[i].has_admitted)
			json_bool(&j, e[i].admitted);
		else
			json_null(&j);
		json_key(&j, "admit_reason");
		json_str_or_null(&j, e[i].admit_reason);
		json_key(&j, "bars");
		json_arr_begin(&j);
		for (b = 0; b < e[i].nbars && b < P2PMAP_NR_BARS; b++) {
			json_obj_begin(&j);
			key_u64(&j, "index", e[i].bars[b].index);
			json_key(&j, "start");
			json_hex(&j, e[i].bars[b].start);
			key_u64(&j, "size", e[i].bars[b].size);
			bar_flags(&j, e[i].bars[b].flags);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	fputc('\n', f);
}

/* last_bar: what last_addr hit (bar_hit.h), null when no tracked BAR. */
static void fault_bar(struct json *j, const struct p2pmap_dev *devs, size_t n,
		      const struct p2pmap_fault *ff)
{
	struct bar_hit hit;

	json_key(j, "last_bar");
	if (!ff->has_addr || !bar_hit_find(devs, n, ff->last_addr, &hit)) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	key_str(j, "device", hit.dev->addr);
	json_key(j, "bar");
	json_u64(j, hit.bar);
	json_key(j, "offset");
	json_hex(j, hit.offset);
	json_key(j, "role");
	json_str(j, bar_hit_role(&hit));
	json_obj_end(j);
}

/* last_addr, last_write, last_time, last_time_ns: null when unknown. */
static void fault_last(struct json *j, const struct p2pmap_fault *ff)
{
	char when[FORMAT_TIME_LEN];

	json_key(j, "last_addr");
	if (ff->has_addr)
		json_hex(j, ff->last_addr);
	else
		json_null(j);
	json_key(j, "last_write");
	if (ff->has_flags)
		json_bool(j, ff->last_flags & P2PMAP_FAULT_F_WRITE);
	else
		json_null(j);
	json_key(j, "last_time");
	json_str(j, ff->has_time ?
		 format_time(when, sizeof(when), ff->last_time) : NULL);
	json_key(j, "last_time_ns");
	if (ff->has_time)
		json_u64(j, ff->last_time);
	else
		json_null(j);
}

void json_status(FILE *f, const struct p2pmap_link *links, size_t n,
		 const struct p2p_report *r)
{
	const struct pair_fault *pf;
	char key[2 * P2PMAP_ADDR_LEN + 4];
	struct json j;
	size_t i, k;
	unsigned int g;

	json_init(&j, f);
	json_doc_begin(&j);
	json_key(&j, "links");
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		const struct p2pmap_link *l = &links[i];

		json_obj_begin(&j);
		key_str(&j, "initiator", l->initiator);
		key_str(&j, "target", l->target);
		json_key(&j, "state");
		json_enum(&j, l->has_state ? format_link_state(l->state) :
			  NULL);
		json_key(&j, "reason");
		json_str_or_null(&j, l->reason);
		json_key(&j, "mapped_bytes");
		if (l->has_mapped_bytes)
			json_u64(&j, l->mapped_bytes);
		else
			json_null(&j);
		key_u64(&j, "bar_mask", l->bar_mask);
		key_u64(&j, "range_count", l->nranges);
		json_key(&j, "ranges");
		json_arr_begin(&j);
		for (g = 0; g < l->nranges && g < P2PMAP_NR_BARS; g++) {
			json_obj_begin(&j);
			key_u64(&j, "bar", l->ranges[g].bar);
			json_key(&j, "iova");
			json_hex(&j, l->ranges[g].iova);
			key_u64(&j, "size", l->ranges[g].size);
			key_u64(&j, "pages", l->ranges[g].pages);
			json_obj_end(&j);
		}
		json_arr_end(&j);
		pf = report_pair(r, l->initiator, l->target);
		key_u64(&j, "faults", pf ? pf->f.count : 0);
		key_bool(&j, "faults_lower_bound",
			 pf && fault_lower_bound(&pf->f));
		json_obj_end(&j);
	}
	json_arr_end(&j);

	json_key(&j, "pair_faults");
	json_arr_begin(&j);
	for (i = 0; i < r->npairs; i++) {
		pf = &r->pairs[i];
		json_obj_begin(&j);
		key_str(&j, "initiator", pf->initiator);
		key_str(&j, "target", pf->target);
		key_u64(&j, "faults", pf->f.count);
		key_bool(&j, "lower_bound", fault_lower_bound(&pf->f));
		key_bool(&j, "configured", pf->configured);
		fault_last(&j, &pf->f);
		json_obj_end(&j);
	}
	json_arr_end(&j);

	json_key(&j, "matrix");
	if (!r->ndevs) {
		json_null(&j);
	} else {
		json_obj_begin(&j);
		json_key(&j, "devices");
		json_arr_begin(&j);
		for (i = 0; i < r->ndevs; i++)
			json_str(&j, r->devs[i]);
		json_arr_end(&j);
		json_key(&j, "labels");		/* the text's, in that order */
		json_arr_begin(&j);
		for (i = 0; i < r->ndevs; i++)
			json_str(&j, r->labels[i]);
		json_arr_end(&j);
		json_key(&j, "cells");
		json_obj_begin(&j);
		for (i = 0; i < r->ndevs; i++) {
			for (k = 0; k < r->ndevs; k++) {
				snprintf(key, sizeof(key), "%s->%s",
					 r->devs[i], r->devs[k]);
				json_key(&j, key);
				json_enum(&j,
					  p2p_cell_name(report_cell(r, i, k)));
			}
		}
		json_obj_end(&j);
		key_bool(&j, "faults_lower_bound", r->lower_bound);
		json_obj_end(&j);
	}

	json_key(&j, "verdict");
	if (!r->ndevs) {
		json_null(&j);
	} else {
		json_obj_begin(&j);
		key_bool(&j, "ok", r->ok);
		key_str(&j, "text", r->verdict);
		json_obj_end(&j);
	}
	json_obj_end(&j);
	fputc('\n', f);
}

void json_faults(FILE *f, const struct p2pmap_dev *devs, size_t n)
{
	struct json j;
	size_t i;
	unsigned int p;

	json_init(&j, f);
	json_doc_begin(&j);
	json_key(&j, "devices");
	json_arr_begin(&j);
	for (i = 0; i < n; i++) {
		const struct p2pmap_dev *d = &devs[i];

		json_obj_begin(&j);
		key_str(&j, "address", d->addr);
		json_key(&j, "faults");
		if (d->faults.has_count)
			json_u64(&j, d->faults.count);
		else
			json_null(&j);
		json_key(&j, "other");
		if (d->has_faults_other)
			json_u64(&j, d->faults_other);
		else
			json_null(&j);
		fault_last(&j, &d->faults);
		fault_bar(&j, devs, n, &d->faults);
		key_bool(&j, "lower_bound", fault_lower_bound(&d->faults));
		json_key(&j, "peers");
		json_arr_begin(&j);
		for (p = 0; p < d->npeers && p < P2PMAP_MAX_PEERS; p++) {
			const struct p2pmap_peer *pe = &d->peers[p];

			json_obj_begin(&j);
			key_str(&j, "target", pe->target);
			json_key(&j, "faults");
			if (pe->f.has_count)
				json_u64(&j, pe->f.count);
			else
				json_null(&j);
			fault_last(&j, &pe->f);
			fault_bar(&j, devs, n, &pe->f);
			key_bool(&j, "lower_bound", fault_lower_bound(&pe->f));
			json_obj_end(&j);
		}
		json_arr_end(&j);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	fputc('\n', f);
}

bool json_event(FILE *f, const struct p2pmap_event *ev)
{
	const struct p2pmap_fault_ntf *n = &ev->fault;
	char when[FORMAT_TIME_LEN];
	struct json j;

	json_init(&j, f);
	switch (ev->cmd) {
	case P2PMAP_CMD_DEV_ADD_NTF:
		json_doc_begin(&j);
		key_str(&j, "event", "dev_add");
		key_str(&j, "address", ev->dev.addr);
		json_key(&j, "driver");
		json_str_or_null(&j, ev->dev.driver);
		break;
	case P2PMAP_CMD_DEV_DEL_NTF:
		json_doc_begin(&j);
		key_str(&j, "event", "dev_del");
		key_str(&j, "address", ev->dev.addr);
		break;
	case P2PMAP_CMD_LINK_NTF:
		json_doc_begin(&j);
		key_str(&j, "event", "link");
		key_str(&j, "initiator", ev->link.initiator);
		key_str(&j, "target", ev->link.target);
		json_key(&j, "state");
		json_enum(&j, ev->link.has_state ?
			  format_link_state(ev->link.state) : "unknown");
		json_key(&j, "reason");
		json_str_or_null(&j, ev->link.reason);
		break;
	case P2PMAP_CMD_LINK_DEL_NTF:
		json_doc_begin(&j);
		key_str(&j, "event", "link_del");
		key_str(&j, "initiator", ev->link.initiator);
		key_str(&j, "target", ev->link.target);
		break;
	case P2PMAP_CMD_FAULT_NTF:
		json_doc_begin(&j);
		key_str(&j, "event", "fault");
		key_str(&j, "initiator", n->initiator);
		json_key(&j, "target");
		json_str_or_null(&j, n->target);
		key_u64(&j, "new", n->new_faults);
		key_u64(&j, "total", n->f.count);
		key_bool(&j, "lower_bound", fault_lower_bound(&n->f));
		json_key(&j, "last_addr");
		if (n->f.has_addr)
			json_hex(&j, n->f.last_addr);
		else
			json_null(&j);
		json_key(&j, "last_write");
		if (n->f.has_addr)
			json_bool(&j, n->f.last_flags & P2PMAP_FAULT_F_WRITE);
		else
			json_null(&j);
		break;
	default:
		return false;
	}
	/* When the CLI received it (null: unknown), as the text's prefix. */
	json_key(&j, "time");
	json_str(&j, ev->time_ns ?
		 format_time_ms(when, sizeof(when), ev->time_ns) : NULL);
	json_key(&j, "time_ns");
	if (ev->time_ns)
		json_u64(&j, ev->time_ns);
	else
		json_null(&j);
	json_obj_end(&j);
	fputc('\n', f);
	return true;
}

void json_info(FILE *f, const struct p2pmap_info *info)
{
	struct json j;

	json_init(&j, f);
	json_doc_begin(&j);
	json_key(&j, "version");
	json_str_or_null(&j, info->version);
	json_key(&j, "fault_sources");
	if (!info->has_fault_sources) {
		json_null(&j);
	} else {
		json_arr_begin(&j);
		if (info->fault_sources & P2PMAP_FAULT_SRC_TRACEPOINT)
			json_str(&j, "tracepoint");
		if (info->fault_sources & P2PMAP_FAULT_SRC_DMAR)
			json_str(&j, "dmar");
		if (info->fault_sources & P2PMAP_FAULT_SRC_AMDVI_LOG)
			json_str(&j, "amdvi_log");
		json_arr_end(&j);
	}
	key_bool(&j, "faults_lower_bound", info->has_fault_sources &&
		 fault_sources_lower_bound(info->fault_sources));
	json_key_u64_or_null(&j, "generation", info->has_generation,
			info->generation);
	json_key_u64_or_null(&j, "ranges_reserved", info->has_ranges_reserved,
			info->ranges_reserved);
	json_key_u64_or_null(&j, "unmap_short", info->has_unmap_short,
			info->unmap_short);
	json_key_u64_or_null(&j, "windows_reserved_bytes", info->has_windows_reserved,
			info->windows_reserved);
	json_key_u64_or_null(&j, "param_errors", info->has_param_errors,
			info->param_errors);
	json_key(&j, "param_error");
	if (info->param_error[0])
		json_str(&j, info->param_error);
	else
		json_null(&j);
	json_key_u64_or_null(&j, "fault_log_dropped",
			     info->has_fault_log_dropped,
			     info->fault_log_dropped);
	json_key(&j, "fault_log_off");
	if (info->fault_log_off[0])
		json_str(&j, info->fault_log_off);
	else
		json_null(&j);
	json_key(&j, "sme");
	if (!info->has_sme)
		json_null(&j);
	else if (info->sme == P2PMAP_SME_OFF)
		json_str(&j, "off");
	else if (info->sme == P2PMAP_SME_REFUSED)
		json_str(&j, "refused");
	else
		json_str(&j, "mmio_plain");
	json_obj_end(&j);
	fputc('\n', f);
}

/*
 * A comma-separated list as an array: strings, or numbers when @numbers
 * (an item that is not a decimal number stays a string).  "" is [].
 */
static void key_list(struct json *j, const char *k, const char *list,
		     bool numbers)
{
	char item[P2PMAP_POLICY_LEN], *end;
	const char *s = list, *comma;
	unsigned long long v;
	size_t len;

	json_key(j, k);
	json_arr_begin(j);
	while (*list) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (len >= sizeof(item))
			len = sizeof(item) - 1;
		memcpy(item, s, len);
		item[len] = '\0';
		v = strtoull(item, &end, 10);
		if (numbers && item[0] >= '0' && item[0] <= '9' && !*end)
			json_u64(j, v);
		else
			json_str(j, item);
		if (!comma)
			break;
		s = comma + 1;
	}
	json_arr_end(j);
}

void json_policy(FILE *f, const struct p2pmap_policy *p)
{
	struct json j;

	json_init(&j, f);
	json_doc_begin(&j);
	key_list(&j, "drivers", p->drivers, false);
	key_list(&j, "vendors", p->vendors, false);
	key_list(&j, "classes", p->classes, false);
	key_list(&j, "numa_nodes", p->numa_nodes, true);
	json_obj_end(&j);
	fputc('\n', f);
}
