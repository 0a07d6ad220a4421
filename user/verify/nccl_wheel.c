// SPDX-License-Identifier: GPL-2.0
/*
 * The NCCL pip installed for the inference server, found by reading
 * files only.
 *
 * The layout: NVIDIA's wheels nvidia-nccl-cu12 and nvidia-nccl-cu13
 * (PyPI) put nvidia/nccl/lib/libnccl.so.2 in the environment's
 * site-packages (dist-packages for Debian's Python, lib64/ for the
 * platlib of Fedora's), their metadata beside it as
 * nvidia_nccl_cu12-VERSION.dist-info (the wheel's name with "_", PEP
 * 427).  PyTorch's torch/__init__.py (_preload_cuda_deps("nccl",
 * "libnccl.so.*")) loads it from nvidia/nccl/lib under each sys.path
 * entry, and vLLM's find_nccl_library() (vllm/utils) then opens
 * "libnccl.so.2", the one already loaded, unless VLLM_NCCL_SO_PATH
 * names another: the server runs the wheel's NCCL.
 *
 * Never run the server's Python (python3 -c 'import sys;
 * print(sys.path)' would be exact) nor its script: p2pmap runs as root,
 * and an interpreter starting runs the environment's own code
 * (sitecustomize, the .pth files in site-packages); a script can do
 * anything.  The prefix rule below is site.py's for the usual layouts
 * (venv, conda, the system's).
 */
#define _GNU_SOURCE			/* strchrnul() */
#include <glob.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nccl_lib.h"
#include "nccl_wheel.h"

#define WHEEL_LIB	"nvidia/nccl/lib/" NCCL_LIB
#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* systemd's unit directories, the first that has the unit wins. */
static const char *const unit_dirs[] = {
	"/etc/systemd/system", "/run/systemd/system",
	"/usr/local/lib/systemd/system", "/usr/lib/systemd/system",
	"/lib/systemd/system",
};

/*
 * systemd's search path for an ExecStart= program not given absolute,
 * and the PATH its services get (systemd.exec(5)).
 */
#define UNIT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* Where an environment's packages go, under its prefix. */
static const char *const site_dirs[] = {
	"lib/python3*/site-packages",
	"lib/python3*/dist-packages",	/* Debian's, lib/python3 too */
	"lib64/python3*/site-packages",
};

#define MAX_PREFIXES	8

struct search {
	struct nccl_wheel *w;
	char done[MAX_PREFIXES][PATH_MAX];	/* prefixes searched */
	int ndone;
};

