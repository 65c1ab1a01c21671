/* tests_disk.h - the read-only tests disk that carries the guest test
 * programs, the suite map and the test modules into the guests. */
#ifndef LAB_TESTS_DISK_H
#define LAB_TESTS_DISK_H

/* The tests disk's fixed size (zero-padded ISO 9660). */
#define LAB_TESTS_DISK_MIB 64

/* Build (cached by content hash) the read-only ISO 9660 tests disk from
 * tests/guest/bin and the suite map, timed as the phase "tests disk";
 * returns its path or NULL. */
char *lab_tests_iso(void);

#endif
