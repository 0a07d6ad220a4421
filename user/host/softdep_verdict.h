/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Does kmod load p2pmap before @driver at the next boot?  Judged on the
 * one softdep line kmod uses (modprobe_softdep.h): on this host asked of
 * kmod itself ("modprobe -c"), under another root read in kmod's order.
 * One judgement, one wording, for "p2pmap doctor" and "config check".
 */
#ifndef P2PMAP_SOFTDEP_VERDICT_H
#define P2PMAP_SOFTDEP_VERDICT_H

#include <stddef.h>

#include "modprobe_softdep.h"

enum softdep_state {
	SOFTDEP_OK,		/* kmod's line loads p2pmap first, keeps all */
	SOFTDEP_NONE,		/* no line loads p2pmap before the driver */
	SOFTDEP_SHADOWED,	/* one does, but kmod uses an earlier one */
	SOFTDEP_STALE,		/* kmod's line lacks another line's module */
	SOFTDEP_INSTALL,	/* OK, but kmod now ignores an install line */
};

struct softdep_verdict {
	enum softdep_state state;
	struct softdep_line used;	/* kmod's line (not with NONE) */
	struct softdep_line ours;	/* SHADOWED: the line kmod ignores */
	char missing[1024];		/* STALE: "MOD (FILE line N), ..." */
	/* "install DRIVER" that kmod ignores (its softdep line names a
	 * module): "FILE line N", or "". */
	char install_ignored[PATH_MAX + 16];
};

/*
 * Judge @driver's softdep under @root ("" or "/": this host, kmod asked
 * when modprobe runs), @kver's modules.softdep included (NULL: none).
 * Returns 0, or -1 when out of memory.
 */
int softdep_judge(const char *root, const char *kver, const char *driver,
		  struct softdep_verdict *v);

/* The verdict in words, and its fix ("" when none). */
void softdep_verdict_text(const struct softdep_verdict *v,
			  const char *driver, char *text, size_t tlen,
			  char *fix, size_t flen);

#endif /* P2PMAP_SOFTDEP_VERDICT_H */