static void __attribute__((format(printf, 2, 3)))
looked(struct nccl_wheel *w, const char *fmt, ...)
{
	size_t n = strlen(w->looked);
	va_list ap;

	if (n && n + 2 < sizeof(w->looked)) {
		memcpy(w->looked + n, "; ", 3);
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(w->looked + n, sizeof(w->looked) - n, fmt, ap);
	va_end(ap);
}

static const char *base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* dirname() in place: "/usr/bin" -> "/usr", "/usr" -> "/". */
static void up(char *path)
{
	char *s = strrchr(path, '/');

	if (s == path)
		s[1] = '\0';
	else if (s)
		*s = '\0';
}

/* "nvidia_nccl_cu12-2.27.3.dist-info" in @site: "nvidia-nccl-cu12 2.27.3". */
static void wheel_name(const char *site, char *buf, size_t len)
{
	char pat[PATH_MAX + 64], *name, *p;
	glob_t g;

	snprintf(buf, len, "nvidia-nccl");	/* no metadata: no name */
	snprintf(pat, sizeof(pat), "%s/nvidia_nccl_cu*-*.dist-info", site);
	if (glob(pat, 0, NULL, &g))
		return;
	name = strrchr(g.gl_pathv[0], '/') + 1;
	name[strlen(name) - strlen(".dist-info")] = '\0';
	for (p = name; *p && *p != '-'; p++)
		if (*p == '_')
			*p = '-';
	*p = ' ';
	/* cu12 and cu13 both: the file is the last one installed. */
	if (g.gl_pathc > 1)
		snprintf(buf, len, "%s (one of %zu nvidia-nccl wheels)", name,
			 g.gl_pathc);
	else
		snprintf(buf, len, "%s", name);
	globfree(&g);
}

/* @prefix's site-packages; @of says whose, in the messages. */
static int site_search(struct search *s, const char *prefix, const char *of)
{
	char pat[PATH_MAX + 64], site[PATH_MAX], name[128];
	size_t i;
	glob_t g;
	int k;

	for (k = 0; k < s->ndone; k++)
		if (!strcmp(s->done[k], prefix))
			return -1;
	if (s->ndone < MAX_PREFIXES)
		snprintf(s->done[s->ndone++], PATH_MAX, "%s", prefix);
	for (i = 0; i < ARRAY_LEN(site_dirs); i++) {
		snprintf(pat, sizeof(pat), "%s/%s/" WHEEL_LIB,
			 strcmp(prefix, "/") ? prefix : "", site_dirs[i]);
		if (glob(pat, 0, NULL, &g))
			continue;
		snprintf(s->w->lib, sizeof(s->w->lib), "%s", g.gl_pathv[0]);
		globfree(&g);
		snprintf(site, sizeof(site), "%.*s",
			 (int)(strlen(s->w->lib) - strlen("/" WHEEL_LIB)),
			 s->w->lib);
		wheel_name(site, name, sizeof(name));
		snprintf(s->w->how, sizeof(s->w->how), "wheel %s of %s", name,
			 of);
		return 0;
	}
	looked(s->w, "%s/lib*/python3*/*-packages (%s)", prefix, of);
	return -1;
}

/*
 * The base of venv @dir when its pyvenv.cfg says
 * include-system-site-packages = true: the parent of its home (the
 * base's bin/), into @basep; else "".  -1: no pyvenv.cfg in @dir.
 */
static int venv_base(const char *dir, char *basep)
{
	char line[PATH_MAX + 32], key[64], val[PATH_MAX];
	bool inherit = false;
	FILE *f;

	basep[0] = '\0';
	snprintf(line, sizeof(line), "%s/pyvenv.cfg", dir);
	f = fopen(line, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, " %63[^= ] = %4095[^\n]", key, val) != 2)
			continue;
		if (!strcmp(key, "home"))
			snprintf(basep, PATH_MAX, "%s", val);
		else if (!strcmp(key, "include-system-site-packages"))
			inherit = !strncmp(val, "true", 4);
	}
	fclose(f);
	if (inherit && basep[0])
		up(basep);
	else
		basep[0] = '\0';
	return 0;
}

/* A prefix's packages, then its venv's base's when it inherits them. */
static int env_search(struct search *s, const char *prefix, const char *of)
{
	char basep[PATH_MAX];

	if (!site_search(s, prefix, of))
		return 0;
	if (venv_base(prefix, basep) || !basep[0])
		return -1;
	return site_search(s, basep, of);
}

/*
 * The environment of interpreter @py, as site.py finds it: the directory
 * of a pyvenv.cfg beside @py or one up (PEP 405), @py not resolved (a
 * venv's python is a link to its base's); else the parent of the bin/
 * of realpath(@py) (/usr/bin/python3.12: /usr; conda's bin/python).
 */
static int python_search(struct search *s, const char *py, const char *from)
{
	char prefix[PATH_MAX], real[PATH_MAX], basep[PATH_MAX];
	char of[PATH_MAX + 64];
	int i;

	snprintf(of, sizeof(of), "%s (%s)", py, from);
	snprintf(prefix, sizeof(prefix), "%s", py);
	for (i = 0; i < 2; i++) {
		up(prefix);
		if (!venv_base(prefix, basep))
			return env_search(s, prefix, of);
	}
	snprintf(prefix, sizeof(prefix), "%s",
		 realpath(py, real) ? real : py);
	up(prefix);
	up(prefix);
	return site_search(s, prefix, of);
}

