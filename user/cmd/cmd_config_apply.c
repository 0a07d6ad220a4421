// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap config apply [--file PATH] [--dry-run] [--force]: what the next
 * boot would configure, in the running module now, without a reboot.  The
 * file is read as "config check" reads it.  The policy lists it sets
 * replace the running ones (those it does not set are kept), guarded as
 * "policy set" is: what they would unmap is printed, and refused without
 * --force while a GPU of it is in use.  Then its links are added; links
 * already there are left as they are, and no link is removed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "link.h"
#include "modprobe_check.h"
#include "policy.h"

static bool configured(const struct p2pmap_link_list *list,
		       const struct modprobe_link *l)
{
	size_t i;

	for (i = 0; i < list->n; i++)
		if (!strcmp(list->links[i].initiator, l->initiator) &&
		    !strcmp(list->links[i].target, l->target))
			return true;
	return false;
}

/*
 * The file's policy lists, through policy_guard(): returns the exit code;
 * *go false when nothing more may be done.
 */
static int apply_policy(struct p2pmap_nl *nl, const char *path,
			const struct modprobe_check *res, bool dry_run,
			bool force, bool *go)
{
	struct policy_req req = {
		.drivers = res->policy[0],
		.vendors = res->policy[1],
		.classes = res->policy[2],
		.numa_nodes = res->policy[3],
	};
	int ret;

	*go = true;
	if (res->policy_bad) {
		fprintf(stderr, "p2pmap: config apply: %s: a policy list is malformed (above): the running policy is kept\n",
			path);
		return EXIT_OK;
	}
	if (!req.drivers && !req.vendors && !req.classes && !req.numa_nodes)
		return EXIT_OK;
	if (req.drivers && !req.drivers[0] && !force && !dry_run) {
		fprintf(stderr, "p2pmap: config apply: %s: drivers=\"\" admits no driver and would block every link at once: nothing changed; add --force to do it\n",
			path);
		*go = false;
		return EXIT_USAGE;
	}
	ret = policy_guard(nl, &req, "config apply", dry_run, force, go);
	if (!*go) {
		/* A dry run goes on to list the links it would add. */
		*go = dry_run && ret == EXIT_OK;
		return ret;
	}
	if (policy_set(nl, &req)) {
		pnl_perror(&nl->error, "policy set");
		*go = false;
		return cmd_exit_nl(nl);
	}
	printf("policy set from %s\n", path);
	return EXIT_OK;
}

int config_apply(const char *path, bool dry_run, bool force)
{
	struct p2pmap_link_list links = { 0 };
	unsigned int added = 0, there = 0, failed = 0, i;
	int add_err = EXIT_FAILED;
	struct modprobe_check res;
	struct p2pmap_nl nl;
	FILE *f = fopen(path, "r");
	int ret = EXIT_FAILED;
	bool go;

	if (!f) {
		fprintf(stderr, "p2pmap: config apply: %s: %s\n", path,
			strerror(errno));
		return EXIT_FAILED;
	}
	if (modprobe_check(f, path, stdout, &res)) {
		fclose(f);
		fprintf(stderr, "p2pmap: config apply: %s: cannot be read\n", path);
		return EXIT_FAILED;
	}
	fclose(f);
	if (pnl_open_required(&nl)) {
		ret = cmd_exit_nl(&nl);
		goto free;
	}
	ret = apply_policy(&nl, path, &res, dry_run, force, &go);
	if (!go)
		goto out;
	if (link_dump(&nl, &links)) {
		pnl_perror(&nl.error, "link dump");
		ret = cmd_exit_nl(&nl);
		goto out;
	}
	for (i = 0; i < res.links; i++) {
		const struct modprobe_link *l = &res.link[i];

		if (configured(&links, l)) {
			there++;
			continue;
		}
		if (dry_run) {
			printf("would add %s -> %s\n", l->initiator, l->target);
			added++;
		} else if (link_add(&nl, l->initiator, l->target, l->has_mask,
				    l->mask)) {
			pnl_perror(&nl.error, "link add");
			fprintf(stderr, "p2pmap: config apply: %s:%u: %s -> %s not added\n",
				path, l->line, l->initiator, l->target);
			/* A refusal for want of a capability is exit 5. */
			if (!failed++)
				add_err = cmd_exit_errno(nl.error.err);
			if (pnl_sender_refused(&nl.error))
				break;	/* the next ones would be too */
		} else {
			printf("added %s -> %s\n", l->initiator, l->target);
			added++;
		}
	}
	printf("config apply: %s: %u link%s %s, %u already there%s%s\n", path,
	       added, added == 1 ? "" : "s", dry_run ? "to add" : "added",
	       there, failed ? ", failed: " : "", failed ? "see above" : "");
	ret = failed ? add_err : res.problems ? EXIT_FAILED : EXIT_OK;
out:
	link_list_free(&links);
	pnl_close(&nl);
free:
	modprobe_check_free(&res);
	return ret;
}
