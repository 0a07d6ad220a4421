// SPDX-License-Identifier: GPL-2.0
/*
 * The socket side: resolve the family, send a datagram, read every answer
 * to it.  After each datagram a NLMSG_NOOP with NLM_F_ACK (a "sentinel",
 * its seq with the top bit set, which generated messages never use) is
 * sent on its own: the kernel handles a socket's messages in order, so
 * once the sentinel's ack is read every answer to the datagram has been
 * (a dump still open then is read to its NLMSG_DONE).  A request that
 * succeeds silently (no NLM_F_ACK) therefore costs no timeout.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "fuzz.h"

#define SENTINEL_BIT	0x80000000u

static unsigned char rbuf[1 << 20];

static int one_sockopt(int fd, int opt, int val)
{
	return setsockopt(fd, SOL_NETLINK, opt, &val, sizeof(val));
}

int fz_open(struct fz_ctx *c)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_usec = 200 * 1000 };
	int big = 4 << 20;

	c->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (c->fd < 0)
		return -errno;
	if (bind(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	one_sockopt(c->fd, NETLINK_EXT_ACK, 1);
	return 0;
}

/* NETLINK_CAP_ACK and NETLINK_GET_STRICT_CHK, switched as the run goes. */
void fz_set_sockopts(struct fz_ctx *c, bool cap_ack, bool strict)
{
	if (c->dry_run)
		return;
	one_sockopt(c->fd, NETLINK_CAP_ACK, cap_ack);
	one_sockopt(c->fd, NETLINK_GET_STRICT_CHK, strict);
}

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * recv() with a deadline: bytes, 0 on timeout, -errno.  The socket's
 * SO_RCVTIMEO bounds each wait, so a silent kernel costs one timeout.
 */
static long recv_until(int fd, long deadline, int *flags)
{
	struct iovec iov = { rbuf, sizeof(rbuf) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	long n;

	for (;;) {
		n = recvmsg(fd, &mh, 0);
		if (n >= 0) {
			*flags = mh.msg_flags;
			return n;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if (now_ms() >= deadline)
			return 0;
	}
}

static int send_raw(struct fz_ctx *c, const void *p, size_t len)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (sendto(c->fd, p, len, 0, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return 0;
}

static struct fz_sub *sub_of(struct fz_dgram *d, uint32_t seq)
{
	int i;

	for (i = 0; i < d->n_sub; i++)
		if (d->sub[i].seq == seq)
			return &d->sub[i];
	return d->n_sub ? &d->sub[0] : NULL;
}

/*
 * One received datagram: every message in it checked (check.c), and
 * matched to the sub-message it answers.  Returns 1 once the sentinel's
 * ack was in it.
 */
static int take(struct fz_ctx *c, struct fz_dgram *d, const unsigned char *p,
		size_t len, uint32_t sentinel)
{
	const struct nlmsghdr *h;
	int seen = 0;

	for (h = (const void *)p; NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
		const struct nlmsgerr *e = NLMSG_DATA(h);
		struct fz_sub *s;

		c->want_cap_msg = false;
		fz_check_msg(c, (const void *)h, h->nlmsg_len);
		if (h->nlmsg_type == NLMSG_ERROR &&
		    h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e)) &&
		    h->nlmsg_seq == sentinel &&
		    e->msg.nlmsg_type == NLMSG_NOOP) {
			if (e->error)
				fz_violation(c, "the sentinel got error %d",
					     e->error);
			seen = 1;
			continue;
		}
		s = sub_of(d, h->nlmsg_seq);
		if (!s)
			continue;
		if (h->nlmsg_type == NLMSG_ERROR &&
		    h->nlmsg_len >= NLMSG_LENGTH(sizeof(*e))) {
			if (!s->got_err) {
				s->got_err = true;
				s->err = -e->error;
				s->err_msg = c->want_cap_msg;
			}
			s->dump_open = false;
		} else if (h->nlmsg_type == NLMSG_DONE) {
			s->dump_open = false;
			s->dump_done = true;
			c->dumps++;
		} else {
			s->got_reply = true;
			c->replies++;
			if (h->nlmsg_flags & NLM_F_MULTI && !s->dump_done)
				s->dump_open = true;
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				c->dump_intr++;
		}
	}
	if (len)
		fz_violation(c, "%zu bytes at the end of a received datagram",
			     len);
	return seen;
}

static bool dump_open(const struct fz_dgram *d)
{
	int i;

	for (i = 0; i < d->n_sub; i++)
		if (d->sub[i].dump_open)
			return true;
	return false;
}

/*
 * @d then the sentinel, in one sendmmsg() when the kernel takes @d.  Zero
 * bytes (ENODATA) and more than the socket buffer (EMSGSIZE) are refused
 * by sendmsg() itself, as they should be.
 */
static int send_both(struct fz_ctx *c, struct fz_dgram *d,
		     struct nlmsghdr *noop)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	struct iovec iov[2] = {
		{ d->buf, d->len }, { noop, noop->nlmsg_len },
	};
	struct mmsghdr mm[2] = {
		{ .msg_hdr = { .msg_name = &sa, .msg_namelen = sizeof(sa),
			       .msg_iov = &iov[0], .msg_iovlen = 1 } },
		{ .msg_hdr = { .msg_name = &sa, .msg_namelen = sizeof(sa),
			       .msg_iov = &iov[1], .msg_iovlen = 1 } },
	};
	int n = sendmmsg(c->fd, mm, 2, 0), err = errno;

	if (n == 2)
		return 0;
	if (n == 1)
		return send_raw(c, noop, noop->nlmsg_len);
	if (!(err == ENODATA && !d->len) && err != EMSGSIZE && err != ENOBUFS)
		fz_violation(c, "sendmsg of %zu bytes: %s", d->len,
			     strerror(err));
	return send_raw(c, noop, noop->nlmsg_len);
}

