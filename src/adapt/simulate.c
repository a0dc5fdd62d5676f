/* The adaptation loop simulated over a recording (include/cloudsm/adapt_simulate.h): the
 * replay's walk (replay.h), and per firing what src/sm/core_adapt.c does, with the SM's parts
 * (sending tables, the audit, partitions, VMs) left out. */
#include "cloudsm/adapt_simulate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/replay.h"
#include "core/grow.h"

struct sim {
    struct cs_adapt_rules *rules;
    const struct cs_adapt_sim_options *o;
    struct cs_adapt_state state;
    struct cs_lfts tables; /* in force */
    struct cs_route_state *route_state;
    struct cs_adapt_budget budget;
    cs_adapt_sim_fn fn;
    void *ctx;
    struct cs_adapt_sim_totals totals;
    struct cs_error *err;
};

/* The traffic window of an action that learns nothing: the last sample's interval (the live
 * loop's last poll interval); 0 before any sample. */
static double last_interval(const struct cs_metrics *view)
{
    return view->num_samples ? view->samples[view->num_samples - 1].interval : 0;
}

static void reroute(struct sim *s, const struct cs_adapt_action *a, double now,
                    const struct cs_metrics *view, struct cs_adapt_sim_decision *d)
{
    const struct cs_adapt_sim_options *o = s->o;
    struct cs_adapt_plan_context ctx = {
        .fabric = o->fabric,
        .current = &s->tables,
        .inputs = {.state = s->route_state},
        .t_smp_ms = o->t_smp_ms,
        .metrics = view,
        .now = now,
        .default_window = last_interval(view),
        .min_gain = o->policy.min_gain_percent / 100.0,
        .max_smps = cs_adapt_budget_left(&o->policy, &s->budget, now),
    };
    struct cs_error why = {""};
    if (cs_adapt_plan_reroute(&ctx, a, &d->plan, &why) < 0) {
        cs_adapt_plan_free(&d->plan);
        d->verdict_name = "unplannable";
        snprintf(d->why, sizeof d->why, "%s", why.msg);
        return;
    }
    const struct cs_candidate *cand = &d->plan.candidate;
    d->planned = true;
    d->distribute_ms = (double)cand->blocks * o->t_smp_ms;
    d->decided = true;
    d->verdict = cs_adapt_decide(&o->policy, &s->budget, now, cs_adapt_minute_of_day(now, o->utc),
                                 false, cand->gain, cand->blocks, d->why, sizeof d->why);
    d->verdict_name = cs_adapt_verdict_name(d->verdict, o->policy.mode);
    s->totals.reroutes++;
    if (d->verdict != CS_ADAPT_EXECUTE)
        return;
    /* The SM routes again with the same engine and inputs: the candidate's tables. */
    cs_lfts_free(&s->tables);
    s->tables = d->plan.candidate.lfts;
    memset(&d->plan.candidate.lfts, 0, sizeof d->plan.candidate.lfts);
    cs_adapt_budget_spend(&s->budget, now, cand->blocks);
    d->executed = true;
    s->totals.executions++;
    s->totals.smps += cand->blocks;
}

/* set(param, value): applied in mode on, as the loop applies it. */
static void set_param(struct sim *s, const struct cs_adapt_action *a,
                      struct cs_adapt_sim_decision *d)
{
    const struct cs_adapt_value *param = cs_adapt_action_arg(a, "param");
    const struct cs_adapt_value *value = cs_adapt_action_arg(a, "value");
    char exact[512], shown[512]; /* exact: read back as the same value; shown: for people */
    cs_adapt_value_format(value, 17, exact, sizeof exact);
    cs_adapt_value_format(value, 15, shown, sizeof shown);
    struct cs_error err = {""};
    if (s->o->policy.mode != CS_ADAPT_MODE_ON) {
        d->verdict_name = cs_adapt_mode_name(s->o->policy.mode);
        snprintf(d->why, sizeof d->why, "would set %.64s = %.400s", param->text, shown);
    } else if (cs_adapt_set_param(s->rules, param->text, exact, &err) < 0) {
        d->verdict_name = "failed";
        snprintf(d->why, sizeof d->why, "set %.64s: %.400s", param->text, err.msg);
    } else {
        d->verdict_name = "execute";
        d->executed = true;
        snprintf(d->why, sizeof d->why, "%.64s = %.400s", param->text, shown);
    }
}

static void act(struct sim *s, const struct cs_adapt_action *a, double now,
                const struct cs_metrics *view, struct cs_adapt_sim_decision *d)
{
    if (strcmp(a->name, "reroute") == 0) {
        reroute(s, a, now, view, d);
    } else if (strcmp(a->name, "set") == 0) {
        set_param(s, a, d);
    } else if (strcmp(a->name, "log") == 0) {
        d->verdict_name = "execute";
        d->executed = true;
        snprintf(d->why, sizeof d->why, "%s", cs_adapt_action_arg(a, "message")->text);
    } else {
        d->verdict_name = "not-simulated";
        snprintf(d->why, sizeof d->why, "%s: the recording has no %s", a->name,
                 strcmp(a->name, "migrate") == 0 ? "VMs" : "partitions' policies");
    }
}

