/* cloudsm adapt check|actions|simulate: IBAdapt rules files read and type-checked, the action
 * registry (include/cloudsm/adapt.h, docs/adapt/language.md), and the adaptation loop simulated
 * over a monitoring store (adapt_simulate.h, docs/adapt/simulate.md). Options and output here;
 * the language, the loop's decisions and the simulation are the library's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/adapt.h"
#include "cloudsm/adapt_simulate.h"
#include "cloudsm/json.h"
#include "cloudsm/time_point.h"
#include "routed.h"
#include "store_cli.h"

static const char check_help[] =
    "usage: cloudsm adapt check RULES [--json] [--set NAME=VALUE]...\n"
    "\n"
    "Read an IBAdapt rules file, check it (syntax, types, parameters, metrics, actions and\n"
    "their arguments, routing engine names), and list what it says: each parameter with its\n"
    "type and value, then each rule in evaluation order (higher priority first, ties in file\n"
    "order) with its priority, `for` and `cooldown` durations, condition and actions, as the\n"
    "checker read them. The language: docs/adapt/language.md.\n"
    "\n"
    "  --set NAME=VALUE  override parameter NAME, as the adaptation loop can: VALUE is written\n"
    "                    as in the language (3 GB/s, 45s, 0.8, true; a string parameter also\n"
    "                    takes a bare word) and must have the parameter's type (repeatable)\n"
    "  --json            one JSON object: file, params [{name, type, value, overridden, line}],\n"
    "                    rules [{name, line, priority, for_s, cooldown_s, condition, actions}]\n"
    "\n"
    "An error names the file, line and column (columns count bytes from 1), once, on standard\n"
    "error.\n"
    "exit status: 0 the rules check, 1 they do not (or a --set does not), 2 bad usage\n"
    "\n"
    "examples:\n"
    "  cloudsm adapt check docs/adapt/examples/traffic_profile.rules\n"
    "  cloudsm adapt check rules.rules --set threshold=1.5GB/s --set window=1m --json\n";

static const char actions_help[] =
    "usage: cloudsm adapt actions [--json]\n"
    "\n"
    "List the actions a rule's `then` can name, from the action registry the checker uses:\n"
    "each with its named arguments, their types, and which are required.\n"
    "\n"
    "  --json   one JSON object: actions [{name, summary, args [{name, type, required,\n"
    "           summary}]}]\n"
    "\n"
    "exit status: 0, or 2 bad usage\n"
    "\n"
    "example:\n"
    "  cloudsm adapt actions\n";

static void print_text(const char *path, const struct cs_adapt_rules *r)
{
    char value[512], hold[64], cooldown[64];
    uint32_t np = cs_adapt_param_count(r), nr = cs_adapt_rule_count(r);
    printf("%s: %u parameter%s, %u rule%s\n", path, np, np == 1 ? "" : "s", nr, nr == 1 ? "" : "s");
    for (uint32_t i = 0; i < np; i++) {
        struct cs_adapt_param_info p;
        cs_adapt_param_get(r, i, &p);
        printf("param %s = %s (%s%s)\n", p.name,
               cs_adapt_value_format(&p.value, 15, value, sizeof value),
               cs_adapt_type_name(p.value.type), p.overridden ? ", set" : "");
    }
    for (uint32_t i = 0; i < nr; i++) {
        struct cs_adapt_rule_info info;
        cs_adapt_rule_get(r, i, &info);
        struct cs_adapt_value d = {.type = CS_ADAPT_DURATION, .number = info.for_s};
        cs_adapt_value_format(&d, 15, hold, sizeof hold);
        d.number = info.cooldown_s;
        cs_adapt_value_format(&d, 15, cooldown, sizeof cooldown);
        printf("rule %s (line %u): priority %d, for %s, cooldown %s\n", info.name, info.line,
               info.priority, hold, cooldown);
        printf("  when %s\n", info.condition);
        for (uint32_t k = 0; k < info.num_actions; k++)
            printf("  %s %s\n", k == 0 ? "then" : "    ", info.actions[k]);
    }
}

static void print_json(const char *path, const struct cs_adapt_rules *r)
{
    struct cs_json j;
    char value[512];
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_str(&j, "file", path);
    cs_json_array_begin(&j, "params");
    for (uint32_t i = 0; i < cs_adapt_param_count(r); i++) {
        struct cs_adapt_param_info p;
        cs_adapt_param_get(r, i, &p);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "name", p.name);
        cs_json_str(&j, "type", cs_adapt_type_name(p.value.type));
        cs_json_str(&j, "value", cs_adapt_value_format(&p.value, 15, value, sizeof value));
        cs_json_bool(&j, "overridden", p.overridden);
        cs_json_u64(&j, "line", p.line);
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    cs_json_array_begin(&j, "rules");
    for (uint32_t i = 0; i < cs_adapt_rule_count(r); i++) {
        struct cs_adapt_rule_info info;
        cs_adapt_rule_get(r, i, &info);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "name", info.name);
        cs_json_u64(&j, "line", info.line);
        cs_json_double(&j, "priority", info.priority);
        cs_json_double(&j, "for_s", info.for_s);
        cs_json_double(&j, "cooldown_s", info.cooldown_s);
        cs_json_str(&j, "condition", info.condition);
        cs_json_array_begin(&j, "actions");
        for (uint32_t k = 0; k < info.num_actions; k++)
            cs_json_str(&j, NULL, info.actions[k]);
        cs_json_array_end(&j);
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

enum { OPT_JSON = 0x100, OPT_SET };

/* Read a rules file and apply the --set overrides (each NAME=VALUE): EXIT_OK with *out, or the
 * exit code (the error printed). */
