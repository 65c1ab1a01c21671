/* test_console.c - the console scanner: every fixture under
 * tests/unit/consoles/ yields exactly the reports listed for it, each with
 * its guilty function and pinned to the right test; then titles, excerpts,
 * line numbers, \r\n logs, and the helpers around the scan.
 *
 * The fixtures are 6.1-format console logs written for these tests. Logs
 * captured from lab's own guests will be added as consoles/NAME-captured.log:
 * adding one is adding a row to fixtures[] below. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <glib/gstdio.h>

#include "core/console.h"
#include "util/util.h"

#define MAX_REPORTS 10

struct expect {
	const char *type;
	const char *function; /* NULL: none can be named */
	const char *test;     /* NULL: outside any BEGIN/END (boot) */
	const char *title;    /* NULL: not checked */
};

/* Each fixture and the reports it must give, in order of appearance. */
static const struct {
	const char *file;
	bool panic; /* lab_console_has_panic() */
	struct expect r[MAX_REPORTS]; /* ends at the first row without type */
} fixtures[] = {
	{ .file = "clean-boot.log" },
	/* captured from lab's own smoke guest, baseline kernel, `lab run
	 * t010-dvb-demux-feeds`: 6.1 WARNs on the list corruption (no
	 * BUG_ON_DATA_CORRUPTION), then oopses; no frame pointers, so the
	 * list_add report's function comes from the first "?" frame */
	{ .file = "t010-baseline-captured.log", .r = {
		{ "list-corruption", "dvb_dmxdev_add_pid", "t010-dvb-demux-feeds",
		  "list_add corruption in dvb_dmxdev_add_pid" },
		{ "oops", "dvb_dmxdev_start_feed", "t010-dvb-demux-feeds",
		  "BUG: unable to handle page fault in dvb_dmxdev_start_feed" } } },
	/* captured: baseline smoke guest, t001 then t003 in one boot: the
	 * leaked inode reference, then five WARNINGs for the corrupted futex
	 * value and one for legitimate contention in a PID namespace */
	{ .file = "t001-t003-baseline-captured.log", .r = {
		{ "busy-inodes", NULL, "t001-futex-key-refcnt",
		  "VFS: Busy inodes after unmount of tmpfs" },
		{ "warning", "generic_shutdown_super", "t001-futex-key-refcnt",
		  "WARNING in generic_shutdown_super" },
		{ "warning", "futex_lock_pi_atomic", "t003-futex-value-corruption",
		  "WARNING in futex_lock_pi_atomic" },
		{ "warning", "futex_lock_pi_atomic", "t003-futex-value-corruption",
		  "WARNING in futex_lock_pi_atomic" },
		{ "warning", "futex_lock_pi_atomic", "t003-futex-value-corruption",
		  "WARNING in futex_lock_pi_atomic" },
		{ "warning", "futex_lock_pi_atomic", "t003-futex-value-corruption",
		  "WARNING in futex_lock_pi_atomic" },
		{ "warning", "futex_lock_pi_atomic", "t003-futex-value-corruption",
		  "WARNING in futex_lock_pi_atomic" },
		{ "warning", "futex_lock_pi_atomic", "t003-futex-value-corruption",
		  "WARNING in futex_lock_pi_atomic" },
	} },
	/* captured: baseline nfs-server, t001's leak, then t006's synthetic
	 * fault injection: the divide error in IRQ context panics the guest */
	{ .file = "t001-t006-baseline-captured.log", .panic = true, .r = {
		{ "busy-inodes", NULL, "t001-futex-key-refcnt",
		  "VFS: Busy inodes after unmount of tmpfs" },
		{ "warning", "generic_shutdown_super", "t001-futex-key-refcnt",
		  "WARNING in generic_shutdown_super" },
		{ "oops", "azx_position_ok", "t006-hda-divide-by-zero",
		  "divide error in azx_position_ok" } } },
	/* captured: patched nfs-server, the fix's own WARN_ONCE for t006 */
	{ .file = "t006-patched-captured.log", .r = {
		{ "warning", "azx_position_ok", "t006-hda-divide-by-zero",
		  "WARNING in azx_position_ok" } } },
	/* captured: baseline, the tty_fasync lock-order inversion */
	{ .file = "t004-baseline-captured.log", .r = {
		{ "lockdep", "__lock_task_sighand", "t004-tty-fasync-lockdep",
		  "possible circular locking dependency detected" } } },
	/* captured: baseline, a non-owner's FUTEX_UNLOCK_PI; t006 skipped */
	{ .file = "t002-t006-baseline-captured.log", .r = {
		{ "warning", "debug_rt_mutex_unlock", "t002-futex-unlock-pi-hijack",
		  "DEBUG_LOCKS_WARN_ON(rt_mutex_owner(lock) != current) in debug_rt_mutex_unlock" } } },
	/* captured: baseline nfs-client, t008 on NFSv3, ORC unwinder: the
	 * 2010 oops itself, from the nfsiod worker whose COMMIT released a
	 * page the killed truncate had freed; every frame is real (no "?"
	 * guesses but the two ORC marks as unreliable) */
	{ .file = "t008-baseline-orc-captured.log", .r = {
		{ "oops", "nfs_clear_page_commit", "t008-nfs-truncate-race:v3",
		  "BUG: kernel NULL pointer dereference in nfs_clear_page_commit" } } },
	{ .file = "list-corruption-dvb.log", .r = {
		{ "list-corruption", "dvb_dmxdev_start_feed", "t010-dvb-demux-feeds",
		  "list_add corruption in dvb_dmxdev_start_feed" } } },
	{ .file = "lockdep-circular.log", .r = {
		{ "lockdep", "dvb_dmxdev_filter_stop", "t020-dvb-demux-release",
		  "possible circular locking dependency detected" } } },
	{ .file = "warning-futex-pi-x5.log", .r = {
		{ "warning", "attach_to_pi_state", "t030-futex-pi-owner", "WARNING in attach_to_pi_state" },
		{ "warning", "attach_to_pi_state", "t030-futex-pi-owner", "WARNING in attach_to_pi_state" },
		{ "warning", "attach_to_pi_state", "t030-futex-pi-owner", "WARNING in attach_to_pi_state" },
		{ "warning", "attach_to_pi_state", "t030-futex-pi-owner", "WARNING in attach_to_pi_state" },
		{ "warning", "attach_to_pi_state", "t030-futex-pi-owner", "WARNING in attach_to_pi_state" } } },
	{ .file = "oops-panic-no-end.log", .panic = true, .r = {
		{ "oops", "nfs_commit_release_pages", "t040-nfs-commit-race",
		  "BUG: kernel NULL pointer dereference in nfs_commit_release_pages" } } },
	{ .file = "reboot-midway.log", .panic = true, .r = {
		{ "panic", "sysrq_handle_crash", "t050-sysrq-crash",
		  "Kernel panic - not syncing: sysrq triggered crash" },
		{ "sysfs-duplicate", "bdi_register_va", NULL,
		  "sysfs: cannot create duplicate filename '/devices/virtual/bdi/0:25'" },
		{ "busy-inodes", NULL, "t052-nfs-umount",
		  "VFS: Busy inodes after unmount of 0:25" } } },
	{ .file = "crlf-stalls.log", .r = {
		{ "hung-task", "deactivate_super", "t060-nfs-umount-hang",
		  "INFO: task hung in deactivate_super" },
		{ "soft-lockup", "n_tty_receive_buf_common", "t061-tty-flood",
		  "BUG: soft lockup in n_tty_receive_buf_common" },
		{ "rcu-stall", "snd_hdac_stream_sync", "t062-hda-stream-sync",
		  "INFO: rcu detected stall in snd_hdac_stream_sync" } } },
	{ .file = "ext4-bug-assertion.log", .r = {
		{ "bug", "ext4_put_super", "t070-ext4-orphan-umount",
		  "kernel BUG at fs/ext4/super.c:1337" },
		{ "assertion", "ext4_mb_generate_buddy", "t071-ext4-mballoc-buddy",
		  "Assertion failure in ext4_mb_generate_buddy() at fs/ext4/mballoc.c:1108" },
		{ "oops", "nfs_inode_remove_request", "t072-nfs-writeback-race",
		  "general protection fault in nfs_inode_remove_request" },
		{ "oops", "snd_pcm_oss_change_params_locked", "t073-snd-pcm-oss-params",
		  "divide error in snd_pcm_oss_change_params_locked" } } },
	{ .file = "kasan-ubsan-misc.log", .panic = true, .r = {
		{ "lockdep", "nfsd_file_do_acquire", "t080-nfsd-filecache",
		  "suspicious RCU usage" },
		{ "warning", "gsm_cleanup_mux", "t081-gsm-mux-close",
		  "DEBUG_LOCKS_WARN_ON(lock->magic != lock) in gsm_cleanup_mux" },
		{ "kasan", "dvb_dmxdev_release", "t082-dvb-unbind",
		  "KASAN: use-after-free in dvb_dmxdev_release" },
		{ "ubsan", "dvb_frontend_handle_ioctl", "t083-dvb-frontend-tune",
		  "UBSAN: shift-out-of-bounds in dvb_frontend_handle_ioctl" },
		{ "oops", "snd_hdac_bus_update_rirb", "t084-hda-rirb-overrun",
		  "BUG: unable to handle page fault in snd_hdac_bus_update_rirb" } } },
};

