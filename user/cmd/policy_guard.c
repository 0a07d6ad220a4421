// SPDX-License-Identifier: GPL-2.0
/*
 * What a policy change would stop mapping, and whether it may go ahead:
 * the module judges admission (a dry run of POLICY_SET), this file names
 * the mapped links of the devices it would stop admitting, and refuses,
 * without --force, while a process holds one of their GPUs (its P2P would
 * fault at once).  For "policy set" and "config apply".
 */
#include <stdio.h>

#include "cmd.h"
#include "format.h"
#include "in_use.h"
#include "link.h"
#include "policy.h"

int policy_guard(struct p2pmap_nl *nl, const struct policy_req *req,
		 const char *op, bool dry_run, bool force, bool *go)
{
	struct p2pmap_link_list links = { 0 };
	struct policy_denied denied;
	size_t i, unmaps = 0, users = 0;
	int ret = EXIT_OK;

	*go = false;
	if (policy_set_dry_run(nl, req, &denied)) {
		pnl_perror(&nl->error, op);
		return cmd_exit_nl(nl);
	}
	if (!denied.n) {
		if (dry_run)
			printf("%s: no admitted device would leave the policy: nothing would be unmapped (--dry-run)\n",
			       op);
		*go = !dry_run;
		goto out;
	}
	if (link_dump(nl, &links)) {
		pnl_perror(&nl->error, "link dump");
		ret = cmd_exit_nl(nl);
		goto out;
	}
	for (i = 0; i < denied.n; i++)
		printf("%s the policy: %s\n",
		       dry_run ? "would leave" : "leaves", denied.addr[i]);
	for (i = 0; i < links.n; i++) {
		const struct p2pmap_link *l = &links.links[i];

		if (!l->has_state || l->state != P2PMAP_LINK_MAPPED ||
		    (!policy_denied_has(&denied, l->initiator) &&
		     !policy_denied_has(&denied, l->target)))
			continue;
		printf("%s %s -> %s\n", dry_run ? "would unmap" : "unmaps",
		       l->initiator, l->target);
		unmaps++;
		users += in_use_say(l->initiator, l->target, op);
	}
	if (dry_run) {
		printf("%s: %zu device%s would leave the policy, %zu mapped link%s would be unmapped (--dry-run: nothing changed)\n",
		       op, denied.n, denied.n == 1 ? "" : "s", unmaps,
		       unmaps == 1 ? "" : "s");
		goto out;
	}
	if (users && !force) {
		fprintf(stderr, "p2pmap: %s: refused, nothing changed: GPUs of links it would unmap are in use and their P2P would fault at once; stop those processes first, or --force\n",
			op);
		ret = EXIT_FAILED;
		goto out;
	}
	*go = true;
out:
	link_list_free(&links);
	policy_denied_free(&denied);
	return ret;
}
