/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * p2pmap: identity IOMMU mappings of peer PCI BARs, for GPU peer-to-peer DMA
 * under a translating IOMMU.
 *
 * This header is the protocol specification of the generic netlink family
 * "p2pmap" (version 1).  The kernel module and the p2pmap CLI both include it.
 *
 * Objects
 * -------
 * device: a PCI function p2pmap tracks, named by its address
 *	"DDDD:BB:DD.F" (lower-case hex, always with the PCI domain).
 * link:   a directed pair initiator -> target: "the initiator may DMA into
 *	the target's BARs".  While a link is active, every selected memory BAR
 *	of the target is mapped into the initiator's default DMA domain with
 *	IOVA == the BAR's bus address (an identity range).
 *
 * Namespaces
 * ----------
 * The family answers in every network namespace (an LXC container has its
 * own): reads and the events group there as on the host, fault addresses
 * withheld, unless the module parameter netns_reads=N refuses them (EPERM,
 * with an extended-ack message).  State changes are accepted only from the
 * initial network namespace; elsewhere they get EPERM and a message saying
 * to run the command on the host.
 *
 * Commands
 * --------
 * P2PMAP_CMD_DEV_GET (dump)
 *	One message per tracked device, attributes from enum p2pmap_dev_attr.
 *	do: request P2PMAP_A_DEV_ADDR, reply one device.
 *
 * P2PMAP_CMD_LINK_GET (dump or do)
 *	dump: one message per configured link (enum p2pmap_link_attr).
 *	do:   request P2PMAP_A_LINK_INITIATOR and P2PMAP_A_LINK_TARGET, reply
 *	      with that link.  ENOENT if it is not configured.
 *
 * P2PMAP_CMD_LINK_ADD (do, CAP_NET_ADMIN, CAP_SYS_ADMIN and
 *	CAP_SYS_RAWIO in the initial user namespace)
 *	Request: P2PMAP_A_LINK_INITIATOR, P2PMAP_A_LINK_TARGET (required),
 *	P2PMAP_A_LINK_BAR_MASK (optional, default P2PMAP_BAR_MASK_DEFAULT).
 *	Both devices must be tracked.  The link is configured and, if both
 *	sides are bound and eligible, mapped at once.  If mapping is refused
 *	for safety (see errors), nothing is configured.  A link whose sides
 *	are not ready is kept in state PENDING or BLOCKED and maps by itself
 *	when they are.
 *
 * P2PMAP_CMD_LINK_DEL (do, CAP_NET_ADMIN, CAP_SYS_ADMIN and
 *	CAP_SYS_RAWIO in the initial user namespace)
 *	Request: P2PMAP_A_LINK_INITIATOR, P2PMAP_A_LINK_TARGET.  Every mapping
 *	of the link is removed before the reply is sent.  The IOVA ranges stay
 *	reserved in the initiator's DMA API allocator until no device of its
 *	domain is bound to a driver any more.  EIO if iommu_unmap() came back
 *	short: the link is then kept in state ERROR (a second delete removes
 *	it) and the range stays reserved for good (P2PMAP_A_INFO_UNMAP_SHORT).
 *
 * P2PMAP_CMD_INFO_GET (do)
 *	Reply (enum p2pmap_info_attr): module version, the fault sources that
 *	are armed on this kernel, the generation counter, the identity ranges
 *	held reserved without a mapping, how many unmaps came back short, and
 *	the bytes of other host bridges' windows reserved early (module
 *	parameter reserve=) in the DMA API allocators of admitted devices.
 *
 * P2PMAP_CMD_FAULTS_RESET (do, CAP_NET_ADMIN, CAP_SYS_ADMIN and
 *	CAP_SYS_RAWIO in the initial user namespace)
 *	Request: P2PMAP_A_DEV_ADDR (optional).  Zeroes the fault counters of
 *	that device (its own and its per-target ones), or of every device.
 *	Links keep no counters of their own: a link reports the counter of
 *	its (initiator, target) pair, which also exists for pairs that have
 *	no link.
 *
 * P2PMAP_CMD_POLICY_GET (do)
 *	Reply (enum p2pmap_policy_attr): the admission policy.
 *
 * P2PMAP_CMD_POLICY_SET (do, CAP_NET_ADMIN, CAP_SYS_ADMIN and
 *	CAP_SYS_RAWIO in the initial user namespace)
 *	Request: any of the policy attributes; those given replace the
 *	current value ("" clears a filter), the others are kept.  Every link
 *	is re-evaluated at once: links whose devices are no longer admitted
 *	are unmapped before the reply.  EINVAL (with the attribute named) for
 *	a malformed list; nothing changes then.
 *	With P2PMAP_A_POLICY_DRY_RUN nothing changes either: the reply (a
 *	P2PMAP_CMD_POLICY_SET message) carries one P2PMAP_A_POLICY_DENIED
 *	per device admitted now that the new policy would not admit (the
 *	devices whose links it would unmap); EMSGSIZE if they do not fit.
 *
 * P2PMAP_CMD_EVENTS_LISTEN (do; outside the initial network namespace,
 *	CAP_NET_ADMIN over the socket's own, as joining the group asks)
 *	No attributes.  Registers the sending socket for events (below):
 *	outside the initial network namespace they are copied only into
 *	namespaces where a socket registered, until it closes.  Accepted
 *	from anyone in the initial namespace, where it changes nothing.
 *	EPERM outside it while netns_reads=N; ENOSPC past 32 sockets in one
 *	namespace.
 *
 * Admission policy
 *	p2pmap maps a link only when both devices are admitted: bound to a
 *	driver named in the driver allowlist (default "nvidia"), never to a
 *	driver that manages DMA itself (vfio-pci and every driver_managed_dma
 *	driver), and, when those filters are set, with a vendor id in the
 *	vendor list, a class in the class list and a NUMA node in the node
 *	list.  A link with a device that is not admitted is BLOCKED, with the
 *	reason.  Lists are comma-separated: drivers by name, vendors as 4 hex
 *	digits ("10de"), classes as 2, 4 or 6 hex digits matched as a prefix
 *	of the 24-bit class code ("03" display, "0302" 3D controller), NUMA
 *	nodes as decimal numbers.
 *
 * Fault accounting
 *	An IOMMU fault is charged to the device that issued the DMA.  If its
 *	address falls in a memory BAR of another tracked device, it is also
 *	charged to the pair (initiator, target), configured as a link or not;
 *	otherwise to the device's "other" counter.  Where a count comes from
 *	is in P2PMAP_A_*_FAULT_SOURCES: the io_page_fault tracepoint
 *	(P2PMAP_FAULT_SRC_TRACEPOINT; AMD-Vi reports every DMA fault there) is
 *	exact; the VT-d fault-log probe (P2PMAP_FAULT_SRC_DMAR) only sees the
 *	faults the kernel did not rate-limit, so such counts are lower
 *	bounds.  The AMD-Vi fault log (P2PMAP_FAULT_SRC_AMDVI_LOG, the
 *	"Event logged [IO_PAGE_FAULT ...]" lines) is rate-limited per device:
 *	a lower bound too.  AMD-Vi reports a DMA fault to the tracepoint and
 *	then logs it: such a fault is counted once, with both bits.  A count
 *	whose sources include P2PMAP_FAULT_SRC_TRACEPOINT has every DMA fault
 *	(the log only adds those the tracepoint is never told of, e.g.
 *	interrupt-request faults); one with P2PMAP_FAULT_SRC_AMDVI_LOG and
 *	without it (a kernel whose AMD-Vi driver stopped calling
 *	report_iommu_fault()) is a lower bound.  Fault-log lines are taken
 *	only from interrupt context or a kernel thread (where the IOMMU
 *	drivers print them), never from a user task writing /dev/kmsg; AMD-Vi
 *	lines at address 0 or naming a PCI host bridge are dropped (QEMU's
 *	amd-iommu logs the faults of other devices so).  Times are
 *	CLOCK_REALTIME in nanoseconds.
 *
 * Events: multicast group P2PMAP_MCGRP_EVENTS ("events"), joinable with
 * CAP_NET_ADMIN over the listener's network namespace only (a container's
 * root has it).  The initial network namespace gets every event; another
 * one only after a socket there sent P2PMAP_CMD_EVENTS_LISTEN (and not
 * while netns_reads=N), so that a host with hundreds of containers does
 * not copy each event into all of them.  They are sent shortly after the
 * change, from a work item, in order.  Fault events never carry P2PMAP_A_FAULT_LAST_ADDR, in any
 * namespace: dumps give it to CAP_SYS_ADMIN only, and a multicast cannot
 * ask each listener.  In the order things happen:
 *	P2PMAP_CMD_DEV_ADD_NTF   a device is tracked (device attributes)
 *	P2PMAP_CMD_DEV_DEL_NTF   a device is gone (P2PMAP_A_DEV_ADDR)
 *	P2PMAP_CMD_LINK_NTF      a link was added or changed state (link
 *	                         attributes, with state and reason)
 *	P2PMAP_CMD_LINK_DEL_NTF  a link was deleted (initiator, target)
 *	P2PMAP_CMD_FAULT_NTF     new faults (enum p2pmap_fault_attr), at most
 *	                         one per (initiator, target or "other") per
 *	                         P2PMAP_FAULT_NTF_INTERVAL_MS: a fault storm
 *	                         costs listeners a few messages per second.
 *
 * Errors (with an extended-ack message naming the attribute at fault)
 *	EINVAL     missing or malformed attribute, self-link, empty BAR mask
 *	ENODEV     a named device is not tracked
 *	EEXIST     the link is already configured
 *	ENOENT     no such link
 *	EPERM      a state change without CAP_NET_ADMIN, CAP_SYS_ADMIN and
 *	           CAP_SYS_RAWIO in the initial user namespace (the extended
 *	           ack names the missing capability), or from another network
 *	           namespace than the initial one; a read from another network
 *	           namespace while netns_reads=N
 *	EBUSY      part of a target BAR is already an IOVA of the initiator's
 *	           domain: the DMA API handed it out (in use, cached or
 *	           waiting in the flush queue), or a firmware region or a
 *	           mapping not made by p2pmap is there
 *	EIO        the IOMMU did not translate a new range, or an unmap came
 *	           back short
 *	ERANGE     a target BAR lies outside the initiator domain's aperture
 *	EOPNOTSUPP this kernel does not let p2pmap keep the DMA API away from
 *	           the identity range (IOVA allocator not found): refused
 *	ENOMEM, or the error of iommu_map(): mapping failed, nothing kept
 *
 * Dumps are consistent: a dump that overlaps a change carries
 * NLM_F_DUMP_INTR and should be retried.
 */