static char *fixture_path(const char *file)
{
	return g_build_filename(lab_srcdir(), "tests/unit/consoles", file, NULL);
}

static GPtrArray *scan_fixture(const char *file)
{
	char *path = fixture_path(file);
	GError *err = NULL;
	GPtrArray *reports = lab_console_scan_file(path, &err);

	if (!reports)
		fail_msg("%s: %s", path, err->message);
	g_free(path);
	return reports;
}

static char *read_fixture(const char *file)
{
	char *path = fixture_path(file);
	char *text = NULL;

	if (!g_file_get_contents(path, &text, NULL, NULL))
		fail_msg("cannot read %s", path);
	g_free(path);
	return text;
}

/* What was found, so a failing row is easy to correct. */
static void dump(const char *file, GPtrArray *reports)
{
	guint i;

	print_message("%s gave %u reports:\n", file, reports->len);
	for (i = 0; i < reports->len; i++) {
		struct lab_report *r = reports->pdata[i];

		print_message("  { \"%s\", \"%s\", \"%s\", \"%s\" } (line %ld)\n",
			      r->type, r->function ? r->function : "(null)",
			      r->test ? r->test : "(null)", r->title, r->line);
	}
}

static bool row_matches(const struct expect *e, const struct lab_report *r)
{
	return !strcmp(e->type, r->type) && !g_strcmp0(e->function, r->function) &&
	       !g_strcmp0(e->test, r->test) &&
	       (!e->title || !strcmp(e->title, r->title));
}

