/* fuzz_console.c - any bytes as a guest's serial console log: the scanner
 * gives well-formed reports (or none) and never crashes, leaks or hits
 * undefined behaviour. */
#include <string.h>

#include "core/console.h"
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = g_strndup((const char *)data, size);
	GPtrArray *reports = lab_console_scan(text), *none;
	char *tail;
	guint i;

	for (i = 0; i < reports->len; i++) {
		const struct lab_report *r = reports->pdata[i];

		if (!r->type || !r->title || !r->first_line || !r->excerpt ||
		    r->line < 1)
			abort();
	}
	none = lab_console_reports_for(reports, NULL);
	lab_console_has_panic(reports);
	tail = lab_console_tail(text, 5);
	g_ptr_array_free(none, TRUE);
	g_ptr_array_free(reports, TRUE);
	g_free(tail);
	g_free(text);
	return 0;
}
