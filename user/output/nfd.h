/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kubernetes node labels through Node Feature Discovery's local source: a
 * feature file in /etc/kubernetes/node-feature-discovery/features.d/, one
 * "name=value" per line (NFD's source/local/local.go), read again by the
 * nfd-worker at each discovery; labels of a file that is gone are removed.
 */
#ifndef P2PMAP_NFD_H
#define P2PMAP_NFD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define NFD_DEFAULT_PATH \
	"/etc/kubernetes/node-feature-discovery/features.d/p2pmap"
/* Full keys: no reliance on NFD's default prefix for bare names. */
#define NFD_PREFIX	"feature.node.kubernetes.io/p2pmap-"

struct nfd_labels {
	size_t gpus;			/* GPUs of the verified group */
	char numa[64];			/* "0", "0_1"; "" unknown */
	const char *source;		/* verify's file, for the comment */
};

/* The file's text: a comment, then p2pmap-verified, -gpus, -numa-nodes. */
void nfd_render(FILE *f, const struct nfd_labels *l);

/*
 * @verified: write @path atomically (a hidden temporary file in the same
 * directory, which NFD skips, then rename); otherwise remove @path, so
 * that the labels go.  Returns 0, or -errno with @path's error printed.
 */
int nfd_write(const char *path, bool verified, const struct nfd_labels *l);

#endif /* P2PMAP_NFD_H */
