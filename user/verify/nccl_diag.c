// SPDX-License-Identifier: GPL-2.0
/* NCCL_RUN_DIAGNOSTICS=1's lines (nccl_diag.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_diag.h"

/* The integer after "@key" in @s, or -1. */
static int ifield(const char *s, const char *key)
{
	const char *p = strstr(s, key);
	char *end;
	long v;

	if (!p)
		return -1;
	v = strtol(p + strlen(key), &end, 10);
	return end == p + strlen(key) ? -1 : (int)v;
}

/* The word after "@key" in @s into @buf ("" when absent). */
static void sfield(const char *s, const char *key, char *buf, size_t len)
{
	const char *p = strstr(s, key);

	buf[0] = '\0';
	if (p) {
		p += strlen(key);
		snprintf(buf, len, "%.*s", (int)strcspn(p, " ;\r\n"), p);
	}
}

static void summary(struct nccl_diag *d, const char *m)
{
	unsigned long long a, b;

	if (sscanf(m, "p2p: all %llu directed GPU P2P edges verified", &a) == 1 ||
	    sscanf(m, "p2p: verified P2P access in both directions between every GPU pair (%llu peer accesses)", &a) == 1) {
		d->has_summary = true;
		d->passed = a;
		d->tested = a;
	} else if (sscanf(m, "p2p: %llu/%llu directed GPU P2P edges verified", &a, &b) == 2 ||
		   sscanf(m, "p2p: only %llu/%llu GPU-to-GPU peer accesses passed verification", &a, &b) == 2) {
		d->has_summary = true;
		d->passed = a;
		d->tested = b;
	}
}

static void failure(struct nccl_diag *d, const char *host, const char *m)
{
	const char *src = strstr(m, " srcRank=");
	struct nccl_diag_fail *f;
	size_t n;

	if (strncmp(m, "p2p: ", 5) || !src || d->nfails == NCCL_DIAG_MAX_FAILS)
		return;
	f = &d->fails[d->nfails];
	memset(f, 0, sizeof(*f));
	n = src - (m + 5);
	snprintf(f->check, sizeof(f->check), "%.*s", (int)n, m + 5);
	f->src_rank = ifield(src, "srcRank=");
	f->dst_rank = ifield(src, "dstRank=");
	f->src_nvml = ifield(src, "srcNvmlDev=");
	f->dst_nvml = ifield(src, "dstNvmlDev=");
	if (f->src_rank < 0 || f->dst_rank < 0)
		return;
	sfield(src, " path=", f->path, sizeof(f->path));
	sfield(src, " handle=", f->handle, sizeof(f->handle));
	sfield(src, " reason=", f->reason, sizeof(f->reason));
	snprintf(f->host, sizeof(f->host), "%s", host);
	d->nfails++;
}

void nccl_diag_line(struct nccl_diag *d, const char *line)
{
	const char *m = strstr(line, " NCCL DIAG "), *colon;
	char host[64];

	if (!m)
		return;
	/* "HOST:PID NCCL DIAG ...", perhaps after other output's text. */
	colon = strchr(line, ':');
	snprintf(host, sizeof(host), "%.*s",
		 colon && colon < m ? (int)(colon - line) : 0, line);
	d->ran = true;
	m += 11;
	if (!strncmp(m, "[OK] ", 5) || !strncmp(m, "[INFO] ", 7)) {
		m = strchr(m, ']') + 1;
		m += strspn(m, " ");
		summary(d, m);
		failure(d, host, m);
	} else if (!strncmp(m, "NCCL diagnostics completed", 26)) {
		d->completed = true;
	}
}
