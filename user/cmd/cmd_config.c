// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap config save [--file PATH] [--dry-run] [--force] | show | check:
 * the modprobe.d file.
 */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "config.h"
#include "config_merge.h"
#include "format.h"
#include "link.h"
#include "modprobe_check.h"
#include "modprobe_softdep.h"
#include "softdep_verdict.h"
#include "policy.h"

#define CONFIG_USAGE	cmd_usage("config", NULL)

static int cmp_link(const void *a, const void *b)
{
	const struct p2pmap_link *x = a, *y = b;
	int c = strcmp(x->initiator, y->initiator);

	return c ? c : strcmp(x->target, y->target);
}

/* The file to write, read as config check reads one: its problems said. */
static int check_text(const char *path, char *text, size_t len)
{
	struct modprobe_check res;
	FILE *f = fmemopen(text, len, "r");
	int rc;

	if (!f)
		return 0;
	rc = modprobe_check(f, path, stderr, &res);
	modprobe_check_free(&res);
	fclose(f);
	if (!rc && res.problems)
		fprintf(stderr, "p2pmap: config save: the module will skip what is named above at its next load (lines config save does not own are kept as they are)\n");
	return 0;
}

/*
 * The file as it is: NULL text when there is none.  Refuses a symbolic
 * link (replacing it would replace the link, not its target, and
 * following it could write anywhere: --file /dev/stdout) and anything
 * that is not a regular file.
 */
