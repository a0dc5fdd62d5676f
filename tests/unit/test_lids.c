/* LID assignment (cs_lids_assign): the rule documented in include/cloudsm/lid.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/lft.h"
#include "cloudsm/lid.h"

struct small {
    struct cs_fabric f;
    uint32_t s1, s2, a, b;
};

/* Node order: switch S1, CA A (2 ports, only port 1 cabled), switch S2, CA B. Putting a CA between
 * the switches checks that the order is the fabric's, not "switches first". */
static void build(struct small *n)
{
    struct cs_error err;
    cs_fabric_init(&n->f);
    n->s1 = cs_fabric_add_node(&n->f, CS_NODE_SWITCH, 0x100, 4, "S1", &err);
    n->a = cs_fabric_add_node(&n->f, CS_NODE_CA, 0x1000, 2, "A", &err);
    n->s2 = cs_fabric_add_node(&n->f, CS_NODE_SWITCH, 0x200, 4, "S2", &err);
    n->b = cs_fabric_add_node(&n->f, CS_NODE_CA, 0x2000, 1, "B", &err);
    struct cs_fabric *f = &n->f;
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, n->a, 1), cs_fabric_port(f, n->s1, 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, n->b, 1), cs_fabric_port(f, n->s2, 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, n->s1, 4), cs_fabric_port(f, n->s2, 4), &err), 0);
}

static struct cs_port *port(struct small *n, uint32_t node, unsigned num)
{
    return &n->f.ports[cs_fabric_port(&n->f, node, num)];
}

