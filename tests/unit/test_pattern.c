/* Communication patterns (pattern.h): the exact pairs of every generator for small rank counts,
 * level counts, chunked generation, rand's permutations, ORCS's neighbor definition checked
 * against an independent version of its greedy pairing, and name parsing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/pattern.h"

/* ---- helpers ---- */

static void make(struct cs_pattern *p, enum cs_pattern_kind kind, uint32_t arg, uint32_t n)
{
    struct cs_pattern_spec spec = {kind, arg};
    struct cs_rng rng;
    cs_rng_seed(&rng, 7);
    struct cs_error err = {{0}};
    if (cs_pattern_init(p, &spec, n, &rng, &err) != 0)
        fail_msg("init %s(%u) on %u: %s", cs_pattern_kind_name(kind), arg, n, err.msg);
}

/* Level `level` equals the pairs written as "s>d s>d ...". */
static void expect_level(const struct cs_pattern *p, uint32_t level, const char *want)
{
    uint64_t size = cs_pattern_level_size(p, level);
    struct cs_pair *pairs = calloc(size + 1, sizeof *pairs);
    assert_non_null(pairs);
    cs_pattern_pairs(p, level, 0, (uint32_t)size, pairs);
    char got[4096] = "";
    size_t used = 0;
    for (uint64_t i = 0; i < size; i++)
        used += (size_t)snprintf(got + used, sizeof got - used, "%s%u>%u", i ? " " : "",
                                 pairs[i].src, pairs[i].dst);
    free(pairs);
    if (strcmp(got, want) != 0)
        fail_msg("%s on %u ranks, level %u:\n  got  %s\n  want %s",
                 cs_pattern_kind_name(p->spec.kind), p->ranks, level, got, want);
}

/* ---- the generators ---- */

static void test_shift(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_SHIFT, 0, 4);
    assert_int_equal(p.levels, 3);
    expect_level(&p, 0, "0>1 1>2 2>3 3>0");
    expect_level(&p, 1, "0>2 1>3 2>0 3>1");
    expect_level(&p, 2, "0>3 1>0 2>1 3>2");
    assert_int_equal(cs_pattern_total_pairs(&p), 12);
    cs_pattern_free(&p);
}

static void test_alltoall(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_ALLTOALL, 0, 3);
    assert_int_equal(p.levels, 1);
    expect_level(&p, 0, "0>1 0>2 1>2 1>0 2>0 2>1");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_ALLTOALL, 0, 5);
    assert_int_equal(cs_pattern_level_size(&p, 0), 20);
    cs_pattern_free(&p);
}

static void test_bisect(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_BISECT, 0, 6);
    assert_int_equal(p.levels, 1);
    expect_level(&p, 0, "0>1 2>3 4>5");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_BISECT, 0, 5); /* the odd rank idles */
    expect_level(&p, 0, "0>1 2>3");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_BISECT_FB_SYM, 0, 5);
    expect_level(&p, 0, "0>1 1>0 2>3 3>2");
    cs_pattern_free(&p);
    /* A perfect matching: with an even count every rank is in exactly one pair. */
    make(&p, CS_PATTERN_BISECT, 0, 100);
    struct cs_pair pairs[50];
    cs_pattern_pairs(&p, 0, 0, 50, pairs);
    uint8_t seen[100] = {0};
    for (int i = 0; i < 50; i++) {
        seen[pairs[i].src]++;
        seen[pairs[i].dst]++;
    }
    for (int i = 0; i < 100; i++)
        assert_int_equal(seen[i], 1);
    cs_pattern_free(&p);
}