#ifndef _UAPI_LINUX_P2PMAP_H
#define _UAPI_LINUX_P2PMAP_H

#define P2PMAP_GENL_NAME	"p2pmap"
#define P2PMAP_GENL_VERSION	1

/*
 * Length of the longest "DDDD:BB:DD.F" plus the terminating NUL: the PCI
 * domain has 4 to 8 hex digits (VMD domains start at 0x10000).
 */
#define P2PMAP_ADDR_LEN		17

/* BARs 0..5; bit n selects BAR n.  I/O-port BARs are never mapped. */
#define P2PMAP_BAR_MASK_ALL	0x3f
/*
 * Default: BAR0 and BAR1, the two BARs of a target GPU that NVIDIA's peer
 * paths ever map for a peer (open-gpu-kernel-modules 595.45.04, os.c
 * osIovaMap(): nv_dma_map_peer() with BAR index 0 or 1 only).  Mailbox P2P,
 * the default type (RMPcieP2PType), has the peer write into both: a 64 KiB
 * mailbox in BAR1 (kern_bus_gm200.c kbusSetupMailboxAccess_GM200()) and an
 * 8 KiB register window in BAR0 (kern_bus_gh100.c
 * kbusSetupP2PDomainAccess_GH100()); BAR1 P2P maps BAR1 alone.  No peer
 * path uses BAR3 (the BAR2/3 instance-memory aperture): it stays out.
 */