static void test_fixtures(void **state)
{
	size_t i, n;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(fixtures); i++) {
		GPtrArray *reports = scan_fixture(fixtures[i].file);
		bool ok;

		for (n = 0; n < MAX_REPORTS && fixtures[i].r[n].type; n++)
			;
		ok = reports->len == n;
		for (n = 0; ok && n < reports->len; n++)
			ok = row_matches(&fixtures[i].r[n], reports->pdata[n]);
		if (!ok) {
			dump(fixtures[i].file, reports);
			fail_msg("%s: reports differ from the table", fixtures[i].file);
		}
		if (lab_console_has_panic(reports) != fixtures[i].panic)
			fail_msg("%s: has_panic is not %d", fixtures[i].file,
				 fixtures[i].panic);
		g_ptr_array_unref(reports);
	}
}

static struct lab_report *first_report(GPtrArray *reports)
{
	assert_true(reports->len > 0);
	return reports->pdata[0];
}

/* The list corruption and the BUG() it triggers are one report whose
 * excerpt keeps both, and stops before the END marker. */
static void test_list_corruption_excerpt(void **state)
{
	GPtrArray *reports = scan_fixture("list-corruption-dvb.log");
	struct lab_report *r = first_report(reports);

	(void)state;
	assert_int_equal(r->line, 12);
	assert_true(g_str_has_prefix(r->first_line,
				     "list_add corruption. next->prev should be prev (ffff888005c1e0a8)"));
	assert_true(g_str_has_prefix(r->excerpt, "[   41.208114] list_add corruption."));
	assert_non_null(strstr(r->excerpt, "[   41.209267] kernel BUG at lib/list_debug.c:30!\n"));
	assert_non_null(strstr(r->excerpt, "---[ end trace 0000000000000000 ]---"));
	assert_non_null(strstr(r->excerpt, "note: dvb-feeds[612] exited"));
	assert_null(strstr(r->excerpt, "lab: END"));
	assert_null(strstr(r->excerpt, "Segmentation fault"));
	assert_false(r->panic);
	g_ptr_array_unref(reports);
}

