/* The evaluator (eval.h): aggregates over the values window.c gives, arithmetic on typed values
 * (the checker has made every operation well typed), comparisons. */
#include "adapt/eval.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapt/window.h"
#include "core/grow.h"

static int undefined(struct adapt_eval *ev, const char *fmt, ...) CS_PRINTF(2, 3);

static int undefined(struct adapt_eval *ev, const char *fmt, ...)
{
    if (ev->why[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(ev->why, sizeof ev->why, fmt, ap);
        va_end(ap);
    }
    return 1;
}

static void note(struct adapt_eval *ev, const struct adapt_expr *e, const struct cs_adapt_value *v)
{
    if (ev->num_notes < ADAPT_NOTES_MAX)
        ev->notes[ev->num_notes++] = (struct adapt_note){e, *v};
}

const struct cs_adapt_value *adapt_eval_note(const struct adapt_eval *ev,
                                             const struct adapt_expr *e)
{
    for (unsigned i = 0; i < ev->num_notes; i++)
        if (ev->notes[i].expr == e)
            return &ev->notes[i].value;
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Busiest first; ties by entity order, so that the same samples always give the same list. */
static int by_value_desc(const void *a, const void *b)
{
    const struct adapt_entity_value *x = a, *y = b;
    if (x->value != y->value)
        return x->value > y->value ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* Linear interpolation between the closest ranks of sorted values: p 0.5 is the median. */
static double percentile(const double *sorted, uint32_t n, double p)
{
    double h = (double)(n - 1) * p;
    uint32_t lo = (uint32_t)floor(h);
    if (lo + 1 >= n)
        return sorted[n - 1];
    return sorted[lo] + (h - (double)lo) * (sorted[lo + 1] - sorted[lo]);
}

/* The values of a call's selection, with the window and partition evaluated. */
static int selection_values(struct adapt_eval *ev, const struct adapt_call_arg *arg,
                            struct adapt_entity_value **values, uint32_t *count, char *where,
                            size_t where_size)
{
    const struct adapt_expr *sel = arg->value;
    struct adapt_selection s = {sel->entity, sel->quantity, NULL, true, 0};
    struct cs_adapt_value v;
    int rc;
    char window[64] = "the last poll";
    if (arg->over != NULL) {
        if ((rc = adapt_eval_expr(ev, arg->over, &v)) != 0)
            return rc;
        s.last_poll = false;
        s.window = v.number;
        snprintf(window, sizeof window, "the last ");
        cs_adapt_value_format(&v, 6, window + strlen(window), sizeof window - strlen(window));
    }
    if (arg->partition != NULL) {
        if ((rc = adapt_eval_expr(ev, arg->partition, &v)) != 0)
            return rc;
        s.partition = v.text;
    }
    snprintf(where, where_size, "%s.%s%s%s%s in %s", sel->text, sel->metric_name,
             s.partition ? " in partition \"" : "", s.partition ? s.partition : "",
             s.partition ? "\"" : "", window);
    if (ev->m == NULL)
        return undefined(ev, "no measurements");
    char why[192];
    rc = adapt_window_values(ev->m, ev->now, &s, values, count, why, sizeof why, ev->err);
    if (rc == 1)
        return undefined(ev, "%s: %s", where, why);
    return rc;
}

static int aggregate(struct adapt_eval *ev, const struct adapt_expr *e, struct cs_adapt_value *out)
{
    struct adapt_entity_value *values;
    uint32_t n;
    char where[256];
    int rc = selection_values(ev, e->args, &values, &n, where, sizeof where);
    if (rc != 0)
        return rc;
    out->type = e->type;
    if (e->func == F_COUNT) {
        free(values);
        out->number = n;
        return 0;
    }
    if (n == 0) {
        free(values);
        return undefined(ev, "no values of %s", where);
    }
    double *v = cs_calloc_array(n, sizeof(*v), ev->err);
    if (v == NULL) {
        free(values);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++)
        v[i] = values[i].value;
    free(values);
    qsort(v, n, sizeof(*v), cmp_double);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += v[i];
    double mean = sum / n, r = 0;
    switch (e->func) {
    case F_SUM:
        r = sum;
        break;
    case F_AVG:
        r = mean;
        break;
    case F_MIN:
        r = v[0];
        break;
    case F_MAX:
        r = v[n - 1];
        break;
    case F_MEDIAN:
        r = percentile(v, n, 0.5);
        break;
    case F_P90:
        r = percentile(v, n, 0.9);
        break;
    case F_P99:
        r = percentile(v, n, 0.99);
        break;
    case F_STDDEV:
        for (uint32_t i = 0; i < n; i++)
            r += (v[i] - mean) * (v[i] - mean);
        r = sqrt(r / n);
        break;
    default:
        break;
    }
    free(v);
    out->number = r;
    return 0;
}

static int top(struct adapt_eval *ev, const struct adapt_expr *e, struct cs_adapt_value *out)
{
    struct cs_adapt_value k;
    int rc = adapt_eval_expr(ev, e->args->next->value, &k);
    if (rc != 0)
        return rc;
    struct adapt_entity_value *values;
    uint32_t n;
    char where[256];
    if ((rc = selection_values(ev, e->args, &values, &n, where, sizeof where)) != 0)
        return rc;
    if (n == 0) {
        free(values);
        return undefined(ev, "no values of %s", where);
    }
    qsort(values, n, sizeof(*values), by_value_desc);
    if (k.number < n)
        n = (uint32_t)k.number;
    out->type = CS_ADAPT_NODE_LIST;
    out->guids = cs_calloc_array(n, sizeof(*out->guids), ev->err);
    if (out->guids != NULL) {
        for (uint32_t i = 0; i < n; i++)
            out->guids[i] = ev->m->nodes[values[i].index].guid;
        out->num_guids = n;
    }
    free(values);
    return out->guids == NULL ? -1 : 0;
}

static int call(struct adapt_eval *ev, const struct adapt_expr *e, struct cs_adapt_value *out)
{
    int rc;
    switch (e->func) {
    case F_TOP:
        return top(ev, e, out);
    case F_LEARNED:
        if ((rc = adapt_eval_expr(ev, e->args->over, out)) != 0)
            return rc;
        out->type = CS_ADAPT_WEIGHTS;
        return 0;
    default:
        if ((rc = aggregate(ev, e, out)) == 0)
            note(ev, e, out);
        return rc;
    }
}

static bool compare(enum adapt_op op, const struct cs_adapt_value *l,
                    const struct cs_adapt_value *r)
{
    int c;
    if (l->type == CS_ADAPT_STRING)
        c = strcmp(l->text, r->text);
    else
        c = (l->number > r->number) - (l->number < r->number);
    switch (op) {
    case OP_LT:
        return c < 0;
    case OP_LE:
        return c <= 0;
    case OP_GT:
        return c > 0;
    case OP_GE:
        return c >= 0;
    case OP_EQ:
        return c == 0;
    default:
        return c != 0;
    }
}

static int binary(struct adapt_eval *ev, const struct adapt_expr *e, struct cs_adapt_value *out)
{
    struct cs_adapt_value l, r;
    int rc = adapt_eval_expr(ev, e->lhs, &l);
    if (rc != 0)
        return rc;
    /* `and` and `or` stop when the left side decides */
    if ((e->op == OP_AND && l.number == 0) || (e->op == OP_OR && l.number != 0)) {
        *out = l;
        return 0;
    }
    if ((rc = adapt_eval_expr(ev, e->rhs, &r)) != 0)
        return rc;
    *out = (struct cs_adapt_value){.type = e->type};
    switch (e->op) {
    case OP_AND:
    case OP_OR:
        out->number = r.number != 0;
        return 0;
    case OP_ADD:
        out->number = l.number + r.number;
        break;
    case OP_SUB:
        out->number = l.number - r.number;
        break;
    case OP_MUL:
        out->number = l.number * r.number;
        break;
    case OP_DIV:
        if (r.number == 0)
            return undefined(ev, "division by zero at %u:%u", e->loc.line, e->loc.column);
        out->number = l.number / r.number;
        break;
    default:
        out->number = compare(e->op, &l, &r);
        return 0;
    }
    if (!isfinite(out->number))
        return undefined(ev, "the value at %u:%u is out of range", e->loc.line, e->loc.column);
    return 0;
}

int adapt_eval_expr(struct adapt_eval *ev, const struct adapt_expr *e, struct cs_adapt_value *out)
{
    int rc;
    *out = (struct cs_adapt_value){.type = e->type};
    switch (e->kind) {
    case AX_NUMBER:
    case AX_BOOL:
        out->number = e->number;
        return 0;
    case AX_STRING:
        out->text = e->text;
        return 0;
    case AX_NAME:
        *out = ev->rules->params[e->param]->value;
        note(ev, e, out);
        return 0;
    case AX_CALL:
        return call(ev, e, out);
    case AX_UNARY:
        if ((rc = adapt_eval_expr(ev, e->lhs, out)) != 0)
            return rc;
        out->number = e->op == OP_NOT ? out->number == 0 : -out->number;
        return 0;
    case AX_BINARY:
        return binary(ev, e, out);
    default:
        return undefined(ev, "a measurement outside an aggregate");
    }
}

double adapt_static_number(const struct cs_adapt_rules *r, const struct adapt_expr *e)
{
    struct cs_adapt_value v = {0};
    struct adapt_eval ev = {.rules = r};
    if (e != NULL && adapt_eval_expr(&ev, e, &v) != 0)
        return NAN;
    return v.number;
}
