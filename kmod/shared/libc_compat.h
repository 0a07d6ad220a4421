/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel names param_grammar.c uses, over libc, for the CLI's build of
 * it (the module's build uses the kernel's own), as tools/include does for
 * the kernel's tools.  Only what the grammar needs, with the kernel's
 * semantics.
 */
#ifndef P2PMAP_LIBC_COMPAT_H
#define P2PMAP_LIBC_COMPAT_H

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned int u32;

/* __printf(): user/Makefile defines it on the command line. */

/* strim(): white space off both ends; the end is cut in place. */
static inline char *strim(char *s)
{
	size_t n;

	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	return s;
}

/*
 * kstrtou32(): one '+' at most, then digits in @base (0: "0x" and a hex
 * digit is hex, a leading 0 octal, else decimal), one '\n' after them at
 * most; -ERANGE above U32_MAX.  strtoull() takes more (white space, a
 * sign, a second "0x", "0b" in C23): given only what the kernel reads.
 */
static inline int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	unsigned long long v;
	char *end;

	if (*s == '+')
		s++;
	if (base == 0 && s[0] == '0' && tolower((unsigned char)s[1]) == 'x' &&
	    isxdigit((unsigned char)s[2])) {
		base = 16;
		s += 2;
	} else if (base == 0) {
		base = s[0] == '0' ? 8 : 10;
	}
	if (!isxdigit((unsigned char)s[0]) ||
	    (s[0] == '0' && tolower((unsigned char)s[1]) == 'x'))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	if (end == s)
		return -EINVAL;
	if (errno == ERANGE || v > UINT_MAX)
		return -ERANGE;
	if (*end == '\n')
		end++;
	if (*end)
		return -EINVAL;
	*res = v;
	return 0;
}

#endif /* P2PMAP_LIBC_COMPAT_H */