/* WARN(cond, fmt)'s message sits between the cut-here and the WARNING
 * line: the excerpt keeps it, so the runner can match expected reports. */
static void test_warn_message_kept(void **state)
{
	GPtrArray *reports = scan_fixture("t006-patched-captured.log");
	struct lab_report *r = first_report(reports);

	(void)state;
	assert_true(g_str_has_prefix(r->excerpt, "[ 1154.187683] ------------[ cut here ]------------\n"
				     "[ 1154.191009] hda-intel: zero azx_dev->period_bytes\n"));
	assert_true(g_str_has_prefix(r->first_line, "WARNING: CPU: 0 PID: 0 at sound/pci/hda/hda_intel.c:684"));
	/* the message alone, which the runner matches the suite's
	 * expected_report against (the WARNING line does not carry it) */
	assert_string_equal(r->message, "hda-intel: zero azx_dev->period_bytes");
	g_ptr_array_unref(reports);
}

/* A WARNING whose body an oops follows at once: the oops is taken into the
 * WARNING's report, which is then marked - so the runner never takes it
 * for an expected report (006's fix WARN) and hides the oops. The plain
 * patched WARN is not marked. */
static void test_absorbed_crash_marked(void **state)
{
	const char *log =
		"[   10.000000] lab: BEGIN t006\n"
		"[   10.100000] ------------[ cut here ]------------\n"
		"[   10.100001] hda-intel: zero azx_dev->period_bytes\n"
		"[   10.100002] WARNING: CPU: 0 PID: 0 at sound/pci/hda/hda_intel.c:684 azx_position_ok+0x1/0x2\n"
		"[   10.100003] BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
		"[   10.100004] Oops: 0000 [#1] PREEMPT SMP NOPTI\n"
		"[   10.100005] Call Trace:\n"
		"[   10.100006]  <TASK>\n"
		"[   10.100007]  azx_position_check+0x1/0x2\n"
		"[   10.200000] lab: END t006 rc=0\n";
	GPtrArray *all = lab_console_scan(log);
	GPtrArray *clean = scan_fixture("t006-patched-captured.log");

	(void)state;
	assert_true(all->len >= 1);
	assert_true(((struct lab_report *)all->pdata[0])->absorbed_crash);
	assert_false(first_report(clean)->absorbed_crash);
	g_ptr_array_unref(all);
	g_ptr_array_unref(clean);
}

/* An oops followed by the panic it causes: one report, marked panicked,
 * still pinned to the test although its END never came. */
static void test_oops_then_panic(void **state)
{
	GPtrArray *reports = scan_fixture("oops-panic-no-end.log");
	struct lab_report *r = first_report(reports);

	(void)state;
	assert_int_equal(r->line, 11);
	assert_string_equal(r->first_line,
			    "BUG: kernel NULL pointer dereference, address: 0000000000000008");
	assert_true(r->panic);
	assert_non_null(strstr(r->excerpt, "Oops: 0000 [#1] PREEMPT SMP NOPTI"));
	assert_non_null(strstr(r->excerpt, "Kernel panic - not syncing: Fatal exception\n"));
	assert_true(g_str_has_suffix(r->excerpt,
				     "---[ end Kernel panic - not syncing: Fatal exception ]---\n"));
	g_ptr_array_unref(reports);
}

