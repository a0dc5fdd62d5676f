/* IBAdapt: the rule language of the self-adaptive loop (monitor -> decide -> plan -> execute).
 *
 * A rules file declares parameters and condition-action rules over the monitor's measurements
 * (metrics.h):
 *
 *     param threshold = 2 GB/s
 *     rule traffic_profile {
 *         priority 10
 *         when avg(node.throughput over 30s) < threshold
 *         for 1m
 *         cooldown 10m
 *         then reroute(engine = "wftree", weights = learned(over 5m))
 *     }
 *
 * cs_adapt_parse reads and type-checks a file in one call; cs_adapt_step evaluates every rule at
 * a time `now` over a struct cs_metrics and returns the rules that fire, each with its actions
 * resolved to values (engine names, windows, node GUIDs, strings) and an explanation of the
 * condition's values. The library decides; it executes nothing: the adaptation loop does, and
 * tells the state whether it did (cs_adapt_state_outcome). cs_adapt_replay steps the same rules
 * through recorded samples. docs/adapt/language.md is the language's manual: grammar, types,
 * the meaning of every metric over a window, hysteresis and cooldown.
 */
#ifndef CLOUDSM_ADAPT_H
#define CLOUDSM_ADAPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/metrics.h"

/* The types of the language (docs/adapt/language.md#types). */
enum cs_adapt_type {
    CS_ADAPT_NUMBER,     /* a plain number; 50% is the number 0.5 */
    CS_ADAPT_DURATION,   /* seconds */
    CS_ADAPT_RATE,       /* bytes per second */
    CS_ADAPT_COUNT_RATE, /* events per second: packets, wait ticks, errors */
    CS_ADAPT_BOOL,
    CS_ADAPT_STRING,
    CS_ADAPT_NODE_LIST, /* CA node GUIDs: top(node.METRIC, N) */
    CS_ADAPT_WEIGHTS,   /* learned(over D): node weights from receive rates over D */
    CS_ADAPT_PARAM,     /* the name of a parameter (set's param argument) */
    CS_ADAPT_ANY,       /* registry only: set's value, whose type is its parameter's */
    CS_ADAPT_TYPE_COUNT
};

/* "number", "duration", "rate", ...: the names error messages and docs use. */
const char *cs_adapt_type_name(enum cs_adapt_type t);

/* A value as evaluation resolves it. */
struct cs_adapt_value {
    enum cs_adapt_type type;
    /* NUMBER; DURATION in seconds; RATE in bytes/s; COUNT_RATE per second; BOOL 0 or 1;
     * WEIGHTS: the window in seconds the receive rates are averaged over. */
    double number;
    const char *text; /* STRING: the string; PARAM: the parameter's name */
    uint64_t *guids;  /* NODE_LIST: CA node GUIDs, busiest first */
    uint32_t num_guids;
};

/* The value as the language writes it: "2 GB/s", "90s", "0.5", "\"wftree\"", "true",
 * "learned(over 5m)", "[0x...,0x...]"; numbers with `digits` significant digits (17: exact, read
 * back by cs_adapt_set_param as the same value). Returns buf. */
char *cs_adapt_value_format(const struct cs_adapt_value *v, int digits, char *buf, size_t size);

/* ---- The action registry: one table for the checker, the CLI and the docs ---- */

#define CS_ADAPT_ACTION_ARGS_MAX 4

struct cs_adapt_arg_def {
    const char *name;
    enum cs_adapt_type type;
    bool required;
    const char *summary;
};

struct cs_adapt_action_def {
    const char *name;
    const char *summary;
    struct cs_adapt_arg_def args[CS_ADAPT_ACTION_ARGS_MAX + 1]; /* ends at a NULL name */
};

/* Every action, ending with a {NULL} entry. */
extern const struct cs_adapt_action_def cs_adapt_actions[];
const struct cs_adapt_action_def *cs_adapt_action_find(const char *name);

/* ---- Reading rules ---- */

struct cs_adapt_rules; /* opaque: parameters, rules in evaluation order */

/* Parse and type-check a rules file held in text (len bytes; need not end in NUL); name is
 * what error messages call it. On success *out holds the rules (free with cs_adapt_rules_free);
 * on failure *out is NULL and err says "name:line:column: what" (columns count bytes from 1). */
int cs_adapt_parse(const char *text, size_t len, const char *name, struct cs_adapt_rules **out,
                   struct cs_error *err);
/* cs_adapt_parse of a file (plain or gzip), named by its path. */
int cs_adapt_read(const char *path, struct cs_adapt_rules **out, struct cs_error *err);
void cs_adapt_rules_free(struct cs_adapt_rules *r);

/* Override parameter `name` with `value`, written as in the language ("3 GB/s", "45s", "0.8");
 * a string parameter also takes a bare word (wftree for "wftree"). The value must be a constant
 * of the parameter's declared type, and every rule must still check with it (windows above
 * zero, engine names the registry knows, ...); else nothing changes and err says why. */
int cs_adapt_set_param(struct cs_adapt_rules *r, const char *name, const char *value,
                       struct cs_error *err);

/* ---- What the rules say, for listings (cloudsm adapt check) ---- */

struct cs_adapt_param_info {
    const char *name;
    unsigned line, column;
    struct cs_adapt_value value; /* its type and current value (overrides applied) */
    bool overridden;             /* by cs_adapt_set_param */
};

struct cs_adapt_rule_info {
    const char *name;
    unsigned line, column;
    int priority;
    double for_s, cooldown_s; /* current values (overrides applied); 0 when not given */
    const char *condition;    /* the condition as read, in canonical form */
    uint32_t num_actions;
    const char *const *actions; /* each action in canonical form */
};