/* @name on the colon-separated @path, as execvp() finds it. */
static int path_find(const char *name, const char *path, char *out,
		     size_t len)
{
	const char *end;

	for (;; path = end + 1) {
		end = strchrnul(path, ':');
		if (end > path) {
			snprintf(out, len, "%.*s/%s", (int)(end - path), path,
				 name);
			if (!access(out, X_OK))
				return 0;
		}
		if (!*end)
			return -1;
	}
}

/* The next word of @s, blank-separated, "..." or '...' as systemd. */
static const char *word(const char *s, char *out, size_t len)
{
	size_t n = 0;
	char q = 0;

	s += strspn(s, " \t");
	if (*s == '"' || *s == '\'')
		q = *s++;
	for (; *s && (q ? *s != q : !strchr(" \t\r\n", *s)); s++)
		if (n + 1 < len)
			out[n++] = *s;
	if (q && *s)
		s++;
	out[n] = '\0';
	return s;
}

/* python, python3, python3.12: distutils' pattern for a #! Python. */
static bool is_python(const char *path)
{
	const char *b = base(path);

	return !strncmp(b, "python", 6) &&
	       strspn(b + 6, "0123456789.") == strlen(b + 6);
}

/*
 * The Python that command line @cmd runs: its program when that is one,
 * PROG of "env [-S] [VAR=x] PROG", else (@script) the #! line of the
 * script it runs: pip's console scripts (vllm, sglang's) have the
 * interpreter's absolute path there or, when too long for the kernel,
 * "#!/bin/sh" and "'''exec' PY ..." on the next line (distlib's
 * ScriptMaker._build_shebang()).  Into @why when none.
 */
static int cmd_python(const char *cmd, const char *path, bool script,
		      char *py, char *why, size_t wlen)
{
	char prog[PATH_MAX], line[2][PATH_MAX], sh[PATH_MAX];
	bool env = false;
	FILE *f;

	cmd = word(cmd, prog, sizeof(prog));
	if (!strcmp(base(prog), "env")) {
		env = true;
		do
			cmd = word(cmd, prog, sizeof(prog));
		while (prog[0] == '-' || strchr(prog, '='));
	}
	if (!prog[0]) {
		snprintf(why, wlen, "no program");
		return -1;
	}
	if (prog[0] == '/') {
		snprintf(py, PATH_MAX, "%s", prog);
	} else if (path_find(prog, env ? path : UNIT_PATH, py, PATH_MAX)) {
		snprintf(why, wlen, "%.256s not found in %.1024s", prog,
			 env ? path : UNIT_PATH);
		return -1;
	}
	if (is_python(py))
		return 0;
	if (!script) {
		snprintf(why, wlen, "%s is not a Python", py);
		return -1;
	}
	f = fopen(py, "r");
	if (!f) {
		snprintf(why, wlen, "%s: %m", py);
		return -1;
	}
	line[0][0] = '\0';
	line[1][0] = '\0';
	if (fgets(line[0], sizeof(line[0]), f))
		(void)!fgets(line[1], sizeof(line[1]), f);
	fclose(f);
	if (strncmp(line[0], "#!", 2)) {
		snprintf(why, wlen, "%s is neither a Python nor a script", py);
		return -1;
	}
	word(line[0] + 2, sh, sizeof(sh));
	if (!strcmp(base(sh), "sh") && !strncmp(line[1], "'''exec' ", 9))
		return cmd_python(line[1] + 9, path, false, py, why, wlen);
	return cmd_python(line[0] + 2, path, false, py, why, wlen);
}

