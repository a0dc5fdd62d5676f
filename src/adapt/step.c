/* One evaluation step (cs_adapt_step): every rule's condition at a time, its `for` and
 * `cooldown` timers, and the firings with their actions resolved. The state changes only when
 * the whole step succeeds. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/ast.h"
#include "adapt/eval.h"
#include "adapt/print.h"
#include "cloudsm/adapt.h"
#include "core/grow.h"

/* Timers compare times since the epoch: differences are exact to about a microsecond. */
#define TIME_SLACK 1e-6

static const char *const status_names[] = {
    [CS_ADAPT_IDLE] = "idle",           [CS_ADAPT_FALSE] = "false",
    [CS_ADAPT_UNDEFINED] = "undefined", [CS_ADAPT_HOLDING] = "holding",
    [CS_ADAPT_COOLDOWN] = "cooldown",   [CS_ADAPT_FIRED] = "fired",
};

const char *cs_adapt_status_name(enum cs_adapt_status s)
{
    return (unsigned)s <= CS_ADAPT_FIRED ? status_names[s] : "?";
}

int cs_adapt_state_init(struct cs_adapt_state *s, const struct cs_adapt_rules *r,
                        struct cs_error *err)
{
    memset(s, 0, sizeof(*s));
    s->rules = cs_calloc_array(r->num_rules, sizeof(*s->rules), err);
    if (s->rules == NULL)
        return -1;
    s->num_rules = r->num_rules;
    return 0;
}

void cs_adapt_state_free(struct cs_adapt_state *s)
{
    free(s->rules);
    memset(s, 0, sizeof(*s));
}

void cs_adapt_state_outcome(struct cs_adapt_state *s, uint32_t rule, bool executed)
{
    if (rule >= s->num_rules)
        return;
    struct cs_adapt_rule_state *rs = &s->rules[rule];
    rs->outcome = executed ? CS_ADAPT_EXECUTED : CS_ADAPT_REFUSED;
    if (executed)
        rs->executed++;
    else
        rs->refused++;
}

const struct cs_adapt_value *cs_adapt_action_arg(const struct cs_adapt_action *a, const char *name)
{
    for (uint32_t i = 0; i < a->num_args; i++)
        if (strcmp(a->args[i].name, name) == 0)
            return &a->args[i].value;
    return NULL;
}

static void free_actions(struct cs_adapt_action *actions, uint32_t count)
{
    for (uint32_t i = 0; actions != NULL && i < count; i++) {
        for (uint32_t k = 0; k < actions[i].num_args; k++) {
            free((char *)actions[i].args[k].value.text);
            free(actions[i].args[k].value.guids);
        }
        free(actions[i].args);
    }
    free(actions);
}

void cs_adapt_firings_free(struct cs_adapt_firing *f, uint32_t count)
{
    for (uint32_t i = 0; f != NULL && i < count; i++)
        free_actions(f[i].actions, f[i].num_actions);
    free(f);
}

/* Resolve one argument: evaluate it, and own its text. */
static int resolve_arg(struct adapt_eval *ev, const struct adapt_named_arg *n,
                       struct cs_adapt_action_arg *out, struct cs_error *err)
{
    out->name = n->def->name;
    struct cs_adapt_value v;
    if (n->def->type == CS_ADAPT_PARAM) {
        v = (struct cs_adapt_value){.type = CS_ADAPT_PARAM, .text = n->value->text};
    } else {
        int rc = adapt_eval_expr(ev, n->value, &v);
        if (rc != 0)
            return rc;
    }
    out->value = v;
    if (v.text != NULL && (out->value.text = strdup(v.text)) == NULL) {
        free(v.guids);
        out->value.guids = NULL;
        return cs_fail(err, "out of memory");
    }
    return 0;
}

/* Every action of a rule, resolved: 0, 1 (an argument has no value: ev->why), -1 (err). */
static int resolve_actions(struct adapt_eval *ev, const struct adapt_rule *rule,
                           struct cs_adapt_action **out, struct cs_error *err)
{
    struct cs_adapt_action *actions = cs_calloc_array(rule->num_actions, sizeof(*actions), err);
    if (actions == NULL)
        return -1;
    uint32_t i = 0;
    int rc = 0;
    for (const struct adapt_action_call *a = rule->actions; a != NULL && rc == 0;
         a = a->next, i++) {
        uint32_t count = 0;
        for (const struct adapt_named_arg *n = a->args; n != NULL; n = n->next)
            count++;
        actions[i].name = a->def->name;
        actions[i].args = cs_calloc_array(count, sizeof(*actions[i].args), err);
        if (actions[i].args == NULL) {
            rc = -1;
            break;
        }
        /* in the registry's order, whatever the order written */
        for (const struct cs_adapt_arg_def *d = a->def->args; d->name && rc == 0; d++)
            for (const struct adapt_named_arg *n = a->args; n != NULL && rc == 0; n = n->next)
                if (n->def == d) {
                    rc = resolve_arg(ev, n, &actions[i].args[actions[i].num_args], err);
                    if (rc == 0)
                        actions[i].num_args++;
                }
    }
    if (rc != 0) {
        free_actions(actions, rule->num_actions);
        return rc;
    }
    *out = actions;
    return 0;
}

