/* The adaptation loop in the SM core (src/sm/core_adapt.c, core_monitor.c) on the in-process
 * SMA model: a 4-ary-2-tree brought up with ftree, perfmgr polling every 2 s of the model's
 * clock (the core's wall clock is the test's, moved in step), the counters driven by the test:
 * the first host of every leaf receives 9 GB/s, the other hosts send 3 GB/s each. Every
 * assertion reads back the model (the LFT SMPs that arrived, the tables the switches hold) or
 * the monitoring store (the audit records). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloudsm/adapt_simulate.h"
#include "cloudsm/monitor.h"
#include "cloudsm/route.h"
#include "cloudsm/sm_core.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_gen.h"
#include "sm_fixtures.h"

#define HOSTS 16

static double wall;
static double test_wall(void)
{
    return wall;
}

struct rig {
    struct core_model cm; /* fabric, model, pipe, state directory, log */
    struct cs_sm_core core;
    struct cs_sm_config cfg;
    char rules[128];
};

static const char rules_text[] =
    "rule hot_receivers {\n"
    "    when max(node.rcv_bytes over 4s) > 3 * avg(node.rcv_bytes over 4s)\n"
    "         and avg(node.rcv_bytes over 4s) > 100 MB/s\n"
    "    for 2s\n"
    "    cooldown 6s\n"
    "    then reroute(engine = \"wftree\", weights = learned(over 4s))\n"
    "}\n";

/* A rig with rules, a partitions.conf when partitions is not NULL, and extra configuration
 * keys. */
static int rig_up(void **state, const char *rules, const char *partitions,
                  const char *const (*extra)[2], size_t num_extra)
{
    struct rig *r = calloc(1, sizeof *r);
    assert_non_null(r);
    struct cs_error err = {""};
    core_model_open(&r->cm, 4, 2, 16, "adapt");
    snprintf(r->rules, sizeof r->rules, "%s/hot.rules", r->cm.dir);
    FILE *out = fopen(r->rules, "w");
    assert_non_null(out);
    fputs(rules, out);
    fclose(out);
    cs_sm_config_defaults(&r->cfg);
    if (partitions != NULL) {
        char path[160];
        snprintf(path, sizeof path, "%s/partitions.conf", r->cm.dir);
        out = fopen(path, "w");
        assert_non_null(out);
        fputs(partitions, out);
        fclose(out);
        assert_int_equal(cs_sm_config_set(&r->cfg, "partition_config_file", path, NULL, &err), 0);
    }
    /* A fat-tree, routed with ftree unless extra says otherwise (the default is minhop). */
    assert_int_equal(cs_sm_config_set(&r->cfg, "routing_engine", "ftree", NULL, &err), 0);
    for (size_t i = 0; i < num_extra; i++)
        assert_int_equal(cs_sm_config_set(&r->cfg, extra[i][0], extra[i][1], NULL, &err), 0);
    const char *keys[][2] = {
        {"state_dir", r->cm.dir},      {"sweep_interval", "0"},        {"perfmgr", "TRUE"},
        {"perfmgr_sweep_time_s", "2"}, {"adapt_rules_file", r->rules}, {"adapt_mode", "on"}};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        assert_int_equal(cs_sm_config_set(&r->cfg, keys[i][0], keys[i][1], NULL, &err), 0);
    struct cs_sm_files files;
    assert_int_equal(cs_sm_core_load_files(&r->cfg, &files, &r->cm.log, &err), 0);
    cs_sm_core_init(&r->core, &r->cfg, &files, r->cm.pipe, core_model_sm_guid(&r->cm), &r->cm.log);
    r->core.wall_clock = test_wall;
    wall = 1800000000;
    if (cs_sm_core_sweep(&r->core, true, &err) != 0)
        fail_msg("bring-up: %s\n%s", err.msg, r->cm.lc.text ? r->cm.lc.text : "");
    *state = r;
    return 0;
}

static int rig_setup(void **state)
{
    return rig_up(state, rules_text, NULL, NULL, 0);
}

/* Two tenants of 4 hosts each on pftree (the first and the second host of every leaf),
 * best-effort isolation; a rule asks for tenant-a physically isolated once the fabric is busy. */
