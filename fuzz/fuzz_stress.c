/* fuzz_stress.c - any bytes as a stress.json: lab_stress_from_text refuses
 * them with a message naming the file, or gives a state that `lab stress
 * --status` prints, that renders as HTML without a script, and that goes
 * back to JSON - never a crash, leak or undefined behaviour. */
#include <string.h>

#include "core/stress_report.h"
#include "core/stress_state.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL, *out;
	struct lab_stress *s = lab_stress_from_text((const char *)data, size,
						    "fuzz.json", &err);

	if (!s == !err || (err && !g_str_has_prefix(err, "fuzz.json:")))
		abort(); /* a state or an error naming the file, not both */
	if (s) {
		g_free(lab_stress_text(s));
		out = lab_stress_html(s);
		if (strstr(out, "<script"))
			abort();
		g_free(out);
		g_free(lab_stress_to_json(s));
	}
	lab_stress_free(s);
	g_free(err);
	return 0;
}
