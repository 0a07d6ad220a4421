// SPDX-License-Identifier: GPL-2.0
/* p2pmap metrics: Prometheus text exposition format. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "metrics.h"

void metrics_write_label_value(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

void metrics_write_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s ", name);
	metrics_write_help(f, help);
	fprintf(f, "\n# TYPE %s %s\n", name, type);
}

/* name{l1="v1",l2="v2",...} value; @labels: name, value pairs, NULL-ended */
static void sample(FILE *f, const char *name, uint64_t value,
		   const char *const *labels)
{
	size_t i;

	fputs(name, f);
	for (i = 0; labels && labels[i]; i += 2) {
		fprintf(f, "%s%s=\"", i ? "," : "{", labels[i]);
		metrics_write_label_value(f, labels[i + 1]);
		fputc('"', f);
	}
	if (labels && labels[0])
		fputc('}', f);
	fprintf(f, " %" PRIu64 "\n", value);
}

/* One (initiator, target) pair counter, merged from PEER and LINK. */
struct mpair {
	const char *initiator, *target;
	uint64_t count;
	uint32_t sources;
};

static int add_pair(struct mpair **pairs, size_t *n, const char *initiator,
		    const char *target, const struct p2pmap_fault *fa)
{
	struct mpair *p;
	size_t i;

	if (!fa->has_count)
		return 0;
	for (i = 0; i < *n; i++) {
		p = &(*pairs)[i];
		if (!strcmp(p->initiator, initiator) &&
		    !strcmp(p->target, target)) {
			/* Two dumps, not one snapshot: counters only grow. */
			if (fa->count > p->count)
				p->count = fa->count;
			p->sources |= fa->sources;
			return 0;
		}
	}
	p = realloc(*pairs, (*n + 1) * sizeof(*p));
	if (!p)
		return -ENOMEM;
	*pairs = p;
	p[*n] = (struct mpair){ initiator, target, fa->count, fa->sources };
	(*n)++;
	return 0;
}

static int collect_pairs(const struct metrics_input *in,
			 struct mpair **pairs, size_t *n)
{
	const struct p2pmap_dev *d;
	unsigned int k, kept;
	size_t i;

	*pairs = NULL;
	*n = 0;
	for (i = 0; i < in->ndevs; i++) {
		d = &in->devs[i];
		kept = d->npeers < P2PMAP_MAX_PEERS ? d->npeers :
						      P2PMAP_MAX_PEERS;
		for (k = 0; k < kept; k++)
			if (add_pair(pairs, n, d->addr, d->peers[k].target,
				     &d->peers[k].f))
				return -ENOMEM;
	}
	for (i = 0; i < in->nlinks; i++)
		if (add_pair(pairs, n, in->links[i].initiator,
			     in->links[i].target, &in->links[i].faults))
			return -ENOMEM;
	return 0;
}

/* The first device (link) with this address (pair) is the one shown. */
static bool dev_dup(const struct metrics_input *in, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (!strcmp(in->devs[k].addr, in->devs[i].addr))
			return true;
	return false;
}

static bool link_dup(const struct metrics_input *in, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (!strcmp(in->links[k].initiator, in->links[i].initiator) &&
		    !strcmp(in->links[k].target, in->links[i].target))
			return true;
	return false;
}

static void render_devices(FILE *f, const struct metrics_input *in)
{
	const char *labels[3] = { "device", NULL, NULL };
	size_t i;

	family(f, "p2pmap_device_faults_total", "counter",
	       "IOMMU faults charged to the device as DMA initiator, since it was tracked or last reset.");
	for (i = 0; i < in->ndevs; i++) {
		if (dev_dup(in, i) || !in->devs[i].faults.has_count)
			continue;
		labels[1] = in->devs[i].addr;
		sample(f, "p2pmap_device_faults_total",
		       in->devs[i].faults.count, labels);
	}
	family(f, "p2pmap_device_faults_other_total", "counter",
	       "Those of the device's faults whose address is in no tracked device's BAR.");
	for (i = 0; i < in->ndevs; i++) {
		if (dev_dup(in, i) || !in->devs[i].has_faults_other)
			continue;
		labels[1] = in->devs[i].addr;
		sample(f, "p2pmap_device_faults_other_total",
		       in->devs[i].faults_other, labels);
	}
}

static int render_pairs(FILE *f, const struct metrics_input *in)
{
	const char *labels[7] = { "initiator", NULL, "target", NULL,
				  "lower_bound", NULL, NULL };
	struct mpair *pairs;
	size_t n, i;

	if (collect_pairs(in, &pairs, &n)) {
		free(pairs);
		return -ENOMEM;
	}
	family(f, "p2pmap_pair_faults_total", "counter",
	       "IOMMU faults of initiator DMA into a BAR of target, linked or not. lower_bound=\"true\": counted from a rate-limited fault log (VT-d's, or AMD-Vi's without the tracepoint).");
	for (i = 0; i < n; i++) {
		labels[1] = pairs[i].initiator;
		labels[3] = pairs[i].target;
		labels[5] = fault_sources_lower_bound(pairs[i].sources) ?
			    "true" : "false";
		sample(f, "p2pmap_pair_faults_total", pairs[i].count, labels);
	}
	free(pairs);
	return 0;
}