static int rig_setup_tenants(void **state)
{
    static const char rules[] =
        "rule isolate {\n"
        "    when avg(node.rcv_bytes over 4s) > 100 MB/s\n"
        "    cooldown 1h\n"
        "    then set_policy(partition = \"tenant-a\", isolation = \"phy\")\n"
        "}\n";
    /* Host i's port GUID is 0x0010000000000001 + (i << 8) (the generator's). */
    static const char partitions[] =
        "Default=0x7fff : ALL=full ;\n"
        "tenant-a=0x8001 : 0x0010000000000001=full, 0x0010000000000401=full,\n"
        "    0x0010000000000801=full, 0x0010000000000c01=full ;\n"
        "tenant-b=0x8002 : 0x0010000000000101=full, 0x0010000000000501=full,\n"
        "    0x0010000000000901=full, 0x0010000000000d01=full ;\n";
    static const char *const extra[][2] = {{"routing_engine", "pftree"},
                                           {"adapt_min_gain_percent", "0"}};
    return rig_up(state, rules, partitions, extra, sizeof extra / sizeof *extra);
}

static int rig_teardown(void **state)
{
    struct rig *r = *state;
    cs_sm_core_free(&r->core);
    cs_smp_pipe_destroy(r->cm.pipe);
    cs_sma_model_destroy(r->cm.m);
    cs_fabric_free(&r->cm.f);
    const char *names[] = {"guid2lid",           "hot.rules",          "monitor.sqlite",
                           "monitor.sqlite-wal", "monitor.sqlite-shm", "metabase.sqlite",
                           "partitions.conf"};
    char path[160];
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(path, sizeof path, "%s/%s", r->cm.dir, names[i]);
        unlink(path);
    }
    assert_int_equal(rmdir(r->cm.dir), 0);
    free(r->cm.lc.text);
    free(r);
    return 0;
}

/* The hosts' counters move by 2 s of traffic (hot or not), 2 s pass, and the SM takes its turn,
 * which polls. */
static void turn(struct rig *r, bool hot)
{
    for (unsigned i = 0; hot && i < HOSTS; i++) {
        struct cs_sma_model_pma *c =
            cs_sma_model_pma(r->cm.m, fx_port(r->cm.m, r->cm.f.nodes[i].guid, 1));
        if (i % 4 == 0)
            c->extended.rcv_data += 2 * 2250000000ull; /* 9 GB/s in units of 4 bytes */
        else
            c->extended.xmit_data += 2 * 750000000ull; /* 3 GB/s */
    }
    cs_sma_model_advance_clock(r->cm.m, 2000000);
    wall += 2;
    r->core.next_perf_ms = 0; /* due now (the poll's own schedule is the wall clock) */
    struct cs_error err = {""};
    if (cs_sm_core_poll(&r->core, &err) < 0)
        fail_msg("poll: %s", err.msg);
}

static uint64_t lft_sets(const struct rig *r)
{
    return cs_sma_model_count(r->cm.m, CS_SMP_ATTR_LINEAR_FT, CS_SMP_METHOD_SET);
}

/* Whether an audit detail says "key": "value" (the store keeps a detail as written, or compact
 * once an effect was merged into it). */
static bool has_field(const char *text, const char *key, const char *value)
{
    char spaced[128], compact[128];
    snprintf(spaced, sizeof spaced, "\"%s\": %s", key, value);
    snprintf(compact, sizeof compact, "\"%s\":%s", key, value);
    return strstr(text, spaced) != NULL || strstr(text, compact) != NULL;
}

/* The adapt events' details, in order, as one text (a line each). */
struct details {
    char text[16384];
    unsigned count;
};

static int collect(void *ctx, const struct cs_monitor_event *e, struct cs_error *err)
{
    (void)err;
    struct details *d = ctx;
    size_t used = strlen(d->text);
    snprintf(d->text + used, sizeof d->text - used, "%s\n", e->detail ? e->detail : "");
    d->count++;
    return 0;
}

