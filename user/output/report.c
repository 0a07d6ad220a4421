// SPDX-License-Identifier: GPL-2.0
/* The matrix, the faulting pairs and the verdict of status and check. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

const char *p2p_cell_code(enum p2p_cell cell)
{
	static const char * const codes[] = {
		[P2P_CELL_SELF] = "X",
		[P2P_CELL_NONE] = "--",
		[P2P_CELL_OK] = "OK",
		[P2P_CELL_NATIVE] = "NAT",
		[P2P_CELL_PENDING] = "PND",
		[P2P_CELL_BLOCKED] = "BLK",
		[P2P_CELL_ERROR] = "ERR",
		[P2P_CELL_UNKNOWN] = "?",
		[P2P_CELL_FAULT] = "FLT",
	};

	if ((unsigned int)cell < sizeof(codes) / sizeof(codes[0]))
		return codes[cell];
	return "?";
}

const char *p2p_cell_name(enum p2p_cell cell)
{
	static const char * const names[] = {
		[P2P_CELL_SELF] = "self",
		[P2P_CELL_NONE] = "none",
		[P2P_CELL_OK] = "mapped",
		[P2P_CELL_NATIVE] = "native",
		[P2P_CELL_PENDING] = "pending",
		[P2P_CELL_BLOCKED] = "blocked",
		[P2P_CELL_ERROR] = "error",
		[P2P_CELL_UNKNOWN] = "unknown",
		[P2P_CELL_FAULT] = "faulted",
	};

	if ((unsigned int)cell < sizeof(names) / sizeof(names[0]))
		return names[cell];
	return "unknown";
}

enum p2p_cell p2p_cell_rule(bool self, const struct p2pmap_link *link,
			    uint64_t faults)
{
	if (self)
		return P2P_CELL_SELF;
	if (faults)
		return P2P_CELL_FAULT;
	if (!link)
		return P2P_CELL_NONE;
	if (!link->has_state)
		return P2P_CELL_UNKNOWN;
	switch (link->state) {
	case P2PMAP_LINK_MAPPED:
		return P2P_CELL_OK;
	case P2PMAP_LINK_NATIVE:
		return P2P_CELL_NATIVE;
	case P2PMAP_LINK_PENDING:
		return P2P_CELL_PENDING;
	case P2PMAP_LINK_BLOCKED:
		return P2P_CELL_BLOCKED;
	case P2PMAP_LINK_ERROR:
		return P2P_CELL_ERROR;
	}
	return P2P_CELL_UNKNOWN;
}

static const struct p2pmap_link *find_link(const struct p2pmap_link *links,
					   size_t n, const char *initiator,
					   const char *target)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(links[i].initiator, initiator) &&
		    !strcmp(links[i].target, target))
			return &links[i];
	return NULL;
}

/* Add or merge a pair's counter; the larger count wins. */
static int add_pair(struct p2p_report *r, size_t *cap, const char *initiator,
		    const char *target, const struct p2pmap_fault *f)
{
	struct pair_fault *p;
	size_t i;

	if (!f->has_count || !f->count)
		return 0;
	for (i = 0; i < r->npairs; i++) {
		p = &r->pairs[i];
		if (!strcmp(p->initiator, initiator) &&
		    !strcmp(p->target, target)) {
			if (f->count > p->f.count)
				p->f = *f;
			return 0;
		}
	}
	if (r->npairs == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		p = realloc(r->pairs, *cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		r->pairs = p;
	}
	p = &r->pairs[r->npairs++];
	memset(p, 0, sizeof(*p));
	snprintf(p->initiator, sizeof(p->initiator), "%s", initiator);
	snprintf(p->target, sizeof(p->target), "%s", target);
	p->f = *f;
	return 0;
}

static int cmp_pair(const void *a, const void *b)
{
	const struct pair_fault *x = a, *y = b;
	int c = strcmp(x->initiator, y->initiator);

	return c ? c : strcmp(x->target, y->target);
}

static int add_dev(struct p2p_report *r, size_t *cap, const char *addr)
{
	char (*d)[P2PMAP_ADDR_LEN];
	size_t i;

	for (i = 0; i < r->ndevs; i++)
		if (!strcmp(r->devs[i], addr))
			return 0;
	if (r->ndevs == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		d = realloc(r->devs, *cap * sizeof(*d));
		if (!d)
			return -ENOMEM;
		r->devs = d;
	}
	snprintf(r->devs[r->ndevs++], P2PMAP_ADDR_LEN, "%s", addr);
	return 0;
}

static int cmp_addr(const void *a, const void *b)
{
	return strcmp(a, b);
}

const struct pair_fault *report_pair(const struct p2p_report *r,
				     const char *initiator, const char *target)
{
	size_t i;

	for (i = 0; i < r->npairs; i++)
		if (!strcmp(r->pairs[i].initiator, initiator) &&
		    !strcmp(r->pairs[i].target, target))
			return &r->pairs[i];
	return NULL;
}

enum p2p_cell report_cell(const struct p2p_report *r, size_t initiator,
			  size_t target)
{
	return r->cells[initiator * r->ndevs + target];
}

/* "A -> B, C -> D" of the links in @state (or of every faulting pair). */
static void list_dirs(FILE *f, const char *what, const struct p2p_report *r,
		      const struct p2pmap_link *links, size_t nlinks,
		      enum p2p_cell cell, size_t count, bool *first)
{
	const char *sep = "";
	size_t i;

	if (!count)
		return;
	fprintf(f, "%s%s: ", *first ? "" : "; ", what);
	*first = false;
	if (cell == P2P_CELL_FAULT) {
		for (i = 0; i < r->npairs; i++) {
			fprintf(f, "%s%s -> %s", sep, r->pairs[i].initiator,
				r->pairs[i].target);
			sep = ", ";
		}
		return;
	}
	for (i = 0; i < nlinks; i++) {
		if (p2p_cell_rule(false, &links[i], 0) != cell)
			continue;
		fprintf(f, "%s%s -> %s", sep, links[i].initiator,
			links[i].target);
		sep = ", ";
	}
}

static int build_verdict(struct p2p_report *r,
			 const struct p2pmap_link *links, size_t nlinks)
{
	size_t len = 0;
	bool first = true;
	FILE *f = open_memstream(&r->verdict, &len);

	if (!f)
		return -ENOMEM;
	r->ok = r->nlinks && !r->nfaulting && !r->param_errors &&
		r->nmapped + r->nnative == r->nlinks;
	if (r->ok) {
		fprintf(f, "OK, all %zu configured direction%s mapped",
			r->nlinks, r->nlinks == 1 ? "" : "s");
		if (r->nnative)
			fprintf(f, " (%zu native)", r->nnative);
		fprintf(f, ", no faults");
	} else {
		fprintf(f, "PROBLEM, ");
		if (r->param_errors) {
			fprintf(f, "module parameters: %" PRIu32
				" part%s skipped at load (first: %s)",
				r->param_errors, r->param_errors == 1 ? "" : "s",
				r->param_error);
			first = false;
		}
		if (!r->nlinks) {
			if (!first)
				fprintf(f, "; ");
			fprintf(f, "no links configured");
			first = false;
		}
		list_dirs(f, "faulting", r, links, nlinks, P2P_CELL_FAULT,
			  r->nfaulting, &first);
		list_dirs(f, "error", r, links, nlinks, P2P_CELL_ERROR,
			  r->nerror, &first);
		list_dirs(f, "blocked", r, links, nlinks, P2P_CELL_BLOCKED,
			  r->nblocked, &first);
		list_dirs(f, "pending", r, links, nlinks, P2P_CELL_PENDING,
			  r->npending, &first);
		list_dirs(f, "unknown state", r, links, nlinks,
			  P2P_CELL_UNKNOWN, r->nunknown, &first);
	}
	return fclose(f) ? -ENOMEM : 0;
}

static const struct p2pmap_dev *tracked(const struct p2pmap_dev *devs,
					size_t n, const char *addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(devs[i].addr, addr))
			return &devs[i];
	return NULL;
}

