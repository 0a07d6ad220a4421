// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap link add|del A B [--both] [--bars MASK]
 * p2pmap link auto [--numa N] [--driver D] [--dry-run] [-v]
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "autolink.h"
#include "cmd.h"
#include "cmd_getopt.h"
#include "cmd_table.h"
#include "dev.h"
#include "format.h"
#include "in_use.h"
#include "link.h"
#include "pciaddr.h"
#include "snapshot.h"

#define LINK_USAGE	cmd_usage("link", NULL)

/*
 * An address argument, normalised unless --no-check.  With --no-check the
 * string is sent as given, however long, and "-" sends no address at all.
 */
struct link_addr {
	const char *s;
	char buf[P2PMAP_ADDR_LEN];
};

struct link_args {
	struct link_addr a;
	struct link_addr b;
	bool both;
	bool force, dry_run;		/* del: in use anyway / say only */
	bool has_mask;
	uint32_t mask;
};

static int parse_addr(const char *arg, struct link_addr *addr)
{
	char err[64];

	if (opt_no_check) {
		addr->s = arg;
		return 0;
	}
	if (pciaddr_parse(arg, addr->buf, err, sizeof(err))) {
		fprintf(stderr, "p2pmap: invalid PCI address \"%s\": %s\n",
			arg, err);
		return -1;
	}
	addr->s = addr->buf;
	return 0;
}

/*
 * A BAR mask in hex ("0x3") or decimal ("3"), 1..P2PMAP_BAR_MASK_ALL.
 * --no-check lets any u32 through, so tests can see the kernel refuse it.
 */
static int parse_mask(const char *arg, uint32_t *mask)
{
	const char *digits = arg;
	unsigned long v;
	char *end;
	int base = 10;

	if (!strncmp(arg, "0x", 2) || !strncmp(arg, "0X", 2)) {
		digits = arg + 2;
		base = 16;
	}
	if (!isxdigit((unsigned char)*digits))
		goto bad;
	errno = 0;
	v = strtoul(digits, &end, base);
	if (errno || *end || v > UINT32_MAX)
		goto bad;
	if (!opt_no_check && (v < 1 || v > P2PMAP_BAR_MASK_ALL))
		goto bad;
	*mask = v;
	return 0;
bad:
	fprintf(stderr, "p2pmap: invalid BAR mask \"%s\" (expected 1..0x%x)\n",
		arg, P2PMAP_BAR_MASK_ALL);
	return -1;
}

/* link add|del A B ...: argv[0] is the subcommand. */
static int parse_args(int argc, char **argv, bool allow_mask,
		      struct link_args *args)
{
	struct cmd_getopt g;
	int r;

	memset(args, 0, sizeof(*args));
	cmd_getopt_init(&g, "link", argv[0], argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--both")) {
			args->both = true;
		} else if (!allow_mask && cmd_opt_is(&g, "--force")) {
			args->force = true;
		} else if (!allow_mask && cmd_opt_is(&g, "--dry-run")) {
			args->dry_run = true;
		} else if (allow_mask && cmd_opt_is(&g, "--bars")) {
			if (parse_mask(g.arg, &args->mask))
				return -1;
			args->has_mask = true;
		} else {
			cmd_getopt_refuse(&g);
			return -1;
		}
	}
	if (r < 0)
		return -1;
	if (g.npos > 2) {
		fprintf(stderr, "p2pmap: too many arguments; %s\n",
			LINK_USAGE);
		return -1;
	}
	if (g.npos != 2) {
		fprintf(stderr, "p2pmap: need two addresses; %s\n", LINK_USAGE);
		return -1;
	}
	if (parse_addr(g.pos[0], &args->a) || parse_addr(g.pos[1], &args->b))
		return -1;
	return 0;
}

static void perror_link(const struct pnl_error *e, const char *op,
			const char *from, const char *to)
{
	char what[128];

	snprintf(what, sizeof(what), "%s %s -> %s", op, from, to);
	pnl_perror(e, what);
}

/* What a link left in @state after its add waits for. */
static const char *not_mapped_why(const struct p2pmap_link *l)
{
	if (!l->has_state)
		return "the module did not say its state";
	switch (l->state) {
	case P2PMAP_LINK_PENDING:
		return "a side is absent or unbound; it maps by itself once both are bound";
	case P2PMAP_LINK_BLOCKED:
		return "a side is not admitted by the policy (\"p2pmap list --json\" gives each device's admit_reason, \"p2pmap policy set\" changes it) or is bound to a driver that manages DMA itself (vfio-pci)";
	case P2PMAP_LINK_ERROR:
		return "mapping it failed (the reason above)";
	}
	return "its state is unknown";
}

/*
 * LINK_GET after an add, to learn and print the state.  The kernel took
 * the link; it is kept whatever its state.  Returns EXIT_OK when it is
 * mapped or native, EXIT_FAILED when it maps nothing (said on stderr), or
 * the exit code of a failed LINK_GET.
 */
