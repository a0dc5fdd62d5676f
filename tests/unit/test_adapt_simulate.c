/* The adaptation loop simulated over a recording (src/adapt/simulate.c): hot receivers on a
 * 4-ary-2-tree routed by ftree (tests/lib/hot_receivers.h) make a rule fire, its reroute is
 * planned and executed (the tables in force become wftree's with the learned weights), a second
 * firing in the same hot phase finds nothing to change, and nothing fires once the phase ends.
 * Then: the same twice gives the same, dry-run changes nothing, the operator's limits refuse,
 * without a fabric it is a replay, and set / log / migrate as the loop treats them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "../lib/hot_receivers.h"
#include "analyze_fixtures.h"
#include "cloudsm/adapt_simulate.h"
#include "route_fixtures.h"

#define T0 1795766400.0 /* 2026-11-27T08:00:00Z */

static const char hot_rules[] =
    "rule hot_receivers {\n"
    "    when max(node.rcv_bytes over 4s) > 3 * avg(node.rcv_bytes over 4s)\n"
    "         and avg(node.rcv_bytes over 4s) > 100 MB/s\n"
    "    for 2s\n"
    "    cooldown 20s\n"
    "    then reroute(engine = \"wftree\", weights = learned(over 4s))\n"
    "}\n";

/* The fabric routed by ftree, and the recording over it. */
struct world {
    struct cs_fabric f;
    struct cs_lfts ftree;
    struct cs_metrics m;
};

static void world_init(struct world *w)
{
    struct cs_error err = {""};
    rt_generate(&w->f, "2;4,4;1,4;1,1");
    rt_route("ftree", &w->f, NULL, &w->ftree);
    cs_metrics_init(&w->m);
    if (cs_metrics_set_fabric(&w->m, &w->f, NULL, &err) < 0 || hr_record(&w->m, &w->f, T0, &err))
        fail_msg("%s", err.msg);
}

static void world_free(struct world *w)
{
    cs_metrics_free(&w->m);
    cs_lfts_free(&w->ftree);
    cs_fabric_free(&w->f);
}

static struct cs_adapt_rules *parse(const char *text)
{
    struct cs_adapt_rules *r = NULL;
    struct cs_error err = {""};
    if (cs_adapt_parse(text, strlen(text), "t.rules", &r, &err) != 0)
        fail_msg("%s", err.msg);
    return r;
}

/* Each test's world and the hot-receivers rules. */
struct fixture {
    struct world w;
    struct cs_adapt_rules *rules;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    assert_non_null(fx);
    world_init(&fx->w);
    fx->rules = parse(hot_rules);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    cs_adapt_rules_free(fx->rules);
    world_free(&fx->w);
    free(fx);
    return 0;
}

#define SEEN_MAX 128

/* One decision as reported, kept past the callback. */
struct seen {
    double time;
    char verdict[32];
    char why[CS_ERROR_MAX];
    bool executed, planned;
    uint64_t smps;
    double gain, distribute_ms;
    struct cs_node_weights weights;
};

/* What a simulation reported: its deterministic text (the steps as cs_adapt_write_step writes
 * them, each decision's numbers to the last digit), the firings' times, the decisions, the tables
 * in force after the first execution and at the end. */
struct record {
    const struct cs_adapt_rules *rules;
    char *text;
    size_t len;
    FILE *out;
    double firing_time[SEEN_MAX];
    uint32_t num_firings;
    struct seen seen[SEEN_MAX];
    uint32_t num_seen;
    struct cs_lfts after_first;
    bool executed_once;
    bool has_tables;
    uint64_t digest;            /* of the tables in force after the last step */
    uint32_t executed, refused; /* the state's counts of rule 0 after the last step */
};

