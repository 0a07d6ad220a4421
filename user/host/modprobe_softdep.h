/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "softdep DRIVER" lines kmod sees, in the order it reads them: the
 * first one is the only one it uses (libkmod-module.c,
 * kmod_module_get_softdeps(): "find only the first command, as modprobe
 * from module-init-tools does").  The order is kmod's (kmod 30 and 34,
 * libkmod-config.c, kmod_config_new() and conf_files_insert_sorted()):
 * every *.conf (and *.alias) file of /etc, /run, /usr/local/lib, /usr/lib
 * and /lib's modprobe.d, sorted by its name alone with strcmp(), a name
 * seen in an earlier directory hiding the same name in a later one, and
 * the kernel's modules.softdep (depmod's, from MODULE_SOFTDEP) sorted
 * among them as "modules.softdep"; in a file, line order.
 */
#ifndef P2PMAP_MODPROBE_SOFTDEP_H
#define P2PMAP_MODPROBE_SOFTDEP_H

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

/*
 * What "p2pmap config save" writes: a name kmod reads before the usual
 * ones (nvidia.conf, p2pmap.conf, modules.softdep).
 */
#define SOFTDEP_FILE_NAME	"00-p2pmap-softdep.conf"
#define SOFTDEP_FILE		"/etc/modprobe.d/" SOFTDEP_FILE_NAME
#define SOFTDEP_MODS		32
#define SOFTDEP_NAME_LEN	64

struct softdep_line {
	char file[PATH_MAX];		/* as on the host, without the root */
	unsigned int line;		/* 0: from "modprobe -c" */
	unsigned int npre, npost;
	char pre[SOFTDEP_MODS][SOFTDEP_NAME_LEN];
	char post[SOFTDEP_MODS][SOFTDEP_NAME_LEN];
};

/*
 * Every "softdep" line whose module (a pattern) matches the driver, and
 * the first "install" line for it (kmod_module_get_install_commands()
 * uses the first too): kmod ignores it when the softdep line it uses
 * names a module (libkmod-module.c, __kmod_module_fill_softdep() sets
 * ignorecmd, kmod_module_probe_insert_module() then inserts the module).
 */
struct softdep_view {
	struct softdep_line *line;	/* line[0]: the one kmod uses */
	size_t n;
	char install_file[PATH_MAX];	/* "" when none */
	unsigned int install_line;
};

/* Module names as kmod compares them: '-' and '_' alike. */
bool softdep_same_module(const char *a, const char *b);
/* Is @mod among the @pre (or post) modules of @l? */
bool softdep_names(const struct softdep_line *l, bool pre, const char *mod);

/*
 * The lines for @driver under @root ("" or "/" for this host) in kmod's
 * order, @kver's modules.softdep among them (NULL: none read).  Returns
 * 0, or -1 when out of memory.
 */
int softdep_scan(const char *root, const char *kver, const char *driver,
		 struct softdep_view *v);
void softdep_view_free(struct softdep_view *v);

/*
 * Ask kmod itself: the first "softdep" line for @driver that "modprobe -c"
 * prints (it prints them in the order it uses them).  Returns 1 and fills
 * @l (file "modprobe -c"), 0 when it prints none, -1 when modprobe could
 * not be run.  @in: modprobe's output to read instead (tests), or NULL.
 */
int softdep_kmod_first(FILE *in, const char *driver, struct softdep_line *l);

#endif /* P2PMAP_MODPROBE_SOFTDEP_H */
