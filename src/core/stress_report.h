/* stress_report.h - a stress run's reports. */
#ifndef LAB_STRESS_REPORT_H
#define LAB_STRESS_REPORT_H

#include "core/stress_state.h"

/* The summary as text, and a self-contained HTML page with an inline SVG
 * timeline; both written into the run's directory. */
char *lab_stress_text(const struct lab_stress *s);
char *lab_stress_html(const struct lab_stress *s);
int lab_stress_write_reports(const struct lab_stress *s);

#endif
