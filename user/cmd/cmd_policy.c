// SPDX-License-Identifier: GPL-2.0
/* p2pmap policy [show] [--json] | policy set [--drivers L] [--vendors L] ... */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cmd_table.h"
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

/* "--opt VALUE" or "--opt=VALUE"; 1 when argv[*i] is none of set_opts. */
static int parse_set_opt(int argc, char **argv, int *i, struct policy_req *req)
{
	char err[P2PMAP_POLICY_LEN + 64];
	const char *value;
	size_t k, len;

	for (k = 0; k < sizeof(set_opts) / sizeof(set_opts[0]); k++) {
		len = strlen(set_opts[k].opt);
		if (strncmp(argv[*i], set_opts[k].opt, len))
			continue;
		if (argv[*i][len] == '=') {
			value = argv[*i] + len + 1;
		} else if (!argv[*i][len]) {
			if (*i + 1 == argc) {
				fprintf(stderr, "p2pmap: %s needs a list (\"\" clears it)\n",
					set_opts[k].opt);
				return -1;
			}
			value = argv[++*i];
		} else {
			continue;
		}
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
	int i = 1, ret;

	if (argc > 1 && !strcmp(argv[1], "show")) {
		i = 2;
	} else if (argc > 1 && !strcmp(argv[1], "set")) {
		set = true;
		i = 2;
	}
	for (; i < argc; i++) {
		if (!strcmp(argv[i], "--json")) {
			json = true;
			continue;
		}
		if (set && !strcmp(argv[i], "--force")) {
			force = true;
			continue;
		}
		if (set && !strcmp(argv[i], "--dry-run")) {
			dry_run = true;
			continue;
		}
		ret = set ? parse_set_opt(argc, argv, &i, &req) : 1;
		if (ret < 0)
			return EXIT_USAGE;
		if (ret > 0) {
			fprintf(stderr, "p2pmap: unknown argument \"%s\"; %s\n",
				argv[i], POLICY_USAGE);
			return EXIT_USAGE;
		}
	}
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
