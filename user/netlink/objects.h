/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protocol's objects as plain C structs: what the netlink parsers fill
 * in and what the formatters print.  No libnl or libpci here, so that the
 * unit tests can build the formatters alone.
 */
#ifndef P2PMAP_OBJECTS_H
#define P2PMAP_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/p2pmap.h>

/*
 * Is a fault count with these P2PMAP_FAULT_SRC_* bits (or the armed
 * sources of "info") a lower bound?  The VT-d log's counts are; AMD-Vi's
 * log counts are when the tracepoint, which AMD-Vi tells of every DMA
 * fault, is not among them (the log is rate-limited per device).
 */
static inline bool fault_sources_lower_bound(uint32_t sources)
{
	return (sources & P2PMAP_FAULT_SRC_DMAR) ||
	       ((sources & P2PMAP_FAULT_SRC_AMDVI_LOG) &&
		!(sources & P2PMAP_FAULT_SRC_TRACEPOINT));
}

#define P2PMAP_NR_BARS		6
#define P2PMAP_DRIVER_LEN	64
#define P2PMAP_REASON_LEN	256
#define P2PMAP_NAME_LEN		128
#define P2PMAP_TYPE_LEN		16
#define P2PMAP_MAX_PEERS	32	/* per-target fault records kept */
#define P2PMAP_VERSION_LEN	64

/*
 * A fault counter and what is known of its last fault: the device's own
 * (P2PMAP_A_DEV_FAULT*), a pair's (P2PMAP_A_PEER_*, P2PMAP_A_LINK_FAULT*)
 * or an event's (P2PMAP_A_FAULT_*).  has_* is false for an attribute the
 * kernel did not send (an older module, or no fault yet).
 */
struct p2pmap_fault {
	bool has_count;
	uint64_t count;
	bool has_addr;
	uint64_t last_addr;
	bool has_flags;
	uint32_t last_flags;		/* P2PMAP_FAULT_F_* */
	bool has_time;
	uint64_t last_time;		/* ns, CLOCK_REALTIME */
	uint32_t sources;		/* P2PMAP_FAULT_SRC_* seen */
};

/* Faults of (a device, @target): one P2PMAP_A_DEV_PEER nest. */
struct p2pmap_peer {
	char target[P2PMAP_ADDR_LEN];
	struct p2pmap_fault f;
};

/* A memory BAR (P2PMAP_A_DEV_BAR, or read from libpci). */
struct p2pmap_bar {
	uint32_t index;
	uint64_t start;
	uint64_t size;
	uint32_t flags;			/* P2PMAP_BAR_F_* */
};

/* A tracked device (P2PMAP_CMD_DEV_GET). */
struct p2pmap_dev {
	char addr[P2PMAP_ADDR_LEN];
	uint16_t vendor;
	uint16_t device;
	uint32_t class;
	char driver[P2PMAP_DRIVER_LEN];	/* "" when unbound */
	uint32_t state;			/* enum p2pmap_dev_state */
	int32_t numa_node;
	int32_t iommu_group;
	uint32_t domain;		/* enum p2pmap_domain */
	unsigned int nbars;
	struct p2pmap_bar bars[P2PMAP_NR_BARS];
	struct p2pmap_fault faults;	/* P2PMAP_A_DEV_FAULTS and last_* */
	bool has_faults_other;
	uint64_t faults_other;		/* P2PMAP_A_DEV_FAULTS_OTHER */
	unsigned int npeers;		/* PEER nests the kernel sent */
	struct p2pmap_peer peers[P2PMAP_MAX_PEERS]; /* the first ones kept */
	bool has_admitted;		/* false: an older module */
	bool admitted;			/* P2PMAP_A_DEV_ADMITTED == 1 */
	char admit_reason[P2PMAP_REASON_LEN]; /* "" when the kernel sent none */
};

struct p2pmap_dev_list {
	struct p2pmap_dev *devs;
	size_t n;
	size_t cap;
};

/* An identity range of a link (P2PMAP_A_LINK_RANGE). */
struct p2pmap_range {
	uint32_t bar;
	uint64_t iova;
	uint64_t size;
	uint64_t pages;
};

