/* test_guests.h - the guests of a topology some tests need. */
#ifndef LAB_TEST_GUESTS_H
#define LAB_TEST_GUESTS_H

/* The guests TESTS run on and use (peers), the first of each role, as
 * `lab up --guests`; NULL and *err (to g_free) when a test is unknown or
 * the topology has no guest for them. */
char **lab_test_guests(const char *topology, char **tests, char **err);

#endif
