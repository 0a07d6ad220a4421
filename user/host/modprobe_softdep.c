// SPDX-License-Identifier: GPL-2.0
/* The softdep lines kmod uses, in its order (modprobe_softdep.h). */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modprobe_softdep.h"

/*
 * kmod 34's default_config_paths (libkmod.c), DISTCONFDIR being /usr/lib;
 * kmod 30 (Debian 12) lacks /usr/lib, which is /lib there (merged /usr),
 * so its files are the same and dropped as duplicates below.
 */
static const char * const conf_dirs[] = {
	"/etc/modprobe.d", "/run/modprobe.d", "/usr/local/lib/modprobe.d",
	"/usr/lib/modprobe.d", "/lib/modprobe.d",
};

struct conf_file {
	char dir[PATH_MAX / 2];
	char name[NAME_MAX + 1];
};

struct conf_list {
	struct conf_file *f;
	size_t n, cap;
};

bool softdep_same_module(const char *a, const char *b)
{
	for (; *a && *b; a++, b++)
		if (*a != *b && !(strchr("-_", *a) && strchr("-_", *b)))
			return false;
	return !*a && !*b;
}

bool softdep_names(const struct softdep_line *l, bool pre, const char *mod)
{
	unsigned int i, n = pre ? l->npre : l->npost;

	for (i = 0; i < n; i++)
		if (softdep_same_module(pre ? l->pre[i] : l->post[i], mod))
			return true;
	return false;
}

/* kmod's underscores() (shared/util.c): '-' to '_' outside [...]. */
static void underscores(char *s)
{
	size_t k;

	for (; *s; s++) {
		if (*s == '[') {
			k = strcspn(s, "]");
			if (!s[k])
				return;
			s += k;
		} else if (*s == '-') {
			*s = '_';
		}
	}
}

/* conf_files_insert_sorted(): by name, the first of a name kept. */
static int insert_sorted(struct conf_list *l, const char *dir,
			 const char *name)
{
	size_t i;
	int cmp = -1;

	for (i = 0; i < l->n; i++) {
		cmp = strcmp(name, l->f[i].name);
		if (cmp <= 0)
			break;
	}
	if (i < l->n && !cmp)
		return 0;
	if (l->n == l->cap) {
		struct conf_file *f = realloc(l->f, (l->cap + 16) * sizeof(*f));

		if (!f)
			return -1;
		l->f = f;
		l->cap += 16;
	}
	memmove(&l->f[i + 1], &l->f[i], (l->n - i) * sizeof(*l->f));
	snprintf(l->f[i].dir, sizeof(l->f[i].dir), "%s", dir);
	snprintf(l->f[i].name, sizeof(l->f[i].name), "%s", name);
	l->n++;
	return 0;
}

/*
 * conf_files_filter_out() of kmod 34: *.conf, no dot file, nothing that
 * cannot be stat()ed, no directory.  kmod 30 (Debian 12) also read *.alias
 * (dropped in kmod 33) and kept a dangling link's name: not followed.
 */
static bool conf_name(int dfd, const char *fn)
{
	size_t len = strlen(fn);
	struct stat st;

	if (fn[0] == '.' || len < 6 || strcmp(fn + len - 5, ".conf"))
		return false;
	return !fstatat(dfd, fn, &st, 0) && !S_ISDIR(st.st_mode);
}

static int list_dir(struct conf_list *l, const char *root, const char *dir)
{
	char path[2 * PATH_MAX];
	struct dirent *e;
	DIR *d;
	int ret = 0;

	snprintf(path, sizeof(path), "%s%s", root, dir);
	d = opendir(path);
	while (d && !ret && (e = readdir(d)))
		if (conf_name(dirfd(d), e->d_name))
			ret = insert_sorted(l, dir, e->d_name);
	if (d)
		closedir(d);
	return ret;
}

static void add_dep(struct softdep_line *l, int mode, const char *p,
		    size_t len)
{
	if (len >= SOFTDEP_NAME_LEN)
		len = SOFTDEP_NAME_LEN - 1;
	if (mode == 1 && l->npre < SOFTDEP_MODS)
		snprintf(l->pre[l->npre++], SOFTDEP_NAME_LEN, "%.*s", (int)len, p);
	else if (mode == 2 && l->npost < SOFTDEP_MODS)
		snprintf(l->post[l->npost++], SOFTDEP_NAME_LEN, "%.*s", (int)len,
			 p);
}

