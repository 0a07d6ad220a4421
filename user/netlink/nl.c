// SPDX-License-Identifier: GPL-2.0
/* Generic netlink transport for the "p2pmap" family (libnl-3). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>

#include <linux/p2pmap.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define PNL_DUMP_TRIES	5

/* State of one request while its replies come in. */
struct pnl_req {
	struct p2pmap_nl *nl;
	int done;			/* 1 while waiting, then 0 or -errno */
	bool intr;			/* a reply carried NLM_F_DUMP_INTR */
	bool lost;			/* @parse could not take a reply */
	pnl_parse_fn parse;
	void *arg;
};

int pnl_errno(int nlerr)
{
	switch (nlerr) {
	case -NLE_PERM:
		return -EPERM;
	case -NLE_NOACCESS:
		return -EACCES;
	case -NLE_NOMEM:
		return -ENOMEM;
	}
	return -EIO;
}

const char *pnl_strerror(int nlerr)
{
	int err = pnl_errno(nlerr);

	/* The system's words for a refusal: libnl says "No Access". */
	return err == -EPERM || err == -EACCES ? strerror(-err) :
						 nl_geterror(nlerr);
}

/* Old kernels lack extended acks; then errors come without text. */
void pnl_want_ext_ack(struct nl_sock *sk)
{
	int one = 1;

	setsockopt(nl_socket_get_fd(sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
}

int pnl_open(struct p2pmap_nl *nl)
{
	int err;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		fprintf(stderr, "p2pmap: cannot allocate netlink socket\n");
		nl->error.err = -ENOMEM;
		return -ENOMEM;
	}
	err = genl_connect(nl->sk);
	if (err < 0) {
		fprintf(stderr, "p2pmap: cannot connect to generic netlink: %s\n",
			pnl_strerror(err));
		goto fail;
	}
	pnl_want_ext_ack(nl->sk);

	nl->family = genl_ctrl_resolve(nl->sk, P2PMAP_GENL_NAME);
	if (nl->family < 0) {
		if (nl->family == -NLE_OBJ_NOTFOUND) {
			pnl_close(nl);
			nl->no_family = true;
			nl->error.err = -ENOENT;
			snprintf(nl->error.msg, sizeof(nl->error.msg),
				 "generic netlink family \"%s\" not found",
				 P2PMAP_GENL_NAME);
			return -ENOENT;
		}
		err = nl->family;
		fprintf(stderr, "p2pmap: cannot resolve generic netlink family \"%s\": %s\n",
			P2PMAP_GENL_NAME, pnl_strerror(err));
		goto fail;
	}
	return 0;
fail:
	pnl_close(nl);
	nl->error.err = pnl_errno(err);
	snprintf(nl->error.msg, sizeof(nl->error.msg), "%s", nl_geterror(err));
	return nl->error.err;
}

bool (*pnl_not_loaded_hint)(char *buf, size_t len);

int pnl_open_required(struct p2pmap_nl *nl)
{
	int err = pnl_open(nl);
	bool loaded = false;
	char hint[512];

	if (err != -ENOENT)
		return err;
	if (pnl_not_loaded_hint)
		loaded = pnl_not_loaded_hint(hint, sizeof(hint));
	fprintf(stderr, "p2pmap: %s (generic netlink family \"%s\" not found)\n",
		loaded ? "the kernel module does not answer here" :
			 "kernel module not loaded",
		P2PMAP_GENL_NAME);
	if (pnl_not_loaded_hint)
		fprintf(stderr, "p2pmap: it is %s\n", hint);
	return err;
}

void pnl_close(struct p2pmap_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/*
 * Read the extended-ack TLVs that follow an error or done message, the
 * way iw does.
 */
static void read_ext_ack(const struct nlmsghdr *nlh, int ack_len,
			 struct pnl_error *e)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int len = nlh->nlmsg_len;
	uint32_t type;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || len <= ack_len)
		return;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)nlh + ack_len),
		      len - ack_len, NULL) < 0)
		return;
	if (tb[NLMSGERR_ATTR_MSG]) {
		pnl_attr_str(tb[NLMSGERR_ATTR_MSG], e->msg, sizeof(e->msg));
	} else if (tb[NLMSGERR_ATTR_MISS_TYPE] &&
		   pnl_attr_u32(tb[NLMSGERR_ATTR_MISS_TYPE], &type)) {
		snprintf(e->msg, sizeof(e->msg), "missing attribute %u", type);
	}
}

