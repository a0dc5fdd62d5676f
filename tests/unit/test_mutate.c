/* Seeded damage: the right number of cables cut, hosts stay on their leaf, hosts shut down
 * leave the fabric and nobody else's LID changes, same seed same result, a second mutation adds
 * to the first, and the random helper is uniform enough to trust. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric_diff.h"
#include "cloudsm/lid.h"
#include "cloudsm/mutate.h"
#include "cloudsm/rng.h"
#include "cloudsm/summary.h"
#include "cloudsm/topo_gen.h"

static void kary(struct cs_fabric *f, unsigned k, unsigned n)
{
    struct cs_pgft_spec spec;
    struct cs_error err;
    cs_fabric_init(f);
    assert_int_equal(cs_pgft_kary(&spec, k, n, &err), 0);
    assert_int_equal(cs_pgft_generate(f, &spec, &err), 0);
}

static uint32_t switch_links(const struct cs_fabric *f)
{
    struct cs_fabric_summary s;
    struct cs_error err;
    assert_int_equal(cs_fabric_summarize(f, 0, &s, &err), 0);
    return s.switch_links;
}

static void test_unlink(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_error err;
    kary(&a, 4, 3);
    kary(&b, 4, 3);
    uint32_t before = switch_links(&a);
    struct cs_mutation m = {.unlink_switch_links = 5, .seed = 42};
    assert_int_equal(cs_fabric_mutate(&a, &m, &err), 0);
    assert_int_equal(switch_links(&a), before - 5);
    assert_int_equal(cs_fabric_mutate(&b, &m, &err), 0);
    assert_true(cs_fabric_equal(&a, &b, NULL)); /* same seed, same cables */
    cs_fabric_free(&b);
    kary(&b, 4, 3);
    m.seed = 43;
    assert_int_equal(cs_fabric_mutate(&b, &m, &err), 0);
    assert_false(cs_fabric_equal(&a, &b, NULL));
    m.unlink_switch_links = 1000;
    assert_int_equal(cs_fabric_mutate(&b, &m, &err), -1);
    assert_non_null(strstr(err.msg, "cannot cut 1000"));
    cs_fabric_free(&a);
    cs_fabric_free(&b);
}

static void test_shuffle_hosts(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_error err;
    kary(&a, 8, 2);
    kary(&b, 8, 2);
    struct cs_mutation m = {.shuffle_host_ports = true, .seed = 7};
    assert_int_equal(cs_fabric_mutate(&b, &m, &err), 0);
    struct cs_fabric_diff d;
    assert_int_equal(cs_fabric_diff(&a, &b, NULL, &d, &err), 0);
    assert_true(d.ports_relinked > 0);
    assert_int_equal(d.nodes_only_a + d.nodes_only_b + d.nodes_changed + d.ports_changed, 0);
    /* Every host is still on the same leaf, and each leaf still uses the same ports. */
    for (uint32_t n = 0; n < a.num_nodes; n++) {
        if (a.nodes[n].type != CS_NODE_CA)
            continue;
        uint32_t pa = a.ports[cs_fabric_port(&a, n, 1)].peer;
        uint32_t pb = b.ports[cs_fabric_port(&b, n, 1)].peer;
        assert_int_equal(a.ports[pa].node, b.ports[pb].node);
    }
    for (uint32_t i = 0; i < a.num_port_slots; i++)
        assert_int_equal(a.ports[i].peer == CS_NONE, b.ports[i].peer == CS_NONE);
    cs_fabric_free(&a);
    cs_fabric_free(&b);
}

static uint32_t count_type(const struct cs_fabric *f, enum cs_node_type type)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < f->num_nodes; i++)
        n += f->nodes[i].type == type;
    return n;
}

/* Every port of `small` is in `big` (by GUID, switches by node GUID and port number) with the
 * same LID, and its cable leads to the same node and port where it still has one. */
static void expect_subset_with_lids(const struct cs_fabric *big, const struct cs_fabric *small)
{
    for (uint32_t n = 0; n < small->num_nodes; n++) {
        const struct cs_node *node = &small->nodes[n];
        uint32_t m = 0;
        while (m < big->num_nodes && big->nodes[m].guid != node->guid)
            m++;
        assert_true(m < big->num_nodes);
        assert_int_equal(big->nodes[m].num_ports, node->num_ports);
        assert_string_equal(big->nodes[m].desc, node->desc);
        for (unsigned p = 0; p <= node->num_ports; p++) {
            const struct cs_port *a = &small->ports[node->first_port + p];
            const struct cs_port *b = &big->ports[big->nodes[m].first_port + p];
            assert_int_equal(a->lid, b->lid);
            assert_true(a->guid == b->guid);
            assert_int_equal(a->node, n);
            if (a->peer == CS_NONE)
                continue;
            assert_true(b->peer != CS_NONE);
            assert_true(small->nodes[small->ports[a->peer].node].guid ==
                        big->nodes[big->ports[b->peer].node].guid);
            assert_int_equal(small->ports[a->peer].num, big->ports[b->peer].num);
            assert_int_equal(small->ports[a->peer].peer, node->first_port + p);
        }
    }
}

