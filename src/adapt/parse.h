/* What the scanner (lexer.l), the parser (parser.y) and the driver (parse.c) share (internal to
 * src/adapt): the parse's context, its first error, and the tree it builds. */
#ifndef CLOUDSM_ADAPT_PARSE_H
#define CLOUDSM_ADAPT_PARSE_H

#include <setjmp.h>
#include <stdbool.h>

#include "adapt/ast.h"
#include "cloudsm/error.h"

/* A number as the scanner reads it: the value in the base unit of its type. */
struct adapt_number {
    double value;
    enum cs_adapt_type type;
};

struct adapt_parse {
    struct adapt_arena *arena; /* where the tree goes */
    const char *name;          /* for messages */
    struct cs_error *err;
    bool failed;           /* err holds the first error; later ones are dropped */
    bool value_only;       /* one value (cs_adapt_set_param), not a whole file */
    int start_token;       /* parse.c: the scanner's first token, which says which of the two */
    unsigned line, column; /* where the scanner is (from 1) */
    /* the last token, as written, for syntax error messages */
    char last_text[48];
    /* a whole file */
    struct adapt_param *params, **params_tail;
    struct adapt_rule *rules, **rules_tail;
    uint32_t num_params, num_rules;
    /* flex's scanner stops the program on its fatal errors (out of memory); ours jump back to
     * the driver instead, with the message */
    jmp_buf fatal;
    const char *fatal_msg;
    /* one value (cs_adapt_set_param) */
    struct adapt_expr *value;
};

/* Record "name:line:column: message" as the parse's error unless one is there already. */
void adapt_parse_error(struct adapt_parse *p, struct adapt_loc loc, const char *fmt, ...)
    CS_PRINTF(3, 4);

/* Parse text (len bytes): a whole file, or one value if p->value_only. 0, or -1 with p->err
 * set. */
int adapt_parse_text(struct adapt_parse *p, const char *text, size_t len);

#endif
