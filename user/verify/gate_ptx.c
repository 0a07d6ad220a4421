// SPDX-License-Identifier: GPL-2.0
/* The gate kernel's PTX (gate_ptx.h). */
#include "gate_ptx.h"

/*
 * The gate: p2pmap_spin(ns) spins one thread on %globaltimer for @ns
 * nanoseconds, holding its stream while the host queues the copies
 * behind it.  p2pBandwidthLatencyTest's delay() kernel does the same,
 * released by a host flag or after 10,000,000 clocks (github.com/NVIDIA/
 * cuda-samples, Samples/5_Domain_Specific/p2pBandwidthLatencyTest/
 * p2pBandwidthLatencyTest.cu): here by time alone, checked on the host
 * (gated()).  PTX ISA 7.0, sm_52, as verify_paths.c's kernel; ptxas of
 * CUDA 13.0 accepts it for sm_75, sm_90 and sm_120.
 */
const char verify_gate_ptx[] =
	".version 7.0\n"
	".target sm_52\n"
	".address_size 64\n"
	"\n"
	".visible .entry p2pmap_spin(\n"
	"\t.param .u64 p_ns\n"
	")\n"
	"{\n"
	"\t.reg .pred %p;\n"
	"\t.reg .b64 %rd<4>;\n"
	"\n"
	"\tld.param.u64 %rd1, [p_ns];\n"
	"\tmov.u64 %rd2, %globaltimer;\n"
	"\tadd.u64 %rd1, %rd1, %rd2;\n"
	"$L_spin:\n"
	"\tmov.u64 %rd3, %globaltimer;\n"
	"\tsetp.lt.u64 %p, %rd3, %rd1;\n"
	"\t@%p bra $L_spin;\n"
	"\tret;\n"
	"}\n";
