// SPDX-License-Identifier: GPL-2.0
/* verify --bandwidth against the published Gen5 x16 figures (bw_figures.h). */
#include <stdio.h>

#include "bandwidth.h"
#include "bw_figures.h"
#include "json.h"

/* The flag verify_output.c looks for on a bandwidth line. */
static const char STAGED[] = "STAGED through host memory";

/* The side whose link carries the least; -1 when a link is unknown. */
static int slower_side(const struct verify_bw *bw)
{
	if (!bw->link[0].known || !bw->link[1].known)
		return -1;
	return pcie_link_share_of_gen5x16(&bw->link[1]) <
	       pcie_link_share_of_gen5x16(&bw->link[0]);
}

void bw_judge(const struct verify_bw *bw, struct bw_judgement *j)
{
	int side;

	j->one_way = bw->gbps / BW_FIG_GBPS_LO;
	j->both_ways = bw->has_bidir ? bw->bidir_gbps / BW_FIG_BIDIR_LO : 0;
	j->latency = bw->latency_us / BW_FIG_LAT_HI_US;
	/* Both ways at once is the pair's: its slower direction sets it. */
	j->both_below = bw->has_bidir && j->both_ways < BW_FIG_CLEAR;
	j->below = j->one_way < BW_FIG_CLEAR || j->latency > BW_FIG_LAT_CLEAR;
	j->side = 0;
	/* Staged from its latency or peer access, whatever its speed. */
	if (verify_bw_staged(bw)) {
		j->cause = BW_CAUSE_STAGED;
		return;
	}
	/* The GPU waited on the host: its times judge nothing. */
	if (bw->ungated) {
		j->below = j->both_below = false;
		j->cause = BW_CAUSE_NOT_GATED;
		return;
	}
	if (!j->below) {
		j->cause = BW_CAUSE_NONE;
		return;
	}
	side = slower_side(bw);
	if (side < 0) {
		j->cause = BW_CAUSE_UNKNOWN;
		return;
	}
	/* A link slower than Gen5 x16, trained down or made so. */
	if (pcie_link_share_of_gen5x16(&bw->link[side]) < 1.0 ||
	    pcie_link_degraded(&bw->link[side])) {
		j->cause = BW_CAUSE_LINK;
		j->side = side;
		return;
	}
	j->cause = BW_CAUSE_NOT_LINK;
}

const char *bw_cause_name(enum bw_cause c)
{
	static const char *const names[] = {
		[BW_CAUSE_STAGED] = "staged", [BW_CAUSE_LINK] = "link",
		[BW_CAUSE_NOT_LINK] = "not link", [BW_CAUSE_UNKNOWN] = "unknown",
		[BW_CAUSE_NOT_GATED] = "not gated",
	};

	return c == BW_CAUSE_NONE ? NULL : names[c];
}

char *bw_cause_format(char *buf, size_t len, const struct verify_result *r,
		      const struct bw_judgement *j)
{
	const struct verify_bw *bw = &r->bw;
	const struct pcie_link *l = &bw->link[j->side];
	const char *pci = j->side ? r->to->pci : r->from->pci;
	char cur[32], max[32];

	switch (j->cause) {
	case BW_CAUSE_STAGED:
		if (bw->no_peer)
			snprintf(buf, len, "%s (peer access not possible: CUDA stages every copy)",
				 STAGED);
		else
			snprintf(buf, len, "%s (a 4-byte copy takes %.1f us with peer access, a staged copy's time: a direct one takes under %.0f us)",
				 STAGED, bw->latency_us, VERIFY_BW_DIRECT_LAT_US);
		break;
	case BW_CAUSE_LINK:
		pcie_link_format(cur, sizeof(cur), l, true);
		pcie_link_format(max, sizeof(max), l, false);
		if (pcie_link_degraded(l))
			snprintf(buf, len, "%s's PCIe link trained at %s (it can do %s: reseat, check the slot or riser, its BIOS link speed)",
				 pci, cur, max);
		else
			snprintf(buf, len, "%s's PCIe link is %s, its most (the figures are Gen5 x16's: a slower slot or riser)",
				 pci, cur);
		break;
	case BW_CAUSE_NOT_LINK:
		pcie_link_format(cur, sizeof(cur), &bw->link[0], true);
		pcie_link_format(max, sizeof(max), &bw->link[1], true);
		snprintf(buf, len, "not the links (%s at %s, %s at %s): the path between the GPUs (the figures are for GPUs of one NUMA node; across sockets 39-51 GB/s were measured)",
			 r->from->pci, cur, r->to->pci, max);
		break;
	case BW_CAUSE_UNKNOWN:
		snprintf(buf, len, "unknown (a GPU's PCIe link status is not readable)");
		break;
	case BW_CAUSE_NOT_GATED:
		snprintf(buf, len, "not judged: the times are the host's (%.1f us to issue a copy), not the GPU's; run again when the host is idle",
			 bw->issue_us);
		break;
	default:
		buf[0] = '\0';
	}
	return buf;
}

