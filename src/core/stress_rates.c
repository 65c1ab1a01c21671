/* stress_rates.c - the workloads' rates over a stress run (stress_rates.h):
 * what a soak iteration's programs report as KEY_per_s and KEY_iops, so a
 * slowdown before a failure is visible next to its title. */
#include "core/stress_rates.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

GArray *lab_stress_rates_new(void)
{
	return g_array_new(FALSE, FALSE, sizeof(struct lab_stress_rate));
}

static bool is_rate_key(const char *k, size_t n)
{
	static const char *const ends[] = { "_per_s", "_iops" };

	if (n == 0 || n >= LAB_RATE_KEY)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!g_ascii_islower(k[i]) && !g_ascii_isdigit(k[i]) && k[i] != '_')
			return false;
	for (size_t i = 0; i < G_N_ELEMENTS(ends); i++) {
		size_t e = strlen(ends[i]);

		if (n > e && !memcmp(k + n - e, ends[i], e))
			return true;
	}
	return false;
}

/* Beyond LAB_RATES_MAX every other point goes (the picture keeps its shape). */
static void thin(GArray *rates)
{
	guint i, j;

	if (rates->len < LAB_RATES_MAX)
		return;
	for (i = 0, j = 0; i < rates->len; i += 2, j++)
		g_array_index(rates, struct lab_stress_rate, j) =
			g_array_index(rates, struct lab_stress_rate, i);
	g_array_set_size(rates, j);
}

static void add_one(GArray *rates, gint64 when, const char *key, size_t n, double v)
{
	struct lab_stress_rate r = { .t = when, .v = v };

	memcpy(r.key, key, n);
	r.key[n] = '\0';
	thin(rates);
	g_array_append_val(rates, r);
}

guint lab_stress_rates_add(GArray *rates, gint64 when, const char *counts)
{
	char **tok = g_strsplit_set(counts ? counts : "", " ;\t", -1);
	guint added = 0;

	for (char **p = tok; *p; p++) {
		const char *eq = strchr(*p, '=');
		char *end;
		double v;

		if (!eq || !is_rate_key(*p, (size_t)(eq - *p)) || !eq[1])
			continue;
		v = g_ascii_strtod(eq + 1, &end);
		if (*end || !isfinite(v) || v < 0)
			continue;
		add_one(rates, when, *p, (size_t)(eq - *p), v);
		added++;
	}
	g_strfreev(tok);
	return added;
}