static int on_step(void *ctx, const struct cs_adapt_sim_step *st)
{
    struct record *r = ctx;
    struct cs_error err = {""};
    if (cs_adapt_write_step(r->out, r->rules, st->state, st->now, st->firings, st->num_firings,
                            &err) < 0)
        fail_msg("%s", err.msg);
    for (uint32_t i = 0; i < st->num_firings && r->num_firings < SEEN_MAX; i++)
        r->firing_time[r->num_firings++] = st->now;
    for (uint32_t i = 0; i < st->num_decisions; i++) {
        const struct cs_adapt_sim_decision *d = &st->decisions[i];
        const struct cs_candidate *c = &d->plan.candidate;
        fprintf(r->out, "%.3f decision %u.%u %s %d %llu %llu %u %.17g %.17g %.17g %.17g: %s\n",
                st->now, d->firing, d->action, d->verdict_name, d->executed,
                (unsigned long long)c->blocks, (unsigned long long)c->entries, c->switches, c->gain,
                c->cost_before, c->cost_after, d->distribute_ms, d->why);
        assert_true(r->num_seen < SEEN_MAX);
        struct seen *s = &r->seen[r->num_seen++];
        s->time = st->now;
        snprintf(s->verdict, sizeof s->verdict, "%s", d->verdict_name);
        snprintf(s->why, sizeof s->why, "%s", d->why);
        s->executed = d->executed;
        s->planned = d->planned;
        s->smps = c->blocks;
        s->gain = c->gain;
        s->distribute_ms = d->distribute_ms;
        cs_node_weights_init(&s->weights);
        if (d->plan.has_weights && cs_node_weights_copy(&s->weights, &d->plan.weights, &err) < 0)
            fail_msg("%s", err.msg);
        if (d->executed && !r->executed_once) {
            r->executed_once = true;
            if (cs_lfts_copy(&r->after_first, st->tables, &err) < 0)
                fail_msg("%s", err.msg);
        }
    }
    r->has_tables = st->tables != NULL;
    r->digest = st->tables ? cs_lfts_digest(st->tables) : 0;
    r->executed = st->state->rules[0].executed;
    r->refused = st->state->rules[0].refused;
    return 0;
}

static void record_free(struct record *r)
{
    for (uint32_t i = 0; i < r->num_seen; i++)
        cs_node_weights_free(&r->seen[i].weights);
    cs_lfts_free(&r->after_first);
    free(r->text);
}

/* Simulate rules over the world (fabric NULL: firings only) into r. */
static void simulate(struct cs_adapt_rules *rules, const struct world *w, bool with_fabric,
                     const struct cs_adapt_sim_options *given, struct record *r,
                     struct cs_adapt_sim_totals *totals)
{
    memset(r, 0, sizeof *r);
    r->rules = rules;
    r->out = open_memstream(&r->text, &r->len);
    assert_non_null(r->out);
    struct cs_adapt_sim_options o = *given;
    o.fabric = with_fabric ? &w->f : NULL;
    o.lfts = with_fabric ? &w->ftree : NULL;
    struct cs_error err = {""};
    if (cs_adapt_simulate(rules, &w->m, &o, on_step, r, totals, &err) != 0)
        fail_msg("simulate: %s", err.msg);
    fclose(r->out);
}

static const struct cs_adapt_sim_options loop_on = {
    .policy = {.mode = CS_ADAPT_MODE_ON, .min_gain_percent = 5},
    .utc = true,
    .t_smp_ms = 0.01,
};

/* The weights learned over a hot window: the receivers 100, the others 1 (they received nothing
 * then, or the calm 50 MB of one second against the receivers' gigabytes). */
static void expected_weights(const struct cs_fabric *f, struct cs_node_weights *w)
{
    struct cs_error err = {""};
    cs_node_weights_init(w);
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].type == CS_NODE_CA &&
            cs_node_weights_add(w, f->ports[f->nodes[n].first_port + 1].guid,
                                hr_rank(f, n) == 0 ? 100 : 1, &err) < 0)
            fail_msg("%s", err.msg);
    if (cs_node_weights_sort(w, "expected", &err) < 0)
        fail_msg("%s", err.msg);
}

static void assert_same_weights(const struct cs_node_weights *a, const struct cs_node_weights *b)
{
    assert_int_equal(a->count, b->count);
    for (uint32_t i = 0; i < a->count; i++) {
        assert_true(a->entries[i].guid == b->entries[i].guid);
        assert_int_equal(a->entries[i].weight, b->entries[i].weight);
    }
}

