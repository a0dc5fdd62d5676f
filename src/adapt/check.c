/* The checker (check.h). Every error names the place it is about: the operator of a mixed
 * operation, the argument of a wrong type, the action a required argument is missing from. */
#include "adapt/check.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/eval.h"
#include "adapt/print.h"
#include "adapt/units.h"
#include "cloudsm/partitions.h"
#include "cloudsm/route.h"

/* Where an expression stands decides what it may use. */
enum place {
    ANYWHERE, /* a condition, an action's argument: measurements too */
    STATIC,   /* `for`, `cooldown`, `over`, a partition, top's count: parameters, no measurement */
    CONSTANT, /* a parameter's value: literals and operators only */
};

struct checker {
    struct cs_adapt_rules *r; /* NULL for a lone constant */
    const char *name;
    struct cs_error *err;
    const char *what; /* what the place is, for messages: "'for'", "a parameter's value" */
};

#define FAIL(c, loc, ...) adapt_fail_at((c)->err, (c)->name, loc, __VA_ARGS__)

/* "a duration", "an identifier": a type with its article, for messages. */
static const char *a_type(enum cs_adapt_type t)
{
    static const char *const with_article[CS_ADAPT_TYPE_COUNT] = {
        [CS_ADAPT_NUMBER] = "a number",
        [CS_ADAPT_DURATION] = "a duration",
        [CS_ADAPT_RATE] = "a rate",
        [CS_ADAPT_COUNT_RATE] = "a count rate",
        [CS_ADAPT_BOOL] = "a bool",
        [CS_ADAPT_STRING] = "a string",
        [CS_ADAPT_NODE_LIST] = "a node list",
        [CS_ADAPT_WEIGHTS] = "weights",
        [CS_ADAPT_PARAM] = "a parameter name",
        [CS_ADAPT_ANY] = "a value",
    };
    return (unsigned)t < CS_ADAPT_TYPE_COUNT ? with_article[t] : "?";
}

/* Types that measure something: they add, scale and compare. */
static bool is_quantity(enum cs_adapt_type t)
{
    return t == CS_ADAPT_NUMBER || t == CS_ADAPT_DURATION || t == CS_ADAPT_RATE ||
           t == CS_ADAPT_COUNT_RATE;
}

/* "xmit_bytes, rcv_bytes, ..." of a name table, for "unknown ... (known: ...)" messages. */
static const char *list_names(const char *(*name_of)(int), int count, char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < count && used < size; i++)
        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", name_of(i));
    return buf;
}

static const char *entity_name_of(int i)
{
    return adapt_entity_name((enum adapt_entity)i);
}
static const char *quantity_name_of(int i)
{
    return adapt_quantity_name((enum adapt_quantity)i);
}
static const char *func_name_of(int i)
{
    return adapt_func_name((enum adapt_func)i);
}
static const char *action_name_of(int i)
{
    return cs_adapt_actions[i].name;
}

/* The type a metric's values have. */
static enum cs_adapt_type quantity_type(enum adapt_quantity q)
{
    switch ((int)q) {
    case CS_METRIC_XMIT_BYTES:
    case CS_METRIC_RCV_BYTES:
    case Q_THROUGHPUT:
    case Q_LINK_RATE:
        return CS_ADAPT_RATE;
    case Q_UTILISATION:
        return CS_ADAPT_NUMBER;
    default:
        return CS_ADAPT_COUNT_RATE;
    }
}

static struct adapt_param *find_param(const struct cs_adapt_rules *r, const char *name,
                                      uint32_t *index)
{
    for (uint32_t i = 0; r != NULL && i < r->num_params; i++)
        if (strcmp(r->params[i]->name, name) == 0) {
            *index = i;
            return r->params[i];
        }
    return NULL;
}

static int check_expr(struct checker *c, struct adapt_expr *e, enum place place);

/* An argument that must be a static expression of type want (`over`, a partition, top's
 * count). */