static gint by_time(gconstpointer a, gconstpointer b)
{
	const struct lab_stress_rate *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

void lab_stress_rates_merge(GArray *into, const GArray *from)
{
	for (guint i = 0; i < from->len; i++) {
		thin(into);
		g_array_append_val(into, g_array_index(from, struct lab_stress_rate, i));
	}
	g_array_sort(into, by_time);
}

/* ---- stress.json ---- */

json_object *lab_stress_rates_json(const GArray *rates)
{
	json_object *a = json_object_new_array();

	for (guint i = 0; i < rates->len; i++) {
		const struct lab_stress_rate *r = &g_array_index(rates, struct lab_stress_rate, i);
		json_object *pt = json_object_new_array();

		json_object_array_add(pt, json_object_new_int64(r->t));
		json_object_array_add(pt, json_object_new_string(r->key));
		json_object_array_add(pt, json_object_new_double(r->v));
		json_object_array_add(a, pt);
	}
	return a;
}

void lab_stress_rates_load(GArray *rates, json_object *a)
{
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		json_object *pt = json_object_array_get_idx(a, i), *t, *k, *v;
		const char *key;

		if (!json_object_is_type(pt, json_type_array) || json_object_array_length(pt) != 3)
			continue;
		t = json_object_array_get_idx(pt, 0);
		k = json_object_array_get_idx(pt, 1);
		v = json_object_array_get_idx(pt, 2);
		if (!json_object_is_type(t, json_type_int) || !json_object_is_type(k, json_type_string) ||
		    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
			continue;
		key = json_object_get_string(k);
		if (!is_rate_key(key, strlen(key)))
			continue;
		add_one(rates, json_object_get_int64(t), key, strlen(key), json_object_get_double(v));
	}
}

const char *lab_stress_rates_check(const GArray *rates)
{
	for (guint i = 0; i < rates->len; i++) {
		const struct lab_stress_rate *r = &g_array_index(rates, struct lab_stress_rate, i);

		if (r->t < 0 || r->t > 4102444800LL)
			return "a rate's time is out of range";
		if (!isfinite(r->v) || r->v < 0 || r->v > 1e15)
			return "a rate is not a finite non-negative number";
	}
	return NULL;
}

/* ---- the report ---- */

struct key_stats {
	const char *key;
	guint n;
	double min, max, last;
	gint64 t0, t1;
};

/* The keys of RATES in first-seen order, with their figures. */
static GArray *stats_of(const GArray *rates)
{
	GArray *ks = g_array_new(FALSE, TRUE, sizeof(struct key_stats));

	for (guint i = 0; i < rates->len; i++) {
		const struct lab_stress_rate *r = &g_array_index(rates, struct lab_stress_rate, i);
		struct key_stats *k = NULL;

		for (guint j = 0; j < ks->len && !k; j++)
			if (!strcmp(g_array_index(ks, struct key_stats, j).key, r->key))
				k = &g_array_index(ks, struct key_stats, j);
		if (!k) {
			struct key_stats z = { .key = r->key, .min = r->v, .max = r->v, .t0 = r->t };

			g_array_append_val(ks, z);
			k = &g_array_index(ks, struct key_stats, ks->len - 1);
		}
		k->n++;
		k->min = MIN(k->min, r->v);
		k->max = MAX(k->max, r->v);
		k->last = r->v;
		k->t1 = r->t;
	}
	return ks;
}

void lab_stress_rates_text(GString *out, const char *test, const GArray *rates)
{
	GArray *ks = stats_of(rates);

	for (guint i = 0; i < ks->len; i++) {
		const struct key_stats *k = &g_array_index(ks, struct key_stats, i);

		g_string_append_printf(out, "  %-32s %-26s %5u samples  min %.1f  max %.1f  last %.1f\n",
				       test, k->key, k->n, k->min, k->max, k->last);
	}
	g_array_free(ks, TRUE);
}

/* A key's values over time, 160 x 24 px, scaled to its own min and max. */
static void sparkline(GString *out, const GArray *rates, const struct key_stats *k)
{
	double span_t = (double)MAX(k->t1 - k->t0, 1), span_v = k->max - k->min;

	g_string_append(out, "<svg width=\"160\" height=\"24\" role=\"img\"><polyline fill=\"none\" "
			     "stroke=\"#1e88e5\" points=\"");
	for (guint i = 0; i < rates->len; i++) {
		const struct lab_stress_rate *r = &g_array_index(rates, struct lab_stress_rate, i);

		if (strcmp(r->key, k->key))
			continue;
		g_string_append_printf(out, "%.1f,%.1f ", 2 + 156 * (double)(r->t - k->t0) / span_t,
				       22 - (span_v > 0 ? 20 * (r->v - k->min) / span_v : 10));
	}
	g_string_append(out, "\"/></svg>");
}

void lab_stress_rates_html(GString *out, const char *test, const GArray *rates)
{
	GArray *ks = stats_of(rates);
	char *et = g_markup_escape_text(test, -1);

	for (guint i = 0; i < ks->len; i++) {
		const struct key_stats *k = &g_array_index(ks, struct key_stats, i);

		g_string_append_printf(out, "<tr class=\"rate\"><td>%s</td><td>%s</td><td>%u</td>"
				       "<td>%.1f</td><td>%.1f</td><td>%.1f</td><td>", et, k->key,
				       k->n, k->min, k->max, k->last);
		sparkline(out, rates, k);
		g_string_append(out, "</td></tr>\n");
	}
	g_free(et);
	g_array_free(ks, TRUE);
}
