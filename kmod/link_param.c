// SPDX-License-Identifier: GPL-2.0
/*
 * Links configured at load time, for boot: the "links" module parameter,
 * "A>B[/MASK],..." with A and B as DDDD:BB:DD.F.  Devices need not exist
 * yet: their links stay pending until they appear and bind.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "p2pmap.h"

static const char links_dflt[] = "";
static const char *links = links_dflt;
static struct p2pmap_param_str links_param = { &links, links_dflt, true };
module_param_cb(links, &p2pmap_param_ops_str, &links_param, 0444);
MODULE_PARM_DESC(links,
		 "links to configure at load: INITIATOR>TARGET[/BARMASK],... (PCI addresses [DDDD:]BB:DD.F; given again: added)");

/*
 * One entry, "A>B[/MASK]" (its grammar: param_grammar.c): a link, unless
 * it is malformed or a duplicate.
 */
static void p2pmap_link_param_one(char *entry)
{
	char problem[P2PMAP_PARAM_PROBLEM_LEN];
	struct p2pmap_link_param l;

	if (p2pmap_parse_link_param(entry, &l, problem, sizeof(problem))) {
		p2pmap_param_problem("%s", problem);
		return;
	}
	if (p2pmap_link_find(l.initiator, l.target)) {
		pr_warn(P2PMAP_LINK_PARAM_TWICE "\n", l.initiator, l.target);
		return;
	}
	if (!p2pmap_link_create(l.initiator, l.target, l.mask))
		p2pmap_param_problem(P2PMAP_LINK_PARAM_SKIPPED, l.given,
				     "out of memory");
}

/*
 * Called at init, before any device is tracked: every link starts pending.
 * A bad entry is skipped and reported (param.c); the good ones are used,
 * so one typo cannot leave a host without any link.
 */
void p2pmap_links_param_apply(void)
{
	char *buf, *cur, *entry;

	if (!links || !*links)
		return;
	buf = kstrdup(links, GFP_KERNEL);
	if (!buf) {
		p2pmap_param_problem("links: out of memory, no link configured");
		return;
	}
	cur = buf;
	mutex_lock(&p2pmap_lock);
	while ((entry = p2pmap_param_list_next(&cur)) != NULL)
		p2pmap_link_param_one(entry);
	mutex_unlock(&p2pmap_lock);
	kfree(buf);
}