static int read_rules(const char *path, char **sets, int num_sets, const char *who,
                      struct cs_adapt_rules **out)
{
    struct cs_error err;
    if (cs_adapt_read(path, out, &err) < 0)
        return cli_fail(who, &err);
    for (int i = 0; i < num_sets; i++) {
        char *eq = strchr(sets[i], '=');
        *eq = '\0';
        int rc = cs_adapt_set_param(*out, sets[i], eq + 1, &err);
        *eq = '=';
        if (rc < 0) {
            cs_adapt_rules_free(*out);
            *out = NULL;
            return cli_fail(who, &err);
        }
    }
    return EXIT_OK;
}

static int adapt_check(int argc, char **argv)
{
    const char *who = argv[0];
    bool as_json = false;
    static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"set", required_argument, NULL, OPT_SET},
        {NULL, 0, NULL, 0},
    };
    char **sets = calloc((size_t)argc, sizeof(*sets));
    int num_sets = 0, opt;
    if (sets == NULL) {
        fprintf(stderr, "cloudsm %s: out of memory\n", who);
        return EXIT_FAILED;
    }
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt == OPT_JSON) {
            as_json = true;
        } else if (opt == OPT_SET && strchr(optarg, '=') != NULL && optarg[0] != '=') {
            sets[num_sets++] = optarg;
        } else {
            free(sets);
            return opt == OPT_SET ? cli_usage(who, "--set wants NAME=VALUE, not '%s'", optarg)
                                  : cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 1) {
        free(sets);
        return cli_usage(who, "wants one rules file");
    }
    const char *path = argv[optind];
    struct cs_adapt_rules *r;
    int rc = read_rules(path, sets, num_sets, who, &r);
    if (rc == EXIT_OK) {
        if (as_json)
            print_json(path, r);
        else
            print_text(path, r);
        cs_adapt_rules_free(r);
    }
    free(sets);
    return rc;
}

