// SPDX-License-Identifier: GPL-2.0
/*
 * Message generation: a datagram built from the spec's tables, then
 * mutated.  Everything here draws from the context's PRNG only (never from
 * what the kernel answered), so a seed names one message sequence.
 *
 *   systematic  first, every op with every combination of seven nlmsghdr
 *               flags, valid attributes
 *   valid       an op's request attributes with plausible values: the
 *               guest's real PCI addresses, BAR masks, policy lists
 *   mutated     the same, then 1-3 of: attribute dropped, duplicated,
 *               unknown id, wrong length, string without NUL or too long,
 *               nested garbage, flag bits in nla_type, nla_len lies,
 *               version/reserved/cmd changed, bytes flipped
 *   broken      truncated nlmsghdr or genlmsghdr, nlmsg_len lies, random
 *               bytes, batches of messages, other families' ids, control
 *               message types, oversize messages
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "fuzz.h"

#define MAX_ATTRS	24
#define ARENA_SIZE	(FZ_BUF_SIZE * 2)

struct plan_attr {
	uint16_t type;
	int nla_len;		/* -1: the true length */
	unsigned char *data;
	size_t len;
};

struct plan {
	uint16_t nl_type, nl_flags;
	uint32_t seq;
	uint8_t cmd, version;
	uint16_t reserved;
	int n;
	struct plan_attr a[MAX_ATTRS];
	long len_adjust;	/* nlmsg_len = true length + this */
	size_t cut;		/* keep only this many bytes; 0: all */
	bool no_genl;
	int flips;		/* random bytes overwritten after building */
};

static unsigned char arena[ARENA_SIZE];
static size_t arena_used;
static unsigned char dgram_buf[FZ_BUF_SIZE];
static unsigned long systematic_done;

void fz_gen_reset(void)
{
	systematic_done = 0;
}

static unsigned char *arena_get(size_t n)
{
	unsigned char *p;

	if (arena_used + n > ARENA_SIZE)
		return NULL;
	p = arena + arena_used;
	arena_used += (n + 3) & ~(size_t)3;
	return p;
}

static struct plan_attr *plan_add(struct plan *p, uint16_t type,
				  const void *data, size_t len)
{
	struct plan_attr *a;

	if (p->n >= MAX_ATTRS)
		return NULL;
	a = &p->a[p->n];
	a->data = arena_get(len ? len : 1);
	if (!a->data)
		return NULL;
	p->n++;
	a->type = type;
	a->nla_len = -1;
	a->len = len;
	memcpy(a->data, data, len);
	return a;
}

static void rand_bytes(struct fz_rng *r, unsigned char *p, size_t n)
{
	while (n--)
		*p++ = fz_next(r) >> 56;
}

/* ---- values --------------------------------------------------------- */

static const struct fz_dev *pick_dev(struct fz_ctx *c)
{
	int pref[FZ_MAX_DEVS], n = 0, i;

	for (i = 0; i < c->n_devs; i++)
		if (c->devs[i].bound && !c->devs[i].bridge)
			pref[n++] = i;
	if (n && fz_chance(&c->rng, 850))
		return &c->devs[pref[fz_below(&c->rng, n)]];
	if (c->n_devs)
		return &c->devs[fz_below(&c->rng, c->n_devs)];
	return NULL;
}

