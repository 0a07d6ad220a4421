// SPDX-License-Identifier: GPL-2.0
/* PCI address parsing and normalisation. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pciaddr.h"

static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/*
 * Read one hex field of at most @digits digits at *p and advance past it.
 * Returns the field's value, -1 when there is no hex digit at *p, or -2
 * when there are more than @digits.  The module reads the same way
 * (kmod/addr.c, p2pmap_addr_parse_any()); tests/guest/param-cases.tsv
 * holds both to it.
 */
static long hexfield(const char **p, unsigned int digits)
{
	unsigned long v = 0;
	const char *s = *p;
	unsigned int n = 0;
	int d;

	if (hexval(*s) < 0)
		return -1;
	while ((d = hexval(*s)) >= 0) {
		if (++n > digits)
			return -2;
		v = v * 16 + d;
		s++;
	}
	*p = s;
	return (long)v;
}

int pciaddr_parse(const char *s, char out[P2PMAP_ADDR_LEN],
		  char *err, size_t errlen)
{
	static const struct {
		const char *name;
		unsigned long max;
		unsigned int digits;
		char sep;		/* what must follow the field */
	} fields[] = {
		{ "domain", 0x7fffffff, 8, ':' },	/* VMD: above 0xffff */
		{ "bus", 0xff, 2, ':' },
		{ "device", 0x1f, 2, '.' },
		{ "function", 0x7, 2, '\0' },
	};
	long v[4];
	const char *p = s;
	unsigned int i, colons = 0;

	if (!s || !*s) {
		set_err(err, errlen, "empty address");
		return -1;
	}
	for (i = 0; s[i]; i++)
		colons += s[i] == ':';
	/* Without a domain, the first field is the bus. */
	i = colons == 1 ? 1 : 0;
	if (i)
		v[0] = 0;
	for (; i < 4; i++) {
		v[i] = hexfield(&p, fields[i].digits);
		if (v[i] == -1) {
			set_err(err, errlen, "%s is not a hex number",
				fields[i].name);
			return -1;
		}
		if (v[i] == -2) {
			set_err(err, errlen, "%s has more than %u digits",
				fields[i].name, fields[i].digits);
			return -1;
		}
		if ((unsigned long)v[i] > fields[i].max) {
			set_err(err, errlen, "%s out of range (max %lx)",
				fields[i].name, fields[i].max);
			return -1;
		}
		if (*p != fields[i].sep) {
			if (fields[i].sep)
				set_err(err, errlen, "expected '%c' after %s",
					fields[i].sep, fields[i].name);
			else
				set_err(err, errlen, "trailing characters");
			return -1;
		}
		if (fields[i].sep)
			p++;
	}
	snprintf(out, P2PMAP_ADDR_LEN, "%04lx:%02lx:%02lx.%lx",
		 v[0], v[1], v[2], v[3]);
	return 0;
}
