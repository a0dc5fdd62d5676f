/* The evaluator (internal to src/adapt): a checked expression's value at a time over the
 * monitor's measurements, or why it has none. It notes the values of the aggregates and
 * parameters it met, for the explanation of a rule's verdict (print.h). */
#ifndef CLOUDSM_ADAPT_EVAL_H
#define CLOUDSM_ADAPT_EVAL_H

#include "adapt/ast.h"
#include "cloudsm/metrics.h"

#define ADAPT_NOTES_MAX 32

struct adapt_note {
    const struct adapt_expr *expr;
    struct cs_adapt_value value;
};

struct adapt_eval {
    const struct cs_adapt_rules *rules;
    const struct cs_metrics *m; /* NULL: static expressions only */
    double now;
    struct cs_error *err;
    char why[256]; /* the first reason an expression has no value */
    struct adapt_note notes[ADAPT_NOTES_MAX];
    unsigned num_notes;
};

/* 0 with *out set (a node list's GUIDs are malloc'd: the caller frees them); 1 when the value
 * is undefined (ev->why says why: no samples in a window, a division by zero, ...); -1 with
 * ev->err set when out of memory. `and` and `or` evaluate their right side only when the left
 * one does not decide. */
int adapt_eval_expr(struct adapt_eval *ev, const struct adapt_expr *e, struct cs_adapt_value *out);

/* The noted value of e, or NULL. */
const struct cs_adapt_value *adapt_eval_note(const struct adapt_eval *ev,
                                             const struct adapt_expr *e);

/* The current value of a static expression (`for`, `cooldown`): 0 for NULL (not given), NAN if
 * it has none (the checker makes sure every one has). */
double adapt_static_number(const struct cs_adapt_rules *r, const struct adapt_expr *e);

#endif
