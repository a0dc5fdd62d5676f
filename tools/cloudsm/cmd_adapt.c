/* cloudsm adapt check|actions: IBAdapt rules files read and type-checked, and the action
 * registry (include/cloudsm/adapt.h, docs/adapt/language.md). Options and output here; the
 * language is the library's. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/adapt.h"
#include "cloudsm/json.h"

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
    struct cs_error err;
    struct cs_adapt_rules *r;
    int rc = EXIT_OK;
    if (cs_adapt_read(path, &r, &err) < 0) {
        free(sets);
        return cli_fail(who, &err);
    }
    for (int i = 0; i < num_sets && rc == EXIT_OK; i++) {
        char *eq = strchr(sets[i], '=');
        *eq = '\0';
        if (cs_adapt_set_param(r, sets[i], eq + 1, &err) < 0)
            rc = cli_fail(who, &err);
        *eq = '=';
    }
    if (rc == EXIT_OK) {
        if (as_json)
            print_json(path, r);
        else
            print_text(path, r);
    }
    cs_adapt_rules_free(r);
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

const struct cli_command cli_adapt_commands[] = {
    {"adapt", "check", "read and type-check IBAdapt rules, list them", check_help, adapt_check},
    {"adapt", "actions", "the actions IBAdapt rules can take, with their arguments", actions_help,
     adapt_actions},
    {"adapt", NULL, NULL, NULL, NULL},
};