static int check_static(struct checker *c, struct adapt_expr *e, enum cs_adapt_type want,
                        const char *what)
{
    const char *saved = c->what;
    c->what = what;
    int rc = check_expr(c, e, STATIC);
    c->what = saved;
    if (rc < 0)
        return -1;
    if (e->type != want)
        return FAIL(c, e->loc, "%s is %s, not %s", what, a_type(want), a_type(e->type));
    return 0;
}

/* ENTITY.METRIC with its modifiers, as an aggregate's or top's argument. */
static int check_selection(struct checker *c, const struct adapt_expr *call,
                           struct adapt_call_arg *arg)
{
    struct adapt_expr *sel = arg->value;
    const char *fn = call->text;
    char names[256];
    if (sel == NULL || sel->kind != AX_METRIC)
        return FAIL(c, sel ? sel->loc : arg->loc,
                    "%s() takes a measurement ENTITY.METRIC, e.g. %s(node.rcv_bytes)", fn, fn);
    int entity = adapt_entity_from_name(sel->text);
    if (entity < 0)
        return FAIL(c, sel->loc, "unknown entity '%s' (entities: %s)", sel->text,
                    list_names(entity_name_of, ENT_COUNT, names, sizeof names));
    int quantity = adapt_quantity_from_name(sel->metric_name);
    if (quantity < 0)
        return FAIL(c, sel->metric_loc, "unknown metric '%s' (metrics: %s)", sel->metric_name,
                    list_names(quantity_name_of, Q_COUNT, names, sizeof names));
    sel->entity = (enum adapt_entity)entity;
    sel->quantity = (enum adapt_quantity)quantity;
    sel->type = quantity_type(sel->quantity);
    if (arg->over != NULL && check_static(c, arg->over, CS_ADAPT_DURATION, "'over'") < 0)
        return -1;
    if (arg->partition != NULL) {
        if (sel->entity == ENT_SWITCH)
            return FAIL(c, arg->partition_loc,
                        "switches are in no partition (members are CA nodes): 'in partition' "
                        "filters port, node, link and fabric");
        if (check_static(c, arg->partition, CS_ADAPT_STRING, "a partition") < 0)
            return -1;
    }
    return 0;
}

/* No modifier where there is nothing to modify. */
static int check_no_modifiers(struct checker *c, const struct adapt_call_arg *arg, const char *fn)
{
    if (arg->over != NULL)
        return FAIL(c, arg->over_loc,
                    "'over' belongs to a measurement, not to this argument of %s()", fn);
    if (arg->partition != NULL)
        return FAIL(c, arg->partition_loc,
                    "'in partition' belongs to a measurement, not to this argument of %s()", fn);
    return 0;
}

static int check_call(struct checker *c, struct adapt_expr *e, enum place place)
{
    char names[256];
    int f = adapt_func_from_name(e->text);
    if (f < 0)
        return FAIL(c, e->loc, "unknown function '%s' (functions: %s)", e->text,
                    list_names(func_name_of, F_NONE, names, sizeof names));
    e->func = (enum adapt_func)f;
    if (place != ANYWHERE && e->func != F_LEARNED)
        return FAIL(c, e->loc, "%s is a constant: it cannot measure (%s())", c->what, e->text);
    struct adapt_call_arg *first = e->args;
    switch (e->func) {
    case F_TOP:
        if (e->num_args != 2)
            return FAIL(c, e->loc, "top() takes a measurement and a count: top(node.rcv_bytes, 4)");
        if (check_selection(c, e, first) < 0)
            return -1;
        if (first->value->entity != ENT_NODE)
            return FAIL(c, first->value->loc, "top() ranks nodes: top(node.METRIC, N)");
        if (check_no_modifiers(c, first->next, "top") < 0 ||
            check_static(c, first->next->value, CS_ADAPT_NUMBER, "top's count") < 0)
            return -1;
        e->type = CS_ADAPT_NODE_LIST;
        return 0;
    case F_LEARNED:
        if (e->num_args != 1 || first->value != NULL || first->over == NULL ||
            first->partition != NULL)
            return FAIL(c, e->loc, "learned() takes a window: learned(over 5m)");
        if (check_static(c, first->over, CS_ADAPT_DURATION, "'over'") < 0)
            return -1;
        e->type = CS_ADAPT_WEIGHTS;
        e->is_static = first->over->is_static;
        return 0;
    default:
        if (e->num_args != 1)
            return FAIL(c, e->loc, "%s() takes one measurement: %s(node.rcv_bytes)", e->text,
                        e->text);
        if (check_selection(c, e, first) < 0)
            return -1;
        e->type = e->func == F_COUNT ? CS_ADAPT_NUMBER : first->value->type;
        return 0;
    }
}

