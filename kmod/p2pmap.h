/* SPDX-License-Identifier: GPL-2.0 */
/*
 * p2pmap internal interfaces.
 *
 * Locking: p2pmap_lock (a mutex) serialises every change to the device
 * registry, the link registry and the mappings.  It is taken inside the bus
 * notifier (which may hold the device lock), so nothing under it may take a
 * device lock.
 */
#ifndef P2PMAP_H
#define P2PMAP_H

#include <linux/atomic.h>
#include <linux/kobject.h>
#include <linux/list.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/pci.h>
#include <linux/iommu.h>
#include <linux/p2pmap.h>
#include "shared/param_grammar.h"

struct iova;

extern struct mutex p2pmap_lock;
extern u32 p2pmap_generation;	/* bumped on every change; for dumps */
extern bool p2pmap_dying;	/* module exit has begun: map nothing */

/* A memory BAR as read at BOUND_DRIVER. */
struct p2pmap_bar {
	u64 bus;		/* bus address == the identity IOVA */
	phys_addr_t phys;	/* CPU physical address */
	u64 size;
	u32 flags;		/* P2PMAP_BAR_F_* */
};

/*
 * A fault counter.  Written by the fault probes in interrupt context without
 * locks (count atomically, the "last" fields with WRITE_ONCE), read anywhere.
 */
struct p2pmap_fault_count {
	atomic64_t count;
	u64 last_addr;
	u64 last_time;		/* ns, CLOCK_REALTIME */
	u32 last_flags;		/* P2PMAP_FAULT_F_* */
	atomic_t sources;	/* P2PMAP_FAULT_SRC_* that counted here */
	u64 notified;		/* count at the last event (event work only) */
};

/* Faults of (this device, target).  A slot is free while target_id == 0. */
struct p2pmap_peer_faults {
	u32 target_id;
	struct p2pmap_fault_count f;
};

#define P2PMAP_PEER_SLOTS	16

/*
 * The last fault the io_page_fault tracepoint counted for an initiator,
 * kept until the AMD-Vi log line of the same fault claims it (fault.c:
 * one fault, counted once).  @state says who may touch the fields: taken
 * with a cmpxchg and never waited for (a probe that finds it busy goes
 * without), so the probes stay lock-free.
 */
struct p2pmap_fault_tp_last {
	atomic_t state;		/* empty, busy or full (fault.c) */
	bool write;
	u64 addr;
	u64 time;		/* ns, ktime_get_mono_fast_ns() */
	unsigned long task;	/* the reporting task: compared, never used */
};

/*
 * A PCI function p2pmap tracks; lives from ADD_DEVICE to DEL_DEVICE.  Freed
 * through its kobject (sysfs) and then RCU (the fault probes look it up).
 */
struct p2pmap_dev {
	struct list_head node;
	struct kobject kobj;			/* /sys/kernel/p2pmap/devices/X */
	struct rcu_head rcu;
	struct pci_dev *pdev;			/* reference held */
	u32 id;					/* never reused, never 0 */
	char addr[P2PMAP_ADDR_LEN];
	bool host_bridge;			/* a PCI host bridge (class 0x0600):
						 * the fault probes read this, never
						 * the pci_dev (put before RCU frees
						 * the entry)
						 */
	bool sid_shared;			/* its requester id is another
						 * PCI segment's too
						 */
	bool bound;				/* a driver is bound */
	bool dma_owned;				/* ... and it manages DMA itself */
	/*
	 * UNBIND_DRIVER seen, UNBOUND_DRIVER not yet: the driver's remove()
	 * and dma_cleanup() are running.  @domain stays recorded, and the
	 * domain's reservations stay, until UNBOUND_DRIVER.
	 */
	bool unbinding;
	bool removing;				/* DEL_DEVICE seen while bound or
						 * unbinding: forgotten at
						 * UNBOUND_DRIVER
						 */
	/*
	 * The default DMA domain recorded at the last bind event, or NULL.
	 * Only set from BIND_DRIVER to UNBOUND_DRIVER of a driver that uses
	 * the DMA API: the IOMMU core cannot free or replace a default domain
	 * while such a driver holds it (dma_configure() to dma_cleanup()).
	 * Never read from the IOMMU core for an unbound or VFIO-owned device
	 * (the domain may be freed under us then).
	 */
	struct iommu_domain *domain;
	enum p2pmap_domain domain_type;		/* recorded at the last bind */
	char driver[32];
	struct p2pmap_bar bars[PCI_STD_NUM_BARS];	/* valid while bound */
	struct p2pmap_fault_count faults;	/* every fault it caused */
	struct p2pmap_fault_count other;	/* ... not into a tracked BAR */
	struct p2pmap_peer_faults peers[P2PMAP_PEER_SLOTS];
	atomic64_t peers_lost;			/* faults no slot was free for */
	struct p2pmap_fault_tp_last tp_last;	/* for the AMD-Vi log */
};