static int adapt_actions(int argc, char **argv)
{
    const char *who = argv[0];
    bool as_json = false;
    static const struct option options[] = {{"json", no_argument, NULL, OPT_JSON},
                                            {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt != OPT_JSON)
            return cli_usage(who, "unknown option");
        as_json = true;
    }
    if (optind != argc)
        return cli_usage(who, "takes no arguments");
    struct cs_json j;
    if (as_json) {
        cs_json_init(&j, stdout);
        cs_json_object_begin(&j, NULL);
        cs_json_array_begin(&j, "actions");
    }
    for (const struct cs_adapt_action_def *a = cs_adapt_actions; a->name; a++) {
        if (as_json) {
            cs_json_object_begin(&j, NULL);
            cs_json_str(&j, "name", a->name);
            cs_json_str(&j, "summary", a->summary);
            cs_json_array_begin(&j, "args");
        } else {
            printf("%s: %s\n", a->name, a->summary);
        }
        for (const struct cs_adapt_arg_def *d = a->args; d->name; d++) {
            if (as_json) {
                cs_json_object_begin(&j, NULL);
                cs_json_str(&j, "name", d->name);
                cs_json_str(&j, "type", cs_adapt_type_name(d->type));
                cs_json_bool(&j, "required", d->required);
                cs_json_str(&j, "summary", d->summary);
                cs_json_object_end(&j);
            } else {
                printf("  %-10s %-22s %-9s %s\n", d->name, cs_adapt_type_name(d->type),
                       d->required ? "required" : "optional", d->summary);
            }
        }
        if (as_json) {
            cs_json_array_end(&j);
            cs_json_object_end(&j);
        }
    }
    if (as_json) {
        cs_json_array_end(&j);
        cs_json_object_end(&j);
        cs_json_finish(&j);
    }
    return EXIT_OK;
}

/* ---- simulate ----------------------------------------------------------------------------- */

#define STR_(x) #x
#define STR(x) STR_(x)

static const char simulate_help[] =
    "usage: cloudsm adapt simulate RULES [--store FILE | -d DIR | -c FILE] [--since T]\n"
    "           [--until T] [--step DUR] [--set NAME=VALUE]... [--topology FILE --lfts FILE]\n"
    "           [--mode on|dry-run] [--min-gain PCT] [--max-smps-per-percent N]\n"
    "           [--max-smps-per-hour N] [--quiet-hours HH:MM-HH:MM] [--utc] [--t-smp MS]\n"
    "           [--json] [-o FILE]\n"
    "\n"
    "Replay the port counters cloudsmd recorded in its monitoring store through IBAdapt rules\n"
    "and print what would have fired, and when. The rules are stepped at every sample time (or\n"
    "every --step), each step seeing only the samples that had ended by then, as the\n"
    "adaptation loop sees them after each counter poll.\n"
    "\n"
    "Given the recorded fabric (--topology) and the tables in force at the start (--lfts),\n"
    "every firing is also carried out as cloudsmd's loop would carry it out: a reroute is\n"
    "planned (weights and traffic learned over the action's window; the candidate's LFT SMPs\n"
    "and expected congestion gain against the tables in force), judged by the operator's\n"
    "limits below, and an execution replaces the tables in force, so that later firings start\n"
    "from them (the same firing again is then no-change). set changes its parameter in mode\n"
    "on, log executes, set_policy and migrate are not simulated. Routing takes the default\n"
    "options and only the action's weights, order and sub-tree. docs/adapt/simulate.md.\n"
    "\n"
    "  RULES                 the IBAdapt rules (docs/adapt/language.md)\n"
    "  --set NAME=VALUE      override parameter NAME, as adapt check does (repeatable)\n"
    "  --step DUR            step every DUR (10s, 1m, 1h30m) from the first sample's time to\n"
    "                        the last, not at every sample time\n" CLI_STORE_WINDOW_HELP
    "                        Default window: everything the store holds.\n"
    "  --topology FILE       the recorded fabric, ibnetdiscover form, with the LIDs the tables\n"
    "                        use (else the LFT dump's); `cloudsm topo gen --lids` writes one\n"
    "  --lfts FILE           the LFTs in force at the start (an LFT dump, either form)\n"
    "\n"
    "The operator's limits (cloudsmd's adapt_* keys; they need --topology and --lfts):\n"
    "  --mode on|dry-run            on (default): carry out what is decided; dry-run: decide,\n"
    "                               change nothing\n"
    "  --min-gain PCT               the expected congestion reduction at least (default " STR(
        CS_SM_CONFIG_DEFAULT_ADAPT_MIN_GAIN) ")\n"
                                             "  --max-smps-per-percent N     LFT SMPs a percent of "
                                             "gain may cost (default 0: no bound)\n"
                                             "  --max-smps-per-hour N        LFT SMPs executions "
                                             "may send in any hour (default 0: no\n"
                                             "                               limit); the simulated "
                                             "executions spend it\n"
                                             "  --quiet-hours HH:MM-HH:MM    a daily window in "
                                             "which nothing executes\n"
                                             "  --utc                        quiet hours on UTC's "
                                             "clock (default: the local one, TZ)\n"
                                             "  --t-smp MS                   the time of one LFT "
                                             "SMP: adds the predicted distribution\n"
                                             "                               time (Eq. 1: LFT SMPs "
                                             "x MS)\n"
                                             "\n"
                                             "  --json                one JSON object: rules, "
                                             "store, since, until (null: not given),\n"
                                             "                        step_s, topology, lfts, "
                                             "policy, steps [{time, time_iso, rules\n"
                                             "                        [{rule, status, "
                                             "explanation}], firings [{rule, priority,\n"
                                             "                        explanation, actions "
                                             "[{action, args, verdict, reason, executed,\n"
                                             "                        engine, traffic_since, "
                                             "traffic_until, candidate {...},\n"
                                             "                        predicted_ms}]}]}], summary\n"
                                             "  -o, --output FILE     write to FILE (atomically) "
                                             "instead of standard output\n"
                                             "\n"
                                             "Text: a line per rule whose status changes (TIME "
                                             "RULE STATUS: the condition with its\n"
                                             "values), per action of a firing (TIME RULE -> "
                                             "action(...)), and with a fabric per\n"
                                             "decision (TIME RULE ACTION: VERDICT: N LFT SMPs, "
                                             "expected gain G%, predicted P ms:\n"
                                             "reason); then a summary. TIME is seconds since the "
                                             "epoch. The same inputs give the same\n"
                                             "output, byte for byte (the routing times, which "
                                             "vary, are not printed); quiet hours on\n"
                                             "the local clock depend on TZ.\n"
                                             "exit status: 0 simulated, 1 bad input (the rules: "
                                             "file:line:column; the store, the\n"
                                             "topology, the LFTs), 2 bad usage\n"
                                             "\n"
                                             "examples:\n"
                                             "  cloudsm adapt simulate hot.rules -d "
                                             "/var/lib/cloudsm --since 1d\n"
                                             "  cloudsm adapt simulate hot.rules --store "
                                             "monitor.sqlite --topology fabric.topo \\\n"
                                             "      --lfts ftree.lfts --min-gain 10 "
                                             "--max-smps-per-hour 2000 --quiet-hours 08:00-18:00\n"
                                             "  cloudsm adapt simulate "
                                             "docs/adapt/examples/traffic_profile.rules --store "
                                             "monitor.sqlite \\\n"
                                             "      --since 2026-11-27T08:00:00Z --until "
                                             "2026-11-27T09:00:00Z --step 10s \\\n"
                                             "      --set threshold=1GB/s --json -o sim.json\n";

