/* verdict.c - see verdict.h. */
#include "core/verdict.h"

#include <string.h>

static struct lab_decision d(enum lab_verdict v, enum lab_evidence e,
			     char *reason)
{
	struct lab_decision out = { v, e, reason };

	return out;
}

static struct lab_decision by_exit(const struct lab_obs *o)
{
	const char *said = o->said ? o->said : "";

	switch (o->exit_code) {
	case 0:
		if (o->expects_report && !o->expected_reports)
			return d(LAB_INCONCLUSIVE, LAB_EV_NONE,
				 g_strdup("inconclusive: the fix's own report never appeared, "
					  "so nothing shows the window was open"));
		return d(LAB_PASS, LAB_EV_NONE,
			 g_strdup(*said ? said : "program passed, console clean, no new taint"));
	case 1:
		if (o->seedless) /* no bug of its own to tell apart */
			return d(LAB_FAIL, LAB_EV_OTHER, g_strdup(*said ? said : "the test failed"));
		return d(LAB_FAIL, LAB_EV_OTHER,
			 g_strdup_printf("failed for another reason: the test failed, "
					 "but not with its bug's signature: %s", said));
	case 2:
		return d(LAB_INCONCLUSIVE, LAB_EV_NONE,
			 g_strdup(*said ? said : "inconclusive: the window was never hit"));
	case 4:
		return d(LAB_SKIP, LAB_EV_NONE,
			 g_strdup(*said ? said : "skipped by the test"));
	case 3:
		return d(LAB_ERROR, LAB_EV_NONE,
			 g_strdup_printf("setup error: %s", *said ? said : "exit 3"));
	default:
		return d(LAB_ERROR, LAB_EV_NONE,
			 g_strdup_printf("the program ended with status %d%s%s",
					 o->exit_code, *said ? ": " : "", said));
	}
}

struct lab_decision lab_decide(const struct lab_obs *o)
{
	if (o->libvirt_lost)
		return d(LAB_ERROR, LAB_EV_NONE,
			 g_strdup("libvirtd stopped answering: nothing can be said of the guest"));
	if (o->sig_reports)
		return d(LAB_FAIL, LAB_EV_SIGNATURE,
			 g_strdup_printf("the kernel reported this seed's bug: %s",
					 o->sig_title ? o->sig_title : "?"));
	/* another report in the window outranks the program's own check:
	 * what the program saw may be that other bug's doing */
	if (o->other_reports)
		return d(LAB_FAIL, LAB_EV_OTHER,
			 g_strdup_printf("failed for another reason: %s",
					 o->other_title ? o->other_title : "?"));
	if (o->exit_code == 1 && o->program_sig)
		return d(LAB_FAIL, LAB_EV_SIGNATURE,
			 g_strdup_printf("the test's own check saw this seed's bug: %s",
					 o->said ? o->said : "?"));
	if (o->domain_dead)
		return d(LAB_FAIL, LAB_EV_OTHER,
			 g_strdup("failed for another reason: the guest died and its console has no report"));
	if (o->new_taint)
		return d(LAB_FAIL, LAB_EV_OTHER,
			 g_strdup_printf("failed for another reason: new taint bits 0x%lx "
					 "and no report pinned to the test", o->new_taint));
	if (o->timed_out)
		return d(LAB_TIMEOUT, LAB_EV_NONE,
			 g_strdup_printf("the program did not finish in %d s: killed", o->timeout_s));
	if (o->agent_lost)
		return d(LAB_ERROR, LAB_EV_NONE,
			 g_strdup("the guest agent stopped answering while the domain runs, "
				  "and the console has no report"));
	return by_exit(o);
}

static bool contains(const char *hay, const char *needle)
{
	return hay && *needle && strstr(hay, needle);
}

/* One alternative: every "+"-joined part must match somewhere. */
static bool alternative_matches(const char *alt, const char *type,
				const char *title, const char *first_line,
				const char *function, const char *excerpt)
{
	gchar **parts = g_strsplit(alt, "+", -1);
	bool all = parts[0] != NULL;
	int i;

	for (i = 0; all && parts[i]; i++) {
		const char *p = parts[i];

		if (g_str_has_prefix(p, "kind:"))
			all = type && strcmp(type, p + 5) == 0;
		else if (g_str_has_prefix(p, "excerpt:"))
			all = contains(excerpt, p + 8);
		else
			all = contains(title, p) || contains(first_line, p) ||
			      contains(function, p);
	}
	g_strfreev(parts);
	return all;
}

bool lab_signature_matches_report(char **patterns, const char *type,
				  const char *title, const char *first_line,
				  const char *function, const char *excerpt)
{
	for (; patterns && *patterns; patterns++)
		if (**patterns && alternative_matches(*patterns, type, title,
						      first_line, function, excerpt))
			return true;
	return false;
}

bool lab_signature_matches_program(const char *pattern, const char *said)
{
	return pattern && said && contains(said, pattern);
}

/* How bad an exit code is: fail > error > inconclusive > skip > pass. */
static int exit_rank(int code)
{
	static const int ranks[] = { 0, 4, 2, 3, 1 };

	return code >= 0 && code <= 4 ? ranks[code] : 3;
}

bool lab_part_decides(const char *pattern, int code, const char *said,
		      int part_code, const char *part_said)
{
	if (exit_rank(part_code) != exit_rank(code))
		return exit_rank(part_code) > exit_rank(code);
	return part_code != 0 && !lab_signature_matches_program(pattern, said) &&
	       lab_signature_matches_program(pattern, part_said);
}
