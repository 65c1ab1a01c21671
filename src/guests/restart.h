/* restart.h - one guest of the instance that is up back to its ready
 * state: restored from the saved ready state when it has one, else booted
 * on a fresh root disk. */
#ifndef LAB_RESTART_H
#define LAB_RESTART_H

struct lab_inst;

/* Destroy GUEST (a crash, a hang, a spent kernel), keep its console log so
 * far as SAVE_CONSOLE, and bring it back. Safe from several threads at
 * once for different guests. 0 when it answers again. */
int lab_guest_restart(struct lab_inst *in, const char *guest,
		      const char *save_console, int timeout_s);

/* A hard reset of GUEST, as a power cut: destroyed and started again
 * from its own definition, its memory gone, its disks as they are (no
 * restore, no new root disk); its console so far kept as SAVE_CONSOLE.
 * Does not wait for it to answer. 0, or -1 (message printed). */
int lab_guest_reset(struct lab_inst *in, const char *guest, const char *save_console);

#endif
