// SPDX-License-Identifier: GPL-2.0
/*
 * The link registry and the one place that decides what a link should be:
 * p2pmap_link_sync() compares the desired state with the mappings that exist
 * and calls map.c or unmap.c.  Every event ends in a sync of the links it
 * touches.  All under p2pmap_lock.
 */
#include <linux/slab.h>
#include "p2pmap.h"

#define P2PMAP_WHY_INIT_OWNED \
	"initiator is not on its default domain (owned by VFIO/iommufd or blocked)"
#define P2PMAP_WHY_TGT_OWNED \
	"target is not on its default domain (owned by VFIO/iommufd or blocked)"

#define P2PMAP_WHY_UNMAP_SHORT \
	"iommu_unmap() came back short: PTEs may remain, the range stays reserved for good (p2pmap info)"

/* Compared by address: a link in this state stays in it while unmapped. */
static const char p2pmap_why_unmap_short[] = P2PMAP_WHY_UNMAP_SHORT;

#define P2PMAP_WHY_INIT_POLICY \
	"initiator is not admitted by the policy (p2pmap list --json: admit_reason)"
#define P2PMAP_WHY_TGT_POLICY \
	"target is not admitted by the policy (p2pmap list --json: admit_reason)"

LIST_HEAD(p2pmap_links);

struct p2pmap_link *p2pmap_link_find(const char *initiator, const char *target)
{
	struct p2pmap_link *link;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(link, &p2pmap_links, node)
		if (!strcmp(link->initiator, initiator) &&
		    !strcmp(link->target, target))
			return link;
	return NULL;
}

struct p2pmap_link *p2pmap_link_create(const char *initiator,
				       const char *target, u32 bar_mask)
{
	struct p2pmap_link *link;

	lockdep_assert_held(&p2pmap_lock);
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return NULL;
	strscpy(link->initiator, initiator, sizeof(link->initiator));
	strscpy(link->target, target, sizeof(link->target));
	link->bar_mask = bar_mask;
	link->state = P2PMAP_LINK_PENDING;
	link->reason = "not evaluated yet";
	if (p2pmap_sysfs_link_add(link)) {
		kobject_put(&link->kobj);
		return NULL;
	}
	list_add_tail(&link->node, &p2pmap_links);
	p2pmap_generation++;
	pr_debug("link %s -> %s: created\n", initiator, target);
	return link;
}

void p2pmap_link_destroy(struct p2pmap_link *link)
{
	lockdep_assert_held(&p2pmap_lock);
	p2pmap_link_unmap(link);
	list_del(&link->node);
	pr_debug("link %s -> %s: destroyed\n", link->initiator, link->target);
	p2pmap_generation++;
	p2pmap_ntf_link(link, P2PMAP_CMD_LINK_DEL_NTF);
	kobject_del(&link->kobj);
	kobject_put(&link->kobj);	/* frees it */
}

void p2pmap_links_destroy_all(void)
{
	struct p2pmap_link *link, *tmp;

	list_for_each_entry_safe(link, tmp, &p2pmap_links, node)
		p2pmap_link_destroy(link);
}

u64 p2pmap_link_mapped_bytes(const struct p2pmap_link *link)
{
	u64 bytes = 0;
	int i;

	for (i = 0; i < PCI_STD_NUM_BARS; i++)
		if (link->ranges[i])
			bytes += link->ranges[i]->size;
	return bytes;
}

static bool p2pmap_domain_owned(enum p2pmap_domain d)
{
	return d == P2PMAP_DOMAIN_BLOCKED || d == P2PMAP_DOMAIN_UNMANAGED ||
	       d == P2PMAP_DOMAIN_OTHER;
}

/*
 * What the link should be now.  Returns P2PMAP_LINK_MAPPED when both sides
 * are ready and the initiator translates; the mapping itself may still fail.
 */