/* A PCI address string (with its NUL) for a device attribute. */
static size_t val_addr(struct fz_ctx *c, char *out, bool plausible)
{
	const struct fz_dev *d = pick_dev(c);
	const char *a = d ? d->addr : "0000:00:10.0";
	struct fz_rng *r = &c->rng;
	unsigned int form = plausible && fz_chance(r, 900) ? 0 :
			    fz_below(r, 12);
	size_t i;

	switch (form) {
	case 0:		/* canonical */
		strcpy(out, a);
		break;
	case 1:		/* upper case */
		for (i = 0; a[i]; i++)
			out[i] = toupper((unsigned char)a[i]);
		out[i] = '\0';
		break;
	case 2:		/* short form, no domain */
		strcpy(out, a + 5);
		break;
	case 3:		/* a trailing newline, as from echo */
		snprintf(out, 32, "%s\n", a);
		break;
	case 4:		/* canonical but not present */
		snprintf(out, 32, "%04x:%02x:%02x.%x", fz_below(r, 2),
			 fz_below(r, 256), fz_below(r, 32), fz_below(r, 8));
		break;
	case 5:		/* device number out of range */
		snprintf(out, 32, "0000:00:%02x.0", 0x20 + fz_below(r, 0xe0));
		break;
	case 6:		/* function 8..f */
		snprintf(out, 32, "%.11s%x", a, 8 + fz_below(r, 8));
		break;
	case 7:		/* one character too many */
		snprintf(out, 32, "%s0", a);
		break;
	case 8:		/* five-digit domain */
		snprintf(out, 32, "0%s", a);
		break;
	case 9:
		out[0] = '\0';
		break;
	case 10:	/* a separator replaced */
		strcpy(out, a);
		out[fz_below(r, 12)] = "-:._ zG"[fz_below(r, 7)];
		break;
	default:	/* printable junk */
		for (i = 0, form = 1 + fz_below(r, 20); i < form; i++)
			out[i] = 0x21 + fz_below(r, 0x5e);
		out[i] = '\0';
	}
	return strlen(out) + 1;
}

static void dev_ids(struct fz_ctx *c, char *vendor, char *klass)
{
	const struct fz_dev *d = pick_dev(c);

	snprintf(vendor, 8, "%04x", d ? d->vendor & 0xffff : 0x1234);
	snprintf(klass, 8, "%06x", d ? d->klass & 0xffffff : 0xff0000);
}

/* A policy list: mostly lists the guest's devices pass. */
static size_t val_policy(struct fz_ctx *c, const char *name, char *out,
			 bool plausible)
{
	static const char *const drivers[] = {
		"p2ptest", "p2ptest", "p2ptest", "p2ptest", "p2ptest,nvidia",
		"nvidia,p2ptest", "nvidia", "", "p2ptest-owned", "vfio-pci",
		"P2PTEST", "p2ptest,", ",", "p2p test", "nvidia,,p2ptest",
		"p2ptest\xff", "a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p",
	};
	static const char *const numa[] = {
		"", "", "", "0", "0", "0,1", "1", "-1", "a", "99999", "0,,1",
		"0,", "4294967296", "0000",
	};
	/* printf formats of the id, "%.0s" for none; the first ones valid */
	static const char *const vendors[] = {
		"%.0s", "%.0s", "%s", "10de,%s", "10de", "123", "12345",
		"zzzz", "%s,",
	};
	static const char *const classes[] = {
		"%.0s", "%.0s", "%.2s", "%.4s", "0302,%s", "0302", "030",
		"1234567", "03,,02",
	};
	struct fz_rng *r = &c->rng;
	char vendor[8], klass[8];
	int good = plausible && fz_chance(r, 900);

	dev_ids(c, vendor, klass);
	if (!strcmp(name, "drivers"))
		strcpy(out, drivers[fz_below(r, good ? 6 : ARRAY_SIZE(drivers))]);
	else if (!strcmp(name, "vendors"))
		snprintf(out, 32, vendors[fz_below(r, good ? 4 : ARRAY_SIZE(vendors))],
			 vendor);
	else if (!strcmp(name, "classes"))
		snprintf(out, 32, classes[fz_below(r, good ? 5 : ARRAY_SIZE(classes))],
			 klass);
	else
		strcpy(out, numa[fz_below(r, good ? 7 : ARRAY_SIZE(numa))]);
	return strlen(out) + 1;
}

/* A random string attribute value, NUL-terminated. */
static size_t val_string(struct fz_rng *r, const struct fz_attr *a, char *out)
{
	size_t n = fz_below(r, a->max_len > 0 ? a->max_len + 1 : 32), i;

	for (i = 0; i < n; i++)
		out[i] = 0x20 + fz_below(r, 0x5f);
	out[n] = '\0';
	return n + 1;
}

