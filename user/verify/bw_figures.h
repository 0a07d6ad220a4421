/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify --bandwidth's numbers against the published peer-to-peer
 * figures for the pair's GPUs and links (bw_reference.h), and the likely
 * cause of a direction clearly below them.  The latency compared is the
 * GPU's alone (bandwidth.h's gate), as the figures were measured.  A pair
 * with no published figure is not judged for speed (a staged copy is
 * still found: that takes no figure, bandwidth.h).
 */
#ifndef P2PMAP_BW_FIGURES_H
#define P2PMAP_BW_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "verify.h"

/*
 * "Clearly below": under 70% of the low figure (on RTX PRO 6000 at Gen5
 * x16, 37 GB/s one way: below the slowest cross-socket figure but one,
 * well above a Gen4 link's halving being missed), or a latency over four
 * times the high one.
 */
#define BW_FIG_CLEAR		0.70
#define BW_FIG_LAT_CLEAR	4.0

enum bw_cause {
	BW_CAUSE_NONE,			/* not below */
	BW_CAUSE_STAGED,		/* staged: latency or no peer access */
	BW_CAUSE_LINK,			/* a GPU's link trained down */
	BW_CAUSE_NOT_LINK,		/* both links at what they can do */
	BW_CAUSE_UNKNOWN,		/* a link not readable */
	BW_CAUSE_NOT_GATED,		/* the times include the host's calls */
	BW_CAUSE_NO_FIGURE,		/* no published figure for these GPUs */
};

struct bw_judgement {
	const struct bw_reference *ref;	/* NULL: no published figure */
	double one_way;			/* gbps / ref->gbps_lo */
	double both_ways;		/* bidir / ref->bidir_lo, 0: none */
	double latency;			/* latency / ref->lat_hi_us */
	bool below;			/* one way or latency clearly so */
	bool both_below;		/* both ways at once clearly below */
	enum bw_cause cause;
	int side;			/* BW_CAUSE_LINK: 0 from, 1 to */
};

/* Direction @r measured: how it compares, and why when clearly below. */
void bw_judge(const struct verify_result *r, struct bw_judgement *j);

/*
 * "staged", "link", "not link", "unknown", "not gated", "no figure"; NULL
 * for BW_CAUSE_NONE.
 */
const char *bw_cause_name(enum bw_cause c);

/*
 * The cause in words, for direction @r, into @buf: "0000:41:00.0's link
 * at 16.0 GT/s x8 (it can do 32.0 GT/s x16)" and the like.
 */
char *bw_cause_format(char *buf, size_t len, const struct verify_result *r,
		      const struct bw_judgement *j);

/*
 * The lines before verify's bandwidth lines: the rule, then the figures
 * each of the @n directions @r will be compared with, once each.
 */
void bw_figures_header(FILE *f, const struct verify_result *r, size_t n);

/*
 * What follows the numbers on verify's bandwidth line: "; vs RTX PRO
 * 6000 Blackwell at PCIe Gen5 x16: 104% one way, 107% both ways, latency
 * 0.9x" (or "; no published figure for ..."), then ": STAGED through
 * host memory (...)" whatever its speed, or for a direct copy clearly
 * below the figures ": SLOW, likely cause: ...".  @r->bw measured.
 */
void bw_figures_format(FILE *f, const struct verify_result *r);

struct json;
/*
 * "staged_latency_us", "links", "figures", "no_figure", "vs_figures" and
 * "vs_gen5_x16" (its older name, kept for schema 1's readers) of the
 * bandwidth object.
 */
void bw_figures_json(struct json *j, const struct verify_result *r);

#endif /* P2PMAP_BW_FIGURES_H */
