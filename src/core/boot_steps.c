/* boot_steps.c - see boot_steps.h. */
#include "core/boot_steps.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* systemd's manager, targets and units, in boot order, and what a line
 * calls them */
static const struct {
	const char *name, *label;
} steps[] = {
	{ "userspace", "init" },
	{ "sysinit", "sysinit" },
	{ "qemu-guest-agent", "agent" },
	{ "seed-start", "seed start" },
	{ "seed-done", "seed done" },
	{ "ready", "ready" },
};

/* Two processes in the guest (each costs a booting TCG guest ~0.2 s, and
 * the next guest boots beside it); the uptime the agent reads itself.
 * (/proc/1/stat's start time is the kernel thread's fork, not init.) */
const char *const lab_boot_steps_init_argv[] = {
	"/bin/systemctl", "show", "-P", "UserspaceTimestampMonotonic", NULL
};
const char *const lab_boot_steps_argv[] = {
	"/bin/systemctl", "show",
	"--property=ActiveEnterTimestampMonotonic,InactiveExitTimestampMonotonic",
	"sysinit.target", "qemu-guest-agent.service", "lab-seed.service", NULL
};

/* The value of KEY in block N (blank-line separated) of systemctl show's
 * output, or "0". */
static char *show_value(const char *show, guint n, const char *key)
{
	gchar **blocks = g_strsplit(show ? show : "", "\n\n", -1);
	char *v = NULL;

	if (n < g_strv_length(blocks)) {
		gchar **lines = g_strsplit(blocks[n], "\n", -1);
		size_t k = strlen(key);
		guint i;

		for (i = 0; lines[i] && !v; i++)
			if (!strncmp(lines[i], key, k) && lines[i][k] == '=')
				v = g_strdup(lines[i] + k + 1);
		g_strfreev(lines);
	}
	g_strfreev(blocks);
	return v ? v : g_strdup("0");
}

char *lab_boot_steps_lines(const char *show, const char *init, const char *uptime)
{
	char *sysinit = show_value(show, 0, "ActiveEnterTimestampMonotonic");
	char *agent = show_value(show, 1, "ActiveEnterTimestampMonotonic");
	char *seed_start = show_value(show, 2, "InactiveExitTimestampMonotonic");
	char *seed_done = show_value(show, 2, "ActiveEnterTimestampMonotonic");
	char *out = g_strdup_printf("userspace %.0f\nsysinit %s\nqemu-guest-agent %s\n"
				    "seed-start %s\nseed-done %s\nready %.0f\n",
				    init ? g_ascii_strtod(init, NULL) : 0, sysinit, agent,
				    seed_start, seed_done,
				    uptime ? g_ascii_strtod(uptime, NULL) * 1e6 : 0);

	g_free(sysinit);
	g_free(agent);
	g_free(seed_start);
	g_free(seed_done);
	return out;
}

/* Microseconds NAME's line gives, or 0. */
static double usec_of(const char *out, const char *name)
{
	char *needle = g_strdup_printf("%s ", name);
	const char *p = out;
	double v = 0;

	while ((p = strstr(p, needle))) {
		if (p == out || p[-1] == '\n') {
			v = g_ascii_strtod(p + strlen(needle), NULL);
			break;
		}
		p++;
	}
	g_free(needle);
	return v;
}

char *lab_boot_steps(const char *out)
{
	GString *s = g_string_new("");
	guint i;

	for (i = 0; out && i < G_N_ELEMENTS(steps); i++) {
		double us = usec_of(out, steps[i].name);

		if (us <= 0)
			continue;
		g_string_append_printf(s, "%s%s %.1f", s->len ? ", " : "",
				       steps[i].label, us / 1e6);
	}
	if (!s->len) {
		g_string_free(s, TRUE);
		return NULL;
	}
	g_string_append(s, " s");
	return g_string_free(s, FALSE);
}
