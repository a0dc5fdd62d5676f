/* The adaptation loop of a serving master (core_internal.h), run after every counter poll: the
 * monitor's samples (c->perf.metrics) are the knowledge, the rules (files.adapt_rules) analyse
 * them, each firing rule's actions are planned (adapt_plan.h: a candidate's cost and expected
 * gain), decided (adapt_decision.h: the operator's limits) and carried out through the core,
 * and every decision is recorded in the monitoring store as an "adapt" event, to which the
 * measured effect is added after the next poll. docs/adapt/loop.md describes it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/adapt_plan.h"
#include "cloudsm/analyze.h"
#include "cloudsm/json.h"
#include "cloudsm/traffic.h"
#include "core_internal.h"

enum cs_adapt_mode cs_sm_core_adapt_mode(const struct cs_sm_core *c)
{
    if (c->adapt_mode_override >= 0)
        return (enum cs_adapt_mode)c->adapt_mode_override;
    return (enum cs_adapt_mode)c->cfg.adapt_mode;
}

static struct cs_adapt_policy policy_of(const struct cs_sm_core *c)
{
    struct cs_adapt_policy p = {
        .mode = cs_sm_core_adapt_mode(c),
        .min_gain_percent = c->cfg.adapt_min_gain_percent,
        .max_smps_per_percent = c->cfg.adapt_max_smps_per_percent,
        .max_smps_per_hour = c->cfg.adapt_max_smps_per_hour,
    };
    struct cs_error ignored; /* the configuration checked the window already */
    cs_adapt_quiet_hours_parse(&p, c->cfg.adapt_quiet_hours, &ignored);
    return p;
}

/* The congestion cost of the traffic measured over [since, until] on the tables in force, and
 * the mean of what each CA port sent and received (bytes/s): the effect an audit record gets. */
struct measured {
    bool valid;
    double congestion_cost, max_utilisation, throughput;
};

static struct measured measure(struct cs_sm_core *c, double since, double until)
{
    struct measured m = {0};
    double *xmit = NULL, *rcv = NULL;
    struct cs_error err;
    if (!(until > since) ||
        cs_adapt_traffic(&c->sweep.fabric, &c->perf.metrics, since, until, &xmit, &rcv, &err) < 0)
        return m;
    struct cs_tracer t;
    struct cs_traffic_load load;
    if (cs_tracer_init(&t, &c->sweep.fabric, &c->lfts, &err) == 0) {
        if (cs_traffic_load(&t, xmit, rcv, &load, &err) == 0) {
            unsigned ports = 0;
            for (uint32_t p = 0; p < c->sweep.fabric.num_port_slots; p++)
                if (xmit[p] > 0 || rcv[p] > 0) {
                    m.throughput += xmit[p] + rcv[p];
                    ports++;
                }
            m.throughput = ports ? m.throughput / ports : 0;
            m.congestion_cost = load.congestion_cost;
            m.max_utilisation = load.max_utilisation;
            m.valid = true;
            cs_traffic_load_free(&load);
        }
        cs_tracer_free(&t);
    }
    free(xmit);
    free(rcv);
    return m;
}

/* An audit record: the event's detail is built by the caller into a memory stream. */
struct audit {
    char *json;
    size_t len;
    FILE *out;
    struct cs_json j;
};

static bool audit_begin(struct audit *a)
{
    memset(a, 0, sizeof(*a));
    a->out = open_memstream(&a->json, &a->len);
    if (a->out == NULL)
        return false;
    cs_json_init(&a->j, a->out);
    cs_json_object_begin(&a->j, NULL);
    return true;
}

static void audit_end(struct cs_sm_core *c, struct audit *a, double now, const char *rule,
                      const char *text, int64_t *id)
{
    *id = -1;
    if (a->out == NULL)
        return;
    cs_json_object_end(&a->j);
    cs_json_finish(&a->j);
    fclose(a->out);
    struct cs_error err;
    if (c->monitor != NULL && cs_monitor_put_event(c->monitor, now, CS_MONITOR_EVENT_ADAPT, rule,
                                                   text, a->json, id, &err) < 0)
        cs_logf(&c->log, CS_LOG_ERROR, "adapt: audit record: %s", err.msg);
    free(a->json);
}

/* What one action came to. */
struct action_outcome {
    bool executed;
};

