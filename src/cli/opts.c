/* opts.c - see opts.h. */
#include "cli/opts.h"
#include "core/test_env.h"
#include "util/util.h"

#include <stdlib.h>
#include <string.h>

static char *opt_label(const struct lab_opt *o)
{
	GString *s = g_string_new("");

	if (o->alias)
		g_string_append_printf(s, "%s, ", o->alias);
	g_string_append(s, o->name);
	if (o->kind != LAB_OPT_FLAG)
		g_string_append_printf(s, " %s", o->arg ? o->arg : "VALUE");
	return g_string_free(s, FALSE);
}

void lab_opts_usage(const struct lab_cmd_spec *spec, FILE *out)
{
	const struct lab_opt *o;

	fprintf(out, "usage: lab %s%s%s%s\n", spec->name,
		spec->opts && spec->opts[0].name ? " [options]" : "",
		spec->args && *spec->args ? " " : "", spec->args ? spec->args : "");
	for (o = spec->opts; o && o->name; o++) {
		char *label = opt_label(o);

		fprintf(out, "  %-24s %s", label, o->help);
		if (o->def && o->kind != LAB_OPT_FLAG)
			fprintf(out, " [%s]", o->def);
		if (o->choices) {
			const char *const *c;

			fputs(" (", out);
			for (c = o->choices; *c; c++)
				fprintf(out, "%s%s", c == o->choices ? "" : ", ", *c);
			fputs(")", out);
		}
		fputs("\n", out);
		g_free(label);
	}
	fprintf(out, "  %-24s %s\n", "-h, --help", "show this help");
	if (spec->about)
		fprintf(out, "%s", spec->about);
}

long lab_opts_duration(const char *v)
{
	char *end;
	long n;

	if (!v || !g_ascii_isdigit(*v))
		return -1;
	n = strtol(v, &end, 10);
	if (n <= 0 || n > 100L * 86400)
		return -1;
	if (!strcmp(end, "h"))
		return n * 3600;
	if (!strcmp(end, "m"))
		return n * 60;
	return !*end || !strcmp(end, "s") ? n : -1;
}

static void reset(const struct lab_cmd_spec *spec)
{
	const struct lab_opt *o;

	for (o = spec->opts; o && o->name; o++) {
		switch (o->kind) {
		case LAB_OPT_FLAG: *(bool *)o->dest = false; break;
		case LAB_OPT_INT: *(int *)o->dest = o->def ? atoi(o->def) : 0; break;
		case LAB_OPT_DURATION: *(long *)o->dest = o->def ? atol(o->def) : 0; break;
		case LAB_OPT_LIST:
		case LAB_OPT_ENV:
			g_strfreev(*(char ***)o->dest);
			*(char ***)o->dest = NULL;
			break;
		case LAB_OPT_STR: *(const char **)o->dest = o->def; break;
		}
	}
}

static const struct lab_opt *find(const struct lab_cmd_spec *spec, const char *a)
{
	const struct lab_opt *o;

	for (o = spec->opts; o && o->name; o++)
		if (!strcmp(a, o->name) || (o->alias && !strcmp(a, o->alias)))
			return o;
	return NULL;
}

static int bad(const struct lab_cmd_spec *spec, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static int bad(const struct lab_cmd_spec *spec, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	lab_err("%s: %s (`lab %s --help` shows its options)", spec->name, msg,
		spec->name);
	g_free(msg);
	return 2;
}

static bool one_of(const char *const *choices, const char *v)
{
	for (; choices && *choices; choices++)
		if (!strcmp(*choices, v))
			return true;
	return !choices;
}

/* One more NAME=VALUE; a bad one or a NAME given twice is named. */
static int take_env(const struct lab_cmd_spec *spec, const struct lab_opt *o,
		    const char *v)
{
	char ***dest = o->dest, *why;
	guint n = *dest ? g_strv_length(*dest) : 0;
	int rc;

	*dest = g_renew(char *, *dest, n + 2);
	(*dest)[n] = g_strdup(v);
	(*dest)[n + 1] = NULL;
	if (!(why = lab_test_env_check_all(*dest)))
		return 0;
	rc = bad(spec, "%s %s: %s", o->name, v, why);
	g_free(why);
	return rc;
}

static int take(const struct lab_cmd_spec *spec, const struct lab_opt *o,
		const char *v)
{
	int n;
	long d;

	switch (o->kind) {
	case LAB_OPT_STR:
		if (!one_of(o->choices, v))
			return bad(spec, "%s takes one of its values, not '%s'", o->name, v);
		*(const char **)o->dest = v;
		return 0;
	case LAB_OPT_INT:
		if (lab_parse_count(v, o->min, o->max, &n) != 0)
			return bad(spec, "%s needs a whole number %ld..%ld, not '%s'",
				   o->name, o->min, o->max, v);
		*(int *)o->dest = n;
		return 0;
	case LAB_OPT_DURATION:
		d = lab_opts_duration(v);
		if (d < 0 || (o->min && d < o->min) || (o->max && d > o->max))
			return bad(spec, "%s needs seconds (90, 90s, 30m, 8h; %ld..%ld s), not '%s'",
				   o->name, o->min ? o->min : 1, o->max, v);
		*(long *)o->dest = d;
		return 0;
	case LAB_OPT_LIST:
		if (!*v || strstr(v, ",,") || *v == ',' || g_str_has_suffix(v, ","))
			return bad(spec, "%s takes a list A,B,... not '%s'", o->name, v);
		g_strfreev(*(char ***)o->dest);
		*(char ***)o->dest = g_strsplit(v, ",", -1);
		return 0;
	case LAB_OPT_ENV:
		return take_env(spec, o, v);
	case LAB_OPT_FLAG:
		break;
	}
	return 0;
}

static bool is_help(const char *a)
{
	return !strcmp(a, "-h") || !strcmp(a, "--help");
}

int lab_opts_parse(const struct lab_cmd_spec *spec, int argc, char **argv,
		   char ***args)
{
	GPtrArray *pos = g_ptr_array_new();
	bool raw = false;
	int i, rc = 0, n;

	reset(spec);
	for (i = 1; i < argc && rc == 0; i++) {
		const char *a = argv[i];
		const struct lab_opt *o;

		if (raw || a[0] != '-' || !a[1]) {
			g_ptr_array_add(pos, argv[i]);
			continue;
		}
		if (!strcmp(a, "--") && spec->raw_after_dashdash) {
			raw = true;
			g_ptr_array_add(pos, argv[i]);
		} else if (is_help(a)) {
			lab_opts_usage(spec, stdout);
			rc = 1;
		} else if (!(o = find(spec, a))) {
			rc = bad(spec, "bad argument '%s'", a);
		} else if (o->kind == LAB_OPT_FLAG) {
			*(bool *)o->dest = true;
		} else if (i + 1 >= argc) {
			rc = bad(spec, "%s needs a value (%s)", o->name, o->arg ? o->arg : "VALUE");
		} else {
			rc = take(spec, o, argv[++i]);
		}
	}
	n = (int)pos->len;
	if (rc == 0 && (n < spec->min_args || (spec->max_args >= 0 && n > spec->max_args)))
		rc = n < spec->min_args
		     ? bad(spec, "missing %s", spec->args && *spec->args ? spec->args : "arguments")
		     : bad(spec, "too many arguments ('%s')", (char *)pos->pdata[n - 1]);
	g_ptr_array_add(pos, NULL);
	if (rc == 0 && args)
		*args = (char **)g_ptr_array_free(pos, FALSE);
	else
		g_ptr_array_free(pos, TRUE);
	return rc;
}