/* One file of a unit: ExecStart= (the last; an empty one resets it), PATH=. */
static void unit_file(const char *file, char *exec, char *path)
{
	char line[PATH_MAX + 64], w[PATH_MAX];
	const char *p;
	FILE *f = fopen(file, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " \t");
		if (!strncmp(p, "ExecStart=", 10)) {
			/* Its prefixes: @, -, :, +, !, !! */
			p += 10 + strspn(p + 10, "@-:+!");
			snprintf(exec, PATH_MAX, "%.*s",
				 (int)strcspn(p, "\r\n"), p);
		} else if (!strncmp(p, "Environment=", 12)) {
			for (p += 12; *p && !strchr("\r\n", *p);) {
				p = word(p, w, sizeof(w));
				if (!strncmp(w, "PATH=", 5))
					snprintf(path, PATH_MAX, "%s", w + 5);
			}
		}
	}
	fclose(f);
}

/*
 * The unit's file (the first of systemd's directories that has it),
 * then its drop-ins there in name order, as doctor reads them.
 */
static int unit_read(const char *unit, char *exec, char *path, char *file)
{
	const char *dir = getenv(NCCL_WHEEL_UNIT_DIR_ENV);
	size_t i, n = dir && *dir ? 1 : ARRAY_LEN(unit_dirs);
	char pat[PATH_MAX + 16];
	glob_t g;

	for (i = 0; i < n; i++) {
		snprintf(file, PATH_MAX, "%s/%s", n == 1 ? dir : unit_dirs[i],
			 unit);
		if (!access(file, R_OK))
			break;
	}
	if (i == n)
		return -1;
	unit_file(file, exec, path);
	snprintf(pat, sizeof(pat), "%s.d/*.conf", file);
	if (glob(pat, 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++)
		unit_file(g.gl_pathv[i], exec, path);
	globfree(&g);
	return 0;
}

static int find_unit(struct search *s, const char *unit)
{
	char exec[PATH_MAX] = "", path[PATH_MAX] = UNIT_PATH, file[PATH_MAX];
	char py[PATH_MAX], why[PATH_MAX + 64], from[PATH_MAX];
	const char *dir = getenv(NCCL_WHEEL_UNIT_DIR_ENV);

	if (unit_read(unit, exec, path, file)) {
		looked(s->w, "unit %s: not in %s", unit,
		       dir && *dir ? dir : "systemd's unit directories");
		return -1;
	}
	if (!exec[0]) {
		looked(s->w, "unit %s (%s): no ExecStart=", unit, file);
		return -1;
	}
	if (cmd_python(exec, path, true, py, why, sizeof(why))) {
		looked(s->w, "unit %s: ExecStart=%.*s: %s", unit,
		       (int)strcspn(exec, " \t"), exec, why);
		return -1;
	}
	snprintf(from, sizeof(from), "unit %s", unit);
	return python_search(s, py, from);
}

/* No unit: the Python a shell here would run, then the system's. */
static int find_here(struct search *s)
{
	const char *venv = getenv("VIRTUAL_ENV"), *path = getenv("PATH");
	char py[PATH_MAX], of[PATH_MAX + 16];

	if (venv && *venv) {
		snprintf(of, sizeof(of), "VIRTUAL_ENV=%s", venv);
		if (!env_search(s, venv, of))
			return 0;
	}
	if (path && !path_find("python3", path, py, sizeof(py))) {
		if (!python_search(s, py, "python3 on PATH"))
			return 0;
	} else {
		looked(s->w, "no python3 on PATH");
	}
	if (!site_search(s, "/usr/local", "the system's Python"))
		return 0;
	return site_search(s, "/usr", "the system's Python");
}

int nccl_wheel_find(const char *unit, struct nccl_wheel *w)
{
	static struct search s;

	memset(w, 0, sizeof(*w));
	memset(&s, 0, sizeof(s));
	s.w = w;
	return unit ? find_unit(&s, unit) : find_here(&s);
}