static bool sm_busy(const struct cs_sm_core *c)
{
    /* A failed sweep to retry, VM operations whose LIDs guid2lid does not have yet, or a heavy
     * sweep since the samples' fabric was set: the knowledge is not of the fabric in force. */
    return c->retry || c->guid2lid_stale || c->perf_sweeps != c->sweeps;
}

/* Plan, decide and carry out a reroute; audit it. */
static void do_reroute(struct cs_sm_core *c, const struct cs_adapt_firing *f,
                       const struct cs_adapt_action *a, double now, struct action_outcome *o)
{
    struct cs_adapt_policy policy = policy_of(c);
    struct cs_adapt_plan_context ctx = {
        .fabric = &c->sweep.fabric,
        .current = &c->lfts,
        .options = cs_sm_core_route_options(c),
        .inputs = cs_sm_core_route_inputs(c, NULL, 0),
        .t_smp_ms = c->t_smp_ms,
        .metrics = &c->perf.metrics,
        .now = now,
        .default_window = c->perf.last_poll_interval_s,
        .min_gain = c->cfg.adapt_min_gain_percent / 100.0,
        .max_smps = cs_adapt_budget_left(&policy, &c->adapt_budget, now),
    };
    ctx.inputs.log = NULL; /* a candidate's routing is not the SM's: keep its chatter out */
    struct cs_adapt_plan plan;
    struct cs_error err = {""};
    struct audit au;
    bool have_audit = audit_begin(&au);
    if (have_audit) {
        cs_json_str(&au.j, "rule", f->rule_name);
        cs_json_str(&au.j, "why", f->explanation);
        cs_json_str(&au.j, "action", "reroute");
    }
    char text[CS_ERROR_MAX + 256];
    int64_t id;
    if (cs_adapt_plan_reroute(&ctx, a, &plan, &err) < 0) {
        cs_logf(&c->log, CS_LOG_WARN, "adapt: rule %s: reroute cannot be planned: %s", f->rule_name,
                err.msg);
        if (have_audit) {
            cs_json_str(&au.j, "verdict", "unplannable");
            cs_json_str(&au.j, "error", err.msg);
        }
        snprintf(text, sizeof text, "rule %s: reroute: not planned: %s", f->rule_name, err.msg);
        audit_end(c, &au, now, f->rule_name, text, &id);
        cs_adapt_plan_free(&plan);
        return;
    }
    const struct cs_candidate *cand = &plan.candidate;
    char why[CS_ERROR_MAX];
    enum cs_adapt_verdict v =
        cs_adapt_decide(&policy, &c->adapt_budget, now, cs_adapt_minute_of_day(now, false),
                        sm_busy(c), cand->gain, cand->blocks, why, sizeof why);
    const char *verdict = cs_adapt_verdict_name(v, policy.mode);
    struct cs_sm_reconfig done = {0};
    bool executed = false;
    if (v == CS_ADAPT_EXECUTE) {
        struct cs_sm_reroute_request rq = {
            .engine = plan.engine,
            .subtree = plan.subtree,
            .num_subtree = plan.num_subtree,
            .order_file = plan.order_file,
            .weights = plan.has_weights ? &plan.weights : NULL,
        };
        if (cs_sm_core_reroute(c, &rq, &done, &err) < 0) {
            cs_logf(&c->log, CS_LOG_ERROR, "adapt: rule %s: reroute failed: %s", f->rule_name,
                    err.msg);
            verdict = "failed";
            snprintf(why, sizeof why, "%s", err.msg);
        } else {
            executed = true;
            cs_adapt_budget_spend(&c->adapt_budget, now, done.lc.blocks_sent);
            if (done.lc.blocks_sent != cand->blocks)
                cs_logf(&c->log, CS_LOG_WARN,
                        "adapt: rule %s: planned %llu LFT SMPs, sent %llu (the tables held "
                        "differed from the SM's copy)",
                        f->rule_name, (unsigned long long)cand->blocks,
                        (unsigned long long)done.lc.blocks_sent);
        }
    }
    cs_logf(&c->log, CS_LOG_INFO,
            "adapt: rule %s: reroute(%s%s): %llu LFT SMPs (%.1f ms predicted), congestion cost "
            "%.4g -> %.4g (%.1f%%): %s: %s",
            f->rule_name, plan.engine, plan.has_weights ? ", learned weights" : "",
            (unsigned long long)cand->blocks, cand->predicted_ms, cand->cost_before,
            cand->cost_after, cand->gain * 100, verdict, why);
    if (have_audit) {
        cs_adapt_plan_json(&au.j, &plan, true);
        cs_json_str(&au.j, "verdict", verdict);
        cs_json_str(&au.j, "reason", why);
        cs_json_str(&au.j, "mode", cs_adapt_mode_name(policy.mode));
        if (executed) {
            cs_json_object_begin(&au.j, "executed");
            cs_json_str(&au.j, "engine", done.engine);
            cs_json_u64(&au.j, "lft_smps", done.lc.blocks_sent);
            cs_json_u64(&au.j, "ca_entries_changed", done.entries_changed);
            cs_json_u64(&au.j, "paths_changed", done.paths_changed);
            cs_json_u64(&au.j, "failures", done.lc.failures);
            cs_json_double(&au.j, "route_ms", done.route_ms);
            cs_json_double(&au.j, "distribute_ms", done.distribute_ms);
            cs_json_object_end(&au.j);
        }
    }
    snprintf(text, sizeof text,
             "rule %s: reroute(%s): %llu LFT SMPs for %.1f%% less congestion: %s", f->rule_name,
             plan.engine, (unsigned long long)cand->blocks, cand->gain * 100, verdict);
    audit_end(c, &au, now, f->rule_name, text, &id);
    if (executed) {
        /* The effect is measured on the traffic after the change, at the next poll. */
        c->adapt_effect = (struct cs_sm_adapt_effect){
            .pending = true,
            .event = id,
            .executed_at = now,
            .window = plan.traffic_until - plan.traffic_since,
            .cost_before = cand->cost_before,
            .expected_after = cand->cost_after,
        };
        c->adapt_executed++;
    }
    o->executed = executed;
    cs_adapt_plan_free(&plan);
}