static int show_link_if(struct p2pmap_nl *nl, const char *from,
			const char *to, bool mapped_too)
{
	struct p2pmap_link link;

	if (link_get(nl, from, to, &link)) {
		perror_link(&nl->error, "link get", from, to);
		return cmd_exit_nl(nl);
	}
	/* Print what we asked for if the reply did not name the link. */
	if (!link.initiator[0])
		snprintf(link.initiator, sizeof(link.initiator), "%s", from);
	if (!link.target[0])
		snprintf(link.target, sizeof(link.target), "%s", to);
	if (link.has_state && (link.state == P2PMAP_LINK_MAPPED ||
			       link.state == P2PMAP_LINK_NATIVE)) {
		if (mapped_too)
			format_link_result(stdout, &link);
		return EXIT_OK;
	}
	format_link_result(stdout, &link);
	fflush(stdout);
	fprintf(stderr, "p2pmap: link %s -> %s is configured but maps nothing (%s): %s; \"p2pmap link del\" removes it\n",
		link.initiator, link.target,
		link.has_state ? format_link_state(link.state) : "unknown",
		not_mapped_why(&link));
	return EXIT_FAILED;
}

static int show_link(struct p2pmap_nl *nl, const char *from, const char *to)
{
	return show_link_if(nl, from, to, true);
}

/* Exit 1 too when a link the kernel took maps nothing (show_link()). */
static int link_add_cmd(struct p2pmap_nl *nl, const struct link_args *args)
{
	const char *a = args->a.s, *b = args->b.s;
	struct pnl_error err;
	int ret, ret2;

	if (link_add(nl, a, b, args->has_mask, args->mask)) {
		perror_link(&nl->error, "link add", a, b);
		return cmd_exit_nl(nl);
	}
	if (args->both && link_add(nl, b, a, args->has_mask, args->mask)) {
		/* Undo the first direction so that nothing changes. */
		err = nl->error;
		ret = cmd_exit_nl(nl);
		if (link_del(nl, a, b))
			perror_link(&nl->error, "link del (undo)", a, b);
		perror_link(&err, "link add", b, a);
		return ret;
	}

	ret = show_link(nl, a, b);
	if (args->both && (ret2 = show_link(nl, b, a)) && !ret)
		ret = ret2;
	return ret;
}

/*
 * Deleting a mapped link unmaps the target's BARs from the initiator's
 * domain at once: a running job's P2P then faults.  Refused while a
 * process holds either GPU, unless --force; --dry-run only says.
 */
static int del_one(struct p2pmap_nl *nl, const struct link_args *args,
		   const char *from, const char *to)
{
	struct p2pmap_link link;
	bool mapped, known;
	size_t users;

	/* No such link (or no answer): link_del() below says why. */
	known = !link_get(nl, from, to, &link);
	mapped = known && link.has_state && link.state == P2PMAP_LINK_MAPPED;
	users = mapped ? in_use_say(from, to, "link del") : 0;
	if (args->dry_run) {
		if (!known) {
			perror_link(&nl->error, "link del", from, to);
			return cmd_exit_nl(nl);
		}
		printf("link %s -> %s: would be deleted (%s%s)\n", from, to,
		       link.has_state ? format_link_state(link.state) :
					"unknown",
		       mapped ? ": its identity mappings go at once" : "");
		return EXIT_OK;
	}
	if (users && !args->force) {
		fprintf(stderr, "p2pmap: link del %s -> %s: refused: its GPUs are in use and their P2P would fault at once; stop those processes first, or --force\n",
			from, to);
		return EXIT_FAILED;
	}
	if (link_del(nl, from, to)) {
		perror_link(&nl->error, "link del", from, to);
		return cmd_exit_nl(nl);
	}
	printf("link %s -> %s: deleted\n", from, to);
	return EXIT_OK;
}

static int link_del_cmd(struct p2pmap_nl *nl, const struct link_args *args)
{
	int ret = del_one(nl, args, args->a.s, args->b.s), ret2;

	if (args->both &&
	    (ret2 = del_one(nl, args, args->b.s, args->a.s)) && !ret)
		ret = ret2;
	return ret;
}

struct auto_args {
	struct autolink_filter filter;
	bool dry_run;
	bool verbose;		/* -v: each planned and each added link */
};

/* link auto ...: argv[0] is "auto". */
static int parse_auto_args(int argc, char **argv, struct auto_args *args)
{
	struct cmd_getopt g;
	char *end;
	long v;
	int r;

	memset(args, 0, sizeof(*args));
	cmd_getopt_init(&g, "link", "auto", argc, argv);
	while ((r = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--dry-run")) {
			args->dry_run = true;
		} else if (cmd_opt_is(&g, "-v") || cmd_opt_is(&g, "--verbose")) {
			args->verbose = true;
		} else if (cmd_opt_is(&g, "--numa")) {
			errno = 0;
			v = strtol(g.arg, &end, 10);
			if (!*g.arg || *end || errno || v < 0 || v > 65535) {
				fprintf(stderr, "p2pmap: invalid NUMA node \"%s\"\n",
					g.arg);
				return -1;
			}
			args->filter.has_numa = true;
			args->filter.numa = v;
		} else if (cmd_opt_is(&g, "--driver")) {
			if (!*g.arg) {
				fprintf(stderr, "p2pmap: --driver needs a name\n");
				return -1;
			}
			args->filter.driver = g.arg;
		} else {
			cmd_getopt_refuse(&g);
			return -1;
		}
	}
	if (r < 0)
		return -1;
	if (g.npos) {
		cmd_getopt_extra(&g, g.pos[0]);
		return -1;
	}
	return 0;
}