static int check_name(struct checker *c, struct adapt_expr *e, enum place place)
{
    if (place == CONSTANT)
        return FAIL(c, e->loc, "%s is a constant: it cannot name '%s'", c->what, e->text);
    struct adapt_param *p = find_param(c->r, e->text, &e->param);
    if (p != NULL) {
        e->type = p->value.type;
        e->is_static = true;
        return 0;
    }
    if (adapt_entity_from_name(e->text) >= 0)
        return FAIL(c, e->loc,
                    "unknown parameter '%s' (a measurement is ENTITY.METRIC in an aggregate: "
                    "avg(%s.rcv_bytes))",
                    e->text, e->text);
    if (adapt_func_from_name(e->text) >= 0)
        return FAIL(c, e->loc, "%s is a function: %s(...)", e->text, e->text);
    return FAIL(c, e->loc, "unknown parameter '%s'", e->text);
}

static int check_binary(struct checker *c, struct adapt_expr *e)
{
    enum cs_adapt_type l = e->lhs->type, r = e->rhs->type;
    const char *op = adapt_op_text(e->op);
    switch (e->op) {
    case OP_OR:
    case OP_AND:
        if (l != CS_ADAPT_BOOL || r != CS_ADAPT_BOOL)
            return FAIL(c, e->loc, "'%s' joins bools, not %s and %s", op, a_type(l), a_type(r));
        e->type = CS_ADAPT_BOOL;
        return 0;
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
    case OP_EQ:
    case OP_NE:
        if (l != r)
            return FAIL(c, e->loc, "cannot compare %s with %s", a_type(l), a_type(r));
        if (!is_quantity(l) &&
            !((l == CS_ADAPT_BOOL || l == CS_ADAPT_STRING) && (e->op == OP_EQ || e->op == OP_NE)))
            return FAIL(c, e->loc, "cannot order %s with '%s'", a_type(l), op);
        e->type = CS_ADAPT_BOOL;
        return 0;
    case OP_ADD:
    case OP_SUB:
        if (!is_quantity(l) || l != r)
            return FAIL(c, e->loc, "cannot %s %s and %s", e->op == OP_ADD ? "add" : "subtract",
                        a_type(l), a_type(r));
        e->type = l;
        return 0;
    case OP_MUL:
        if (!is_quantity(l) || !is_quantity(r) || (l != CS_ADAPT_NUMBER && r != CS_ADAPT_NUMBER))
            return FAIL(c, e->loc, "cannot multiply %s by %s (one side must be a number)",
                        a_type(l), a_type(r));
        e->type = l == CS_ADAPT_NUMBER ? r : l;
        return 0;
    case OP_DIV:
        if (!is_quantity(l) || !is_quantity(r) || (r != CS_ADAPT_NUMBER && l != r))
            return FAIL(c, e->loc,
                        "cannot divide %s by %s (divide by a number, or by the same type "
                        "for a ratio)",
                        a_type(l), a_type(r));
        e->type = l == r ? CS_ADAPT_NUMBER : l;
        return 0;
    default:
        return FAIL(c, e->loc, "internal: operator %d", (int)e->op);
    }
}

