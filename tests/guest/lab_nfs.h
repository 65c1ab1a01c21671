/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab_nfs.h - what the NFS test programs (t100, t101) share: a data pattern
 * any byte of which can be regenerated from a seed and its offset, the
 * FNV-1a hash that mismatch reports quote, and the client's per-operation
 * counters of a mount (the evidence that an operation went over the wire).
 */
#ifndef LAB_NFS_H
#define LAB_NFS_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define LAB_FNV0 0xcbf29ce484222325ULL

/* "ENOENT" for ENOENT, "0" for success: what messages quote. */
static inline const char *lab_en(int e)
{
	const char *s = e ? strerrorname_np(e) : "0";

	return s ? s : "E?";
}

static inline uint64_t lab_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Pattern @seed at absolute offset @off; seed 0 is zeros (a hole). */
static inline void lab_fill(unsigned char *p, size_t len, uint64_t seed, uint64_t off)
{
	uint64_t w = 0;

	if (!seed) {
		memset(p, 0, len);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		uint64_t o = off + i;

		if (i == 0 || (o & 7) == 0)
			w = lab_mix64(seed * 0x100000001b3ULL + (o >> 3));
		p[i] = (unsigned char)(w >> ((o & 7) * 8));
	}
}

/* FNV-1a, 64 bit. */
static inline uint64_t lab_fnv64(uint64_t h, const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

/*
 * What the client sent for operation @op ("COPY", "DELEGRETURN") on the
 * NFS mount at @mountpoint, from /proc/self/mountstats ("OP: ops trans
 * timeouts sent recv queue rtt execute errors"; errors is the ninth).
 * 0, or -1 when the mount or the operation is not listed.
 */
static inline int lab_nfs_op_stats(const char *mountpoint, const char *op, long *ops, long *errs)
{
	char line[1024], want[4200], name[40];
	FILE *f = fopen("/proc/self/mountstats", "re");
	int in = 0, found = -1;

	*ops = *errs = 0;
	if (!f)
		return -1;
	snprintf(want, sizeof(want), " mounted on %s with fstype nfs", mountpoint);
	snprintf(name, sizeof(name), "%s:", op);
	while (fgets(line, sizeof(line), f)) {
		char first[40];
		long v[9] = { 0 };

		if (!strncmp(line, "device ", 7)) {
			in = strstr(line, want) != NULL;
			continue;
		}
		if (!in || sscanf(line, " %39s", first) != 1 || strcmp(first, name))
			continue;
		if (sscanf(line, " %*s %ld %ld %ld %ld %ld %ld %ld %ld %ld", &v[0], &v[1], &v[2],
			   &v[3], &v[4], &v[5], &v[6], &v[7], &v[8]) >= 1) {
			*ops = v[0];
			*errs = v[8];
			found = 0;
		}
	}
	fclose(f);
	return found;
}

#endif