static void render_links(FILE *f, const struct metrics_input *in)
{
	static const uint32_t states[] = {
		P2PMAP_LINK_MAPPED, P2PMAP_LINK_NATIVE, P2PMAP_LINK_PENDING,
		P2PMAP_LINK_BLOCKED, P2PMAP_LINK_ERROR,
	};
	const char *labels[7] = { "initiator", NULL, "target", NULL,
				  "state", NULL, NULL };
	const struct p2pmap_link *l;
	size_t i, s, nlinks = 0;

	family(f, "p2pmap_links", "gauge", "Configured links.");
	for (i = 0; i < in->nlinks; i++)
		nlinks += !link_dup(in, i);
	sample(f, "p2pmap_links", nlinks, NULL);

	family(f, "p2pmap_link_state", "gauge",
	       "1 for the link's current state, 0 for the others (mapped, native, pending, blocked, error).");
	for (i = 0; i < in->nlinks; i++) {
		l = &in->links[i];
		if (link_dup(in, i))
			continue;
		labels[1] = l->initiator;
		labels[3] = l->target;
		for (s = 0; s < sizeof(states) / sizeof(states[0]); s++) {
			labels[5] = format_link_state(states[s]);
			sample(f, "p2pmap_link_state",
			       l->has_state && l->state == states[s], labels);
		}
	}

	labels[4] = NULL;
	family(f, "p2pmap_link_mapped_bytes", "gauge",
	       "Bytes of the target's BARs identity-mapped into the initiator's domain now.");
	for (i = 0; i < in->nlinks; i++) {
		l = &in->links[i];
		if (link_dup(in, i) || !l->has_mapped_bytes)
			continue;
		labels[1] = l->initiator;
		labels[3] = l->target;
		sample(f, "p2pmap_link_mapped_bytes", l->mapped_bytes, labels);
	}
}

/* What the CLI knows without the module: alerts need it most then. */
static void render_cli(FILE *f, const struct metrics_input *in)
{
	const char *labels[3] = { "version", in->cli_version, NULL };

	if (in->cli_version) {
		family(f, "p2pmap_cli_info", "gauge",
		       "The p2pmap CLI's version (the module's is p2pmap_info).");
		sample(f, "p2pmap_cli_info", 1, labels);
	}
	if (in->has_config_links) {
		family(f, "p2pmap_config_links", "gauge",
		       "Links saved for boot (links= in /etc/modprobe.d/p2pmap.conf), 0 when none.");
		sample(f, "p2pmap_config_links", in->config_links, NULL);
	}
	if (in->has_caches) {
		family(f, "p2pmap_verify_caches", "gauge",
		       "vLLM/SGLang cache files p2pmap verify wrote, by state: valid, stale (what they were verified for changed: p2pmap check says what), edited (not what verify wrote).");
		labels[0] = "state";
		labels[1] = "valid";
		sample(f, "p2pmap_verify_caches", in->caches_valid, labels);
		labels[1] = "stale";
		sample(f, "p2pmap_verify_caches", in->caches_stale, labels);
		labels[1] = "edited";
		sample(f, "p2pmap_verify_caches", in->caches_edited, labels);
	}
	if (in->timestamp) {
		family(f, "p2pmap_metrics_timestamp_seconds", "gauge",
		       "When p2pmap metrics wrote these metrics (Unix time).");
		sample(f, "p2pmap_metrics_timestamp_seconds", in->timestamp,
		       NULL);
	}
}

int metrics_render(FILE *f, const struct metrics_input *in)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} sources[] = {
		{ P2PMAP_FAULT_SRC_TRACEPOINT, "tracepoint" },
		{ P2PMAP_FAULT_SRC_DMAR, "dmar" },
		{ P2PMAP_FAULT_SRC_AMDVI_LOG, "amdvi_log" },
	};
	const char *labels[3] = { NULL, NULL, NULL };
	size_t i;

	family(f, "p2pmap_module_loaded", "gauge",
	       "1 if the p2pmap kernel module answered, 0 if it is not loaded (then only the CLI's own metrics follow).");
	sample(f, "p2pmap_module_loaded", in->loaded, NULL);
	render_cli(f, in);
	if (!in->loaded)
		return 0;

	family(f, "p2pmap_info", "gauge", "The p2pmap module's version.");
	labels[0] = "version";
	labels[1] = in->info->version;
	sample(f, "p2pmap_info", 1, labels);

	family(f, "p2pmap_fault_sources", "gauge",
	       "1 for each fault source armed on this kernel: tracepoint (exact), dmar (lower bounds).");
	labels[0] = "source";
	for (i = 0; in->info->has_fault_sources &&
		    i < sizeof(sources) / sizeof(sources[0]); i++) {
		labels[1] = sources[i].name;
		sample(f, "p2pmap_fault_sources",
		       !!(in->info->fault_sources & sources[i].bit), labels);
	}

	family(f, "p2pmap_param_errors", "gauge",
	       "Parts of the module's parameters it skipped (p2pmap info names the first).");
	sample(f, "p2pmap_param_errors",
	       in->info->has_param_errors ? in->info->param_errors : 0, NULL);

	render_devices(f, in);
	if (render_pairs(f, in))
		return -ENOMEM;
	render_links(f, in);
	return 0;
}