static int check_expr(struct checker *c, struct adapt_expr *e, enum place place)
{
    switch (e->kind) {
    case AX_NUMBER:
    case AX_STRING:
    case AX_BOOL:
        if (e->kind == AX_STRING)
            e->type = CS_ADAPT_STRING;
        else if (e->kind == AX_BOOL)
            e->type = CS_ADAPT_BOOL;
        e->is_static = true;
        return 0;
    case AX_NAME:
        return check_name(c, e, place);
    case AX_METRIC:
        return FAIL(c, e->loc, "aggregate it: avg(%s.%s)", e->text, e->metric_name);
    case AX_CALL:
        if (place == CONSTANT)
            return FAIL(c, e->loc, "%s is a constant: it cannot call %s()", c->what, e->text);
        return check_call(c, e, place);
    case AX_UNARY:
        if (check_expr(c, e->lhs, place) < 0)
            return -1;
        e->is_static = e->lhs->is_static;
        if (e->op == OP_NOT && e->lhs->type != CS_ADAPT_BOOL)
            return FAIL(c, e->loc, "'not' wants a bool, not %s", a_type(e->lhs->type));
        if (e->op == OP_NEG && !is_quantity(e->lhs->type))
            return FAIL(c, e->loc, "cannot negate %s", a_type(e->lhs->type));
        e->type = e->lhs->type;
        return 0;
    case AX_BINARY:
        if (check_expr(c, e->lhs, place) < 0 || check_expr(c, e->rhs, place) < 0)
            return -1;
        e->is_static = e->lhs->is_static && e->rhs->is_static;
        return check_binary(c, e);
    }
    return FAIL(c, e->loc, "internal: expression kind %d", (int)e->kind);
}

int adapt_check_constant(const char *name, struct adapt_expr *e, struct cs_error *err)
{
    struct checker c = {NULL, name, err, "a parameter's value"};
    if (check_expr(&c, e, CONSTANT) < 0)
        return -1;
    if (!is_quantity(e->type) && e->type != CS_ADAPT_BOOL && e->type != CS_ADAPT_STRING)
        return FAIL(&c, e->loc, "a parameter cannot hold %s", a_type(e->type));
    return 0;
}

static int check_param(struct checker *c, struct adapt_param *p)
{
    uint32_t index;
    struct adapt_param *first = find_param(c->r, p->name, &index);
    if (first != NULL)
        return FAIL(c, p->loc, "parameter '%s' declared again (first at %u:%u)", p->name,
                    first->loc.line, first->loc.column);
    if (adapt_unit_is_word(p->name))
        return FAIL(c, p->loc, "'%s' is a unit: a parameter cannot be called so", p->name);
    if (adapt_entity_from_name(p->name) >= 0 || adapt_func_from_name(p->name) >= 0)
        return FAIL(c, p->loc, "'%s' is an entity or a function: a parameter cannot be called so",
                    p->name);
    if (adapt_check_constant(c->name, p->init, c->err) < 0)
        return -1;
    struct adapt_eval ev = {.rules = c->r};
    if (adapt_eval_expr(&ev, p->init, &p->value) != 0)
        return FAIL(c, p->init->loc, "the value of '%s' cannot be computed: %s", p->name, ev.why);
    return 0;
}

