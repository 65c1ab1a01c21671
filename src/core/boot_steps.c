/* boot_steps.c - see boot_steps.h. */
#include "core/boot_steps.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

/* systemd's manager and units, in boot order, and what a line calls them */
static const struct {
	const char *name, *label;
} steps[] = {
	{ "userspace", "init" },
	{ "qemu-guest-agent", "agent" },
	{ "cloud-init-local", "cloud-init: local" },
	{ "cloud-init", "network" },
	{ "cloud-config", "config" },
	{ "cloud-final", "final" },
	{ "ready", "ready" },
};

const char lab_boot_steps_cmd[] =
	"echo userspace $(systemctl show -P UserspaceTimestampMonotonic); "
	"for u in qemu-guest-agent cloud-init-local cloud-init cloud-config "
	"cloud-final; do echo $u $(systemctl show -P ActiveEnterTimestampMonotonic "
	"$u.service); done; echo ready $(awk '{printf \"%d\", $1 * 1000000}' /proc/uptime)";

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
		if (i < 2 || i >= G_N_ELEMENTS(steps) - 2)
			g_string_append(s, " s");
	}
	if (!s->len) {
		g_string_free(s, TRUE);
		return NULL;
	}
	return g_string_free(s, FALSE);
}