static void test_hot_phase(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules = fx->rules;
    struct record r;
    struct cs_adapt_sim_totals t;
    simulate(rules, w, true, &loop_on, &r, &t);

    /* Holding from the first hot second (11), fired after `for 2s` (13), again when the
     * cooldown is over (33), still hot; the phase ends at 40, nothing after. */
    assert_int_equal(r.num_firings, 2);
    assert_true(r.firing_time[0] == T0 + HR_HOT_FIRST + 2);
    assert_true(r.firing_time[1] == T0 + HR_HOT_FIRST + 2 + 20);
    for (uint32_t i = 0; i < r.num_firings; i++)
        assert_true(r.firing_time[i] <= T0 + HR_HOT_LAST);
    assert_non_null(strstr(r.text, "1795766413.000 hot_receivers fired: max(node.rcv_bytes over "
                                   "4s)=6.763 GB/s > 3 * avg(node.rcv_bytes over 4s)"));
    assert_non_null(strstr(r.text, "1795766413.000 hot_receivers -> reroute(engine = \"wftree\", "
                                   "weights = learned(over 4s))\n"));
    assert_non_null(strstr(r.text, "hot_receivers false: "));

    /* The first: planned with the learned weights, worth it, executed. */
    assert_int_equal(r.num_seen, 2);
    struct seen *first = &r.seen[0], *second = &r.seen[1];
    assert_string_equal(first->verdict, "execute");
    assert_true(first->executed && first->planned);
    assert_true(first->gain > 0.05);
    assert_true(first->smps > 0);
    assert_true(first->distribute_ms == (double)first->smps * 0.01);
    struct cs_node_weights want;
    expected_weights(&w->f, &want);
    assert_same_weights(&first->weights, &want);

    /* The tables in force after it are wftree's with those weights, not ftree's. */
    assert_true(r.executed_once);
    struct cs_lfts direct;
    struct cs_route_inputs in = {.weights = &want};
    struct cs_route_stats st;
    struct cs_error err = {""};
    if (cs_route_with("wftree", &w->f, NULL, &in, &direct, &st, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_string_equal(st.engine, "wftree");
    rt_assert_same_ca_entries(&w->f, &r.after_first, &direct);
    assert_true(cs_lfts_digest(&r.after_first) == cs_lfts_digest(&direct));
    assert_true(cs_lfts_digest(&direct) != cs_lfts_digest(&w->ftree));
    assert_true(r.digest == cs_lfts_digest(&direct));

    /* The second, same weights: the candidate is what is in force. */
    assert_string_equal(second->verdict, "no-change");
    assert_false(second->executed);
    assert_int_equal(second->smps, 0);
    assert_same_weights(&second->weights, &want);

    assert_int_equal(t.steps, HR_END);
    assert_true(t.first == T0 + 1 && t.last == T0 + HR_END);
    assert_int_equal(t.firings, 2);
    assert_int_equal(t.reroutes, 2);
    assert_int_equal(t.executions, 1);
    assert_int_equal(t.smps, first->smps);
    assert_int_equal(r.executed, 1); /* the state: executed, then refused (no change) */
    assert_int_equal(r.refused, 1);

    cs_lfts_free(&direct);
    cs_node_weights_free(&want);
    record_free(&r);
}

/* Two hot phases with other receivers (the first, then the second CA of every leaf): two
 * executions, the second paid from the hour's budget as the first left it. */
static void test_budget_spent(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules = fx->rules;
    struct cs_error err = {""};
    cs_metrics_clear_samples(&w->m);
    if (hr_phase(&w->m, &w->f, T0, 1, 30, 0, &err) < 0 ||
        hr_phase(&w->m, &w->f, T0, 31, 60, 1, &err))
        fail_msg("%s", err.msg);
    struct record r;
    struct cs_adapt_sim_totals t;
    simulate(rules, w, true, &loop_on, &r, &t);
    /* fired at 3 (held since 1), 23 (cooldown over: same receivers), 43 (the others) */
    assert_int_equal(r.num_seen, 3);
    assert_true(r.seen[0].time == T0 + 3 && r.seen[1].time == T0 + 23 && r.seen[2].time == T0 + 43);
    assert_string_equal(r.seen[0].verdict, "execute");
    assert_string_equal(r.seen[1].verdict, "no-change");
    assert_string_equal(r.seen[2].verdict, "execute");
    uint64_t first = r.seen[0].smps, second = r.seen[2].smps;
    assert_true(first > 0 && second > 0);
    assert_int_equal(t.executions, 2);
    assert_int_equal(t.smps, first + second);
    record_free(&r);

    struct cs_adapt_sim_options o = loop_on;
    o.policy.max_smps_per_hour = (unsigned)(first + second) - 1;
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "execute");
    assert_string_equal(r.seen[2].verdict, "rate-limited");
    assert_non_null(strstr(r.seen[2].why, "would exceed the hour's budget"));
    assert_int_equal(t.executions, 1);
    record_free(&r);
    o.policy.max_smps_per_hour = (unsigned)(first + second);
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[2].verdict, "execute");
    record_free(&r);
}

