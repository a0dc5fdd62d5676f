/* The syntax tree of IBAdapt rules (internal to src/adapt): what the parser builds (parser.y,
 * through the constructors of ast.c) and the checker (check.c) annotates with types and
 * resolved names; the rules object that owns both. Everything lives in the rules' arena. */
#ifndef CLOUDSM_ADAPT_AST_H
#define CLOUDSM_ADAPT_AST_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "adapt/arena.h"
#include "cloudsm/adapt.h"

/* Expressions nest at most this deep: the checker and the evaluator recurse. */
#define ADAPT_DEPTH_MAX 200

struct adapt_loc {
    unsigned line, column;
};

enum adapt_expr_kind {
    AX_NUMBER, /* a literal with its unit's type: number, duration, rate, count rate */
    AX_STRING,
    AX_BOOL,
    AX_NAME,   /* a parameter */
    AX_METRIC, /* ENTITY.METRIC: a selection, only inside an aggregate */
    AX_CALL,   /* avg(...), top(...), learned(...) */
    AX_UNARY,
    AX_BINARY,
};

enum adapt_op {
    OP_OR,
    OP_AND,
    OP_NOT,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_EQ,
    OP_NE,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_NEG,
};

/* What a selection ranges over (docs/adapt/language.md#entities). */
enum adapt_entity { ENT_PORT, ENT_NODE, ENT_SWITCH, ENT_LINK, ENT_FABRIC, ENT_COUNT };

/* The metrics: metrics.h's six (same numbers), then the derived ones. */
enum adapt_quantity {
    Q_THROUGHPUT = CS_METRIC_COUNT, /* xmit_bytes + rcv_bytes */
    Q_UTILISATION,                  /* max(xmit_bytes, rcv_bytes) / link rate */
    Q_LINK_RATE,                    /* the link's data rate (static) */
    Q_COUNT
};

/* The functions a call can name. */
enum adapt_func {
    F_AVG,
    F_SUM,
    F_MIN,
    F_MAX,
    F_COUNT,
    F_MEDIAN,
    F_P90,
    F_P99,
    F_STDDEV,
    F_TOP,
    F_LEARNED,
    F_NONE
};

struct adapt_expr;

/* One argument of a call: an expression and the modifiers written after it. learned(over 5m)
 * has only a modifier. */
struct adapt_call_arg {
    struct adapt_loc loc;
    struct adapt_expr *value; /* NULL: modifiers only */
    struct adapt_expr *over;  /* `over DURATION`, or NULL */
    struct adapt_expr *partition;
    struct adapt_loc over_loc, partition_loc;
    struct adapt_call_arg *next;
};

struct adapt_expr {
    enum adapt_expr_kind kind;
    struct adapt_loc loc;
    unsigned depth;          /* 1 + the deepest operand's */
    enum cs_adapt_type type; /* the checker's verdict (a selection: its metric's type) */
    bool is_static;          /* no measurement inside: a constant given the parameters */
    double number;           /* AX_NUMBER, AX_BOOL */
    const char *text;        /* AX_STRING; AX_NAME; AX_CALL: the function; AX_METRIC: entity */
    enum adapt_op op;        /* AX_UNARY, AX_BINARY */
    struct adapt_expr *lhs, *rhs;
    uint32_t param;          /* AX_NAME, resolved: index in rules->params */
    const char *metric_name; /* AX_METRIC */
    struct adapt_loc metric_loc;
    enum adapt_entity entity;     /* AX_METRIC, resolved */
    enum adapt_quantity quantity; /* AX_METRIC, resolved (a cs_metric or a derived one) */
    struct adapt_call_arg *args;  /* AX_CALL */
    unsigned num_args;
    enum adapt_func func; /* AX_CALL, resolved */
};

struct adapt_named_arg {
    const char *name;
    struct adapt_loc loc;
    struct adapt_expr *value;
    const struct cs_adapt_arg_def *def; /* resolved */
    struct adapt_named_arg *next;
};

struct adapt_action_call {
    const char *name;
    struct adapt_loc loc;
    struct adapt_named_arg *args;
    const struct cs_adapt_action_def *def; /* resolved */
    const char *text;                      /* canonical form */
    struct adapt_action_call *next;
};

struct adapt_rule {
    const char *name;
    struct adapt_loc loc;
    int priority;
    uint32_t file_index; /* position in the file: ties of priority keep it */
    struct adapt_expr *when;
    struct adapt_expr *hold; /* `for`, or NULL */
    struct adapt_expr *cooldown;
    struct adapt_action_call *actions;
    uint32_t num_actions;
    const char *condition_text;
    const char **action_texts;
    struct adapt_rule *next;
};

struct adapt_param {
    const char *name;
    struct adapt_loc loc;
    struct adapt_expr *init;
    struct cs_adapt_value value; /* current; a string's text lives in the arena */
    bool overridden;
    struct adapt_param *next;
};

struct cs_adapt_rules {
    struct adapt_arena arena;
    const char *name; /* the file, for messages */
    struct adapt_param **params;
    uint32_t num_params;
    struct adapt_rule **rules; /* evaluation order */
    uint32_t num_rules;
    double longest_window; /* seconds: the longest `over` of any rule (adapt_check_values) */
};

/* Fill err (if not NULL) with "name:line:column: message"; returns -1. */
int adapt_fail_at(struct cs_error *err, const char *name, struct adapt_loc loc, const char *fmt,
                  ...) CS_PRINTF(4, 5);
int adapt_vfail_at(struct cs_error *err, const char *name, struct adapt_loc loc, const char *fmt,
                   va_list ap) CS_PRINTF(4, 0);

/* Constructors (ast.c): NULL when out of memory or nested deeper than ADAPT_DEPTH_MAX (*too_deep
 * says which). */
struct adapt_expr *adapt_expr_new(struct adapt_arena *a, enum adapt_expr_kind kind,
                                  struct adapt_loc loc);
struct adapt_expr *adapt_expr_unary(struct adapt_arena *a, enum adapt_op op,
                                    struct adapt_expr *operand, struct adapt_loc loc,
                                    bool *too_deep);
struct adapt_expr *adapt_expr_binary(struct adapt_arena *a, enum adapt_op op,
                                     struct adapt_expr *lhs, struct adapt_expr *rhs,
                                     struct adapt_loc loc, bool *too_deep);
struct adapt_expr *adapt_expr_call(struct adapt_arena *a, const char *name,
                                   struct adapt_call_arg *args, struct adapt_loc loc,
                                   bool *too_deep);

/* "or", "<=", "-", ...: an operator as written. */
const char *adapt_op_text(enum adapt_op op);
/* "port", "node", ... and the metric names, as written; -1 for an unknown name. */
const char *adapt_entity_name(enum adapt_entity e);
int adapt_entity_from_name(const char *name);
const char *adapt_quantity_name(enum adapt_quantity q);
int adapt_quantity_from_name(const char *name);
const char *adapt_func_name(enum adapt_func f);
int adapt_func_from_name(const char *name);

#endif