/* Send @d and the sentinel, read until both are answered. */
int fz_exchange(struct fz_ctx *c, struct fz_dgram *d)
{
	static uint32_t sentinel_n;
	struct nlmsghdr noop = {
		.nlmsg_len = NLMSG_HDRLEN, .nlmsg_type = NLMSG_NOOP,
		.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK,
	};
	long deadline, n;
	int err, flags, seen = 0;

	noop.nlmsg_seq = SENTINEL_BIT | (++sentinel_n & ~SENTINEL_BIT);
	err = send_both(c, d, &noop);
	if (err) {
		fz_violation(c, "sentinel sendto: %s", strerror(-err));
		return err;
	}
	deadline = now_ms() + c->timeout_ms;
	while (!seen || dump_open(d)) {
		n = recv_until(c->fd, deadline, &flags);
		if (n == 0) {
			c->timeouts++;
			fz_violation(c, "no answer within %d ms (message %lu)",
				     c->timeout_ms, c->index);
			return -ETIMEDOUT;
		}
		if (n < 0) {
			if (n == -ENOBUFS) {	/* overrun: lost answers */
				fz_violation(c, "receive queue overrun");
				continue;
			}
			fz_violation(c, "recvmsg: %s", strerror(-n));
			return n;
		}
		if (flags & MSG_TRUNC)
			fz_violation(c, "a reply larger than %zu bytes",
				     sizeof(rbuf));
		seen |= take(c, d, rbuf, n, noop.nlmsg_seq);
	}
	return 0;
}

/* ---- the controller ------------------------------------------------- */

static int ctrl_request(struct fz_ctx *c, int cmd, uint16_t flags,
			const char *name)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		unsigned char attrs[64];
	} req = {
		.h = { .nlmsg_type = GENL_ID_CTRL, .nlmsg_seq = 1,
		       .nlmsg_flags = NLM_F_REQUEST | flags },
		.g = { .cmd = cmd, .version = 2 },
	};
	struct nlattr *na = (struct nlattr *)req.attrs;
	size_t len = NLMSG_LENGTH(GENL_HDRLEN);

	if (name) {
		na->nla_type = CTRL_ATTR_FAMILY_NAME;
		na->nla_len = NLA_HDRLEN + strlen(name) + 1;
		strcpy((char *)(na + 1), name);
		len += NLA_ALIGN(na->nla_len);
	}
	req.h.nlmsg_len = len;
	return send_raw(c, &req, len);
}

/* Walk the family attributes of one CTRL_CMD_NEWFAMILY message. */
static void ctrl_family(struct fz_ctx *c, const struct nlmsghdr *h,
			bool ours, int *id)
{
	const struct nlattr *na = (const void *)((const char *)NLMSG_DATA(h) +
						 GENL_HDRLEN);
	int len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	for (; len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
	       na->nla_len <= len;
	     len -= NLA_ALIGN(na->nla_len),
	     na = (const void *)((const char *)na + NLA_ALIGN(na->nla_len))) {
		if (na->nla_type == CTRL_ATTR_FAMILY_ID)
			*id = *(const uint16_t *)(na + 1);
		if (ours && na->nla_type == CTRL_ATTR_MAXATTR)
			c->kernel_maxattr = *(const uint32_t *)(na + 1);
	}
}

/* Read a ctrl answer; @fn per family message.  Returns the error or 0. */
static int ctrl_read(struct fz_ctx *c, bool dump, int *ids, int *n_ids)
{
	long deadline = now_ms() + 2000, n;
	const struct nlmsghdr *h;
	int flags, id;

	for (;;) {
		size_t len;

		n = recv_until(c->fd, deadline, &flags);
		if (n <= 0)
			return n ? n : -ETIMEDOUT;
		len = n;
		for (h = (const void *)rbuf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((const struct nlmsgerr *)
					NLMSG_DATA(h))->error;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			id = -1;
			ctrl_family(c, h, !dump, &id);
			if (!dump) {
				c->family = id;
				return 0;
			}
			if (id >= 0 && *n_ids < 512)
				ids[(*n_ids)++] = id;
		}
	}
}