/*
 * One identity range (a target BAR) in one initiator domain: p2pmap's
 * reservation in the domain's DMA API allocator and, while a link uses it,
 * its mapping.  Shared (users > 1) when two initiators of one IOMMU group
 * link to the same target BAR.  Unmapping keeps the reservation: the
 * initiator may still hold the raw peer address, and the DMA API must
 * never hand it out as a buffer.  @domain is read only while a DMA API
 * driver of its group or the group's mutex holds it; a range left in a
 * domain VFIO took over is dormant, @domain a key compared and never
 * dereferenced, until the next driver's bind checks and gives it back
 * (range.c).
 */
struct p2pmap_range {
	struct list_head node;
	struct iommu_domain *domain;
	struct iommu_group *group;	/* @domain's group: a key, like @domain
					 * (no reference), never dereferenced
					 */
	u64 iova;
	u64 size;
	u64 pages;		/* IOMMU page-table entries the map needed */
	struct iova *resv;	/* our node in the DMA API allocator, or NULL
				 * when the initiator's own host-bridge window
				 * (reserved by dma-iommu) covers the range
				 */
	unsigned int users;	/* links mapping it; 0: reserved only */
	bool window;		/* part of another host bridge's window,
				 * reserved early (reserve.c): never mapped
				 */
	bool mapped;		/* our PTEs are in the domain */
	bool stuck;		/* iommu_unmap() came back short: PTEs may
				 * remain, the IOVAs are never given back
				 */
};

/* A configured direction initiator -> target; freed through its kobject. */
struct p2pmap_link {
	struct list_head node;
	struct kobject kobj;		/* /sys/kernel/p2pmap/links/A-B */
	char initiator[P2PMAP_ADDR_LEN];
	char target[P2PMAP_ADDR_LEN];
	u32 bar_mask;
	enum p2pmap_link_state state;
	const char *reason;	/* static string, also used as ext-ack text */
	u64 mapped_bytes;
	struct p2pmap_range *ranges[PCI_STD_NUM_BARS];
	u8 range_bar[PCI_STD_NUM_BARS];	/* target BAR index of ranges[i] */
};

/* addr.c */
int p2pmap_addr_parse(const char *s, int *domain, unsigned int *bus,
		      unsigned int *devfn);
void p2pmap_addr_format(struct pci_dev *pdev, char *buf);

/* param.c: parameters that never fail a load */
extern u32 p2pmap_param_errors;
extern char p2pmap_param_error[P2PMAP_PARAM_PROBLEM_LEN];
__printf(1, 2) void p2pmap_param_problem(const char *fmt, ...);
struct p2pmap_param_str {
	const char **val;
	const char *dflt;	/* *val's initial value, never freed */
	bool list;		/* given again: appended after a comma */
};

extern const struct kernel_param_ops p2pmap_param_ops_str;
extern const struct kernel_param_ops p2pmap_param_ops_bool;

/* device.c */
struct p2pmap_dev *p2pmap_dev_find(const char *addr);
struct p2pmap_dev *p2pmap_dev_find_pdev(struct pci_dev *pdev);
struct p2pmap_dev *p2pmap_dev_track(struct pci_dev *pdev);
void p2pmap_dev_binding(struct p2pmap_dev *dev, struct pci_dev *pdev);
void p2pmap_dev_not_bound(struct p2pmap_dev *dev);
void p2pmap_dev_bind(struct p2pmap_dev *dev, struct pci_dev *pdev);
void p2pmap_dev_leave(struct p2pmap_dev *dev);
void p2pmap_dev_unbound(struct p2pmap_dev *dev);
void p2pmap_dev_remove(struct p2pmap_dev *dev);
void p2pmap_dev_untrack(struct p2pmap_dev *dev);
void p2pmap_dev_untrack_all(void);
extern struct list_head p2pmap_devs;

