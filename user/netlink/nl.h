/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Generic netlink transport for the "p2pmap" family (libnl-3).  Prefix
 * pnl_ ("p2pmap netlink"): libnl owns nl_.
 */
#ifndef P2PMAP_NL_H
#define P2PMAP_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <netlink/attr.h>

#define PNL_ERRMSG_LEN	256

/* A request's error and the kernel's extended-ack message. */
struct pnl_error {
	int err;			/* negative errno, 0 on success */
	char msg[PNL_ERRMSG_LEN];	/* "" when the kernel sent none */
};

struct p2pmap_nl {
	struct nl_sock *sk;
	int family;
	struct pnl_error error;		/* of the last request, or the open */
	bool no_family;			/* pnl_open(): module not loaded */
};

/* Fills the request's attributes; returns 0 or a negative errno. */
typedef int (*pnl_fill_fn)(struct nl_msg *msg, const void *arg);
/* Parses one reply message (libnl valid callback). */
typedef int (*pnl_parse_fn)(struct nl_msg *msg, void *arg);
/* Forgets what a dump parsed so far, before the dump is retried. */
typedef void (*pnl_reset_fn)(void *arg);

/*
 * Connect and resolve the family.  Returns 0; -ENOENT when the family is
 * not registered (module not loaded: nl->no_family set), printing nothing;
 * or another negative errno after printing an error (-EPERM or -EACCES
 * when the socket was refused for want of a permission).  A failure is
 * kept in nl->error too, for the command's exit code (cmd_exit_nl()).
 */
int pnl_open(struct p2pmap_nl *nl);
/* Ask the kernel for the text of its errors on @sk (extended acks). */
void pnl_want_ext_ack(struct nl_sock *sk);
/*
 * A libnl error (-NLE_*) as a negative errno: -EPERM, -EACCES, -ENOMEM,
 * else -EIO; and its text (the system's for the first two).
 */
int pnl_errno(int nlerr);
const char *pnl_strerror(int nlerr);
/* As pnl_open(), but prints the "module not loaded" error too. */
int pnl_open_required(struct p2pmap_nl *nl);
/*
 * Set by the CLI (host/module_hint.c): what to do when the module is not
 * loaded, printed after that error; true when it is loaded all the same
 * (on the host, seen from a container it does not answer).  The test
 * tools built from this code leave it NULL.
 */
extern bool (*pnl_not_loaded_hint)(char *buf, size_t len);
void pnl_close(struct p2pmap_nl *nl);

/*
 * Send one request with NLM_F_ACK and wait for its ACK.  @parse (may be
 * NULL) sees every reply message.  Returns 0 or a negative errno; on error
 * nl->error describes it, for pnl_perror().
 */
int pnl_do(struct p2pmap_nl *nl, uint8_t cmd, pnl_fill_fn fill,
	   const void *fill_arg, pnl_parse_fn parse, void *arg);

/* As pnl_do() with NLM_F_DUMP; retried while the kernel sets DUMP_INTR. */
int pnl_dump(struct p2pmap_nl *nl, uint8_t cmd, pnl_fill_fn fill,
	     const void *fill_arg, pnl_parse_fn parse, pnl_reset_fn reset,
	     void *arg);

/*
 * Read the error code and extended-ack message of an NLMSG_ERROR or
 * NLMSG_DONE message into @e.  Returns e->err (0 or a negative errno).
 */
int pnl_read_error(const struct nlmsghdr *nlh, struct pnl_error *e);

/* "p2pmap: <op>: <strerror>[: <ext-ack message>]" on stderr. */
void pnl_perror(const struct pnl_error *e, const char *op);
/*
 * A refusal of the sender (a capability, or a container's network
 * namespace): every further state change would be refused the same way.
 */
bool pnl_sender_refused(const struct pnl_error *e);

/* Attribute readers: false when the payload has the wrong size. */
bool pnl_attr_u32(const struct nlattr *a, uint32_t *v);
bool pnl_attr_s32(const struct nlattr *a, int32_t *v);
bool pnl_attr_u64(const struct nlattr *a, uint64_t *v);
/* Copies a string attribute, truncating it to fit @len. */
void pnl_attr_str(const struct nlattr *a, char *buf, size_t len);

#endif /* P2PMAP_NL_H */
