// SPDX-License-Identifier: GPL-2.0
/*
 * PCI address parsing and normalisation: the module's grammar
 * (kmod/shared/param_grammar.c, p2pmap_addr_parse_any()), with the reason
 * said in full for the command line.
 */
#include <stdio.h>

#include "param_grammar.h"
#include "pciaddr.h"

static void set_err(char *err, size_t errlen,
		    const struct p2pmap_addr_problem *p)
{
	const struct p2pmap_addr_field *f = &p2pmap_addr_fields[p->field];

	if (!err || !errlen)
		return;
	switch (p->why) {
	case P2PMAP_ADDR_NOT_HEX:
		snprintf(err, errlen, "%s is not a hex number", f->name);
		break;
	case P2PMAP_ADDR_DIGITS:
		snprintf(err, errlen, "%s has more than %u digits", f->name,
			 f->digits);
		break;
	case P2PMAP_ADDR_RANGE:
		snprintf(err, errlen, "%s out of range (max %lx)", f->name,
			 f->max);
		break;
	case P2PMAP_ADDR_SEP:
		if (f->sep)
			snprintf(err, errlen, "expected '%c' after %s", f->sep,
				 f->name);
		else
			snprintf(err, errlen, "trailing characters");
		break;
	}
}

int pciaddr_parse(const char *s, char out[P2PMAP_ADDR_LEN],
		  char *err, size_t errlen)
{
	struct p2pmap_addr_problem p;

	if (!s || !*s) {
		if (err && errlen)
			snprintf(err, errlen, "empty address");
		return -1;
	}
	if (p2pmap_addr_parse_any(s, out, &p)) {
		set_err(err, errlen, &p);
		return -1;
	}
	return 0;
}