static void test_rand(void **state)
{
    (void)state;
    struct cs_pattern_spec spec = {CS_PATTERN_RAND, 0};
    struct cs_error err = {{0}};
    struct cs_pattern p;
    /* Without a generator rand cannot be drawn. */
    assert_int_equal(cs_pattern_init(&p, &spec, 4, NULL, &err), -1);
    make(&p, CS_PATTERN_RAND, 0, 2);
    expect_level(&p, 0, "0>1 1>0"); /* the only derangement of 2 */
    cs_pattern_free(&p);
    for (uint32_t n = 2; n <= 40; n++) {
        struct cs_rng rng;
        cs_rng_seed(&rng, n);
        assert_int_equal(cs_pattern_init(&p, &spec, n, &rng, &err), 0);
        for (int draw = 0; draw < 20; draw++) {
            uint8_t hit[40] = {0};
            struct cs_pair pairs[40];
            assert_int_equal(cs_pattern_level_size(&p, 0), n);
            cs_pattern_pairs(&p, 0, 0, n, pairs);
            for (uint32_t i = 0; i < n; i++) {
                assert_int_equal(pairs[i].src, i);
                assert_int_not_equal(pairs[i].dst, i); /* no self pair */
                hit[pairs[i].dst]++;
            }
            for (uint32_t i = 0; i < n; i++)
                assert_int_equal(hit[i], 1); /* a permutation */
            cs_pattern_draw(&p, &rng);
        }
        cs_pattern_free(&p);
    }
    /* Same seed, same permutation; a new draw differs (10 ranks: 1334961 derangements). */
    struct cs_rng a, b;
    cs_rng_seed(&a, 99);
    cs_rng_seed(&b, 99);
    struct cs_pattern q;
    assert_int_equal(cs_pattern_init(&p, &spec, 10, &a, &err), 0);
    assert_int_equal(cs_pattern_init(&q, &spec, 10, &b, &err), 0);
    assert_memory_equal(p.perm, q.perm, 10 * sizeof *p.perm);
    cs_pattern_draw(&q, &b);
    assert_true(memcmp(p.perm, q.perm, 10 * sizeof *p.perm) != 0);
    cs_pattern_free(&p);
    cs_pattern_free(&q);
}

static void test_bruck(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_BRUCK, 0, 5);
    assert_int_equal(p.levels, 3); /* distances 1, 2, 4 < 5 */
    expect_level(&p, 0, "0>1 1>2 2>3 3>4 4>0");
    expect_level(&p, 1, "0>2 1>3 2>4 3>0 4>1");
    expect_level(&p, 2, "0>4 1>0 2>1 3>2 4>3");
    assert_int_equal(cs_pattern_level_size(&p, 3), 0);
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_BRUCK, 0, 4);
    assert_int_equal(p.levels, 2);
    cs_pattern_free(&p);
}

static void test_recdbl(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_RECDBL, 0, 8);
    assert_int_equal(p.levels, 3);
    expect_level(&p, 0, "0>1 1>0 2>3 3>2 4>5 5>4 6>7 7>6");
    expect_level(&p, 1, "0>2 1>3 2>0 3>1 4>6 5>7 6>4 7>5");
    expect_level(&p, 2, "0>4 1>5 2>6 3>7 4>0 5>1 6>2 7>3");
    cs_pattern_free(&p);
    /* 6 = 4 + 2: the extra ranks fold in first, get the result back last. */
    make(&p, CS_PATTERN_RECDBL, 0, 6);
    assert_int_equal(p.levels, 4);
    expect_level(&p, 0, "4>0 5>1");
    expect_level(&p, 1, "0>1 1>0 2>3 3>2");
    expect_level(&p, 2, "0>2 1>3 2>0 3>1");
    expect_level(&p, 3, "0>4 1>5");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_RECDBL, 0, 3);
    assert_int_equal(p.levels, 3);
    expect_level(&p, 0, "2>0");
    expect_level(&p, 1, "0>1 1>0");
    expect_level(&p, 2, "0>2");
    cs_pattern_free(&p);
}

static void test_ring_tree(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_RING, 0, 4);
    assert_int_equal(p.levels, 4);
    expect_level(&p, 0, "0>1");
    expect_level(&p, 1, "1>2");
    expect_level(&p, 2, "2>3");
    expect_level(&p, 3, "3>0");
    cs_pattern_free(&p);

    make(&p, CS_PATTERN_TREE, 0, 6);
    assert_int_equal(p.levels, 3);
    expect_level(&p, 0, "0>1");
    expect_level(&p, 1, "0>2 1>3");
    expect_level(&p, 2, "0>4 1>5"); /* 2>6, 3>7 would leave the 6 ranks */
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_TREE, 0, 8);
    assert_int_equal(p.levels, 3);
    expect_level(&p, 2, "0>4 1>5 2>6 3>7");
    /* A broadcast: every rank but 0 receives exactly once. */
    assert_int_equal(cs_pattern_total_pairs(&p), 7);
    cs_pattern_free(&p);
}

static void test_gather_scatter(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_GATHER, 0, 4);
    assert_int_equal(p.levels, 1);
    expect_level(&p, 0, "1>0 2>0 3>0");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_SCATTER, 0, 4);
    expect_level(&p, 0, "0>1 0>2 0>3");
    cs_pattern_free(&p);
}

