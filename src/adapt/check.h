/* The checker (internal to src/adapt): names resolved, every expression typed, actions held to
 * the registry; then the values that depend on parameters checked with their current values. */
#ifndef CLOUDSM_ADAPT_CHECK_H
#define CLOUDSM_ADAPT_CHECK_H

#include "adapt/ast.h"
#include "adapt/parse.h"

/* Check what p parsed and move it into r (params, rules in evaluation order, canonical texts).
 * 0, or -1 with err "name:line:column: what". */
int adapt_check(struct cs_adapt_rules *r, const struct adapt_parse *p, struct cs_error *err);

/* Check, with the parameters' current values, what only values can tell: windows and `for` and
 * `cooldown` durations, top's count, engine and isolation names; on success r->longest_window
 * is the longest `over` window. */
int adapt_check_values(struct cs_adapt_rules *r, struct cs_error *err);

/* Type a constant (a parameter's value: literals and operators only); 0 or -1 with err. */
int adapt_check_constant(const char *name, struct adapt_expr *e, struct cs_error *err);

#endif
