/* Communication patterns: names, level counts and the pairs of each level as closed formulas
 * (see pattern.h for every definition). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/pattern.h"

static const char *const kind_names[CS_PATTERN_KINDS] = {
    [CS_PATTERN_NULL] = "null",
    [CS_PATTERN_SHIFT] = "shift",
    [CS_PATTERN_ALLTOALL] = "alltoall",
    [CS_PATTERN_BISECT] = "bisect",
    [CS_PATTERN_BISECT_FB_SYM] = "bisect_fb_sym",
    [CS_PATTERN_RAND] = "rand",
    [CS_PATTERN_BRUCK] = "bruck",
    [CS_PATTERN_RECDBL] = "recdbl",
    [CS_PATTERN_RING] = "ring",
    [CS_PATTERN_TREE] = "tree",
    [CS_PATTERN_GATHER] = "gather",
    [CS_PATTERN_SCATTER] = "scatter",
    [CS_PATTERN_NEIGHBOR] = "neighbor",
    [CS_PATTERN_RECEIVERS] = "receivers",
};

const char *cs_pattern_kind_name(enum cs_pattern_kind kind)
{
    return (unsigned)kind < CS_PATTERN_KINDS ? kind_names[kind] : "?";
}

bool cs_pattern_kind_takes_arg(enum cs_pattern_kind kind)
{
    return kind == CS_PATTERN_NEIGHBOR || kind == CS_PATTERN_RECEIVERS;
}

static bool name_is(const char *name, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(name, want, len) == 0;
}

int cs_pattern_parse(struct cs_pattern_spec *spec, const char *text, struct cs_error *err)
{
    const char *open = strchr(text, '(');
    size_t len = open ? (size_t)(open - text) : strlen(text);
    int kind = -1;
    for (int k = 0; k < CS_PATTERN_KINDS; k++)
        if (name_is(text, len, kind_names[k]))
            kind = k;
    if (name_is(text, len, "all-to-all"))
        kind = CS_PATTERN_ALLTOALL;
    if (name_is(text, len, "bisect-fb-sym"))
        kind = CS_PATTERN_BISECT_FB_SYM;
    if (kind < 0)
        return cs_fail(err,
                       "unknown pattern '%s' (known: null, shift, alltoall, bisect, bisect_fb_sym, "
                       "rand, bruck, recdbl, ring, tree, gather, scatter, neighbor(N), "
                       "receivers(N))",
                       text);
    spec->kind = (enum cs_pattern_kind)kind;
    spec->arg = 0;
    if (!cs_pattern_kind_takes_arg(spec->kind)) {
        if (open)
            return cs_fail(err, "pattern '%s': %s takes no argument", text, kind_names[kind]);
        return 0;
    }
    if (!open)
        return cs_fail(err, "pattern '%s' needs a count: %s(N)", text, kind_names[kind]);
    const char *digits = open + 1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(digits, &end, 10);
    if (end == digits || *digits < '0' || *digits > '9' || errno || end[0] != ')' || end[1])
        return cs_fail(err, "pattern '%s': expected %s(N) with N a whole number", text,
                       kind_names[kind]);
    if (v == 0 || v > UINT32_MAX)
        return cs_fail(err, "pattern '%s': N must be between 1 and %u", text, UINT32_MAX);
    spec->arg = (uint32_t)v;
    return 0;
}

int cs_pattern_format(const struct cs_pattern_spec *spec, char *buf, size_t size)
{
    if (cs_pattern_kind_takes_arg(spec->kind))
        return snprintf(buf, size, "%s(%u)", cs_pattern_kind_name(spec->kind), spec->arg);
    return snprintf(buf, size, "%s", cs_pattern_kind_name(spec->kind));
}

/* ceil(log2 n) for n >= 1. */
static uint32_t ceil_log2(uint32_t n)
{
    uint32_t l = 0;
    while (l < 32 && (UINT64_C(1) << l) < n)
        l++;
    return l;
}

static uint32_t floor_pow2(uint32_t n)
{
    uint32_t p = 1;
    while (p <= n / 2)
        p *= 2;
    return p;
}

uint32_t cs_pattern_count_levels(const struct cs_pattern_spec *spec, uint32_t n)
{
    if (n < 2)
        return 0;
    switch (spec->kind) {
    case CS_PATTERN_NULL:
        return 0;
    case CS_PATTERN_SHIFT:
        return n - 1;
    case CS_PATTERN_RING:
        return n;
    case CS_PATTERN_BRUCK:
    case CS_PATTERN_TREE:
        return ceil_log2(n);
    case CS_PATTERN_RECDBL: {
        uint32_t p = floor_pow2(n);
        return ceil_log2(p) + (p < n ? 2 : 0);
    }
    default:
        return 1;
    }
}