/* The same inputs twice: the same text to the last digit, the same tables. */
static void test_deterministic(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules = fx->rules;
    struct record a, b;
    struct cs_adapt_sim_totals ta, tb;
    simulate(rules, w, true, &loop_on, &a, &ta);
    simulate(rules, w, true, &loop_on, &b, &tb);
    assert_true(a.len > 0);
    assert_string_equal(a.text, b.text);
    assert_true(a.digest == b.digest);
    assert_memory_equal(&ta, &tb, sizeof ta);
    record_free(&a);
    record_free(&b);
}

/* dry-run decides but changes nothing: the second firing still sees ftree's tables. */
static void test_dry_run(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules = fx->rules;
    struct cs_adapt_sim_options o = loop_on;
    o.policy.mode = CS_ADAPT_MODE_DRY_RUN;
    struct record r;
    struct cs_adapt_sim_totals t;
    simulate(rules, w, true, &o, &r, &t);
    assert_int_equal(r.num_seen, 2);
    for (uint32_t i = 0; i < 2; i++) {
        assert_string_equal(r.seen[i].verdict, "dry-run");
        assert_false(r.seen[i].executed);
        assert_true(r.seen[i].smps > 0);
    }
    assert_int_equal(r.seen[0].smps, r.seen[1].smps);
    assert_true(r.digest == cs_lfts_digest(&w->ftree));
    assert_int_equal(t.executions, 0);
    assert_int_equal(t.smps, 0);
    assert_int_equal(r.refused, 2);
    record_free(&r);
}

/* The operator's limits: the hour's budget, the gain, quiet hours on the UTC or local clock. */
static void test_limits(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules = fx->rules;
    struct record r;
    struct cs_adapt_sim_totals t;
    simulate(rules, w, true, &loop_on, &r, &t);
    uint64_t smps = r.seen[0].smps;
    double gain = r.seen[0].gain;
    record_free(&r);

    struct cs_adapt_sim_options o = loop_on;
    o.policy.max_smps_per_hour = (unsigned)smps - 1;
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "rate-limited");
    assert_string_equal(r.seen[1].verdict, "rate-limited"); /* nothing was spent */
    assert_int_equal(t.executions, 0);
    record_free(&r);
    o.policy.max_smps_per_hour = (unsigned)smps; /* exactly enough, once */
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "execute");
    record_free(&r);

    o = loop_on;
    o.policy.min_gain_percent = (unsigned)(gain * 100) + 1;
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "too-little-gain");
    record_free(&r);

    /* T0 + 13 s is 08:00:13 UTC: in 07:30-08:30 on the UTC clock; 20:00 at UTC+12 is not. */
    o = loop_on;
    struct cs_error err = {""};
    assert_int_equal(cs_adapt_quiet_hours_parse(&o.policy, "07:30-08:30", &err), 0);
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "quiet-hours");
    assert_string_equal(r.seen[0].why, "quiet hours 07:30-08:30");
    record_free(&r);
    setenv("TZ", "<+12>-12", 1);
    tzset();
    o.utc = false;
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "execute");
    record_free(&r);
    assert_int_equal(cs_adapt_quiet_hours_parse(&o.policy, "19:30-20:30", &err), 0);
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "quiet-hours");
    record_free(&r);
    unsetenv("TZ");
    tzset();
}

static int replay_write(void *ctx, double now, const struct cs_adapt_state *s,
                        const struct cs_adapt_firing *firings, uint32_t count)
{
    struct record *r = ctx;
    struct cs_error err = {""};
    return cs_adapt_write_step(r->out, r->rules, s, now, firings, count, &err);
}

