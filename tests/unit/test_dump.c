// SPDX-License-Identifier: GPL-2.0
/*
 * Dumps interrupted by a change (NLM_F_DUMP_INTR) are retried and never
 * returned half; commands that read both links and devices get them from
 * one generation (snapshot_read).  The CLI's netlink code (user/netlink/nl.c,
 * link.c, dev.c, snapshot.c) runs against a scripted kernel: libnl's send
 * and receive are overridden on the socket, so every request, its sequence
 * number and the replies are under the test's control.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include <linux/p2pmap.h>

#include "dev.h"
#include "link.h"
#include "nl.h"
#include "snapshot.h"
#include "tap.h"

#define FAMILY	0x42

/* The replies queued for the next receive. */
static char *pending;
static size_t pending_len;

/* What the scripted kernel saw. */
static int nreq;
static uint8_t req_cmd[64];

/* The script: fills the replies to request number @n (0-based). */
static void (*script)(int n, uint8_t cmd, uint32_t seq);

static void queue(struct nl_msg *msg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	size_t len = NLMSG_ALIGN(h->nlmsg_len);

	pending = realloc(pending, pending_len + len);
	memset(pending + pending_len, 0, len);
	memcpy(pending + pending_len, h, h->nlmsg_len);
	pending_len += len;
	nlmsg_free(msg);
}

static struct nl_msg *genl(uint32_t seq, int flags, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 1, seq, FAMILY, 0, flags, cmd, P2PMAP_GENL_VERSION);
	return msg;
}

/* A link message of a dump: "0000:00:1N.0 -> 0000:00:1M.0". */
static void q_link(uint32_t seq, int intr, int i, int t)
{
	struct nl_msg *msg = genl(seq, NLM_F_MULTI |
				  (intr ? NLM_F_DUMP_INTR : 0),
				  P2PMAP_CMD_LINK_GET);
	char a[P2PMAP_ADDR_LEN], b[P2PMAP_ADDR_LEN];

	snprintf(a, sizeof(a), "0000:00:1%d.0", i);
	snprintf(b, sizeof(b), "0000:00:1%d.0", t);
	nla_put_string(msg, P2PMAP_A_LINK_INITIATOR, a);
	nla_put_string(msg, P2PMAP_A_LINK_TARGET, b);
	nla_put_u32(msg, P2PMAP_A_LINK_STATE, P2PMAP_LINK_MAPPED);
	queue(msg);
}

static void q_dev(uint32_t seq, int intr, int i)
{
	struct nl_msg *msg = genl(seq, NLM_F_MULTI |
				  (intr ? NLM_F_DUMP_INTR : 0),
				  P2PMAP_CMD_DEV_GET);
	char a[P2PMAP_ADDR_LEN];

	snprintf(a, sizeof(a), "0000:00:1%d.0", i);
	nla_put_string(msg, P2PMAP_A_DEV_ADDR, a);
	queue(msg);
}

static void q_done(uint32_t seq, int intr)
{
	struct nl_msg *msg = nlmsg_alloc();
	int *err;

	nlmsg_put(msg, 1, seq, NLMSG_DONE, sizeof(int),
		  NLM_F_MULTI | (intr ? NLM_F_DUMP_INTR : 0));
	err = nlmsg_data(nlmsg_hdr(msg));
	*err = 0;
	queue(msg);
}

/* INFO_GET's reply and ACK. */
static void q_info(uint32_t seq, uint32_t generation)
{
	struct nl_msg *msg = genl(seq, 0, P2PMAP_CMD_INFO_GET);
	struct nlmsgerr *e;

	nla_put_u32(msg, P2PMAP_A_INFO_GENERATION, generation);
	queue(msg);
	msg = nlmsg_alloc();
	nlmsg_put(msg, 1, seq, NLMSG_ERROR, sizeof(*e), NLM_F_CAPPED);
	e = nlmsg_data(nlmsg_hdr(msg));
	memset(e, 0, sizeof(*e));
	queue(msg);
}

static int fake_send(struct nl_sock *sk, struct nl_msg *msg)
{
	struct nlmsghdr *h = nlmsg_hdr(msg);
	struct genlmsghdr *g = nlmsg_data(h);

	(void)sk;
	if (nreq < (int)sizeof(req_cmd))
		req_cmd[nreq] = g->cmd;
	script(nreq++, g->cmd, h->nlmsg_seq);
	return h->nlmsg_len;
}

static int fake_recv(struct nl_sock *sk, struct sockaddr_nl *nla,
		     unsigned char **buf, struct ucred **creds)
{
	int len = pending_len;

	(void)sk;
	(void)creds;
	memset(nla, 0, sizeof(*nla));
	nla->nl_family = AF_NETLINK;
	*buf = (unsigned char *)pending;
	pending = NULL;
	pending_len = 0;
	return len;
}