static void test_shutdown_hosts(void **state)
{
    (void)state;
    struct cs_fabric a, b, c;
    struct cs_error err;
    kary(&a, 4, 3);
    assert_int_equal(cs_lids_assign(&a, 0, &err), 0);
    assert_int_equal(cs_fabric_copy(&b, &a, &err), 0);
    struct cs_mutation m = {.shutdown_hosts = 5, .seed = 9};
    assert_int_equal(cs_fabric_mutate(&b, &m, &err), 0);
    assert_int_equal(count_type(&b, CS_NODE_CA), 64 - 5);
    assert_int_equal(count_type(&b, CS_NODE_SWITCH), 48);
    assert_int_equal(b.num_nodes, a.num_nodes - 5);
    assert_int_equal(b.num_port_slots, a.num_port_slots - 5 * 2);
    expect_subset_with_lids(&a, &b);
    assert_int_equal(switch_links(&b), switch_links(&a));

    /* A second step with another seed: five more gone, the survivors as they were. */
    assert_int_equal(cs_fabric_copy(&c, &b, &err), 0);
    m.seed = 10;
    assert_int_equal(cs_fabric_mutate(&c, &m, &err), 0);
    assert_int_equal(count_type(&c, CS_NODE_CA), 64 - 10);
    expect_subset_with_lids(&b, &c);
    cs_fabric_free(&c);

    /* Same seed, same hosts; too many is an error that names the count. */
    assert_int_equal(cs_fabric_copy(&c, &a, &err), 0);
    m.seed = 9;
    assert_int_equal(cs_fabric_mutate(&c, &m, &err), 0);
    assert_true(cs_fabric_equal(&b, &c, NULL));
    m.shutdown_hosts = 60;
    assert_int_equal(cs_fabric_mutate(&c, &m, &err), -1);
    assert_non_null(strstr(err.msg, "cannot shut 60 hosts down: the fabric has 59"));
    cs_fabric_free(&c);

    /* Without LIDs, the survivors get those the intact fabric would have. */
    kary(&c, 4, 3);
    m.shutdown_hosts = 3;
    assert_int_equal(cs_fabric_mutate(&c, &m, &err), 0);
    expect_subset_with_lids(&a, &c);
    cs_fabric_free(&a);
    cs_fabric_free(&b);
    cs_fabric_free(&c);
}

static void test_remove_nodes(void **state)
{
    (void)state;
    struct cs_fabric a, b;
    struct cs_error err;
    kary(&a, 2, 2); /* hosts 0..3, leaves 4, 5, roots 6, 7 */
    assert_int_equal(cs_lids_assign(&a, 0, &err), 0);
    assert_int_equal(cs_fabric_copy(&b, &a, &err), 0);
    bool gone[8] = {false, true, false, false, false, false, true, false};
    assert_int_equal(cs_fabric_remove_nodes(&b, gone, &err), 0);
    assert_int_equal(b.num_nodes, 6);
    expect_subset_with_lids(&a, &b);
    assert_int_equal(switch_links(&b), 2); /* root 6's two cables went with it */
    /* Removing nothing changes nothing. */
    bool none[6] = {false};
    struct cs_fabric c;
    assert_int_equal(cs_fabric_copy(&c, &b, &err), 0);
    assert_int_equal(cs_fabric_remove_nodes(&c, none, &err), 0);
    assert_true(cs_fabric_equal(&b, &c, NULL));
    cs_fabric_free(&a);
    cs_fabric_free(&b);
    cs_fabric_free(&c);
}

static void test_rng_below_is_uniform(void **state)
{
    (void)state;
    struct cs_rng r;
    cs_rng_seed(&r, 1);
    unsigned counts[6] = {0};
    for (int i = 0; i < 60000; i++)
        counts[cs_rng_below(&r, 6)]++;
    for (int v = 0; v < 6; v++) /* 10000 expected; 5 sigma is about 456 */
        assert_in_range(counts[v], 9500, 10500);
    cs_rng_seed(&r, 1);
    uint64_t first = cs_rng_next(&r);
    cs_rng_seed(&r, 1);
    assert_true(cs_rng_next(&r) == first);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unlink),
        cmocka_unit_test(test_shuffle_hosts),
        cmocka_unit_test(test_shutdown_hosts),
        cmocka_unit_test(test_remove_nodes),
        cmocka_unit_test(test_rng_below_is_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