/* set_policy(partition, isolation): the partition's policy in the SM's partitions, then a
 * re-routing with the engine in use, planned and decided as any other. */
static void do_set_policy(struct cs_sm_core *c, const struct cs_adapt_firing *f,
                          const struct cs_adapt_action *a, double now, struct action_outcome *o)
{
    const char *name = cs_adapt_action_arg(a, "partition")->text;
    const char *isolation = cs_adapt_action_arg(a, "isolation")->text;
    struct cs_partition *p = NULL;
    for (uint32_t i = 0; i < c->files.partitions.count; i++)
        if (strcmp(c->files.partitions.partitions[i].name, name) == 0)
            p = &c->files.partitions.partitions[i];
    int level = cs_isolation_parse(isolation);
    if (p == NULL || level < 0) {
        cs_logf(&c->log, CS_LOG_WARN, "adapt: rule %s: set_policy: no partition \"%s\"",
                f->rule_name, name);
        return;
    }
    uint8_t was = p->isolation;
    bool was_set = p->isolation_set;
    p->isolation = (uint8_t)level;
    p->isolation_set = true;
    struct cs_adapt_value engine = {.type = CS_ADAPT_STRING, .text = c->engine};
    struct cs_adapt_action_arg arg = {.name = "engine", .value = engine};
    struct cs_adapt_action reroute = {.name = "reroute", .args = &arg, .num_args = 1};
    do_reroute(c, f, &reroute, now, o);
    if (!o->executed) { /* the policy goes with the routing that applies it */
        p->isolation = was;
        p->isolation_set = was_set;
    }
}

