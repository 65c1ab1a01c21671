/* schedule.c - see schedule.h.
 *
 * Why "every earlier test sharing a guest is done" is enough: a running
 * test W that shares a guest with a pending test S is either earlier than
 * S (then S waits for it) or later (then W could only have started after
 * S was done). So no two running tests ever share a guest. */
#include "core/schedule.h"

bool lab_sched_ready(guint i, const uint64_t *uses,
		     const enum lab_sched_state *state)
{
	guint j;

	if (state[i] != LAB_SCHED_PENDING)
		return false;
	for (j = 0; j < i; j++)
		if ((uses[j] & uses[i]) && state[j] != LAB_SCHED_DONE)
			return false;
	return true;
}

int lab_sched_next(guint n, const uint64_t *uses,
		   const enum lab_sched_state *state)
{
	guint i;

	for (i = 0; i < n; i++)
		if (lab_sched_ready(i, uses, state))
			return (int)i;
	return -1;
}

bool lab_sched_last_use(guint i, guint n, const uint64_t *uses, guint g)
{
	uint64_t bit = (uint64_t)1 << g;
	guint j;

	for (j = i + 1; j < n; j++)
		if (uses[j] & bit)
			return false;
	return true;
}
