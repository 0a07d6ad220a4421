// SPDX-License-Identifier: GPL-2.0
/* verify --bandwidth against the published figures (bw_figures.h). */
#include <stdio.h>

#include "bandwidth.h"
#include "bw_figures.h"
#include "bw_reference.h"
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

/* @j->cause and side of a direct direction clearly below its figures. */
static void below_why(const struct verify_bw *bw, struct bw_judgement *j)
{
	int side = slower_side(bw);

	if (side < 0) {
		j->cause = BW_CAUSE_UNKNOWN;
		return;
	}
	/*
	 * Trained below what it can do, which is the figures' link (the
	 * GPU's own: bw_reference.h): a slower slot or riser, or trouble.
	 */
	if (pcie_link_degraded(&bw->link[side])) {
		j->cause = BW_CAUSE_LINK;
		j->side = side;
		return;
	}
	j->cause = BW_CAUSE_NOT_LINK;
}

void bw_judge(const struct verify_result *r, struct bw_judgement *j)
{
	const struct verify_bw *bw = &r->bw;
	const struct bw_reference *ref = r->bw_ref;

	*j = (struct bw_judgement){ .ref = ref };
	if (ref) {
		j->one_way = bw->gbps / ref->gbps_lo;
		j->both_ways = bw->has_bidir ? bw->bidir_gbps / ref->bidir_lo : 0;
		j->latency = bw->latency_us / ref->lat_hi_us;
		/* Both ways at once is the pair's: its slower direction sets it. */
		j->both_below = bw->has_bidir && j->both_ways < BW_FIG_CLEAR;
		j->below = j->one_way < BW_FIG_CLEAR ||
			   j->latency > BW_FIG_LAT_CLEAR;
	}
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
	if (!ref) {
		j->cause = BW_CAUSE_NO_FIGURE;
		return;
	}
	if (!j->below) {
		j->cause = BW_CAUSE_NONE;
		return;
	}
	below_why(bw, j);
}

const char *bw_cause_name(enum bw_cause c)
{
	static const char *const names[] = {
		[BW_CAUSE_STAGED] = "staged", [BW_CAUSE_LINK] = "link",
		[BW_CAUSE_NOT_LINK] = "not link", [BW_CAUSE_UNKNOWN] = "unknown",
		[BW_CAUSE_NOT_GATED] = "not gated",
		[BW_CAUSE_NO_FIGURE] = "no figure",
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
		snprintf(buf, len, "%s's PCIe link trained at %s (it can do %s: reseat, check the slot or riser, its BIOS link speed)",
			 pci, cur, max);
		break;
	case BW_CAUSE_NOT_LINK:
		pcie_link_format(cur, sizeof(cur), &bw->link[0], true);
		pcie_link_format(max, sizeof(max), &bw->link[1], true);
		snprintf(buf, len, "not the links (%s at %s, %s at %s): the path between the GPUs (the figures are for %s%s%s)",
			 r->from->pci, cur, r->to->pci, max, j->ref->topology,
			 j->ref->elsewhere ? "; " : "",
			 j->ref->elsewhere ? j->ref->elsewhere : "");
		break;
	case BW_CAUSE_UNKNOWN:
		snprintf(buf, len, "unknown (a GPU's PCIe link status is not readable)");
		break;
	case BW_CAUSE_NOT_GATED:
		snprintf(buf, len, "not judged: the times are the host's (%.1f us to issue a copy), not the GPU's; run again when the host is idle",
			 bw->issue_us);
		break;
	case BW_CAUSE_NO_FIGURE:
		snprintf(buf, len, "speed not judged: %s", r->bw_ref_why);
		break;
	default:
		buf[0] = '\0';
	}
	return buf;
}

/* @r[i]'s figures, the first direction to use them. */
static bool first_use(const struct verify_result *r, size_t i)
{
	size_t k;

	for (k = 0; k < i; k++)
		if (r[k].bw_ref == r[i].bw_ref)
			return false;
	return r[i].bw_ref;
}

