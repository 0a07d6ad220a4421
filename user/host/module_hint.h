/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What to do when the module is not loaded: load it, or first install it
 * for the running kernel.  Read from the kernel's modules.dep, so that the
 * answer is modprobe's.
 */
#ifndef P2PMAP_MODULE_HINT_H
#define P2PMAP_MODULE_HINT_H

#include <stddef.h>

/* For tests: the directory that holds modules.dep, instead of
 * /lib/modules/$(uname -r). */
#define MODULE_HINT_DIR_ENV	"P2PMAP_MODULES_DIR"

/* The line to print after "kernel module not loaded", in @buf. */
void module_hint(char *buf, size_t len);

#endif /* P2PMAP_MODULE_HINT_H */