struct simulation {
    FILE *fp;
    bool json;
    struct cs_json j;
    const struct cs_adapt_rules *rules;
    bool t_smp_known;
};

/* A decision as a line: TIME RULE ACTION: VERDICT[: SMPs, gain, predicted]: reason. */
static void text_decision(const struct simulation *sim, const struct cs_adapt_sim_step *st,
                          const struct cs_adapt_sim_decision *d)
{
    const struct cs_adapt_firing *f = &st->firings[d->firing];
    fprintf(sim->fp, "%.3f %s %s", st->now, f->rule_name, f->actions[d->action].name);
    if (d->planned) {
        const struct cs_candidate *c = &d->plan.candidate;
        fprintf(sim->fp,
                "(%s%s): %s: %llu LFT SMPs, expected gain %.1f%% (congestion cost %.4g -> %.4g)",
                c->engine, d->plan.has_weights ? ", learned weights" : "", d->verdict_name,
                (unsigned long long)c->blocks, c->gain * 100, c->cost_before, c->cost_after);
        if (sim->t_smp_known)
            fprintf(sim->fp, ", predicted %.3f ms", d->distribute_ms);
    } else {
        fprintf(sim->fp, ": %s", d->verdict_name);
    }
    fprintf(sim->fp, ": %s\n", d->why);
}

