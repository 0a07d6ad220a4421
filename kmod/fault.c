// SPDX-License-Identifier: GPL-2.0
/*
 * Counting IOMMU faults per device and per (initiator, target) pair.
 *
 * p2pmap_fault_account() runs in the fault sources' context (an IOMMU
 * interrupt or interrupt thread, inside printk() for the fault logs): no
 * locks, no sleeping, no allocation, no printk.
 * Counters are atomics; a pair's slot in the initiator is claimed with
 * cmpxchg.  Events about new faults are coalesced by a delayed work so that
 * a fault storm costs listeners a few messages per second.
 */
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include "p2pmap.h"

static void p2pmap_fault_ntf_work(struct work_struct *work);
static DECLARE_DELAYED_WORK(p2pmap_fault_ntf_dwork, p2pmap_fault_ntf_work);
static u32 p2pmap_sources_armed;

static void p2pmap_fault_sources_add(struct p2pmap_fault_count *f, u32 source)
{
	if ((atomic_read(&f->sources) & source) != source)
		atomic_or(source, &f->sources);
}

static void p2pmap_fault_count_add(struct p2pmap_fault_count *f, u64 addr,
				   bool write, u32 source, u64 now)
{
	atomic64_inc(&f->count);
	WRITE_ONCE(f->last_addr, addr);
	WRITE_ONCE(f->last_flags, write ? P2PMAP_FAULT_F_WRITE : 0);
	WRITE_ONCE(f->last_time, now);
	p2pmap_fault_sources_add(f, source);
}

/* The slot of (init, target_id), claimed if need be; NULL when all taken. */
static struct p2pmap_peer_faults *p2pmap_peer_claim(struct p2pmap_dev *init,
						    u32 target_id)
{
	struct p2pmap_peer_faults *p;
	int i;

	p = p2pmap_peer_find(init, target_id);
	if (p)
		return p;
	for (i = 0; i < P2PMAP_PEER_SLOTS; i++) {
		p = &init->peers[i];
		if (!cmpxchg(&p->target_id, 0, target_id))
			return p;
		if (READ_ONCE(p->target_id) == target_id)
			return p;	/* another CPU claimed it for us */
	}
	return NULL;
}

struct p2pmap_peer_faults *p2pmap_peer_find(struct p2pmap_dev *init,
					    u32 target_id)
{
	int i;

	for (i = 0; i < P2PMAP_PEER_SLOTS; i++)
		if (READ_ONCE(init->peers[i].target_id) == target_id)
			return &init->peers[i];
	return NULL;
}

/* Call under rcu_read_lock(), with @init from the fault index. */
void p2pmap_fault_account(struct p2pmap_dev *init, u64 addr, bool write,
			  u32 source)
{
	struct p2pmap_dev *tgt = p2pmap_fault_index_bar(addr);
	u64 now = ktime_get_real_ns();
	struct p2pmap_peer_faults *p;

	p2pmap_fault_count_add(&init->faults, addr, write, source, now);
	if (!tgt || tgt == init) {
		p2pmap_fault_count_add(&init->other, addr, write, source, now);
	} else {
		p = p2pmap_peer_claim(init, tgt->id);
		if (p)
			p2pmap_fault_count_add(&p->f, addr, write, source, now);
		else
			atomic64_inc(&init->peers_lost);
	}
	schedule_delayed_work(&p2pmap_fault_ntf_dwork,
			      msecs_to_jiffies(P2PMAP_FAULT_NTF_INTERVAL_MS));
}

/*
 * A fault already counted (by the tracepoint) was seen by another source
 * too: that source's bit joins the counters the fault went to, and nothing
 * is counted again.  Same context rules as p2pmap_fault_account().
 */
void p2pmap_fault_mark(struct p2pmap_dev *init, u64 addr, u32 source)
{
	struct p2pmap_dev *tgt = p2pmap_fault_index_bar(addr);
	struct p2pmap_peer_faults *p;

	p2pmap_fault_sources_add(&init->faults, source);
	if (!tgt || tgt == init) {
		p2pmap_fault_sources_add(&init->other, source);
		return;
	}
	p = p2pmap_peer_find(init, tgt->id);
	if (p)
		p2pmap_fault_sources_add(&p->f, source);
}

