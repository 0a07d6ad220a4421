// SPDX-License-Identifier: GPL-2.0
/*
 * The admission policy: which devices p2pmap will ever link.  A device is
 * admitted when it is bound to a driver in the driver allowlist, that
 * driver does not manage DMA itself (vfio-pci, any driver_managed_dma
 * driver: never), and it passes the optional vendor, class and NUMA node
 * filters.  Set at load by module parameters, at run time over netlink.
 * Read and written under p2pmap_lock.
 */
#include <linux/module.h>
#include <linux/string.h>
#include "p2pmap.h"

static const char drivers_dflt[] = "nvidia";
static const char *drivers = drivers_dflt;
static struct p2pmap_param_str drivers_param = { &drivers, drivers_dflt };
module_param_cb(drivers, &p2pmap_param_ops_str, &drivers_param, 0444);
MODULE_PARM_DESC(drivers, "driver allowlist, comma-separated (default nvidia)");
static const char vendors_dflt[] = "";
static const char *vendors = vendors_dflt;
static struct p2pmap_param_str vendors_param = { &vendors, vendors_dflt };
module_param_cb(vendors, &p2pmap_param_ops_str, &vendors_param, 0444);
MODULE_PARM_DESC(vendors, "admit only these PCI vendor ids, e.g. 10de (default any)");
static const char classes_dflt[] = "";
static const char *classes = classes_dflt;
static struct p2pmap_param_str classes_param = { &classes, classes_dflt };
module_param_cb(classes, &p2pmap_param_ops_str, &classes_param, 0444);
MODULE_PARM_DESC(classes, "admit only these class code prefixes, e.g. 0302 (default any)");
static const char numa_nodes_dflt[] = "";
static const char *numa_nodes = numa_nodes_dflt;
static struct p2pmap_param_str numa_nodes_param = { &numa_nodes, numa_nodes_dflt };
module_param_cb(numa_nodes, &p2pmap_param_ops_str, &numa_nodes_param, 0444);
MODULE_PARM_DESC(numa_nodes, "admit only devices on these NUMA nodes, e.g. 0 (default any)");

struct p2pmap_policy p2pmap_policy;

/* Is @word (length @len) an item of the list @list? */
static bool p2pmap_list_has(const char *list, const char *word, size_t len,
			    bool prefix)
{
	while (*list) {
		const char *comma = strchrnul(list, ',');
		size_t n = comma - list;

		if ((prefix ? n <= len : n == len) &&
		    !strncasecmp(list, word, n))
			return true;
		list = *comma ? comma + 1 : comma;
	}
	return false;
}

/*
 * Could @dev be admitted under @p without a rebind, whatever its vendor,
 * class and NUMA filters?  Its driver decides: in the allowlist and not
 * one that manages DMA itself.
 */
static bool p2pmap_may_admit(const struct p2pmap_policy *p,
			     const struct p2pmap_dev *dev, const char **why)
{
	if (dev->dma_owned) {
		*why = "its driver manages DMA itself (VFIO or similar): never admitted";
		return false;
	}
	if (!p2pmap_list_has(p->drivers, dev->driver, strlen(dev->driver),
			     false)) {
		*why = "its driver is not in the driver allowlist";
		return false;
	}
	*why = NULL;
	return true;
}

/* Does @p admit @dev with the driver that is binding or bound now? */
static bool p2pmap_admits_driver(const struct p2pmap_policy *p,
				 const struct p2pmap_dev *dev, const char **why)
{
	struct pci_dev *pdev = dev->pdev;
	char buf[8];
	int node;

	if (!p2pmap_may_admit(p, dev, why))
		return false;
	snprintf(buf, sizeof(buf), "%04x", pdev->vendor);
	if (*p->vendors && !p2pmap_list_has(p->vendors, buf, 4, false)) {
		*why = "its vendor is not in the vendor list";
		return false;
	}
	snprintf(buf, sizeof(buf), "%06x", pdev->class);
	if (*p->classes && !p2pmap_list_has(p->classes, buf, 6, true)) {
		*why = "its class is not in the class list";
		return false;
	}
	node = dev_to_node(&pdev->dev);
	snprintf(buf, sizeof(buf), "%d", node);
	if (*p->numa_nodes &&
	    (node < 0 || !p2pmap_list_has(p->numa_nodes, buf, strlen(buf),
					  false))) {
		*why = "its NUMA node is not in the node list";
		return false;
	}
	*why = NULL;
	return true;
}

/* As p2pmap_policy_admits(), under the policy @p (a dry run's). */
bool p2pmap_policy_admits_under(const struct p2pmap_policy *p,
				const struct p2pmap_dev *dev, const char **why)
{
	if (!dev->bound) {
		*why = "no driver bound";
		return false;
	}
	return p2pmap_admits_driver(p, dev, why);
}

/*
 * Is @dev admitted?  If not, *why says why (a static string).  Call under
 * p2pmap_lock.
 */
bool p2pmap_policy_admits(const struct p2pmap_dev *dev, const char **why)
{
	return p2pmap_policy_admits_under(&p2pmap_policy, dev, why);
}

/*
 * Could @dev be admitted without a rebind, whatever the vendor, class and
 * NUMA filters become?  Early reservations (reserve.c) are made for these
 * devices, so that a later "policy set" that admits one finds its peers'
 * windows still free.  Call under p2pmap_lock.
 */
bool p2pmap_policy_may_admit(const struct p2pmap_dev *dev, const char **why)
{
	return p2pmap_may_admit(&p2pmap_policy, dev, why);
}

/* As p2pmap_policy_admits(), for the driver that is binding or bound now. */
bool p2pmap_policy_admits_driver(const struct p2pmap_dev *dev, const char **why)
{
	return p2pmap_admits_driver(&p2pmap_policy, dev, why);
}

/*
 * The module parameters become the initial policy.  A malformed one must
 * not admit more than intended, and must not stop the module from loading
 * (param_report.c): the module then admits nothing until a valid policy is
 * set over netlink.
 */
void p2pmap_policy_init(void)
{
	static const char **const vals[P2PMAP_POLICY_LISTS] = {
		[P2PMAP_POLICY_DRIVERS] = &drivers,
		[P2PMAP_POLICY_VENDORS] = &vendors,
		[P2PMAP_POLICY_CLASSES] = &classes,
		[P2PMAP_POLICY_NUMA] = &numa_nodes,
	};
	char problem[P2PMAP_PARAM_PROBLEM_LEN];
	struct p2pmap_policy *p = &p2pmap_policy;
	bool bad = false;
	int i;

	for (i = 0; i < P2PMAP_POLICY_LISTS; i++) {
		if (!p2pmap_parse_policy_param(i, *vals[i], problem,
					       sizeof(problem)))
			continue;
		p2pmap_param_problem("%s", problem);
		bad = true;
	}
	if (bad) {
		/* An empty driver allowlist admits no device. */
		memset(p, 0, sizeof(*p));
		return;
	}
	strscpy(p->drivers, drivers, sizeof(p->drivers));
	strscpy(p->vendors, vendors, sizeof(p->vendors));
	strscpy(p->classes, classes, sizeof(p->classes));
	strscpy(p->numa_nodes, numa_nodes, sizeof(p->numa_nodes));
}
