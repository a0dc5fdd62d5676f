/* Points in time as people write them on a command line (--since, --until):
 *
 *   now                      the time given as now
 *   30s  5m  2h  1d  1h30m   a duration back from now: one or more NUMBER UNIT, units s, m, h, d,
 *                            w (a week); NUMBER may have a fraction (1.5h)
 *   2026-11-27T08:00:00Z     ISO 8601, UTC (Z) or with an offset (+01:00, -0530); seconds and
 *   2026-11-27T08:00+01:00   their fraction are optional; ' ' may stand for 'T'
 *   2026-11-27               that day at 00:00 UTC
 *   1795737600  @1795737600  seconds since the epoch (a fraction allowed)
 *
 * A time of day without a zone is refused rather than guessed (local time differs between the
 * host that stored the data and the one reading it). A bare number below 1e9 (before 2001-09-09)
 * is refused as a duration that lost its unit ("30" for "30s").
 */
#ifndef CLOUDSM_TIME_POINT_H
#define CLOUDSM_TIME_POINT_H

#include <stddef.h>

#include "cloudsm/error.h"

/* Parse text into seconds since the epoch (*out), durations counted back from now. The error
 * names the text and what it expected. */
int cs_time_point_parse(const char *text, double now, double *out, struct cs_error *err);

/* A duration alone, in the forms above (30s, 5m, 1h30m, 1.5h): its seconds (*seconds, 0 for
 * "0s"). The error names the text and the form it expected. */
int cs_duration_parse(const char *text, double *seconds, struct cs_error *err);

/* "2026-11-27T08:00:00Z", or "2026-11-27T08:00:00.250Z" when t has milliseconds; t is rounded to
 * the millisecond. buf needs CS_TIME_POINT_MAX bytes. Times outside years 1970..9999 print as
 * seconds since the epoch. */
#define CS_TIME_POINT_MAX 32
char *cs_time_point_format(double t, char *buf, size_t size);

#endif