static size_t val_int(struct fz_rng *r, const struct fz_attr *a,
		      unsigned char *out, bool plausible)
{
	static const size_t width[] = {
		[FZ_T_U8] = 1, [FZ_T_S8] = 1, [FZ_T_U16] = 2, [FZ_T_S16] = 2,
		[FZ_T_U32] = 4, [FZ_T_S32] = 4, [FZ_T_U64] = 8, [FZ_T_S64] = 8,
	};
	static const uint64_t edges[] = {
		0, 1, 0x3f, 0x40, 0xff, 0xffffffff, ~0ULL, 0x80000000,
	};
	uint64_t v = fz_next(r);
	size_t w = width[a->type];

	if (plausible && a->max >= a->min)
		v = a->min + fz_below(r, a->max - a->min + 1);
	else if (fz_chance(r, 500))
		v = edges[fz_below(r, ARRAY_SIZE(edges))];
	memcpy(out, &v, w);	/* little-endian: the low bytes */
	return w;
}

/* Nested garbage: random child attributes, some of them nested again. */
static size_t val_garbage_nest(struct fz_rng *r, unsigned char *out,
			       size_t room, int depth)
{
	size_t len = 0, n;
	struct nlattr *na;

	while (len + NLA_HDRLEN + 8 <= room && fz_chance(r, 800)) {
		na = (struct nlattr *)(out + len);
		n = fz_below(r, 9);
		na->nla_type = fz_below(r, 24);
		if (depth < 3 && fz_chance(r, 300)) {
			na->nla_type |= NLA_F_NESTED;
			n = val_garbage_nest(r, out + len + NLA_HDRLEN,
					     room - len - NLA_HDRLEN, depth + 1);
		} else {
			rand_bytes(r, out + len + NLA_HDRLEN, n);
		}
		na->nla_len = NLA_HDRLEN + n;
		memset(out + len + NLA_HDRLEN + n, 0,
		       NLA_ALIGN(NLA_HDRLEN + n) - (NLA_HDRLEN + n));
		if (fz_chance(r, 50))
			na->nla_len = fz_below(r, 0x10000);
		len += NLA_ALIGN(NLA_HDRLEN + n);
	}
	return len;
}

/* The value of request attribute @a of op @o. */
static void add_value(struct fz_ctx *c, struct plan *p, const struct fz_op *o,
		      const struct fz_attr *a, bool plausible)
{
	unsigned char buf[512];
	size_t n;

	(void)o;
	switch (a->type) {
	case FZ_T_STRING:
		if (!strcmp(a->name, "initiator") ||
		    !strcmp(a->name, "target") || !strcmp(a->name, "addr"))
			n = val_addr(c, (char *)buf, plausible);
		else if (!strcmp(fz_sets[o->set].name, "policy"))
			n = val_policy(c, a->name, (char *)buf, plausible);
		else
			n = val_string(&c->rng, a, (char *)buf);
		break;
	case FZ_T_NEST:
		n = val_garbage_nest(&c->rng, buf, sizeof(buf), 1);
		break;
	case FZ_T_FLAG:
		n = 0;
		break;
	case FZ_T_PAD:
	case FZ_T_BINARY:
	case FZ_T_UNUSED:
		n = fz_below(&c->rng, 16);
		rand_bytes(&c->rng, buf, n);
		break;
	default:
		n = val_int(&c->rng, a, buf, plausible);
	}
	plan_add(p, a->id, buf, n);
}

static const struct fz_attr *set_attr(int set, int id)
{
	int i;

	for (i = 0; i < fz_sets[set].n_attrs; i++)
		if (fz_sets[set].attrs[i].id == id)
			return &fz_sets[set].attrs[i];
	return NULL;
}

/* Optional-looking attributes are left out now and then. */
static void add_request(struct fz_ctx *c, struct plan *p, const struct fz_op *o,
			bool plausible)
{
	const struct fz_attr *a;
	int i;

	for (i = 0; i < o->n_req; i++) {
		a = set_attr(o->set, o->req[i]);
		if (!a)
			continue;
		if (i >= 2 || (o->n_req == 1 && !strcmp(o->name, "faults-reset")))
			if (fz_chance(&c->rng, 350))
				continue;
		add_value(c, p, o, a, plausible);
	}
}

/* ---- flags ---------------------------------------------------------- */

static const uint16_t flag_bits[] = {
	NLM_F_ACK, NLM_F_ECHO, NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC,
	NLM_F_APPEND, NLM_F_MULTI,
};