void bw_figures_header(FILE *f, const struct verify_result *r, size_t n)
{
	const struct bw_reference *ref;
	char link[32];
	size_t i;

	fprintf(f, "bandwidth against the published figures for the GPUs and their link (none: speed not judged); latency is the GPU's, the copies queued behind a gate (the host's time to issue one beside it); STAGED: no peer access, or %.0f us or more a copy with it; SLOW: direct, under %.0f%% of the lower figure or over %.0fx the latency\n",
		VERIFY_BW_STAGED_LAT_US, 100 * BW_FIG_CLEAR, BW_FIG_LAT_CLEAR);
	for (i = 0; i < n; i++) {
		if (!first_use(r, i))
			continue;
		ref = r[i].bw_ref;
		fprintf(f, "bandwidth figures for %s at %s, %s: %g-%g GB/s one way, %g-%g GB/s both ways, latency %.2f-%.2f us (about %.0f us without P2P); %s\n",
			ref->gpu, bw_reference_link(link, sizeof(link), ref),
			ref->topology, ref->gbps_lo, ref->gbps_hi,
			ref->bidir_lo, ref->bidir_hi, ref->lat_lo_us,
			ref->lat_hi_us, ref->no_p2p_lat_us, ref->source);
	}
}

void bw_figures_format(FILE *f, const struct verify_result *r)
{
	const struct verify_bw *bw = &r->bw;
	struct bw_judgement j;
	char why[320], link[32];

	bw_judge(r, &j);
	if (j.ref) {
		fprintf(f, "; vs %s at %s: %.0f%% one way", j.ref->gpu,
			bw_reference_link(link, sizeof(link), j.ref),
			100 * j.one_way);
		if (bw->has_bidir)
			fprintf(f, ", %.0f%% both ways", 100 * j.both_ways);
		fprintf(f, ", latency %.1fx", j.latency);
	} else {
		fprintf(f, "; %s", r->bw_ref_why);
	}
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

/* "figures": the published figures compared with, or null. */
static void json_reference(struct json *j, const struct bw_reference *ref)
{
	json_key(j, "figures");
	if (!ref) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "gpu");
	json_str(j, ref->gpu);
	json_key(j, "speed_gts");
	json_double_or_null(j, true, ref->gts);
	json_key(j, "width");
	json_u64(j, ref->width);
	json_key(j, "topology");
	json_str(j, ref->topology);
	json_key(j, "gbps_lo");
	json_double_or_null(j, true, ref->gbps_lo);
	json_key(j, "gbps_hi");
	json_double_or_null(j, true, ref->gbps_hi);
	json_key(j, "bidir_gbps_lo");
	json_double_or_null(j, true, ref->bidir_lo);
	json_key(j, "bidir_gbps_hi");
	json_double_or_null(j, true, ref->bidir_hi);
	json_key(j, "latency_us_lo");
	json_double_or_null(j, true, ref->lat_lo_us);
	json_key(j, "latency_us_hi");
	json_double_or_null(j, true, ref->lat_hi_us);
	json_key(j, "no_p2p_latency_us");
	json_double_or_null(j, true, ref->no_p2p_lat_us);
	json_key(j, "source");
	json_str(j, ref->source);
	json_obj_end(j);
}

/* The judgement, under @key (vs_figures and its older name). */
static void json_judgement(struct json *j, const char *key,
			   const struct verify_result *r,
			   const struct bw_judgement *jd)
{
	char why[320];

	json_key(j, key);
	json_obj_begin(j);
	json_key(j, "one_way");
	json_double_or_null(j, jd->ref, jd->one_way);
	json_key(j, "both_ways");
	json_double_or_null(j, jd->ref && r->bw.has_bidir, jd->both_ways);
	json_key(j, "latency");
	json_double_or_null(j, jd->ref, jd->latency);
	json_key(j, "below");
	json_bool(j, jd->below);
	json_key(j, "both_ways_below");
	json_bool(j, jd->both_below);
	json_key(j, "cause");
	json_enum(j, bw_cause_name(jd->cause));
	json_key(j, "why");
	if (jd->cause != BW_CAUSE_NONE)
		bw_cause_format(why, sizeof(why), r, jd);
	json_str_or_null(j, jd->cause != BW_CAUSE_NONE ? why : NULL);
	json_obj_end(j);
}

void bw_figures_json(struct json *j, const struct verify_result *r)
{
	const struct verify_bw *bw = &r->bw;
	struct bw_judgement jd;

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
	json_reference(j, r->bw_ref);
	json_key(j, "no_figure");
	json_str_or_null(j, r->bw_ref ? NULL : r->bw_ref_why);
	if (!bw->measured) {
		json_key(j, "vs_figures");
		json_null(j);
		json_key(j, "vs_gen5_x16");
		json_null(j);
		return;
	}
	bw_judge(r, &jd);
	json_judgement(j, "vs_figures", r, &jd);
	json_judgement(j, "vs_gen5_x16", r, &jd);
}
