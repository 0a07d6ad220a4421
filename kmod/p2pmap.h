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

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/iommu.h>
#include <linux/p2pmap.h>

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

/* A PCI function p2pmap tracks; lives from ADD_DEVICE to DEL_DEVICE. */
struct p2pmap_dev {
	struct list_head node;
	struct pci_dev *pdev;			/* reference held */
	char addr[P2PMAP_ADDR_LEN];
	bool bound;				/* a driver is bound */
	bool dma_owned;				/* ... and it manages DMA itself */
	char driver[32];
	struct p2pmap_bar bars[PCI_STD_NUM_BARS];	/* valid while bound */
};

/*
 * One identity range in one IOMMU domain.  Shared (users > 1) when two
 * initiators of the same IOMMU group link to the same target BAR.  @domain is
 * only compared and used while an initiator that mapped it is bound: the
 * IOMMU core cannot replace a default domain while a driver is bound, and
 * every range is undone at the initiator's UNBIND_DRIVER.
 */
struct p2pmap_range {
	struct list_head node;
	struct iommu_domain *domain;
	u64 iova;
	u64 size;
	u64 pages;		/* IOMMU page-table entries the map needed */
	struct iova *resv;	/* our hold in the DMA API allocator, or NULL */
	unsigned int users;
};

/* A configured direction initiator -> target. */
struct p2pmap_link {
	struct list_head node;
	char initiator[P2PMAP_ADDR_LEN];
	char target[P2PMAP_ADDR_LEN];
	u32 bar_mask;
	enum p2pmap_link_state state;
	const char *reason;	/* static string, also used as ext-ack text */
	struct p2pmap_range *ranges[PCI_STD_NUM_BARS];
	u8 range_bar[PCI_STD_NUM_BARS];	/* target BAR index of ranges[i] */
};

/* addr.c */
int p2pmap_addr_parse(const char *s, int *domain, unsigned int *bus,
		      unsigned int *devfn);
void p2pmap_addr_format(struct pci_dev *pdev, char *buf);

/* device.c */
struct p2pmap_dev *p2pmap_dev_find(const char *addr);
struct p2pmap_dev *p2pmap_dev_track(struct pci_dev *pdev);
void p2pmap_dev_bind(struct p2pmap_dev *dev, struct pci_dev *pdev);
void p2pmap_dev_unbind(struct p2pmap_dev *dev);
void p2pmap_dev_untrack(struct p2pmap_dev *dev);
void p2pmap_dev_untrack_all(void);
extern struct list_head p2pmap_devs;

/* domain.c */
enum p2pmap_domain p2pmap_domain_of(struct pci_dev *pdev);
struct iommu_domain *p2pmap_dma_domain(struct pci_dev *pdev);

/* link.c */
extern struct list_head p2pmap_links;
struct p2pmap_link *p2pmap_link_find(const char *initiator,
				     const char *target);
struct p2pmap_link *p2pmap_link_create(const char *initiator,
				       const char *target, u32 bar_mask);
void p2pmap_link_destroy(struct p2pmap_link *link);
int p2pmap_link_sync(struct p2pmap_link *link);
void p2pmap_links_sync_dev(const char *addr);
void p2pmap_links_destroy_all(void);
u64 p2pmap_link_mapped_bytes(const struct p2pmap_link *link);
const char *p2pmap_link_state_name(enum p2pmap_link_state state);

/* link_param.c: links configured at load time */
int p2pmap_links_param_apply(void);

/* map.c: where a mapping is made */
int p2pmap_link_map(struct p2pmap_link *link, struct p2pmap_dev *init,
		    struct p2pmap_dev *tgt);

/* unmap.c: where a mapping is undone */
void p2pmap_link_unmap(struct p2pmap_link *link);
void p2pmap_range_put(struct p2pmap_range *r);

/* iova_guard.c: keeps the DMA API's IOVA allocator out of identity ranges */
int p2pmap_iova_guard(struct iommu_domain *domain, u64 iova, u64 size,
		      struct iova **resv, const char **why);
void p2pmap_iova_unguard(struct iommu_domain *domain, struct iova *resv);

/* notifier.c */
int p2pmap_notifier_register(void);
void p2pmap_notifier_unregister(void);

/* netlink.c */
int p2pmap_genl_register(void);
void p2pmap_genl_unregister(void);

#endif /* P2PMAP_H */
