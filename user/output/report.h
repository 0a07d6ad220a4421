/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What "p2pmap status" and "p2pmap check" conclude from the devices and
 * links the kernel reported: the per-direction matrix, the pairs that
 * fault, the verdict.  Pure functions over plain structs (objects.h), so
 * that the unit tests can check every rule.
 */
#ifndef P2PMAP_REPORT_H
#define P2PMAP_REPORT_H

#include <stdio.h>

#include "objects.h"

/* One cell of the matrix: what initiator -> target DMA does. */
enum p2p_cell {
	P2P_CELL_SELF,		/* "X"   the diagonal */
	P2P_CELL_NONE,		/* "--"  no link configured */
	P2P_CELL_OK,		/* "OK"  link mapped by p2pmap */
	P2P_CELL_NATIVE,	/* "NAT" link native: initiator untranslated */
	P2P_CELL_PENDING,	/* "PND" */
	P2P_CELL_BLOCKED,	/* "BLK" */
	P2P_CELL_ERROR,		/* "ERR" */
	P2P_CELL_UNKNOWN,	/* "?"   a state this CLI does not know */
	P2P_CELL_FAULT,		/* "FLT" the pair faults, whatever its link */
};

/* The short code of a cell: "X", "--", "OK", ... */
const char *p2p_cell_code(enum p2p_cell cell);
/* Its name in status --json: "self", "none", "mapped", ... (JSON.md) */
const char *p2p_cell_name(enum p2p_cell cell);

/*
 * The cell rule.  @link is the initiator -> target link or NULL, @faults
 * the pair's fault count.  The diagonal is X; a pair with faults is FLT
 * (a faulting direction is never shown OK); otherwise the link's state,
 * or -- without a link.
 */
enum p2p_cell p2p_cell_rule(bool self, const struct p2pmap_link *link,
			    uint64_t faults);

/* The fault counter of one (initiator, target) pair. */
struct pair_fault {
	char initiator[P2PMAP_ADDR_LEN];
	char target[P2PMAP_ADDR_LEN];
	struct p2pmap_fault f;
	bool configured;		/* a link initiator -> target exists */
};

/* A fault count that is a lower bound (fault_sources_lower_bound()). */
static inline bool fault_lower_bound(const struct p2pmap_fault *f)
{
	return fault_sources_lower_bound(f->sources);
}

struct p2p_report {
	/* Matrix: devices in a link or in a faulting pair, by address. */
	size_t ndevs;
	char (*devs)[P2PMAP_ADDR_LEN];
	/*
	 * Their labels in the text matrix: "GPU<n>" as nvidia-smi numbers
	 * them (by PCI bus id) when every one is bound to nvidia, else the
	 * short PCI address ("01:00.0" in domain 0000).
	 */
	char (*labels)[P2PMAP_ADDR_LEN];
	enum p2p_cell *cells;		/* [initiator * ndevs + target] */

	/* Pairs with faults, by initiator then target. */
	size_t npairs;
	struct pair_fault *pairs;
	bool lower_bound;		/* one of their counts is a lower bound */

	/* Links by state, and faulting directions. */
	size_t nlinks, nmapped, nnative, npending, nblocked, nerror, nunknown;
	size_t nfaulting;

	uint32_t param_errors;		/* module parameter parts skipped */
	const char *param_error;	/* the first (points into info) */

	bool ok;			/* the verdict */
	char *verdict;			/* "OK, all 2 configured ...", or
					 * "PROBLEM, faulting: A -> B; ..." */
};

/*
 * Build the report.  A pair's counter comes from the initiator's PEER
 * records and from the link's LINK_FAULT* attributes; when both exist the
 * larger count wins (the two dumps are not one snapshot, and counters only
 * grow between resets).  Returns 0 or -ENOMEM.
 */
int report_build(struct p2p_report *r, const struct p2pmap_info *info,
		 const struct p2pmap_dev *devs, size_t ndevs,
		 const struct p2pmap_link *links, size_t nlinks);
void report_free(struct p2p_report *r);

/* The cell initiator -> target, both in r->devs. */
enum p2p_cell report_cell(const struct p2p_report *r, size_t initiator,
			  size_t target);

/* The faulting pair initiator -> target, or NULL when it has no faults. */
const struct pair_fault *report_pair(const struct p2p_report *r,
				     const char *initiator, const char *target);

#endif /* P2PMAP_REPORT_H */
