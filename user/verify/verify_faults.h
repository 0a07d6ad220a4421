/* SPDX-License-Identifier: GPL-2.0 */
/* Fault counter sources of p2pmap verify (struct verify_faults). */
#ifndef P2PMAP_VERIFY_FAULTS_H
#define P2PMAP_VERIFY_FAULTS_H

#include "verify.h"

/*
 * For tests only: P2PMAP_VERIFY_FAULTS_FILE names a file of lines
 * "A->B[:write|:read][@PATH] BEFORE AFTER [ADDR]" (A, B: CUDA indices or
 * PCI addresses; without an operation the line is for both, without a
 * path for every one; ADDR, hex: the last fault's address) and
 * "bar PCI INDEX START SIZE" (hex: a BAR of an NVIDIA GPU, that ADDR is
 * attributed to; '#' starts a comment) that replaces the kernel's
 * counters and device dump.  A direction without a line reads 0 before
 * and after.
 */
#define VERIFY_FAULTS_ENV	"P2PMAP_VERIFY_FAULTS_FILE"

/*
 * The production source: the module's device dump, the sum of the PEER
 * records (from, to) and (to, from).  Unknown when the module is not
 * loaded or a device is not tracked.  Returns 0 or -1 (after printing).
 */
int verify_faults_nl_open(struct verify_faults *src);
/* The test source, from @path.  Returns 0 or -1 (after printing). */
int verify_faults_file_open(struct verify_faults *src, const char *path);
void verify_faults_close(struct verify_faults *src);

#endif /* P2PMAP_VERIFY_FAULTS_H */
