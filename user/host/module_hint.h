/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What to do when the module is not loaded: load it, or first install it
 * for the running kernel.  Read from the kernel's modules.dep, so that the
 * answer is modprobe's.  In a container: load it on the host.
 */
#ifndef P2PMAP_MODULE_HINT_H
#define P2PMAP_MODULE_HINT_H

#include <stdbool.h>
#include <stddef.h>

/* For tests: the directory that holds modules.dep, instead of
 * /lib/modules/$(uname -r). */
#define MODULE_HINT_DIR_ENV	"P2PMAP_MODULES_DIR"
/* For tests: the root under which container.h looks, instead of "/". */
#define MODULE_HINT_CONTAINER_ROOT_ENV	"P2PMAP_CONTAINER_ROOT"

/*
 * The line to print when the family is not found, in @buf; true when the
 * module is loaded all the same (on the host, seen from a container).
 */
bool module_hint(char *buf, size_t len);

#endif /* P2PMAP_MODULE_HINT_H */