static void decisions_free(struct cs_adapt_sim_decision *d, uint32_t count)
{
    for (uint32_t i = 0; d != NULL && i < count; i++)
        cs_adapt_plan_free(&d[i].plan);
    free(d);
}

static int sim_step(void *arg, double now, const struct cs_metrics *view)
{
    struct sim *s = arg;
    struct cs_adapt_firing *firings;
    uint32_t count;
    if (cs_adapt_step(s->rules, &s->state, view, now, &firings, &count, s->err) < 0)
        return -1;
    uint32_t num = 0;
    for (uint32_t i = 0; s->o->fabric != NULL && i < count; i++)
        num += firings[i].num_actions;
    struct cs_adapt_sim_decision *decisions = NULL;
    if (num > 0 && (decisions = cs_calloc_array(num, sizeof(*decisions), s->err)) == NULL) {
        cs_adapt_firings_free(firings, count);
        return -1;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < count; i++) {
        const struct cs_adapt_firing *f = &firings[i];
        bool executed = s->o->fabric == NULL; /* firings only: as a replay */
        for (uint32_t k = 0; s->o->fabric != NULL && k < f->num_actions; k++) {
            struct cs_adapt_sim_decision *d = &decisions[n++];
            d->firing = i;
            d->action = k;
            act(s, &f->actions[k], now, view, d);
            executed |= d->executed;
        }
        cs_adapt_state_outcome(&s->state, f->rule, executed);
    }
    if (s->totals.steps++ == 0)
        s->totals.first = now;
    s->totals.last = now;
    s->totals.firings += count;
    struct cs_adapt_sim_step step = {
        .now = now,
        .state = &s->state,
        .firings = firings,
        .num_firings = count,
        .decisions = decisions,
        .num_decisions = n,
        .tables = s->o->fabric ? &s->tables : NULL,
    };
    int rc = s->fn(s->ctx, &step);
    decisions_free(decisions, n);
    cs_adapt_firings_free(firings, count);
    return rc;
}

/* The parameters' values as the language writes them (17 digits: exact), to restore. */
static char **params_save(const struct cs_adapt_rules *r, struct cs_error *err)
{
    uint32_t n = cs_adapt_param_count(r);
    char **saved = cs_calloc_array(n + 1, sizeof(*saved), err);
    for (uint32_t i = 0; saved != NULL && i < n; i++) {
        struct cs_adapt_param_info p;
        char text[512];
        cs_adapt_param_get(r, i, &p);
        if ((saved[i] = strdup(cs_adapt_value_format(&p.value, 17, text, sizeof text))) == NULL) {
            for (uint32_t k = 0; k < i; k++)
                free(saved[k]);
            free(saved);
            cs_fail(err, "out of memory");
            return NULL;
        }
    }
    return saved;
}

/* Back to the saved values, where a set changed them. */
static int params_restore(struct cs_adapt_rules *r, char **saved, struct cs_error *err)
{
    int rc = 0;
    for (uint32_t i = 0; i < cs_adapt_param_count(r); i++) {
        struct cs_adapt_param_info p;
        char text[512];
        cs_adapt_param_get(r, i, &p);
        if (rc == 0 && strcmp(cs_adapt_value_format(&p.value, 17, text, sizeof text), saved[i]))
            rc = cs_adapt_set_param(r, p.name, saved[i], err);
        free(saved[i]);
    }
    free(saved);
    return rc;
}

int cs_adapt_simulate(struct cs_adapt_rules *rules, const struct cs_metrics *recorded,
                      const struct cs_adapt_sim_options *o, cs_adapt_sim_fn fn, void *ctx,
                      struct cs_adapt_sim_totals *totals, struct cs_error *err)
{
    if (o->fabric != NULL && o->lfts == NULL)
        return cs_fail(err, "a simulation with a fabric needs the tables in force at the start");
    if (!(o->t_smp_ms >= 0))
        return cs_fail(err, "a time per SMP of %g ms: want 0 (unknown) or more", o->t_smp_ms);
    struct sim s = {.rules = rules, .o = o, .fn = fn, .ctx = ctx, .err = err};
    char **saved = params_save(rules, err);
    if (saved == NULL)
        return -1;
    int rc = cs_adapt_state_init(&s.state, rules, err);
    if (rc == 0 && o->fabric != NULL) {
        s.route_state = cs_route_state_new();
        rc = s.route_state == NULL ? cs_fail(err, "out of memory")
                                   : cs_lfts_copy(&s.tables, o->lfts, err);
    }
    if (rc == 0)
        rc = adapt_replay_walk(recorded, o->step_s, sim_step, &s, err);
    struct cs_error restore_err;
    if (params_restore(rules, saved, &restore_err) < 0 && rc == 0) {
        *err = restore_err;
        rc = -1;
    }
    if (totals != NULL)
        *totals = s.totals;
    cs_adapt_state_free(&s.state);
    cs_route_state_free(s.route_state);
    cs_lfts_free(&s.tables);
    return rc;
}
