/* look.h - looking at the guests of the instance that is up. Each takes
 * the instance open and attached (its connection and store). */
#ifndef LAB_LOOK_H
#define LAB_LOOK_H

#include <stdbool.h>

struct lab_inst;

/* Guests: role, state, kernel, address, booted or restored, uptime. */
int lab_status(struct lab_inst *in);
/* Print GUEST's serial console log; FOLLOW: go on as it grows. */
int lab_console(struct lab_inst *in, const char *guest, bool follow);
/* Run ARGV in GUEST through the guest agent; its output and exit status
 * are lab's (124 when killed after TIMEOUT seconds). */
int lab_exec(struct lab_inst *in, const char *guest, char **argv, int timeout);

#endif