static struct details audits(const struct rig *r)
{
    struct details d = {.text = ""};
    char path[160];
    snprintf(path, sizeof path, "%s/monitor.sqlite", r->cm.dir);
    struct cs_monitor *mon;
    struct cs_error err = {""};
    if (cs_monitor_open(path, CS_MONITOR_READ_ONLY, &mon, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cs_monitor_events(mon, 0, 4e9, CS_MONITOR_EVENT_ADAPT, collect, &d, &err), 0);
    cs_monitor_close(mon);
    return d;
}

/* Every switch of the model holds what the core says it programmed. */
static void assert_model_holds(const struct rig *r)
{
    const struct cs_lfts *t = &r->core.lfts;
    for (uint32_t n = 0; n < r->cm.f.num_nodes; n++) {
        if (r->cm.f.nodes[n].type != CS_NODE_SWITCH)
            continue;
        uint32_t sw = cs_lfts_find(t, r->cm.f.nodes[n].guid);
        assert_true(sw != CS_NONE);
        for (uint32_t lid = 1; lid <= t->max_lid; lid++)
            assert_int_equal(cs_sma_model_lft_entry(r->cm.m, n, lid), cs_lfts_get(t, sw, lid));
    }
}

/* The receivers weigh 100, the rest 1: the tables wftree gives with those weights. */
static void assert_wftree_tables(const struct rig *r)
{
    struct cs_node_weights w;
    cs_node_weights_init(&w);
    struct cs_error err = {""};
    for (unsigned i = 0; i < HOSTS; i++)
        assert_int_equal(cs_node_weights_add(&w,
                                             r->cm.f.ports[r->cm.f.nodes[i].first_port + 1].guid,
                                             i % 4 == 0 ? 100 : 1, &err),
                         0);
    assert_int_equal(cs_node_weights_sort(&w, "test", &err), 0);
    struct cs_lfts want;
    struct cs_route_stats st;
    struct cs_route_inputs in = {.weights = &w};
    assert_int_equal(
        cs_route_with("wftree", &r->core.sweep.fabric, NULL, &in, &want, &st, NULL, &err), 0);
    const struct cs_lfts *got = &r->core.lfts;
    for (uint32_t s = 0; s < want.num_switches; s++) {
        uint32_t at = cs_lfts_find(got, want.switches[s].guid);
        assert_true(at != CS_NONE);
        for (uint32_t lid = 1; lid <= want.max_lid; lid++)
            assert_int_equal(cs_lfts_get(got, at, lid), cs_lfts_get(&want, s, lid));
    }
    cs_lfts_free(&want);
    cs_node_weights_free(&w);
}

/* The hot spot makes the rule fire at the third poll (first samples at the second, held 2 s);
 * wftree with the learned weights goes out as the few LFT blocks that differ; the audit record
 * says so; a later firing finds nothing to change; after the hot spot nothing fires. */
static void test_hot_spot_adapts_once(void **state)
{
    struct rig *r = *state;
    turn(r, false); /* first poll: readings only */
    uint64_t sets = lft_sets(r);
    turn(r, true);
    assert_int_equal(r->core.adapt_firings, 0); /* holding */
    turn(r, true);
    assert_int_equal(r->core.adapt_firings, 1);
    assert_int_equal(r->core.adapt_executed, 1);
    uint64_t sent = lft_sets(r) - sets;
    /* Some of the 8 switches' tables (one block each: the LIDs fit in one). */
    assert_true(sent > 0 && sent < 8);
    assert_model_holds(r);
    assert_wftree_tables(r);
    struct details d = audits(r);
    assert_int_equal(d.count, 1);
    char want[32];
    snprintf(want, sizeof want, "%llu", (unsigned long long)sent);
    assert_true(has_field(d.text, "lft_smps", want)); /* planned = sent */
    assert_true(has_field(d.text, "verdict", "\"execute\""));
    assert_true(has_field(d.text, "engine", "\"wftree\""));
    /* wftree brought the gain within the budget: no alternative was priced. */
    assert_null(strstr(d.text, "\"considered\""));
    assert_non_null(strstr(d.text, "max(node.rcv_bytes over 4s)="));
    /* The effect comes with the next poll. */
    turn(r, true);
    d = audits(r);
    assert_non_null(strstr(d.text, "\"effect\""));
    /* Cooldown over (6 s), still hot: a firing, nothing to change, nothing sent. */
    sets = lft_sets(r);
    for (int i = 0; i < 3; i++)
        turn(r, true);
    assert_int_equal(r->core.adapt_firings, 2);
    assert_int_equal(r->core.adapt_executed, 1);
    assert_int_equal(lft_sets(r), sets);
    d = audits(r);
    assert_int_equal(d.count, 2);
    assert_true(has_field(d.text, "verdict", "\"no-change\""));
    /* The hot spot goes: once it has left the 4 s windows, nothing fires again. */
    for (int i = 0; i < 10; i++)
        turn(r, false);
    assert_int_equal(r->core.adapt_firings, 2);
    assert_int_equal(lft_sets(r), sets);
}

/* The kill switch stops the rules; dry-run decides and records, and sends nothing; a busy SM
 * (a failed sweep to retry) does not act either. */
static void test_off_dry_run_busy(void **state)
{
    struct rig *r = *state;
    r->core.adapt_mode_override = CS_ADAPT_MODE_OFF;
    turn(r, false);
    uint64_t sets = lft_sets(r);
    for (int i = 0; i < 4; i++)
        turn(r, true);
    assert_int_equal(r->core.adapt_firings, 0);
    r->core.adapt_mode_override = CS_ADAPT_MODE_DRY_RUN;
    for (int i = 0; i < 3; i++)
        turn(r, true);
    assert_int_equal(r->core.adapt_firings, 1);
    assert_int_equal(r->core.adapt_executed, 0);
    assert_int_equal(lft_sets(r), sets);
    struct details d = audits(r);
    assert_true(has_field(d.text, "verdict", "\"dry-run\""));
    r->core.adapt_mode_override = CS_ADAPT_MODE_ON;
    r->core.retry = true;
    for (int i = 0; i < 4; i++)
        turn(r, true);
    assert_int_equal(r->core.adapt_executed, 0);
    assert_int_equal(lft_sets(r), sets);
    d = audits(r);
    assert_true(has_field(d.text, "verdict", "\"busy\""));
}

/* A candidate refused for too little gain makes the loop price the metabase-aided engine with
 * the same weights; neither brings 90% here: the one with more gain is recorded, refused, and
 * nothing is sent. */
static void test_alternative_when_refused(void **state)
{
    struct rig *r = *state;
    r->core.cfg.adapt_min_gain_percent = 90;
    turn(r, false);
    uint64_t sets = lft_sets(r);
    for (int i = 0; i < 3; i++)
        turn(r, true);
    assert_int_equal(r->core.adapt_firings, 1);
    assert_int_equal(r->core.adapt_executed, 0);
    assert_int_equal(lft_sets(r), sets);
    struct details d = audits(r);
    assert_true(has_field(d.text, "verdict", "\"too-little-gain\""));
    assert_true(has_field(d.text, "asked_engine", "\"wftree\""));
    assert_non_null(strstr(d.text, "\"considered\""));
    assert_true(has_field(d.text, "engine", "\"mftree\""));
}

/* set_policy: tenant-a's policy becomes phy in the SM's partitions and pftree is priced with it.
 * pftree already keeps the two tenants apart on this tree (best effort isolates where it can), so
 * the tables do not change: no-change, nothing sent, and the policy goes back (it stays only with
 * a routing that applies it). */
static void test_set_policy(void **state)
{
    struct rig *r = *state;
    const struct cs_partitions *p = &r->core.files.partitions;
    uint32_t a = CS_NONE;
    for (uint32_t i = 0; i < p->count; i++)
        if (strcmp(p->partitions[i].name, "tenant-a") == 0)
            a = i;
    assert_true(a != CS_NONE);
    assert_int_equal(p->partitions[a].isolation, CS_ISOLATION_DEF);
    turn(r, false);
    uint64_t sets = lft_sets(r);
    turn(r, true);
    assert_int_equal(r->core.adapt_firings, 1);
    struct details d = audits(r);
    assert_true(has_field(d.text, "engine", "\"pftree\""));
    assert_true(has_field(d.text, "verdict", "\"no-change\""));
    assert_int_equal(r->core.adapt_executed, 0);
    assert_int_equal(lft_sets(r), sets);
    assert_int_equal(p->partitions[a].isolation, CS_ISOLATION_DEF);
    assert_false(p->partitions[a].isolation_set);
}

/* The verdicts of the decisions in a text of details, in order, and their LFT SMPs: "execute 5,
 * no-change 0". */
static void verdicts(const char *text, char *out, size_t size)
{
    out[0] = '\0';
    for (const char *at = text; (at = strstr(at, "\"verdict\"")) != NULL; at++) {
        const char *v = strchr(at + 9, '"');
        const char *end = v ? strchr(v + 1, '"') : NULL;
        /* The candidate (and its lft_smps) come before the verdict in a record. */
        const char *smps = NULL;
        for (const char *k = text; (k = strstr(k, "\"lft_smps\"")) != NULL && k < at; k++)
            smps = k;
        if (v == NULL || end == NULL || smps == NULL)
            break;
        size_t used = strlen(out);
        snprintf(out + used, size - used, "%s%.*s %llu", used ? ", " : "", (int)(end - v - 1),
                 v + 1, strtoull(strchr(smps, ':') + 1, NULL, 10));
    }
}

struct sim_log {
    char text[1024];
    const struct cs_lfts *live; /* the tables the live loop left */
    bool same_tables;           /* the last step's tables in force are the live ones */
};

static bool same_lfts(const struct cs_lfts *a, const struct cs_lfts *b)
{
    if (a->num_switches != b->num_switches || a->max_lid != b->max_lid)
        return false;
    for (uint32_t s = 0; s < a->num_switches; s++) {
        uint32_t at = cs_lfts_find(b, a->switches[s].guid);
        if (at == CS_NONE)
            return false;
        for (uint32_t lid = 1; lid <= a->max_lid; lid++)
            if (cs_lfts_get(a, s, lid) != cs_lfts_get(b, at, lid))
                return false;
    }
    return true;
}

static int on_sim_step(void *ctx, const struct cs_adapt_sim_step *step)
{
    struct sim_log *l = ctx;
    l->same_tables = step->tables != NULL && same_lfts(step->tables, l->live);
    for (uint32_t i = 0; i < step->num_decisions; i++) {
        const struct cs_adapt_sim_decision *d = &step->decisions[i];
        if (!d->planned)
            continue;
        size_t used = strlen(l->text);
        snprintf(l->text + used, sizeof l->text - used, "%s%s %llu", used ? ", " : "",
                 d->verdict_name, (unsigned long long)d->plan.candidate.blocks);
    }
    return 0;
}

/* The decisions the live loop made, replayed from the store it wrote (cloudsm adapt simulate's
 * library call, from the tables before the adaptation): the same verdicts with the same SMPs, the
 * same tables at the end, and the same again on a second replay. */
static void test_replay_matches_live(void **state)
{
    struct rig *r = *state;
    struct cs_error err = {""};
    struct cs_lfts before;
    assert_int_equal(cs_lfts_copy(&before, &r->core.lfts, &err), 0);
    turn(r, false);
    for (int i = 0; i < 8; i++)
        turn(r, true);
    for (int i = 0; i < 6; i++)
        turn(r, false);
    char live[1024];
    verdicts(audits(r).text, live, sizeof live);
    /* One execution of a few blocks, then firings that find nothing to change. */
    assert_true(strncmp(live, "execute ", 8) == 0 && strtoul(live + 8, NULL, 10) > 0);
    assert_non_null(strstr(live, ", no-change 0"));

    char path[160];
    snprintf(path, sizeof path, "%s/monitor.sqlite", r->cm.dir);
    struct cs_monitor *mon;
    assert_int_equal(cs_monitor_open(path, CS_MONITOR_READ_ONLY, &mon, &err), 0);
    struct cs_metrics recorded;
    assert_int_equal(cs_monitor_load(mon, 0, 4e9, &recorded, &err), 0);
    cs_monitor_close(mon);
    struct cs_adapt_sim_options o = {
        .fabric = &r->core.sweep.fabric,
        .lfts = &before,
        .policy = {.mode = CS_ADAPT_MODE_ON, .min_gain_percent = r->cfg.adapt_min_gain_percent},
    };
    struct sim_log first = {.live = &r->core.lfts}, second = {.live = &r->core.lfts};
    assert_false(same_lfts(&before, &r->core.lfts)); /* the adaptation changed them */
    assert_int_equal(cs_adapt_simulate(r->core.files.adapt_rules, &recorded, &o, on_sim_step,
                                       &first, NULL, &err),
                     0);
    assert_string_equal(first.text, live);
    assert_true(first.same_tables);
    assert_int_equal(cs_adapt_simulate(r->core.files.adapt_rules, &recorded, &o, on_sim_step,
                                       &second, NULL, &err),
                     0);
    assert_string_equal(second.text, first.text);
    cs_metrics_free(&recorded);
    cs_lfts_free(&before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_hot_spot_adapts_once, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_off_dry_run_busy, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_replay_matches_live, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_alternative_when_refused, rig_setup, rig_teardown),
        cmocka_unit_test_setup_teardown(test_set_policy, rig_setup_tenants, rig_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
