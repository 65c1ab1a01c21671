// SPDX-License-Identifier: GPL-2.0
/*
 * lab_nfs_observer - an OBSERVER for seed 008's window, never a trigger.
 * It changes no kernel state and sends no signal: it counts, for one task
 * (the test's truncator, target_pid), what the NFS truncate path does, so
 * the test knows when the window is open and the report can say how often.
 *
 * Seed 008: truncating a page cancels its NFS requests in
 * nfs_wb_folio_cancel(), which waits in nfs_wait_on_request() for a
 * request an in-flight COMMIT holds. 2.6.32.8 (bugs/008) waits
 * TASK_KILLABLE: a SIGKILL there lets the page go while the COMMIT still
 * holds it. The counters, all read-only module parameters:
 *   synced        returns from nfs_sync_inode(): the truncating setattr's
 *                 flush is over, a new WRITE+COMMIT can now slip in
 *   waits         entries into nfs_wait_on_request() under
 *                 nfs_wb_folio_cancel(): the truncator is in the window
 *   waiting       the pid waiting there right now (0: none) - what the
 *                 test polls to time its SIGKILL ("signal timed by the
 *                 observer"; the signal itself is an ordinary kill(2))
 *   killed_waits  such waits that ended with a fatal signal pending
 *   interrupted   such waits that returned an error (killable: baseline)
 * Kretprobes on exported, out-of-line functions of fs/nfs; it needs the
 * unwinder no more than the counters do.
 */
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

static int target_pid;
module_param(target_pid, int, 0644);
MODULE_PARM_DESC(target_pid, "the task to observe (the test's truncator)");

static int synced, waits, waiting, killed_waits, interrupted;
module_param(synced, int, 0444);
module_param(waits, int, 0444);
module_param(waiting, int, 0444);
module_param(killed_waits, int, 0444);
module_param(interrupted, int, 0444);

static int in_cancel; /* the target is inside nfs_wb_folio_cancel() */

static bool is_target(void)
{
	int t = READ_ONCE(target_pid);

	return t && current->pid == t;
}

static int sync_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (is_target())
		WRITE_ONCE(synced, READ_ONCE(synced) + 1);
	return 0;
}

static int cancel_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (is_target())
		WRITE_ONCE(in_cancel, 1);
	return 0;
}

static int cancel_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (is_target())
		WRITE_ONCE(in_cancel, 0);
	return 0;
}

/* data: whether this wait is one of the target's cancel waits */
static int wait_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int *mine = (int *)ri->data;

	*mine = is_target() && READ_ONCE(in_cancel);
	if (*mine) {
		WRITE_ONCE(waits, READ_ONCE(waits) + 1);
		WRITE_ONCE(waiting, current->pid);
	}
	return 0;
}

static int wait_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	int *mine = (int *)ri->data;

	if (!*mine)
		return 0;
	WRITE_ONCE(waiting, 0);
	if (fatal_signal_pending(current))
		WRITE_ONCE(killed_waits, READ_ONCE(killed_waits) + 1);
	/* an int return value: only the low 32 bits of rax hold it */
	if ((int)regs_return_value(regs) < 0)
		WRITE_ONCE(interrupted, READ_ONCE(interrupted) + 1);
	return 0;
}

static struct kretprobe probes[] = {
	{ .kp.symbol_name = "nfs_sync_inode", .handler = sync_ret,
	  .maxactive = 8 },
	{ .kp.symbol_name = "nfs_wb_folio_cancel", .entry_handler = cancel_entry,
	  .handler = cancel_ret, .maxactive = 8 },
	{ .kp.symbol_name = "nfs_wait_on_request", .entry_handler = wait_entry,
	  .handler = wait_ret, .data_size = sizeof(int), .maxactive = 16 },
};

static int __init lab_nfs_observer_init(void)
{
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(probes); i++) {
		ret = register_kretprobe(&probes[i]);
		if (ret) {
			pr_err("lab_nfs_observer: cannot probe %s: %d\n",
			       probes[i].kp.symbol_name, ret);
			while (--i >= 0)
				unregister_kretprobe(&probes[i]);
			return ret;
		}
	}
	return 0;
}

static void __exit lab_nfs_observer_exit(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(probes); i++)
		unregister_kretprobe(&probes[i]);
}

module_init(lab_nfs_observer_init);
module_exit(lab_nfs_observer_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lab: observer of seed 008's window (counts, never triggers)");
