// SPDX-License-Identifier: GPL-2.0
/*
 * What comes back is checked: every message the kernel sends parses (error
 * and done messages with their extended-ack TLVs; the family's replies and
 * events attribute by attribute against the spec: known ids, the right
 * lengths, NUL-terminated strings, nests that parse, no repeats of a
 * single attribute).  fz_check_state() dumps devices and links and checks
 * that each link's state is the one its devices call for.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "fuzz.h"

#define MAX_SEEN	64

void fz_violation(struct fz_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (++c->violations > 20)
		return;
	printf("p2pfuzz: VIOLATION (message %lu): ", c->index);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int fz_find_op(int cmd)
{
	int i;

	for (i = 0; i < fz_n_ops; i++)
		if (fz_ops[i].cmd == cmd)
			return i;
	return -1;
}

/* ---- what fz_check_state collects ----------------------------------- */

struct st_dev {
	char addr[FZ_ADDR_LEN];
	uint32_t state, domain, admitted;
	uint64_t bar_start[6], bar_size[6];
};

struct st_link {
	char init[FZ_ADDR_LEN], tgt[FZ_ADDR_LEN];
	uint32_t state, bar_mask;
	uint64_t mapped;
	int n_ranges;
	uint32_t range_bar[8];
	uint64_t range_iova[8], range_size[8];
};

static struct {
	bool on;
	int n_devs, n_links;
	struct st_dev devs[FZ_MAX_DEVS];
	struct st_link links[256];
	/* where the attribute walker is */
	struct st_dev *dev;
	struct st_link *link;
	int bar_index;
	uint64_t bar_start, bar_size;
} st;

static bool canonical_addr(const char *s)
{
	static const char form[] = "hhhh:hh:hh.h";
	int i;

	if (strlen(s) != 12)
		return false;
	for (i = 0; i < 12; i++)
		if (form[i] == 'h' ? !strchr("0123456789abcdef", s[i]) :
				     s[i] != form[i])
			return false;
	return true;
}

static uint64_t get_uint(const unsigned char *p, size_t len)
{
	uint64_t v = 0;

	memcpy(&v, p, len > 8 ? 8 : len);
	return v;
}

/* Record one (valid) attribute for fz_check_state. */
static void collect(const char *set, const struct fz_attr *a,
		    const unsigned char *p, size_t len)
{
	const char *name = a->name;
	uint64_t v = get_uint(p, len);

	if (!strcmp(set, "dev") && st.dev) {
		if (!strcmp(name, "addr"))
			snprintf(st.dev->addr, FZ_ADDR_LEN, "%s", p);
		else if (!strcmp(name, "state"))
			st.dev->state = v;
		else if (!strcmp(name, "domain"))
			st.dev->domain = v;
		else if (!strcmp(name, "admitted"))
			st.dev->admitted = v;
	} else if (!strcmp(set, "bar")) {
		if (!strcmp(name, "index"))
			st.bar_index = v;
		else if (!strcmp(name, "start"))
			st.bar_start = v;
		else if (!strcmp(name, "size"))
			st.bar_size = v;
	} else if (!strcmp(set, "link") && st.link) {
		if (!strcmp(name, "initiator"))
			snprintf(st.link->init, FZ_ADDR_LEN, "%s", p);
		else if (!strcmp(name, "target"))
			snprintf(st.link->tgt, FZ_ADDR_LEN, "%s", p);
		else if (!strcmp(name, "state"))
			st.link->state = v;
		else if (!strcmp(name, "bar-mask"))
			st.link->bar_mask = v;
		else if (!strcmp(name, "mapped-bytes"))
			st.link->mapped = v;
	} else if (!strcmp(set, "range") && st.link &&
		   st.link->n_ranges < 8) {
		int i = st.link->n_ranges;

		if (!strcmp(name, "bar"))
			st.link->range_bar[i] = v;
		else if (!strcmp(name, "iova"))
			st.link->range_iova[i] = v;
		else if (!strcmp(name, "size"))
			st.link->range_size[i] = v;
	}
}

/* ---- attributes against the spec ------------------------------------ */

