/* Rules as the API hands them out (adapt.h): parse and check in one call, parameter overrides,
 * listings. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/check.h"
#include "adapt/eval.h"
#include "adapt/parse.h"
#include "cloudsm/adapt.h"
#include "cloudsm/atomic_file.h"

void cs_adapt_rules_free(struct cs_adapt_rules *r)
{
    if (r == NULL)
        return;
    struct adapt_arena arena = r->arena; /* r lives in it */
    adapt_arena_free(&arena);
}

int cs_adapt_parse(const char *text, size_t len, const char *name, struct cs_adapt_rules **out,
                   struct cs_error *err)
{
    *out = NULL;
    struct adapt_arena arena = {NULL};
    struct cs_adapt_rules *r = adapt_alloc(&arena, sizeof(*r));
    if (r == NULL)
        return cs_fail(err, "out of memory");
    r->arena = arena; /* from here on the rules own their arena, which holds them */
    name = name ? name : "<input>";
    r->name = adapt_strndup(&r->arena, name, strlen(name));
    struct adapt_parse p = {.arena = &r->arena, .name = r->name, .err = err};
    int rc = r->name == NULL ? cs_fail(err, "out of memory") : adapt_parse_text(&p, text, len);
    if (rc == 0)
        rc = adapt_check(r, &p, err);
    if (rc < 0) {
        cs_adapt_rules_free(r);
        return -1;
    }
    *out = r;
    return 0;
}

int cs_adapt_read(const char *path, struct cs_adapt_rules **out, struct cs_error *err)
{
    char *text;
    size_t len;
    *out = NULL;
    if (cs_read_whole_file(path, &text, &len, err) < 0)
        return -1;
    int rc = cs_adapt_parse(text, len, path, out, err);
    free(text);
    return rc;
}

static struct adapt_param *find(const struct cs_adapt_rules *r, const char *name)
{
    for (uint32_t i = 0; i < r->num_params; i++)
        if (strcmp(r->params[i]->name, name) == 0)
            return r->params[i];
    return NULL;
}

/* The value text parsed and typed as a constant in a scratch arena. */
static int parse_value(const char *label, const char *text, struct adapt_arena *scratch,
                       struct cs_adapt_value *v, struct cs_error *err)
{
    struct adapt_parse p = {.arena = scratch, .name = label, .err = err, .value_only = true};
    if (adapt_parse_text(&p, text, strlen(text)) < 0 ||
        adapt_check_constant(label, p.value, err) < 0)
        return -1;
    struct adapt_eval ev = {0};
    if (adapt_eval_expr(&ev, p.value, v) != 0)
        return cs_fail(err, "%s: cannot be computed: %s", label, ev.why);
    return 0;
}

int cs_adapt_set_param(struct cs_adapt_rules *r, const char *name, const char *value,
                       struct cs_error *err)
{
    struct adapt_param *p = find(r, name);
    if (p == NULL) {
        char list[256] = "";
        size_t used = 0;
        for (uint32_t i = 0; i < r->num_params && used < sizeof list; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                     r->params[i]->name);
        return cs_fail(err, "%s: no parameter '%s' (parameters: %s)", r->name, name,
                       used ? list : "none");
    }
    char label[128];
    snprintf(label, sizeof label, "parameter %s", name);
    struct adapt_arena scratch = {NULL};
    struct cs_adapt_value v;
    int rc;
    if (p->value.type == CS_ADAPT_STRING && value[0] != '"') {
        v = (struct cs_adapt_value){.type = CS_ADAPT_STRING, .text = value}; /* a bare word */
        rc = 0;
    } else {
        rc = parse_value(label, value, &scratch, &v, err);
    }
    if (rc == 0 && v.type != p->value.type)
        rc = cs_fail(err, "%s: '%s' is a %s; %s is a %s (declared at %s:%u:%u)", label, value,
                     cs_adapt_type_name(v.type), name, cs_adapt_type_name(p->value.type), r->name,
                     p->loc.line, p->loc.column);
    if (rc == 0 && v.text != NULL &&
        (v.text = adapt_strndup(&r->arena, v.text, strlen(v.text))) == NULL)
        rc = cs_fail(err, "out of memory");
    adapt_arena_free(&scratch);
    if (rc < 0)
        return -1;
    struct cs_adapt_value old = p->value;
    bool was = p->overridden;
    p->value = v;
    p->overridden = true;
    char why[CS_ERROR_MAX];
    struct cs_error check;
    if (adapt_check_values(r, &check) < 0) {
        p->value = old;
        p->overridden = was;
        snprintf(why, sizeof why, "%s", check.msg);
        return cs_fail(err, "%s = %s: %s", label, value, why);
    }
    return 0;
}

uint32_t cs_adapt_param_count(const struct cs_adapt_rules *r)
{
    return r->num_params;
}

void cs_adapt_param_get(const struct cs_adapt_rules *r, uint32_t i, struct cs_adapt_param_info *out)
{
    const struct adapt_param *p = r->params[i];
    *out =
        (struct cs_adapt_param_info){p->name, p->loc.line, p->loc.column, p->value, p->overridden};
}

double cs_adapt_rules_longest_window(const struct cs_adapt_rules *r)
{
    return r->longest_window;
}

uint32_t cs_adapt_rule_count(const struct cs_adapt_rules *r)
{
    return r->num_rules;
}

void cs_adapt_rule_get(const struct cs_adapt_rules *r, uint32_t i, struct cs_adapt_rule_info *out)
{
    const struct adapt_rule *rule = r->rules[i];
    *out = (struct cs_adapt_rule_info){
        .name = rule->name,
        .line = rule->loc.line,
        .column = rule->loc.column,
        .priority = rule->priority,
        .for_s = adapt_static_number(r, rule->hold),
        .cooldown_s = adapt_static_number(r, rule->cooldown),
        .condition = rule->condition_text,
        .num_actions = rule->num_actions,
        .actions = rule->action_texts,
    };
}