void cs_pattern_draw(struct cs_pattern *p, struct cs_rng *rng)
{
    if (p->spec.kind != CS_PATTERN_RAND || p->ranks < 2)
        return;
    /* Rejection: shuffle until no rank maps to itself. Every derangement is equally likely; about
     * e (2.72) shuffles are needed on average. */
    uint32_t n = p->ranks;
    for (;;) {
        for (uint32_t i = 0; i < n; i++)
            p->perm[i] = i;
        for (uint32_t i = n - 1; i > 0; i--) {
            uint32_t j = cs_rng_below(rng, i + 1);
            uint32_t tmp = p->perm[i];
            p->perm[i] = p->perm[j];
            p->perm[j] = tmp;
        }
        uint32_t i = 0;
        while (i < n && p->perm[i] != i)
            i++;
        if (i == n)
            return;
    }
}

int cs_pattern_init(struct cs_pattern *p, const struct cs_pattern_spec *spec, uint32_t ranks,
                    struct cs_rng *rng, struct cs_error *err)
{
    memset(p, 0, sizeof *p);
    if ((unsigned)spec->kind >= CS_PATTERN_KINDS)
        return cs_fail(err, "unknown pattern kind %d", (int)spec->kind);
    if (cs_pattern_kind_takes_arg(spec->kind) && spec->arg == 0)
        return cs_fail(err, "pattern %s needs a count of at least 1",
                       cs_pattern_kind_name(spec->kind));
    p->spec = *spec;
    p->ranks = ranks;
    p->levels = cs_pattern_count_levels(spec, ranks);
    if (ranks >= 2) {
        p->pow2 = floor_pow2(ranks);
        p->extra = ranks - p->pow2;
        if (spec->kind == CS_PATTERN_NEIGHBOR)
            p->group = (spec->arg < ranks - 1 ? spec->arg : ranks - 1) + 1;
        else if (spec->kind == CS_PATTERN_RECEIVERS)
            p->group = spec->arg < ranks / 2 ? spec->arg : ranks / 2;
    }
    if (spec->kind == CS_PATTERN_RAND && ranks >= 2) {
        if (!rng)
            return cs_fail(err, "pattern rand needs a random generator");
        p->perm = malloc((size_t)ranks * sizeof *p->perm);
        if (!p->perm)
            return cs_fail(err, "out of memory for a permutation of %u ranks", ranks);
        cs_pattern_draw(p, rng);
    }
    return 0;
}

void cs_pattern_free(struct cs_pattern *p)
{
    free(p->perm);
    memset(p, 0, sizeof *p);
}

uint64_t cs_pattern_level_size(const struct cs_pattern *p, uint32_t level)
{
    uint64_t n = p->ranks;
    if (level >= p->levels)
        return 0;
    switch (p->spec.kind) {
    case CS_PATTERN_NULL:
        return 0;
    case CS_PATTERN_SHIFT:
    case CS_PATTERN_RAND:
    case CS_PATTERN_BRUCK:
        return n;
    case CS_PATTERN_ALLTOALL:
        return n * (n - 1);
    case CS_PATTERN_BISECT:
        return n / 2;
    case CS_PATTERN_BISECT_FB_SYM:
        return n / 2 * 2;
    case CS_PATTERN_RECDBL:
        if (p->extra && (level == 0 || level == p->levels - 1))
            return p->extra;
        return p->pow2;
    case CS_PATTERN_RING:
        return 1;
    case CS_PATTERN_TREE: {
        uint64_t d = UINT64_C(1) << level;
        return d < n - d ? d : n - d;
    }
    case CS_PATTERN_GATHER:
    case CS_PATTERN_SCATTER:
        return n - 1;
    case CS_PATTERN_NEIGHBOR: {
        uint64_t k = p->group, rest = n % k;
        return n / k * k * (k - 1) + rest * (rest ? rest - 1 : 0);
    }
    case CS_PATTERN_RECEIVERS:
        return n - p->group;
    default:
        return 0;
    }
}

uint64_t cs_pattern_total_pairs(const struct cs_pattern *p)
{
    uint64_t total = 0;
    for (uint32_t l = 0; l < p->levels; l++)
        total += cs_pattern_level_size(p, l);
    return total;
}

/* Pairs of one level of alltoall from pair index q on: source q / (n-1), shift q % (n-1) + 1,
 * stepped rather than divided per pair. */
