/* console.h - the console scanner: turns a guest's serial console log into
 * titled reports (oops, WARNING, lockdep, hung task, panic, ...), each pinned
 * to the test whose "lab: BEGIN/END" markers enclose it. */
#ifndef LAB_CONSOLE_H
#define LAB_CONSOLE_H

#include <stdbool.h>
#include <glib.h>

struct lab_report {
	char *type;       /* "oops", "warning", ... as above */
	char *title;
	char *function;   /* guilty function or NULL */
	char *first_line; /* without the [ time ] prefix */
	char *message;    /* a WARN()'s own message (the lines between its
			   * cut-here and its WARNING line), or NULL */
	char *excerpt;
	char *test;       /* enclosing test, NULL outside markers */
	long line;        /* 1-based line in the log */
	bool panic;       /* the guest panicked inside this report */
	bool absorbed_crash; /* an oops, BUG or panic followed it at once and
			      * was taken into it: never "the expected report" */
};

GPtrArray *lab_console_scan(const char *text);            /* of struct lab_report*, free func set */
GPtrArray *lab_console_scan_file(const char *path, GError **err);
GPtrArray *lab_console_reports_for(GPtrArray *all, const char *test); /* borrowed pointers, no free func */
/* The same, only those that start after line AFTER: one run of a test
 * whose name an earlier run in the same boot had too (lab stress). */
GPtrArray *lab_console_reports_after(GPtrArray *all, const char *test, long after);
bool lab_console_has_panic(GPtrArray *reports);
char *lab_console_tail(const char *text, int lines);     /* last N lines, for error messages */
void lab_report_free(struct lab_report *r);

#endif