static int read_old(const char *path, char **text, unsigned int *links)
{
	struct modprobe_check res;
	struct stat st;
	char target[PATH_MAX];
	size_t cap = 0;
	ssize_t n;
	FILE *f, *null;

	*text = NULL;
	*links = 0;
	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "p2pmap: config save: %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "p2pmap: config save: %s is a symbolic link (to %s): not replaced; give the file itself with --file\n",
			path, target);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "p2pmap: config save: %s is not a regular file: not replaced\n",
			path);
		return -1;
	}
	f = fopen(path, "r");
	if (!f || getdelim(text, &cap, '\0', f) < 0) {
		if (f && !ferror(f)) {		/* empty */
			fclose(f);
			free(*text);
			*text = strdup("");
			return *text ? 0 : -1;
		}
		fprintf(stderr, "p2pmap: config save: %s: %s\n", path,
			strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	rewind(f);
	null = fopen("/dev/null", "w");
	if (null && !modprobe_check(f, path, null, &res)) {
		*links = res.links;
		modprobe_check_free(&res);
	}
	if (null)
		fclose(null);
	fclose(f);
	return 0;
}

/*
 * The softdep file beside @path, and the root whose modprobe.d that is
 * ("" for this host's /etc/modprobe.d): the lines kmod sees there are
 * merged into it.
 */
static void softdep_paths(const char *path, char *file, size_t flen,
			  char *root, size_t rlen)
{
	const char *slash = strrchr(path, '/');
	int dlen = slash ? (int)(slash - path) : 1;
	size_t elen = strlen("/etc/modprobe.d");

	snprintf(file, flen, "%.*s/%s", dlen, slash ? path : ".",
		 SOFTDEP_FILE_NAME);
	if ((size_t)dlen >= elen &&
	    !strncmp(path + dlen - elen, "/etc/modprobe.d", elen))
		snprintf(root, rlen, "%.*s", (int)(dlen - elen), path);
	else
		snprintf(root, rlen, "/nonexistent");
}

/* Write (or with @dry_run show) the softdep file for @drivers. */
static int save_softdep(const char *path, const char *drivers,
			const char *when, bool dry_run)
{
	char file[PATH_MAX + 32], root[PATH_MAX], *text = NULL, *old = NULL;
	size_t len = 0, cap = 0;
	struct utsname u;
	FILE *f;
	int err;

	softdep_paths(path, file, sizeof(file), root, sizeof(root));
	f = open_memstream(&text, &len);
	if (!f)
		return -ENOMEM;
	err = config_render_softdep(f, drivers, root,
				    !root[0] && !uname(&u) ? u.release : NULL,
				    strcmp(root, "/nonexistent") ?
				    SOFTDEP_FILE : file, when);
	if (fclose(f) || err) {
		free(text);
		return -ENOMEM;
	}
	if (dry_run) {
		f = fopen(file, "r");
		if (!f || getdelim(&old, &cap, '\0', f) < 0) {
			free(old);
			old = NULL;
		}
		if (f)
			fclose(f);
		config_diff(stdout, old, text);
		free(old);
	} else {
		err = config_write(file, text, len);
		if (err)
			fprintf(stderr, "p2pmap: config save: %s: %s\n", file,
				strerror(-err));
		else
			printf("config save: wrote %s (kmod reads it first: p2pmap loads before %s)\n",
			       file, drivers);
	}
	free(text);
	return err;
}

struct save_opts {
	const char *path;
	bool dry_run, force;
};

static int config_save(const struct save_opts *o)
{
	struct p2pmap_link_list links = { 0 };
	char when[FORMAT_TIME_LEN], *block = NULL, *old = NULL, *text = NULL;
	char bak[PATH_MAX];
	unsigned int old_links;
	struct p2pmap_policy p;
	struct p2pmap_nl nl;
	struct timespec now;
	size_t len = 0;
	int ret = EXIT_FAILED, err;
	FILE *f;

	if (read_old(o->path, &old, &old_links))
		return EXIT_FAILED;
	if (pnl_open_required(&nl)) {
		free(old);
		return cmd_exit_nl(&nl);
	}
	if (policy_get(&nl, &p)) {
		pnl_perror(&nl.error, "policy get");
		ret = cmd_exit_nl(&nl);
		goto out;
	}
	if (link_dump(&nl, &links)) {
		pnl_perror(&nl.error, "link dump");
		ret = cmd_exit_nl(&nl);
		goto out;
	}
	/* Sorted, so that saving an unchanged state writes the same links. */
	qsort(links.links, links.n, sizeof(*links.links), cmp_link);
	clock_gettime(CLOCK_REALTIME, &now);
	format_time(when, sizeof(when),
		    (uint64_t)now.tv_sec * 1000000000ULL + now.tv_nsec);

	f = open_memstream(&block, &len);
	if (!f) {
		fprintf(stderr, "p2pmap: config save: %s\n", strerror(errno));
		goto out;
	}
	config_render(f, &p, links.links, links.n, when);
	if (fclose(f) || !(text = config_merge(old, block))) {
		fprintf(stderr, "p2pmap: config save: out of memory\n");
		goto out;
	}
	/* What the module will make of it: the same reader as config check. */
	check_text(o->path, text, strlen(text));
	/* Boot with no link at all, on a host that had some: only if meant. */
	if (old_links && !links.n && !o->force) {
		fprintf(stderr, "p2pmap: config save: %s has %u link%s and the module has none: saving would drop them at the next boot (--force to save anyway)\n",
			o->path, old_links, old_links == 1 ? "" : "s");
		ret = EXIT_USAGE;
		goto out;
	}
	if (o->dry_run) {
		save_softdep(o->path, p.drivers, when, true);
		if (!config_diff(stdout, old, text))
			printf("config save: %s would not change\n", o->path);
		else
			printf("config save: would write %s (%zu link%s); nothing written (--dry-run)\n",
			       o->path, links.n, links.n == 1 ? "" : "s");
		ret = EXIT_OK;
		goto out;
	}
	bak[0] = '\0';
	if (old && *old && strcmp(old, text)) {
		snprintf(bak, sizeof(bak), "%s.bak", o->path);
		err = config_write(bak, old, strlen(old));
		if (err) {
			fprintf(stderr, "p2pmap: config save: %s: %s (nothing replaced)\n",
				bak, strerror(-err));
			ret = cmd_exit_errno(err);
			goto out;
		}
	}
	err = config_write(o->path, text, strlen(text));
	if (err) {
		fprintf(stderr, "p2pmap: config save: %s: %s\n", o->path,
			strerror(-err));
		ret = cmd_exit_errno(err);
		goto out;
	}
	printf("config save: wrote %s (%zu link%s)", o->path, links.n,
	       links.n == 1 ? "" : "s");
	if (bak[0])
		printf("; the previous file is %s", bak);
	putchar('\n');
	err = save_softdep(o->path, p.drivers, when, false);
	ret = err ? cmd_exit_errno(err) : EXIT_OK;
out:
	free(block);
	free(text);
	free(old);
	link_list_free(&links);
	pnl_close(&nl);
	return ret;
}

static int config_show(const char *path)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "p2pmap: config show: %s: %s\n", path,
			strerror(errno));
		return EXIT_FAILED;
	}
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	if (ferror(f)) {
		fprintf(stderr, "p2pmap: config show: %s: %s\n", path,
			strerror(errno));
		fclose(f);
		return EXIT_FAILED;
	}
	fclose(f);
	return EXIT_OK;
}

/*
 * A file in a modprobe.d that kmod reads (this host's, or ROOT/etc's): is
 * p2pmap loaded before each driver of @drivers (NULL: the module's
 * default)?  Judged on the softdep line kmod really uses, as doctor does.
 * Returns how many are not.
 */
