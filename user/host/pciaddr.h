/* SPDX-License-Identifier: GPL-2.0 */
#ifndef P2PMAP_PCIADDR_H
#define P2PMAP_PCIADDR_H

#include <stddef.h>
#include <linux/p2pmap.h>

/*
 * Parse a PCI address "[DDDD:]BB:DD.F" as the module's links= does (hex,
 * any case; a domain of up to 8 digits, at most 0x7fffffff; the other
 * fields of up to 2) and write it to @out normalised as "DDDD:BB:DD.F" in
 * lower case (more domain digits when it is above 0xffff).  Returns 0, or
 * -1 with a short reason in @err (which may be NULL).
 */
int pciaddr_parse(const char *s, char out[P2PMAP_ADDR_LEN],
		  char *err, size_t errlen);

#endif /* P2PMAP_PCIADDR_H */
