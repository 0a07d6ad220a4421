/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p2pmap_spin(ns), the kernel verify --bandwidth queues its copies behind
 * (bandwidth.c), as PTX text for cuModuleLoadData; tests/gpu's probe
 * loads the same.
 */
#ifndef P2PMAP_GATE_PTX_H
#define P2PMAP_GATE_PTX_H

extern const char verify_gate_ptx[];

#endif /* P2PMAP_GATE_PTX_H */
