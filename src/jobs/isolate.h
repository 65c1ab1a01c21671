/* isolate.h - single-bug isolation (lab isolate, lab review --isolate). */
#ifndef LAB_ISOLATE_H
#define LAB_ISOLATE_H

/* Build isolate-SEED, bring up the guests of TOPOLOGY its tests need, run
 * them, bring them down. The run directory, or NULL (message printed). */
char *lab_isolate_seed(const char *review, const char *topology,
		       const char *seed, const char *tests_iso);
/* "yes" when the run shows the seed's signature, "no", or "not run". */
const char *lab_isolated_answer(const char *run_dir);

#endif
