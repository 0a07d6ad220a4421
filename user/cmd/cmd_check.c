// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap check [--wait SECONDS] [--refresh-caches]: exit 0 when every
 * configured link is mapped or native and no pair faults and the module
 * took all its parameters and no cache verify wrote is stale; otherwise
 * 1, with a line per problem (check_run.c, cache_stale.h); 4 when the module
 * is not loaded.  --wait first waits, up to SECONDS, while the module is
 * not loaded yet or a link is pending (its GPUs still probing at boot:
 * p2pmap-check.service), then checks.  --refresh-caches runs verify again
 * for each stale cache, as the line's "refresh:" command says.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache_stale.h"
#include "check_run.h"
#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "dev.h"
#include "info.h"
#include "link.h"
#include "snapshot.h"

#define CHECK_POLL_MS	250

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Is there a reason to wait: the module not loaded yet, or a link still
 * pending?  A blocked or failed link will not change by itself: no.
 */
static bool worth_waiting(void)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_nl nl;
	bool pending = false;
	const char *op;
	size_t i;

	if (pnl_open(&nl))
		return nl.no_family;
	if (!snapshot_read(&nl, &links, NULL, &op))
		for (i = 0; i < links.n; i++)
			pending |= links.links[i].has_state &&
				   links.links[i].state == P2PMAP_LINK_PENDING;
	link_list_free(&links);
	pnl_close(&nl);
	return pending;
}

/*
 * Refresh only into a directory of this user's own (root's verify into a
 * directory another user controls could be sent elsewhere by a symlink).
 */
static const char *refresh_refused(const struct cache_record *r)
{
	char dir[PATH_MAX];
	struct stat st;

	cache_record_dir_of(r, dir, sizeof(dir));
	if (lstat(dir, &st) || !S_ISDIR(st.st_mode))
		return "its directory is gone";
	if (st.st_uid != geteuid())
		return "its directory belongs to another user";
	return NULL;
}

/*
 * verify again, in a child, for the GPUs, device order and directory of
 * @r: the same cache file and a new record.  Its report goes to stderr;
 * stdout stays check's.  0 when verify wrote the cache.
 */
static int refresh_cache(const struct cache_record *r)
{
	char devs[VERIFY_MAX_GPUS * 12], dir[PATH_MAX], *argv[6];
	const char *var;
	size_t i, used = 0;
	int status;
	pid_t pid;

	for (i = 0; i < r->ngpus; i++)
		used += snprintf(devs + used, sizeof(devs) - used, "%s%d",
				 i ? "," : "", r->gpus[i].index);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(STDERR_FILENO, STDOUT_FILENO);
		if (!strcmp(r->order, "PCI_BUS_ID"))
			setenv("CUDA_DEVICE_ORDER", r->order, 1);
		else
			unsetenv("CUDA_DEVICE_ORDER");
		if (r->visible[0])
			setenv("CUDA_VISIBLE_DEVICES", r->visible, 1);
		else
			unsetenv("CUDA_VISIBLE_DEVICES");
		var = cache_record_root_var(r, dir, sizeof(dir));
		if (var)
			setenv(var, dir, 1);
		argv[0] = "p2pmap";
		argv[1] = "verify";
		argv[2] = "--devices";
		argv[3] = devs;
		argv[4] = strcmp(r->framework, "sglang") ? "--vllm-cache" :
							   "--sglang-cache";
		argv[5] = NULL;
		execv("/proc/self/exe", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	/* Exit 1 with some direction not working still wrote the cache. */
	return WEXITSTATUS(status) <= EXIT_FAILED ? 0 : -1;
}

struct cache_tally {
	bool refresh;
	int stale;
};

static void on_cache(void *arg, const char *path,
		     const struct cache_record *r,
		     const struct cache_verdict *v)
{
	struct cache_record *again = NULL;
	struct cache_tally *t = arg;
	struct cache_verdict now;
	const char *refused = NULL;

	if (v->state == CACHE_STALE && t->refresh)
		refused = refresh_refused(r);
	if (refused) {
		printf("warning: not refreshing %s: %s\n", r->cache, refused);
	} else if (v->state == CACHE_STALE && t->refresh) {
		again = calloc(1, sizeof(*again));
		if (again && !refresh_cache(r) &&
		    !cache_record_read(path, again, now.why, sizeof(now.why))) {
			cache_stale_judge("/", again, &now);
			if (now.state == CACHE_VALID) {
				printf("cache refreshed: %s (%s)\n", r->cache,
				       cache_stale_fw_name(r));
				free(again);
				return;
			}
		}
		free(again);
	}
	cache_stale_print(stdout, path, r, v);
	t->stale += v->state == CACHE_STALE;
}

/* The caches verify recorded: their problem lines, and how many. */
static int check_caches(bool refresh)
{
	struct cache_tally t = { .refresh = refresh };

	if (cache_stale_scan(NULL, "/", on_cache, &t) < 0)
		printf("warning: the records of verify's caches cannot be read: %s\n",
		       strerror(errno));
	return t.stale;
}

static int check_once(bool refresh)
{
	struct p2pmap_link_list links = { 0 };
	struct p2pmap_dev_list devs = { 0 };
	int stale = check_caches(refresh);
	struct p2pmap_info info;
	struct p2pmap_nl nl;
	int ret = EXIT_FAILED;
	const char *op;

	if (pnl_open_required(&nl)) {
		fflush(stdout);
		return cmd_exit_nl(&nl);
	}
	if (snapshot_read(&nl, &links, &devs, &op) ||
	    (op = "info", info_get(&nl, &info))) {
		pnl_perror(&nl.error, op);
		ret = cmd_exit_nl(&nl);
	} else if (check_run(stdout, &info, devs.devs, devs.n, links.links,
			     links.n, stale) == 0) {
		ret = EXIT_OK;
	}
	dev_list_free(&devs);
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}

int cmd_check(int argc, char **argv)
{
	double wait = 0, end;
	struct cmd_getopt g;
	bool refresh = false;
	char *e;
	int r;

	cmd_getopt_init(&g, "check", NULL, argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--refresh-caches")) {
			refresh = true;
		} else if (cmd_opt_is(&g, "--wait")) {
			wait = strtod(g.arg, &e);
			if (*e || e == g.arg || !(wait >= 0) || wait > 86400) {
				fprintf(stderr, "p2pmap: check: --wait takes seconds (0 to 86400), not \"%s\"\n",
					g.arg);
				return EXIT_USAGE;
			}
		} else {
			return cmd_getopt_refuse(&g);
		}
	}
	if (r < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);
	end = now_s() + wait;
	while (wait && now_s() < end && worth_waiting())
		poll(NULL, 0, CHECK_POLL_MS);
	return check_once(refresh);
}