/*
 * "pre: A B post: C" as kmod_config_add_softdep() splits it, its loop
 * kept as it is: one white space character before the first word (two
 * after the module's name in the file) joins that word, so that " pre:"
 * is no keyword and the modules after it count for nothing.
 */
static void split_deps(const char *line, struct softdep_line *l)
{
	const char *s, *p;
	bool was_space = false;
	int mode = 0;				/* 0 none, 1 pre, 2 post */
	size_t plen;

	for (p = s = line; ; s++) {
		if (*s) {
			if (!isspace((unsigned char)*s)) {
				was_space = false;
				continue;
			}
			if (was_space) {
				p = s + 1;
				continue;
			}
			was_space = true;
			if (p >= s)
				continue;
		}
		plen = s - p;
		if (plen == 4 && !memcmp(p, "pre:", 4))
			mode = 1;
		else if (plen == 5 && !memcmp(p, "post:", 5))
			mode = 2;
		else if (*s || !was_space)
			add_dep(l, mode, p, plen);
		p = s + 1;
		if (!*s)
			break;
	}
}

/*
 * One line of kmod's configuration: a softdep for @driver?  Fills @l's
 * modules.  kmod_config_parse(): "softdep", a module name (a pattern,
 * fnmatch()ed against the normalized name), then at least one character
 * (@printed: a line of "modprobe -c", which may end after the name).
 */
static bool softdep_for(char *line, const char *driver, bool printed,
			struct softdep_line *l)
{
	char *cmd, *mod, *deps, *save = NULL, want[SOFTDEP_NAME_LEN];

	if (line[0] == '#')
		return false;
	cmd = strtok_r(line, "\t ", &save);
	if (!cmd || strcmp(cmd, "softdep"))
		return false;
	mod = strtok_r(NULL, "\t ", &save);
	deps = strtok_r(NULL, "", &save);
	if (!mod || (!deps && !printed))
		return false;
	snprintf(want, sizeof(want), "%s", driver);
	underscores(want);
	underscores(mod);
	if (fnmatch(mod, want, 0))
		return false;
	l->npre = l->npost = 0;
	if (deps)
		split_deps(deps, l);
	return true;
}

/* "install MODULE COMMAND" for @driver (kmod_config_parse())? */
static bool install_for(const char *line, const char *driver)
{
	char *copy = strdup(line), *cmd, *mod, *save = NULL;
	char want[SOFTDEP_NAME_LEN];
	bool match = false;

	if (!copy)
		return false;
	cmd = strtok_r(copy, "\t ", &save);
	mod = cmd && !strcmp(cmd, "install") ?
	      strtok_r(NULL, "\t ", &save) : NULL;
	if (mod && strtok_r(NULL, "", &save)) {
		snprintf(want, sizeof(want), "%s", driver);
		underscores(want);
		underscores(mod);
		match = !fnmatch(mod, want, 0);
	}
	free(copy);
	return match;
}

/*
 * freadline_wrapped() (shared/util.c): '\' and a newline join two lines,
 * '\' before anything else is dropped.
 */
static char *read_logical(FILE *f, unsigned int *lineno)
{
	size_t len = 0, cap = 256;
	char *buf = malloc(cap), *grown;
	int ch;

	while (buf) {
		ch = getc(f);
		if (ch == EOF && !len)
			break;
		if (ch == EOF || ch == '\n') {
			(*lineno)++;
			buf[len] = '\0';
			return buf;
		}
		if (ch == '\\') {
			ch = getc(f);
			if (ch == '\n') {
				(*lineno)++;
				continue;
			}
		}
		buf[len++] = ch;
		if (len == cap) {
			grown = realloc(buf, cap *= 2);
			if (!grown)
				break;
			buf = grown;
		}
	}
	free(buf);
	return NULL;
}

