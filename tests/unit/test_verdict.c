/* test_verdict.c - every row of verdict.h's decision table, and the seed
 * signatures. A failure counts as the seed's bug only through its
 * signature; an agent that is silent while the domain runs is an error,
 * not a failure; a timeout is its own verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/verdict.h"

enum { X = -1 }; /* exit code: did not finish */

static const struct row {
	const char *what;
	struct lab_obs o;
	enum lab_verdict v;
	enum lab_evidence e;
	const char *reason; /* text the reason must hold */
} rows[] = {
	{ "1 libvirtd lost beats everything",
	  { .exit_code = X, .libvirt_lost = true, .sig_reports = 1, .sig_title = "Oops" },
	  LAB_ERROR, LAB_EV_NONE, "libvirtd" },
	{ "2 a signature report: the seed's bug",
	  { .exit_code = 0, .sig_reports = 1, .sig_title = "list_add corruption in dvb_dmxdev_start_feed" },
	  LAB_FAIL, LAB_EV_SIGNATURE, "dvb_dmxdev_start_feed" },
	{ "2 signature report in a dead guest",
	  { .exit_code = X, .domain_dead = true, .sig_reports = 1, .sig_title = "divide error in azx_position_ok" },
	  LAB_FAIL, LAB_EV_SIGNATURE, "azx_position_ok" },
	{ "2 signature report, the test timed out (process stuck in D)",
	  { .exit_code = X, .timed_out = true, .sig_reports = 1, .sig_title = "Oops" },
	  LAB_FAIL, LAB_EV_SIGNATURE, "Oops" },
	{ "2 signature and another report: still the seed's bug",
	  { .exit_code = 1, .sig_reports = 1, .other_reports = 2, .sig_title = "a", .other_title = "b" },
	  LAB_FAIL, LAB_EV_SIGNATURE, "a" },
	{ "3 another seed's splat: failed for another reason",
	  { .exit_code = 0, .other_reports = 1, .other_title = "WARNING in attach_to_pi_state" },
	  LAB_FAIL, LAB_EV_OTHER, "another reason: WARNING in attach_to_pi_state" },
	{ "3 other report while the program says fail without the signature",
	  { .exit_code = 1, .other_reports = 1, .other_title = "BUG: soft lockup" },
	  LAB_FAIL, LAB_EV_OTHER, "soft lockup" },
	{ "3 own check matches, but another report is in the window: not the seed's",
	  { .exit_code = 1, .program_sig = true, .other_reports = 1,
	    .other_title = "possible circular locking dependency detected",
	    .said = "fail: lockdep reported the tty/fasync lock cycle" },
	  LAB_FAIL, LAB_EV_OTHER, "another reason: possible circular" },
	{ "4 the test's own check, its line matches, console clean",
	  { .exit_code = 1, .program_sig = true, .said = "fail: mount.nfs: File exists" },
	  LAB_FAIL, LAB_EV_SIGNATURE, "File exists" },
	{ "4 own check matches, the guest died without a report: still the check",
	  { .exit_code = 1, .program_sig = true, .domain_dead = true, .said = "fail: x" },
	  LAB_FAIL, LAB_EV_SIGNATURE, "own check" },
	{ "5 the guest died, console silent",
	  { .exit_code = X, .domain_dead = true },
	  LAB_FAIL, LAB_EV_OTHER, "no report" },
	{ "6 a new taint bit, no report",
	  { .exit_code = 0, .new_taint = 512 },
	  LAB_FAIL, LAB_EV_OTHER, "0x200" },
	{ "7 timeout: its own verdict",
	  { .exit_code = X, .timed_out = true, .timeout_s = 30 },
	  LAB_TIMEOUT, LAB_EV_NONE, "30 s" },
	{ "7 timeout beats a silent agent",
	  { .exit_code = X, .timed_out = true, .agent_lost = true, .timeout_s = 9 },
	  LAB_TIMEOUT, LAB_EV_NONE, "9 s" },
	{ "8 agent silent, domain running, no report: error, not fail",
	  { .exit_code = X, .agent_lost = true },
	  LAB_ERROR, LAB_EV_NONE, "agent" },
	{ "9 pass without the fix's own report: window not shown open",
	  { .exit_code = 0, .expects_report = true, .expected_reports = 0 },
	  LAB_INCONCLUSIVE, LAB_EV_NONE, "never appeared" },
	{ "10 pass with the fix's own report",
	  { .exit_code = 0, .expects_report = true, .expected_reports = 1 },
	  LAB_PASS, LAB_EV_NONE, "" },
	{ "10 plain pass",
	  { .exit_code = 0, .said = "pass: both ioctls returned 0" },
	  LAB_PASS, LAB_EV_NONE, "both ioctls" },
	{ "11 exit 1 whose line is not the signature",
	  { .exit_code = 1, .program_sig = false, .said = "fail: something else" },
	  LAB_FAIL, LAB_EV_OTHER, "not with its bug's signature" },
	{ "11 exit 1 of a test that covers no seed: its own words",
	  { .exit_code = 1, .seedless = true, .said = "fail: 4 passed, 1 failed, 0 skipped" },
	  LAB_FAIL, LAB_EV_OTHER, "fail: 4 passed, 1 failed" },
	{ "12 exit 2: inconclusive", { .exit_code = 2 }, LAB_INCONCLUSIVE, LAB_EV_NONE, "window" },
	{ "12 exit 4: skip", { .exit_code = 4, .said = "skip: no vidtv" }, LAB_SKIP, LAB_EV_NONE, "vidtv" },
	{ "12 exit 3: setup error", { .exit_code = 3 }, LAB_ERROR, LAB_EV_NONE, "setup" },
	{ "12 killed by a signal", { .exit_code = 137 }, LAB_ERROR, LAB_EV_NONE, "137" },
	{ "12 did not finish, nothing else known", { .exit_code = X }, LAB_ERROR, LAB_EV_NONE, "-1" },
};

