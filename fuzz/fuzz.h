/* fuzz.h - what the fuzzers share: the input as a file, for loaders that
 * take a path (the file is written anew for each input, under /tmp). */
#ifndef LAB_FUZZ_H
#define LAB_FUZZ_H

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_path[] = "/tmp/lab-fuzz-input-XXXXXX";
static int fuzz_fd = -1;

static void fuzz_unlink(void)
{
	unlink(fuzz_path);
}

/* The input's bytes as the file fuzz_path; aborts if it cannot be. */
static const char *fuzz_file(const uint8_t *data, size_t size)
{
	if (fuzz_fd < 0) {
		fuzz_fd = mkstemp(fuzz_path);
		if (fuzz_fd < 0)
			abort();
		atexit(fuzz_unlink);
	}
	if (ftruncate(fuzz_fd, 0) != 0 ||
	    pwrite(fuzz_fd, data, size, 0) != (ssize_t)size)
		abort();
	return fuzz_path;
}

#endif