static int scan_file(const char *root, const struct conf_file *cf,
		     const char *driver, struct softdep_view *v)
{
	char path[3 * PATH_MAX], *line;
	unsigned int lineno = 0, start;
	struct softdep_line l, *grown;
	bool match;
	FILE *f;

	snprintf(path, sizeof(path), "%s%s/%s", root, cf->dir, cf->name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	for (start = 1; (line = read_logical(f, &lineno)); start = lineno + 1) {
		if (!v->install_file[0] && line[0] != '#' &&
		    install_for(line, driver)) {
			snprintf(v->install_file, sizeof(v->install_file),
				 "%s/%s", cf->dir, cf->name);
			v->install_line = start;
		}
		match = softdep_for(line, driver, false, &l);
		free(line);
		if (!match)
			continue;
		grown = realloc(v->line, (v->n + 1) * sizeof(l));
		if (!grown) {
			fclose(f);
			return -1;
		}
		v->line = grown;
		snprintf(l.file, sizeof(l.file), "%s/%s", cf->dir, cf->name);
		l.line = start;
		v->line[v->n++] = l;
	}
	fclose(f);
	return 0;
}

int softdep_scan(const char *root, const char *kver, const char *driver,
		 struct softdep_view *v)
{
	struct conf_list l = { 0 };
	char kdir[PATH_MAX];
	size_t i;
	int ret = 0;

	memset(v, 0, sizeof(*v));
	if (!strcmp(root, "/"))
		root = "";
	if (kver) {
		snprintf(kdir, sizeof(kdir), "/lib/modules/%s", kver);
		ret = insert_sorted(&l, kdir, "modules.softdep");
	}
	for (i = 0; !ret && i < sizeof(conf_dirs) / sizeof(conf_dirs[0]); i++)
		ret = list_dir(&l, root, conf_dirs[i]);
	for (i = 0; !ret && i < l.n; i++)
		ret = scan_file(root, &l.f[i], driver, v);
	free(l.f);
	if (ret)
		softdep_view_free(v);
	return ret;
}

void softdep_view_free(struct softdep_view *v)
{
	free(v->line);
	v->line = NULL;
	v->n = 0;
}

/* modprobe from PATH, or where Debian keeps it (not in a user's PATH). */
static FILE *run_modprobe_c(void)
{
	static const char * const bins[] = {
		"/usr/sbin/modprobe", "/sbin/modprobe", "/usr/bin/modprobe",
	};
	char cmd[PATH_MAX + 32];
	size_t i;

	for (i = 0; i < sizeof(bins) / sizeof(bins[0]); i++)
		if (!access(bins[i], X_OK))
			break;
	snprintf(cmd, sizeof(cmd), "%s -c 2>/dev/null",
		 i < sizeof(bins) / sizeof(bins[0]) ? bins[i] : "modprobe");
	return popen(cmd, "r");
}

/*
 * modprobe.c, show_config(): "softdep NAME pre: ... post: ..." for each
 * softdep in kmod's list order, before "# End of configuration files".
 * softdep_to_char() (libkmod-config.c, kmod 30 and 34) writes no space
 * before "post:" after pre: modules ("pre: a bpost: c"): one is put back.
 */
static void unglue_post(char *line, size_t cap)
{
	char *p = strstr(line, "post: ");

	if (p && p > line && !isspace((unsigned char)p[-1]) &&
	    strlen(line) + 2 <= cap) {
		memmove(p + 1, p, strlen(p) + 1);
		*p = ' ';
	}
}

int softdep_kmod_first(FILE *in, const char *driver, struct softdep_line *l)
{
	FILE *f = in ? in : run_modprobe_c();
	char *line = NULL;
	size_t cap = 0;
	int found = 0, seen = 0;

	if (!f)
		return -1;
	while (!found && getline(&line, &cap, f) >= 0) {
		seen = 1;
		if (!strncmp(line, "# End of configuration files", 28))
			break;
		if (strlen(line) + 2 > cap) {
			char *grown = realloc(line, cap = strlen(line) + 2);

			if (!grown)
				break;
			line = grown;
		}
		unglue_post(line, cap);
		found = softdep_for(line, driver, true, l);
	}
	free(line);
	if (!in && (pclose(f) & 0xff00) == 127 << 8)
		seen = 0;			/* sh: no modprobe */
	if (!seen && !found)
		return -1;
	if (found) {
		snprintf(l->file, sizeof(l->file), "modprobe -c");
		l->line = 0;
	}
	return found;
}