static int attr_len_ok(struct fz_ctx *c, const struct fz_attr *a,
		       const unsigned char *p, size_t len, const char *set)
{
	static const size_t width[] = {
		[FZ_T_U8] = 1, [FZ_T_S8] = 1, [FZ_T_U16] = 2, [FZ_T_S16] = 2,
		[FZ_T_U32] = 4, [FZ_T_S32] = 4, [FZ_T_U64] = 8, [FZ_T_S64] = 8,
	};

	switch (a->type) {
	case FZ_T_STRING:
		if (!len || p[len - 1] || strlen((const char *)p) != len - 1) {
			fz_violation(c, "%s %s: a string not NUL-terminated or with an inner NUL",
				     set, a->name);
			return -1;
		}
		if (a->max_len >= 0 && len - 1 > (size_t)a->max_len) {
			fz_violation(c, "%s %s: %zu characters, max-len %d",
				     set, a->name, len - 1, a->max_len);
			return -1;
		}
		return 0;
	case FZ_T_FLAG:
		return len ? -1 : 0;
	case FZ_T_PAD:
	case FZ_T_BINARY:
	case FZ_T_NEST:
	case FZ_T_UNUSED:
		return 0;
	default:
		if (len != width[a->type]) {
			fz_violation(c, "%s %s: %zu bytes, want %zu", set,
				     a->name, len, width[a->type]);
			return -1;
		}
		return 0;
	}
}

static int check_attrs(struct fz_ctx *c, int set, const unsigned char *p,
		       size_t len, int depth);

static void nest_done(const char *set)
{
	if (!strcmp(set, "bar") && st.dev && st.bar_index >= 0 &&
	    st.bar_index < 6) {
		st.dev->bar_start[st.bar_index] = st.bar_start;
		st.dev->bar_size[st.bar_index] = st.bar_size;
	}
	if (!strcmp(set, "range") && st.link && st.link->n_ranges < 8)
		st.link->n_ranges++;
}

static int check_one(struct fz_ctx *c, int set, const struct nlattr *na,
		     int depth, int *seen)
{
	const struct fz_set *s = &fz_sets[set];
	const unsigned char *p = (const unsigned char *)(na + 1);
	size_t len = na->nla_len - NLA_HDRLEN;
	int type = na->nla_type & NLA_TYPE_MASK, i;
	const struct fz_attr *a = NULL;

	for (i = 0; i < s->n_attrs; i++)
		if (s->attrs[i].id == type)
			a = &s->attrs[i];
	if (!a) {
		fz_violation(c, "attribute %d is not in set %s", type, s->name);
		return -1;
	}
	if (type < MAX_SEEN && seen[type]++ && !a->multi &&
	    a->type != FZ_T_PAD) {
		fz_violation(c, "%s %s repeated", s->name, a->name);
		return -1;
	}
	if (attr_len_ok(c, a, p, len, s->name))
		return -1;
	if (a->type == FZ_T_NEST) {
		if (depth > 4)
			return -1;
		if (!strcmp(fz_sets[a->nest].name, "bar"))
			st.bar_index = -1;
		if (check_attrs(c, a->nest, p, len, depth + 1))
			return -1;
		if (st.on)
			nest_done(fz_sets[a->nest].name);
		return 0;
	}
	if (st.on)
		collect(s->name, a, p, len);
	return 0;
}

static int check_attrs(struct fz_ctx *c, int set, const unsigned char *p,
		       size_t len, int depth)
{
	int seen[MAX_SEEN] = { 0 };
	const struct nlattr *na;

	while (len >= NLA_HDRLEN) {
		na = (const struct nlattr *)p;
		if (na->nla_len < NLA_HDRLEN || na->nla_len > len) {
			fz_violation(c, "set %s: attribute length %u in %zu bytes",
				     fz_sets[set].name, na->nla_len, len);
			return -1;
		}
		if (check_one(c, set, na, depth, seen))
			return -1;
		if ((size_t)NLA_ALIGN(na->nla_len) >= len)
			return 0;
		p += NLA_ALIGN(na->nla_len);
		len -= NLA_ALIGN(na->nla_len);
	}
	if (len) {
		fz_violation(c, "set %s: %zu stray bytes", fz_sets[set].name,
			     len);
		return -1;
	}
	return 0;
}

