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

static char *links;
module_param(links, charp, 0444);
MODULE_PARM_DESC(links,
		 "links to configure at load: INITIATOR>TARGET[/BARMASK],... (PCI addresses DDDD:BB:DD.F)");

static int p2pmap_link_param_one(char *entry)
{
	char *target = strchr(entry, '>');
	char *mask_s;
	unsigned int bus, devfn;
	int domain;
	u32 mask = P2PMAP_BAR_MASK_DEFAULT;

	if (!target)
		return -EINVAL;
	*target++ = '\0';
	mask_s = strchr(target, '/');
	if (mask_s) {
		*mask_s++ = '\0';
		if (kstrtou32(mask_s, 0, &mask) || !mask ||
		    mask & ~P2PMAP_BAR_MASK_ALL)
			return -EINVAL;
	}
	if (p2pmap_addr_parse(entry, &domain, &bus, &devfn) ||
	    p2pmap_addr_parse(target, &domain, &bus, &devfn) ||
	    !strcmp(entry, target))
		return -EINVAL;
	if (p2pmap_link_find(entry, target)) {
		pr_warn("links: %s>%s given twice, ignored\n", entry, target);
		return 0;
	}
	return p2pmap_link_create(entry, target, mask) ? 0 : -ENOMEM;
}

/* Called at init, before any device is tracked: every link starts pending. */
int p2pmap_links_param_apply(void)
{
	char *buf, *cur, *entry;
	int err = 0;

	if (!links || !*links)
		return 0;
	buf = kstrdup(links, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	cur = buf;
	mutex_lock(&p2pmap_lock);
	while ((entry = strsep(&cur, ",")) != NULL) {
		entry = strim(entry);
		if (!*entry)
			continue;
		err = p2pmap_link_param_one(entry);
		if (err) {
			pr_err("links: cannot use \"%s\" (%d): expected INITIATOR>TARGET[/BARMASK]\n",
			       entry, err);
			break;
		}
	}
	if (err)
		p2pmap_links_destroy_all();
	mutex_unlock(&p2pmap_lock);
	kfree(buf);
	return err;
}
