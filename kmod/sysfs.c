// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/p2pmap: a read-only view, one value per file (documented in
 * Documentation/ABI/testing/sysfs-kernel-p2pmap).  The show functions take
 * no lock: removing a kobject waits for them, and it is removed under
 * p2pmap_lock.  They read single fields that may be a change behind.
 */
#include <linux/cred.h>
#include <linux/kobject.h>
#include <linux/nsproxy.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <net/net_namespace.h>
#include "p2pmap.h"
#include "netlink.h"

static struct kobject *p2pmap_kobj, *p2pmap_devs_kobj, *p2pmap_links_kobj;

/* The P2PMAP_FAULT_SRC_* bits of @src by name, space-separated. */
static ssize_t p2pmap_emit_sources(char *buf, u32 src)
{
	static const char * const names[] = {
		"tracepoint", "dmar", "amdvi-log",
	};
	int i, n = 0;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (src & BIT(i))
			n += sysfs_emit_at(buf, n, "%s%s", n ? " " : "",
					   names[i]);
	return n + sysfs_emit_at(buf, n, "\n");
}

/* ---- /sys/kernel/p2pmap/{version,fault_sources,sme,...} */

static ssize_t version_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", P2PMAP_VERSION);
}

static ssize_t fault_sources_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return p2pmap_emit_sources(buf, p2pmap_fault_sources_armed());
}

static ssize_t sme_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	static const char * const names[] = {
		[P2PMAP_SME_OFF] = "off",
		[P2PMAP_SME_REFUSED] = "refused",
		[P2PMAP_SME_MMIO_PLAIN] = "mmio_plain",
	};

	return sysfs_emit(buf, "%s\n", names[p2pmap_sme_state()]);
}

/*
 * Ranges kept in domains no driver holds (range.c).  Under p2pmap_lock:
 * unlike the device and link directories, the root one is removed
 * without it (p2pmap_sysfs_exit()), so waiting for this show cannot
 * deadlock.
 */
static ssize_t ranges_dormant_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	unsigned int n;

	mutex_lock(&p2pmap_lock);
	n = p2pmap_ranges_dormant(NULL);
	mutex_unlock(&p2pmap_lock);
	return sysfs_emit(buf, "%u\n", n);
}

/* Other network namespaces with a registered event listener. */
static ssize_t event_namespaces_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", p2pmap_ntf_nets_count());
}

static struct kobj_attribute p2pmap_attr_version = __ATTR_RO(version);
static struct kobj_attribute p2pmap_attr_event_namespaces =
	__ATTR_RO(event_namespaces);
static struct kobj_attribute p2pmap_attr_ranges_dormant =
	__ATTR_RO(ranges_dormant);
static struct kobj_attribute p2pmap_attr_fault_sources =
	__ATTR_RO(fault_sources);
static struct kobj_attribute p2pmap_attr_sme = __ATTR_RO(sme);

static struct attribute *p2pmap_root_attrs[] = {
	&p2pmap_attr_version.attr,
	&p2pmap_attr_fault_sources.attr,
	&p2pmap_attr_sme.attr,
	&p2pmap_attr_ranges_dormant.attr,
	&p2pmap_attr_event_namespaces.attr,
	NULL,
};

static const struct attribute_group p2pmap_root_group = {
	.attrs = p2pmap_root_attrs,
};

/*
 * netns_reads=N: what netlink withholds from other network namespaces,
 * the device and link files withhold too.  /sys/kernel is not namespaced,
 * and LXC (sys:mixed) and Docker show it, read-only, inside containers.
 * Asked of the reader at each read, as netlink asks of each request.
 */
static ssize_t p2pmap_view_show(struct kobject *kobj, struct attribute *attr,
				char *buf)
{
	if (!READ_ONCE(p2pmap_netns_reads) &&
	    (!net_eq(current->nsproxy->net_ns, &init_net) ||
	     current_user_ns() != &init_user_ns))
		return -EPERM;
	return kobj_sysfs_ops.show(kobj, attr, buf);
}

static const struct sysfs_ops p2pmap_view_sysfs_ops = {
	.show = p2pmap_view_show,
};

/* ---- /sys/kernel/p2pmap/devices/<addr>/ */

#define to_dev(k) container_of(k, struct p2pmap_dev, kobj)