static void test_neighbor(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_NEIGHBOR, 2, 8); /* groups {0,1,2} {3,4,5} {6,7} */
    assert_int_equal(p.levels, 1);
    expect_level(&p, 0, "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4 6>7 7>6");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_NEIGHBOR, 2, 7); /* rank 6 is alone */
    expect_level(&p, 0, "0>1 0>2 1>0 1>2 2>0 2>1 3>4 3>5 4>3 4>5 5>3 5>4");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_NEIGHBOR, 10, 3); /* more neighbours than ranks: all to all */
    expect_level(&p, 0, "0>1 0>2 1>0 1>2 2>0 2>1");
    cs_pattern_free(&p);
}

/* ORCS's neighbor pairing as its source describes it in words: for each rank i and each of its
 * k slots still empty, take the first rank j > i that is not yet i's neighbour and has an empty
 * slot, and fill one slot on each side; then list, rank by rank, the neighbours in slot order.
 * Written here from that description, independently of pattern.c. */
static uint32_t greedy_neighbors(uint32_t n, uint32_t k, struct cs_pair *out)
{
    if (k > n - 1)
        k = n - 1;
    int *slot = malloc((size_t)n * k * sizeof *slot);
    assert_non_null(slot);
    for (uint32_t i = 0; i < n * k; i++)
        slot[i] = -1;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t s = 0; s < k; s++) {
            if (slot[i * k + s] != -1)
                continue;
            for (uint32_t j = i + 1; j < n; j++) {
                bool linked = false;
                for (uint32_t t = 0; t < k; t++)
                    linked |= slot[j * k + t] == (int)i;
                if (linked)
                    continue;
                uint32_t t = 0;
                while (t < k && slot[j * k + t] != -1)
                    t++;
                if (t == k)
                    continue;
                slot[i * k + s] = (int)j;
                slot[j * k + t] = (int)i;
                break;
            }
        }
    uint32_t count = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t s = 0; s < k; s++)
            if (slot[i * k + s] != -1) {
                out[count].src = i;
                out[count++].dst = (uint32_t)slot[i * k + s];
            }
    free(slot);
    return count;
}

static void test_neighbor_is_orcs_greedy(void **state)
{
    (void)state;
    for (uint32_t n = 2; n <= 30; n++)
        for (uint32_t k = 1; k <= 7; k++) {
            struct cs_pair want[30 * 7], got[30 * 7];
            uint32_t count = greedy_neighbors(n, k, want);
            struct cs_pattern p;
            make(&p, CS_PATTERN_NEIGHBOR, k, n);
            assert_int_equal(cs_pattern_level_size(&p, 0), count);
            cs_pattern_pairs(&p, 0, 0, count, got);
            for (uint32_t i = 0; i < count; i++)
                if (got[i].src != want[i].src || got[i].dst != want[i].dst)
                    fail_msg("neighbor(%u) on %u, pair %u: %u>%u, ORCS %u>%u", k, n, i, got[i].src,
                             got[i].dst, want[i].src, want[i].dst);
            cs_pattern_free(&p);
        }
}

static void test_receivers(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_RECEIVERS, 2, 7);
    assert_int_equal(p.levels, 1);
    expect_level(&p, 0, "2>0 3>1 4>0 5>1 6>0");
    cs_pattern_free(&p);
    make(&p, CS_PATTERN_RECEIVERS, 10, 6); /* at most n/2 receivers, as ORCS */
    expect_level(&p, 0, "3>0 4>1 5>2");
    cs_pattern_free(&p);
}

static void test_null_and_tiny(void **state)
{
    (void)state;
    struct cs_pattern p;
    make(&p, CS_PATTERN_NULL, 0, 10);
    assert_int_equal(p.levels, 0);
    assert_int_equal(cs_pattern_total_pairs(&p), 0);
    cs_pattern_free(&p);
    /* One rank (or none): no pattern has a pair. */
    for (int kind = 0; kind < CS_PATTERN_KINDS; kind++)
        for (uint32_t n = 0; n < 2; n++) {
            make(&p, (enum cs_pattern_kind)kind, cs_pattern_kind_takes_arg(kind) ? 3 : 0, n);
            assert_int_equal(p.levels, 0);
            cs_pattern_free(&p);
        }
}

/* Any slice of a level equals the same part of the whole level, for every kind; level sizes add
 * up to the total; no pair is a self pair and all ranks are in range. */
