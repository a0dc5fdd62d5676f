/* Points in time from a command line (include/cloudsm/time_point.h): durations back from now,
 * ISO 8601 times with a zone, seconds since the epoch. */
#include "cloudsm/time_point.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Epoch seconds of 10000-01-01T00:00:00Z: the first time ISO's four-digit years cannot write. */
#define YEAR_10000 253402300800.0
/* A bare number below this is taken for a duration without its unit. */
#define EPOCH_MIN 1e9

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (Howard Hinnant's
 * days_from_civil; y >= 0 here, so every division is of non-negative numbers). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = y / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* The inverse, for days >= 0. */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = z / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned days_in_month(int64_t y, unsigned m)
{
    static const unsigned days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : days[m - 1];
}

/* Exactly n digits at *p as a number; advances *p. */
static bool digits(const char **p, int n, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < n; i++) {
        if ((*p)[i] < '0' || (*p)[i] > '9')
            return false;
        v = v * 10 + (unsigned)((*p)[i] - '0');
    }
    *p += n;
    *out = v;
    return true;
}

/* A non-negative decimal number "D[.D]" (no sign, no exponent) at *p; advances *p. */
static bool decimal(const char **p, double *out)
{
    const char *s = *p;
    size_t whole = strspn(s, "0123456789");
    size_t len = whole, fraction = 0;
    if (s[len] == '.') {
        fraction = strspn(s + len + 1, "0123456789");
        if (fraction == 0)
            return false;
        len += 1 + fraction;
    }
    if (whole == 0 || len > 40)
        return false;
    char buf[48];
    memcpy(buf, s, len);
    buf[len] = '\0';
    *out = strtod(buf, NULL);
    *p = s + len;
    return isfinite(*out);
}

static int iso(const char *text, double *out, struct cs_error *err)
{
    const char *p = text;
    unsigned year, month, day, hour = 0, minute = 0, second = 0;
    double fraction = 0;
    const char *form = "an ISO 8601 time, e.g. 2026-11-27T08:00:00Z";
    if (!digits(&p, 4, &year) || *p++ != '-' || !digits(&p, 2, &month) || *p++ != '-' ||
        !digits(&p, 2, &day))
        return cs_fail(err, "'%s' is not %s", text, form);
    if (year < 1970 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month))
        return cs_fail(err, "'%s': no such date (years from 1970)", text);
    double offset = 0;
    if (*p == 'T' || *p == ' ') {
        p++;
        if (!digits(&p, 2, &hour) || *p++ != ':' || !digits(&p, 2, &minute))
            return cs_fail(err, "'%s' is not %s", text, form);
        if (*p == ':') {
            p++;
            if (!digits(&p, 2, &second))
                return cs_fail(err, "'%s' is not %s", text, form);
            if (*p == '.' || *p == ',') {
                size_t n = strspn(p + 1, "0123456789");
                if (n == 0 || n > 9)
                    return cs_fail(err, "'%s': a fraction of a second has 1 to 9 digits", text);
                unsigned scaled = 0;
                for (size_t i = 1; i <= n; i++)
                    scaled = scaled * 10 + (unsigned)(p[i] - '0');
                fraction = scaled / pow(10, (double)n);
                p += n + 1;
            }
        }
        if (hour > 23 || minute > 59 || second > 59)
            return cs_fail(err, "'%s': no such time of day", text);
        if (*p == 'Z') {
            p++;
        } else if (*p == '+' || *p == '-') {
            int sign = *p++ == '-' ? -1 : 1;
            unsigned oh, om = 0;
            if (!digits(&p, 2, &oh))
                return cs_fail(err, "'%s': a zone offset is +HH:MM, +HHMM or +HH", text);
            if (*p == ':')
                p++;
            if (*p && !digits(&p, 2, &om))
                return cs_fail(err, "'%s': a zone offset is +HH:MM, +HHMM or +HH", text);
            if (oh > 23 || om > 59)
                return cs_fail(err, "'%s': no such zone offset", text);
            offset = sign * (oh * 3600.0 + om * 60.0);
        } else if (*p == '\0') {
            return cs_fail(err, "'%s' has no zone: add Z for UTC or an offset such as +01:00",
                           text);
        }
    }
    if (*p != '\0')
        return cs_fail(err, "'%s' is not %s (extra '%s')", text, form, p);
    double days = (double)days_from_civil(year, month, day);
    *out = days * 86400 + hour * 3600.0 + minute * 60.0 + second - offset + fraction;
    if (*out < 0)
        return cs_fail(err, "'%s' is before the epoch", text);
    return 0;
}

