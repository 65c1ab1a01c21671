/* schedule.h - which tests may run side by side. Each test uses a set of
 * guests: the one it runs on and its peers (an NFS client test uses the
 * NFS server). Two tests that share a guest run in plan order, one after
 * the other, so a test never sees a guest it uses restart or oops under it;
 * tests whose guests are disjoint run at the same time. A pure function of
 * the plan, unit-tested. */
#ifndef LAB_SCHEDULE_H
#define LAB_SCHEDULE_H

#include <stdbool.h>
#include <stdint.h>
#include <glib.h>

enum lab_sched_state { LAB_SCHED_PENDING, LAB_SCHED_RUNNING, LAB_SCHED_DONE };

/* uses[i]: bit g set when test i uses guest g (at most 64 guests). Test i
 * may start when it is pending and every earlier test that shares a guest
 * with it is done. */
bool lab_sched_ready(guint i, const uint64_t *uses,
		     const enum lab_sched_state *state);
/* The first test that may start, or -1 (none now: wait for one to end). */
int lab_sched_next(guint n, const uint64_t *uses,
		   const enum lab_sched_state *state);
/* Test i is the last one in the plan that uses guest g. */
bool lab_sched_last_use(guint i, guint n, const uint64_t *uses, guint g);

#endif
