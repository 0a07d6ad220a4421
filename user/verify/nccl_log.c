// SPDX-License-Identifier: GPL-2.0
/* NCCL_DEBUG=INFO logs: ranks, channels and transports (nccl_log.h). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_log.h"

void nccl_busid_pci(unsigned long id, char out[P2PMAP_ADDR_LEN])
{
	snprintf(out, P2PMAP_ADDR_LEN, "%04x:%02x:%02x.%01x",
		 (unsigned int)((id >> 20) & 0xffffffff),
		 (unsigned int)((id & 0xff000) >> 12),
		 (unsigned int)((id & 0xff0) >> 4), (unsigned int)(id & 0xf));
}

const char *nccl_class_name(enum nccl_class c)
{
	switch (c) {
	case NCCL_P2P:
		return "P2P";
	case NCCL_SHM:
		return "SHM";
	case NCCL_NET:
		return "NET";
	case NCCL_OTHER:
		break;
	}
	return "other";
}

/* The number after "@key " in @s, or -1. */
static long field(const char *s, const char *key, int base)
{
	const char *p = strstr(s, key);
	char *end;
	long v;

	if (!p)
		return -1;
	p += strlen(key);
	v = strtol(p, &end, base);
	return end == p ? -1 : v;
}

/* The prefix's host: "[TIME] HOST:PID:TID [DEV] NCCL INFO ". */
static void line_host(const char *line, char host[NCCL_HOST_LEN])
{
	const char *p = line, *colon;

	if (*p == '[') {
		p = strchr(p, ']');
		p = p ? p + 1 : line;
		while (*p == ' ')
			p++;
	}
	colon = strchr(p, ':');
	snprintf(host, NCCL_HOST_LEN, "%.*s", colon ? (int)(colon - p) : 0, p);
}

/* "... rank R nranks N cudaDev C [nvmlDev V ]busId B ... Init COMPLETE" */
static void init_line(struct nccl_log *log, const char *host, const char *msg)
{
	long rank = field(msg, " rank ", 10);
	long nranks = field(msg, " nranks ", 10);
	long nvml = field(msg, " nvmlDev ", 10);
	long busid = field(msg, " busId ", 16);
	const char *c = strstr(msg, " commId 0x");
	unsigned long long id = c ? strtoull(c + 10, NULL, 16) : 0;
	struct nccl_rank *r;
	size_t i;

	if (!strstr(msg, "Init COMPLETE") || busid < 0 || rank < 0 ||
	    log->nranks_known == NCCL_MAX_RANKS)
		return;
	for (i = 0; i < log->nranks_known; i++)
		if (log->ranks[i].comm_id == id)
			break;
	if (i == log->nranks_known)
		log->comms++;
	if (nranks > (long)log->nranks)
		log->nranks = nranks;
	r = &log->ranks[log->nranks_known++];
	r->rank = rank;
	r->nvml = nvml;
	r->comm_id = id;
	snprintf(r->host, sizeof(r->host), "%s", host);
	nccl_busid_pci(busid, r->pci);
}

static enum nccl_class classify(const char *via)
{
	if (!strncmp(via, "P2P/", 4))
		return NCCL_P2P;
	if (!strncmp(via, "SHM/", 4))
		return NCCL_SHM;
	if (!strncmp(via, "NET/", 4))
		return NCCL_NET;
	return NCCL_OTHER;
}

/*
 * A rank of a channel line, with its bracket: nvmlDev (2.18.3+) or busId
 * in hex (older).  The Init COMPLETE line of that rank with that nvmlDev
 * names its GPU and host (the line's own host first: ranks of several
 * hosts can share an nvmlDev); else a bracket that reads as a busId.
 */
