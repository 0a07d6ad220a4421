/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "p2pmap config check": a modprobe.d file read the way modprobe and the
 * module will read it at the next boot.  Every "options p2pmap" line is
 * split into parameters as the kernel splits a module's arguments
 * (quotes, '-' equal to '_'), and each parameter is judged by the
 * module's own grammar, compiled in here (kmod/shared/param_grammar.c),
 * with the module's own words: the problem the module will log and report
 * in "p2pmap info" is the one printed here.  tests/guest/param-cases.tsv
 * holds both to one table of cases (and tests/unit/test_param_grammar.c
 * the grammar itself).
 */
#ifndef P2PMAP_MODPROBE_CHECK_H
#define P2PMAP_MODPROBE_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/p2pmap.h>

/* A links= entry the module would use. */
struct modprobe_link {
	char initiator[P2PMAP_ADDR_LEN], target[P2PMAP_ADDR_LEN];
	bool has_mask;
	uint32_t mask;
	unsigned int line;
};

struct modprobe_check {
	unsigned int problems;		/* the module would report these */
	unsigned int warnings;		/* the module would say nothing */
	unsigned int links;		/* entries of links= it would use */
	unsigned int options_lines;	/* "options p2pmap" lines */
	struct modprobe_link *link;	/* the @links used, in order */
	/*
	 * The policy lists the file sets (drivers, vendors, classes,
	 * numa_nodes; NULL where it sets none), when all of them are well
	 * formed; @policy_bad when one is not (the module then admits
	 * nothing).
	 */
	char *policy[4];
	bool policy_bad;
};

/* Free what modprobe_check() allocated in @res. */
void modprobe_check_free(struct modprobe_check *res);

/*
 * Read @in (named @path in the messages) and print one line per problem,
 * "PATH:LINE: MESSAGE", to @out.  Fills @res.  Returns 0, or -1 when @in
 * cannot be read.
 */
int modprobe_check(FILE *in, const char *path, FILE *out,
		   struct modprobe_check *res);

#endif /* P2PMAP_MODPROBE_CHECK_H */
