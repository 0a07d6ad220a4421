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
 * One entry, "A>B[/MASK]".  Returns NULL when it was used (or was a
 * duplicate), else why it was skipped.
 */
static const char *p2pmap_link_param_one(char *entry)
{
	char *target = strchr(entry, '>');
	char a[P2PMAP_ADDR_LEN], b[P2PMAP_ADDR_LEN];
	char *mask_s;
	u32 mask = P2PMAP_BAR_MASK_DEFAULT;

	if (!target)
		return "expected INITIATOR>TARGET[/BARMASK]";
	*target++ = '\0';
	mask_s = strchr(target, '/');
	if (mask_s) {
		*mask_s++ = '\0';
		if (kstrtou32(mask_s, 0, &mask) || !mask ||
		    mask & ~P2PMAP_BAR_MASK_ALL)
			return "the BAR mask is not a non-zero mask of BARs 0-5";
	}
	if (p2pmap_addr_parse_any(strim(entry), a))
		return "the initiator is not a PCI address [DDDD:]BB:DD.F";
	if (p2pmap_addr_parse_any(strim(target), b))
		return "the target is not a PCI address [DDDD:]BB:DD.F";
	if (!strcmp(a, b))
		return "initiator and target are the same device";
	if (p2pmap_link_find(a, b)) {
		pr_warn("links: %s>%s given twice, ignored\n", a, b);
		return NULL;
	}
	return p2pmap_link_create(a, b, mask) ? NULL : "out of memory";
}

/*
 * Called at init, before any device is tracked: every link starts pending.
 * A bad entry is skipped and reported (param_report.c); the good ones are
 * used, so one typo cannot leave a host without any link.
 */
void p2pmap_links_param_apply(void)
{
	char *buf, *cur, *entry;
	char given[65];		/* the entry as given: parsing cuts it */
	const char *why;

	if (!links || !*links)
		return;
	buf = kstrdup(links, GFP_KERNEL);
	if (!buf) {
		p2pmap_param_problem("links: out of memory, no link configured");
		return;
	}
	cur = buf;
	mutex_lock(&p2pmap_lock);
	while ((entry = strsep(&cur, ",")) != NULL) {
		entry = strim(entry);
		if (!*entry)
			continue;
		strscpy(given, entry, sizeof(given));
		why = p2pmap_link_param_one(entry);
		if (why)
			p2pmap_param_problem("links: \"%s\" skipped: %s",
					     given, why);
	}
	mutex_unlock(&p2pmap_lock);
	kfree(buf);
}
