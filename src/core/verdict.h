/* verdict.h - the one decision table from what a test run showed to its
 * verdict, and the seed signatures that say whether a failure is the
 * seed's own bug. Pure functions: tests/unit/test_verdict.c walks every
 * row of the table. */
#ifndef LAB_VERDICT_H
#define LAB_VERDICT_H

#include <stdbool.h>
#include <glib.h>

#include "core/results.h"

/* What the runner observed around one test. */
struct lab_obs {
	int exit_code;          /* the program's; -1 when it did not finish */
	bool timed_out;         /* the runner's bound ran out (it killed it) */
	bool libvirt_lost;      /* libvirtd stopped answering */
	bool domain_dead;       /* the domain stopped: panic, crash */
	bool agent_lost;        /* the domain runs but its agent is silent */
	guint sig_reports;      /* console reports that match the signature */
	guint other_reports;    /* other reports pinned to the test */
	guint expected_reports; /* the fix's own report (expected_report) */
	bool expects_report;    /* the suite map names such a report */
	bool program_sig;       /* the program's fail line matches the signature */
	bool seedless;          /* it covers no seed (interop): no bug to name */
	long new_taint;         /* complaint taint bits that appeared */
	const char *sig_title;  /* first matching report, for the reason */
	const char *other_title;/* first other report, for the reason */
	const char *said;       /* the program's own last word, or NULL */
	int timeout_s;
};

struct lab_decision {
	enum lab_verdict verdict;
	enum lab_evidence evidence;
	char *reason;           /* one line, to free */
};

/* The table (first row that applies wins):
 *  1 libvirtd lost                         -> error
 *  2 a report matches the signature        -> fail (signature)
 *  3 any other report in the test's window  -> fail (other reason)
 *  4 exit 1, its line matches the signature -> fail (signature)
 *  5 the domain died with no report         -> fail (other reason)
 *  6 a new complaint taint bit              -> fail (other reason)
 *  7 the runner's bound ran out             -> timeout
 *  8 the agent went silent, domain running  -> error
 *  9 exit 0, expected report missing        -> inconclusive
 * 10 exit 0                                 -> pass
 * 11 exit 1 (line not the signature)        -> fail (other reason; a test
 *    of no seed: what its program says)
 * 12 exit 2 / 4 / 3 / anything else         -> inconclusive / skip / error */
struct lab_decision lab_decide(const struct lab_obs *o);

/* A seed's signature (tests/suite.ini): report patterns match a report's
 * type ("kind:oops"), title, first line or guilty function, or with the
 * prefix "excerpt:" anywhere in its excerpt (for lockdep's lock names);
 * "a+b" needs both. The program pattern is text in its fail line. */
bool lab_signature_matches_report(char **patterns, const char *type,
				  const char *title, const char *first_line,
				  const char *function, const char *excerpt);
bool lab_signature_matches_program(const char *pattern, const char *said);

/* A test with parts (programs on other guests) has one exit code and one
 * fail line: whose? The worse exit code (fail > error > inconclusive >
 * skip > pass) decides; of two equally bad, the words that name the
 * seed's bug (PATTERN, signature_program) do: a client that lost flows to
 * the conntrack host fails because of what the host's part saw there.
 * true when the part (PART_CODE, PART_SAID) should decide over what
 * decided so far (CODE, SAID). */
bool lab_part_decides(const char *pattern, int code, const char *said,
		      int part_code, const char *part_said);

#endif
