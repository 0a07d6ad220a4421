// SPDX-License-Identifier: GPL-2.0
/*
 * p2pfuzz: a seeded, replayable fuzzer for the "p2pmap" generic netlink
 * family, built from its YNL spec (gen-spec.py).
 *
 *   p2pfuzz [--seed N] [--count N] [--drop-privs | --drop-cap CAP |
 *           --container] [--expect-refused] [--check-every N] [--devices A,B,...]
 *           [--timeout-ms N] [--trace FROM-TO] [--dry-run] [--verbose]
 *
 * The same seed (and the same devices) sends the same messages; the run
 * ends with a hash of every byte sent, so a replay can be compared.  Exit
 * status 0 when no violation was seen, 1 otherwise, 2 on bad usage or when
 * the family cannot be reached.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include "fuzz.h"

/* ---- PRNG ----------------------------------------------------------- */

void fz_seed(struct fz_rng *r, uint64_t seed)
{
	/* splitmix64 of the seed: never the all-zero state */
	uint64_t z = seed + 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	r->s = (z ^ (z >> 31)) | 1;
}

uint64_t fz_next(struct fz_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545f4914f6cdd1dULL;
}

uint32_t fz_below(struct fz_rng *r, uint32_t n)
{
	return n ? (fz_next(r) >> 32) % n : 0;
}

bool fz_chance(struct fz_rng *r, uint32_t permille)
{
	return fz_below(r, 1000) < permille;
}

/* ---- labels --------------------------------------------------------- */

static const char *const extra_names[FZ_N_EXTRA] = {
	[FZ_L_UNKNOWN_CMD] = "(unknown cmd)", [FZ_L_CTRL] = "(nlctrl)",
	[FZ_L_FOREIGN] = "(no family)", [FZ_L_CONTROL] = "(control type)",
	[FZ_L_SHORT] = "(short)",
};

const char *fz_label_name(int l)
{
	return l < fz_n_ops ? fz_ops[l].name : extra_names[l - fz_n_ops];
}

int fz_label_of_cmd(int cmd)
{
	int op = fz_find_op(cmd);

	return op >= 0 ? op : fz_n_ops + FZ_L_UNKNOWN_CMD;
}

/* ---- devices -------------------------------------------------------- */

static int dev_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fz_dev *)a)->addr,
		      ((const struct fz_dev *)b)->addr);
}

static unsigned int read_hex(const char *addr, const char *file,
			     unsigned int dflt)
{
	char path[300];
	unsigned int v;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/%s", addr, file);
	f = fopen(path, "r");
	if (!f)
		return dflt;
	if (fscanf(f, "%x", &v) != 1)
		v = dflt;
	fclose(f);
	return v;
}

/* The guest's PCI functions, sorted: the same list gives the same run. */
static void scan_devices(struct fz_ctx *c)
{
	DIR *dir = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	char path[300];

	if (!dir)
		return;
	while ((e = readdir(dir)) && c->n_devs < FZ_MAX_DEVS) {
		struct fz_dev *d = &c->devs[c->n_devs];

		if (strlen(e->d_name) != 12)
			continue;
		memcpy(d->addr, e->d_name, FZ_ADDR_LEN);
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver",
			 e->d_name);
		d->bound = !access(path, F_OK);
		d->vendor = read_hex(e->d_name, "vendor", 0x1234);
		d->klass = read_hex(e->d_name, "class", 0xff0000);
		d->bridge = (d->klass >> 8) == 0x0604 ||
			    (d->klass >> 8) == 0x0609;
		c->n_devs++;
	}
	closedir(dir);
	qsort(c->devs, c->n_devs, sizeof(c->devs[0]), dev_cmp);
}

