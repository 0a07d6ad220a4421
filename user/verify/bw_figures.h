/* SPDX-License-Identifier: GPL-2.0 */
/*
 * verify --bandwidth's numbers against the peer-to-peer figures measured
 * on RTX PRO 6000 Blackwell GPUs over PCIe Gen5 x16 links, and the likely
 * cause of a direction clearly below them.
 *
 * The figures: p2pBandwidthLatencyTest (P2P writes) on dual EPYC Turin,
 * EPYC 9374F and PCIe-switch hosts, GPUs on one NUMA node, collected in
 * github.com/voipmonitor/rtx6kpro, hardware/pcie-bandwidth.md: 53-56 GB/s
 * one way, 103-111 GB/s both ways (the same page has 39-51 GB/s and
 * 64-99 GB/s across sockets, and Gen5 x16's 63 GB/s raw); small-copy
 * latency 0.36-0.45 us with P2P against about 14 us without (the
 * figures of issue 26, quoted from that page's latency section).  The
 * latency compared is the GPU's alone (bandwidth.h's gate), as the
 * figures were measured.
 */
#ifndef P2PMAP_BW_FIGURES_H
#define P2PMAP_BW_FIGURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "verify.h"

#define BW_FIG_GBPS_LO		53.0
#define BW_FIG_GBPS_HI		56.0
#define BW_FIG_BIDIR_LO		103.0
#define BW_FIG_BIDIR_HI		111.0
#define BW_FIG_LAT_LO_US	0.36
#define BW_FIG_LAT_HI_US	0.45
#define BW_FIG_NO_P2P_LAT_US	14.0
/*
 * "Clearly below": under 70% of the low figure (37 GB/s one way: below
 * the slowest cross-socket figure but one, well above a Gen4 link's
 * halving being missed), or a latency over four times the high one.
 */
#define BW_FIG_CLEAR		0.70
#define BW_FIG_LAT_CLEAR	4.0

enum bw_cause {
	BW_CAUSE_NONE,			/* not below */
	BW_CAUSE_STAGED,		/* staged: latency or no peer access */
	BW_CAUSE_LINK,			/* a GPU's link below Gen5 x16 */
	BW_CAUSE_NOT_LINK,		/* both links at Gen5 x16 or better */
	BW_CAUSE_UNKNOWN,		/* a link not readable */
	BW_CAUSE_NOT_GATED,		/* the times include the host's calls */
};

struct bw_judgement {
	double one_way;			/* gbps / BW_FIG_GBPS_LO */
	double both_ways;		/* bidir / BW_FIG_BIDIR_LO, 0: none */
	double latency;			/* latency / BW_FIG_LAT_HI_US */
	bool below;			/* one way or latency clearly so */
	bool both_below;		/* both ways at once clearly below */
	enum bw_cause cause;
	int side;			/* BW_CAUSE_LINK: 0 from, 1 to */
};

/* @bw measured: how it compares, and why when clearly below. */
void bw_judge(const struct verify_bw *bw, struct bw_judgement *j);

/*
 * "staged", "link", "not link", "unknown", "not gated"; NULL for
 * BW_CAUSE_NONE.
 */
const char *bw_cause_name(enum bw_cause c);

/*
 * The cause in words, for direction @r, into @buf: "0000:41:00.0's link
 * at 16.0 GT/s x8 (it can do 32.0 GT/s x16)" and the like.
 */
char *bw_cause_format(char *buf, size_t len, const struct verify_result *r,
		      const struct bw_judgement *j);

/* The line before verify's bandwidth lines: the figures and the rule. */
void bw_figures_header(FILE *f);

/*
 * What follows the numbers on verify's bandwidth line: "; vs PCIe Gen5
 * x16: 104% one way, 107% both ways, latency 0.9x", then ": STAGED
 * through host memory (...)" whatever its speed, or for a direct copy
 * clearly below the figures ": SLOW, likely cause: ...".  @r->bw
 * measured.
 */
void bw_figures_format(FILE *f, const struct verify_result *r);

struct json;
/* "staged_latency_us", "links" and "vs_gen5_x16" of the bandwidth object. */
void bw_figures_json(struct json *j, const struct verify_result *r);

#endif /* P2PMAP_BW_FIGURES_H */
