// SPDX-License-Identifier: GPL-2.0
/*
 * lab_hda_zero - SYNTHETIC FAULT INJECTION for seed 006, "ALSA: hda-intel:
 * Avoid divide by zero crash" (2.6.32.9 #23, upstream fed08d036f2a).
 *
 * On 6.1 period_bytes is never 0 while a stream runs (ALSA refuses
 * hw_params on a RUNNING stream), so no user-space program can reach the
 * division in azx_position_ok(). This module makes the impossible state
 * happen: a kprobe on azx_position_check(), the IRQ-time caller of
 * azx_position_ok(), zeroes the running stream's period_bytes once.
 *   baseline (check removed): divide error in azx_position_ok, in IRQ;
 *   patched: one "hda-intel: zero azx_dev->period_bytes" WARNING.
 * A verdict from this module says what the fix does with the bad state,
 * not that a user can create it: the lab labels it as fault injection.
 */
#include <linux/atomic.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <sound/hdaudio.h>

static atomic_t fired = ATOMIC_INIT(0);

/* azx_position_check(struct azx *chip, struct azx_dev *azx_dev): struct
 * azx_dev starts with its struct hdac_stream, the second argument (rsi). */
static int zero_period_bytes(struct kprobe *p, struct pt_regs *regs)
{
	struct hdac_stream *s = (struct hdac_stream *)regs->si;

	if (s && s->running && s->period_bytes &&
	    atomic_inc_return(&fired) == 1) {
		pr_warn("lab_hda_zero: fault injection: period_bytes %u -> 0 on stream %d\n",
			s->period_bytes, s->stream_tag);
		s->period_bytes = 0;
	}
	return 0;
}

static struct kprobe kp = {
	.symbol_name = "azx_position_check",
	.pre_handler = zero_period_bytes,
};

static int __init lab_hda_zero_init(void)
{
	int ret = register_kprobe(&kp);

	if (ret)
		pr_err("lab_hda_zero: cannot probe azx_position_check: %d\n", ret);
	return ret;
}

static void __exit lab_hda_zero_exit(void)
{
	unregister_kprobe(&kp);
}

module_init(lab_hda_zero_init);
module_exit(lab_hda_zero_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("lab: synthetic fault injection for the hda-intel divide by zero (seed 006)");