/* ---- error and done messages ---------------------------------------- */

/* Distinct extack messages and how often each came. */
#define MAX_MSGS	48

static struct {
	char text[96];
	int err;
	unsigned long n;
} msgs[MAX_MSGS];
static int n_msgs, cur_err;

static void note_msg(struct fz_ctx *c, const char *text)
{
	int i;

	if (c->trace)
		printf("p2pfuzz:   extack \"%s\"\n", text);
	for (i = 0; i < n_msgs; i++)
		if (msgs[i].err == cur_err &&
		    !strncmp(msgs[i].text, text, sizeof(msgs[i].text) - 1))
			break;
	if (i == n_msgs) {
		if (n_msgs == MAX_MSGS)
			return;
		snprintf(msgs[i].text, sizeof(msgs[i].text), "%s", text);
		msgs[i].err = cur_err;
		n_msgs++;
	}
	msgs[i].n++;
}

static int msg_cmp(const void *a, const void *b)
{
	unsigned long x = ((const typeof(msgs[0]) *)a)->n;
	unsigned long y = ((const typeof(msgs[0]) *)b)->n;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The most frequent extack messages, with the error they came with. */
void fz_print_msgs(void)
{
	int i;

	qsort(msgs, n_msgs, sizeof(msgs[0]), msg_cmp);
	for (i = 0; i < n_msgs && i < 16; i++)
		printf("p2pfuzz: extack %-10s %7lu \"%s\"\n",
		       msgs[i].err ? strerrorname_np(msgs[i].err) : "0",
		       msgs[i].n, msgs[i].text);
}

/* The extended-ack TLVs after an error or done payload. */
static int check_tlvs(struct fz_ctx *c, const unsigned char *p, size_t len,
		      uint32_t orig_len)
{
	const struct nlattr *na;
	size_t l;

	c->want_cap_msg = false;
	while (len >= NLA_HDRLEN) {
		na = (const struct nlattr *)p;
		if (na->nla_len < NLA_HDRLEN || na->nla_len > len) {
			fz_violation(c, "extack TLV length %u in %zu bytes",
				     na->nla_len, len);
			return -1;
		}
		l = na->nla_len - NLA_HDRLEN;
		switch (na->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			if (!l || ((const char *)(na + 1))[l - 1]) {
				fz_violation(c, "extack message not NUL-terminated");
				return -1;
			}
			c->extack_msgs++;
			c->want_cap_msg = true;
			note_msg(c, (const char *)(na + 1));
			break;
		case NLMSGERR_ATTR_OFFS:
		case NLMSGERR_ATTR_MISS_TYPE:
		case NLMSGERR_ATTR_MISS_NEST:
			if (l != 4) {
				fz_violation(c, "extack TLV %u: %zu bytes",
					     na->nla_type, l);
				return -1;
			}
			if (na->nla_type != NLMSGERR_ATTR_MISS_TYPE &&
			    *(const uint32_t *)(na + 1) >= orig_len) {
				fz_violation(c, "extack offset %u beyond the %u-byte request",
					     *(const uint32_t *)(na + 1),
					     orig_len);
				return -1;
			}
			c->extack_offs++;
			break;
		default:	/* cookie, policy, newer ones */
			break;
		}
		if ((size_t)NLA_ALIGN(na->nla_len) >= len)
			return 0;
		p += NLA_ALIGN(na->nla_len);
		len -= NLA_ALIGN(na->nla_len);
	}
	return 0;
}

static int check_error(struct fz_ctx *c, const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	size_t len = h->nlmsg_len - NLMSG_HDRLEN, off = sizeof(*e);

	if (len < sizeof(*e)) {
		fz_violation(c, "an error message of %zu bytes", len);
		return -1;
	}
	if (e->error > 0 || e->error < -4095) {
		fz_violation(c, "error value %d", e->error);
		return -1;
	}
	cur_err = -e->error;
	if (c->trace)
		printf("p2pfuzz:   error %d (seq %u)\n", e->error, e->msg.nlmsg_seq);
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (off > len) {
		fz_violation(c, "error message: the request copy (%u bytes) overruns it",
			     e->msg.nlmsg_len);
		return -1;
	}
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS)) {
		c->want_cap_msg = false;
		return 0;
	}
	off = NLMSG_ALIGN(off);
	return check_tlvs(c, (const unsigned char *)e + off,
			  len > off ? len - off : 0, e->msg.nlmsg_len);
}