#define P2PMAP_BAR_MASK_DEFAULT	0x3

enum p2pmap_cmd {
	P2PMAP_CMD_UNSPEC,
	P2PMAP_CMD_DEV_GET,
	P2PMAP_CMD_LINK_GET,
	P2PMAP_CMD_LINK_ADD,
	P2PMAP_CMD_LINK_DEL,
	P2PMAP_CMD_INFO_GET,
	P2PMAP_CMD_FAULTS_RESET,
	P2PMAP_CMD_DEV_ADD_NTF,
	P2PMAP_CMD_DEV_DEL_NTF,
	P2PMAP_CMD_LINK_NTF,
	P2PMAP_CMD_LINK_DEL_NTF,
	P2PMAP_CMD_FAULT_NTF,
	P2PMAP_CMD_POLICY_GET,
	P2PMAP_CMD_POLICY_SET,
	P2PMAP_CMD_EVENTS_LISTEN,

	__P2PMAP_CMD_MAX
};

#define P2PMAP_CMD_MAX (__P2PMAP_CMD_MAX - 1)

#define P2PMAP_MCGRP_EVENTS		"events"
#define P2PMAP_FAULT_NTF_INTERVAL_MS	200

/* Fault sources (bit mask) */
#define P2PMAP_FAULT_SRC_TRACEPOINT	(1U << 0)	/* exact */
#define P2PMAP_FAULT_SRC_DMAR		(1U << 1)	/* lower bound */
#define P2PMAP_FAULT_SRC_AMDVI_LOG	(1U << 2)	/* lower bound */