static void json_action(struct simulation *sim, const struct cs_adapt_sim_step *st, uint32_t firing,
                        uint32_t action)
{
    struct cs_json *j = &sim->j;
    const struct cs_adapt_action *a = &st->firings[firing].actions[action];
    char text[4096];
    cs_json_object_begin(j, NULL);
    cs_json_str(j, "action", a->name);
    cs_json_object_begin(j, "args");
    for (uint32_t k = 0; k < a->num_args; k++)
        cs_json_str(j, a->args[k].name,
                    cs_adapt_value_format(&a->args[k].value, 17, text, sizeof text));
    cs_json_object_end(j);
    for (uint32_t i = 0; i < st->num_decisions; i++) {
        const struct cs_adapt_sim_decision *d = &st->decisions[i];
        if (d->firing != firing || d->action != action)
            continue;
        cs_json_str(j, "verdict", d->verdict_name);
        cs_json_str(j, "reason", d->why);
        cs_json_bool(j, "executed", d->executed);
        if (d->planned) {
            cs_adapt_plan_json(j, &d->plan, false);
            if (sim->t_smp_known)
                cs_json_double(j, "predicted_ms", d->distribute_ms);
            else
                cs_json_raw(j, "predicted_ms", "null");
        }
    }
    cs_json_object_end(j);
}

static void json_step(struct simulation *sim, const struct cs_adapt_sim_step *st)
{
    struct cs_json *j = &sim->j;
    char when[CS_TIME_POINT_MAX];
    cs_json_object_begin(j, NULL);
    cs_json_double_exact(j, "time", st->now);
    cs_json_str(j, "time_iso", cs_time_point_format(st->now, when, sizeof when));
    cs_json_array_begin(j, "rules");
    for (uint32_t i = 0; i < st->state->num_rules; i++) {
        const struct cs_adapt_rule_state *rs = &st->state->rules[i];
        if (!rs->changed)
            continue;
        struct cs_adapt_rule_info info;
        cs_adapt_rule_get(sim->rules, i, &info);
        cs_json_object_begin(j, NULL);
        cs_json_str(j, "rule", info.name);
        cs_json_str(j, "status", cs_adapt_status_name(rs->status));
        cs_json_str(j, "explanation", rs->explanation);
        cs_json_object_end(j);
    }
    cs_json_array_end(j);
    cs_json_array_begin(j, "firings");
    for (uint32_t i = 0; i < st->num_firings; i++) {
        const struct cs_adapt_firing *f = &st->firings[i];
        cs_json_object_begin(j, NULL);
        cs_json_str(j, "rule", f->rule_name);
        cs_json_double(j, "priority", f->priority);
        cs_json_str(j, "explanation", f->explanation);
        cs_json_array_begin(j, "actions");
        for (uint32_t k = 0; k < f->num_actions; k++)
            json_action(sim, st, i, k);
        cs_json_array_end(j);
        cs_json_object_end(j);
    }
    cs_json_array_end(j);
    cs_json_object_end(j);
}

static int simulated_step(void *ctx, const struct cs_adapt_sim_step *st)
{
    struct simulation *sim = ctx;
    if (sim->json) {
        bool changed = st->num_firings > 0;
        for (uint32_t i = 0; i < st->state->num_rules; i++)
            changed |= st->state->rules[i].changed;
        if (changed)
            json_step(sim, st);
        return 0;
    }
    struct cs_error err;
    if (cs_adapt_write_step(sim->fp, sim->rules, st->state, st->now, st->firings, st->num_firings,
                            &err) < 0)
        return -1;
    for (uint32_t i = 0; i < st->num_decisions; i++)
        text_decision(sim, st, &st->decisions[i]);
    return 0;
}

/* The inputs: what the options name. */
struct simulate_options {
    struct cli_store_options store;
    const char *topology, *lfts;
    struct cs_adapt_sim_options sim;
    const char *policy_option; /* the first option of the decision rule given */
    const char *quiet;
};

