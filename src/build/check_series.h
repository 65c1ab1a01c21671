/* check_series.h - `lab check-series`. */
#ifndef LAB_CHECK_SERIES_H
#define LAB_CHECK_SERIES_H

/* support/, bugs/ then fixes/ on a pristine tree; bugs/ + fixes/ must
 * give back pristine + support/ in every file they touch, and every
 * touched file must compile on both kernels. 0 or 1. */
int lab_check_series(const char *review);

#endif