static void alltoall_pairs(uint32_t n, uint64_t first, uint32_t count, struct cs_pair *out)
{
    uint32_t src = (uint32_t)(first / (n - 1));
    uint32_t s = (uint32_t)(first % (n - 1)) + 1;
    for (uint32_t q = 0; q < count; q++) {
        uint32_t dst = src + s;
        out[q].src = src;
        out[q].dst = dst >= n ? dst - n : dst;
        if (++s == n) {
            s = 1;
            src++;
        }
    }
}

/* neighbor: groups of K consecutive ranks (the last one `n % K` ranks); within a group of size m
 * each member sends to the other m-1 in ascending order. */
static void neighbor_pairs(uint32_t n, uint32_t k, uint64_t first, uint32_t count,
                           struct cs_pair *out)
{
    uint64_t full = (uint64_t)k * (k - 1); /* pairs of a full group */
    uint32_t groups = n / k;
    uint64_t q = first;
    for (uint32_t i = 0; i < count; i++, q++) {
        uint32_t g, m;
        uint64_t w;
        if (q < groups * full) {
            g = (uint32_t)(q / full);
            w = q % full;
            m = k;
        } else {
            g = groups;
            w = q - groups * full;
            m = n - groups * k;
        }
        uint32_t a = (uint32_t)(w / (m - 1)), b = (uint32_t)(w % (m - 1));
        uint32_t base = g * k;
        out[i].src = base + a;
        out[i].dst = base + (b < a ? b : b + 1);
    }
}

void cs_pattern_pairs(const struct cs_pattern *p, uint32_t level, uint64_t first, uint32_t count,
                      struct cs_pair *out)
{
    uint32_t n = p->ranks;
    uint32_t f = (uint32_t)first; /* every level but alltoall's and neighbor's fits in 32 bits */
    switch (p->spec.kind) {
    case CS_PATTERN_SHIFT:
    case CS_PATTERN_BRUCK: {
        uint32_t s = p->spec.kind == CS_PATTERN_SHIFT ? level + 1 : (uint32_t)1 << level;
        for (uint32_t q = 0; q < count; q++) {
            uint32_t i = f + q;
            out[q].src = i;
            out[q].dst = (uint32_t)(((uint64_t)i + s) % n);
        }
        return;
    }
    case CS_PATTERN_ALLTOALL:
        alltoall_pairs(n, first, count, out);
        return;
    case CS_PATTERN_BISECT:
        for (uint32_t q = 0; q < count; q++) {
            out[q].src = 2 * (f + q);
            out[q].dst = 2 * (f + q) + 1;
        }
        return;
    case CS_PATTERN_BISECT_FB_SYM:
        for (uint32_t q = 0; q < count; q++) {
            uint32_t i = (f + q) / 2, back = (f + q) % 2;
            out[q].src = 2 * i + back;
            out[q].dst = 2 * i + !back;
        }
        return;
    case CS_PATTERN_RAND:
        for (uint32_t q = 0; q < count; q++) {
            out[q].src = f + q;
            out[q].dst = p->perm[f + q];
        }
        return;
    case CS_PATTERN_RECDBL: {
        bool folds = p->extra != 0;
        for (uint32_t q = 0; q < count; q++) {
            uint32_t i = f + q;
            if (folds && level == 0) {
                out[q].src = p->pow2 + i;
                out[q].dst = i;
            } else if (folds && level == p->levels - 1) {
                out[q].src = i;
                out[q].dst = p->pow2 + i;
            } else {
                uint32_t d = (uint32_t)1 << (level - folds);
                out[q].src = i;
                out[q].dst = i ^ d;
            }
        }
        return;
    }
    case CS_PATTERN_RING:
        if (count) {
            out[0].src = level;
            out[0].dst = level + 1 == n ? 0 : level + 1;
        }
        return;
    case CS_PATTERN_TREE: {
        uint32_t d = (uint32_t)1 << level;
        for (uint32_t q = 0; q < count; q++) {
            out[q].src = f + q;
            out[q].dst = f + q + d;
        }
        return;
    }
    case CS_PATTERN_GATHER:
        for (uint32_t q = 0; q < count; q++) {
            out[q].src = f + q + 1;
            out[q].dst = 0;
        }
        return;
    case CS_PATTERN_SCATTER:
        for (uint32_t q = 0; q < count; q++) {
            out[q].src = 0;
            out[q].dst = f + q + 1;
        }
        return;
    case CS_PATTERN_NEIGHBOR:
        neighbor_pairs(n, p->group, first, count, out);
        return;
    case CS_PATTERN_RECEIVERS:
        for (uint32_t q = 0; q < count; q++) {
            out[q].src = p->group + f + q;
            out[q].dst = (f + q) % p->group;
        }
        return;
    default:
        return;
    }
}
