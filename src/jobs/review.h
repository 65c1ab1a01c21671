/* review.h - `lab review`: the main job. Both kernels, the suite on each
 * on fresh guests (one after the other, or at once on two hosts), and the
 * report with one row per seed. */
#ifndef LAB_REVIEW_H
#define LAB_REVIEW_H

#include <stdbool.h>

struct lab_review_opts {
	const char *topology;
	int duration_s;
	bool keep_going; /* report even when one kernel's run broke */
	bool isolate;    /* prove every verified row on a single-bug kernel */
	char **hosts;    /* --hosts A,B: baseline on A, patched on B at once */
	const char *hosts_file;
	const char *iso; /* the tests disk, once built */
};

/* --hosts: one or two names of hosts.ini, checked before anything is
 * built; two distinct ones (two instances on one host would share it).
 * 0 or -1 with a message. */
int lab_review_check_hosts(const struct lab_review_opts *o);
/* 0 every reproducible fix verified and nothing regressed, 1 not (the
 * rows that fall short are named), 2 bad input, 130 interrupted. */
int lab_review(struct lab_review_opts *o);

#endif