static void assign_ok(struct cs_fabric *f, unsigned lmc)
{
    struct cs_error err = {""};
    if (cs_lids_assign(f, lmc, &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_order_and_values(void **state)
{
    (void)state;
    struct small n;
    build(&n);
    assign_ok(&n.f, 0);
    assert_int_equal(port(&n, n.s1, 0)->lid, 1);
    assert_int_equal(port(&n, n.a, 1)->lid, 2);
    assert_int_equal(port(&n, n.a, 2)->lid, 0); /* not cabled: no LID */
    assert_int_equal(port(&n, n.s2, 0)->lid, 3);
    assert_int_equal(port(&n, n.b, 1)->lid, 4);
    /* switch external ports never get one */
    for (unsigned p = 1; p <= 4; p++) {
        assert_int_equal(port(&n, n.s1, p)->lid, 0);
        assert_int_equal(port(&n, n.s2, p)->lid, 0);
    }
    assert_int_equal(cs_fabric_max_lid(&n.f), 4);

    /* Assigning again changes nothing: every port keeps its LID. */
    assign_ok(&n.f, 0);
    assert_int_equal(port(&n, n.b, 1)->lid, 4);
    assert_int_equal(cs_fabric_max_lid(&n.f), 4);
    cs_fabric_free(&n.f);
}

static void test_keeps_preassigned(void **state)
{
    (void)state;
    struct small n;
    build(&n);
    port(&n, n.b, 1)->lid = 2;
    port(&n, n.s2, 0)->lid = 9;
    assign_ok(&n.f, 0);
    assert_int_equal(port(&n, n.s1, 0)->lid, 1);
    assert_int_equal(port(&n, n.a, 1)->lid, 3); /* 2 is taken by B */
    assert_int_equal(port(&n, n.s2, 0)->lid, 9);
    assert_int_equal(port(&n, n.b, 1)->lid, 2);
    assert_int_equal(cs_fabric_max_lid(&n.f), 9);
    cs_fabric_free(&n.f);
}

static void test_lmc_alignment(void **state)
{
    (void)state;
    struct small n;
    build(&n);
    assign_ok(&n.f, 1);
    /* Fabric order S1, A, S2, B. Base switch port 0 takes one LID whatever the LMC (as OpenSM
     * does); CA ports take aligned ranges of 2, and LID 0 is not unicast. */
    assert_int_equal(port(&n, n.s1, 0)->lid, 1);
    assert_int_equal(port(&n, n.s1, 0)->lmc, 0);
    assert_int_equal(port(&n, n.a, 1)->lid, 2);
    assert_int_equal(port(&n, n.a, 1)->lmc, 1);
    assert_int_equal(port(&n, n.s2, 0)->lid, 4); /* lowest free single LID: 1 S1, 2-3 A */
    assert_int_equal(port(&n, n.b, 1)->lid, 6);  /* lowest free pair: 4 is S2's */
    assert_int_equal(port(&n, n.b, 1)->lmc, 1);
    assert_int_equal(cs_fabric_max_lid(&n.f), 7);
    cs_fabric_free(&n.f);

    build(&n);
    n.f.nodes[n.s2].enhanced_port0 = true; /* an enhanced port 0 honours the LMC */
    assign_ok(&n.f, 1);
    assert_int_equal(port(&n, n.s2, 0)->lid, 4);
    assert_int_equal(port(&n, n.s2, 0)->lmc, 1);
    assert_int_equal(port(&n, n.b, 1)->lid, 6);
    cs_fabric_free(&n.f);

    build(&n);
    port(&n, n.b, 1)->lid = 8; /* LIDs 8-11 */
    port(&n, n.b, 1)->lmc = 2;
    port(&n, n.s2, 0)->lid = 5; /* LMC 0: a single LID inside the range 4-7 */
    assign_ok(&n.f, 2);
    assert_int_equal(port(&n, n.s1, 0)->lid, 1);
    assert_int_equal(port(&n, n.s1, 0)->lmc, 0);
    assert_int_equal(port(&n, n.a, 1)->lid, 12); /* 4-7 holds S2's 5, 8-11 is B's */
    assert_int_equal(port(&n, n.a, 1)->lmc, 2);
    assert_int_equal(port(&n, n.s2, 0)->lid, 5);
    assert_int_equal(port(&n, n.s2, 0)->lmc, 0);
    assert_int_equal(cs_fabric_max_lid(&n.f), 15);
    cs_fabric_free(&n.f);
}

static void expect_assign_error(struct small *n, unsigned lmc, const char *part)
{
    struct cs_fabric before;
    struct cs_error err = {""};
    assert_int_equal(cs_fabric_copy(&before, &n->f, &err), 0);
    assert_int_equal(cs_lids_assign(&n->f, lmc, &err), -1);
    if (!strstr(err.msg, part))
        fail_msg("got \"%s\", expected \"...%s...\"", err.msg, part);
    assert_true(cs_fabric_equal(&n->f, &before, NULL)); /* a failed call changes nothing */
    cs_fabric_free(&before);
    cs_fabric_free(&n->f);
}

static void test_conflicts(void **state)
{
    (void)state;
    struct small n;
    build(&n);
    port(&n, n.a, 1)->lid = 5;
    port(&n, n.b, 1)->lid = 5;
    expect_assign_error(&n, 0, "LID 0x0005 belongs to both port 1 of 0x0000000000001000");

    build(&n);
    port(&n, n.a, 1)->lid = 4;
    port(&n, n.a, 1)->lmc = 2; /* 4-7 */
    port(&n, n.s1, 0)->lid = 6;
    expect_assign_error(&n, 0, "LID 0x0006 belongs to both");

    build(&n);
    port(&n, n.a, 1)->lid = 5;
    port(&n, n.a, 1)->lmc = 1; /* 5-6 is not aligned */
    expect_assign_error(&n, 0, "not an LMC-aligned range");

    build(&n);
    port(&n, n.a, 1)->lid = 0xbffe;
    port(&n, n.a, 1)->lmc = 2; /* would end beyond 0xbfff */
    expect_assign_error(&n, 0, "0xbffe-0xc001");

    build(&n);
    expect_assign_error(&n, 8, "LMC 8");
}

/* Two switches with `per_switch` cabled CAs each. */
static void build_wide(struct cs_fabric *f, unsigned per_switch)
{
    struct cs_error err;
    cs_fabric_init(f);
    for (unsigned s = 0; s < 2; s++) {
        uint32_t sw = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100 + s, 254, "sw", &err);
        assert_int_not_equal(sw, CS_NONE);
        for (unsigned i = 0; i < per_switch; i++) {
            uint32_t ca = cs_fabric_add_node(
                f, CS_NODE_CA, 0x100000 + (uint64_t)(s * 1000 + i) * 16, 1, "h", &err);
            assert_int_equal(
                cs_fabric_connect(f, cs_fabric_port(f, ca, 1), cs_fabric_port(f, sw, i + 1), &err),
                0);
        }
    }
}

/* With LMC 7 the usable CA ranges start at 128, 256, ..., 49024: 383 of them (49151 / 128 =
 * 383.99, and the range at 0 contains LID 0). The two switches take single LIDs 1 and 2. */
static void test_exhaustion(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err = {""};
    build_wide(&f, 190); /* 380 CA ports: fits */
    assert_int_equal(cs_lids_assign(&f, 7, &err), 0);
    assert_int_equal(cs_fabric_max_lid(&f), 380 * 128 + 127);
    cs_fabric_free(&f);

    build_wide(&f, 250); /* 500 CA ports x 128 LIDs = 64000: 117 are left without */
    assert_int_equal(cs_lids_assign(&f, 7, &err), -1);
    assert_non_null(strstr(err.msg, "out of LIDs: 117 more ports need LIDs (LMC 7)"));
    assert_int_equal(cs_fabric_max_lid(&f), 0);
    cs_fabric_free(&f);

    /* 383 CA ports fit exactly; one more does not. */
    build_wide(&f, 191);
    cs_fabric_add_node(&f, CS_NODE_CA, 0x900000, 1, "last", &err);
    assert_int_equal(cs_fabric_connect(&f, cs_fabric_port(&f, f.num_nodes - 1, 1),
                                       cs_fabric_port(&f, 0, 254), &err),
                     0);
    assert_int_equal(cs_lids_assign(&f, 7, &err), 0);
    assert_int_equal(cs_fabric_max_lid(&f), 383 * 128 + 127);
    cs_fabric_free(&f);

    build_wide(&f, 192);
    assert_int_equal(cs_lids_assign(&f, 7, &err), -1);
    assert_non_null(strstr(err.msg, "1 more port needs"));
    cs_fabric_free(&f);
}

static void test_max_lid_empty(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_fabric_max_lid(&f), 0);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_values), cmocka_unit_test(test_keeps_preassigned),
        cmocka_unit_test(test_lmc_alignment),    cmocka_unit_test(test_conflicts),
        cmocka_unit_test(test_exhaustion),       cmocka_unit_test(test_max_lid_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
