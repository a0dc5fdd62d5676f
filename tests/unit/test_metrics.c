/* The monitor's data model: the watched ports of a generated fat-tree (counts, LIDs, peers, link
 * rates from width and speed), partition membership, lookups, and the order the builders keep. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "cloudsm/metrics.h"
#include "cloudsm/partitions.h"
#include "route_fixtures.h"

/* A 4-ary-3-tree: 64 hosts, 48 switches of 8 ports; 64 host cables, 64 leaf-middle and 64
 * middle-top cables (docs/cli.md: "links 192 (128 switch-to-switch)"). */
#define SPEC "3;4,4,4;1,4,4"

/* The fabric node with a GUID (a plain scan: the lookup under test is the other side's). */
static uint32_t fabric_node(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t i = 0; i < f->num_nodes; i++)
        if (f->nodes[i].guid == guid)
            return i;
    return CS_NONE;
}

static void set_fabric(struct cs_metrics *m, const struct cs_fabric *f,
                       const struct cs_partition_set *pset)
{
    struct cs_error err = {""};
    cs_metrics_init(m);
    if (cs_metrics_set_fabric(m, f, pset, &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_watched_ports(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, SPEC);
    struct cs_metrics m;
    set_fabric(&m, &f, NULL);
    assert_int_equal(m.num_nodes, 64 + 48);
    /* every cable end is watched: 192 cables; no empty switch port is */
    assert_int_equal(m.num_ports, 2 * 192);
    uint32_t ca_ports = 0;
    for (uint32_t i = 0; i < m.num_ports; i++) {
        const struct cs_metric_port *p = &m.ports[i];
        const struct cs_metric_node *n = &m.nodes[p->node];
        uint32_t fn = fabric_node(&f, n->guid);
        assert_int_not_equal(fn, CS_NONE);
        const struct cs_port *fp = &f.ports[cs_fabric_port(&f, fn, p->num)];
        /* the peer is the fabric's */
        assert_int_equal(p->peer_node_guid, f.nodes[f.ports[fp->peer].node].guid);
        assert_int_equal(p->peer_num, f.ports[fp->peer].num);
        if (n->type == CS_NODE_CA) {
            ca_ports++;
            assert_int_equal(p->guid, fp->guid);
            assert_int_equal(p->lid, fp->lid);
        } else {
            assert_int_equal(p->guid, 0);
            assert_int_equal(p->lid, f.ports[f.nodes[fn].first_port].lid); /* port 0's */
        }
        /* generated links are 4x EDR: 4 lanes x 25.78125 Gb/s x 64/66 / 8 = 12.5 GB/s */
        assert_true(p->link_bytes_per_s == 12.5e9);
    }
    assert_int_equal(ca_ports, 64);
    /* order: nodes by GUID, ports by (node, number) */
    for (uint32_t i = 1; i < m.num_nodes; i++)
        assert_true(m.nodes[i - 1].guid < m.nodes[i].guid);
    for (uint32_t i = 1; i < m.num_ports; i++)
        assert_true(
            m.ports[i - 1].node < m.ports[i].node ||
            (m.ports[i - 1].node == m.ports[i].node && m.ports[i - 1].num < m.ports[i].num));
    cs_metrics_free(&m);
    cs_fabric_free(&f);
}

static void test_link_rates(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, SPEC);
    /* host 0's cable at 1x SDR, host 1's at 4x QDR, host 2's at 12x HDR */
    uint64_t host[3] = {CS_GUID_HOST_BASE, CS_GUID_HOST_BASE + (1 << 8),
                        CS_GUID_HOST_BASE + (2 << 8)};
    cs_fabric_set_link_rate(&f, cs_fabric_port(&f, fabric_node(&f, host[0]), 1), 1, CS_SPEED_SDR);
    cs_fabric_set_link_rate(&f, cs_fabric_port(&f, fabric_node(&f, host[1]), 1), 4, CS_SPEED_QDR);
    cs_fabric_set_link_rate(&f, cs_fabric_port(&f, fabric_node(&f, host[2]), 1), 12, CS_SPEED_HDR);
    struct cs_metrics m;
    set_fabric(&m, &f, NULL);
    /* SDR: 2.5 Gb/s, 8b/10b: 250 MB/s a lane; QDR 1 GB/s a lane; HDR 53.125 Gb/s x 64/66 */
    const double want[3] = {250e6, 4e9, 12 * 53.125e9 * 64 / 66 / 8};
    for (int h = 0; h < 3; h++) {
        uint32_t p = cs_metrics_find_port(&m, host[h], 1);
        assert_int_not_equal(p, UINT32_MAX);
        assert_true(fabs(m.ports[p].link_bytes_per_s - want[h]) <= 1e-12 * want[h]);
        /* the switch end of the cable has the same rate */
        uint32_t q = cs_metrics_find_port(&m, m.ports[p].peer_node_guid, m.ports[p].peer_num);
        assert_int_not_equal(q, UINT32_MAX);
        assert_true(m.ports[q].link_bytes_per_s == m.ports[p].link_bytes_per_s);
    }
    assert_true(cs_link_lane_bytes_per_s(CS_SPEED_UNKNOWN) == 0);
    cs_metrics_free(&m);
    cs_fabric_free(&f);
}

static void test_partitions(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, SPEC);
    /* Hosts 3 and 1 (named twice: once by GUID, once in a second definition of the pkey) in
     * Blue; host 2 in Red; Default holds every port (ALL). */
    const char conf[] = "Blue=0x0010 : 0x0010000000000301, 0x0010000000000101 ;\n"
                        "Red=0x0020 : 0x0010000000000201=full ;\n"
                        "Blue=0x0010 : 0x0010000000000101 ;\n";
    struct cs_partitions parts;
    struct cs_partition_set pset;
    struct cs_error err = {""};
    if (cs_partitions_parse(&parts, conf, strlen(conf), "p.conf", &err) != 0 ||
        cs_partitions_resolve(&parts, &f, NULL, &pset, &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_metrics m;
    set_fabric(&m, &f, &pset);
    assert_int_equal(m.num_partitions, 3);
    /* in configuration order: Default first */
    assert_int_equal(m.partitions[0].pkey, CS_PKEY_DEFAULT);
    assert_int_equal(m.partitions[0].num_members, 64); /* CA nodes only, not switches */
    assert_string_equal(m.partitions[1].name, "Blue");
    assert_int_equal(m.partitions[1].pkey, 0x10);
    assert_int_equal(m.partitions[1].num_members, 2);
    assert_int_equal(m.nodes[m.partitions[1].members[0]].guid, CS_GUID_HOST_BASE + (1 << 8));
    assert_int_equal(m.nodes[m.partitions[1].members[1]].guid, CS_GUID_HOST_BASE + (3 << 8));
    assert_string_equal(m.partitions[2].name, "Red");
    assert_int_equal(m.partitions[2].num_members, 1);
    assert_int_equal(m.nodes[m.partitions[2].members[0]].guid, CS_GUID_HOST_BASE + (2 << 8));
    for (uint32_t i = 1; i < m.partitions[0].num_members; i++)
        assert_true(m.partitions[0].members[i - 1] < m.partitions[0].members[i]);
    cs_metrics_free(&m);
    cs_partition_set_free(&pset);
    cs_partitions_free(&parts);
    cs_fabric_free(&f);
}

static void test_find(void **state)
{
    (void)state;
    struct cs_fabric f;
    rt_generate(&f, SPEC);
    struct cs_metrics m;
    set_fabric(&m, &f, NULL);
    for (uint32_t i = 0; i < m.num_nodes; i++)
        assert_int_equal(cs_metrics_find_node(&m, m.nodes[i].guid), i);
    for (uint32_t i = 0; i < m.num_ports; i++)
        assert_int_equal(cs_metrics_find_port(&m, m.nodes[m.ports[i].node].guid, m.ports[i].num),
                         i);
    assert_int_equal(cs_metrics_find_node(&m, 0x1234), UINT32_MAX);
    assert_int_equal(cs_metrics_find_node(&m, UINT64_MAX), UINT32_MAX);
    assert_int_equal(cs_metrics_find_port(&m, CS_GUID_HOST_BASE, 2), UINT32_MAX); /* no port 2 */
    assert_int_equal(cs_metrics_find_port(&m, 0x1234, 1), UINT32_MAX);
    /* a top switch uses its 4 down ports only: its up ports 5..8 are not watched */
    uint64_t top = CS_GUID_SWITCH_BASE + ((uint64_t)3 << 32);
    assert_int_not_equal(cs_metrics_find_port(&m, top, 4), UINT32_MAX);
    assert_int_equal(cs_metrics_find_port(&m, top, 5), UINT32_MAX);
    cs_metrics_free(&m);
    cs_fabric_free(&f);
}

static void test_names(void **state)
{
    (void)state;
    for (int k = 0; k < CS_METRIC_COUNT; k++) {
        const char *name = cs_metric_name(k);
        assert_int_equal(cs_metric_from_name(name, strlen(name)), k);
    }
    assert_string_equal(cs_metric_name(CS_METRIC_RCV_BYTES), "rcv_bytes");
    assert_int_equal(cs_metric_from_name("rcv_bytesX", 9), CS_METRIC_RCV_BYTES);
    assert_int_equal(cs_metric_from_name("rcv", 3), -1);
    assert_string_equal(cs_metric_name(CS_METRIC_COUNT), "");
}

static void test_builder_order(void **state)
{
    (void)state;
    struct cs_metrics m;
    struct cs_error err = {""};
    cs_metrics_init(&m);
    assert_int_equal(cs_metrics_add_node(&m, 0x20, CS_NODE_CA, "b", &err), 0);
    assert_int_equal(cs_metrics_add_node(&m, 0x10, CS_NODE_CA, "a", &err), -1);
    assert_non_null(strstr(err.msg, "out of order"));
    assert_int_equal(cs_metrics_add_node(&m, 0x20, CS_NODE_CA, "again", &err), -1);
    assert_int_equal(cs_metrics_add_node(&m, 0x30, CS_NODE_SWITCH, "s", &err), 0);
    struct cs_metric_port p = {.node = 1, .num = 2};
    assert_int_equal(cs_metrics_add_port(&m, &p, &err), 0);
    p.num = 1;
    assert_int_equal(cs_metrics_add_port(&m, &p, &err), -1);
    p.node = 0;
    assert_int_equal(cs_metrics_add_port(&m, &p, &err), -1);
    p.node = 5;
    assert_int_equal(cs_metrics_add_port(&m, &p, &err), -1);
    assert_non_null(strstr(err.msg, "names node 5 of 2"));
    uint32_t bad[2] = {1, 0}, good[2] = {0, 1};
    assert_int_equal(cs_metrics_add_partition(&m, "p", 1, bad, 2, &err), -1);
    assert_non_null(strstr(err.msg, "ascend"));
    assert_int_equal(cs_metrics_add_partition(&m, "p", 1, good, 2, &err), 0);
    struct cs_metric_sample s = {.time = 10, .interval = 1, .port = 0};
    assert_int_equal(cs_metrics_add_sample(&m, &s, &err), 0);
    s.time = 9;
    assert_int_equal(cs_metrics_add_sample(&m, &s, &err), -1);
    s.time = 10;
    s.port = 1;
    assert_int_equal(cs_metrics_add_sample(&m, &s, &err), -1); /* one port only */
    assert_int_equal(m.num_samples, 1);
    cs_metrics_clear_samples(&m);
    assert_int_equal(m.num_samples, 0);
    assert_int_equal(m.num_ports, 1);
    cs_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_watched_ports), cmocka_unit_test(test_link_rates),
        cmocka_unit_test(test_partitions),    cmocka_unit_test(test_find),
        cmocka_unit_test(test_names),         cmocka_unit_test(test_builder_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
