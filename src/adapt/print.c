/* Expressions and actions written back (print.h). Parentheses only where precedence needs
 * them: an operand binds less tightly than its operator, or as tightly on the right (the
 * binary operators are left-associative; comparisons do not chain). */
#include "adapt/print.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct out {
    char *buf;
    size_t size, used;
};

static void put(struct out *o, const char *fmt, ...) CS_PRINTF(2, 3);

static void put(struct out *o, const char *fmt, ...)
{
    if (o->used >= o->size)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->used, o->size - o->used, fmt, ap);
    va_end(ap);
    o->used += n < 0 ? 0 : (size_t)n;
    if (o->used >= o->size && o->size >= 4) /* cut: say so */
        memcpy(o->buf + o->size - 4, "...", 4);
}

/* Binding strength: docs/adapt/language.md#precedence, loosest first. */
static int precedence(const struct adapt_expr *e)
{
    if (e->kind == AX_UNARY)
        return e->op == OP_NOT ? 3 : 7;
    if (e->kind != AX_BINARY)
        return 8;
    switch (e->op) {
    case OP_OR:
        return 1;
    case OP_AND:
        return 2;
    case OP_ADD:
    case OP_SUB:
        return 5;
    case OP_MUL:
    case OP_DIV:
        return 6;
    default:
        return 4; /* comparisons */
    }
}

static void expr(struct out *o, const struct adapt_expr *e, const struct adapt_eval *notes);

static void operand(struct out *o, const struct adapt_expr *e, bool parens,
                    const struct adapt_eval *notes)
{
    if (parens)
        put(o, "(");
    expr(o, e, notes);
    if (parens)
        put(o, ")");
}

/* Literals with every digit they were written with; measured values with four. */
static void value(struct out *o, const struct cs_adapt_value *v, int digits)
{
    char text[512];
    put(o, "%s", cs_adapt_value_format(v, digits, text, sizeof text));
}

static void call(struct out *o, const struct adapt_expr *e, const struct adapt_eval *notes)
{
    put(o, "%s(", e->text);
    for (const struct adapt_call_arg *arg = e->args; arg != NULL; arg = arg->next) {
        const char *sep = "";
        if (arg != e->args)
            put(o, ", ");
        if (arg->value != NULL) {
            expr(o, arg->value, notes);
            sep = " ";
        }
        if (arg->partition != NULL) {
            put(o, "%sin partition ", sep);
            expr(o, arg->partition, notes);
            sep = " ";
        }
        if (arg->over != NULL) {
            put(o, "%sover ", sep);
            expr(o, arg->over, notes);
        }
    }
    put(o, ")");
}

static void expr(struct out *o, const struct adapt_expr *e, const struct adapt_eval *notes)
{
    const struct cs_adapt_value *noted = notes ? adapt_eval_note(notes, e) : NULL;
    switch (e->kind) {
    case AX_NUMBER:
    case AX_STRING:
    case AX_BOOL:
        value(o, &(struct cs_adapt_value){e->type, e->number, e->text, NULL, 0}, 15);
        break;
    case AX_NAME:
        put(o, "%s", e->text);
        break;
    case AX_METRIC:
        put(o, "%s.%s", e->text, e->metric_name);
        break;
    case AX_CALL:
        call(o, e, notes);
        break;
    case AX_UNARY:
        put(o, "%s", e->op == OP_NOT ? "not " : "-");
        operand(o, e->lhs, precedence(e->lhs) < precedence(e) || e->lhs->kind == AX_UNARY, notes);
        break;
    case AX_BINARY: {
        int p = precedence(e);
        /* comparisons do not chain: a comparison operand on either side needs parentheses */
        operand(o, e->lhs, precedence(e->lhs) < p || (p == 4 && precedence(e->lhs) == 4), notes);
        put(o, " %s ", adapt_op_text(e->op));
        operand(o, e->rhs, precedence(e->rhs) <= p, notes);
        break;
    }
    }
    if (noted != NULL) {
        put(o, "=");
        value(o, noted, 4);
    }
}

char *adapt_print_expr(char *buf, size_t size, const struct adapt_expr *e,
                       const struct adapt_eval *notes)
{
    struct out o = {buf, size, 0};
    if (size > 0)
        buf[0] = '\0';
    expr(&o, e, notes);
    return buf;
}

char *adapt_print_action(char *buf, size_t size, const struct adapt_action_call *a)
{
    struct out o = {buf, size, 0};
    if (size > 0)
        buf[0] = '\0';
    put(&o, "%s(", a->name);
    for (const struct adapt_named_arg *n = a->args; n != NULL; n = n->next) {
        put(&o, "%s%s = ", n == a->args ? "" : ", ", n->name);
        expr(&o, n->value, NULL);
    }
    put(&o, ")");
    return buf;
}