static int check_done(struct fz_ctx *c, const struct nlmsghdr *h)
{
	size_t len = h->nlmsg_len - NLMSG_HDRLEN;
	int err;

	if (len < sizeof(int)) {
		fz_violation(c, "NLMSG_DONE without its error value");
		return -1;
	}
	memcpy(&err, NLMSG_DATA(h), sizeof(err));
	cur_err = -err;
	if (err > 0 || err < -4095) {
		fz_violation(c, "NLMSG_DONE error value %d", err);
		return -1;
	}
	if (h->nlmsg_flags & NLM_F_ACK_TLVS)
		return check_tlvs(c, (const unsigned char *)NLMSG_DATA(h) + 4,
				  len - 4, ~0u);
	return 0;
}

/* A message of our family: a known command, its attribute set. */
static int check_family(struct fz_ctx *c, const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	int op;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) {
		fz_violation(c, "a reply without a genlmsghdr");
		return -1;
	}
	if (c->trace)
		printf("p2pfuzz:   reply cmd %u, %u bytes\n", g->cmd, h->nlmsg_len);
	op = fz_find_op(g->cmd);
	if (op < 0) {
		fz_violation(c, "a reply with command %u, not in the spec",
			     g->cmd);
		return -1;
	}
	if (g->version != fz_family_version)
		fz_violation(c, "a reply of version %u", g->version);
	if (st.on && !strcmp(fz_ops[op].name, "dev-get") &&
	    st.n_devs < FZ_MAX_DEVS) {
		st.dev = &st.devs[st.n_devs++];
		memset(st.dev, 0, sizeof(*st.dev));
	} else if (st.on && !strcmp(fz_ops[op].name, "link-get") &&
		   st.n_links < 256) {
		st.link = &st.links[st.n_links++];
		memset(st.link, 0, sizeof(*st.link));
	}
	return check_attrs(c, fz_ops[op].set, (const unsigned char *)(g + 1),
			   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), 0);
}

int fz_check_msg(struct fz_ctx *c, const unsigned char *p, size_t len)
{
	const struct nlmsghdr *h = (const void *)p;

	if (len < NLMSG_HDRLEN)
		return -1;
	if (h->nlmsg_type == NLMSG_ERROR)
		return check_error(c, h);
	if (h->nlmsg_type == NLMSG_DONE)
		return check_done(c, h);
	if (h->nlmsg_type == c->family)
		return check_family(c, h);
	if (h->nlmsg_type == GENL_ID_CTRL)
		return 0;	/* nlctrl answering a generated request */
	fz_violation(c, "a message of type %u", h->nlmsg_type);
	return -1;
}

/* ---- the state's invariants ----------------------------------------- */

static int dump(struct fz_ctx *c, const char *op_name)
{
	static unsigned char buf[64];
	struct nlmsghdr *h = (void *)buf;
	struct genlmsghdr *g = NLMSG_DATA(h);
	struct fz_dgram d = { .buf = buf, .n_sub = 1 };
	int op;

	for (op = 0; op < fz_n_ops && strcmp(fz_ops[op].name, op_name); op++)
		;
	if (op == fz_n_ops)
		return -ENOENT;
	memset(buf, 0, sizeof(buf));
	h->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	h->nlmsg_type = c->family;
	h->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	h->nlmsg_seq = d.sub[0].seq = 0x7fffff00;
	g->cmd = fz_ops[op].cmd;
	g->version = fz_family_version;
	d.len = h->nlmsg_len;
	if (fz_exchange(c, &d))
		return -EIO;
	if (d.sub[0].got_err && d.sub[0].err)
		return -d.sub[0].err;
	return 0;
}

static const struct st_dev *st_dev_find(const char *addr)
{
	int i;

	for (i = 0; i < st.n_devs; i++)
		if (!strcmp(st.devs[i].addr, addr))
			return &st.devs[i];
	return NULL;
}

