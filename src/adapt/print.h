/* Expressions and actions written back (internal to src/adapt): the canonical form listings
 * show (fewest parentheses, units chosen for reading), and with an evaluation's notes the
 * explanation of a verdict: "max(node.rcv_bytes)=3.2 GB/s > 3 * avg(node.rcv_bytes)=800 MB/s". */
#ifndef CLOUDSM_ADAPT_PRINT_H
#define CLOUDSM_ADAPT_PRINT_H

#include <stddef.h>

#include "adapt/ast.h"
#include "adapt/eval.h"

/* Write e into buf (cut with "..." if it does not fit); notes: each noted aggregate and
 * parameter followed by "=VALUE" (NULL: none). Returns buf. */
char *adapt_print_expr(char *buf, size_t size, const struct adapt_expr *e,
                       const struct adapt_eval *notes);
/* "reroute(engine = \"wftree\", weights = learned(over 5m))" */
char *adapt_print_action(char *buf, size_t size, const struct adapt_action_call *a);

#endif