static void parse_devices(struct fz_ctx *c, char *list)
{
	char *tok;

	for (tok = strtok(list, ","); tok && c->n_devs < FZ_MAX_DEVS;
	     tok = strtok(NULL, ",")) {
		snprintf(c->devs[c->n_devs].addr, FZ_ADDR_LEN, "%s", tok);
		c->devs[c->n_devs].bound = true;
		c->devs[c->n_devs].vendor = 0x1234;
		c->devs[c->n_devs].klass = 0xff0000;
		c->n_devs++;
	}
}

/* ---- privileges ----------------------------------------------------- */

static int cap_number(const char *name)
{
	static const struct { const char *name; int cap; } caps[] = {
		{ "CAP_SYS_RAWIO", CAP_SYS_RAWIO },
		{ "CAP_SYS_ADMIN", CAP_SYS_ADMIN },
		{ "CAP_NET_ADMIN", CAP_NET_ADMIN },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(caps); i++)
		if (!strcasecmp(name, caps[i].name) ||
		    !strcasecmp(name, caps[i].name + 4))
			return caps[i].cap;
	return -1;
}

static int spec_cap_bit(int cap)
{
	return cap == CAP_NET_ADMIN ? FZ_CAP_NET_ADMIN :
	       cap == CAP_SYS_ADMIN ? FZ_CAP_SYS_ADMIN :
	       cap == CAP_SYS_RAWIO ? FZ_CAP_SYS_RAWIO : 0;
}

/* Root minus one capability: bounding, effective, permitted, inheritable. */
static int drop_cap(int cap)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];
	int i = cap / 32;
	uint32_t bit = 1u << (cap % 32);

	if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
		return -errno;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (syscall(SYS_capget, &h, d))
		return -errno;
	d[i].effective &= ~bit;
	d[i].permitted &= ~bit;
	d[i].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, d))
		return -errno;
	return 0;
}

static int drop_privs(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -errno;
	return 0;
}

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = -errno;
	close(fd);
	return err;
}

/*
 * What an unprivileged LXC container is: root of its own user namespace,
 * which owns its own network namespace; every capability there, none in
 * the initial one.  Checked: the network namespace is a new one.
 */
static int enter_container(void)
{
	char map[64];
	uid_t uid = getuid();
	gid_t gid = getgid();
	struct stat ours, host;
	int err;

	/* Before: from a user namespace of its own PID 1's is out of reach. */
	if (stat("/proc/self/ns/net", &host))
		return -errno;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
		return -errno;
	snprintf(map, sizeof(map), "0 %u 1\n", uid);
	err = write_file("/proc/self/uid_map", map);
	if (!err)
		err = write_file("/proc/self/setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1\n", gid);
	if (!err)
		err = write_file("/proc/self/gid_map", map);
	if (err)
		return err;
	if (stat("/proc/self/ns/net", &ours))
		return -errno;
	return ours.st_ino == host.st_ino ? -EEXIST : 0;
}

static void print_caps(void)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Cap", 3) || !strncmp(line, "Uid:", 4))
			printf("p2pfuzz: %s", line);
	fclose(f);
}

/* ---- the run -------------------------------------------------------- */

/* Which sub-messages netlink_rcv_skb hands to our family, and as what. */
static void classify(struct fz_ctx *c, struct fz_dgram *d)
{
	size_t off = 0, left = d->len, msglen;
	int i;

	for (i = 0; i < d->n_sub; i++) {
		d->sub[i].label = fz_n_ops + FZ_L_SHORT;
		d->sub[i].reaches = false;
	}
	while (left >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h = (const void *)(d->buf + off);
		struct fz_sub *s = NULL;

		for (i = 0; i < d->n_sub; i++)
			if (d->sub[i].off == off)
				s = &d->sub[i];
		if (!s)
			break;
		if (h->nlmsg_type == c->family)
			s->label = h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN) &&
				   left >= NLMSG_LENGTH(GENL_HDRLEN) ?
				   fz_label_of_cmd(d->buf[off + NLMSG_HDRLEN]) :
				   fz_n_ops + FZ_L_SHORT;
		else if (h->nlmsg_type == GENL_ID_CTRL)
			s->label = fz_n_ops + FZ_L_CTRL;
		else if (h->nlmsg_type < NLMSG_MIN_TYPE)
			s->label = fz_n_ops + FZ_L_CONTROL;
		else
			s->label = fz_n_ops + FZ_L_FOREIGN;
		if (h->nlmsg_len < NLMSG_HDRLEN || left < h->nlmsg_len)
			break;
		s->reaches = h->nlmsg_flags & NLM_F_REQUEST &&
			     h->nlmsg_type == c->family;
		s->admin = s->label < fz_n_ops &&
			   fz_ops[s->label].flags & FZ_OP_ADMIN;
		msglen = NLMSG_ALIGN(h->nlmsg_len);
		if (msglen > left)
			msglen = left;
		off += msglen;
		left -= msglen;
	}
}