static void fake_open(struct p2pmap_nl *nl, void (*s)(int, uint8_t, uint32_t))
{
	struct nl_cb *cb;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	nl->family = FAMILY;
	cb = nl_socket_get_cb(nl->sk);
	nl_cb_overwrite_send(cb, fake_send);
	nl_cb_overwrite_recv(cb, fake_recv);
	nl_cb_put(cb);
	script = s;
	nreq = 0;
}

/* "1>2 1>3 2>1": the links of a list, for messages. */
static const char *links_str(const struct p2pmap_link_list *l)
{
	static char buf[256];
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; i < l->n && len < sizeof(buf) - 16; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%c>%c",
				i ? " " : "", l->links[i].initiator[9],
				l->links[i].target[9]);
	return buf;
}

/* ---- scripts ---------------------------------------------------------- */

/* Three links, nothing changes. */
static void s_plain(int n, uint8_t cmd, uint32_t seq)
{
	(void)n;
	(void)cmd;
	q_link(seq, 0, 0, 1);
	q_link(seq, 0, 0, 2);
	q_link(seq, 0, 1, 0);
	q_done(seq, 0);
}

/*
 * Attempt 1: the kernel's second part (from link 2 on) saw a change: link
 * 0>2 was deleted meanwhile, so 1>0 moved up and the part resumes after
 * it, at 2>0 (the half dump: 1>0 is missing).  Attempt 2 is whole.
 */
static void s_intr_mid(int n, uint8_t cmd, uint32_t seq)
{
	(void)cmd;
	if (n == 0) {
		q_link(seq, 0, 0, 1);
		q_link(seq, 0, 0, 2);
		q_link(seq, 1, 2, 0);
		q_done(seq, 1);
	} else {
		q_link(seq, 0, 0, 1);
		q_link(seq, 0, 1, 0);
		q_link(seq, 0, 2, 0);
		q_done(seq, 0);
	}
}

/* The change came after the last part: only NLMSG_DONE carries the flag. */
static void s_intr_done(int n, uint8_t cmd, uint32_t seq)
{
	(void)cmd;
	q_link(seq, 0, 0, 1);
	if (n == 0) {
		q_link(seq, 0, 0, 2);
		q_done(seq, 1);
	} else {
		q_done(seq, 0);
	}
}

/* Every attempt interrupted. */
static void s_intr_always(int n, uint8_t cmd, uint32_t seq)
{
	(void)n;
	(void)cmd;
	q_link(seq, 0, 0, 1);
	q_link(seq, 1, 0, 2);
	q_done(seq, 1);
}

/* Devices: attempt 1 interrupted after two, attempt 2 has three. */
static void s_dev_intr(int n, uint8_t cmd, uint32_t seq)
{
	(void)cmd;
	q_dev(seq, 0, 0);
	q_dev(seq, 0, 1);
	if (n == 0) {
		q_dev(seq, 1, 3);
		q_done(seq, 1);
	} else {
		q_dev(seq, 0, 2);
		q_dev(seq, 0, 3);
		q_done(seq, 0);
	}
}

/*
 * snapshot_read: INFO (gen 7), links, devices, INFO (gen 8: something
 * changed between the dumps, which are each consistent), then INFO 8,
 * links, devices, INFO 8.
 */
static void s_snapshot(int n, uint8_t cmd, uint32_t seq)
{
	static const uint32_t gens[] = { 7, 0, 0, 8, 8, 0, 0, 8 };

	if (cmd == P2PMAP_CMD_INFO_GET) {
		q_info(seq, n < 8 ? gens[n] : 8);
	} else if (cmd == P2PMAP_CMD_LINK_GET) {
		q_link(seq, 0, 0, 1);
		if (n < 4)
			q_link(seq, 0, 0, 3);	/* 3 goes away */
		q_done(seq, 0);
	} else {
		q_dev(seq, 0, 0);
		q_dev(seq, 0, 1);
		q_done(seq, 0);
	}
}

/* The generation moves at every read. */
static void s_snapshot_busy(int n, uint8_t cmd, uint32_t seq)
{
	if (cmd == P2PMAP_CMD_INFO_GET) {
		q_info(seq, 100 + n);
	} else {
		q_dev(seq, 0, 0);
		q_done(seq, 0);
	}
}

/* Replies a parser cannot take: the second one. */
static int parse_calls;

static int parse_second_fails(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(void)arg;
	return ++parse_calls == 2 ? NL_STOP : NL_OK;
}

/* ---- tests ------------------------------------------------------------ */