/* r->labels for r->devs (report.h): nvidia-smi's index or the short address. */
static int label_devs(struct p2p_report *r, const struct p2pmap_dev *devs,
		      size_t ndevs)
{
	const struct p2pmap_dev *d;
	bool nvidia = true;
	size_t i, k, index;

	r->labels = calloc(r->ndevs, sizeof(*r->labels));
	if (!r->labels)
		return -ENOMEM;
	for (i = 0; i < r->ndevs; i++) {
		d = tracked(devs, ndevs, r->devs[i]);
		nvidia &= d && !strcmp(d->driver, "nvidia");
	}
	for (i = 0; i < r->ndevs; i++) {
		if (nvidia) {
			/* nvidia-smi counts every GPU of its driver, in PCI order. */
			for (k = 0, index = 0; k < ndevs; k++)
				index += !strcmp(devs[k].driver, "nvidia") &&
					 strcmp(devs[k].addr, r->devs[i]) < 0;
			snprintf(r->labels[i], sizeof(r->labels[i]), "GPU%zu",
				 index);
		} else {
			snprintf(r->labels[i], sizeof(r->labels[i]), "%s",
				 strncmp(r->devs[i], "0000:", 5) ? r->devs[i] :
								  r->devs[i] + 5);
		}
	}
	return 0;
}