static void account(struct fz_ctx *c, struct fz_dgram *d)
{
	int i;

	for (i = 0; i < d->n_sub; i++) {
		struct fz_sub *s = &d->sub[i];
		struct fz_stat *t = &c->stat[s->label];

		t->sent++;
		if (s->got_err && s->err) {
			t->refused++;
			t->err[s->err < FZ_N_ERRNO ? s->err : 0]++;
		} else {
			t->accepted++;
			if (!s->got_err && !s->got_reply && !s->dump_done)
				t->silent++;
		}
		if (s->reaches && s->label < fz_n_ops &&
		    !(fz_ops[s->label].flags & FZ_OP_ADMIN) &&
		    s->got_err && s->err == EPERM)
			fz_violation(c, "%s (a read) refused with EPERM",
				     fz_ops[s->label].name);
		if (!s->reaches || !s->admin)
			continue;
		c->sc_attempted++;
		if (!s->got_err || !s->err)
			c->sc_accepted++;
		else if (s->err == EPERM)
			c->sc_eperm++, c->sc_eperm_msg += s->err_msg;
		else
			c->sc_other++;
	}
}

static void hash_dgram(struct fz_ctx *c, const struct fz_dgram *d)
{
	size_t i;

	for (i = 0; i < d->len; i++) {
		c->hash ^= d->buf[i];
		c->hash *= 0x100000001b3ULL;
	}
	c->hash ^= d->len;
	c->hash *= 0x100000001b3ULL;
}

/* --trace: the datagram, 16 bytes a line (the first 512). */
static void hexdump(const struct fz_dgram *d)
{
	size_t i;

	for (i = 0; i < d->len && i < 512; i++)
		printf("%s%02x%s", i % 16 ? "" : "p2pfuzz:   ", d->buf[i],
		       i % 16 == 15 || i + 1 == d->len ? "\n" : " ");
	if (d->len > 512)
		printf("\np2pfuzz:   ...\n");
}

static void print_stats(const struct fz_ctx *c)
{
	int l, e;

	for (l = 0; l < fz_n_ops + FZ_N_EXTRA; l++) {
		const struct fz_stat *t = &c->stat[l];

		if (!t->sent)
			continue;
		printf("p2pfuzz: %-15s sent %7lu accepted %7lu (silent %lu) refused %7lu:",
		       fz_label_name(l), t->sent, t->accepted, t->silent,
		       t->refused);
		for (e = 0; e < FZ_N_ERRNO; e++)
			if (t->err[e])
				printf(" %s %lu", e ? strerrorname_np(e) : "?",
				       t->err[e]);
		printf("\n");
	}
}

static void usage(void)
{
	fprintf(stderr,
		"usage: p2pfuzz [--seed N] [--count N] [--drop-privs | --drop-cap CAP |\n"
		"               --container] [--expect-refused] [--check-every N] [--devices A,B,...]\n"
		"               [--timeout-ms N] [--trace FROM-TO] [--dry-run] [--verbose]\n");
	exit(2);
}

