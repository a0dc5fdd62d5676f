/* The fabric model: node/port slots, links, copy/compare, GUID indexes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"

/* Two leaves, one spine with a double link to leaf 0, one dual-port CA on leaf 0, one CA on
 * leaf 1. Returns node indices through the out array. */
static void build_small(struct cs_fabric *f, uint32_t idx[5])
{
    struct cs_error err;
    cs_fabric_init(f);
    idx[0] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100, 8, "leaf0", &err);
    idx[1] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x200, 8, "leaf1", &err);
    idx[2] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x300, 8, "spine", &err);
    idx[3] = cs_fabric_add_node(f, CS_NODE_CA, 0x1000, 2, "hostA", &err);
    idx[4] = cs_fabric_add_node(f, CS_NODE_CA, 0x2000, 1, "hostB", &err);
    for (int i = 0; i < 5; i++)
        assert_int_not_equal(idx[i], CS_NONE);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, idx[3], 1), cs_fabric_port(f, idx[0], 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, idx[4], 1), cs_fabric_port(f, idx[1], 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, idx[0], 5), cs_fabric_port(f, idx[2], 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, idx[0], 6), cs_fabric_port(f, idx[2], 2), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, idx[1], 5), cs_fabric_port(f, idx[2], 3), &err), 0);
}

static void test_slots_and_default_guids(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t idx[5];
    build_small(&f, idx);
    assert_int_equal(f.num_nodes, 5);
    /* 9 slots per 8-port switch, 3 for the 2-port CA, 2 for the 1-port CA. */
    assert_int_equal(f.num_port_slots, 9 * 3 + 3 + 2);
    uint32_t sw0 = cs_fabric_port(&f, idx[0], 0);
    assert_int_equal(f.ports[sw0].guid, 0x100); /* switch port 0 carries the node GUID */
    assert_int_equal(f.ports[sw0 + 3].guid, 0); /* external switch ports have none */
    uint32_t ca1 = cs_fabric_port(&f, idx[3], 1);
    assert_int_equal(f.ports[ca1].guid, 0x1001); /* ibsim rule: node GUID + port */
    assert_int_equal(f.ports[ca1 + 1].guid, 0x1002);
    assert_int_equal(f.nodes[idx[3]].sysimg_guid, 0x1000);
    assert_int_equal(cs_fabric_port(&f, idx[3], 3), CS_NONE);
    assert_int_equal(cs_fabric_port(&f, 99, 0), CS_NONE);
    /* Links are symmetric. */
    uint32_t peer = f.ports[ca1].peer;
    assert_int_equal(f.ports[peer].node, idx[0]);
    assert_int_equal(f.ports[peer].num, 1);
    assert_int_equal(f.ports[peer].peer, ca1);
    cs_fabric_free(&f);
}

static void test_connect_errors(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t idx[5];
    struct cs_error err;
    build_small(&f, idx);
    uint32_t used = cs_fabric_port(&f, idx[0], 1);
    uint32_t free_port = cs_fabric_port(&f, idx[1], 7);
    assert_int_equal(cs_fabric_connect(&f, used, free_port, &err), -1);
    assert_non_null(strstr(err.msg, "already connected"));
    assert_int_equal(cs_fabric_connect(&f, free_port, free_port, &err), -1);
    assert_int_equal(cs_fabric_connect(&f, cs_fabric_port(&f, idx[2], 0), free_port, &err), -1);
    assert_non_null(strstr(err.msg, "port 0"));
    assert_int_equal(cs_fabric_connect(&f, f.nodes[idx[3]].first_port, free_port, &err), -1);
    assert_int_equal(f.ports[free_port].peer, CS_NONE); /* nothing half-done */
    assert_int_equal(cs_fabric_add_node(&f, CS_NODE_SWITCH, 1, 0, "x", &err), CS_NONE);
    assert_int_equal(cs_fabric_add_node(&f, CS_NODE_SWITCH, 1, 255, "x", &err), CS_NONE);
    assert_int_equal(cs_fabric_add_node(&f, (enum cs_node_type)7, 1, 4, "x", &err), CS_NONE);
    assert_int_equal(f.num_nodes, 5);
    cs_fabric_free(&f);
}

