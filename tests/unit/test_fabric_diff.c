/* Comparing fabrics by GUID. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric_diff.h"

static void build(struct cs_fabric *f, bool swap_order)
{
    struct cs_error err;
    cs_fabric_init(f);
    uint32_t sw, ca;
    if (swap_order) {
        ca = cs_fabric_add_node(f, CS_NODE_CA, 0x1000, 1, "host", &err);
        sw = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100, 4, "leaf", &err);
    } else {
        sw = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100, 4, "leaf", &err);
        ca = cs_fabric_add_node(f, CS_NODE_CA, 0x1000, 1, "host", &err);
    }
    assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, sw, 2), cs_fabric_port(f, ca, 1), &err),
                     0);
}

static void test_order_does_not_matter(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_fabric_diff d;
    struct cs_error err;
    build(&a, false);
    build(&b, true);
    assert_int_equal(cs_fabric_diff(&a, &b, NULL, &d, &err), 0);
    assert_int_equal(d.differences, 0);
    assert_int_equal(d.num_examples, 0);
    cs_fabric_free(&a);
    cs_fabric_free(&b);
}

static void test_each_kind_is_found(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_fabric_diff d;
    struct cs_error err;
    build(&a, false);
    build(&b, false);
    /* Recable the host from leaf port 2 to port 3: two ports of the leaf and the host's port
     * change peer. */
    b.ports[b.ports[cs_fabric_port(&b, 0, 2)].peer].peer = CS_NONE;
    b.ports[cs_fabric_port(&b, 0, 2)].peer = CS_NONE;
    assert_int_equal(
        cs_fabric_connect(&b, cs_fabric_port(&b, 0, 3), cs_fabric_port(&b, 1, 1), &err), 0);
    strcpy(b.nodes[1].desc, "renamed");
    b.ports[cs_fabric_port(&b, 1, 1)].guid = 0x9999;
    cs_fabric_add_node(&b, CS_NODE_SWITCH, 0x200, 4, "new", &err);
    assert_int_equal(cs_fabric_diff(&a, &b, NULL, &d, &err), 0);
    assert_int_equal(d.nodes_only_a, 0);
    assert_int_equal(d.nodes_only_b, 1);
    assert_int_equal(d.nodes_changed, 1);
    assert_int_equal(d.ports_changed, 1);
    assert_int_equal(d.ports_relinked, 3); /* leaf[2], leaf[3], host[1] */
    assert_int_equal(d.differences, 6);
    assert_int_equal(d.num_examples, 6);
    bool saw_desc = false;
    for (uint32_t i = 0; i < d.num_examples; i++)
        saw_desc |= strstr(d.examples[i], "'host' vs 'renamed'") != NULL;
    assert_true(saw_desc);
    cs_fabric_free(&a);
    cs_fabric_free(&b);
}

static void test_lids_only_when_asked(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_fabric_diff d;
    struct cs_error err;
    build(&a, false);
    build(&b, false);
    b.ports[cs_fabric_port(&b, 1, 1)].lid = 5;
    cs_fabric_set_link_rate(&b, cs_fabric_port(&b, 1, 1), 4, CS_SPEED_QDR);
    assert_int_equal(cs_fabric_diff(&a, &b, NULL, &d, &err), 0);
    assert_int_equal(d.differences, 0);
    struct cs_fabric_diff_options opt = {.lids = true, .rates = false};
    assert_int_equal(cs_fabric_diff(&a, &b, &opt, &d, &err), 0);
    assert_int_equal(d.ports_changed, 1);
    opt.rates = true;
    assert_int_equal(cs_fabric_diff(&a, &b, &opt, &d, &err), 0);
    assert_int_equal(d.ports_changed, 3); /* LID, rate on both ends of the link */
    cs_fabric_free(&a);
    cs_fabric_free(&b);
}

static void test_examples_are_capped(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_fabric_diff d;
    struct cs_error err;
    cs_fabric_init(&a);
    cs_fabric_init(&b);
    for (uint64_t g = 1; g <= 25; g++)
        cs_fabric_add_node(&b, CS_NODE_SWITCH, g, 2, "s", &err);
    assert_int_equal(cs_fabric_diff(&a, &b, NULL, &d, &err), 0);
    assert_int_equal(d.nodes_only_b, 25);
    assert_int_equal(d.num_examples, CS_FABRIC_DIFF_EXAMPLES);
    cs_fabric_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_does_not_matter),
        cmocka_unit_test(test_each_kind_is_found),
        cmocka_unit_test(test_lids_only_when_asked),
        cmocka_unit_test(test_examples_are_capped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