static void json_head(struct simulation *sim, const struct simulate_options *o, const char *rules,
                      const char *store)
{
    struct cs_json *j = &sim->j;
    cs_json_init(j, sim->fp);
    cs_json_object_begin(j, NULL);
    cs_json_str(j, "rules", rules);
    cs_json_str(j, "store", store);
    if (o->store.since_text)
        cs_json_double_exact(j, "since", o->store.since);
    else
        cs_json_raw(j, "since", "null");
    if (o->store.until_text)
        cs_json_double_exact(j, "until", o->store.until);
    else
        cs_json_raw(j, "until", "null");
    cs_json_double(j, "step_s", o->sim.step_s);
    if (o->topology) {
        const struct cs_adapt_policy *p = &o->sim.policy;
        cs_json_str(j, "topology", o->topology);
        cs_json_str(j, "lfts", o->lfts);
        cs_json_object_begin(j, "policy");
        cs_json_str(j, "mode", cs_adapt_mode_name(p->mode));
        cs_json_u64(j, "min_gain_percent", p->min_gain_percent);
        cs_json_u64(j, "max_smps_per_percent", p->max_smps_per_percent);
        cs_json_u64(j, "max_smps_per_hour", p->max_smps_per_hour);
        if (o->quiet && p->quiet)
            cs_json_str(j, "quiet_hours", o->quiet);
        else
            cs_json_raw(j, "quiet_hours", "null");
        cs_json_str(j, "clock", o->sim.utc ? "utc" : "local");
        if (sim->t_smp_known)
            cs_json_double(j, "t_smp_ms", o->sim.t_smp_ms);
        else
            cs_json_raw(j, "t_smp_ms", "null");
        cs_json_object_end(j);
    } else {
        cs_json_raw(j, "topology", "null");
        cs_json_raw(j, "lfts", "null");
    }
    cs_json_array_begin(j, "steps");
}

static void print_summary(struct simulation *sim, const struct cs_adapt_sim_totals *t,
                          bool with_fabric)
{
    if (sim->json) {
        struct cs_json *j = &sim->j;
        cs_json_array_end(j);
        cs_json_object_begin(j, "summary");
        cs_json_u64(j, "steps", t->steps);
        if (t->steps) {
            cs_json_double_exact(j, "first", t->first);
            cs_json_double_exact(j, "last", t->last);
        }
        cs_json_u64(j, "firings", t->firings);
        cs_json_u64(j, "reroutes", t->reroutes);
        cs_json_u64(j, "executions", t->executions);
        cs_json_u64(j, "lft_smps", t->smps);
        cs_json_object_end(j);
        cs_json_object_end(j);
        cs_json_finish(j);
        return;
    }
    char from[CS_TIME_POINT_MAX], to[CS_TIME_POINT_MAX];
    if (t->steps == 0) {
        fprintf(sim->fp, "simulated 0 steps: no samples in the window\n");
        return;
    }
    fprintf(sim->fp, "simulated %llu step%s from %s to %s: %llu firing%s",
            (unsigned long long)t->steps, t->steps == 1 ? "" : "s",
            cs_time_point_format(t->first, from, sizeof from),
            cs_time_point_format(t->last, to, sizeof to), (unsigned long long)t->firings,
            t->firings == 1 ? "" : "s");
    if (with_fabric)
        fprintf(sim->fp, ", %llu reroute%s decided, %llu executed, %llu LFT SMPs sent\n",
                (unsigned long long)t->reroutes, t->reroutes == 1 ? "" : "s",
                (unsigned long long)t->executions, (unsigned long long)t->smps);
    else
        fprintf(sim->fp, " (no fabric: nothing planned or decided)\n");
}

/* A recording of another fabric than --topology plans with traffic it cannot place: say so. */
static void warn_unmatched(const struct cs_metrics *m, const struct cs_fabric *f,
                           const char *topology, const char *who)
{
    uint32_t recorded = 0, matched = 0;
    for (uint32_t p = 0; p < m->num_ports; p++)
        recorded += m->nodes[m->ports[p].node].type == CS_NODE_CA;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        const struct cs_port *port = &f->ports[p];
        matched += f->nodes[port->node].type == CS_NODE_CA && port->num > 0 &&
                   cs_metrics_find_port(m, f->nodes[port->node].guid, port->num) != UINT32_MAX;
    }
    if (matched < recorded)
        fprintf(stderr,
                "cloudsm %s: warning: %u of the %u CA ports recorded are not in %s: plans leave "
                "their traffic out (is it the recorded fabric?)\n",
                who, recorded - matched, recorded, topology);
}