static uint16_t random_flags(struct fz_ctx *c, const struct fz_op *o)
{
	struct fz_rng *r = &c->rng;
	uint16_t f = NLM_F_REQUEST;

	if (fz_chance(r, 700))
		f |= NLM_F_ACK;
	if (fz_chance(r, 80))
		f |= NLM_F_ECHO;
	if (o && (o->flags & FZ_OP_DUMP) ? fz_chance(r, 500) :
					   fz_chance(r, 30))
		f |= NLM_F_DUMP;
	if (fz_chance(r, 40))
		f |= flag_bits[fz_below(r, ARRAY_SIZE(flag_bits))];
	if (fz_chance(r, 10))
		f |= fz_next(r) & 0xfff0;
	if (fz_chance(r, 10))
		f &= ~NLM_F_REQUEST;
	return f;
}

/* ---- mutations ------------------------------------------------------ */

static void mutate_attr(struct fz_ctx *c, const struct fz_op *o,
			struct plan_attr *a)
{
	static const size_t bad_len[] = { 0, 1, 2, 3, 5, 7, 8, 16 };
	static const int bad_nla_len[] = { 0, 1, 3, NLA_HDRLEN, 0xffff };
	const struct fz_attr *s = o ? set_attr(o->set, a->type) : NULL;
	struct fz_rng *r = &c->rng;
	unsigned char *d;
	size_t n;

	switch (fz_below(r, 9)) {
	case 0:		/* no NUL at the end */
		if (a->len)
			a->len--;
		break;
	case 1:		/* longer than max-len, NUL-terminated or not */
		n = (s && s->max_len > 0 ? s->max_len : 12) + 1 +
		    fz_below(r, 300);
		d = arena_get(n + 1);
		if (!d)
			break;
		memset(d, 'a' + fz_below(r, 26), n);
		d[n] = '\0';
		a->data = d;
		a->len = n + fz_chance(r, 500);
		break;
	case 2:		/* wrong length for an integer */
		n = bad_len[fz_below(r, ARRAY_SIZE(bad_len))];
		d = arena_get(n + 1);
		if (!d)
			break;
		rand_bytes(r, d, n);
		a->data = d;
		a->len = n;
		break;
	case 3:		/* the other flag bits of nla_type */
		a->type |= fz_chance(r, 500) ? NLA_F_NESTED :
					      NLA_F_NET_BYTEORDER;
		break;
	case 4:		/* nla_len lies */
		n = fz_below(r, ARRAY_SIZE(bad_nla_len) + 1);
		a->nla_len = n < ARRAY_SIZE(bad_nla_len) ? bad_nla_len[n] :
			     (int)a->len + NLA_HDRLEN + 4;
		break;
	case 5:		/* an early NUL */
		if (a->len > 2)
			a->data[fz_below(r, a->len - 1)] = '\0';
		break;
	case 6:		/* empty */
		a->len = 0;
		break;
	case 7:		/* random bytes of the same length */
		rand_bytes(r, a->data, a->len);
		break;
	default:	/* bits flipped */
		if (a->len)
			a->data[fz_below(r, a->len)] ^= 1 << fz_below(r, 8);
	}
}