/* link show|list [--json]: status, by iproute2's habit. */
static int link_show(int argc, char **argv)
{
	bool json;

	return cmd_getopt_json_only("link", argv[0], argc, argv, &json) ?:
	       status_show(json);
}

static int link_auto_cmd(struct p2pmap_nl *nl, const struct auto_args *args)
{
	struct p2pmap_dev_list devs = { 0 };
	struct p2pmap_link_list links = { 0 };
	struct autolink_plan plan = { 0 };
	size_t i, added = 0, there = 0, unmapped = 0;
	int ret = EXIT_FAILED, err;
	const char *op;

	if (snapshot_read(nl, &links, &devs, &op)) {
		pnl_perror(&nl->error, op);
		ret = cmd_exit_nl(nl);
		goto out;
	}
	if (autolink_plan(devs.devs, devs.n, links.links, links.n,
			  &args->filter, &plan)) {
		fprintf(stderr, "p2pmap: out of memory\n");
		goto out;
	}
	for (i = 0; i < plan.nskips; i++)
		printf("skip %s: %s\n", plan.skips[i].addr, plan.skips[i].why);
	if (plan.ncands < 2) {
		printf("link auto: fewer than two devices to link\n");
		ret = EXIT_NO_GPU;
		goto out;
	}
	for (i = 0; args->verbose && i < plan.npairs; i++)
		printf("link %s -> %s: %s\n", plan.pairs[i].initiator,
		       plan.pairs[i].target,
		       plan.pairs[i].exists ? "exists" : "add");
	if (args->dry_run) {
		printf("link auto: %zu devices, %zu links would be added\n",
		       plan.ncands, plan.nadd);
		ret = EXIT_OK;
		goto out;
	}

	ret = EXIT_OK;
	for (i = 0; i < plan.npairs; i++) {
		const struct autolink_pair *p = &plan.pairs[i];

		if (p->exists) {
			there++;
			continue;
		}
		if (link_add(nl, p->initiator, p->target, false, 0)) {
			if (nl->error.err == -EEXIST) {
				there++;	/* added meanwhile: fine */
				continue;
			}
			perror_link(&nl->error, "link add", p->initiator,
				    p->target);
			/* From the kernel's own list: ENODEV is a race here. */
			if (!ret)
				ret = cmd_exit_errno(nl->error.err);
			if (pnl_sender_refused(&nl->error))
				break;	/* the next ones would be too */
			continue;
		}
		added++;
		/* A link that maps nothing is always said, a mapped one on -v. */
		err = show_link_if(nl, p->initiator, p->target, args->verbose);
		unmapped += err == EXIT_FAILED;
		if (err && !ret)
			ret = err;
	}
	printf("link auto: %zu devices, %zu links added, %zu already there",
	       plan.ncands, added, there);
	if (unmapped)
		printf("; %zu of them map nothing (above)\n", unmapped);
	else
		printf("%s\n", added ? "; all mapped" : "");
out:
	autolink_plan_free(&plan);
	link_list_free(&links);
	dev_list_free(&devs);
	return ret;
}

int cmd_link(int argc, char **argv)
{
	struct auto_args auto_args;
	struct link_args args;
	struct p2pmap_nl nl;
	bool add;
	int ret;

	if (argc >= 2 && !strcmp(argv[1], "auto")) {
		if (parse_auto_args(argc - 1, argv + 1, &auto_args))
			return EXIT_USAGE;
		if (pnl_open_required(&nl))
			return cmd_exit_nl(&nl);
		ret = link_auto_cmd(&nl, &auto_args);
		pnl_close(&nl);
		return ret;
	}
	/* iproute2's habits: "link show" / "link list" are the status. */
	if (argc >= 2 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "list")))
		return link_show(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "delete"))
		argv[1] = "del";
	if (argc >= 2 && !strcmp(argv[1], "flush"))
		return link_flush(argc - 1, argv + 1);
	if (argc < 2 || (strcmp(argv[1], "add") && strcmp(argv[1], "del"))) {
		fprintf(stderr, "p2pmap: %s\n", LINK_USAGE);
		return EXIT_USAGE;
	}
	add = !strcmp(argv[1], "add");
	if (parse_args(argc - 1, argv + 1, add, &args))
		return EXIT_USAGE;

	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	ret = add ? link_add_cmd(&nl, &args) : link_del_cmd(&nl, &args);
	pnl_close(&nl);
	return ret;
}