/* domain.c: read at bind events (the driver holds the domain) or locked */
void p2pmap_domain_record(struct p2pmap_dev *dev);
bool p2pmap_domain_in_use(struct iommu_domain *domain,
			  const struct p2pmap_dev *except);
void p2pmap_domain_locked(struct pci_dev *pdev,
			  void (*fn)(struct iommu_domain *domain,
				     struct pci_dev *pdev));

/* link.c */
extern struct list_head p2pmap_links;
struct p2pmap_link *p2pmap_link_find(const char *initiator,
				     const char *target);
struct p2pmap_link *p2pmap_link_create(const char *initiator,
				       const char *target, u32 bar_mask);
void p2pmap_link_destroy(struct p2pmap_link *link);
int p2pmap_link_delete(struct p2pmap_link *link, const char **why);
int p2pmap_link_sync(struct p2pmap_link *link);
void p2pmap_link_set_state(struct p2pmap_link *link,
			   enum p2pmap_link_state want, const char *reason);
void p2pmap_links_sync_dev(const char *addr);
void p2pmap_links_destroy_all(void);
u64 p2pmap_link_mapped_bytes(const struct p2pmap_link *link);
const char *p2pmap_link_state_name(enum p2pmap_link_state state);

/* link_param.c: links configured at load time */
void p2pmap_links_param_apply(void);

/* map.c: where a mapping is made */
int p2pmap_link_map(struct p2pmap_link *link, struct p2pmap_dev *init,
		    struct p2pmap_dev *tgt);

/* unmap.c: where a mapping is undone (the reservation stays) */
int p2pmap_link_unmap(struct p2pmap_link *link);
int p2pmap_range_unmap(struct p2pmap_range *r);
int p2pmap_range_put(struct p2pmap_range *r);
extern unsigned int p2pmap_unmap_short;

/* range.c: the identity ranges and when their reservations are given back */
extern struct list_head p2pmap_ranges;
struct p2pmap_range *p2pmap_range_find(struct iommu_domain *domain, u64 iova);
struct p2pmap_range *p2pmap_range_overlap(struct iommu_domain *domain,
					  u64 iova, u64 size);
struct p2pmap_range *p2pmap_range_new(struct iommu_domain *domain,
				      struct pci_dev *init, u64 iova, u64 size,
				      const char **why, int *err);
void p2pmap_range_release(struct p2pmap_range *r);
unsigned int p2pmap_ranges_release_domain(struct iommu_domain *domain);
unsigned int p2pmap_ranges_reconcile(struct iommu_domain *domain,
				     struct pci_dev *pdev);
void p2pmap_ranges_release_group(struct iommu_domain *domain,
				 struct pci_dev *pdev);
void p2pmap_ranges_release_locked(void);
unsigned int p2pmap_ranges_reserved(void);
unsigned int p2pmap_ranges_dormant(struct iommu_domain *domain);

/* reserve.c: other host bridges' windows, reserved before a driver probes */
unsigned int p2pmap_reserve_windows(struct p2pmap_dev *dev);
void p2pmap_reserve_param_check(void);
u64 p2pmap_windows_reserved_bytes(void);
bool p2pmap_windows_cover(struct iommu_domain *domain, u64 iova, u64 size);
int p2pmap_windows_fill(struct iommu_domain *domain, struct pci_dev *init,
			u64 iova, u64 size, const char **why);

/* iova_guard.c: keeps the DMA API's IOVA allocator out of identity ranges */
int p2pmap_iova_reserve(struct iommu_domain *domain, struct pci_dev *init,
			u64 iova, u64 size, struct iova **resv,
			const char **why);
int p2pmap_iova_reserve_gap(struct iommu_domain *domain, u64 lo, u64 hi,
			    struct iova **resv, u64 *gap_lo, u64 *gap_end,
			    u64 *way_lo, u64 *way_end);
bool p2pmap_iova_holds(struct iommu_domain *domain, struct iova *resv,
		       u64 iova, u64 size);
void p2pmap_iova_release(struct iommu_domain *domain, struct iova *resv);
void p2pmap_iova_flush_caches(struct iommu_domain *domain);

/* fault.c: counting IOMMU faults */
void p2pmap_fault_account(struct p2pmap_dev *init, u64 addr, bool write,
			  u32 source);
