/* boot_steps.h - where a guest's first boot spent its time, from what
 * systemd in the guest says (pure, unit-tested): the kernel until init,
 * sysinit.target, the agent answering, the image's lab-seed unit (the
 * seed's first-boot script) started and done, on the guest's clock. */
#ifndef LAB_BOOT_STEPS_H
#define LAB_BOOT_STEPS_H

/* The commands whose output gives the figures: when init started
 * (microseconds), and systemctl show of sysinit.target, the agent's and
 * lab-seed's units, in that order. */
extern const char *const lab_boot_steps_init_argv[];
extern const char *const lab_boot_steps_argv[];
/* "NAME MICROSECONDS" lines (0 for a unit not started) from those outputs
 * and the guest's /proc/uptime. */
char *lab_boot_steps_lines(const char *show, const char *init, const char *uptime);
/* One line from that command's output, e.g. "init 8.7, sysinit 14.0,
 * agent 15.3, seed start 15.9, seed done 18.2, ready 18.4 s" (ready: the
 * guest's uptime when lab asked);
 * NULL when it holds none of the figures. */
char *lab_boot_steps(const char *out);

#endif
