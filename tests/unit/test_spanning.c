/* Spanning-tree counts (include/cloudsm/spanning.h; Compact Network Reconfiguration in Fat-Trees,
 * Sect. 7.3, Eq. 2-5): of specs, and of built fabrics through the fat-tree machinery, which must
 * agree; a cut cable lowers the damaged leaves' count only. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze_fixtures.h"

#include "cloudsm/mutate.h"
#include "cloudsm/spanning.h"
#include "cloudsm/topo_gen.h"

static void parse(struct cs_pgft_spec *s, const char *text)
{
    struct cs_error err = {{0}};
    bool parallel = strchr(strchr(strchr(text, ';') + 1, ';') + 1, ';') != NULL;
    if (cs_pgft_parse(s, text, parallel, &err) != 0)
        fail_msg("parse %s: %s", text, err.msg);
}

static void of_spec(const struct cs_pgft_spec *s, struct cs_spanning *out)
{
    struct cs_error err = {{0}};
    if (cs_spanning_pgft(s, out, &err) != 0)
        fail_msg("%s", err.msg);
}

static void of_fabric(const struct cs_pgft_spec *s, const struct cs_mutation *damage,
                      struct cs_spanning *out)
{
    struct cs_fabric f;
    struct cs_error err = {{0}};
    cs_fabric_init(&f);
    if (cs_pgft_generate(&f, s, &err) != 0)
        fail_msg("%s", err.msg);
    if (damage && cs_fabric_mutate(&f, damage, &err) != 0)
        fail_msg("%s", err.msg);
    fx_lids(&f, 0);
    /* A damaged tree needs its roots named (OpenSM's validation refuses it otherwise). */
    struct cs_guid_list roots = {calloc(f.num_nodes, sizeof(uint64_t)), 0, 0};
    for (uint32_t n = 0; n < f.num_nodes; n++)
        if (cs_node_is_switch(&f.nodes[n]) &&
            (f.nodes[n].guid - CS_GUID_SWITCH_BASE) >> 32 == s->levels)
            roots.guids[roots.count++] = f.nodes[n].guid;
    struct cs_route_options opt = {.root_guids = &roots};
    if (cs_spanning_fabric(&f, damage ? &opt : NULL, out, &err) != 0)
        fail_msg("%s", err.msg);
    free(roots.guids);
    cs_fabric_free(&f);
}

/* The paper's example (Sect. 7.3): 6 different, 2 disjoint. Eq. 2-3 taken over every level, as
 * printed, would give 6 and 1: this fails if w_1 (the hosts' parents) is counted. */
static void test_paper_example(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    struct cs_spanning a, b;
    parse(&s, "3;4,4,3;1,2,3");
    of_spec(&s, &a);
    assert_int_equal(a.different, 6);
    assert_int_equal(a.disjoint, 2);
    of_fabric(&s, NULL, &b);
    assert_int_equal(b.different, 6);
    assert_int_equal(b.disjoint, 2);
    assert_int_equal(b.fewest, 6);
}

/* k-ary-n-trees: k^(n-1) different, k disjoint (Sect. 7.3), for several k and n, from the spec
 * and from the built tree (the machinery's chain count would differ if it counted a group's
 * cables wrongly or missed a level). */
static void test_kary_n_trees(void **state)
{
    (void)state;
    static const unsigned cases[][2] = {{2, 2}, {4, 2}, {2, 3}, {4, 3}, {3, 3}, {8, 2}, {2, 4}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        unsigned k = cases[i][0], n = cases[i][1];
        struct cs_pgft_spec s;
        struct cs_error err = {{0}};
        assert_int_equal(cs_pgft_kary(&s, k, n, &err), 0);
        uint64_t power = 1;
        for (unsigned j = 1; j < n; j++)
            power *= k;
        struct cs_spanning a, b;
        of_spec(&s, &a);
        of_fabric(&s, NULL, &b);
        assert_int_equal(a.different, power);
        assert_int_equal(a.disjoint, k);
        assert_int_equal(b.different, power);
        assert_int_equal(b.disjoint, k);
    }
}

/* Parallel links multiply (Eq. 4-5): PGFT(3;4,4,4;1,2,2;1,2,1) has 2*2 up cables per leaf and
 * 2*1 per middle switch: 8 different, 2 disjoint. An engine that counted groups instead of
 * cables would find 4. */
static void test_pgft_parallel_links(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    struct cs_spanning a, b;
    parse(&s, "3;4,4,4;1,2,2;1,2,1");
    of_spec(&s, &a);
    of_fabric(&s, NULL, &b);
    assert_int_equal(a.different, 8);
    assert_int_equal(a.disjoint, 2);
    assert_int_equal(b.different, 8);
    assert_int_equal(b.disjoint, 2);
    parse(&s, "2;4,4;1,2;1,3"); /* one switch level: 2 parents x 3 cables */
    of_spec(&s, &a);
    of_fabric(&s, NULL, &b);
    assert_int_equal(a.different, 6);
    assert_int_equal(a.disjoint, 6);
    assert_int_equal(b.different, 6);
}

/* One cut cable: the most any leaf has stays, the fewest drops (a leaf of a 4-ary-2-tree that
 * lost one of its 4 up cables has 3 trees). */
static void test_degraded_tree(void **state)
{
    (void)state;
    struct cs_pgft_spec s;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pgft_kary(&s, 4, 2, &err), 0);
    struct cs_spanning b;
    struct cs_mutation cut = {.unlink_switch_links = 1, .seed = 7};
    of_fabric(&s, &cut, &b);
    assert_int_equal(b.different, 4);
    assert_int_equal(b.fewest, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paper_example),
        cmocka_unit_test(test_kary_n_trees),
        cmocka_unit_test(test_pgft_parallel_links),
        cmocka_unit_test(test_degraded_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