/* Fault flags (P2PMAP_A_*_FAULT_LAST_FLAGS) */
#define P2PMAP_FAULT_F_WRITE		(1U << 0)

/*
 * What the device's IOMMU group was attached to at its last bind event: the
 * kernel gives no stable view at any other time.
 */
enum p2pmap_domain {
	P2PMAP_DOMAIN_NONE,		/* no IOMMU translates this device */
	P2PMAP_DOMAIN_IDENTITY,		/* passthrough */
	P2PMAP_DOMAIN_DMA,		/* default DMA domain, strict */
	P2PMAP_DOMAIN_DMA_FQ,		/* default DMA domain, lazy */
	P2PMAP_DOMAIN_BLOCKED,		/* blocked (VFIO/iommufd claim) */
	P2PMAP_DOMAIN_UNMANAGED,	/* owned by another user (VFIO/iommufd) */
	P2PMAP_DOMAIN_OTHER,
	P2PMAP_DOMAIN_UNKNOWN,		/* not read: never bound yet, or its
					 * driver manages DMA (vfio-pci)
					 */
};

/*
 * AMD SME (mem_encrypt=on) and identity ranges: with SME active, AMD's IOMMU
 * page table of kernels before 6.19.4 sets the C-bit on MMIO PTEs too, which
 * AMD requires clear for MMIO; p2pmap maps nothing there (links: ERROR).
 */
enum p2pmap_sme {
	P2PMAP_SME_OFF,			/* SME not active */
	P2PMAP_SME_REFUSED,		/* active, C-bit set on MMIO PTEs:
					 * identity ranges refused
					 */
	P2PMAP_SME_MMIO_PLAIN,		/* active, this kernel leaves MMIO
					 * PTEs without the C-bit
					 */
};

enum p2pmap_dev_state {
	P2PMAP_DEV_UNBOUND,		/* no driver */
	P2PMAP_DEV_BOUND,		/* bound to a driver using the DMA API */
	P2PMAP_DEV_OWNED,		/* its driver manages DMA (vfio-pci) */
};

enum p2pmap_link_state {
	P2PMAP_LINK_PENDING,	/* a side is absent or unbound */
	P2PMAP_LINK_MAPPED,	/* identity ranges are in the initiator domain */
	P2PMAP_LINK_NATIVE,	/* initiator is untranslated: nothing to map */
	P2PMAP_LINK_BLOCKED,	/* a side is owned by VFIO/iommufd or similar */
	P2PMAP_LINK_ERROR,	/* mapping refused or failed: see the reason */
};

/* BAR flags (P2PMAP_A_BAR_FLAGS) */
#define P2PMAP_BAR_F_64BIT	(1U << 0)
#define P2PMAP_BAR_F_PREFETCH	(1U << 1)

/* Nested in P2PMAP_A_DEV_BAR (one per memory BAR). */
enum p2pmap_bar_attr {
	P2PMAP_A_BAR_UNSPEC,
	P2PMAP_A_BAR_PAD,
	P2PMAP_A_BAR_INDEX,	/* u32 */
	P2PMAP_A_BAR_START,	/* u64, bus address */
	P2PMAP_A_BAR_SIZE,	/* u64, bytes */
	P2PMAP_A_BAR_FLAGS,	/* u32, P2PMAP_BAR_F_* */

	__P2PMAP_A_BAR_MAX
};

#define P2PMAP_A_BAR_MAX (__P2PMAP_A_BAR_MAX - 1)

