// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>

#include "check_run.h"
#include "format.h"
#include "report.h"

int check_run(FILE *f, const struct p2pmap_info *info,
	      const struct p2pmap_dev *devs, size_t ndevs,
	      const struct p2pmap_link *links, size_t nlinks, int earlier)
{
	struct p2p_report r;
	char count[32];
	int problems = earlier;
	size_t i;

	if (info && info->has_param_errors && info->param_errors) {
		fprintf(f, "module parameters: %" PRIu32
			" part%s skipped at load, see dmesg (first: %s)\n",
			info->param_errors, info->param_errors == 1 ? "" : "s",
			info->param_error);
		problems++;
	}
	if (!nlinks) {
		fprintf(f, "check: FAILED (no links configured)\n");
		return -1;
	}
	if (report_build(&r, info, devs, ndevs, links, nlinks)) {
		fprintf(f, "check: FAILED (out of memory)\n");
		return -1;
	}
	for (i = 0; i < nlinks; i++) {
		switch (p2p_cell_rule(false, &links[i], 0)) {
		case P2P_CELL_OK:
		case P2P_CELL_NATIVE:
			break;
		default:
			format_link_result(f, &links[i]);
			problems++;
		}
	}
	for (i = 0; i < r.npairs; i++) {
		format_pair_fault(f, &r.pairs[i]);
		problems++;
	}
	for (i = 0; i < ndevs; i++) {
		if (!devs[i].has_faults_other || !devs[i].faults_other)
			continue;
		fprintf(f, "warning: %s has %s fault%s outside tracked BARs\n",
			devs[i].addr,
			format_count(count, sizeof(count),
				     devs[i].faults_other,
				     devs[i].faults.sources),
			devs[i].faults_other == 1 ? "" : "s");
	}
	if (problems)
		fprintf(f, "check: FAILED (%d problem%s)\n", problems,
			problems == 1 ? "" : "s");
	else
		fprintf(f, "check: OK\n");
	report_free(&r);
	return problems;
}