/* A duration "NUMBER UNIT..." into seconds; what is the form the caller wanted (an error names
 * it when the text is not a number with a unit). */
static int duration(const char *text, const char *what, double *out, struct cs_error *err)
{
    const char *p = text;
    double total = 0;
    while (*p) {
        double n;
        if (!decimal(&p, &n))
            return cs_fail(err, "'%s' is not %s", text, what);
        double unit;
        switch (*p) {
        case 's':
            unit = 1;
            break;
        case 'm':
            unit = 60;
            break;
        case 'h':
            unit = 3600;
            break;
        case 'd':
            unit = 86400;
            break;
        case 'w':
            unit = 7 * 86400;
            break;
        default:
            return cs_fail(err, "'%s': a duration's units are s, m, h, d and w", text);
        }
        p++;
        total += n * unit;
    }
    if (!isfinite(total))
        return cs_fail(err, "'%s': duration out of range", text);
    *out = total;
    return 0;
}

int cs_duration_parse(const char *text, double *seconds, struct cs_error *err)
{
    if (!text || !*text)
        return cs_fail(err, "an empty duration: give one such as 10s, 5m, 1h30m");
    return duration(text, "a duration (10s, 5m, 2h, 1d, 1h30m)", seconds, err);
}

int cs_time_point_parse(const char *text, double now, double *out, struct cs_error *err)
{
    if (!text || !*text)
        return cs_fail(err, "an empty time: give a duration (30s, 5m, 2h, 1d), an ISO 8601 time "
                            "or seconds since the epoch");
    if (strcmp(text, "now") == 0) {
        *out = now;
        return 0;
    }
    size_t numeric = strspn(text, "0123456789.");
    if (text[0] == '@' || (text[numeric] == '\0' && numeric > 0)) {
        const char *p = text + (text[0] == '@');
        double v;
        if (!decimal(&p, &v) || *p)
            return cs_fail(err, "'%s' is not a number of seconds since the epoch", text);
        if (text[0] != '@' && v < EPOCH_MIN)
            return cs_fail(err,
                           "'%s' is before 2001 as seconds since the epoch: a duration needs "
                           "a unit (%ss), an old time an @ (@%s)",
                           text, text, text);
        if (v >= YEAR_10000)
            return cs_fail(err, "'%s' is after the year 9999", text);
        *out = v;
        return 0;
    }
    if (numeric == 4 && text[4] == '-')
        return iso(text, out, err);
    double back;
    if (duration(text,
                 "a time: give a duration (30s, 5m, 2h, 1d), an ISO 8601 time "
                 "(2026-11-27T08:00:00Z), seconds since the epoch, or now",
                 &back, err) < 0)
        return -1;
    *out = now - back;
    return 0;
}

char *cs_time_point_format(double t, char *buf, size_t size)
{
    int64_t ms = t >= 0 && t < YEAR_10000 ? llround(t * 1000) : -1;
    if (ms < 0 || ms >= (int64_t)(YEAR_10000 * 1000)) {
        snprintf(buf, size, "%.3f", t);
        return buf;
    }
    int64_t secs = ms / 1000, frac = ms % 1000;
    int64_t days = secs / 86400, rest = secs % 86400;
    int64_t y;
    unsigned m, d;
    civil_from_days(days, &y, &m, &d);
    int n = snprintf(buf, size, "%04lld-%02u-%02uT%02d:%02d:%02d", (long long)y, m, d,
                     (int)(rest / 3600), (int)(rest / 60 % 60), (int)(rest % 60));
    if (n > 0 && (size_t)n < size) {
        if (frac)
            snprintf(buf + n, size - (size_t)n, ".%03dZ", (int)frac);
        else
            snprintf(buf + n, size - (size_t)n, "Z");
    }
    return buf;
}
