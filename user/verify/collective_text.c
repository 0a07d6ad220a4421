// SPDX-License-Identifier: GPL-2.0
/*
 * "p2pmap verify --collective"'s text: a block per group, its verdict and
 * a line per arm and size (p2pmap-verify(8), COLLECTIVE).
 */
#include <stdio.h>

#include "collective_result.h"

static void print_size(size_t bytes)
{
	if (bytes >= 1u << 20)
		printf("%zu MiB", bytes >> 20);
	else
		printf("%zu KiB", bytes >> 10);
}

static void print_one(const struct coll_one *one, unsigned int timeout,
		      size_t bytes, int n)
{
	const struct coll_child *c = &one->child;

	printf("%s", coll_outcome_name(one->outcome));
	if (one->outcome == COLL_HUNG)
		printf(" (killed after %u s)", timeout);
	else if (one->outcome == COLL_DIED)
		printf(" (%s)", one->why);
	else if (one->outcome == COLL_FAILED)
		printf(" (%s: %s)", c->call, c->error);
	else if (one->outcome == COLL_WRONG)
		printf(" (rank %d element %zu is %g, not %g)", c->bad_rank,
		       c->bad_index, c->got, c->want);
	if (one->transports[0])
		printf(", %s", one->transports);
	if (coll_bus_gbps(one, bytes, n) > 0)
		printf(", %.3f ms, bus %.2f GB/s", c->ms,
		       coll_bus_gbps(one, bytes, n));
}

/* Who to blame: the directions whose counters grew, else a 2-rank group. */
static void print_blame(const struct coll_group *g)
{
	struct coll_blame b[COLL_MAX_BLAME];
	size_t i, n = coll_blame(g, b);

	for (i = 0; i < n; i++) {
		printf("%sGPU%d -> GPU%d ", i ? ", " :
		       b[i].check ? "; " : "; faulted: ",
		       g->gpu[b[i].from]->index, g->gpu[b[i].to]->index);
		if (b[i].check)
			printf("(NCCL's diagnostics: %s)", b[i].check);
		else
			printf("(%llu faults)", (unsigned long long)b[i].faults);
	}
	if (!n && g->n == 2)
		printf("; the pair GPU%d <-> GPU%d", g->gpu[0]->index,
		       g->gpu[1]->index);
	else if (!n)
		printf("; no fault counted: see its 2-rank groups");
}

void coll_print_group(const struct coll_group *g, unsigned int timeout)
{
	int a, arm;
	size_t s;

	printf("collective {");
	for (a = 0; a < g->n; a++)
		printf("%sGPU%d", a ? "," : "", g->gpu[a]->index);
	printf("}: %s", coll_verdict_name(g->verdict));
	if (g->verdict == COLL_P2P_BROKEN)
		print_blame(g);
	else if (g->verdict == COLL_NOT_P2P)
		printf("; fails without P2P too");
	if (!g->faults_known)
		printf(" (fault counters unknown)");
	printf("\n");
	for (arm = 0; arm < COLL_NR_ARMS; arm++) {
		for (s = 0; s < COLL_NR_SIZES; s++) {
			printf("  %-8s ", coll_arm_name(arm));
			print_size(coll_sizes[s]);
			printf(": ");
			print_one(&g->run[arm][s], timeout, coll_sizes[s],
				  g->n);
			printf("\n");
		}
	}
	fflush(stdout);
}