static void test_chunks_agree(void **state)
{
    (void)state;
    for (int kind = 0; kind < CS_PATTERN_KINDS; kind++)
        for (uint32_t n = 2; n <= 13; n++) {
            struct cs_pattern p;
            make(&p, (enum cs_pattern_kind)kind, cs_pattern_kind_takes_arg(kind) ? 3 : 0, n);
            assert_int_equal(p.levels, cs_pattern_count_levels(&p.spec, n));
            uint64_t total = 0;
            for (uint32_t l = 0; l < p.levels; l++) {
                uint32_t size = (uint32_t)cs_pattern_level_size(&p, l);
                assert_true(size > 0); /* the first empty level ends a pattern, as in ORCS */
                total += size;
                struct cs_pair *whole = calloc(size, sizeof *whole);
                struct cs_pair *part = calloc(size, sizeof *part);
                assert_non_null(whole);
                assert_non_null(part);
                cs_pattern_pairs(&p, l, 0, size, whole);
                for (uint32_t i = 0; i < size; i++) {
                    assert_true(whole[i].src < n && whole[i].dst < n);
                    assert_int_not_equal(whole[i].src, whole[i].dst);
                }
                for (uint32_t first = 0; first < size; first += 3) {
                    uint32_t count = size - first < 3 ? size - first : 3;
                    cs_pattern_pairs(&p, l, first, count, part + first);
                }
                assert_memory_equal(whole, part, size * sizeof *whole);
                free(whole);
                free(part);
            }
            assert_int_equal(total, cs_pattern_total_pairs(&p));
            cs_pattern_free(&p);
        }
}

/* ---- names ---- */

static void test_parse(void **state)
{
    (void)state;
    struct cs_pattern_spec s;
    struct cs_error err = {{0}};
    for (int kind = 0; kind < CS_PATTERN_KINDS; kind++) {
        char text[32];
        struct cs_pattern_spec want = {(enum cs_pattern_kind)kind,
                                       cs_pattern_kind_takes_arg(kind) ? 4 : 0};
        cs_pattern_format(&want, text, sizeof text);
        assert_int_equal(cs_pattern_parse(&s, text, &err), 0);
        assert_int_equal(s.kind, kind);
        assert_int_equal(s.arg, want.arg);
    }
    assert_int_equal(cs_pattern_parse(&s, "neighbor(4)", &err), 0);
    assert_int_equal(s.kind, CS_PATTERN_NEIGHBOR);
    assert_int_equal(s.arg, 4);
    assert_int_equal(cs_pattern_parse(&s, "all-to-all", &err), 0);
    assert_int_equal(s.kind, CS_PATTERN_ALLTOALL);
    assert_int_equal(cs_pattern_parse(&s, "bisect-fb-sym", &err), 0);
    assert_int_equal(s.kind, CS_PATTERN_BISECT_FB_SYM);

    static const struct {
        const char *text, *says;
    } bad[] = {
        {"foo", "unknown pattern 'foo'"},
        {"neighbor", "needs a count: neighbor(N)"},
        {"receivers()", "expected receivers(N)"},
        {"neighbor(0)", "between 1 and"},
        {"neighbor(x)", "expected neighbor(N)"},
        {"neighbor(4", "expected neighbor(N)"},
        {"neighbor(4)x", "expected neighbor(N)"},
        {"neighbor(-1)", "expected neighbor(N)"},
        {"neighbor(99999999999)", "between 1 and"},
        {"shift(2)", "shift takes no argument"},
        {"Shift", "unknown pattern"},
        {"", "unknown pattern"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.msg[0] = 0;
        assert_int_equal(cs_pattern_parse(&s, bad[i].text, &err), -1);
        if (!strstr(err.msg, bad[i].says))
            fail_msg("'%s': '%s' does not say '%s'", bad[i].text, err.msg, bad[i].says);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shift),        cmocka_unit_test(test_alltoall),
        cmocka_unit_test(test_bisect),       cmocka_unit_test(test_rand),
        cmocka_unit_test(test_bruck),        cmocka_unit_test(test_recdbl),
        cmocka_unit_test(test_ring_tree),    cmocka_unit_test(test_gather_scatter),
        cmocka_unit_test(test_neighbor),     cmocka_unit_test(test_neighbor_is_orcs_greedy),
        cmocka_unit_test(test_receivers),    cmocka_unit_test(test_null_and_tiny),
        cmocka_unit_test(test_chunks_agree), cmocka_unit_test(test_parse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
