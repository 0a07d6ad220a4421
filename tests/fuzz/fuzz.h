/* SPDX-License-Identifier: GPL-2.0 */
/* p2pfuzz: a seeded generic netlink fuzzer for the p2pmap family. */
#ifndef FZ_FUZZ_H
#define FZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "spec.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define FZ_ADDR_LEN	13	/* "DDDD:BB:DD.F" and its NUL */
#define FZ_MAX_DEVS	64
#define FZ_MAX_BATCH	4
#define FZ_BUF_SIZE	(256 * 1024)
#define FZ_MAX_IDS	32

/* xorshift64*: the whole message sequence follows from the seed. */
struct fz_rng {
	uint64_t s;
};

void fz_seed(struct fz_rng *r, uint64_t seed);
uint64_t fz_next(struct fz_rng *r);
uint32_t fz_below(struct fz_rng *r, uint32_t n);	/* 0..n-1 */
bool fz_chance(struct fz_rng *r, uint32_t permille);

/* One netlink message inside a datagram, as the kernel will see it. */
struct fz_sub {
	size_t off;
	uint32_t seq;
	int label;		/* stats row: an op index or FZ_L_* */
	bool reaches;		/* netlink_rcv_skb hands it to our family */
	bool admin;		/* a state-changing command of the spec */
	int err;		/* first error the kernel sent for it */
	bool got_err, got_reply, dump_open, dump_done;
	bool err_msg;		/* the error came with an extack message */
};

struct fz_dgram {
	unsigned char *buf;
	size_t len;
	int n_sub;
	struct fz_sub sub[FZ_MAX_BATCH];
};

/* Stats rows beyond the ops: what else a datagram can be. */
enum {
	FZ_L_UNKNOWN_CMD = 0,	/* our family, a command the spec lacks */
	FZ_L_CTRL,		/* nlctrl */
	FZ_L_FOREIGN,		/* an id no family has */
	FZ_L_CONTROL,		/* NLMSG_NOOP/ERROR/DONE/OVERRUN types */
	FZ_L_SHORT,		/* no whole nlmsghdr */
	FZ_N_EXTRA
};

#define FZ_MAX_LABELS	(64 + FZ_N_EXTRA)
#define FZ_N_ERRNO	256

struct fz_stat {
	unsigned long sent, accepted, refused, silent;
	unsigned long err[FZ_N_ERRNO];
};

struct fz_dev {
	char addr[FZ_ADDR_LEN];
	bool bound;
	bool bridge;
	unsigned int vendor, klass;
};

struct fz_ctx {
	struct fz_rng rng;
	int fd;			/* requests */
	int ev_fd;		/* events group, -1 when not joined */
	int family;		/* generic netlink family id */
	int kernel_maxattr;
	uint32_t seq;
	unsigned long index;	/* of the message being sent */
	struct fz_dev devs[FZ_MAX_DEVS];
	int n_devs;
	int foreign[FZ_MAX_IDS];	/* ids no family has */
	int n_foreign;
	bool dry_run;
	bool verbose;
	bool trace;		/* printing this message and its answers */
	unsigned long trace_from, trace_to;
	int timeout_ms;
	uint64_t hash;		/* FNV-1a of every datagram sent */
	struct fz_stat stat[FZ_MAX_LABELS];
	unsigned long violations;
	unsigned long timeouts;
	unsigned long extack_msgs, extack_offs, dump_intr, events;
	unsigned long ev_overruns, replies, dumps;
	/* state-changing commands that reached the family */
	unsigned long sc_attempted, sc_accepted, sc_eperm, sc_eperm_msg;
	unsigned long sc_other;
	bool want_cap_msg;	/* the last error had an extack message */
};

/* Label of row @l (an op name or an extra row). */
const char *fz_label_name(int l);
int fz_label_of_cmd(int cmd);

/* gen.c */
void fz_gen(struct fz_ctx *c, struct fz_dgram *d);
void fz_gen_reset(void);

/* nl.c */
int fz_open(struct fz_ctx *c);
int fz_resolve(struct fz_ctx *c);
int fz_join_events(struct fz_ctx *c);
int fz_exchange(struct fz_ctx *c, struct fz_dgram *d);
void fz_drain_events(struct fz_ctx *c);
void fz_set_sockopts(struct fz_ctx *c, bool cap_ack, bool strict);

/* check.c: replies parsed against the spec; the state's invariants */
void fz_violation(struct fz_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int fz_check_msg(struct fz_ctx *c, const unsigned char *p, size_t len);
int fz_check_state(struct fz_ctx *c);
int fz_find_op(int cmd);
void fz_print_msgs(void);

#endif /* FZ_FUZZ_H */