int pnl_read_error(const struct nlmsghdr *nlh, struct pnl_error *e)
{
	int ack_len = NLMSG_LENGTH(sizeof(int));
	const struct nlmsgerr *err = NLMSG_DATA(nlh);

	e->err = 0;
	e->msg[0] = '\0';
	if (nlh->nlmsg_len < (unsigned int)ack_len)
		return 0;
	memcpy(&e->err, NLMSG_DATA(nlh), sizeof(int));
	if (e->err > 0)
		e->err = -e->err;
	if (nlh->nlmsg_type == NLMSG_ERROR) {
		/* The echoed request's header, and its payload unless capped. */
		ack_len = NLMSG_LENGTH(sizeof(*err));
		if (nlh->nlmsg_len < (unsigned int)ack_len)
			return e->err;
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			ack_len += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	}
	if (e->err)
		read_ext_ack(nlh, ack_len, e);
	return e->err;
}

static int error_cb(struct sockaddr_nl *nla, struct nlmsgerr *e, void *arg)
{
	struct pnl_req *req = arg;

	(void)nla;
	pnl_read_error((struct nlmsghdr *)e - 1, &req->nl->error);
	req->done = req->nl->error.err ? req->nl->error.err : -EIO;
	return NL_STOP;
}

static int ack_cb(struct nl_msg *msg, void *arg)
{
	struct pnl_req *req = arg;

	(void)msg;
	req->done = 0;
	return NL_STOP;
}

/* NLMSG_DONE ends a dump; its payload is the dump's error code. */
static int finish_cb(struct nl_msg *msg, void *arg)
{
	struct pnl_req *req = arg;

	req->done = pnl_read_error(nlmsg_hdr(msg), &req->nl->error);
	return NL_STOP;
}

static int intr_cb(struct nl_msg *msg, void *arg)
{
	struct pnl_req *req = arg;

	(void)msg;
	req->intr = true;
	return NL_OK;
}

/*
 * A parser that cannot take a message (NL_STOP: out of memory) fails the
 * whole request: the rest of the replies are read and dropped, so that
 * the socket is clean for the next request, and no partial list is ever
 * returned as if it were complete.
 */
static int valid_cb(struct nl_msg *msg, void *arg)
{
	struct pnl_req *req = arg;
	int ret;

	if (!req->parse || req->lost)
		return req->lost ? NL_SKIP : NL_OK;
	ret = req->parse(msg, req->arg);
	if (ret == NL_STOP) {
		req->lost = true;
		return NL_SKIP;
	}
	return ret;
}