/*
 * One fault, two sources: AMD-Vi's amd_iommu_report_page_fault() calls
 * report_iommu_fault() (the io_page_fault tracepoint) and then, unless its
 * per-device rate limit says no, prints "Event logged [IO_PAGE_FAULT ...]"
 * for the same event, in the same thread (its IRQ thread), with nothing
 * in between that could report another fault of that device.  So:
 *
 *   The tracepoint counts every fault and notes it here, per initiator
 *   (address, direction, reporting task, time).  A log line of the same
 *   initiator, address and direction, printed by that same task within
 *   P2PMAP_TP_LAST_NS of the note, claims the note (which then is gone:
 *   one log line per tracepoint fault) and only adds its source bit.  Any
 *   other log line counts: a fault the tracepoint never saw (an AMD-Vi
 *   driver that no longer calls report_iommu_fault(), interrupt-request
 *   faults, which it does not report there, the line for a device it does
 *   not know).
 *
 * A tracepoint fault whose line was rate-limited leaves its note behind;
 * the next tracepoint fault of that initiator replaces it, and a line of
 * another address, direction or task does not match it.  (A line that the
 * tracepoint did not see, of the same address and direction, printed by
 * the same thread right after such a note, would be taken for its line:
 * one fault less, never one more.)
 *
 * Lock-free: @state is taken with a cmpxchg (empty or full -> busy) by the
 * one probe that writes or reads the fields, and never waited for.  A
 * tracepoint probe that finds it busy keeps no note (its log line, if any,
 * counts a second time); a log probe that finds it busy finds no note.
 * Both need two CPUs reporting faults of one initiator at the same
 * instant; AMD-Vi reports a device's faults from one IRQ thread.
 */
enum {
	P2PMAP_TP_LAST_EMPTY,
	P2PMAP_TP_LAST_BUSY,
	P2PMAP_TP_LAST_FULL,
};

/* Between the two, AMD-Vi only takes its rate limit and formats the line. */
#define P2PMAP_TP_LAST_NS	(100 * NSEC_PER_MSEC)

void p2pmap_fault_tp_note(struct p2pmap_dev *init, u64 addr, bool write)
{
	struct p2pmap_fault_tp_last *l = &init->tp_last;
	int old = atomic_read(&l->state);

	if (old == P2PMAP_TP_LAST_BUSY ||
	    atomic_cmpxchg_acquire(&l->state, old, P2PMAP_TP_LAST_BUSY) != old)
		return;
	WRITE_ONCE(l->addr, addr);
	WRITE_ONCE(l->write, write);
	WRITE_ONCE(l->task, (unsigned long)current);
	WRITE_ONCE(l->time, ktime_get_mono_fast_ns());
	atomic_set_release(&l->state, P2PMAP_TP_LAST_FULL);
}

/* True if the tracepoint counted this fault: the note is then used up. */
bool p2pmap_fault_tp_claim(struct p2pmap_dev *init, u64 addr, bool write)
{
	struct p2pmap_fault_tp_last *l = &init->tp_last;
	bool same;

	if (atomic_cmpxchg_acquire(&l->state, P2PMAP_TP_LAST_FULL,
				   P2PMAP_TP_LAST_BUSY) != P2PMAP_TP_LAST_FULL)
		return false;
	same = READ_ONCE(l->addr) == addr && READ_ONCE(l->write) == write &&
	       READ_ONCE(l->task) == (unsigned long)current &&
	       ktime_get_mono_fast_ns() - READ_ONCE(l->time) <=
	       P2PMAP_TP_LAST_NS;
	atomic_set_release(&l->state, same ? P2PMAP_TP_LAST_EMPTY :
					     P2PMAP_TP_LAST_FULL);
	return same;
}

static void p2pmap_fault_count_reset(struct p2pmap_fault_count *f)
{
	atomic64_set(&f->count, 0);
	WRITE_ONCE(f->last_addr, 0);
	WRITE_ONCE(f->last_flags, 0);
	WRITE_ONCE(f->last_time, 0);
	atomic_set(&f->sources, 0);
	f->notified = 0;
}

/* Under p2pmap_lock.  Slots stay claimed: only their counts are zeroed. */
void p2pmap_faults_reset(struct p2pmap_dev *dev)
{
	int i;

	lockdep_assert_held(&p2pmap_lock);
	p2pmap_fault_count_reset(&dev->faults);
	p2pmap_fault_count_reset(&dev->other);
	for (i = 0; i < P2PMAP_PEER_SLOTS; i++)
		p2pmap_fault_count_reset(&dev->peers[i].f);
	atomic64_set(&dev->peers_lost, 0);
}

/*
 * A target is gone: free its slots in every initiator.  Only after an RCU
 * grace period since the fault index stopped naming it, so that no probe
 * can count into a slot being freed.  Under p2pmap_lock.
 */
