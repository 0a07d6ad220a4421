// SPDX-License-Identifier: GPL-2.0
/* p2pmap policy [show] [--json] | policy set [--drivers L] [--vendors L] ... */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_getopt.h"
#include "format.h"
#include "format_json.h"
#include "policy.h"

#define POLICY_USAGE	cmd_usage("policy", NULL)

static const struct {
	const char *opt;
	enum policy_list which;
} set_opts[] = {
	{ "--drivers", POLICY_DRIVERS },
	{ "--vendors", POLICY_VENDORS },
	{ "--classes", POLICY_CLASSES },
	{ "--numa", POLICY_NUMA_NODES },
};

static const char **req_field(struct policy_req *req, enum policy_list which)
{
	switch (which) {
	case POLICY_DRIVERS:
		return &req->drivers;
	case POLICY_VENDORS:
		return &req->vendors;
	case POLICY_CLASSES:
		return &req->classes;
	case POLICY_NUMA_NODES:
		break;
	}
	return &req->numa_nodes;
}

/* policy set's list option @opt: 1 when it is none of set_opts. */
static int set_list(struct policy_req *req, const char *opt,
		    const char *value)
{
	char err[P2PMAP_POLICY_LEN + 64];
	size_t k;

	for (k = 0; k < sizeof(set_opts) / sizeof(set_opts[0]); k++) {
		if (strcmp(opt, set_opts[k].opt))
			continue;
		if (!opt_no_check &&
		    policy_list_check(set_opts[k].which, value, err,
				      sizeof(err))) {
			fprintf(stderr, "p2pmap: invalid %s list \"%s\": %s\n",
				policy_list_name(set_opts[k].which), value, err);
			return -1;
		}
		*req_field(req, set_opts[k].which) = value;
		return 0;
	}
	return 1;
}

static int show(struct p2pmap_nl *nl, bool json)
{
	struct p2pmap_policy p;

	if (policy_get(nl, &p)) {
		pnl_perror(&nl->error, "policy get");
		return cmd_exit_nl(nl);
	}
	if (json)
		json_policy(stdout, &p);
	else
		format_policy(stdout, &p);
	return EXIT_OK;
}

int cmd_policy(int argc, char **argv)
{
	struct policy_req req = { 0 };
	struct p2pmap_nl nl;
	bool set = false, json = false, force = false, dry_run = false, go;
	const char *sub = "show";
	struct cmd_getopt g;
	int ret;

	if (argc > 1 && (!strcmp(argv[1], "show") || !strcmp(argv[1], "set"))) {
		set = !strcmp(argv[1], "set");
		sub = argv[1];
		argc--;
		argv++;
	}
	cmd_getopt_init(&g, "policy", sub, argc, argv);
	while ((ret = cmd_getopt_next(&g)) > 0) {
		if (cmd_opt_is(&g, "--json")) {
			json = true;
			continue;
		}
		if (set && cmd_opt_is(&g, "--force")) {
			force = true;
			continue;
		}
		if (set && cmd_opt_is(&g, "--dry-run")) {
			dry_run = true;
			continue;
		}
		ret = set ? set_list(&req, g.opt->name, g.arg) : 1;
		if (ret < 0)
			return EXIT_USAGE;
		if (ret > 0)
			return cmd_getopt_refuse(&g);
	}
	if (ret < 0)
		return EXIT_USAGE;
	if (g.npos)
		return cmd_getopt_extra(&g, g.pos[0]);
	if (set && !req.drivers && !req.vendors && !req.classes &&
	    !req.numa_nodes) {
		fprintf(stderr, "p2pmap: policy set: nothing to set; %s\n",
			POLICY_USAGE);
		return EXIT_USAGE;
	}

	/*
	 * "" empties a list.  For vendors, classes and NUMA nodes that is no
	 * filter (any); for drivers it is an allowlist of none: every link
	 * blocked at once, which a running server notices first.
	 */
	if (set && req.drivers && !req.drivers[0] && !force && !dry_run) {
		fprintf(stderr, "p2pmap: policy set: --drivers \"\" admits no driver: every device leaves the policy and every link is blocked at once (\"\" means any only for --vendors, --classes and --numa); add --force to do it\n");
		return EXIT_USAGE;
	}
	if (pnl_open_required(&nl))
		return cmd_exit_nl(&nl);
	if (set) {
		/* What it would unmap, and whether a GPU of that is in use. */
		ret = policy_guard(&nl, &req, "policy set", dry_run, force, &go);
		if (!go)
			goto out;
		if (policy_set(&nl, &req)) {
			pnl_perror(&nl.error, "policy set");
			ret = cmd_exit_nl(&nl);
			goto out;
		}
	}
	ret = show(&nl, json);
out:
	pnl_close(&nl);
	return ret;
}