enum p2pmap_dev_attr {
	P2PMAP_A_DEV_UNSPEC,
	P2PMAP_A_DEV_PAD,
	P2PMAP_A_DEV_ADDR,		/* string "DDDD:BB:DD.F" */
	P2PMAP_A_DEV_VENDOR,		/* u16 */
	P2PMAP_A_DEV_DEVICE,		/* u16 */
	P2PMAP_A_DEV_CLASS,		/* u32, 24-bit class code */
	P2PMAP_A_DEV_DRIVER,		/* string, absent when unbound */
	P2PMAP_A_DEV_STATE,		/* u32, enum p2pmap_dev_state */
	P2PMAP_A_DEV_NUMA_NODE,		/* s32, -1 when unknown */
	P2PMAP_A_DEV_IOMMU_GROUP,	/* s32, -1 when none */
	P2PMAP_A_DEV_DOMAIN,		/* u32, enum p2pmap_domain */
	P2PMAP_A_DEV_BAR,		/* nest p2pmap_bar_attr, repeated */
	P2PMAP_A_DEV_FAULTS,		/* u64, all faults of this initiator */
	P2PMAP_A_DEV_FAULTS_OTHER,	/* u64, those not into a tracked BAR */
	P2PMAP_A_DEV_FAULT_LAST_ADDR,	/* u64, only once it faulted */
	P2PMAP_A_DEV_FAULT_LAST_FLAGS,	/* u32, P2PMAP_FAULT_F_* */
	P2PMAP_A_DEV_FAULT_LAST_TIME,	/* u64, ns, CLOCK_REALTIME */
	P2PMAP_A_DEV_FAULT_SOURCES,	/* u32, P2PMAP_FAULT_SRC_* seen */
	P2PMAP_A_DEV_PEER,		/* nest p2pmap_peer_attr, repeated */
	P2PMAP_A_DEV_ADMITTED,		/* u32, 1 if the policy admits it */
	P2PMAP_A_DEV_ADMIT_REASON,	/* string, why not, when not admitted */

	__P2PMAP_A_DEV_MAX
};

#define P2PMAP_A_DEV_MAX (__P2PMAP_A_DEV_MAX - 1)

/* Nested in P2PMAP_A_LINK_RANGE (one per mapped identity range). */
enum p2pmap_range_attr {
	P2PMAP_A_RANGE_UNSPEC,
	P2PMAP_A_RANGE_PAD,
	P2PMAP_A_RANGE_BAR,		/* u32, target BAR index */
	P2PMAP_A_RANGE_IOVA,		/* u64, == the BAR's bus address */
	P2PMAP_A_RANGE_SIZE,		/* u64, bytes */
	P2PMAP_A_RANGE_PAGES,		/* u64, IOMMU page-table entries */

	__P2PMAP_A_RANGE_MAX
};

#define P2PMAP_A_RANGE_MAX (__P2PMAP_A_RANGE_MAX - 1)

enum p2pmap_link_attr {
	P2PMAP_A_LINK_UNSPEC,
	P2PMAP_A_LINK_PAD,
	P2PMAP_A_LINK_INITIATOR,	/* string "DDDD:BB:DD.F" */
	P2PMAP_A_LINK_TARGET,		/* string "DDDD:BB:DD.F" */
	P2PMAP_A_LINK_BAR_MASK,		/* u32, bits 0..5 */
	P2PMAP_A_LINK_STATE,		/* u32, enum p2pmap_link_state */
	P2PMAP_A_LINK_REASON,		/* string, why the link is in its state */
	P2PMAP_A_LINK_MAPPED_BYTES,	/* u64 */
	P2PMAP_A_LINK_RANGE,		/* nest p2pmap_range_attr, repeated */
	P2PMAP_A_LINK_FAULTS,		/* u64, faults of the pair */
	P2PMAP_A_LINK_FAULT_LAST_ADDR,	/* u64, only once it faulted */
	P2PMAP_A_LINK_FAULT_LAST_FLAGS,	/* u32, P2PMAP_FAULT_F_* */
	P2PMAP_A_LINK_FAULT_LAST_TIME,	/* u64, ns, CLOCK_REALTIME */
	P2PMAP_A_LINK_FAULT_SOURCES,	/* u32, P2PMAP_FAULT_SRC_* seen */

	__P2PMAP_A_LINK_MAX
};

#define P2PMAP_A_LINK_MAX (__P2PMAP_A_LINK_MAX - 1)

/* Nested in P2PMAP_A_DEV_PEER: faults of (this device, TARGET). */
enum p2pmap_peer_attr {
	P2PMAP_A_PEER_UNSPEC,
	P2PMAP_A_PEER_PAD,
	P2PMAP_A_PEER_TARGET,		/* string "DDDD:BB:DD.F" */
	P2PMAP_A_PEER_FAULTS,		/* u64 */
	P2PMAP_A_PEER_FAULT_LAST_ADDR,	/* u64 */
	P2PMAP_A_PEER_FAULT_LAST_FLAGS,	/* u32, P2PMAP_FAULT_F_* */
	P2PMAP_A_PEER_FAULT_LAST_TIME,	/* u64, ns, CLOCK_REALTIME */
	P2PMAP_A_PEER_FAULT_SOURCES,	/* u32, P2PMAP_FAULT_SRC_* seen */

