/* The parse driver (parse.h): runs the reentrant scanner of lexer.l under the pure parser of
 * parser.y, and keeps the first error with its file, line and column. */
#include "adapt/parse.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>

#include "adapt_parser.h"
/* The scanner's header names the parser's types without its prefix. */
#define YYSTYPE ADAPT_YYSTYPE
#define YYLTYPE ADAPT_YYLTYPE
#include "adapt_lexer.h"

/* Larger rules files are refused: the scanner's buffer sizes are ints. */
#define ADAPT_TEXT_MAX (64u << 20)

void adapt_parse_error(struct adapt_parse *p, struct adapt_loc loc, const char *fmt, ...)
{
    if (p->failed)
        return;
    p->failed = true;
    va_list ap;
    va_start(ap, fmt);
    adapt_vfail_at(p->err, p->name, loc, fmt, ap);
    va_end(ap);
}

int adapt_parse_text(struct adapt_parse *p, const char *text, size_t len)
{
    if (len > ADAPT_TEXT_MAX)
        return cs_fail(p->err, "%s: larger than %u MiB", p->name, ADAPT_TEXT_MAX >> 20);
    p->start_token = p->value_only ? START_VALUE : START_FILE;
    p->line = 1;
    p->column = 1;
    p->params_tail = &p->params;
    p->rules_tail = &p->rules;
    yyscan_t scanner;
    if (adapt_yylex_init_extra(p, &scanner) != 0)
        return cs_fail(p->err, "%s: out of memory", p->name);
    if (setjmp(p->fatal) != 0) {
        adapt_yylex_destroy(scanner);
        return cs_fail(p->err, "%s: %s", p->name, p->fatal_msg);
    }
    int rc = -1;
    if (adapt_yy_scan_bytes(text, (int)len, scanner) != NULL) {
        rc = adapt_yyparse(scanner, p) == 0 ? 0 : -1;
        if (rc < 0 && !p->failed)
            cs_fail(p->err, "%s: cannot parse", p->name);
    } else {
        cs_fail(p->err, "%s: out of memory", p->name);
    }
    adapt_yylex_destroy(scanner);
    return rc;
}