/* Load what the options name, simulate, print. */
static int simulate_run(struct simulate_options *o, const char *rules_path, char **sets,
                        int num_sets, const char *store_path, const char *who)
{
    struct cs_adapt_rules *rules = NULL;
    int rc = read_rules(rules_path, sets, num_sets, who, &rules);
    if (rc != EXIT_OK)
        return rc;
    struct cs_error err;
    struct routed_fabric rf;
    bool have_fabric = false;
    struct cs_monitor *mon = NULL;
    struct cs_metrics recorded;
    cs_metrics_init(&recorded);
    if (o->topology) {
        if (routed_fabric_load(&rf, o->topology, o->lfts, NULL, false, &err) < 0)
            rc = cli_fail(who, &err);
        have_fabric = rc == EXIT_OK;
        o->sim.fabric = have_fabric ? &rf.fabric : NULL;
        o->sim.lfts = have_fabric ? &rf.lfts : NULL;
    }
    if (rc == EXIT_OK &&
        (cs_monitor_open(store_path, CS_MONITOR_READ_ONLY, &mon, &err) < 0 ||
         cs_monitor_load(mon, o->store.since, o->store.until, &recorded, &err) < 0))
        rc = cli_fail(who, &err);
    /* A sample still running at --until is not part of the replay. */
    recorded.num_samples = cs_metrics_samples_ended_by(&recorded, o->store.until);
    if (rc == EXIT_OK && have_fabric)
        warn_unmatched(&recorded, &rf.fabric, o->topology, who);
    struct cli_output out;
    if (rc == EXIT_OK && cli_output_open(&out, o->store.output, &err) < 0)
        rc = cli_fail(who, &err);
    if (rc == EXIT_OK) {
        struct simulation sim = {.fp = out.fp,
                                 .json = o->store.format == CLI_FORMAT_JSON,
                                 .rules = rules,
                                 .t_smp_known = o->sim.t_smp_ms > 0};
        struct cs_adapt_sim_totals totals;
        if (sim.json)
            json_head(&sim, o, rules_path, store_path);
        if (cs_adapt_simulate(rules, &recorded, &o->sim, simulated_step, &sim, &totals, &err) != 0)
            rc = cli_fail(who, &err);
        else
            print_summary(&sim, &totals, have_fabric);
        rc = cli_output_close(&out, who, rc);
    }
    cs_metrics_free(&recorded);
    cs_monitor_close(mon);
    if (have_fabric)
        routed_fabric_free(&rf);
    cs_adapt_rules_free(rules);
    return rc;
}