static int request(struct p2pmap_nl *nl, uint8_t cmd, int flags,
		   pnl_fill_fn fill, const void *fill_arg, pnl_parse_fn parse,
		   void *arg, bool *intr)
{
	struct pnl_req req = { .nl = nl, .done = 1, .parse = parse, .arg = arg };
	struct nl_cb *cb, *scb;
	struct nl_msg *msg;
	int err;

	nl->error.err = 0;
	nl->error.msg[0] = '\0';

	msg = nlmsg_alloc();
	/* The socket's callbacks (default ones, or a test's transport). */
	scb = nl_socket_get_cb(nl->sk);
	cb = scb ? nl_cb_clone(scb) : NULL;
	nl_cb_put(scb);
	if (!msg || !cb) {
		err = -ENOMEM;
		goto out;
	}
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
			 flags | NLM_F_ACK, cmd, P2PMAP_GENL_VERSION)) {
		err = -ENOMEM;
		goto out;
	}
	if (fill) {
		err = fill(msg, fill_arg);
		if (err < 0)
			goto out;
	}

	nl_cb_err(cb, NL_CB_CUSTOM, error_cb, &req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, ack_cb, &req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, finish_cb, &req);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, intr_cb, &req);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, valid_cb, &req);

	err = nl_send_auto(nl->sk, msg);
	if (err < 0) {
		snprintf(nl->error.msg, sizeof(nl->error.msg), "%s",
			 nl_geterror(err));
		err = -EIO;
		goto out;
	}
	while (req.done > 0) {
		err = nl_recvmsgs(nl->sk, cb);
		if (err < 0 && req.done > 0) {
			snprintf(nl->error.msg, sizeof(nl->error.msg), "%s",
				 nl_geterror(err));
			req.done = -EIO;
		}
	}
	err = req.done;
	if (!err && req.lost) {
		snprintf(nl->error.msg, sizeof(nl->error.msg),
			 "out of memory while reading the reply");
		err = -ENOMEM;
	}
	if (intr)
		*intr = req.intr;
out:
	nl->error.err = err;
	nl_cb_put(cb);
	nlmsg_free(msg);
	return err;
}

int pnl_do(struct p2pmap_nl *nl, uint8_t cmd, pnl_fill_fn fill,
	   const void *fill_arg, pnl_parse_fn parse, void *arg)
{
	return request(nl, cmd, 0, fill, fill_arg, parse, arg, NULL);
}

int pnl_dump(struct p2pmap_nl *nl, uint8_t cmd, pnl_fill_fn fill,
	     const void *fill_arg, pnl_parse_fn parse, pnl_reset_fn reset,
	     void *arg)
{
	bool intr = false;
	int tries, err = 0;

	for (tries = 0; tries < PNL_DUMP_TRIES; tries++) {
		if (tries && reset)
			reset(arg);
		err = request(nl, cmd, NLM_F_DUMP, fill, fill_arg, parse, arg,
			      &intr);
		if (err || !intr)
			return err;
	}
	nl->error.err = err = -EAGAIN;
	snprintf(nl->error.msg, sizeof(nl->error.msg),
		 "dump interrupted by changes %d times", PNL_DUMP_TRIES);
	return err;
}

void pnl_perror(const struct pnl_error *e, const char *op)
{
	if (e->err == -EPERM && !e->msg[0])	/* GENL_ADMIN_PERM says nothing */
		fprintf(stderr, "p2pmap: %s: %s: needs CAP_NET_ADMIN, CAP_SYS_ADMIN and CAP_SYS_RAWIO in the initial user namespace\n",
			op, strerror(-e->err));
	else if (e->msg[0])
		fprintf(stderr, "p2pmap: %s: %s: %s\n", op, strerror(-e->err),
			e->msg);
	else
		fprintf(stderr, "p2pmap: %s: %s\n", op, strerror(-e->err));
}

bool pnl_sender_refused(const struct pnl_error *e)
{
	return e->err == -EPERM || e->err == -EACCES;
}

bool pnl_attr_u32(const struct nlattr *a, uint32_t *v)
{
	if (nla_len(a) != sizeof(*v))
		return false;
	*v = nla_get_u32(a);
	return true;
}

bool pnl_attr_s32(const struct nlattr *a, int32_t *v)
{
	uint32_t u;

	if (!pnl_attr_u32(a, &u))
		return false;
	*v = (int32_t)u;
	return true;
}

bool pnl_attr_u64(const struct nlattr *a, uint64_t *v)
{
	if (nla_len(a) != sizeof(*v))
		return false;
	*v = nla_get_u64(a);
	return true;
}

void pnl_attr_str(const struct nlattr *a, char *buf, size_t len)
{
	size_t n = strnlen(nla_data(a), nla_len(a));

	if (n >= len)
		n = len - 1;
	memcpy(buf, nla_data(a), n);
	buf[n] = '\0';
}