static void p2pmap_faults_forget_now(u32 target_id)
{
	struct p2pmap_dev *dev;
	struct p2pmap_peer_faults *p;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(dev, &p2pmap_devs, node) {
		p = p2pmap_peer_find(dev, target_id);
		if (!p)
			continue;
		p2pmap_fault_count_reset(&p->f);
		WRITE_ONCE(p->target_id, 0);
	}
}

struct p2pmap_forget {
	struct rcu_work rwork;
	u32 target_id;
};

static struct workqueue_struct *p2pmap_forget_wq;

static void p2pmap_forget_work(struct work_struct *work)
{
	struct p2pmap_forget *f = container_of(to_rcu_work(work),
					       struct p2pmap_forget, rwork);

	mutex_lock(&p2pmap_lock);
	p2pmap_faults_forget_now(f->target_id);
	mutex_unlock(&p2pmap_lock);
	kfree(f);
}

/*
 * The caller has republished the fault index without @target_id.  Waiting
 * for the grace period here would cost every removal (DEL_DEVICE) a
 * synchronize_rcu() under p2pmap_lock: it is left to an RCU work.
 */
void p2pmap_faults_forget_target(u32 target_id)
{
	struct p2pmap_forget *f;

	lockdep_assert_held(&p2pmap_lock);
	/* Without memory the same is done at once: nothing to warn about. */
	f = kmalloc(sizeof(*f), GFP_KERNEL | __GFP_NOWARN);
	if (!f) {
		synchronize_rcu();
		p2pmap_faults_forget_now(target_id);
		return;
	}
	f->target_id = target_id;
	INIT_RCU_WORK(&f->rwork, p2pmap_forget_work);
	queue_rcu_work(p2pmap_forget_wq, &f->rwork);
}

int p2pmap_faults_init(void)
{
	p2pmap_forget_wq = alloc_workqueue("p2pmap", WQ_UNBOUND, 0);
	return p2pmap_forget_wq ? 0 : -ENOMEM;
}

/* Module exit, not under p2pmap_lock: every pending forget has run. */
void p2pmap_faults_exit(void)
{
	rcu_barrier();	/* the RCU callbacks have queued their works */
	destroy_workqueue(p2pmap_forget_wq);
}

static struct p2pmap_dev *p2pmap_dev_by_id(u32 id)
{
	struct p2pmap_dev *dev;

	list_for_each_entry(dev, &p2pmap_devs, node)
		if (dev->id == id)
			return dev;
	return NULL;
}

/* Send one event per counter that moved since its last event. */
void p2pmap_fault_ntf_flush(void)
{
	struct p2pmap_dev *dev;
	int i;

	lockdep_assert_held(&p2pmap_lock);
	list_for_each_entry(dev, &p2pmap_devs, node) {
		p2pmap_ntf_fault(dev, NULL, &dev->other);
		for (i = 0; i < P2PMAP_PEER_SLOTS; i++) {
			struct p2pmap_peer_faults *p = &dev->peers[i];
			u32 id = READ_ONCE(p->target_id);
			struct p2pmap_dev *tgt = id ? p2pmap_dev_by_id(id) : NULL;

			if (tgt)
				p2pmap_ntf_fault(dev, tgt, &p->f);
		}
	}
}

static void p2pmap_fault_ntf_work(struct work_struct *work)
{
	mutex_lock(&p2pmap_lock);
	p2pmap_fault_ntf_flush();
	mutex_unlock(&p2pmap_lock);
}

u32 p2pmap_fault_sources_armed(void)
{
	return p2pmap_sources_armed;
}

/* Arm what this kernel offers; having no source is not an error. */
int p2pmap_fault_sources_register(void)
{
	if (!p2pmap_fault_tp_register())
		p2pmap_sources_armed |= P2PMAP_FAULT_SRC_TRACEPOINT;
	p2pmap_sources_armed |= p2pmap_fault_console_register();
	return 0;
}

/* After this, no probe runs and no fault event is pending. */
void p2pmap_fault_sources_unregister(void)
{
	if (p2pmap_sources_armed & P2PMAP_FAULT_SRC_TRACEPOINT)
		p2pmap_fault_tp_unregister();
	if (p2pmap_sources_armed &
	    (P2PMAP_FAULT_SRC_DMAR | P2PMAP_FAULT_SRC_AMDVI_LOG))
		p2pmap_fault_console_unregister();
	p2pmap_sources_armed = 0;
	cancel_delayed_work_sync(&p2pmap_fault_ntf_dwork);
}
