/* The syntax tree's constructors and the names of its operators, entities, metrics and
 * functions (ast.h). */
#include "adapt/ast.h"

#include <stdio.h>
#include <string.h>

static const char *const op_texts[] = {
    [OP_OR] = "or", [OP_AND] = "and", [OP_NOT] = "not", [OP_LT] = "<",  [OP_LE] = "<=",
    [OP_GT] = ">",  [OP_GE] = ">=",   [OP_EQ] = "==",   [OP_NE] = "!=", [OP_ADD] = "+",
    [OP_SUB] = "-", [OP_MUL] = "*",   [OP_DIV] = "/",   [OP_NEG] = "-",
};

static const char *const entity_names[ENT_COUNT] = {
    [ENT_PORT] = "port", [ENT_NODE] = "node",     [ENT_SWITCH] = "switch",
    [ENT_LINK] = "link", [ENT_FABRIC] = "fabric",
};

static const char *const derived_names[] = {
    [Q_THROUGHPUT - CS_METRIC_COUNT] = "throughput",
    [Q_UTILISATION - CS_METRIC_COUNT] = "utilisation",
    [Q_LINK_RATE - CS_METRIC_COUNT] = "link_rate",
};

static const char *const func_names[F_NONE] = {
    [F_AVG] = "avg",       [F_SUM] = "sum",       [F_MIN] = "min",         [F_MAX] = "max",
    [F_COUNT] = "count",   [F_MEDIAN] = "median", [F_P90] = "p90",         [F_P99] = "p99",
    [F_STDDEV] = "stddev", [F_TOP] = "top",       [F_LEARNED] = "learned",
};

static int find_name(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *adapt_op_text(enum adapt_op op)
{
    return op_texts[op];
}

const char *adapt_entity_name(enum adapt_entity e)
{
    return entity_names[e];
}

int adapt_entity_from_name(const char *name)
{
    return find_name(entity_names, ENT_COUNT, name);
}

const char *adapt_quantity_name(enum adapt_quantity q)
{
    return (int)q < CS_METRIC_COUNT ? cs_metric_name((enum cs_metric)q)
                                    : derived_names[q - CS_METRIC_COUNT];
}

int adapt_quantity_from_name(const char *name)
{
    int m = cs_metric_from_name(name, strlen(name));
    if (m >= 0)
        return m;
    int d = find_name(derived_names, Q_COUNT - CS_METRIC_COUNT, name);
    return d < 0 ? -1 : CS_METRIC_COUNT + d;
}

const char *adapt_func_name(enum adapt_func f)
{
    return func_names[f];
}

int adapt_func_from_name(const char *name)
{
    return find_name(func_names, F_NONE, name);
}

int adapt_vfail_at(struct cs_error *err, const char *name, struct adapt_loc loc, const char *fmt,
                   va_list ap)
{
    if (err == NULL)
        return -1;
    int n = snprintf(err->msg, sizeof err->msg, "%s:%u:%u: ", name, loc.line, loc.column);
    if (n >= 0 && (size_t)n < sizeof err->msg)
        vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
    return -1;
}

int adapt_fail_at(struct cs_error *err, const char *name, struct adapt_loc loc, const char *fmt,
                  ...)
{
    va_list ap;
    va_start(ap, fmt);
    adapt_vfail_at(err, name, loc, fmt, ap);
    va_end(ap);
    return -1;
}

struct adapt_expr *adapt_expr_new(struct adapt_arena *a, enum adapt_expr_kind kind,
                                  struct adapt_loc loc)
{
    struct adapt_expr *e = adapt_alloc(a, sizeof(*e));
    if (e != NULL) {
        e->kind = kind;
        e->loc = loc;
        e->depth = 1;
        e->func = F_NONE;
    }
    return e;
}

/* An operand's depth plus one, if that stays within ADAPT_DEPTH_MAX. */
static bool deepen(unsigned *depth, const struct adapt_expr *operand, bool *too_deep)
{
    if (operand != NULL && operand->depth + 1 > *depth)
        *depth = operand->depth + 1;
    if (*depth > ADAPT_DEPTH_MAX) {
        *too_deep = true;
        return false;
    }
    return true;
}

/* A unary (rhs NULL) or binary operation. */
static struct adapt_expr *operation(struct adapt_arena *a, enum adapt_expr_kind kind,
                                    enum adapt_op op, struct adapt_expr *lhs,
                                    struct adapt_expr *rhs, struct adapt_loc loc, bool *too_deep)
{
    unsigned depth = 1;
    if (!deepen(&depth, lhs, too_deep) || !deepen(&depth, rhs, too_deep))
        return NULL;
    struct adapt_expr *e = adapt_expr_new(a, kind, loc);
    if (e != NULL) {
        e->op = op;
        e->lhs = lhs;
        e->rhs = rhs;
        e->depth = depth;
    }
    return e;
}

struct adapt_expr *adapt_expr_unary(struct adapt_arena *a, enum adapt_op op,
                                    struct adapt_expr *operand, struct adapt_loc loc,
                                    bool *too_deep)
{
    return operation(a, AX_UNARY, op, operand, NULL, loc, too_deep);
}

struct adapt_expr *adapt_expr_binary(struct adapt_arena *a, enum adapt_op op,
                                     struct adapt_expr *lhs, struct adapt_expr *rhs,
                                     struct adapt_loc loc, bool *too_deep)
{
    return operation(a, AX_BINARY, op, lhs, rhs, loc, too_deep);
}

struct adapt_expr *adapt_expr_call(struct adapt_arena *a, const char *name,
                                   struct adapt_call_arg *args, struct adapt_loc loc,
                                   bool *too_deep)
{
    unsigned depth = 1, count = 0;
    for (struct adapt_call_arg *arg = args; arg != NULL; arg = arg->next, count++)
        if (!deepen(&depth, arg->value, too_deep) || !deepen(&depth, arg->over, too_deep) ||
            !deepen(&depth, arg->partition, too_deep))
            return NULL;
    struct adapt_expr *e = adapt_expr_new(a, AX_CALL, loc);
    if (e != NULL) {
        e->text = name;
        e->args = args;
        e->num_args = count;
        e->depth = depth;
    }
    return e;
}
