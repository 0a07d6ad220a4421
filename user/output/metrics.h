/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p2pmap metrics: the Prometheus text exposition format (version 0.0.4,
 * what node_exporter's textfile collector reads).  Pure: structs in, text
 * out, so that the unit test can parse every output.  Names: METRICS.md.
 */
#ifndef P2PMAP_METRICS_H
#define P2PMAP_METRICS_H

#include <stdio.h>

#include "objects.h"

struct metrics_input {
	bool loaded;			/* false: the families below, then
					 * p2pmap_module_loaded 0 only */
	const char *cli_version;	/* p2pmap_cli_info; NULL: left out */
	bool has_config_links;		/* p2pmap_config_links */
	unsigned int config_links;	/* links= entries saved for boot */
	unsigned long long timestamp;	/* p2pmap_metrics_timestamp_seconds;
					 * 0: left out */
	bool has_caches;		/* p2pmap_verify_caches */
	unsigned int caches_valid, caches_stale, caches_edited;
	const struct p2pmap_info *info;
	const struct p2pmap_dev *devs;
	size_t ndevs;
	const struct p2pmap_link *links;
	size_t nlinks;
};

/* A label value or HELP text, escaped (\\, \", \n; HELP: \\, \n). */
void metrics_write_label_value(FILE *f, const char *s);
void metrics_write_help(FILE *f, const char *s);

/* Every family, HELP and TYPE before its samples.  Returns 0 or -ENOMEM. */
int metrics_render(FILE *f, const struct metrics_input *in);

#endif /* P2PMAP_METRICS_H */