/* A long lockdep report: the "=====" line heading it is kept, the excerpt
 * is capped and says how much was left out. */
static void test_excerpt_cap(void **state)
{
	GPtrArray *reports = scan_fixture("lockdep-circular.log");
	struct lab_report *r = first_report(reports);
	char **lines = g_strsplit(r->excerpt, "\n", -1);

	(void)state;
	assert_int_equal(r->line, 6);
	assert_string_equal(r->first_line, "WARNING: possible circular locking dependency detected");
	assert_string_equal(lines[0], "[   52.301118] ======================================================");
	assert_int_equal(g_strv_length(lines), 62); /* 60, the note, "" */
	assert_string_equal(lines[60], "... 26 more lines");
	g_strfreev(lines);
	g_ptr_array_unref(reports);
}

/* The same log with \r\n line ends gives the same reports, \r-free. */
static void test_crlf(void **state)
{
	char *lf = read_fixture("list-corruption-dvb.log");
	char **parts = g_strsplit(lf, "\n", -1);
	char *crlf = g_strjoinv("\r\n", parts);
	GPtrArray *a = lab_console_scan(lf), *b = lab_console_scan(crlf);
	GPtrArray *c = scan_fixture("crlf-stalls.log");
	guint i;

	(void)state;
	assert_int_equal(a->len, b->len);
	for (i = 0; i < a->len; i++) {
		struct lab_report *x = a->pdata[i], *y = b->pdata[i];

		assert_string_equal(x->title, y->title);
		assert_string_equal(x->first_line, y->first_line);
		assert_string_equal(x->excerpt, y->excerpt);
		assert_int_equal(x->line, y->line);
	}
	for (i = 0; i < c->len; i++) {
		struct lab_report *r = c->pdata[i];

		assert_null(strchr(r->excerpt, '\r'));
		assert_null(strchr(r->first_line, '\r'));
		assert_null(strchr(r->test, '\r'));
	}
	g_ptr_array_unref(a);
	g_ptr_array_unref(b);
	g_ptr_array_unref(c);
	g_free(crlf);
	g_strfreev(parts);
	g_free(lf);
}

static void test_reports_for(void **state)
{
	GPtrArray *all = scan_fixture("warning-futex-pi-x5.log");
	GPtrArray *mine = lab_console_reports_for(all, "t030-futex-pi-owner");
	GPtrArray *other = lab_console_reports_for(all, "t031-futex-requeue");
	GPtrArray *boot = lab_console_reports_for(all, NULL);
	GPtrArray *reboot = scan_fixture("reboot-midway.log");
	GPtrArray *boot2 = lab_console_reports_for(reboot, NULL);

	(void)state;
	assert_int_equal(mine->len, 5);
	assert_ptr_equal(mine->pdata[4], all->pdata[4]);
	assert_int_equal(other->len, 0);
	assert_int_equal(boot->len, 0);
	assert_int_equal(boot2->len, 1);
	assert_string_equal(((struct lab_report *)boot2->pdata[0])->type, "sysfs-duplicate");
	/* Borrowed: freeing the subsets leaves the reports alone. */
	g_ptr_array_unref(mine);
	g_ptr_array_unref(other);
	g_ptr_array_unref(boot);
	g_ptr_array_unref(boot2);
	assert_string_equal(((struct lab_report *)all->pdata[4])->type, "warning");
	g_ptr_array_unref(all);
	g_ptr_array_unref(reboot);
}

/* lab stress runs a test again in the same boot: the second run's window
 * has the same name, and the first run's report is not the second's. */