static unsigned int check_softdep(const char *path, const char *drivers)
{
	char file[PATH_MAX + 32], root[PATH_MAX], kver[128] = "", *copy, *drv;
	char text[3 * PATH_MAX + 8192], fix[PATH_MAX + 512], *save = NULL;
	struct softdep_verdict v;
	unsigned int bad = 0;
	struct utsname u;
	FILE *f;

	softdep_paths(path, file, sizeof(file), root, sizeof(root));
	if (!strcmp(root, "/nonexistent"))
		return 0;
	snprintf(file, sizeof(file), "%s/proc/sys/kernel/osrelease", root);
	f = fopen(file, "r");
	if (f && fgets(kver, sizeof(kver), f))
		kver[strcspn(kver, "\n")] = '\0';
	if (f)
		fclose(f);
	if (!root[0] && !uname(&u))
		snprintf(kver, sizeof(kver), "%s", u.release);
	copy = strdup(drivers ? drivers : "nvidia");
	for (drv = copy ? strtok_r(copy, ",", &save) : NULL; drv;
	     drv = strtok_r(NULL, ",", &save)) {
		if (softdep_judge(root, kver[0] ? kver : NULL, drv, &v))
			break;
		softdep_verdict_text(&v, drv, text, sizeof(text), fix,
				     sizeof(fix));
		printf("config check: softdep %s: %s%s\n", drv,
		       v.state == SOFTDEP_OK ? "ok: " : "", text);
		if (fix[0])
			printf("  fix: %s\n", fix);
		bad += v.state != SOFTDEP_OK;
	}
	free(copy);
	return bad;
}

/*
 * The file as modprobe and the module will read it at the next boot: exit
 * 0 when the module would use every part of it, 1 when it would skip one
 * (each named with its line), the file cannot be read, or (in a
 * modprobe.d) kmod would not load p2pmap before a driver of its policy.
 */
static int config_check(const char *path)
{
	struct modprobe_check res;
	FILE *f = fopen(path, "r");
	unsigned int late;
	int rc;

	if (!f) {
		fprintf(stderr, "p2pmap: config check: %s: %s\n", path,
			strerror(errno));
		return EXIT_FAILED;
	}
	rc = modprobe_check(f, path, stdout, &res);
	fclose(f);
	if (rc) {
		modprobe_check_free(&res);
		fprintf(stderr, "p2pmap: config check: %s: cannot be read\n",
			path);
		return EXIT_FAILED;
	}
	late = check_softdep(path, res.policy_bad ? NULL : res.policy[0]);
	modprobe_check_free(&res);
	if (!res.options_lines)
		printf("config check: %s: no \"options p2pmap\" line: the module loads with its defaults\n",
		       path);
	else if (res.problems)
		printf("config check: %s: %u problem%s: the module would skip %s\n",
		       path, res.problems, res.problems == 1 ? "" : "s",
		       res.problems == 1 ? "it" : "them");
	else
		printf("config check: %s: ok (%u link%s)\n", path, res.links,
		       res.links == 1 ? "" : "s");
	return res.problems || late ? EXIT_FAILED : EXIT_OK;
}

int cmd_config(int argc, char **argv)
{
	struct save_opts save = { 0 };
	const char *path = CONFIG_DEFAULT_PATH, *sub;
	struct cmd_getopt g;
	bool check, change, file = false;
	int r;

	if (argc < 2 || (strcmp(argv[1], "save") && strcmp(argv[1], "show") &&
			 strcmp(argv[1], "check") && strcmp(argv[1], "apply"))) {
		fprintf(stderr, "p2pmap: %s\n", CONFIG_USAGE);
		return EXIT_USAGE;
	}
	sub = argv[1];
	check = !strcmp(sub, "check");
	change = !strcmp(sub, "save") || !strcmp(sub, "apply");
	cmd_getopt_init(&g, "config", sub, argc - 1, argv + 1);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (change && cmd_opt_is(&g, "--dry-run")) {
			save.dry_run = true;
		} else if (change && cmd_opt_is(&g, "--force")) {
			save.force = true;
		} else if (cmd_opt_is(&g, "--file")) {
			if (!g.arg[0]) {
				fprintf(stderr, "p2pmap: --file needs a path; %s\n",
					CONFIG_USAGE);
				return EXIT_USAGE;
			}
			path = g.arg;
			file = true;
		} else {
			return cmd_getopt_refuse(&g);
		}
	}
	if (r < 0)
		return EXIT_USAGE;
	/* "config check FILE": the file as an argument, too. */
	if (check && g.npos == 1 && !file)
		path = g.pos[0];
	else if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);
	if (check)
		return config_check(path);
	if (!strcmp(sub, "apply"))
		return config_apply(path, save.dry_run, save.force);
	save.path = path;
	return !strcmp(sub, "save") ? config_save(&save) : config_show(path);
}