/* Without a fabric: the firings only, as cs_adapt_replay reports them, to the byte. */
static void test_without_fabric_is_a_replay(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules = fx->rules;
    struct record r, replay = {.rules = rules};
    struct cs_adapt_sim_totals t;
    simulate(rules, w, false, &loop_on, &r, &t);
    assert_int_equal(r.num_seen, 0);
    assert_false(r.has_tables);
    assert_int_equal(t.firings, 2);
    assert_int_equal(t.reroutes, 0);
    assert_int_equal(r.executed, 2); /* as in a replay: every firing counts as executed */
    replay.out = open_memstream(&replay.text, &replay.len);
    struct cs_error err = {""};
    assert_int_equal(cs_adapt_replay(rules, &w->m, 0, replay_write, &replay, &err), 0);
    fclose(replay.out);
    assert_string_equal(r.text, replay.text);
    /* every 5 s: steps at 1, 6, 11, ... */
    struct cs_adapt_sim_options o = loop_on;
    o.step_s = 5;
    record_free(&r);
    simulate(rules, w, false, &o, &r, &t);
    assert_int_equal(t.steps, (HR_END - 1) / 5 + 1);
    assert_true(t.last == T0 + 76);
    record_free(&r);
    record_free(&replay);
}

/* set applies in mode on (the rule that raised its threshold stops firing) and the parameter is
 * back when the simulation returns; log executes; migrate is not simulated (refused). */
static void test_other_actions(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules =
        parse("param limit = 100 MB/s\n"
              "rule raise {\n"
              "    when avg(node.rcv_bytes over 4s) > limit\n"
              "    then set(param = limit, value = 20 GB/s); log(message = \"raised\")\n"
              "}\n"
              "rule move {\n"
              "    when max(node.rcv_bytes over 4s) > 8 GB/s cooldown 1h\n"
              "    then migrate(vm = \"web-1\", to = \"host-2\")\n"
              "}\n");
    struct record r;
    struct cs_adapt_sim_totals t;
    simulate(rules, w, true, &loop_on, &r, &t);
    assert_int_equal(r.num_seen, 3);
    assert_string_equal(r.seen[0].verdict, "execute");
    assert_string_equal(r.seen[0].why, "limit = 20 GB/s");
    assert_true(r.seen[0].time == T0 + HR_HOT_FIRST);
    assert_string_equal(r.seen[1].verdict, "execute");
    assert_string_equal(r.seen[1].why, "raised");
    assert_string_equal(r.seen[2].verdict, "not-simulated");
    assert_string_equal(r.seen[2].why, "migrate: the recording has no VMs");
    assert_false(r.seen[2].executed);
    assert_true(r.seen[2].time == T0 + HR_HOT_FIRST + 3); /* the window wholly hot */
    assert_int_equal(t.reroutes, 0);
    struct cs_adapt_param_info p;
    cs_adapt_param_get(rules, 0, &p);
    assert_true(p.value.number == 100e6);
    record_free(&r);

    /* dry-run: the threshold stays, the rule fires at every hot step (no for, no cooldown) */
    struct cs_adapt_sim_options o = loop_on;
    o.policy.mode = CS_ADAPT_MODE_DRY_RUN;
    simulate(rules, w, true, &o, &r, &t);
    assert_string_equal(r.seen[0].verdict, "dry-run");
    assert_string_equal(r.seen[0].why, "would set limit = 20 GB/s");
    assert_true(t.firings > 30);
    record_free(&r);
    cs_adapt_rules_free(rules);
}

/* Bad options are refused before anything runs. */
static void test_refused(void **state)
{
    struct fixture *fx = *state;
    struct world *w = &fx->w;
    struct cs_adapt_rules *rules = fx->rules;
    struct cs_adapt_sim_options o = loop_on;
    o.fabric = &w->f;
    struct cs_error err = {""};
    struct record r = {.rules = rules};
    assert_int_equal(cs_adapt_simulate(rules, &w->m, &o, on_step, &r, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "needs the tables in force"));
    o.lfts = &w->ftree;
    o.step_s = -1;
    assert_int_equal(cs_adapt_simulate(rules, &w->m, &o, on_step, &r, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "replay step of -1 s"));
    assert_int_equal(r.num_seen, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hot_phase, setup, teardown),
        cmocka_unit_test_setup_teardown(test_budget_spent, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deterministic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dry_run, setup, teardown),
        cmocka_unit_test_setup_teardown(test_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_without_fabric_is_a_replay, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_actions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