/*
 * The family's id, and a few ids no family has (a dump of every family:
 * generated "foreign" messages must never reach a real family).
 */
int fz_resolve(struct fz_ctx *c)
{
	int ids[512], n_ids = 0, err, id, i;

	err = ctrl_request(c, CTRL_CMD_GETFAMILY, 0, fz_family_name);
	if (!err)
		err = ctrl_read(c, false, NULL, NULL);
	if (err)
		return err;
	err = ctrl_request(c, CTRL_CMD_GETFAMILY, NLM_F_DUMP, NULL);
	if (!err)
		err = ctrl_read(c, true, ids, &n_ids);
	if (err)
		return err;
	for (id = 0x7f00; id < 0xffff && c->n_foreign < FZ_MAX_IDS; id += 97) {
		for (i = 0; i < n_ids && ids[i] != id; i++)
			;
		if (i == n_ids)
			c->foreign[c->n_foreign++] = id;
	}
	return 0;
}

/* Join the spec's multicast groups on a second socket (needs privilege). */
int fz_join_events(struct fz_ctx *c)
{
	struct {
		struct nlmsghdr h;
		struct genlmsghdr g;
		unsigned char attrs[64];
	} req = {
		.h = { .nlmsg_type = GENL_ID_CTRL, .nlmsg_seq = 2,
		       .nlmsg_flags = NLM_F_REQUEST },
		.g = { .cmd = CTRL_CMD_GETFAMILY, .version = 2 },
	};
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const struct nlattr *na, *g, *ga;
	const struct nlmsghdr *h;
	int big = 4 << 20, len, glen, galen, grp = -1, err;
	long n;

	if (!fz_n_mcgrps)
		return -ENOENT;
	na = (struct nlattr *)req.attrs;
	((struct nlattr *)na)->nla_type = CTRL_ATTR_FAMILY_NAME;
	((struct nlattr *)na)->nla_len = NLA_HDRLEN + strlen(fz_family_name) + 1;
	strcpy((char *)(na + 1), fz_family_name);
	req.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(na->nla_len);
	err = send_raw(c, &req, req.h.nlmsg_len);
	if (err)
		return err;
	n = recv_until(c->fd, now_ms() + 2000, &len);
	if (n <= 0)
		return n ? n : -ETIMEDOUT;
	h = (const void *)rbuf;
	if (h->nlmsg_type != GENL_ID_CTRL)
		return -EPROTO;
	len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	na = (const void *)((const char *)NLMSG_DATA(h) + GENL_HDRLEN);
	for (; len >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN;
	     len -= NLA_ALIGN(na->nla_len),
	     na = (const void *)((const char *)na + NLA_ALIGN(na->nla_len))) {
		if ((na->nla_type & NLA_TYPE_MASK) != CTRL_ATTR_MCAST_GROUPS)
			continue;
		glen = na->nla_len - NLA_HDRLEN;
		for (g = na + 1; glen >= NLA_HDRLEN && g->nla_len >= NLA_HDRLEN;
		     glen -= NLA_ALIGN(g->nla_len),
		     g = (const void *)((const char *)g + NLA_ALIGN(g->nla_len))) {
			int id = -1;
			bool match = false;

			galen = g->nla_len - NLA_HDRLEN;
			for (ga = g + 1; galen >= NLA_HDRLEN &&
			     ga->nla_len >= NLA_HDRLEN;
			     galen -= NLA_ALIGN(ga->nla_len),
			     ga = (const void *)((const char *)ga +
						 NLA_ALIGN(ga->nla_len))) {
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_ID)
					id = *(const uint32_t *)(ga + 1);
				if (ga->nla_type == CTRL_ATTR_MCAST_GRP_NAME &&
				    !strcmp((const char *)(ga + 1),
					    fz_mcgrps[0].name))
					match = true;
			}
			if (match)
				grp = id;
		}
	}
	if (grp < 0)
		return -ENOENT;
	c->ev_fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (c->ev_fd < 0)
		return -errno;
	setsockopt(c->ev_fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	if (bind(c->ev_fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(c->ev_fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
		       sizeof(grp)) < 0) {
		err = -errno;
		close(c->ev_fd);
		c->ev_fd = -1;
		return err;
	}
	return 0;
}

/* Events that came in, each checked against the spec. */
void fz_drain_events(struct fz_ctx *c)
{
	const struct nlmsghdr *h;
	size_t len;
	long n;

	if (c->ev_fd < 0)
		return;
	for (;;) {
		n = recv(c->ev_fd, rbuf, sizeof(rbuf), MSG_DONTWAIT);
		if (n < 0 && errno == ENOBUFS) {
			c->ev_overruns++;	/* listeners may lose events */
			continue;
		}
		if (n <= 0)
			return;
		len = n;
		for (h = (const void *)rbuf; NLMSG_OK(h, len);
		     h = NLMSG_NEXT(h, len)) {
			c->events++;
			fz_check_msg(c, (const void *)h, h->nlmsg_len);
		}
	}
}