static void test_decision_table(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(rows); i++) {
		struct lab_decision d = lab_decide(&rows[i].o);

		if (d.verdict != rows[i].v || d.evidence != rows[i].e ||
		    !strstr(d.reason, rows[i].reason))
			fail_msg("%s: got %s/%s \"%s\", want %s/%s with \"%s\"",
				 rows[i].what, lab_verdict_name(d.verdict),
				 lab_evidence_name(d.evidence), d.reason,
				 lab_verdict_name(rows[i].v), lab_evidence_name(rows[i].e),
				 rows[i].reason);
		g_free(d.reason);
	}
}

/* The pattern language (the seeds' own patterns are tested against real
 * reports in test_signatures.c). */
static void test_signatures(void **state)
{
	char *kind_fn[] = { "kind:oops+dvb_dmxdev", NULL };
	char *two_locks[] = { "kind:lockdep+excerpt:&tty->ctrl.lock+excerpt:f_owner.lock", NULL };
	char *alts[] = { "kind:busy-inodes+of tmpfs", "kind:warning+debug_rt_mutex_unlock", NULL };
	const struct {
		char **sig;
		const char *type, *title, *first, *func, *excerpt;
		bool match;
	} cases[] = {
		{ kind_fn, "oops", "BUG: unable to handle page fault in dvb_dmxdev_start_feed", "x",
		  "dvb_dmxdev_start_feed", "", true },
		/* the function alone is not enough: the kind must be right */
		{ kind_fn, "kasan", "KASAN: use-after-free in dvb_dmxdev_release", "x",
		  "dvb_dmxdev_release", "", false },
		/* text in the excerpt (a call trace) does not name the function */
		{ kind_fn, "oops", "Oops", "x", "memcpy", "dvb_dmxdev_start_feed+0x10", false },
		{ two_locks, "lockdep", "possible circular locking dependency detected", "x", NULL,
		  "(&tty->ctrl.lock) ... (&f->f_owner.lock)", true },
		/* one of the two locks is another cycle */
		{ two_locks, "lockdep", "possible circular locking dependency detected", "x", NULL,
		  "(&f->f_owner.lock) ... (&sb->s_type->i_mutex_key)", false },
		{ alts, "busy-inodes", "VFS: Busy inodes after unmount of tmpfs", "x", NULL, "", true },
		{ alts, "busy-inodes", "VFS: Busy inodes after unmount of 0:25", "x", NULL, "", false },
		{ alts, "warning", "DEBUG_LOCKS_WARN_ON(x) in debug_rt_mutex_unlock", "x",
		  "debug_rt_mutex_unlock", "", true },
		{ NULL, "oops", "Oops", "Oops", NULL, "", false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(cases); i++)
		if (lab_signature_matches_report(cases[i].sig, cases[i].type, cases[i].title,
						 cases[i].first, cases[i].func,
						 cases[i].excerpt) != cases[i].match)
			fail_msg("case %zu (%s): want %s", i, cases[i].title,
				 cases[i].match ? "match" : "no match");
	assert_true(lab_signature_matches_program("File exists", "fail: round 1 mount B: mount.nfs: File exists"));
	assert_false(lab_signature_matches_program("File exists", "fail: mount failed: timeout"));
	assert_false(lab_signature_matches_program(NULL, "fail: x"));
	assert_false(lab_signature_matches_program("x", NULL));
}

/* Whose exit code and fail line a test with parts has. */
static void test_part_decides(void **state)
{
	static const char sig[] = "conntrack lookups crossed namespaces";
	static const char lost[] = "fail: flows to the conntrack host's namespaces lost or corrupted data";
	static const char crossed[] = "fail: conntrack lookups crossed namespaces: 3 flows";
	const struct {
		const char *what;
		const char *pattern;
		int code;
		const char *said;
		int part_code;
		const char *part_said;
		bool decides;
	} rows[] = {
		{ "a worse part decides", sig, 0, "pass", 1, lost, true },
		{ "a better part does not", sig, 1, lost, 0, "pass", false },
		{ "fail is worse than error", sig, 3, "error: x", 1, lost, true },
		{ "error is worse than inconclusive", sig, 2, "inconclusive: x", 3, "error: y", true },
		{ "equally bad: the words with the seed's bug decide", sig, 1, lost, 1, crossed, true },
		{ "equally bad: the words that have it keep it", sig, 1, crossed, 1, lost, false },
		{ "equally bad, neither has it: the first stays", sig, 1, lost, 1, "fail: other", false },
		{ "no signature: the first stays", NULL, 1, lost, 1, crossed, false },
		{ "passes: nothing to choose", sig, 0, "pass", 0, crossed, false },
		{ "a part that did not finish (error, no words)", sig, 1, lost, 3, NULL, false },
	};
	size_t i;

	(void)state;
	for (i = 0; i < G_N_ELEMENTS(rows); i++)
		if (lab_part_decides(rows[i].pattern, rows[i].code, rows[i].said,
				     rows[i].part_code, rows[i].part_said) != rows[i].decides)
			fail_msg("%s: want %s", rows[i].what, rows[i].decides ? "decides" : "does not");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decision_table),
		cmocka_unit_test(test_signatures),
		cmocka_unit_test(test_part_decides),
	};

	return cmocka_run_group_tests_name("verdict", tests, NULL, NULL);
}
