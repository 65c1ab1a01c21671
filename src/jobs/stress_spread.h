/* stress_spread.h - `lab stress --hosts A,B,...`: a part of the loop per
 * host, all at once. */
#ifndef LAB_STRESS_SPREAD_H
#define LAB_STRESS_SPREAD_H

#include "jobs/stress.h"

/* The loop spread over so->hosts: a part per host, each in a child with
 * its own instance under s->dir/hosts/HOST, merged into s. */
int lab_stress_spread(struct lab_stress *s, const struct lab_stress_opts *so);
/* --hosts checked before anything is created: known, distinct, and the
 * part instances' names fit. 0 or -1 with a message. */
int lab_stress_check_hosts(const struct lab_stress_opts *so);

#endif