/* Step one rule: its new state in rs; a firing's actions in *actions. */
static int step_rule(const struct cs_adapt_rules *r, const struct adapt_rule *rule,
                     struct cs_adapt_rule_state *rs, const struct cs_metrics *m, double now,
                     struct cs_adapt_action **actions, struct cs_error *err)
{
    struct adapt_eval ev = {.rules = r, .m = m, .now = now, .err = err};
    struct cs_adapt_value v;
    enum cs_adapt_status before = rs->status;
    int rc = adapt_eval_expr(&ev, rule->when, &v);
    if (rc < 0)
        return -1;
    if (rc == 0)
        adapt_print_expr(rs->explanation, sizeof rs->explanation, rule->when, &ev);
    if (rc == 1 || v.number == 0) {
        rs->holding = false;
        rs->status = rc == 1 ? CS_ADAPT_UNDEFINED : CS_ADAPT_FALSE;
    } else {
        if (!rs->holding) {
            rs->holding = true;
            rs->held_since = now;
        }
        if (now - rs->held_since < adapt_static_number(r, rule->hold) - TIME_SLACK) {
            rs->status = CS_ADAPT_HOLDING;
        } else if (rs->has_fired &&
                   now - rs->last_fired < adapt_static_number(r, rule->cooldown) - TIME_SLACK) {
            rs->status = CS_ADAPT_COOLDOWN;
        } else if ((rc = resolve_actions(&ev, rule, actions, err)) != 0) {
            if (rc < 0)
                return -1;
            rs->holding = false;
            rs->status = CS_ADAPT_UNDEFINED;
        } else {
            rs->status = CS_ADAPT_FIRED;
            rs->has_fired = true;
            rs->last_fired = now;
            rs->held_since = now; /* firing again takes another `for` of holding */
            rs->outcome = CS_ADAPT_PENDING;
            rs->fired++;
        }
    }
    if (rs->status == CS_ADAPT_UNDEFINED)
        snprintf(rs->explanation, sizeof rs->explanation, "cannot evaluate: %s", ev.why);
    rs->changed = rs->status != before || rs->status == CS_ADAPT_FIRED;
    return 0;
}

int cs_adapt_step(const struct cs_adapt_rules *r, struct cs_adapt_state *s,
                  const struct cs_metrics *m, double now, struct cs_adapt_firing **firings,
                  uint32_t *count, struct cs_error *err)
{
    *firings = NULL;
    *count = 0;
    if (s->num_rules != r->num_rules)
        return cs_fail(err, "the state is not of these rules (%u rules, %u states)", r->num_rules,
                       s->num_rules);
    if (!isfinite(now))
        return cs_fail(err, "step at a time that is not a number");
    if (s->stepped && now < s->last_step)
        return cs_fail(err, "step at %.3f before the previous one (%.3f)", now, s->last_step);
    struct cs_adapt_rule_state *next = cs_calloc_array(r->num_rules, sizeof(*next), err);
    struct cs_adapt_firing *fired = cs_calloc_array(r->num_rules, sizeof(*fired), err);
    uint32_t n = 0;
    if (next == NULL || fired == NULL)
        goto fail;
    if (r->num_rules > 0)
        memcpy(next, s->rules, r->num_rules * sizeof(*next));
    for (uint32_t i = 0; i < r->num_rules; i++) {
        const struct adapt_rule *rule = r->rules[i];
        struct cs_adapt_action *actions = NULL;
        if (step_rule(r, rule, &next[i], m, now, &actions, err) < 0)
            goto fail;
        if (next[i].status != CS_ADAPT_FIRED)
            continue;
        struct cs_adapt_firing *f = &fired[n++];
        f->rule = i;
        f->rule_name = rule->name;
        f->priority = rule->priority;
        f->time = now;
        memcpy(f->explanation, next[i].explanation, sizeof f->explanation);
        f->actions = actions;
        f->num_actions = rule->num_actions;
    }
    memcpy(s->rules, next, r->num_rules * sizeof(*next));
    free(next);
    s->stepped = true;
    s->last_step = now;
    if (n == 0) {
        free(fired);
        fired = NULL;
    }
    *firings = fired;
    *count = n;
    return 0;
fail:
    free(next);
    cs_adapt_firings_free(fired, n);
    return -1;
}

int cs_adapt_write_step(FILE *out, const struct cs_adapt_rules *r, const struct cs_adapt_state *s,
                        double now, const struct cs_adapt_firing *firings, uint32_t count,
                        struct cs_error *err)
{
    for (uint32_t i = 0; i < s->num_rules && i < r->num_rules; i++) {
        const struct cs_adapt_rule_state *rs = &s->rules[i];
        if (rs->changed)
            fprintf(out, "%.3f %s %s: %s\n", now, r->rules[i]->name,
                    cs_adapt_status_name(rs->status), rs->explanation);
    }
    for (uint32_t i = 0; i < count; i++)
        for (uint32_t k = 0; k < firings[i].num_actions; k++) {
            const struct cs_adapt_action *a = &firings[i].actions[k];
            fprintf(out, "%.3f %s -> %s(", now, firings[i].rule_name, a->name);
            for (uint32_t j = 0; j < a->num_args; j++) {
                char text[4096];
                fprintf(out, "%s%s = %s", j ? ", " : "", a->args[j].name,
                        cs_adapt_value_format(&a->args[j].value, 17, text, sizeof text));
            }
            fprintf(out, ")\n");
        }
    if (ferror(out))
        return cs_fail(err, "cannot write the step's report");
    return 0;
}