static void test_reports_after_an_earlier_run(void **state)
{
	char *one = read_fixture("warning-futex-pi-x5.log");
	/* the same test again, clean, after the first run (line 191 on) */
	char *text = g_strconcat(one, "[   70.000000] lab: BEGIN t030-futex-pi-owner\n"
				 "[   70.500000] lab: END t030-futex-pi-owner rc=0\n", NULL);
	GPtrArray *all = lab_console_scan(text);
	GPtrArray *both = lab_console_reports_for(all, "t030-futex-pi-owner");
	GPtrArray *second = lab_console_reports_after(all, "t030-futex-pi-owner", 190);
	GPtrArray *first = lab_console_reports_after(all, "t030-futex-pi-owner", 1);

	(void)state;
	assert_int_equal(both->len, 5);
	assert_int_equal(second->len, 0);
	assert_int_equal(first->len, 5);
	g_ptr_array_unref(both);
	g_ptr_array_unref(second);
	g_ptr_array_unref(first);
	g_ptr_array_unref(all);
	g_free(text);
	g_free(one);
}

/* Small logs written here for the corners. */
static const struct {
	const char *name;
	const char *text;
	int n;
	const char *type;
	const char *test;
	const char *first_line;
} inline_logs[] = {
	{ "empty", "", 0, NULL, NULL, NULL },
	{ "userspace only",
	  "WARNING: CPU: 0 PID: 1 at a.c:1 f+0x1/0x2\nKernel panic - not syncing: x\n",
	  0, NULL, NULL, NULL },
	{ "cut into a systemd line",
	  "[  OK  ] Started foo.[    5.000001] BUG: kernel NULL pointer dereference, address: 0000000000000000\n",
	  1, "oops", NULL, "BUG: kernel NULL pointer dereference, address: 0000000000000000" },
	{ "garbage bytes before",
	  "\xff\xfe\x01[    5.000001] kernel BUG at mm/slub.c:42!\n",
	  1, "bug", NULL, "kernel BUG at mm/slub.c:42!" },
	{ "END without BEGIN, then a boot report",
	  "[    1.0] lab: END t9 rc=0\n[    2.0] VFS: Busy inodes after unmount of sda1. Self-destruct in 5 seconds.  Have a nice day...\n",
	  1, "busy-inodes", NULL, NULL },
	{ "caller id prefix",
	  "[    3.100000][  T812] lab: BEGIN t1-x\n[    3.200000][  T812] UBSAN: array-index-out-of-bounds in fs/a.c:1:2\n",
	  1, "ubsan", "t1-x", "UBSAN: array-index-out-of-bounds in fs/a.c:1:2" },
	{ "other BUG",
	  "[    4.0] BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580\n",
	  1, "bug", NULL, NULL },
};

static void test_inline_logs(void **state)
{
	GPtrArray *reports_none;
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(inline_logs); i++) {
		GPtrArray *reports = lab_console_scan(inline_logs[i].text);

		if ((int)reports->len != inline_logs[i].n) {
			dump(inline_logs[i].name, reports);
			fail_msg("%s: %u reports, not %d", inline_logs[i].name,
				 reports->len, inline_logs[i].n);
		}
		if (inline_logs[i].n) {
			const struct lab_report *r = reports->pdata[0];

			assert_string_equal(r->type, inline_logs[i].type);
			assert_true(!g_strcmp0(r->test, inline_logs[i].test));
			if (inline_logs[i].first_line)
				assert_string_equal(r->first_line, inline_logs[i].first_line);
		}
		g_ptr_array_unref(reports);
	}
	reports_none = lab_console_scan(NULL);
	assert_int_equal(reports_none->len, 0);
	g_ptr_array_unref(reports_none);
}