void p2pmap_fault_mark(struct p2pmap_dev *init, u64 addr, u32 source);
void p2pmap_fault_tp_note(struct p2pmap_dev *init, u64 addr, bool write);
bool p2pmap_fault_tp_claim(struct p2pmap_dev *init, u64 addr, bool write);
struct p2pmap_peer_faults *p2pmap_peer_find(struct p2pmap_dev *init,
					    u32 target_id);
void p2pmap_faults_reset(struct p2pmap_dev *dev);
void p2pmap_faults_forget_target(u32 target_id);
int p2pmap_faults_init(void);
void p2pmap_faults_exit(void);
int p2pmap_fault_sources_register(void);
void p2pmap_fault_sources_unregister(void);
u32 p2pmap_fault_sources_armed(void);
void p2pmap_fault_ntf_flush(void);

/* fault_index.c: what the fault probes may look up, under RCU */
void p2pmap_fault_index_rebuild(void);
void p2pmap_fault_sid_note(struct p2pmap_dev *dev);
void p2pmap_fault_index_free(void);
struct p2pmap_dev *p2pmap_fault_index_dev(const struct device *dev);
struct p2pmap_dev *p2pmap_fault_index_sid(u16 source_id);
struct p2pmap_dev *p2pmap_fault_index_bar(u64 addr);
struct p2pmap_dev *p2pmap_fault_index_addr(const char *addr);

/* fault_tracepoint.c: the io_page_fault tracepoint */
int p2pmap_fault_tp_register(void);
void p2pmap_fault_tp_unregister(void);

/* fault_console.c: the printk console probe, for the fault-log parsers */
extern const char *p2pmap_fault_log_off;
u32 p2pmap_fault_console_register(void);
void p2pmap_fault_console_unregister(void);

/*
 * fault_dmar.c, fault_amdvi.c: the VT-d and AMD-Vi fault-log lines, from
 * the console probe (in a context it trusts: see fault_console.c).
 */
extern bool p2pmap_dmar_log;
extern bool p2pmap_amdvi_log;
void p2pmap_fault_dmar_line(const char *text, size_t len);
void p2pmap_fault_amdvi_line(const char *text, size_t len);
u64 p2pmap_fault_amdvi_rejected(void);

/* events.c: multicast notifications */
extern bool p2pmap_events_on;
void p2pmap_ntf_dev(struct p2pmap_dev *dev, u8 cmd);
void p2pmap_ntf_link(struct p2pmap_link *link, u8 cmd);
void p2pmap_ntf_fault(struct p2pmap_dev *init, struct p2pmap_dev *tgt,
		      struct p2pmap_fault_count *f);
unsigned int p2pmap_ntf_nets_count(void);	/* events_listeners.c */

/* sysfs.c: /sys/kernel/p2pmap */
int p2pmap_sysfs_init(void);
void p2pmap_sysfs_exit(void);
int p2pmap_sysfs_dev_add(struct p2pmap_dev *dev);
int p2pmap_sysfs_link_add(struct p2pmap_link *link);
void p2pmap_dev_release(struct kobject *kobj);

/* policy.c: which devices p2pmap will ever link (lists: param_grammar.h) */
struct p2pmap_policy {
	char drivers[P2PMAP_POLICY_LEN];
	char vendors[P2PMAP_POLICY_LEN];
	char classes[P2PMAP_POLICY_LEN];
	char numa_nodes[P2PMAP_POLICY_LEN];
};

extern struct p2pmap_policy p2pmap_policy;
void p2pmap_policy_init(void);
bool p2pmap_policy_admits(const struct p2pmap_dev *dev, const char **why);
bool p2pmap_policy_admits_under(const struct p2pmap_policy *p,
				const struct p2pmap_dev *dev, const char **why);
bool p2pmap_policy_may_admit(const struct p2pmap_dev *dev, const char **why);
bool p2pmap_policy_admits_driver(const struct p2pmap_dev *dev,
				 const char **why);

/* sme.c: AMD SME and the C-bit of identity PTEs */
enum p2pmap_sme p2pmap_sme_state(void);

/* notifier.c */
int p2pmap_notifier_register(void);
void p2pmap_notifier_unregister(void);

/* netlink.c */
int p2pmap_genl_register(void);
void p2pmap_genl_unregister(void);

#endif /* P2PMAP_H */
