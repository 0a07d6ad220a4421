// SPDX-License-Identifier: GPL-2.0
/* "p2pmap link auto": the pairing decision (pure). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autolink.h"

/* Why @d is not linked; false when it is a candidate. */
static bool skip_reason(const struct p2pmap_dev *d,
			const struct autolink_filter *filter,
			char *why, size_t len)
{
	if (d->state == P2PMAP_DEV_OWNED) {
		snprintf(why, len, "owned by %s (manages DMA itself)",
			 d->driver[0] ? d->driver : "its driver");
		return true;
	}
	if (!d->has_admitted) {
		snprintf(why, len, "not admitted: %s",
			 "the module reports no admission (too old?)");
		return true;
	}
	if (!d->admitted) {
		snprintf(why, len, "not admitted: %s",
			 d->admit_reason[0] ? d->admit_reason : "no reason given");
		return true;
	}
	if (filter->has_numa && d->numa_node != filter->numa) {
		snprintf(why, len, "on NUMA node %d, not %d", d->numa_node,
			 filter->numa);
		return true;
	}
	if (filter->driver && strcmp(d->driver, filter->driver)) {
		snprintf(why, len, "driver %s, not %s",
			 d->driver[0] ? d->driver : "(none)", filter->driver);
		return true;
	}
	if (d->iommu_group < 0) {
		snprintf(why, len, "no IOMMU group");
		return true;
	}
	if (d->domain == P2PMAP_DOMAIN_IDENTITY) {
		snprintf(why, len, "identity domain: peer DMA needs no mapping");
		return true;
	}
	return false;
}

static bool link_exists(const struct p2pmap_link *links, size_t n,
			const char *initiator, const char *target)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(links[i].initiator, initiator) &&
		    !strcmp(links[i].target, target))
			return true;
	return false;
}

static int cmp_addr(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int cmp_skip(const void *a, const void *b)
{
	const struct autolink_skip *x = a, *y = b;

	return strcmp(x->addr, y->addr);
}

static void add_pair(struct autolink_plan *plan, const char *initiator,
		     const char *target, const struct p2pmap_link *links,
		     size_t nlinks)
{
	struct autolink_pair *p = &plan->pairs[plan->npairs++];

	snprintf(p->initiator, sizeof(p->initiator), "%s", initiator);
	snprintf(p->target, sizeof(p->target), "%s", target);
	p->exists = link_exists(links, nlinks, initiator, target);
	if (!p->exists)
		plan->nadd++;
}

int autolink_plan(const struct p2pmap_dev *devs, size_t ndevs,
		  const struct p2pmap_link *links, size_t nlinks,
		  const struct autolink_filter *filter,
		  struct autolink_plan *plan)
{
	struct autolink_skip *s;
	size_t i, k;

	memset(plan, 0, sizeof(*plan));
	plan->skips = calloc(ndevs ? ndevs : 1, sizeof(*plan->skips));
	plan->cands = calloc(ndevs ? ndevs : 1, sizeof(*plan->cands));
	if (!plan->skips || !plan->cands)
		goto nomem;

	for (i = 0; i < ndevs; i++) {
		const struct p2pmap_dev *d = &devs[i];

		if (!d->nbars)
			continue;	/* nothing to map, nothing to say */
		s = &plan->skips[plan->nskips];
		if (skip_reason(d, filter, s->why, sizeof(s->why))) {
			snprintf(s->addr, sizeof(s->addr), "%s", d->addr);
			plan->nskips++;
			continue;
		}
		snprintf(plan->cands[plan->ncands++], P2PMAP_ADDR_LEN, "%s",
			 d->addr);
	}
	qsort(plan->skips, plan->nskips, sizeof(*plan->skips), cmp_skip);
	qsort(plan->cands, plan->ncands, sizeof(*plan->cands), cmp_addr);

	if (plan->ncands < 2)
		return 0;
	plan->pairs = calloc(plan->ncands * (plan->ncands - 1),
			     sizeof(*plan->pairs));
	if (!plan->pairs)
		goto nomem;
	for (i = 0; i < plan->ncands; i++) {
		for (k = i + 1; k < plan->ncands; k++) {
			add_pair(plan, plan->cands[i], plan->cands[k], links,
				 nlinks);
			add_pair(plan, plan->cands[k], plan->cands[i], links,
				 nlinks);
		}
	}
	return 0;
nomem:
	autolink_plan_free(plan);
	return -ENOMEM;
}

void autolink_plan_free(struct autolink_plan *plan)
{
	free(plan->skips);
	free(plan->cands);
	free(plan->pairs);
	memset(plan, 0, sizeof(*plan));
}
