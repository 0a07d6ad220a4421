// SPDX-License-Identifier: GPL-2.0
/*
 * p2pbench: timings for "make bench", run inside the test VM.
 *
 *   p2pbench mesh T1 T2 ... TN
 *	For n = 2..N: add the full mesh of links among T1..Tn (n(n-1)
 *	links), then delete it; print the mean time per link add and per
 *	link del, the IOMMU entries of each link's ranges, and the mean
 *	netlink round trip of a request that changes nothing (INFO_GET),
 *	which is included in each add/del.
 *   p2pbench bind DEV DRIVER COUNT
 *	Mean time of an unbind + bind of DEV to DRIVER through sysfs.
 *   p2pbench pair I T COUNT
 *	COUNT times link add I T then link del I T; the mean time of each
 *	as the CLI sees it, and the netlink round trip of INFO_GET.  (The
 *	in-kernel times come from the kernel's function_graph tracer: see
 *	tests/guest/bench.sh.)
 *   p2pbench remove ROUNDS DEV...
 *	ROUNDS times: remove every DEV through sysfs, one after the other,
 *	then rescan the bus; each round's time per removed device and per
 *	device brought back, and the medians.  Works with or without p2pmap.
 *
 * Built from the CLI's own netlink code (user/netlink/).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "info.h"
#include "link.h"
#include "nl.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double rtt_us(struct p2pmap_nl *nl)
{
	struct p2pmap_info info;
	double t = now_us();
	int i;

	for (i = 0; i < 100; i++)
		info_get(nl, &info);
	return (now_us() - t) / 100;
}

static int mesh(int n, char **t)
{
	struct p2pmap_nl nl;
	int k, i, j, links;

	if (pnl_open_required(&nl))
		return 1;
	printf("netlink round trip (INFO_GET): %.1f us\n", rtt_us(&nl));
	printf("%-3s %-6s %-12s %-12s %-10s\n", "N", "links", "add us/link",
	       "del us/link", "entries/link");
	for (k = 2; k <= n; k++) {
		double add = 0, del = 0, t0;
		uint64_t pages = 0;

		links = 0;
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				struct p2pmap_link l;

				if (i == j)
					continue;
				t0 = now_us();
				if (link_add(&nl, t[i], t[j], false, 0)) {
					pnl_perror(&nl.error, "link add");
					return 1;
				}
				add += now_us() - t0;
				if (!link_get(&nl, t[i], t[j], &l) && l.nranges)
					pages += l.ranges[0].pages;
				links++;
			}
		for (i = 0; i < k; i++)
			for (j = 0; j < k; j++) {
				if (i == j)
					continue;
				t0 = now_us();
				link_del(&nl, t[i], t[j]);
				del += now_us() - t0;
			}
		printf("%-3d %-6d %-12.1f %-12.1f %-10.1f\n", k, links,
		       add / links, del / links, (double)pages / links);
	}
	pnl_close(&nl);
	return 0;
}

static int sysfs_write(const char *path, const char *val)
{
	FILE *f = fopen(path, "w");
	int ok;

	if (!f)
		return -1;
	ok = fputs(val, f) >= 0;
	return fclose(f) == 0 && ok ? 0 : -1;
}

static int rebind(const char *dev, const char *drv, int count)
{
	char unbind[256], bindp[256];
	double t = now_us();
	int i;

	snprintf(unbind, sizeof(unbind), "/sys/bus/pci/drivers/%s/unbind", drv);
	snprintf(bindp, sizeof(bindp), "/sys/bus/pci/drivers/%s/bind", drv);
	for (i = 0; i < count; i++)
		if (sysfs_write(unbind, dev) || sysfs_write(bindp, dev)) {
			perror("p2pbench: bind");
			return 1;
		}
	printf("unbind+bind %s: %.1f us\n", dev, (now_us() - t) / count);
	return 0;
}

static int pair(const char *a, const char *b, int count)
{
	struct p2pmap_nl nl;
	double add = 0, del = 0, t0;
	int i;

	if (count < 1 || pnl_open_required(&nl))
		return 1;
	for (i = 0; i < count; i++) {
		t0 = now_us();
		if (link_add(&nl, a, b, false, 0)) {
			pnl_perror(&nl.error, "link add");
			return 1;
		}
		add += now_us() - t0;
		t0 = now_us();
		if (link_del(&nl, a, b)) {
			pnl_perror(&nl.error, "link del");
			return 1;
		}
		del += now_us() - t0;
	}
	printf("add_us=%.1f del_us=%.1f rtt_us=%.1f count=%d\n", add / count,
	       del / count, rtt_us(&nl), count);
	pnl_close(&nl);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define MAX_ROUNDS 64

static int remove_rescan(int rounds, int n, char **devs)
{
	double rm[MAX_ROUNDS], scan[MAX_ROUNDS], t0;
	char path[256];
	int r, i;

	if (rounds < 1 || rounds > MAX_ROUNDS)
		return 2;
	for (r = 0; r < rounds; r++) {
		t0 = now_us();
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path),
				 "/sys/bus/pci/devices/%s/remove", devs[i]);
			if (sysfs_write(path, "1")) {
				perror(path);
				return 1;
			}
		}
		rm[r] = (now_us() - t0) / n;
		t0 = now_us();
		if (sysfs_write("/sys/bus/pci/rescan", "1")) {
			perror("rescan");
			return 1;
		}
		scan[r] = (now_us() - t0) / n;
		for (i = 0; i < n; i++) {
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s",
				 devs[i]);
			if (access(path, F_OK)) {
				fprintf(stderr, "p2pbench: %s did not come back\n",
					devs[i]);
				return 1;
			}
		}
		printf("round %d: remove %.1f us/device, rescan %.1f us/device\n",
		       r + 1, rm[r], scan[r]);
	}
	printf("remove_us=%.1f rescan_us=%.1f devices=%d rounds=%d (medians)\n",
	       median(rm, rounds), median(scan, rounds), n, rounds);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "mesh"))
		return mesh(argc - 2, argv + 2);
	if (argc == 5 && !strcmp(argv[1], "bind"))
		return rebind(argv[2], argv[3], atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "pair"))
		return pair(argv[2], argv[3], atoi(argv[4]));
	if (argc >= 4 && !strcmp(argv[1], "remove"))
		return remove_rescan(atoi(argv[2]), argc - 3, argv + 3);
	fprintf(stderr, "usage: p2pbench mesh T1 T2 ... | bind DEV DRIVER COUNT |\n"
		"       pair I T COUNT | remove ROUNDS DEV...\n");
	return 2;
}
