/* SPDX-License-Identifier: GPL-2.0 */
/*
 * "p2pmap config check": a modprobe.d file read the way modprobe and the
 * module will read it at the next boot.  Every "options p2pmap" line is
 * split into parameters as the kernel splits a module's arguments
 * (quotes, '-' equal to '_'), and each parameter is judged by the rules
 * of the module's own parameter code (kmod/param.c, link_param.c,
 * policy.c, reserve.c), with the module's own words: the problem the
 * module will log and report in "p2pmap info" is the one printed here.
 * tests/guest/param-cases.tsv holds both to one table of cases.
 */
#ifndef P2PMAP_MODPROBE_CHECK_H
#define P2PMAP_MODPROBE_CHECK_H

#include <stdio.h>

struct modprobe_check {
	unsigned int problems;		/* the module would report these */
	unsigned int warnings;		/* the module would say nothing */
	unsigned int links;		/* entries of links= it would use */
	unsigned int options_lines;	/* "options p2pmap" lines */
};

/*
 * Read @in (named @path in the messages) and print one line per problem,
 * "PATH:LINE: MESSAGE", to @out.  Fills @res.  Returns 0, or -1 when @in
 * cannot be read.
 */
int modprobe_check(FILE *in, const char *path, FILE *out,
		   struct modprobe_check *res);

#endif /* P2PMAP_MODPROBE_CHECK_H */