static void mutate(struct fz_ctx *c, struct plan *p, const struct fz_op *o)
{
	const struct fz_set *set = o ? &fz_sets[o->set] : &fz_sets[0];
	struct fz_rng *r = &c->rng;
	unsigned char buf[512];
	struct plan_attr *a;
	size_t n;
	int i;

	switch (fz_below(r, 14)) {
	case 0:		/* a (required?) attribute dropped */
		if (p->n) {
			i = fz_below(r, p->n);
			memmove(&p->a[i], &p->a[i + 1],
				(p->n - i - 1) * sizeof(p->a[0]));
			p->n--;
		}
		break;
	case 1:		/* one duplicated */
		if (p->n)
			plan_add(p, p->a[0].type, p->a[p->n - 1].data,
				 p->a[p->n - 1].len);
		break;
	case 2:		/* an unknown attribute */
		n = fz_below(r, 16);
		rand_bytes(r, buf, n);
		switch (fz_below(r, 4)) {
		case 0:
			i = 0;
			break;
		case 1:
			i = set->max_id + 1 + fz_below(r, 64);
			break;
		case 2:
			i = 0x3fff;
			break;
		default:
			i = fz_below(r, 0x10000);
		}
		plan_add(p, i, buf, n);
		break;
	case 3:		/* nested garbage, in a known or unknown attribute */
		n = val_garbage_nest(r, buf, sizeof(buf), 1);
		a = plan_add(p, fz_below(r, set->max_id + 3), buf, n);
		if (a && fz_chance(r, 700))
			a->type |= NLA_F_NESTED;
		break;
	case 4:
	case 5:
	case 6:		/* an attribute's value or header broken */
		if (p->n)
			mutate_attr(c, o, &p->a[fz_below(r, p->n)]);
		break;
	case 7:		/* wrong version, reserved bits */
		if (fz_chance(r, 500))
			p->version = fz_chance(r, 500) ? 0 : 2 + fz_below(r, 254);
		else
			p->reserved = 1 + fz_below(r, 0xffff);
		break;
	case 8:		/* another command */
		p->cmd = fz_chance(r, 500) ? fz_below(r, fz_n_ops + 3) :
					     fz_below(r, 256);
		break;
	case 9:		/* flags anything */
		p->nl_flags = fz_next(r);
		break;
	case 10:	/* trailing bytes shorter than an attribute header */
		n = 1 + fz_below(r, 3);
		a = plan_add(p, 0, "\0\0\0", 4);
		if (a) {
			a->nla_len = -2 - (int)n;	/* raw tail of n bytes */
			rand_bytes(r, a->data, n);
		}
		break;
	case 11:	/* random bytes overwritten */
		p->flips = 1 + fz_below(r, 4);
		break;
	case 12:	/* attributes of another set */
		set = &fz_sets[fz_below(r, fz_n_sets)];
		if (set->n_attrs) {
			const struct fz_attr *x =
				&set->attrs[fz_below(r, set->n_attrs)];
			struct fz_op fake = { .set = set - fz_sets };

			add_value(c, p, &fake, x, false);
		}
		break;
	default:	/* many attributes */
		for (i = fz_below(r, 16); i > 0 && o; i--)
			add_request(c, p, o, false);
	}
}

/* ---- serialization -------------------------------------------------- */

static void put(struct fz_dgram *d, const void *p, size_t n)
{
	if (d->len + n > FZ_BUF_SIZE)
		n = FZ_BUF_SIZE - d->len;
	memcpy(d->buf + d->len, p, n);
	d->len += n;
}

static void pad4(struct fz_dgram *d)
{
	static const unsigned char zero[4];

	put(d, zero, NLA_ALIGN(d->len) - d->len);
}

static void serialize(struct fz_ctx *c, const struct plan *p, struct fz_dgram *d)
{
	struct nlmsghdr nlh = {
		.nlmsg_type = p->nl_type, .nlmsg_flags = p->nl_flags,
		.nlmsg_seq = p->seq,
	};
	struct genlmsghdr gh = {
		.cmd = p->cmd, .version = p->version, .reserved = p->reserved,
	};
	size_t off = d->len, i, len;
	struct nlmsghdr *h;

	if (d->n_sub < FZ_MAX_BATCH) {
		d->sub[d->n_sub].off = off;
		d->sub[d->n_sub].seq = p->seq;
		d->n_sub++;
	}
	put(d, &nlh, sizeof(nlh));
	if (!p->no_genl)
		put(d, &gh, sizeof(gh));
	for (i = 0; i < (size_t)p->n; i++) {
		const struct plan_attr *a = &p->a[i];
		struct nlattr na = { .nla_type = a->type };

		if (a->nla_len < -1) {		/* a raw tail */
			put(d, a->data, -a->nla_len - 2);
			continue;
		}
		na.nla_len = a->nla_len >= 0 ? (size_t)a->nla_len :
			     NLA_HDRLEN + a->len;
		put(d, &na, sizeof(na));
		put(d, a->data, a->len);
		pad4(d);
	}
	len = d->len - off;
	h = (struct nlmsghdr *)(d->buf + off);
	h->nlmsg_len = len + p->len_adjust;
	if (p->len_adjust < 0 && (long)len + p->len_adjust < 0)
		h->nlmsg_len = 0;
	for (i = 0; i < (size_t)p->flips && len > NLMSG_HDRLEN; i++)
		d->buf[off + NLMSG_HDRLEN + fz_below(&c->rng, len - NLMSG_HDRLEN)] =
			fz_next(&c->rng) >> 56;
	if (p->cut && p->cut < len)
		d->len = off + p->cut;
}