static void test_desc_truncated(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err;
    cs_fabric_init(&f);
    char longdesc[100];
    memset(longdesc, 'x', sizeof longdesc - 1);
    longdesc[99] = '\0';
    uint32_t n = cs_fabric_add_node(&f, CS_NODE_CA, 5, 1, longdesc, &err);
    assert_int_equal(strlen(f.nodes[n].desc), CS_DESC_MAX);
    cs_fabric_free(&f);
}

static void test_copy_equal(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    uint32_t idx[5];
    struct cs_error err;
    build_small(&a, idx);
    assert_int_equal(cs_fabric_copy(&b, &a, &err), 0);
    assert_true(cs_fabric_equal(&a, &b, &err));
    /* Any single field change is seen. */
    b.ports[cs_fabric_port(&b, idx[4], 1)].lid = 7;
    assert_false(cs_fabric_equal(&a, &b, &err));
    assert_non_null(strstr(err.msg, "0x0000000000002000"));
    b.ports[cs_fabric_port(&b, idx[4], 1)].lid = 0;
    assert_true(cs_fabric_equal(&a, &b, NULL));
    strcpy(b.nodes[idx[2]].desc, "other");
    assert_false(cs_fabric_equal(&a, &b, NULL));
    cs_fabric_free(&b);
    assert_int_equal(cs_fabric_copy(&b, &a, &err), 0);
    cs_fabric_set_link_rate(&b, cs_fabric_port(&b, idx[0], 5), 4, CS_SPEED_HDR);
    assert_int_equal(b.ports[cs_fabric_port(&b, idx[2], 1)].speed, CS_SPEED_HDR);
    assert_false(cs_fabric_equal(&a, &b, NULL));
    cs_fabric_free(&a);
    cs_fabric_free(&b);
}

static void test_needs_lid(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t idx[5];
    build_small(&f, idx);
    assert_true(cs_port_needs_lid(&f, cs_fabric_port(&f, idx[2], 0)));
    assert_false(cs_port_needs_lid(&f, cs_fabric_port(&f, idx[2], 1)));
    assert_true(cs_port_needs_lid(&f, cs_fabric_port(&f, idx[3], 1)));
    assert_false(cs_port_needs_lid(&f, cs_fabric_port(&f, idx[3], 2))); /* unconnected */
    assert_false(cs_port_needs_lid(&f, f.nodes[idx[3]].first_port));    /* CA slot 0 */
    cs_fabric_free(&f);
}

static void test_guid_indexes(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t idx[5];
    struct cs_error err;
    build_small(&f, idx);
    struct cs_key_index nodes, ports;
    assert_int_equal(cs_key_index_nodes(&nodes, &f, &err), 0);
    assert_int_equal(cs_key_index_find(&nodes, 0x300), idx[2]);
    assert_int_equal(cs_key_index_find(&nodes, 0x301), CS_NONE);
    assert_int_equal(cs_key_index_ports(&ports, &f, &err), 0);
    assert_int_equal(cs_key_index_find(&ports, 0x1002), cs_fabric_port(&f, idx[3], 2));
    assert_int_equal(cs_key_index_find(&ports, 0x200), cs_fabric_port(&f, idx[1], 0));
    assert_int_equal(ports.count, 3 + 2 + 1);
    cs_key_index_free(&nodes);
    cs_key_index_free(&ports);
    /* A duplicate GUID is refused. */
    cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x200, 4, "dup", &err);
    assert_int_equal(cs_key_index_nodes(&nodes, &f, &err), -1);
    assert_non_null(strstr(err.msg, "duplicate node GUID 0x0000000000000200"));
    cs_fabric_free(&f);
}

static void test_speed_names(void **state)
{
    (void)state;
    for (int s = CS_SPEED_SDR; s <= CS_SPEED_XDR; s++) {
        const char *name = cs_link_speed_name((enum cs_link_speed)s);
        assert_int_equal(cs_link_speed_parse(name, strlen(name)), s);
    }
    assert_int_equal(cs_link_speed_parse("FDR1", 4), CS_SPEED_UNKNOWN);
    assert_int_equal(cs_link_speed_parse("FDR10", 5), CS_SPEED_FDR10);
    assert_string_equal(cs_node_type_long_name(CS_NODE_CA), "Channel Adapter");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_and_default_guids),
        cmocka_unit_test(test_connect_errors),
        cmocka_unit_test(test_desc_truncated),
        cmocka_unit_test(test_copy_equal),
        cmocka_unit_test(test_needs_lid),
        cmocka_unit_test(test_guid_indexes),
        cmocka_unit_test(test_speed_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
