/* The operator's decision rule: whether a planned reconfiguration is worth its cost, now.
 *
 * A rule that fires proposes a re-routing; the plan step prices it (candidate.h: LFT SMPs, the
 * Eq. 1 time, the expected relative reduction of the learned traffic's congestion cost). This
 * is the last gate before the SM acts, and the only place the operator's limits live:
 *
 *   mode             off: rules are not evaluated; dry-run: everything is decided and recorded,
 *                    nothing is sent; on: decisions are carried out
 *   min gain         the expected reduction, in percent of the congestion cost, at least
 *   SMPs per percent the SMPs a percent of gain may cost at most (gain per SMP); 0: no bound
 *   SMPs per hour    the LFT SMPs adaptations may send in any 60 minutes; 0: no limit
 *   quiet hours      a daily window (local time, may wrap midnight) in which nothing executes
 *   busy             a sweep, a failed sweep to retry, or VM operations not settled yet
 *
 * Checks run in the order above after "no change" (a candidate whose tables equal those in
 * force is never sent); the first that refuses names the verdict.
 */
#ifndef CLOUDSM_ADAPT_DECISION_H
#define CLOUDSM_ADAPT_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"

enum cs_adapt_mode { CS_ADAPT_MODE_OFF, CS_ADAPT_MODE_DRY_RUN, CS_ADAPT_MODE_ON };
/* "off", "dry-run", "on"; the parse takes the same names (-1 for another). */
const char *cs_adapt_mode_name(enum cs_adapt_mode m);
extern const char *const cs_adapt_mode_names[]; /* in the enum's order, NULL-terminated */
int cs_adapt_mode_parse(const char *name);

struct cs_adapt_policy {
    enum cs_adapt_mode mode;
    unsigned min_gain_percent;
    unsigned max_smps_per_percent; /* 0: no bound */
    unsigned max_smps_per_hour;    /* 0: no limit */
    bool quiet;                    /* a quiet window is set */
    unsigned quiet_from, quiet_to; /* minutes after local midnight, [from, to), wrapping */
};

enum cs_adapt_verdict {
    CS_ADAPT_EXECUTE,
    CS_ADAPT_NO_CHANGE,       /* the candidate's tables are those in force */
    CS_ADAPT_MODE_REFUSES,    /* off or dry-run */
    CS_ADAPT_TOO_LITTLE_GAIN, /* below min_gain_percent */
    CS_ADAPT_TOO_COSTLY,      /* more SMPs per percent of gain than allowed */
    CS_ADAPT_RATE_LIMITED,    /* would exceed max_smps_per_hour */
    CS_ADAPT_QUIET_HOURS,
    CS_ADAPT_BUSY,
};
/* "execute", "no-change", "dry-run" / "off", "too-little-gain", "too-costly", "rate-limited",
 * "quiet-hours", "busy": the audit records' words. */
const char *cs_adapt_verdict_name(enum cs_adapt_verdict v, enum cs_adapt_mode mode);

/* The SMPs adaptations sent in the last hour: one entry per execution. */
#define CS_ADAPT_BUDGET_MAX 256
struct cs_adapt_budget {
    double time[CS_ADAPT_BUDGET_MAX];
    uint64_t smps[CS_ADAPT_BUDGET_MAX];
    uint32_t count;
};
/* SMPs sent in (now - 3600 s, now]. */
uint64_t cs_adapt_budget_used(const struct cs_adapt_budget *b, double now);
/* The LFT SMPs the hour's budget has left at now (UINT64_MAX without a limit). */
uint64_t cs_adapt_budget_left(const struct cs_adapt_policy *p, const struct cs_adapt_budget *b,
                              double now);
/* Record an execution (entries older than an hour are dropped first). */
void cs_adapt_budget_spend(struct cs_adapt_budget *b, double now, uint64_t smps);

/* What a candidate is worth: gain a fraction (0.25 = 25%), smps the LFT SMPs it sends; now in
 * seconds since the epoch, minute_of_day the local time's minutes after midnight (the caller's
 * clock: tests give their own). why (size bytes) gets the verdict with its numbers. */
enum cs_adapt_verdict cs_adapt_decide(const struct cs_adapt_policy *p,
                                      const struct cs_adapt_budget *b, double now,
                                      unsigned minute_of_day, bool busy, double gain, uint64_t smps,
                                      char *why, size_t size);

/* The minute of the day (0 to 1439) a time falls in, on the local clock (the TZ environment's),
 * or on UTC's when utc: the minute_of_day cs_adapt_decide judges quiet hours by. */
unsigned cs_adapt_minute_of_day(double now, bool utc);

/* "HH:MM-HH:MM" (24-hour, local; equal ends: no window) into p's quiet fields; "" clears them.
 * err says what is wrong. */
int cs_adapt_quiet_hours_parse(struct cs_adapt_policy *p, const char *text, struct cs_error *err);

#endif