/* A report whose end never printed stops at a pause in the log. */
static void test_gap_ends_report(void **state)
{
	const char *text =
		"[   10.000000] BUG: KASAN: slab-out-of-bounds in foo_bar+0x1/0x2\n"
		"[   10.000100] Read of size 4 at addr ffff888000000000 by task x/1\n"
		"[   30.000000] random: crng init done\n";
	GPtrArray *reports = lab_console_scan(text);
	struct lab_report *r = first_report(reports);

	(void)state;
	assert_int_equal(reports->len, 1);
	assert_string_equal(r->title, "KASAN: slab-out-of-bounds in foo_bar");
	assert_non_null(strstr(r->excerpt, "Read of size 4"));
	assert_null(strstr(r->excerpt, "crng"));
	g_ptr_array_unref(reports);
}

/* A reset leaves NUL bytes on the serial line; reports after them count. */
static void test_nul_bytes(void **state)
{
	static const char text[] =
		"[    1.000000] lab: BEGIN t5-nul\n\0\0\0garbage\n"
		"[    2.000000] Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)\n";
	char *path = g_build_filename(g_get_tmp_dir(), "lab-test-console-nul.log", NULL);
	GPtrArray *reports;
	struct lab_report *r;

	(void)state;
	assert_true(g_file_set_contents(path, text, sizeof(text) - 1, NULL));
	reports = lab_console_scan_file(path, NULL);
	r = first_report(reports);
	assert_string_equal(r->type, "panic");
	assert_string_equal(r->test, "t5-nul");
	assert_string_equal(r->title,
			    "Kernel panic - not syncing: VFS: Unable to mount root fs on unknown-block(0,0)");
	assert_true(lab_console_has_panic(reports));
	g_ptr_array_unref(reports);
	g_unlink(path);
	g_free(path);
}

/* A title reaches terminals: ESC and BEL from the console never do. */
static void test_title_control_chars(void **state)
{
	static const char text[] =
		"[    1.000000] lab: BEGIN t6-esc\n"
		"[    2.000000] Kernel panic - not syncing: \x1b]0;pwned\x07owned\x1b[2J\n";
	GPtrArray *reports = lab_console_scan(text);
	struct lab_report *r = first_report(reports);
	const char *p;

	(void)state;
	for (p = r->title; *p; p++)
		assert_false((unsigned char)*p < 0x20 || *p == 0x7f);
	for (p = r->first_line; *p; p++)
		assert_false((unsigned char)*p < 0x20 || *p == 0x7f);
	assert_non_null(strstr(r->title, "owned"));
	g_ptr_array_unref(reports);
}

static void test_missing_file(void **state)
{
	GError *err = NULL;

	(void)state;
	assert_null(lab_console_scan_file("/nonexistent/console.log", &err));
	assert_non_null(err);
	assert_non_null(strstr(err->message, "/nonexistent/console.log"));
	g_error_free(err);
}

static void test_tail(void **state)
{
	static const struct {
		const char *text;
		int n;
		const char *want;
	} cases[] = {
		{ "a\nb\nc\n", 2, "b\nc" },
		{ "a\nb\nc", 2, "b\nc" },
		{ "a\nb\nc\n", 10, "a\nb\nc" },
		{ "a\r\nb\r\nc\r\n", 1, "c" },
		{ "a\r\nb\r\nc\r\n", 2, "b\nc" },
		{ "a\nb\n", 0, "" },
		{ "", 3, "" },
	};
	size_t i;
	char *t;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		t = lab_console_tail(cases[i].text, cases[i].n);

		assert_string_equal(t, cases[i].want);
		g_free(t);
	}
	t = lab_console_tail(NULL, 3);
	assert_string_equal(t, "");
	g_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_list_corruption_excerpt),
		cmocka_unit_test(test_warn_message_kept),
		cmocka_unit_test(test_oops_then_panic),
		cmocka_unit_test(test_absorbed_crash_marked),
		cmocka_unit_test(test_excerpt_cap),
		cmocka_unit_test(test_crlf),
		cmocka_unit_test(test_reports_for),
		cmocka_unit_test(test_inline_logs),
		cmocka_unit_test(test_gap_ends_report),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_title_control_chars),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_tail),
		cmocka_unit_test(test_reports_after_an_earlier_run),
	};

	return cmocka_run_group_tests_name("console", tests, NULL, NULL);
}