static void plan_init(struct fz_ctx *c, struct plan *p, const struct fz_op *o)
{
	memset(p, 0, sizeof(*p));
	p->nl_type = c->family;
	p->nl_flags = NLM_F_REQUEST | NLM_F_ACK;
	p->seq = ++c->seq & 0x7fffffff;
	p->cmd = o ? o->cmd : 0;
	p->version = fz_family_version;
}

static const struct fz_op *random_op(struct fz_ctx *c)
{
	struct fz_rng *r = &c->rng;
	int i;

	/* Mostly commands a user can send; state-changing ones often. */
	for (;;) {
		i = fz_below(r, fz_n_ops);
		if (!(fz_ops[i].flags & FZ_OP_NTF) || fz_chance(r, 100))
			return &fz_ops[i];
	}
}

/* A valid, or valid then mutated, message of a random op. */
static void gen_op(struct fz_ctx *c, struct fz_dgram *d, int mutations)
{
	const struct fz_op *o = random_op(c);
	struct plan p;
	int i;

	plan_init(c, &p, o);
	p.nl_flags = random_flags(c, o);
	if ((p.nl_flags & NLM_F_DUMP) != NLM_F_DUMP || fz_chance(&c->rng, 300))
		add_request(c, &p, o, mutations == 0);
	for (i = 0; i < mutations; i++)
		mutate(c, &p, o);
	if (mutations && fz_chance(&c->rng, 200))
		p.seq = fz_next(&c->rng) & 0x7fffffff;
	serialize(c, &p, d);
}

/* Broken headers: nlmsg_len lies, no or half a genlmsghdr, cut short. */
static void gen_truncated(struct fz_ctx *c, struct fz_dgram *d)
{
	const struct fz_op *o = random_op(c);
	struct fz_rng *r = &c->rng;
	struct plan p;

	plan_init(c, &p, o);
	add_request(c, &p, o, true);
	switch (fz_below(r, 6)) {
	case 0:		/* nlmsghdr only, or 1..3 bytes of genlmsghdr */
		p.no_genl = true;
		p.n = 0;
		if (fz_chance(r, 600) && plan_add(&p, 0, "\0\0\0", 4))
			p.a[0].nla_len = -2 - (int)(1 + fz_below(r, 3));
		break;
	case 1:		/* nlmsg_len smaller than the header */
		p.len_adjust = -(long)(NLMSG_HDRLEN + GENL_HDRLEN) +
			       fz_below(r, NLMSG_HDRLEN);
		p.n = 0;
		break;
	case 2:		/* nlmsg_len beyond the datagram */
		p.len_adjust = 1 + fz_below(r, 4096);
		break;
	case 3:		/* nlmsg_len short of the attributes */
		p.len_adjust = -(long)(1 + fz_below(r, 12));
		break;
	case 4:		/* the datagram cut inside the message */
		p.cut = 1 + fz_below(r, NLMSG_HDRLEN + GENL_HDRLEN + 8);
		break;
	default:	/* nlmsg_len 0 */
		p.len_adjust = -100000;
	}
	serialize(c, &p, d);
}

static void gen_random(struct fz_ctx *c, struct fz_dgram *d)
{
	struct fz_rng *r = &c->rng;
	size_t n = fz_below(r, 600);
	struct nlmsghdr *h;

	d->n_sub = 1;
	d->sub[0].off = 0;
	d->sub[0].seq = 0;
	rand_bytes(r, d->buf, n);
	d->len = n;
	if (n >= NLMSG_HDRLEN + GENL_HDRLEN && fz_chance(r, 700)) {
		h = (struct nlmsghdr *)d->buf;
		h->nlmsg_len = fz_chance(r, 800) ? n : h->nlmsg_len;
		h->nlmsg_type = c->family;
		h->nlmsg_flags |= NLM_F_REQUEST;
		h->nlmsg_seq = ++c->seq & 0x7fffffff;
		d->sub[0].seq = h->nlmsg_seq;
	}
}