/* A link (P2PMAP_CMD_LINK_GET). */
struct p2pmap_link {
	char initiator[P2PMAP_ADDR_LEN];
	char target[P2PMAP_ADDR_LEN];
	uint32_t bar_mask;
	uint32_t state;			/* enum p2pmap_link_state */
	bool has_state;
	char reason[P2PMAP_REASON_LEN];	/* "" when the kernel sent none */
	bool has_mapped_bytes;
	uint64_t mapped_bytes;
	unsigned int nranges;		/* ranges the kernel reported */
	struct p2pmap_range ranges[P2PMAP_NR_BARS]; /* the first ones kept */
	struct p2pmap_fault faults;	/* the pair's, P2PMAP_A_LINK_FAULT* */
};

struct p2pmap_link_list {
	struct p2pmap_link *links;
	size_t n;
	size_t cap;
};

/* P2PMAP_CMD_INFO_GET */
struct p2pmap_info {
	char version[P2PMAP_VERSION_LEN];	/* "" when not sent */
	bool has_fault_sources;
	uint32_t fault_sources;		/* P2PMAP_FAULT_SRC_* armed */
	bool has_generation;
	uint32_t generation;
	bool has_ranges_reserved;
	uint32_t ranges_reserved;	/* identity ranges reserved, unmapped */
	bool has_unmap_short;
	uint32_t unmap_short;		/* unmaps that came back short */
	bool has_windows_reserved;
	uint64_t windows_reserved;	/* bytes, other bridges' windows */
	bool has_param_errors;
	uint32_t param_errors;		/* module parameter parts skipped */
	char param_error[P2PMAP_REASON_LEN];	/* the first, "" if none */
	bool has_fault_log_dropped;
	uint64_t fault_log_dropped;	/* impossible fault-log lines */
	bool has_sme;
	uint32_t sme;			/* enum p2pmap_sme */
	char fault_log_off[P2PMAP_REASON_LEN];	/* why the fault-log
						 * sources asked for are
						 * off, "" if they are not
						 */
};

/*
 * P2PMAP_CMD_POLICY_GET: the admission policy, comma-separated lists as the
 * kernel sends them.  has_* is false for an attribute not sent (POLICY_SET:
 * not to be changed); an empty vendor, class or node list means any.
 */
struct p2pmap_policy {
	bool has_drivers;
	char drivers[P2PMAP_POLICY_LEN];
	bool has_vendors;
	char vendors[P2PMAP_POLICY_LEN];
	bool has_classes;
	char classes[P2PMAP_POLICY_LEN];
	bool has_numa_nodes;
	char numa_nodes[P2PMAP_POLICY_LEN];
};

/* P2PMAP_CMD_FAULT_NTF: f.count is P2PMAP_A_FAULT_COUNT. */
struct p2pmap_fault_ntf {
	char initiator[P2PMAP_ADDR_LEN];
	char target[P2PMAP_ADDR_LEN];	/* "": the initiator's "other" faults */
	bool has_new;
	uint64_t new_faults;		/* P2PMAP_A_FAULT_NEW */
	struct p2pmap_fault f;
};

/*
 * A message of the "events" group.  cmd says which member is filled:
 * dev for DEV_ADD_NTF and DEV_DEL_NTF, link for LINK_NTF and
 * LINK_DEL_NTF, fault for FAULT_NTF.
 */
struct p2pmap_event {
	uint8_t cmd;
	uint64_t time_ns;		/* CLOCK_REALTIME at receipt; 0: unknown */
	struct p2pmap_dev dev;
	struct p2pmap_link link;
	struct p2pmap_fault_ntf fault;
};

/* One row of "p2pmap list": a PCI function from libpci, plus tracking. */
enum list_tracked {
	LIST_TRACKED_UNKNOWN,		/* module not loaded: "-" */
	LIST_TRACKED_NO,
	LIST_TRACKED_YES,
};

struct list_entry {
	char addr[P2PMAP_ADDR_LEN];
	uint16_t vendor;
	uint16_t device;
	uint16_t device_class;		/* base class and subclass: 0x0302 */
	int numa_node;			/* -1 when unknown */
	int iommu_group;		/* -1 when none */
	char group_type[P2PMAP_TYPE_LEN]; /* "" when none */
	char driver[P2PMAP_DRIVER_LEN];	/* "" when unbound */
	enum list_tracked tracked;
	char name[P2PMAP_NAME_LEN];
	unsigned int nbars;
	struct p2pmap_bar bars[P2PMAP_NR_BARS];
	/* Admission, from the kernel's record of a tracked device. */
	bool has_admitted;		/* false: untracked, or an older module */
	bool admitted;
	char admit_reason[P2PMAP_REASON_LEN]; /* "" when none */
};

#endif /* P2PMAP_OBJECTS_H */