/* An action's named arguments against the registry. */
static int check_action(struct checker *c, struct adapt_action_call *a)
{
    char names[256];
    a->def = cs_adapt_action_find(a->name);
    if (a->def == NULL) {
        int count = 0;
        while (cs_adapt_actions[count].name)
            count++;
        return FAIL(c, a->loc, "unknown action '%s' (actions: %s)", a->name,
                    list_names(action_name_of, count, names, sizeof names));
    }
    const struct adapt_param *target = NULL;
    for (struct adapt_named_arg *n = a->args; n != NULL; n = n->next) {
        for (const struct cs_adapt_arg_def *d = a->def->args; d->name && !n->def; d++)
            if (strcmp(d->name, n->name) == 0)
                n->def = d;
        if (n->def == NULL) {
            size_t used = 0;
            names[0] = '\0';
            for (const struct cs_adapt_arg_def *d = a->def->args; d->name; d++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s",
                                         used ? ", " : "", d->name);
            return FAIL(c, n->loc, "%s() has no argument '%s' (arguments: %s)", a->name, n->name,
                        names);
        }
        for (struct adapt_named_arg *m = a->args; m != n; m = m->next)
            if (m->def == n->def)
                return FAIL(c, n->loc, "argument '%s' given twice", n->name);
        if (n->def->type == CS_ADAPT_PARAM) {
            uint32_t index;
            if (n->value->kind != AX_NAME)
                return FAIL(c, n->value->loc, "%s names a parameter: %s = NAME", n->name, n->name);
            target = find_param(c->r, n->value->text, &index);
            if (target == NULL)
                return FAIL(c, n->value->loc, "unknown parameter '%s'", n->value->text);
            n->value->param = index;
            n->value->type = CS_ADAPT_PARAM;
            n->value->is_static = true;
            continue;
        }
        c->what = "an argument";
        if (check_expr(c, n->value, ANYWHERE) < 0)
            return -1;
        if (n->def->type != CS_ADAPT_ANY && n->value->type != n->def->type)
            return FAIL(c, n->value->loc, "%s wants %s, not %s", n->name, a_type(n->def->type),
                        a_type(n->value->type));
    }
    for (const struct cs_adapt_arg_def *d = a->def->args; d->name; d++) {
        const struct adapt_named_arg *n = a->args;
        while (n != NULL && n->def != d)
            n = n->next;
        if (n == NULL && d->required)
            return FAIL(c, a->loc, "%s() needs argument '%s' (%s)", a->name, d->name,
                        a_type(d->type));
        /* set's value has its parameter's type */
        if (n != NULL && d->type == CS_ADAPT_ANY && target != NULL &&
            n->value->type != target->value.type)
            return FAIL(c, n->value->loc, "%s is %s, not %s", target->name,
                        a_type(target->value.type), a_type(n->value->type));
    }
    return 0;
}

static int check_rule(struct checker *c, struct adapt_rule *rule)
{
    for (uint32_t i = 0; i < c->r->num_rules; i++)
        if (strcmp(c->r->rules[i]->name, rule->name) == 0)
            return FAIL(c, rule->loc, "rule '%s' defined again (first at %u:%u)", rule->name,
                        c->r->rules[i]->loc.line, c->r->rules[i]->loc.column);
    c->what = "the condition";
    if (check_expr(c, rule->when, ANYWHERE) < 0)
        return -1;
    if (rule->when->type != CS_ADAPT_BOOL)
        return FAIL(c, rule->when->loc, "the condition is %s, not a bool",
                    a_type(rule->when->type));
    struct adapt_expr *durations[2] = {rule->hold, rule->cooldown};
    const char *what[2] = {"'for'", "'cooldown'"};
    for (int i = 0; i < 2; i++)
        if (durations[i] != NULL && check_static(c, durations[i], CS_ADAPT_DURATION, what[i]) < 0)
            return -1;
    for (struct adapt_action_call *a = rule->actions; a != NULL; a = a->next)
        if (check_action(c, a) < 0)
            return -1;
    return 0;
}

/* Evaluation order: higher priority first, ties in file order. */
static int by_priority(const void *a, const void *b)
{
    const struct adapt_rule *x = *(struct adapt_rule *const *)a,
                            *y = *(struct adapt_rule *const *)b;
    if (x->priority != y->priority)
        return x->priority > y->priority ? -1 : 1;
    return (x->file_index > y->file_index) - (x->file_index < y->file_index);
}

