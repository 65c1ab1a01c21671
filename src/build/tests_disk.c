/* tests_disk.c - the tests disk.
 *
 * Tests reach the guests on a read-only ISO 9660 disk (label LABTESTS): the
 * kernel already has ISO9660 for the NoCloud seed, it needs no daemon on
 * the host (virtiofsd) and no 9p in the guest kernel, no host networking,
 * and a guest cannot write back into the host's tree. */
#include "build/tests_disk.h"
#include "build/kmod.h"
#include "util/util.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int build_guest_tests(const char *dir)
{
	char *argv[] = { "make", "-s", "-C", (char *)dir, NULL };
	char *log = lab_path("tests-build.log");
	int rc;

	unlink(log);
	rc = lab_run(argv, NULL, log, 600);
	if (rc != 0) {
		char *tail = lab_tail(log, 15);

		lab_err("building the guest tests failed (make -C %s):\n%s",
			dir, tail);
		g_free(tail);
	}
	g_free(log);
	return rc == 0 ? 0 : -1;
}

static char *bin_key(const char *bin, const char *suite, const char *kmod)
{
	lab_hash *h = lab_hash_new();

	lab_hash_str(h, "lab-tests-3");
	lab_hash_file(h, suite);
	lab_hash_dir(h, bin);
	lab_hash_dir(h, kmod);
	return lab_hash_finish(h, 16);
}

/* Every tests disk has the same size: a restored guest keeps the disk
 * size it saw at boot, and the disk under it is swapped for today's. */
static int pad_iso(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return -1;
	if (st.st_size > (off_t)LAB_TESTS_DISK_MIB << 20) {
		lab_err("the tests disk is %lld bytes, more than the fixed %d MiB",
			(long long)st.st_size, LAB_TESTS_DISK_MIB);
		return -1;
	}
	return truncate(path, (off_t)LAB_TESTS_DISK_MIB << 20) == 0 ? 0 : -1;
}

static char *make_iso(void)
{
	char *src = lab_src_path("tests/guest");
	char *bin = g_build_filename(src, "bin", NULL);
	char *suite = lab_src_path("tests/suite.ini");
	char *key = NULL, *iso = NULL, *tmp = NULL, *kmod = NULL;

	if (build_guest_tests(src) != 0 || !(kmod = lab_kmod_dir()))
		goto out;
	key = bin_key(bin, suite, kmod);
	iso = g_strdup_printf("%s/tests/%s.iso", lab_home(), key);
	if (lab_exists(iso))
		goto out;
	tmp = g_strdup_printf("%s/tests", lab_home());
	lab_mkdir_p(tmp);
	g_free(tmp);
	tmp = g_strdup_printf("%s.tmp-%d", iso, (int)getpid()); /* per writer */
	{
		char *gm = g_strdup_printf("suite.ini=%s", suite);
		char *gk = g_strdup_printf("kmod/=%s/", kmod);
		char *argv[] = { "genisoimage", "-quiet", "-V", "LABTESTS",
				 "-r", "-J", "-graft-points", "-o", tmp,
				 bin, gm, gk, NULL };
		int rc = lab_run(argv, NULL, NULL, 120);

		g_free(gm);
		g_free(gk);
		if (rc == 0)
			rc = pad_iso(tmp);
		if (rc != 0 || rename(tmp, iso) != 0) {
			lab_err("making the tests disk %s failed (genisoimage)", iso);
			unlink(tmp);
			g_clear_pointer(&iso, g_free);
		}
	}
out:
	g_free(src);
	g_free(bin);
	g_free(suite);
	g_free(key);
	g_free(tmp);
	g_free(kmod);
	return iso;
}

char *lab_tests_iso(void)
{
	char *iso;

	lab_phase_begin("tests disk");
	iso = make_iso();
	lab_phase_end();
	return iso;
}