static void resolve(const struct nccl_log *log, long rank, const char *s,
		    size_t n, const char *host, char pci[P2PMAP_ADDR_LEN],
		    const char **rank_host)
{
	const struct nccl_rank *best = NULL, *r;
	char buf[32], bp[P2PMAP_ADDR_LEN], *end;
	unsigned long v;
	long nvml = -1;
	size_t i;

	pci[0] = '\0';
	*rank_host = NULL;
	if (!n || n >= sizeof(buf))
		return;
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtoul(buf, &end, 10);
	if (!*end)
		nvml = v;
	for (i = 0; i < log->nranks_known; i++) {
		r = &log->ranks[i];
		if (r->rank != rank || (r->nvml >= 0 && r->nvml != nvml))
			continue;
		if (r->nvml < 0) {
			/* Old logs: the bracket is the busId. */
			v = strtoul(buf, &end, 16);
			if (*end)
				continue;
			nccl_busid_pci(v, bp);
			if (strcmp(bp, r->pci))
				continue;
		}
		if (!best || !strcmp(r->host, host))
			best = r;
	}
	if (best) {
		memcpy(pci, best->pci, P2PMAP_ADDR_LEN);
		*rank_host = best->host;
		return;
	}
	v = strtoul(buf, &end, 16);
	if (!*end && v >= 0x100)	/* bus 1 and up: a busId */
		nccl_busid_pci(v, pci);
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via P2P/CUMEM/read" */
static void channel_line(struct nccl_log *log, const char *host,
			 const char *msg)
{
	const char *p = strstr(msg, " : "), *via, *lb1, *rb1, *lb2, *rb2;
	char from_pci[P2PMAP_ADDR_LEN], to_pci[P2PMAP_ADDR_LEN];
	const char *from_host, *to_host;
	char transport[NCCL_TRANSPORT_LEN];
	struct nccl_pair *pair;
	long from, to;
	size_t i, k;

	via = strstr(msg, " via ");
	if (!p || !via)
		return;
	p += 3;
	from = strtol(p, NULL, 10);
	lb1 = strchr(p, '[');
	rb1 = lb1 ? strchr(lb1, ']') : NULL;
	p = rb1 ? strstr(rb1, " -> ") : NULL;
	if (!p)
		return;
	to = strtol(p + 4, NULL, 10);
	lb2 = strchr(p + 4, '[');
	rb2 = lb2 ? strchr(lb2, ']') : NULL;
	if (!rb2 || rb2 > via || from < 0 || to < 0)
		return;
	snprintf(transport, sizeof(transport), "%s", via + 5);
	transport[strcspn(transport, " \r\n")] = '\0';
	resolve(log, from, lb1 + 1, rb1 - lb1 - 1, host, from_pci, &from_host);
	resolve(log, to, lb2 + 1, rb2 - lb2 - 1, host, to_pci, &to_host);
	for (i = 0; i < log->npairs; i++) {
		pair = &log->pairs[i];
		if (pair->from_rank == from && pair->to_rank == to &&
		    !strcmp(pair->from_pci, from_pci) &&
		    !strcmp(pair->to_pci, to_pci))
			break;
	}
	if (i == log->npairs) {
		if (log->npairs == NCCL_MAX_PAIRS)
			return;
		pair = &log->pairs[log->npairs++];
		memset(pair, 0, sizeof(*pair));
		pair->from_rank = from;
		pair->to_rank = to;
		memcpy(pair->from_pci, from_pci, sizeof(from_pci));
		memcpy(pair->to_pci, to_pci, sizeof(to_pci));
		pair->same_host = from_host && to_host &&
				  !strcmp(from_host, to_host);
	}
	pair->channels++;
	pair->classes |= 1u << classify(transport);
	for (k = 0; k < pair->ntransports; k++)
		if (!strcmp(pair->transport[k], transport))
			return;
	if (pair->ntransports < NCCL_MAX_TRANSPORTS)
		memcpy(pair->transport[pair->ntransports++], transport,
		       sizeof(transport));
}

static void env_line(struct nccl_log *log, const char *msg)
{
	const char *p;
	long a, b;

	if (!strncmp(msg, "NCCL version ", 13)) {
		snprintf(log->version, sizeof(log->version), "%s", msg + 13);
		log->version[strcspn(log->version, "+ \r\n")] = '\0';
	} else if (!strncmp(msg, "NCCL_P2P_DISABLE set by environment to ", 39)) {
		log->p2p_disable = atoi(msg + 39) != 0;
	} else if (!strncmp(msg, "NCCL_P2P_LEVEL set by environment to ", 37)) {
		snprintf(log->p2p_level, sizeof(log->p2p_level), "%s", msg + 37);
		log->p2p_level[strcspn(log->p2p_level, " \r\n")] = '\0';
	} else if ((p = strstr(msg, "P2P is disabled between connected GPUs "))) {
		if (sscanf(p + 39, "%ld and %ld", &a, &b) == 2)
			log->nvml_p2p_disabled = true;
	}
}

/* The GPU of @rank (@nvml, -1: any) as its Init COMPLETE line says. */
static void rank_pci(const struct nccl_log *log, int rank, int nvml,
		    const char *host, char pci[P2PMAP_ADDR_LEN])
{
	const struct nccl_rank *best = NULL, *r;
	size_t i, hl = strcspn(host, ".");

	pci[0] = '\0';
	for (i = 0; i < log->nranks_known; i++) {
		r = &log->ranks[i];
		if (r->rank != rank || (nvml >= 0 && r->nvml >= 0 &&
					r->nvml != nvml))
			continue;
		/* The INFO prefix's host is cut at the first dot. */
		if (!best || (strlen(r->host) == hl &&
			      !strncmp(r->host, host, hl)))
			best = r;
	}
	if (best)
		memcpy(pci, best->pci, P2PMAP_ADDR_LEN);
}

struct pending {
	char host[NCCL_HOST_LEN];
	char *msg;
};

int nccl_log_read(FILE *f, struct nccl_log *log)
{
	char *line = NULL, *msg, host[NCCL_HOST_LEN];
	struct pending *chans = NULL, *c;
	size_t cap = 0, nchans = 0, i;
	ssize_t n;

	memset(log, 0, sizeof(*log));
	log->p2p_disable = -1;
	while ((n = getline(&line, &cap, f)) >= 0) {
		nccl_diag_line(&log->diag, line);
		msg = strstr(line, " NCCL INFO ");
		if (!msg)
			continue;
		line_host(line, host);
		msg += 11;
		msg[strcspn(msg, "\r\n")] = '\0';
		log->lines++;
		if (strstr(msg, "Init COMPLETE")) {
			init_line(log, host, msg);
		} else if (!strncmp(msg, "Channel ", 8) && strstr(msg, " via ")) {
			/* Kept: a rank's GPU is known only once its Init
			 * COMPLETE line was read, which comes later. */
			c = realloc(chans, (nchans + 1) * sizeof(*c));
			if (!c)
				break;
			chans = c;
			c[nchans].msg = strdup(msg);
			if (!c[nchans].msg)
				break;
			memcpy(c[nchans].host, host, sizeof(host));
			nchans++;
		} else {
			env_line(log, msg);
		}
	}
	for (i = 0; i < nchans; i++) {
		channel_line(log, chans[i].host, chans[i].msg);
		free(chans[i].msg);
	}
	free(chans);
	free(line);
	for (i = 0; i < log->diag.nfails; i++) {
		struct nccl_diag_fail *d = &log->diag.fails[i];

		rank_pci(log, d->src_rank, d->src_nvml, d->host, d->src_pci);
		rank_pci(log, d->dst_rank, d->dst_nvml, d->host, d->dst_pci);
	}
	return ferror(f) ? -1 : 0;
}