static enum p2pmap_link_state p2pmap_link_want(struct p2pmap_link *link,
					       struct p2pmap_dev *init,
					       struct p2pmap_dev *tgt,
					       const char **reason)
{
	enum p2pmap_domain d;
	const char *why;

	if (p2pmap_dying) {
		*reason = "p2pmap is unloading";
		return P2PMAP_LINK_PENDING;
	}
	if (!init || !tgt) {
		*reason = !init ? "initiator is not present" :
				  "target is not present";
		return P2PMAP_LINK_PENDING;
	}
	if (init->dma_owned || tgt->dma_owned) {
		*reason = init->dma_owned ?
			"initiator is bound to a driver that manages DMA itself (VFIO or similar)" :
			"target is bound to a driver that manages DMA itself (VFIO or similar)";
		return P2PMAP_LINK_BLOCKED;
	}
	if (!init->bound || !tgt->bound) {
		*reason = !init->bound ? "initiator has no driver" :
					 "target has no driver";
		return P2PMAP_LINK_PENDING;
	}
	if (!p2pmap_policy_admits(init, &why) ||
	    !p2pmap_policy_admits(tgt, &why)) {
		*reason = p2pmap_policy_admits(init, &why) ?
			P2PMAP_WHY_TGT_POLICY : P2PMAP_WHY_INIT_POLICY;
		return P2PMAP_LINK_BLOCKED;
	}
	/* Both are bound to DMA API drivers: their domains were recorded at
	 * bind and cannot change while the drivers stay.
	 */
	if (p2pmap_domain_owned(tgt->domain_type)) {
		*reason = P2PMAP_WHY_TGT_OWNED;
		return P2PMAP_LINK_BLOCKED;
	}
	d = init->domain_type;
	if (d == P2PMAP_DOMAIN_NONE || d == P2PMAP_DOMAIN_IDENTITY) {
		*reason = d == P2PMAP_DOMAIN_NONE ?
			"initiator is not translated by an IOMMU: peer DMA needs no mapping" :
			"initiator is in an identity domain: peer DMA needs no mapping";
		return P2PMAP_LINK_NATIVE;
	}
	if (p2pmap_domain_owned(d)) {
		*reason = P2PMAP_WHY_INIT_OWNED;
		return P2PMAP_LINK_BLOCKED;
	}
	*reason = NULL;
	return P2PMAP_LINK_MAPPED;
}

/*
 * Bring @link's mappings in line with the state of its two devices.
 * Returns 0, or the error that made the mapping fail (state ERROR).
 */
int p2pmap_link_sync(struct p2pmap_link *link)
{
	struct p2pmap_dev *init, *tgt;
	enum p2pmap_link_state want;
	const char *reason;
	int err = 0;

	lockdep_assert_held(&p2pmap_lock);
	init = p2pmap_dev_find(link->initiator);
	tgt = p2pmap_dev_find(link->target);
	want = p2pmap_link_want(link, init, tgt, &reason);

	if (want != P2PMAP_LINK_MAPPED) {
		if (p2pmap_link_unmap(link) ||
		    (link->state == P2PMAP_LINK_ERROR &&
		     link->reason == p2pmap_why_unmap_short)) {
			want = P2PMAP_LINK_ERROR;
			reason = p2pmap_why_unmap_short;
		}
	} else if (link->state != P2PMAP_LINK_MAPPED) {
		err = p2pmap_link_map(link, init, tgt);
		if (err) {
			want = P2PMAP_LINK_ERROR;
			reason = link->reason;
		}
	} else {
		reason = link->reason;
	}

	p2pmap_link_set_state(link, want, reason);
	return err;
}

/* Record and announce @link's state, if it changed. */
void p2pmap_link_set_state(struct p2pmap_link *link,
			   enum p2pmap_link_state want, const char *reason)
{
	WRITE_ONCE(link->mapped_bytes, p2pmap_link_mapped_bytes(link));
	if (link->state != want || link->reason != reason) {
		pr_info("link %s -> %s: %s%s%s\n", link->initiator,
			link->target, p2pmap_link_state_name(want),
			reason ? ": " : "", reason ? reason : "");
		WRITE_ONCE(link->state, want);
		WRITE_ONCE(link->reason, reason);
		p2pmap_generation++;
		p2pmap_ntf_link(link, P2PMAP_CMD_LINK_NTF);
	}
}

/*
 * Link deletion: unmap, then forget.  If an unmap comes back short, the
 * link stays, in state ERROR, so that what is left is shown; deleting it
 * again forgets it (the range itself stays reserved).
 */
int p2pmap_link_delete(struct p2pmap_link *link, const char **why)
{
	lockdep_assert_held(&p2pmap_lock);
	if (p2pmap_link_unmap(link)) {
		p2pmap_link_set_state(link, P2PMAP_LINK_ERROR,
				      p2pmap_why_unmap_short);
		*why = p2pmap_why_unmap_short;
		return -EIO;
	}
	p2pmap_link_destroy(link);
	return 0;
}

/* Re-evaluate every link with @addr on either side. */
void p2pmap_links_sync_dev(const char *addr)
{
	struct p2pmap_link *link;

	list_for_each_entry(link, &p2pmap_links, node)
		if (!strcmp(link->initiator, addr) ||
		    !strcmp(link->target, addr))
			p2pmap_link_sync(link);
}

const char *p2pmap_link_state_name(enum p2pmap_link_state state)
{
	switch (state) {
	case P2PMAP_LINK_PENDING:
		return "pending";
	case P2PMAP_LINK_MAPPED:
		return "mapped";
	case P2PMAP_LINK_NATIVE:
		return "native";
	case P2PMAP_LINK_BLOCKED:
		return "blocked";
	case P2PMAP_LINK_ERROR:
		return "error";
	}
	return "?";
}
