/* The operator's decision rule (include/cloudsm/adapt_decision.h). */
#include "cloudsm/adapt_decision.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

const char *const cs_adapt_mode_names[] = {"off", "dry-run", "on", NULL};

const char *cs_adapt_mode_name(enum cs_adapt_mode m)
{
    return (unsigned)m < 3 ? cs_adapt_mode_names[m] : "?";
}

int cs_adapt_mode_parse(const char *name)
{
    for (int m = 0; m < 3; m++)
        if (strcmp(name, cs_adapt_mode_names[m]) == 0)
            return m;
    return -1;
}

const char *cs_adapt_verdict_name(enum cs_adapt_verdict v, enum cs_adapt_mode mode)
{
    switch (v) {
    case CS_ADAPT_EXECUTE:
        return "execute";
    case CS_ADAPT_NO_CHANGE:
        return "no-change";
    case CS_ADAPT_MODE_REFUSES:
        return cs_adapt_mode_name(mode);
    case CS_ADAPT_TOO_LITTLE_GAIN:
        return "too-little-gain";
    case CS_ADAPT_TOO_COSTLY:
        return "too-costly";
    case CS_ADAPT_RATE_LIMITED:
        return "rate-limited";
    case CS_ADAPT_QUIET_HOURS:
        return "quiet-hours";
    case CS_ADAPT_BUSY:
        return "busy";
    }
    return "?";
}

#define HOUR_S 3600.0

static void forget_old(struct cs_adapt_budget *b, double now)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < b->count; i++)
        if (b->time[i] > now - HOUR_S) {
            b->time[keep] = b->time[i];
            b->smps[keep] = b->smps[i];
            keep++;
        }
    b->count = keep;
}

uint64_t cs_adapt_budget_used(const struct cs_adapt_budget *b, double now)
{
    uint64_t used = 0;
    for (uint32_t i = 0; i < b->count; i++)
        if (b->time[i] > now - HOUR_S && b->time[i] <= now)
            used += b->smps[i];
    return used;
}

uint64_t cs_adapt_budget_left(const struct cs_adapt_policy *p, const struct cs_adapt_budget *b,
                              double now)
{
    if (p->max_smps_per_hour == 0)
        return UINT64_MAX;
    uint64_t used = cs_adapt_budget_used(b, now);
    return used >= p->max_smps_per_hour ? 0 : p->max_smps_per_hour - used;
}

void cs_adapt_budget_spend(struct cs_adapt_budget *b, double now, uint64_t smps)
{
    forget_old(b, now);
    if (b->count == CS_ADAPT_BUDGET_MAX) { /* more executions in an hour than entries: merge */
        b->smps[1] += b->smps[0];
        memmove(b->time, b->time + 1, (b->count - 1) * sizeof(*b->time));
        memmove(b->smps, b->smps + 1, (b->count - 1) * sizeof(*b->smps));
        b->count--;
    }
    b->time[b->count] = now;
    b->smps[b->count] = smps;
    b->count++;
}

static bool in_quiet_window(const struct cs_adapt_policy *p, unsigned minute)
{
    if (!p->quiet || p->quiet_from == p->quiet_to)
        return false;
    if (p->quiet_from < p->quiet_to)
        return minute >= p->quiet_from && minute < p->quiet_to;
    return minute >= p->quiet_from || minute < p->quiet_to; /* wraps midnight */
}

enum cs_adapt_verdict cs_adapt_decide(const struct cs_adapt_policy *p,
                                      const struct cs_adapt_budget *b, double now,
                                      unsigned minute_of_day, bool busy, double gain, uint64_t smps,
                                      char *why, size_t size)
{
    double percent = gain * 100.0;
    if (smps == 0) {
        snprintf(why, size, "no change: the candidate's tables are those in force");
        return CS_ADAPT_NO_CHANGE;
    }
    if (p->mode != CS_ADAPT_MODE_ON) {
        snprintf(why, size, "%s: would send %llu SMPs for %.1f%% less congestion",
                 cs_adapt_mode_name(p->mode), (unsigned long long)smps, percent);
        return CS_ADAPT_MODE_REFUSES;
    }
    if (percent < p->min_gain_percent) {
        snprintf(why, size, "expected gain %.1f%% is below the minimum %u%%", percent,
                 p->min_gain_percent);
        return CS_ADAPT_TOO_LITTLE_GAIN;
    }
    if (p->max_smps_per_percent > 0 && (double)smps > percent * p->max_smps_per_percent) {
        snprintf(why, size, "%llu SMPs for %.1f%% gain: more than %u SMPs per percent",
                 (unsigned long long)smps, percent, p->max_smps_per_percent);
        return CS_ADAPT_TOO_COSTLY;
    }
    uint64_t used = cs_adapt_budget_used(b, now);
    if (p->max_smps_per_hour > 0 && used + smps > p->max_smps_per_hour) {
        snprintf(why, size, "%llu SMPs would exceed the hour's budget (%llu of %u used)",
                 (unsigned long long)smps, (unsigned long long)used, p->max_smps_per_hour);
        return CS_ADAPT_RATE_LIMITED;
    }
    if (in_quiet_window(p, minute_of_day)) {
        snprintf(why, size, "quiet hours %02u:%02u-%02u:%02u", p->quiet_from / 60,
                 p->quiet_from % 60, p->quiet_to / 60, p->quiet_to % 60);
        return CS_ADAPT_QUIET_HOURS;
    }
    if (busy) {
        snprintf(why, size, "the SM is busy (a sweep to finish or VM operations to settle)");
        return CS_ADAPT_BUSY;
    }
    snprintf(why, size, "%llu SMPs for %.1f%% less congestion", (unsigned long long)smps, percent);
    return CS_ADAPT_EXECUTE;
}

unsigned cs_adapt_minute_of_day(double now, bool utc)
{
    if (!isfinite(now))
        return 0;
    time_t t = (time_t)floor(now);
    struct tm tm;
    if ((utc ? gmtime_r(&t, &tm) : localtime_r(&t, &tm)) == NULL)
        return 0;
    return (unsigned)(tm.tm_hour * 60 + tm.tm_min);
}

static int parse_clock(const char *s, unsigned *minutes)
{
    unsigned h, m;
    int used = 0;
    if (sscanf(s, "%2u:%2u%n", &h, &m, &used) != 2 || used != 5 || h > 23 || m > 59)
        return -1;
    *minutes = h * 60 + m;
    return 0;
}

int cs_adapt_quiet_hours_parse(struct cs_adapt_policy *p, const char *text, struct cs_error *err)
{
    if (text[0] == '\0') {
        p->quiet = false;
        p->quiet_from = p->quiet_to = 0;
        return 0;
    }
    unsigned from, to;
    if (strlen(text) != 11 || text[5] != '-' || parse_clock(text, &from) < 0 ||
        parse_clock(text + 6, &to) < 0)
        return cs_fail(err, "'%s' is not a daily window HH:MM-HH:MM (e.g. 08:00-18:00)", text);
    p->quiet = from != to;
    p->quiet_from = from;
    p->quiet_to = to;
    return 0;
}