/* The state a link must be in, given its devices (link.c's rules). */
static int want_state(const struct st_dev *i, const struct st_dev *t)
{
	enum { PENDING, MAPPED, NATIVE, BLOCKED, ERROR };
	enum { UNBOUND, BOUND, OWNED };
	enum { D_NONE, D_IDENTITY, D_DMA, D_DMA_FQ, D_BLOCKED, D_UNMANAGED,
	       D_OTHER };

	if (!i || !t)
		return PENDING;
	if (i->state == OWNED || t->state == OWNED)
		return BLOCKED;
	if (i->state == UNBOUND || t->state == UNBOUND)
		return PENDING;
	if (!i->admitted || !t->admitted)
		return BLOCKED;
	if (t->domain >= D_BLOCKED)
		return BLOCKED;
	if (i->domain == D_NONE || i->domain == D_IDENTITY)
		return NATIVE;
	if (i->domain >= D_BLOCKED)
		return BLOCKED;
	return MAPPED;
}

static void check_link(struct fz_ctx *c, const struct st_link *l, int idx)
{
	const struct st_dev *i = st_dev_find(l->init), *t = st_dev_find(l->tgt);
	uint64_t sum = 0;
	int want = want_state(i, t), k;

	if (!canonical_addr(l->init) || !canonical_addr(l->tgt) ||
	    !strcmp(l->init, l->tgt))
		fz_violation(c, "link '%s' -> '%s': bad endpoints", l->init,
			     l->tgt);
	for (k = 0; k < idx; k++)
		if (!strcmp(st.links[k].init, l->init) &&
		    !strcmp(st.links[k].tgt, l->tgt))
			fz_violation(c, "link %s -> %s listed twice", l->init,
				     l->tgt);
	if (!l->bar_mask || l->bar_mask > 0x3f)
		fz_violation(c, "link %s -> %s: BAR mask %#x", l->init,
			     l->tgt, l->bar_mask);
	if (l->state != (uint32_t)want && !(want == 1 && l->state == 4))
		fz_violation(c, "link %s -> %s: state %u, its devices call for %d",
			     l->init, l->tgt, l->state, want);
	for (k = 0; k < l->n_ranges; k++) {
		uint32_t b = l->range_bar[k];

		sum += l->range_size[k];
		if (b > 5 || !(l->bar_mask & (1u << b)) || !t ||
		    t->bar_start[b] != l->range_iova[k] ||
		    l->range_size[k] > t->bar_size[b])
			fz_violation(c, "link %s -> %s: range BAR%u %#llx+%#llx is not a selected BAR of the target",
				     l->init, l->tgt, b,
				     (unsigned long long)l->range_iova[k],
				     (unsigned long long)l->range_size[k]);
	}
	if (sum != l->mapped || (l->state != 1 && l->mapped))
		fz_violation(c, "link %s -> %s: state %u, %llu bytes mapped, ranges sum to %llu",
			     l->init, l->tgt, l->state,
			     (unsigned long long)l->mapped,
			     (unsigned long long)sum);
}

/* Dump devices and links; check them.  Returns the violations found. */
int fz_check_state(struct fz_ctx *c)
{
	unsigned long before = c->violations;
	int i, err;

	memset(&st, 0, sizeof(st));
	st.on = true;
	err = dump(c, "dev-get");
	st.dev = NULL;
	if (!err)
		err = dump(c, "link-get");
	st.on = false;
	st.link = NULL;
	if (err) {
		fz_violation(c, "state dump failed: %s", strerror(-err));
		return 1;
	}
	for (i = 0; i < st.n_devs; i++) {
		if (!canonical_addr(st.devs[i].addr))
			fz_violation(c, "device '%s': not a canonical address",
				     st.devs[i].addr);
		if (st_dev_find(st.devs[i].addr) != &st.devs[i])
			fz_violation(c, "device %s listed twice",
				     st.devs[i].addr);
	}
	for (i = 0; i < st.n_links; i++)
		check_link(c, &st.links[i], i);
	return c->violations - before;
}
