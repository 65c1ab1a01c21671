/* test_env.h - a user's settings for the test programs: `lab run` and
 * `lab stress` take --env NAME=VALUE (e.g. LAB_NETNS=512: the conntrack
 * workloads' namespaces), passed to every test program and part in the
 * guests. The runner writes them into a shell command line there, so what
 * is accepted is narrow: a LAB_ name that is not one the runner sets
 * itself, a value of letters, digits and ._,:/+=- only. */
#ifndef LAB_TEST_ENV_H
#define LAB_TEST_ENV_H

/* NULL when KV ("NAME=VALUE") may be given to the tests, else why not. */
char *lab_test_env_check(const char *kv);
/* NULL when every entry of ENV passes lab_test_env_check and no NAME is
 * given twice, else why not (naming the entry). ENV may be NULL. */
char *lab_test_env_check_all(char *const *env);

#endif
