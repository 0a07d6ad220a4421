/* SPDX-License-Identifier: GPL-2.0 */
#ifndef P2PMAP_PCIADDR_H
#define P2PMAP_PCIADDR_H

#include <stddef.h>
#include <linux/p2pmap.h>

/*
 * Parse a PCI address "[DDDD:]BB:DD.F" (hex, any case) and write it to @out
 * normalised as "DDDD:BB:DD.F" in lower case.  Returns 0, or -1 with a
 * short reason in @err (which may be NULL).
 */
int pciaddr_parse(const char *s, char out[P2PMAP_ADDR_LEN],
		  char *err, size_t errlen);

#endif /* P2PMAP_PCIADDR_H */
