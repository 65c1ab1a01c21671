/* stress_rates.h - the workloads' rates over a stress run: every
 * "KEY_per_s=V" and "KEY_iops=V" of a test's counts line, with its time,
 * kept per test (thinned like the timeline), in stress.json, and shown in
 * the report next to the failure titles. Pure. */
#ifndef LAB_STRESS_RATES_H
#define LAB_STRESS_RATES_H

#include <glib.h>
#include <json-c/json.h>

#define LAB_RATE_KEY 40   /* a key's bytes, NUL included */
#define LAB_RATES_MAX 4000 /* points per test */

struct lab_stress_rate {
	gint64 t;          /* seconds since the epoch */
	double v;
	char key[LAB_RATE_KEY];
};

/* A new array of struct lab_stress_rate. */
GArray *lab_stress_rates_new(void);
/* The rates of COUNTS ("k=v k=v; k=v", parts joined by "; ") at WHEN;
 * returns how many were added. */
guint lab_stress_rates_add(GArray *rates, gint64 when, const char *counts);
void lab_stress_rates_merge(GArray *into, const GArray *from);
/* stress.json: [[t, "key", v], ...] both ways; load skips malformed
 * points, check names what a state lab wrote cannot hold (NULL: fine). */
json_object *lab_stress_rates_json(const GArray *rates);
void lab_stress_rates_load(GArray *rates, json_object *a);
const char *lab_stress_rates_check(const GArray *rates);
/* One line per key (samples, min, max, last) / an HTML table with a
 * sparkline per key; nothing when TEST has no rates. */
void lab_stress_rates_text(GString *out, const char *test, const GArray *rates);
void lab_stress_rates_html(GString *out, const char *test, const GArray *rates);

#endif