static void test_link_dumps(void)
{
	struct p2pmap_link_list l = { 0 };
	struct p2pmap_nl nl;
	int err;

	fake_open(&nl, s_plain);
	err = link_dump(&nl, &l);
	tap_ok(!err && nreq == 1 && !strcmp(links_str(&l), "0>1 0>2 1>0"),
	       "uninterrupted dump: one request, every link (%s)",
	       links_str(&l));
	pnl_close(&nl);

	fake_open(&nl, s_intr_mid);
	err = link_dump(&nl, &l);
	tap_ok(!err && nreq == 2 && !strcmp(links_str(&l), "0>1 1>0 2>0"),
	       "DUMP_INTR in the middle: retried, only the whole second dump kept (%s, %d requests)",
	       links_str(&l), nreq);
	pnl_close(&nl);

	fake_open(&nl, s_intr_done);
	err = link_dump(&nl, &l);
	tap_ok(!err && nreq == 2 && !strcmp(links_str(&l), "0>1"),
	       "DUMP_INTR on NLMSG_DONE only: retried (%s, %d requests)",
	       links_str(&l), nreq);
	pnl_close(&nl);

	fake_open(&nl, s_intr_always);
	err = link_dump(&nl, &l);
	tap_ok(err == -EAGAIN && nreq == 5 &&
	       strstr(nl.error.msg, "interrupted") != NULL,
	       "always interrupted: gives up after 5 tries with a clear error (err %d, \"%s\")",
	       err, nl.error.msg);
	pnl_close(&nl);
	link_list_free(&l);
}

static void test_dev_dump(void)
{
	struct p2pmap_dev_list d = { 0 };
	struct p2pmap_nl nl;
	int err;

	fake_open(&nl, s_dev_intr);
	err = dev_dump(&nl, &d);
	tap_ok(!err && nreq == 2 && d.n == 4 &&
	       !strcmp(d.devs[2].addr, "0000:00:12.0") &&
	       !strcmp(d.devs[3].addr, "0000:00:13.0"),
	       "device dump interrupted: retried, the list is the second dump's (%zu devices)",
	       d.n);
	pnl_close(&nl);
	dev_list_free(&d);
}

static void test_parse_failure(void)
{
	struct p2pmap_nl nl;
	int err;

	fake_open(&nl, s_plain);
	parse_calls = 0;
	err = pnl_dump(&nl, P2PMAP_CMD_LINK_GET, NULL, NULL,
		       parse_second_fails, NULL, NULL);
	tap_ok(err == -ENOMEM && parse_calls == 2 && nreq == 1,
	       "a reply the parser cannot take fails the dump, not a shorter list (err %d, %d parsed)",
	       err, parse_calls);
	/* The rest of that dump was drained: the next request is clean. */
	err = pnl_dump(&nl, P2PMAP_CMD_LINK_GET, NULL, NULL, NULL, NULL, NULL);
	tap_ok(err == 0 && nreq == 2, "... and the next request works (err %d)",
	       err);
	pnl_close(&nl);
}

static void test_snapshot(void)
{
	struct p2pmap_link_list l = { 0 };
	struct p2pmap_dev_list d = { 0 };
	struct p2pmap_nl nl;
	const char *op;
	int err, i;
	bool order = true;

	fake_open(&nl, s_snapshot);
	err = snapshot_read(&nl, &l, &d, &op);
	for (i = 0; i < 8; i++)
		order &= req_cmd[i] == (i % 4 == 0 || i % 4 == 3 ?
					P2PMAP_CMD_INFO_GET :
					i % 4 == 1 ? P2PMAP_CMD_LINK_GET :
					P2PMAP_CMD_DEV_GET);
	tap_ok(!err && nreq == 8 && order && !strcmp(links_str(&l), "0>1") &&
	       d.n == 2,
	       "links and devices from two generations: read again, the second pair kept (%s, %d requests)",
	       links_str(&l), nreq);
	pnl_close(&nl);

	fake_open(&nl, s_snapshot_busy);
	err = snapshot_read(&nl, NULL, &d, &op);
	tap_ok(err == -EAGAIN && nreq == 3 * SNAPSHOT_TRIES &&
	       !strcmp(op, "snapshot") && strstr(nl.error.msg, "kept changing"),
	       "state changing at every read: gives up after %d attempts with a clear error (\"%s: %s\")",
	       SNAPSHOT_TRIES, op, nl.error.msg);
	pnl_close(&nl);
	link_list_free(&l);
	dev_list_free(&d);
}

int main(void)
{
	test_link_dumps();
	test_dev_dump();
	test_parse_failure();
	test_snapshot();
	free(pending);
	return tap_done();
}