	__P2PMAP_A_PEER_MAX
};

#define P2PMAP_A_PEER_MAX (__P2PMAP_A_PEER_MAX - 1)

/* P2PMAP_CMD_FAULT_NTF */
enum p2pmap_fault_attr {
	P2PMAP_A_FAULT_UNSPEC,
	P2PMAP_A_FAULT_PAD,
	P2PMAP_A_FAULT_INITIATOR,	/* string "DDDD:BB:DD.F" */
	P2PMAP_A_FAULT_TARGET,		/* string; absent: "other" faults */
	P2PMAP_A_FAULT_COUNT,		/* u64, the counter now */
	P2PMAP_A_FAULT_NEW,		/* u64, faults since the last event */
	P2PMAP_A_FAULT_LAST_ADDR,	/* u64 */
	P2PMAP_A_FAULT_LAST_FLAGS,	/* u32, P2PMAP_FAULT_F_* */
	P2PMAP_A_FAULT_SOURCES,		/* u32, P2PMAP_FAULT_SRC_* seen */

	__P2PMAP_A_FAULT_MAX
};

#define P2PMAP_A_FAULT_MAX (__P2PMAP_A_FAULT_MAX - 1)

/* P2PMAP_CMD_INFO_GET */
enum p2pmap_info_attr {
	P2PMAP_A_INFO_UNSPEC,
	P2PMAP_A_INFO_PAD,
	P2PMAP_A_INFO_VERSION,		/* string */
	P2PMAP_A_INFO_FAULT_SOURCES,	/* u32, P2PMAP_FAULT_SRC_* armed */
	P2PMAP_A_INFO_GENERATION,	/* u32 */
	P2PMAP_A_INFO_RANGES_RESERVED,	/* u32, reserved, not mapped */
	P2PMAP_A_INFO_UNMAP_SHORT,	/* u32, iommu_unmap() came back short */
	P2PMAP_A_INFO_WINDOWS_RESERVED,	/* u64, bytes of other host bridges'
					 * windows reserved early, all domains
					 */
	P2PMAP_A_INFO_PARAM_ERRORS,	/* u32, module parameter parts skipped
					 * at load (each logged)
					 */
	P2PMAP_A_INFO_PARAM_ERROR,	/* string, the first of them */
	P2PMAP_A_INFO_FAULT_LOG_DROPPED, /* u64, AMD-Vi fault-log lines
					  * dropped as impossible (address
					  * 0, a host bridge as the device)
					  */
	P2PMAP_A_INFO_SME,		/* u32, enum p2pmap_sme */
	P2PMAP_A_INFO_FAULT_LOG_OFF,	/* string, why the fault-log sources
					 * asked for (dmar_log, amdvi_log)
					 * are not armed
					 */

	__P2PMAP_A_INFO_MAX
};

#define P2PMAP_A_INFO_MAX (__P2PMAP_A_INFO_MAX - 1)

/* P2PMAP_CMD_POLICY_GET / P2PMAP_CMD_POLICY_SET */
enum p2pmap_policy_attr {
	P2PMAP_A_POLICY_UNSPEC,
	P2PMAP_A_POLICY_DRIVERS,	/* string, "nvidia,..." */
	P2PMAP_A_POLICY_VENDORS,	/* string, "10de,..." or "" (any) */
	P2PMAP_A_POLICY_CLASSES,	/* string, "0302,..." or "" (any) */
	P2PMAP_A_POLICY_NUMA_NODES,	/* string, "0,1" or "" (any) */
	P2PMAP_A_POLICY_DRY_RUN,	/* flag: check, report, change nothing */
	P2PMAP_A_POLICY_DENIED,		/* string, repeated: a device the
					 * policy would stop admitting
					 */

	__P2PMAP_A_POLICY_MAX
};

#define P2PMAP_A_POLICY_MAX (__P2PMAP_A_POLICY_MAX - 1)

/* Longest policy list string, with its NUL. */
#define P2PMAP_POLICY_LEN	256

#endif /* _UAPI_LINUX_P2PMAP_H */
