/* kmod.h - the lab's test modules (tests/kmod). */
#ifndef LAB_KMOD_H
#define LAB_KMOD_H

/* The test modules (fault injection, observers) built against the lab's
 * kernel tree, cached by content; the directory holding the .ko files, or
 * NULL with a message. */
char *lab_kmod_dir(void);

#endif