void bw_figures_header(FILE *f)
{
	fprintf(f, "bandwidth against PCIe Gen5 x16 as measured on RTX PRO 6000 Blackwell GPUs: %.0f-%.0f GB/s one way, %.0f-%.0f GB/s both ways, latency %.2f-%.2f us (about %.0f us without P2P); latency is the GPU's, the copies queued behind a gate (the host's time to issue one beside it); STAGED: no peer access, or %.0f us or more a copy with it; SLOW: direct, under %.0f%% of the lower figure or over %.0fx the latency\n",
		BW_FIG_GBPS_LO, BW_FIG_GBPS_HI, BW_FIG_BIDIR_LO,
		BW_FIG_BIDIR_HI, BW_FIG_LAT_LO_US, BW_FIG_LAT_HI_US,
		BW_FIG_NO_P2P_LAT_US, VERIFY_BW_STAGED_LAT_US,
		100 * BW_FIG_CLEAR, BW_FIG_LAT_CLEAR);
}

void bw_figures_format(FILE *f, const struct verify_result *r)
{
	const struct verify_bw *bw = &r->bw;
	struct bw_judgement j;
	char why[320];

	bw_judge(bw, &j);
	fprintf(f, "; vs PCIe Gen5 x16: %.0f%% one way", 100 * j.one_way);
	if (bw->has_bidir)
		fprintf(f, ", %.0f%% both ways", 100 * j.both_ways);
	fprintf(f, ", latency %.1fx", j.latency);
	if (j.cause == BW_CAUSE_STAGED || j.cause == BW_CAUSE_NOT_GATED)
		fprintf(f, ": %s", bw_cause_format(why, sizeof(why), r, &j));
	else if (j.below)
		fprintf(f, ": SLOW, likely cause: %s",
			bw_cause_format(why, sizeof(why), r, &j));
	else if (j.both_below)
		fprintf(f, ": both ways CLEARLY BELOW, set by the slower direction, GPU%d -> GPU%d",
			r->to->index, r->from->index);
}

static void json_link(struct json *j, const char *key,
		      const struct pcie_link *l)
{
	json_key(j, key);
	if (!l->known) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "speed_gts");
	json_double_or_null(j, true, l->gts);
	json_key(j, "width");
	json_u64(j, l->width);
	json_key(j, "max_speed_gts");
	json_double_or_null(j, true, l->max_gts);
	json_key(j, "max_width");
	json_u64(j, l->max_width);
	json_obj_end(j);
}

void bw_figures_json(struct json *j, const struct verify_result *r)
{
	const struct verify_bw *bw = &r->bw;
	struct bw_judgement jd;
	char why[320];

	json_key(j, "staged_latency_us");
	json_double_or_null(j, bw->measured, bw->staged_latency_us);
	json_key(j, "links");
	if (!bw->measured) {
		json_null(j);
	} else {
		json_obj_begin(j);
		json_link(j, "from", &bw->link[0]);
		json_link(j, "to", &bw->link[1]);
		json_obj_end(j);
	}
	json_key(j, "vs_gen5_x16");
	if (!bw->measured) {
		json_null(j);
		return;
	}
	bw_judge(bw, &jd);
	json_obj_begin(j);
	json_key(j, "one_way");
	json_double_or_null(j, true, jd.one_way);
	json_key(j, "both_ways");
	json_double_or_null(j, bw->has_bidir, jd.both_ways);
	json_key(j, "latency");
	json_double_or_null(j, true, jd.latency);
	json_key(j, "below");
	json_bool(j, jd.below);
	json_key(j, "both_ways_below");
	json_bool(j, jd.both_below);
	json_key(j, "cause");
	json_enum(j, bw_cause_name(jd.cause));
	json_key(j, "why");
	if (jd.cause != BW_CAUSE_NONE)
		bw_cause_format(why, sizeof(why), r, &jd);
	json_str_or_null(j, jd.cause != BW_CAUSE_NONE ? why : NULL);
	json_obj_end(j);
}