int report_build(struct p2p_report *r, const struct p2pmap_info *info,
		 const struct p2pmap_dev *devs, size_t ndevs,
		 const struct p2pmap_link *links, size_t nlinks)
{
	size_t pcap = 0, dcap = 0, i, j;
	unsigned int p;
	const struct pair_fault *pf;

	memset(r, 0, sizeof(*r));
	if (info && info->has_param_errors && info->param_errors) {
		r->param_errors = info->param_errors;
		r->param_error = info->param_error;
	}
	for (i = 0; i < ndevs; i++) {
		for (p = 0; p < devs[i].npeers && p < P2PMAP_MAX_PEERS; p++)
			if (add_pair(r, &pcap, devs[i].addr,
				     devs[i].peers[p].target,
				     &devs[i].peers[p].f))
				goto nomem;
	}
	for (i = 0; i < nlinks; i++)
		if (add_pair(r, &pcap, links[i].initiator, links[i].target,
			     &links[i].faults))
			goto nomem;
	if (r->npairs)
		qsort(r->pairs, r->npairs, sizeof(*r->pairs), cmp_pair);
	for (i = 0; i < r->npairs; i++) {
		r->pairs[i].configured = find_link(links, nlinks,
						   r->pairs[i].initiator,
						   r->pairs[i].target);
		if (fault_lower_bound(&r->pairs[i].f))
			r->lower_bound = true;
	}
	r->nfaulting = r->npairs;

	r->nlinks = nlinks;
	for (i = 0; i < nlinks; i++) {
		switch (p2p_cell_rule(false, &links[i], 0)) {
		case P2P_CELL_OK:
			r->nmapped++;
			break;
		case P2P_CELL_NATIVE:
			r->nnative++;
			break;
		case P2P_CELL_PENDING:
			r->npending++;
			break;
		case P2P_CELL_BLOCKED:
			r->nblocked++;
			break;
		case P2P_CELL_ERROR:
			r->nerror++;
			break;
		default:
			r->nunknown++;
			break;
		}
		if (add_dev(r, &dcap, links[i].initiator) ||
		    add_dev(r, &dcap, links[i].target))
			goto nomem;
	}
	for (i = 0; i < r->npairs; i++)
		if (add_dev(r, &dcap, r->pairs[i].initiator) ||
		    add_dev(r, &dcap, r->pairs[i].target))
			goto nomem;
	if (r->ndevs) {
		qsort(r->devs, r->ndevs, sizeof(*r->devs), cmp_addr);
		r->cells = calloc(r->ndevs * r->ndevs, sizeof(*r->cells));
		if (!r->cells)
			goto nomem;
	}
	if (r->ndevs && label_devs(r, devs, ndevs))
		goto nomem;
	for (i = 0; i < r->ndevs; i++) {
		for (j = 0; j < r->ndevs; j++) {
			pf = report_pair(r, r->devs[i], r->devs[j]);
			r->cells[i * r->ndevs + j] = p2p_cell_rule(i == j,
				find_link(links, nlinks, r->devs[i], r->devs[j]),
				pf ? pf->f.count : 0);
		}
	}
	if (build_verdict(r, links, nlinks))
		goto nomem;
	return 0;
nomem:
	report_free(r);
	return -ENOMEM;
}

void report_free(struct p2p_report *r)
{
	free(r->devs);
	free(r->labels);
	free(r->cells);
	free(r->pairs);
	free(r->verdict);
	memset(r, 0, sizeof(*r));
}