/* The canonical texts of a rule's condition and actions, for listings. */
static int rule_texts(struct cs_adapt_rules *r, struct adapt_rule *rule, struct cs_error *err)
{
    char buf[8192];
    adapt_print_expr(buf, sizeof buf, rule->when, NULL);
    rule->condition_text = adapt_strndup(&r->arena, buf, strlen(buf));
    rule->action_texts = adapt_alloc(&r->arena, rule->num_actions * sizeof(char *));
    if (rule->condition_text == NULL || rule->action_texts == NULL)
        return cs_fail(err, "out of memory");
    uint32_t i = 0;
    for (struct adapt_action_call *a = rule->actions; a != NULL; a = a->next, i++) {
        adapt_print_action(buf, sizeof buf, a);
        a->text = rule->action_texts[i] = adapt_strndup(&r->arena, buf, strlen(buf));
        if (a->text == NULL)
            return cs_fail(err, "out of memory");
    }
    return 0;
}

int adapt_check(struct cs_adapt_rules *r, const struct adapt_parse *p, struct cs_error *err)
{
    struct checker c = {r, r->name, err, ""};
    r->params = adapt_alloc(&r->arena, (p->num_params + 1) * sizeof(*r->params));
    r->rules = adapt_alloc(&r->arena, (p->num_rules + 1) * sizeof(*r->rules));
    if (r->params == NULL || r->rules == NULL)
        return cs_fail(err, "out of memory");
    for (struct adapt_param *param = p->params; param != NULL; param = param->next) {
        if (check_param(&c, param) < 0)
            return -1;
        r->params[r->num_params++] = param;
    }
    for (struct adapt_rule *rule = p->rules; rule != NULL; rule = rule->next) {
        if (check_rule(&c, rule) < 0)
            return -1;
        r->rules[r->num_rules++] = rule;
    }
    qsort(r->rules, r->num_rules, sizeof(*r->rules), by_priority);
    for (uint32_t i = 0; i < r->num_rules; i++)
        if (rule_texts(r, r->rules[i], err) < 0)
            return -1;
    return adapt_check_values(r, err);
}

/* ---- values ---- */

struct value_checker {
    const struct cs_adapt_rules *r;
    struct cs_error *err;
    double longest; /* the longest `over` window seen */
};

/* A static expression's current value; an error if it has none (division by zero). */
static int static_value(const struct value_checker *v, const struct adapt_expr *e,
                        struct cs_adapt_value *out)
{
    struct adapt_eval ev = {.rules = v->r};
    if (adapt_eval_expr(&ev, e, out) != 0)
        return adapt_fail_at(v->err, v->r->name, e->loc, "cannot be computed: %s", ev.why);
    return 0;
}

static int positive_duration(const struct value_checker *v, const struct adapt_expr *e,
                             const char *what, bool zero_ok)
{
    struct cs_adapt_value d;
    if (static_value(v, e, &d) < 0)
        return -1;
    if (d.number < 0 || (!zero_ok && d.number == 0) || !isfinite(d.number)) {
        char text[64];
        return adapt_fail_at(v->err, v->r->name, e->loc, "%s must be %s zero, not %s", what,
                             zero_ok ? "at least" : "above",
                             cs_adapt_value_format(&d, 6, text, sizeof text));
    }
    return 0;
}