struct opts {
	uint64_t seed;
	unsigned long count, check_every;
	bool drop_privs, container, expect_refused;
	int drop_cap;
	const char *drop_cap_name;
	char *devices;
};

static void parse_opts(struct fz_ctx *c, struct opts *o, int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--dry-run")) {
			c->dry_run = true;
		} else if (!strcmp(a, "--verbose")) {
			c->verbose = true;
		} else if (!strcmp(a, "--drop-privs")) {
			o->drop_privs = true;
		} else if (!strcmp(a, "--container")) {
			o->container = true;
		} else if (!strcmp(a, "--expect-refused")) {
			o->expect_refused = true;
		} else if (!v) {
			usage();
		} else if (!strcmp(a, "--seed")) {
			o->seed = strtoull(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--count")) {
			o->count = strtoul(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--check-every")) {
			o->check_every = strtoul(v, NULL, 0);
			i++;
		} else if (!strcmp(a, "--timeout-ms")) {
			c->timeout_ms = atoi(v);
			i++;
		} else if (!strcmp(a, "--trace")) {
			/* --trace FROM-TO: messages FROM..TO-1 in full */
			if (sscanf(v, "%lu-%lu", &c->trace_from,
				   &c->trace_to) != 2)
				usage();
			i++;
		} else if (!strcmp(a, "--devices")) {
			o->devices = argv[++i];
		} else if (!strcmp(a, "--drop-cap")) {
			o->drop_cap = cap_number(v);
			o->drop_cap_name = v;
			if (o->drop_cap < 0)
				usage();
			i++;
		} else {
			usage();
		}
	}
}

static int setup(struct fz_ctx *c, struct opts *o)
{
	int err = 0;

	if (o->devices)
		parse_devices(c, o->devices);
	else
		scan_devices(c);
	if (o->drop_privs)
		err = drop_privs();
	else if (o->drop_cap >= 0)
		err = drop_cap(o->drop_cap);
	else if (o->container)
		err = enter_container();
	if (err) {
		printf("p2pfuzz: dropping privileges: %s\n", strerror(-err));
		return 2;
	}
	print_caps();
	if (c->dry_run) {
		c->family = 0x20;
		return 0;
	}
	err = fz_open(c);
	if (!err)
		err = fz_resolve(c);
	if (err) {
		printf("p2pfuzz: family %s: %s\n", fz_family_name,
		       strerror(-err));
		return 2;
	}
	err = fz_join_events(c);
	printf("p2pfuzz: family %s id %d maxattr %d; events group: %s\n",
	       fz_family_name, c->family, c->kernel_maxattr,
	       err ? strerror(-err) : "joined");
	return 0;
}

/* Which capabilities the spec says state changes need, as a mask. */
static int spec_caps(void)
{
	int i, caps = 0;

	for (i = 0; i < fz_n_ops; i++)
		if (fz_ops[i].flags & FZ_OP_ADMIN)
			caps |= fz_ops[i].caps;
	return caps;
}

/*
 * Refusals are owed when the run lacks a capability the spec asks of every
 * state-changing command: with --drop-privs all of them, with --drop-cap
 * the one dropped; from a container (another network namespace) always:
 * state changes come only from the host's.
 */
static bool refusal_owed(const struct opts *o)
{
	if (o->drop_privs || o->container)
		return true;
	return o->drop_cap >= 0 && spec_caps() & spec_cap_bit(o->drop_cap);
}

