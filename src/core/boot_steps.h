/* boot_steps.h - where a guest's first boot spent its time, from what
 * systemd in the guest says (pure, unit-tested): the kernel until init,
 * the agent answering, each cloud-init stage done, on the guest's clock.
 * (Measured: cloud-init-local runs before sysinit.target, so the agent
 * and everything after sysinit wait for it.) */
#ifndef LAB_BOOT_STEPS_H
#define LAB_BOOT_STEPS_H

/* The shell command that prints the figures: "NAME MICROSECONDS" lines
 * (systemd's monotonic timestamps; 0 or empty for a unit not started). */
extern const char lab_boot_steps_cmd[];
/* One line from that command's output, e.g. "init 8.7 s, agent 25.3 s,
 * cloud-init: local 30.1, network 41.0, config 52.3, final 66.0 s, ready
 * 66.2 s" (ready: the guest's uptime when lab asked);
 * NULL when it holds none of the figures. */
char *lab_boot_steps(const char *out);

#endif
