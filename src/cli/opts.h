/* opts.h - every command's options as one kind of table (as git's
 * parse-options and virsh's command definitions): the parser and the usage
 * text both come from it, so `-h`/`--help` is the same everywhere (exit
 * 0) and every usage error is named and exits 2. */
#ifndef LAB_OPTS_H
#define LAB_OPTS_H

#include <stdbool.h>
#include <stdio.h>

enum lab_opt_kind {
	LAB_OPT_FLAG,     /* bool */
	LAB_OPT_STR,      /* const char *; `choices` limits it when given */
	LAB_OPT_INT,      /* int, whole decimal in min..max */
	LAB_OPT_LIST,     /* char ** from "A,B,C" (g_strfreev'd by the parser) */
	LAB_OPT_DURATION, /* long seconds from "90", "90s", "30m", "8h" */
	LAB_OPT_ENV,      /* char ** of NAME=VALUE, one per time it is given,
			   * each a test setting (core/test_env.h) */
};

struct lab_opt {
	const char *name;    /* "--kernel" */
	const char *alias;   /* "-t", or NULL */
	enum lab_opt_kind kind;
	const char *arg;     /* its value in the usage: "NAME" */
	const char *help;
	void *dest;          /* bool *, const char **, int *, char *** (LIST, ENV),
			      * long * */
	long min, max;       /* INT and DURATION bounds */
	const char *const *choices; /* STR: the values it takes, or NULL */
	const char *def;     /* its value when not given (STR; INT and DURATION
			      * as decimal text; NULL: NULL or 0) */
};

struct lab_cmd_spec {
	const char *name;          /* "up" */
	const char *args;          /* the positional part of the usage line */
	const char *about;         /* a paragraph under the usage lines */
	const struct lab_opt *opts; /* ended by an entry with name NULL */
	int min_args, max_args;    /* positional arguments; max -1: any */
	bool raw_after_dashdash;   /* "--" ends the options (lab exec) */
};

/* The usage text: "usage: lab NAME [options] ARGS", one line per option,
 * then ABOUT. */
void lab_opts_usage(const struct lab_cmd_spec *spec, FILE *out);
/* Parse ARGV (ARGV[0] is the command's name) into the options' dests;
 * *ARGS gets the positional arguments (NULL-terminated, pointing into
 * ARGV; g_free the array). 0 parsed, 1 help shown (exit 0), 2 a usage
 * error named on stderr. Resets every dest first (FLAG false, LIST and ENV
 * NULL, the others their def). */
int lab_opts_parse(const struct lab_cmd_spec *spec, int argc, char **argv,
		   char ***args);
/* Seconds in "90", "90s", "30m", "8h"; -1 when it is none of them. */
long lab_opts_duration(const char *v);

#endif