static int finish(struct fz_ctx *c, const struct opts *o)
{
	bool owed = refusal_owed(o);

	print_stats(c);
	fz_print_msgs();
	printf("p2pfuzz: replies %lu, dumps %lu (%lu interrupted), extack messages %lu, offsets %lu, events %lu (%lu overruns), timeouts %lu\n",
	       c->replies, c->dumps, c->dump_intr, c->extack_msgs,
	       c->extack_offs, c->events, c->ev_overruns, c->timeouts);
	printf("p2pfuzz: state-changing: attempted %lu accepted %lu refused-eperm %lu (with extack message %lu) refused-other %lu\n",
	       c->sc_attempted, c->sc_accepted, c->sc_eperm, c->sc_eperm_msg,
	       c->sc_other);
	if (o->expect_refused && !owed)
		printf("p2pfuzz: refusals not owed: the protocol (include/uapi/linux/p2pmap.h) does not ask %s of state changes\n",
		       o->drop_cap_name);
	if (o->expect_refused && owed) {
		if (!c->sc_attempted || !c->sc_eperm)
			fz_violation(c, "no state-changing message reached the family and was refused");
		if (c->sc_accepted)
			fz_violation(c, "%lu state-changing messages accepted without the privilege",
				     c->sc_accepted);
	}
	printf("p2pfuzz: sent %lu messages, hash %016llx, %lu violations (seed %llu)\n",
	       c->index, (unsigned long long)c->hash, c->violations,
	       (unsigned long long)o->seed);
	return c->violations ? 1 : 0;
}

static void run(struct fz_ctx *c, const struct opts *o)
{
	struct fz_dgram d;

	for (c->index = 0; c->index < o->count; c->index++) {
		if (c->index % 997 == 0)
			fz_set_sockopts(c, fz_chance(&c->rng, 300),
					fz_chance(&c->rng, 500));
		fz_gen(c, &d);
		hash_dgram(c, &d);
		c->trace = c->index >= c->trace_from && c->index < c->trace_to;
		if (c->verbose || c->trace)
			printf("p2pfuzz: message %lu: %zu bytes\n", c->index,
			       d.len);
		if (c->trace)
			hexdump(&d);
		if (c->dry_run)
			continue;
		classify(c, &d);
		if (fz_exchange(c, &d) == -ETIMEDOUT && c->timeouts > 5)
			break;
		account(c, &d);
		fz_drain_events(c);
		if (o->check_every && (c->index + 1) % o->check_every == 0)
			fz_check_state(c);
		if ((c->index + 1) % 25000 == 0) {
			printf("p2pfuzz: %lu messages\n", c->index + 1);
			fflush(stdout);
		}
		if (c->violations > 200)
			break;
	}
	if (!c->dry_run)
		fz_check_state(c);
}

int main(int argc, char **argv)
{
	static struct fz_ctx c = { .fd = -1, .ev_fd = -1, .timeout_ms = 5000 };
	struct opts o = { .count = 100000, .check_every = 2000,
			  .drop_cap = -1 };
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_opts(&c, &o, argc, argv);
	printf("p2pfuzz: seed %llu, %lu messages%s%s%s%s (replay: --seed %llu)\n",
	       (unsigned long long)o.seed, o.count,
	       o.drop_privs ? ", unprivileged (uid 65534)" : "",
	       o.container ? ", from a container (own user and network namespaces)" : "",
	       o.drop_cap >= 0 ? ", root without " : "",
	       o.drop_cap >= 0 ? o.drop_cap_name : "",
	       (unsigned long long)o.seed);
	fz_seed(&c.rng, o.seed);
	err = setup(&c, &o);
	if (err)
		return err;
	printf("p2pfuzz: %d devices, spec: %d ops, %d attribute sets; state changes need%s%s%s\n",
	       c.n_devs, fz_n_ops, fz_n_sets,
	       spec_caps() & FZ_CAP_NET_ADMIN ? " CAP_NET_ADMIN" : "",
	       spec_caps() & FZ_CAP_SYS_ADMIN ? " CAP_SYS_ADMIN" : "",
	       spec_caps() & FZ_CAP_SYS_RAWIO ? " CAP_SYS_RAWIO" : "");
	if (!c.dry_run && fz_check_state(&c))
		printf("p2pfuzz: the state was inconsistent before the run\n");
	run(&c, &o);
	return finish(&c, &o);
}