/* migrate(vm, to): to is the destination hypervisor's node GUID or description. */
static void do_migrate(struct cs_sm_core *c, const struct cs_adapt_firing *f,
                       const struct cs_adapt_action *a, double now, struct action_outcome *o)
{
    const char *vm = cs_adapt_action_arg(a, "vm")->text;
    const char *to = cs_adapt_action_arg(a, "to")->text;
    uint64_t hyp = 0;
    char *end;
    unsigned long long g = strtoull(to, &end, 0);
    if (*to && *end == '\0')
        hyp = g;
    for (uint32_t n = 0; hyp == 0 && n < c->sweep.fabric.num_nodes; n++)
        if (strcmp(c->sweep.fabric.nodes[n].desc, to) == 0)
            hyp = c->sweep.fabric.nodes[n].guid;
    struct cs_adapt_policy policy = policy_of(c);
    char why[CS_ERROR_MAX] = "";
    bool go = policy.mode == CS_ADAPT_MODE_ON && !sm_busy(c) && hyp != 0;
    if (hyp == 0)
        snprintf(why, sizeof why, "no hypervisor \"%s\"", to);
    else if (!go)
        snprintf(why, sizeof why, "%s",
                 policy.mode != CS_ADAPT_MODE_ON ? cs_adapt_mode_name(policy.mode)
                                                 : "the SM is busy");
    struct cs_sm_vm_job job;
    memset(&job, 0, sizeof job);
    snprintf(job.name, sizeof job.name, "%s", vm);
    job.req = (struct cs_vm_request){.op = CS_VM_MIGRATE, .name = job.name, .hypervisor = hyp};
    struct cs_error err = {""};
    if (go && (cs_sm_core_vm_run(c, &job, 1, &err) < 0 || job.status != 0)) {
        snprintf(why, sizeof why, "%s", job.status != 0 ? job.error.msg : err.msg);
        go = false;
    } else if (go) {
        o->executed = true;
        c->adapt_executed++;
        snprintf(why, sizeof why, "%llu SMPs", (unsigned long long)job.result.total_smps);
        cs_adapt_budget_spend(&c->adapt_budget, now, job.result.total_smps);
    }
    cs_logf(&c->log, CS_LOG_INFO, "adapt: rule %s: migrate %s to %s: %s: %s", f->rule_name, vm, to,
            go ? "executed" : "not executed", why);
    struct audit au;
    if (audit_begin(&au)) {
        cs_json_str(&au.j, "rule", f->rule_name);
        cs_json_str(&au.j, "why", f->explanation);
        cs_json_str(&au.j, "action", "migrate");
        cs_json_str(&au.j, "vm", vm);
        cs_json_str(&au.j, "to", to);
        cs_json_str(&au.j, "verdict", go ? "execute" : "refused");
        cs_json_str(&au.j, "reason", why);
    }
    char text[CS_ERROR_MAX + 256];
    snprintf(text, sizeof text, "rule %s: migrate %s to %s: %s", f->rule_name, vm, to,
             go ? "executed" : why);
    int64_t id;
    audit_end(c, &au, now, f->rule_name, text, &id);
}

static void do_action(struct cs_sm_core *c, const struct cs_adapt_firing *f,
                      const struct cs_adapt_action *a, double now, struct action_outcome *o)
{
    if (strcmp(a->name, "reroute") == 0) {
        do_reroute(c, f, a, now, o);
    } else if (strcmp(a->name, "set_policy") == 0) {
        do_set_policy(c, f, a, now, o);
    } else if (strcmp(a->name, "migrate") == 0) {
        do_migrate(c, f, a, now, o);
    } else if (strcmp(a->name, "set") == 0) {
        const struct cs_adapt_value *param = cs_adapt_action_arg(a, "param");
        const struct cs_adapt_value *value = cs_adapt_action_arg(a, "value");
        char text[128];
        struct cs_error err = {""};
        cs_adapt_value_format(value, 17, text, sizeof text);
        if (cs_sm_core_adapt_mode(c) != CS_ADAPT_MODE_ON)
            cs_logf(&c->log, CS_LOG_INFO, "adapt: rule %s: set %s = %s: %s", f->rule_name,
                    param->text, text, cs_adapt_mode_name(cs_sm_core_adapt_mode(c)));
        else if (cs_adapt_set_param(c->files.adapt_rules, param->text, text, &err) < 0)
            cs_logf(&c->log, CS_LOG_WARN, "adapt: rule %s: set %s: %s", f->rule_name, param->text,
                    err.msg);
        else {
            cs_logf(&c->log, CS_LOG_INFO, "adapt: rule %s: set %s = %s", f->rule_name, param->text,
                    text);
            o->executed = true;
        }
    } else if (strcmp(a->name, "log") == 0) {
        const char *message = cs_adapt_action_arg(a, "message")->text;
        cs_logf(&c->log, CS_LOG_INFO, "adapt: rule %s: %s (%s)", f->rule_name, message,
                f->explanation);
        int64_t id;
        struct cs_error err;
        if (c->monitor != NULL && cs_monitor_put_event(c->monitor, now, CS_MONITOR_EVENT_ADAPT,
                                                       f->rule_name, message, NULL, &id, &err) < 0)
            cs_logf(&c->log, CS_LOG_ERROR, "adapt: %s", err.msg);
        o->executed = true;
    }
}

