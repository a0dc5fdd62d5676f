/* Seeded damage: the right number of cables cut, hosts stay on their leaf, same seed same
 * result, and the random helper is uniform enough to trust. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric_diff.h"
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
        cmocka_unit_test(test_rng_below_is_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
