/* run.h - `lab run`: tests in the guests, verdicts, results. */
#ifndef LAB_RUN_H
#define LAB_RUN_H

/* Run tests/suites (NULL: the topology's default suite) on the instance
 * that is up; *run_dir (optional) gets the run directory. 0 when nothing
 * failed or errored, 1 otherwise, 2 unknown names, 130 interrupted. */
int lab_run_tests(char **names, int duration_s, char **run_dir);
int cmd_run(int argc, char **argv);

#endif