static int adapt_simulate(int argc, char **argv)
{
    const char *who = argv[0];
    enum {
        OPT_STEP = CLI_STORE_OPT_OWN,
        OPT_SIM_SET,
        OPT_TOPOLOGY,
        OPT_LFTS,
        OPT_MODE,
        OPT_MIN_GAIN,
        OPT_PER_PERCENT,
        OPT_PER_HOUR,
        OPT_QUIET,
        OPT_UTC,
        OPT_T_SMP,
    };
    static const struct option options[] = {
        CLI_STORE_LONG_OPTIONS,
        {"step", required_argument, NULL, OPT_STEP},
        {"set", required_argument, NULL, OPT_SIM_SET},
        {"topology", required_argument, NULL, OPT_TOPOLOGY},
        {"lfts", required_argument, NULL, OPT_LFTS},
        {"mode", required_argument, NULL, OPT_MODE},
        {"min-gain", required_argument, NULL, OPT_MIN_GAIN},
        {"max-smps-per-percent", required_argument, NULL, OPT_PER_PERCENT},
        {"max-smps-per-hour", required_argument, NULL, OPT_PER_HOUR},
        {"quiet-hours", required_argument, NULL, OPT_QUIET},
        {"utc", no_argument, NULL, OPT_UTC},
        {"t-smp", required_argument, NULL, OPT_T_SMP},
        {NULL, 0, NULL, 0},
    };
    struct simulate_options o = {
        .sim.policy = {.mode = CS_ADAPT_MODE_ON,
                       .min_gain_percent = CS_SM_CONFIG_DEFAULT_ADAPT_MIN_GAIN}};
    char **sets = calloc((size_t)argc, sizeof(*sets));
    int num_sets = 0, opt, rc = EXIT_OK;
    if (sets == NULL)
        return cli_usage(who, "out of memory");
    struct cs_error err;
    while (rc == EXIT_OK &&
           (opt = cli_store_getopt(argc, argv, options, &o.store, who, &rc)) >= 0) {
        int mode;
        for (const struct option *k = options; k->name && !o.policy_option && opt >= OPT_MODE; k++)
            if (k->val == opt)
                o.policy_option = k->name;
        switch (opt) {
        case OPT_STEP:
            if (cs_duration_parse(optarg, &o.sim.step_s, &err) < 0)
                rc = cli_usage(who, "--step %s", err.msg);
            break;
        case OPT_SIM_SET:
            if (strchr(optarg, '=') == NULL || optarg[0] == '=')
                rc = cli_usage(who, "--set wants NAME=VALUE, not '%s'", optarg);
            sets[num_sets++] = optarg;
            break;
        case OPT_TOPOLOGY:
            o.topology = optarg;
            break;
        case OPT_LFTS:
            o.lfts = optarg;
            break;
        case OPT_MODE:
            mode = cs_adapt_mode_parse(optarg);
            if (mode != CS_ADAPT_MODE_ON && mode != CS_ADAPT_MODE_DRY_RUN)
                rc = cli_usage(who, "--mode is on or dry-run, not '%s'", optarg);
            else
                o.sim.policy.mode = (enum cs_adapt_mode)mode;
            break;
        case OPT_MIN_GAIN:
            if (!cli_parse_uint(optarg, 0, 100, &o.sim.policy.min_gain_percent))
                rc = cli_usage(who, "--min-gain wants a percentage 0 to 100, not '%s'", optarg);
            break;
        case OPT_PER_PERCENT:
            if (!cli_parse_uint(optarg, 0, 1000000000, &o.sim.policy.max_smps_per_percent))
                rc = cli_usage(who, "--max-smps-per-percent wants 0 (no bound) to 1e9, not '%s'",
                               optarg);
            break;
        case OPT_PER_HOUR:
            if (!cli_parse_uint(optarg, 0, 1000000000, &o.sim.policy.max_smps_per_hour))
                rc = cli_usage(who, "--max-smps-per-hour wants 0 (no limit) to 1e9, not '%s'",
                               optarg);
            break;
        case OPT_QUIET:
            o.quiet = optarg;
            if (cs_adapt_quiet_hours_parse(&o.sim.policy, optarg, &err) < 0)
                rc = cli_usage(who, "--quiet-hours %s", err.msg);
            break;
        case OPT_UTC:
            o.sim.utc = true;
            break;
        case OPT_T_SMP:
            if (!cli_parse_seconds(optarg, &o.sim.t_smp_ms))
                rc = cli_usage(who, "--t-smp wants milliseconds above 0, not '%s'", optarg);
            break;
        default:
            rc = cli_usage(who, "unknown option");
        }
    }
    char path[4096];
    if (rc == EXIT_OK && argc - optind != 1)
        rc = cli_usage(who, "wants one rules file");
    if (rc == EXIT_OK && (o.topology == NULL) != (o.lfts == NULL))
        rc = cli_usage(who, "--topology and --lfts go together: the fabric and its tables");
    if (rc == EXIT_OK && o.policy_option && o.topology == NULL)
        rc = cli_usage(who, "--%s is for deciding reroutes: give --topology and --lfts",
                       o.policy_option);
    if (rc == EXIT_OK)
        rc = cli_store_check(&o.store, argc, argv, 1, who, "@0", path, sizeof path);
    if (rc == EXIT_OK)
        rc = simulate_run(&o, argv[optind], sets, num_sets, path, who);
    free(sets);
    return rc;
}

const struct cli_command cli_adapt_commands[] = {
    {"adapt", "check", "read and type-check IBAdapt rules, list them", check_help, adapt_check},
    {"adapt", "actions", "the actions IBAdapt rules can take, with their arguments", actions_help,
     adapt_actions},
    {"adapt", "simulate",
     "replay a monitoring store through IBAdapt rules: what fires, what the loop decides",
     simulate_help, adapt_simulate},
    {"adapt", NULL, NULL, NULL, NULL},
};