/* The last execution's measured effect, once a poll after it has samples. */
static void measure_effect(struct cs_sm_core *c, double now)
{
    struct cs_sm_adapt_effect *e = &c->adapt_effect;
    if (!e->pending || !(now > e->executed_at))
        return;
    e->pending = false;
    double window = fmin(e->window, now - e->executed_at);
    struct measured before = measure(c, e->executed_at - e->window, e->executed_at);
    struct measured after = measure(c, now - window, now);
    if (!after.valid || c->monitor == NULL || e->event < 0)
        return;
    struct audit au;
    if (!audit_begin(&au))
        return;
    cs_json_object_begin(&au.j, "effect");
    cs_json_double_exact(&au.j, "measured_at", now);
    cs_json_double(&au.j, "window_s", window);
    cs_json_double(&au.j, "congestion_cost_expected", e->expected_after);
    cs_json_double(&au.j, "congestion_cost", after.congestion_cost);
    cs_json_double(&au.j, "max_utilisation", after.max_utilisation);
    cs_json_double(&au.j, "throughput_per_port", after.throughput);
    if (before.valid)
        cs_json_double(&au.j, "throughput_per_port_before", before.throughput);
    cs_json_object_end(&au.j);
    cs_json_object_end(&au.j);
    cs_json_finish(&au.j);
    fclose(au.out);
    struct cs_error err;
    if (cs_monitor_amend_event(c->monitor, e->event, au.json, &err) < 0)
        cs_logf(&c->log, CS_LOG_ERROR, "adapt: effect: %s", err.msg);
    cs_logf(&c->log, CS_LOG_INFO,
            "adapt: effect of the last reroute: congestion cost %.4g (expected %.4g), throughput "
            "per port %.4g B/s (before %.4g)",
            after.congestion_cost, e->expected_after, after.throughput, before.throughput);
    free(au.json);
}

int cs_sm_core_adapt_turn(struct cs_sm_core *c, double now, struct cs_error *err)
{
    measure_effect(c, now);
    struct cs_adapt_rules *rules = c->files.adapt_rules;
    if (rules == NULL || cs_sm_core_adapt_mode(c) == CS_ADAPT_MODE_OFF)
        return 0;
    /* Keep the samples the longest window reads (and two polls more), at least the default. */
    c->perf.keep_s = fmax(CS_SM_CORE_MONITOR_KEEP_S,
                          cs_adapt_rules_longest_window(rules) + 2.0 * c->cfg.perfmgr_sweep_time_s);
    if (c->adapt_rules != rules) { /* new rules (start, SIGHUP): fresh timers */
        cs_adapt_state_free(&c->adapt);
        if (cs_adapt_state_init(&c->adapt, rules, err) < 0)
            return -1;
        c->adapt_rules = rules;
    }
    struct cs_adapt_firing *firings = NULL;
    uint32_t count = 0;
    if (cs_adapt_step(rules, &c->adapt, &c->perf.metrics, now, &firings, &count, err) < 0)
        return -1;
    /* Status changes at DEBUG (a rule holding, false again); firings at INFO below. */
    char *report = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&report, &len);
    if (out != NULL) {
        struct cs_error ignored;
        cs_adapt_write_step(out, rules, &c->adapt, now, NULL, 0, &ignored);
        fclose(out);
        for (char *line = strtok(report, "\n"); line != NULL; line = strtok(NULL, "\n"))
            cs_logf(&c->log, CS_LOG_DEBUG, "adapt: %s", line);
        free(report);
    }
    for (uint32_t i = 0; i < count; i++) {
        const struct cs_adapt_firing *f = &firings[i];
        cs_logf(&c->log, CS_LOG_INFO, "adapt: rule %s fired: %s", f->rule_name, f->explanation);
        c->adapt_firings++;
        struct action_outcome any = {false};
        for (uint32_t k = 0; k < f->num_actions; k++) {
            struct action_outcome o = {false};
            do_action(c, f, &f->actions[k], now, &o);
            any.executed |= o.executed;
        }
        cs_adapt_state_outcome(&c->adapt, f->rule, any.executed);
    }
    cs_adapt_firings_free(firings, count);
    return 0;
}