/* Every call's static arguments under e. */
static int check_expr_values(struct value_checker *v, const struct adapt_expr *e)
{
    if (e == NULL)
        return 0;
    if (e->kind == AX_UNARY || e->kind == AX_BINARY)
        return check_expr_values(v, e->lhs) < 0 ? -1 : check_expr_values(v, e->rhs);
    if (e->kind != AX_CALL)
        return 0;
    for (const struct adapt_call_arg *arg = e->args; arg != NULL; arg = arg->next) {
        if ((arg->over != NULL && positive_duration(v, arg->over, "'over'", false) < 0) ||
            (arg->partition != NULL &&
             static_value(v, arg->partition, &(struct cs_adapt_value){0}) < 0))
            return -1;
        struct cs_adapt_value window;
        if (arg->over != NULL && static_value(v, arg->over, &window) == 0 &&
            window.number > v->longest)
            v->longest = window.number;
    }
    if (e->func == F_TOP) {
        struct cs_adapt_value n;
        const struct adapt_expr *count = e->args->next->value;
        if (static_value(v, count, &n) < 0)
            return -1;
        if (n.number < 1 || n.number > 1e6 || n.number != floor(n.number))
            return adapt_fail_at(v->err, v->r->name, count->loc,
                                 "top's count is a whole number from 1 to 1000000, not %g",
                                 n.number);
    }
    return 0;
}

static const struct adapt_named_arg *named(const struct adapt_action_call *a, const char *name)
{
    for (const struct adapt_named_arg *n = a->args; n != NULL; n = n->next)
        if (strcmp(n->def->name, name) == 0)
            return n;
    return NULL;
}

/* reroute's engine in the routing registry (one that re-routes a sub-tree when a subtree is
 * given); set_policy's isolation among partitions.conf's names. */
static int check_action_values(struct value_checker *v, const struct adapt_action_call *a)
{
    for (const struct adapt_named_arg *n = a->args; n != NULL; n = n->next)
        if (check_expr_values(v, n->value) < 0)
            return -1;
    const struct adapt_named_arg *engine = named(a, "engine");
    if (strcmp(a->def->name, "reroute") == 0 && engine != NULL) {
        struct cs_adapt_value name;
        char list[256];
        if (static_value(v, engine->value, &name) < 0)
            return -1;
        const struct cs_route_engine *e = cs_route_engine_find(name.text);
        if (e == NULL)
            return adapt_fail_at(v->err, v->r->name, engine->value->loc,
                                 "unknown routing engine \"%s\" (engines: %s)", name.text,
                                 cs_route_engine_names(list, sizeof list));
        if (named(a, "subtree") != NULL && !e->subtree) {
            size_t used = 0;
            list[0] = '\0';
            for (const struct cs_route_engine *s = cs_route_engines; s->name; s++)
                if (s->subtree)
                    used += (size_t)snprintf(list + used, sizeof list - used, "%s%s",
                                             used ? ", " : "", s->name);
            return adapt_fail_at(v->err, v->r->name, engine->value->loc,
                                 "engine \"%s\" cannot re-route a sub-tree (engines that can: %s)",
                                 name.text, list);
        }
    }
    const struct adapt_named_arg *isolation = named(a, "isolation");
    if (strcmp(a->def->name, "set_policy") == 0 && isolation != NULL) {
        struct cs_adapt_value name;
        if (static_value(v, isolation->value, &name) < 0)
            return -1;
        if (cs_isolation_parse(name.text) < 0)
            return adapt_fail_at(v->err, v->r->name, isolation->value->loc,
                                 "unknown isolation \"%s\" (phy, vlane or def)", name.text);
    }
    return 0;
}

int adapt_check_values(struct cs_adapt_rules *r, struct cs_error *err)
{
    struct value_checker v = {r, err, 0};
    for (uint32_t i = 0; i < r->num_rules; i++) {
        const struct adapt_rule *rule = r->rules[i];
        if ((rule->hold != NULL && positive_duration(&v, rule->hold, "'for'", true) < 0) ||
            (rule->cooldown != NULL &&
             positive_duration(&v, rule->cooldown, "'cooldown'", true) < 0) ||
            check_expr_values(&v, rule->when) < 0)
            return -1;
        for (const struct adapt_action_call *a = rule->actions; a != NULL; a = a->next)
            if (check_action_values(&v, a) < 0)
                return -1;
    }
    r->longest_window = v.longest;
    return 0;
}