/* nlctrl, an id no family has, or a control message type. */
static void gen_other_type(struct fz_ctx *c, struct fz_dgram *d)
{
	struct fz_rng *r = &c->rng;
	struct plan p;
	char name[32];

	plan_init(c, &p, NULL);
	p.nl_flags = random_flags(c, NULL);
	switch (fz_below(r, 3)) {
	case 0:
		p.nl_type = GENL_ID_CTRL;
		p.cmd = fz_chance(r, 500) ? CTRL_CMD_GETFAMILY :
					    fz_below(r, 16);
		if (fz_chance(r, 500)) {
			snprintf(name, sizeof(name), "%s", fz_family_name);
			plan_add(&p, CTRL_ATTR_FAMILY_NAME, name,
				 strlen(name) + 1);
		} else {
			plan_add(&p, CTRL_ATTR_FAMILY_ID, &c->family, 2);
		}
		if (fz_chance(r, 300))
			mutate(c, &p, NULL);
		break;
	case 1:
		p.nl_type = c->n_foreign ?
			c->foreign[fz_below(r, c->n_foreign)] : 0xffff;
		p.cmd = fz_below(r, 16);
		break;
	default:
		p.nl_type = fz_below(r, NLMSG_MIN_TYPE);
		p.cmd = fz_below(r, 16);
	}
	serialize(c, &p, d);
}

/* Several messages in one datagram, each valid or mutated. */
static void gen_batch(struct fz_ctx *c, struct fz_dgram *d)
{
	int n = 2 + fz_below(&c->rng, FZ_MAX_BATCH - 1), i;

	for (i = 0; i < n; i++)
		gen_op(c, d, fz_chance(&c->rng, 500) ? 0 : 1);
}

/* Bigger than any request: 16 KiB .. 200 KiB of attributes. */
static void gen_oversize(struct fz_ctx *c, struct fz_dgram *d)
{
	const struct fz_op *o = random_op(c);
	struct fz_rng *r = &c->rng;
	size_t total = 16384 + fz_below(r, 200 * 1024 - 16384), chunk;
	struct plan p;
	unsigned char *big;

	plan_init(c, &p, o);
	p.nl_flags = random_flags(c, o) | NLM_F_REQUEST;
	add_request(c, &p, o, true);
	while (total && p.n < MAX_ATTRS) {
		chunk = total > 60000 ? 60000 : total;
		big = arena_get(chunk);
		if (!big)
			break;
		memset(big, fz_below(r, 256), chunk);
		p.a[p.n].type = fz_chance(r, 500) ? 0x3fff :
				fz_below(r, fz_sets[o->set].max_id + 1);
		p.a[p.n].nla_len = -1;
		p.a[p.n].data = big;
		p.a[p.n].len = chunk;
		p.n++;
		total -= chunk;
	}
	serialize(c, &p, d);
}

/* The systematic part: op k with flag combination m, valid attributes. */
static bool gen_systematic(struct fz_ctx *c, struct fz_dgram *d)
{
	unsigned long n = 1UL << ARRAY_SIZE(flag_bits);
	unsigned long k = systematic_done / n, m = systematic_done % n;
	const struct fz_op *o;
	struct plan p;
	unsigned int i;

	if (k >= (unsigned long)fz_n_ops)
		return false;
	systematic_done++;
	o = &fz_ops[k];
	plan_init(c, &p, o);
	p.nl_flags = NLM_F_REQUEST;
	for (i = 0; i < ARRAY_SIZE(flag_bits); i++)
		if (m & (1UL << i))
			p.nl_flags |= flag_bits[i];
	add_request(c, &p, o, true);
	serialize(c, &p, d);
	return true;
}

void fz_gen(struct fz_ctx *c, struct fz_dgram *d)
{
	unsigned int k;

	arena_used = 0;
	memset(d, 0, sizeof(*d));
	d->buf = dgram_buf;
	if (gen_systematic(c, d))
		return;
	k = fz_below(&c->rng, 1000);
	if (k < 500)
		gen_op(c, d, 0);
	else if (k < 800)
		gen_op(c, d, fz_chance(&c->rng, 600) ? 1 :
			     fz_chance(&c->rng, 750) ? 2 : 3);
	else if (k < 860)
		gen_truncated(c, d);
	else if (k < 890)
		gen_random(c, d);
	else if (k < 940)
		gen_batch(c, d);
	else if (k < 980)
		gen_other_type(c, d);
	else
		gen_oversize(c, d);
}