static ssize_t dev_state_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	struct p2pmap_dev *dev = to_dev(kobj);

	if (!READ_ONCE(dev->bound))
		return sysfs_emit(buf, "unbound\n");
	return sysfs_emit(buf, "%s\n",
			  READ_ONCE(dev->dma_owned) ? "owned" : "bound");
}

static ssize_t dev_driver_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	struct p2pmap_dev *dev = to_dev(kobj);
	char name[sizeof(dev->driver)];

	memcpy(name, dev->driver, sizeof(name));
	name[sizeof(name) - 1] = '\0';
	return sysfs_emit(buf, "%s\n", READ_ONCE(dev->bound) ? name : "");
}

static ssize_t dev_faults_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  (u64)atomic64_read(&to_dev(kobj)->faults.count));
}

static ssize_t dev_faults_other_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  (u64)atomic64_read(&to_dev(kobj)->other.count));
}

static ssize_t dev_fault_last_addr_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	struct p2pmap_fault_count *f = &to_dev(kobj)->faults;

	if (!atomic64_read(&f->count))
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "0x%llx\n", READ_ONCE(f->last_addr));
}

static ssize_t dev_fault_last_time_show(struct kobject *kobj,
					struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(to_dev(kobj)->faults.last_time));
}

static ssize_t dev_fault_last_write_show(struct kobject *kobj,
					 struct kobj_attribute *attr, char *buf)
{
	u32 fl = READ_ONCE(to_dev(kobj)->faults.last_flags);

	return sysfs_emit(buf, "%d\n", !!(fl & P2PMAP_FAULT_F_WRITE));
}

static ssize_t dev_fault_sources_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return p2pmap_emit_sources(buf,
				   atomic_read(&to_dev(kobj)->faults.sources));
}

#define P2PMAP_RO(prefix, name) \
	static struct kobj_attribute prefix##_attr_##name = \
		__ATTR(name, 0444, prefix##_##name##_show, NULL)

P2PMAP_RO(dev, state);
P2PMAP_RO(dev, driver);
P2PMAP_RO(dev, faults);
P2PMAP_RO(dev, faults_other);
/* The fault's address: root only (see p2pmap_nl_sees_addrs()). */
static struct kobj_attribute dev_attr_fault_last_addr =
	__ATTR(fault_last_addr, 0400, dev_fault_last_addr_show, NULL);
P2PMAP_RO(dev, fault_last_time);
P2PMAP_RO(dev, fault_last_write);
P2PMAP_RO(dev, fault_sources);

static struct attribute *p2pmap_dev_attrs[] = {
	&dev_attr_state.attr,
	&dev_attr_driver.attr,
	&dev_attr_faults.attr,
	&dev_attr_faults_other.attr,
	&dev_attr_fault_last_addr.attr,
	&dev_attr_fault_last_time.attr,
	&dev_attr_fault_last_write.attr,
	&dev_attr_fault_sources.attr,
	NULL,
};
ATTRIBUTE_GROUPS(p2pmap_dev);

/*
 * Objects whose kobject release has not run yet.  With
 * CONFIG_DEBUG_KOBJECT_RELEASE a release runs seconds after the last put:
 * module exit waits for every one, so none runs after the code is gone.
 */
static atomic_t p2pmap_kobjs = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(p2pmap_kobjs_wq);

static void p2pmap_kobj_released(void)
{
	if (atomic_dec_and_test(&p2pmap_kobjs))
		wake_up(&p2pmap_kobjs_wq);
}

/* The last reference is gone; fault probes may still hold it: RCU. */
void p2pmap_dev_release(struct kobject *kobj)
{
	struct p2pmap_dev *dev = to_dev(kobj);

	pci_dev_put(dev->pdev);
	kfree_rcu(dev, rcu);
	p2pmap_kobj_released();
}

static const struct kobj_type p2pmap_dev_ktype = {
	.release = p2pmap_dev_release,
	.sysfs_ops = &p2pmap_view_sysfs_ops,
	.default_groups = p2pmap_dev_groups,
};

int p2pmap_sysfs_dev_add(struct p2pmap_dev *dev)
{
	atomic_inc(&p2pmap_kobjs);
	return kobject_init_and_add(&dev->kobj, &p2pmap_dev_ktype,
				    p2pmap_devs_kobj, "%s", dev->addr);
}

/* ---- /sys/kernel/p2pmap/links/<initiator>-<target>/ */

#define to_link(k) container_of(k, struct p2pmap_link, kobj)

static ssize_t link_state_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  p2pmap_link_state_name(READ_ONCE(to_link(kobj)->state)));
}