uint32_t cs_adapt_param_count(const struct cs_adapt_rules *r);
void cs_adapt_param_get(const struct cs_adapt_rules *r, uint32_t i, struct cs_adapt_param_info *p);
/* The longest `over` window any rule reads (learned() included), in seconds, with the
 * parameters' current values: how much history a caller must keep for the rules. */
double cs_adapt_rules_longest_window(const struct cs_adapt_rules *r);

/* Rules come in evaluation order: higher priority first, ties in file order. */
uint32_t cs_adapt_rule_count(const struct cs_adapt_rules *r);
void cs_adapt_rule_get(const struct cs_adapt_rules *r, uint32_t i, struct cs_adapt_rule_info *info);

/* ---- Evaluation ---- */

#define CS_ADAPT_EXPLAIN_MAX 1024

/* What a rule did at the last step. */
enum cs_adapt_status {
    CS_ADAPT_IDLE,      /* not evaluated yet */
    CS_ADAPT_FALSE,     /* the condition is false */
    CS_ADAPT_UNDEFINED, /* the condition cannot be evaluated (no samples in a window, ...) */
    CS_ADAPT_HOLDING,   /* true, but not yet for its `for` duration */
    CS_ADAPT_COOLDOWN,  /* true long enough, but it fired less than `cooldown` ago */
    CS_ADAPT_FIRED,     /* fired at this step */
};
const char *cs_adapt_status_name(enum cs_adapt_status s);

/* What the loop did with a firing: told by cs_adapt_state_outcome. The cooldown starts when the
 * rule fires, whether the loop then executes the actions or refuses them. */
enum cs_adapt_outcome { CS_ADAPT_PENDING, CS_ADAPT_EXECUTED, CS_ADAPT_REFUSED };

struct cs_adapt_rule_state {
    bool holding;      /* the condition has been true at every step since held_since */
    double held_since; /* (holding) the first of those steps, or the last firing */
    bool has_fired;
    double last_fired;
    enum cs_adapt_status status;            /* at the last step */
    bool changed;                           /* status differs from the step before, or fired */
    enum cs_adapt_outcome outcome;          /* of the last firing */
    uint32_t fired, executed, refused;      /* counts */
    char explanation[CS_ADAPT_EXPLAIN_MAX]; /* the last step's values, or why undefined */
};

struct cs_adapt_state {
    struct cs_adapt_rule_state *rules; /* indexed like the rules (evaluation order) */
    uint32_t num_rules;
    bool stepped;
    double last_step; /* time of the last step (stepped) */
};

int cs_adapt_state_init(struct cs_adapt_state *s, const struct cs_adapt_rules *r,
                        struct cs_error *err);
void cs_adapt_state_free(struct cs_adapt_state *s);
/* The loop executed (true) or refused (false) the last firing of rule `rule`. */
void cs_adapt_state_outcome(struct cs_adapt_state *s, uint32_t rule, bool executed);

/* One resolved action: its registry entry's name and the arguments given, each resolved. */
struct cs_adapt_action_arg {
    const char *name; /* the registry's argument name */
    struct cs_adapt_value value;
};
struct cs_adapt_action {
    const char *name; /* the registry's action name */
    struct cs_adapt_action_arg *args;
    uint32_t num_args;
};
/* The value of argument `name`, or NULL if the rule did not give it. */
const struct cs_adapt_value *cs_adapt_action_arg(const struct cs_adapt_action *a, const char *name);

struct cs_adapt_firing {
    uint32_t rule;         /* index in evaluation order */
    const char *rule_name; /* points into the rules */
    int priority;
    double time;
    char explanation[CS_ADAPT_EXPLAIN_MAX]; /* the condition with its sub-values */
    struct cs_adapt_action *actions;
    uint32_t num_actions;
};
void cs_adapt_firings_free(struct cs_adapt_firing *f, uint32_t count);

/* Evaluate every rule at time `now` (seconds since the epoch) over m, in evaluation order, and
 * return in *firings (*count of them; NULL and 0 if none) the rules that fire now: their
 * condition is true and has been at every step for at least their `for` duration, and they are
 * not in cooldown. Only samples that ended by `now` count. s must come from cs_adapt_state_init
 * with the same rules; steps must not go back in time. Returns 0, or -1 with err set (out of
 * memory, time going back) and s unchanged. */
int cs_adapt_step(const struct cs_adapt_rules *r, struct cs_adapt_state *s,
                  const struct cs_metrics *m, double now, struct cs_adapt_firing **firings,
                  uint32_t *count, struct cs_error *err);

/* One step's report, as text: a line per rule whose status changed or that fired, then a line
 * per resolved action of each firing ("TIME RULE fired: ...", "TIME RULE -> reroute(...)"). */
int cs_adapt_write_step(FILE *out, const struct cs_adapt_rules *r, const struct cs_adapt_state *s,
                        double now, const struct cs_adapt_firing *firings, uint32_t count,
                        struct cs_error *err);

/* Called after each replayed step; a non-zero return stops the replay, which returns it. */
typedef int (*cs_adapt_replay_fn)(void *ctx, double now, const struct cs_adapt_state *s,
                                  const struct cs_adapt_firing *firings, uint32_t count);

/* Step the rules through recorded samples in time order, from a fresh state: at every distinct
 * sample time (step_s 0), or every step_s seconds from the first sample's time to the last.
 * Each step sees only the samples that ended by its time; nothing is executed (every firing
 * counts as executed). Deterministic: the same input gives the same calls. Returns 0, -1 with
 * err set, or the callback's non-zero return. */
int cs_adapt_replay(const struct cs_adapt_rules *r, const struct cs_metrics *recorded,
                    double step_s, cs_adapt_replay_fn fn, void *ctx, struct cs_error *err);

#endif
