// SPDX-License-Identifier: GPL-2.0
/*
 * p2pmap config apply [--file PATH] [--dry-run]: the links of the saved
 * configuration, added to the running module now (what the next boot
 * would configure), without a reboot.  The file is read as "config check"
 * reads it; links already there are left as they are, nothing is removed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "link.h"
#include "modprobe_check.h"

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

int config_apply(const char *path, bool dry_run)
{
	struct p2pmap_link_list links = { 0 };
	unsigned int added = 0, there = 0, failed = 0, i;
	int add_err = EXIT_FAILED;
	struct modprobe_check res;
	struct p2pmap_nl nl;
	FILE *f = fopen(path, "r");
	int ret = EXIT_FAILED;

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