static ssize_t link_reason_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	const char *reason = READ_ONCE(to_link(kobj)->reason);

	return sysfs_emit(buf, "%s\n", reason ? reason : "");
}

static ssize_t link_bar_mask_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%x\n", to_link(kobj)->bar_mask);
}

static ssize_t link_mapped_bytes_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(to_link(kobj)->mapped_bytes));
}

/* The link's pair counter, found through the fault index (RCU). */
static void link_pair_read(struct p2pmap_link *link, u64 *count, u32 *src)
{
	struct p2pmap_peer_faults *p = NULL;
	struct p2pmap_dev *init, *tgt;

	rcu_read_lock();
	init = p2pmap_fault_index_addr(link->initiator);
	tgt = p2pmap_fault_index_addr(link->target);
	if (init && tgt)
		p = p2pmap_peer_find(init, tgt->id);
	*count = p ? atomic64_read(&p->f.count) : 0;
	*src = p ? atomic_read(&p->f.sources) : 0;
	rcu_read_unlock();
}

static ssize_t link_faults_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	u64 count;
	u32 src;

	link_pair_read(to_link(kobj), &count, &src);
	return sysfs_emit(buf, "%llu\n", count);
}

static ssize_t link_fault_sources_show(struct kobject *kobj,
				       struct kobj_attribute *attr, char *buf)
{
	u64 count;
	u32 src;

	link_pair_read(to_link(kobj), &count, &src);
	return p2pmap_emit_sources(buf, src);
}

P2PMAP_RO(link, state);
P2PMAP_RO(link, reason);
P2PMAP_RO(link, bar_mask);
P2PMAP_RO(link, mapped_bytes);
P2PMAP_RO(link, faults);
P2PMAP_RO(link, fault_sources);

static struct attribute *p2pmap_link_attrs[] = {
	&link_attr_state.attr,
	&link_attr_reason.attr,
	&link_attr_bar_mask.attr,
	&link_attr_mapped_bytes.attr,
	&link_attr_faults.attr,
	&link_attr_fault_sources.attr,
	NULL,
};
ATTRIBUTE_GROUPS(p2pmap_link);

static void p2pmap_link_release(struct kobject *kobj)
{
	kfree(to_link(kobj));
	p2pmap_kobj_released();
}

static const struct kobj_type p2pmap_link_ktype = {
	.release = p2pmap_link_release,
	.sysfs_ops = &p2pmap_view_sysfs_ops,
	.default_groups = p2pmap_link_groups,
};

int p2pmap_sysfs_link_add(struct p2pmap_link *link)
{
	atomic_inc(&p2pmap_kobjs);
	return kobject_init_and_add(&link->kobj, &p2pmap_link_ktype,
				    p2pmap_links_kobj, "%s-%s",
				    link->initiator, link->target);
}

/*
 * Gone from sysfs now, not when a (maybe delayed) release runs: a load
 * right after a failed one or an unload finds the names free.
 */
static void p2pmap_kobj_drop(struct kobject *kobj)
{
	kobject_del(kobj);
	kobject_put(kobj);
}

int p2pmap_sysfs_init(void)
{
	int err;

	p2pmap_kobj = kobject_create_and_add("p2pmap", kernel_kobj);
	if (!p2pmap_kobj)
		return -ENOMEM;
	err = sysfs_create_group(p2pmap_kobj, &p2pmap_root_group);
	if (err)
		goto err_root;
	err = -ENOMEM;
	p2pmap_devs_kobj = kobject_create_and_add("devices", p2pmap_kobj);
	if (!p2pmap_devs_kobj)
		goto err_root;
	p2pmap_links_kobj = kobject_create_and_add("links", p2pmap_kobj);
	if (!p2pmap_links_kobj)
		goto err_devs;
	return 0;

err_devs:
	p2pmap_kobj_drop(p2pmap_devs_kobj);
err_root:
	p2pmap_kobj_drop(p2pmap_kobj);
	return err;
}

void p2pmap_sysfs_exit(void)
{
	p2pmap_kobj_drop(p2pmap_links_kobj);
	p2pmap_kobj_drop(p2pmap_devs_kobj);
	p2pmap_kobj_drop(p2pmap_kobj);
	wait_event(p2pmap_kobjs_wq, !atomic_read(&p2pmap_kobjs));
}
