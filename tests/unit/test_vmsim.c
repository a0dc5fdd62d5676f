/* The VM migration simulator (Paper V's vSwitchMigrationSim): on the smallest Table 4 topology,
 * every pattern runs, FTreeMinRC updates fewer switches than ItRC on average (Paper V, Fig. 8(a),
 * thesis lines 6827-6830), the first snapshot's two tables are the same routing (so the same
 * bandwidth with the same draws), and a seed gives the same numbers at any thread count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/vmsim.h"

static struct cs_vmsim_config config(enum cs_vm_distribution d, enum cs_vm_pattern p)
{
    return (struct cs_vmsim_config){.xgft = "2;4,8;1,4", /* 4-ary-2-full: 32 hypervisors */
                                    .vfs = 4,
                                    .distribution = d,
                                    .population = 50,
                                    .pattern = p,
                                    .groups = 2,
                                    .snapshots = 10,
                                    .bisect_runs = 200,
                                    .seed = 11,
                                    .threads = 1};
}

static double mean(const uint32_t *v, uint32_t n)
{
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += v[i];
    return n ? sum / n : 0;
}

static void test_patterns(void **state)
{
    (void)state;
    static const enum cs_vm_pattern patterns[] = {CS_VM_PATTERN_RANDOM, CS_VM_PATTERN_CONSOLIDATE,
                                                  CS_VM_PATTERN_GROUPING, CS_VM_PATTERN_TO_UNIFORM};
    for (unsigned i = 0; i < 4; i++) {
        struct cs_vmsim_config c = config(CS_VM_DIST_RANDOM, patterns[i]);
        struct cs_vmsim_result r;
        struct cs_error err = {{0}};
        if (cs_vmsim_run(&c, &r, &err) != 0)
            fail_msg("%s: %s", cs_vm_pattern_name(patterns[i]), err.msg);
        assert_int_equal(r.hypervisors, 32);
        assert_int_equal(r.switches, 12);
        assert_int_equal(r.vms, 64);
        assert_true(r.moves > 0);
        if (patterns[i] == CS_VM_PATTERN_RANDOM)
            assert_int_equal(r.moves, 64); /* 2 x hypervisors */
        double itrc = mean(r.switches_itrc, r.moves), minrc = mean(r.switches_minrc, r.moves);
        assert_true(minrc < itrc);
        for (uint32_t k = 0; k < r.moves; k++) {
            assert_true(r.switches_itrc[k] <= r.switches);
            assert_true(r.switches_minrc[k] <= r.switches);
        }
        assert_int_equal(r.num_snapshots, 11);
        assert_true(r.snapshots[0].ebb_minrc == r.snapshots[0].ebb_vftree);
        assert_int_equal(r.snapshots[10].moves_done, r.moves);
        for (uint32_t s = 0; s < r.num_snapshots; s++) {
            assert_true(r.snapshots[s].ebb_minrc > 0 && r.snapshots[s].ebb_minrc <= 1);
            assert_true(r.snapshots[s].ebb_vftree > 0 && r.snapshots[s].ebb_vftree <= 1);
            if (s)
                assert_true(r.snapshots[s].moves_done >= r.snapshots[s - 1].moves_done);
        }
        cs_vmsim_result_free(&r);
    }
}

static void test_deterministic(void **state)
{
    (void)state;
    struct cs_vmsim_config c = config(CS_VM_DIST_UNIFORM, CS_VM_PATTERN_CONSOLIDATE);
    struct cs_vmsim_result a, b;
    struct cs_error err = {{0}};
    assert_int_equal(cs_vmsim_run(&c, &a, &err), 0);
    c.threads = 2;
    assert_int_equal(cs_vmsim_run(&c, &b, &err), 0);
    assert_int_equal(a.moves, b.moves);
    assert_memory_equal(a.switches_itrc, b.switches_itrc, a.moves * sizeof *a.switches_itrc);
    assert_memory_equal(a.switches_minrc, b.switches_minrc, a.moves * sizeof *a.switches_minrc);
    assert_memory_equal(a.snapshots, b.snapshots, a.num_snapshots * sizeof *a.snapshots);
    cs_vmsim_result_free(&b);
    c.seed++;
    assert_int_equal(cs_vmsim_run(&c, &b, &err), 0);
    assert_true(a.snapshots[5].ebb_minrc != b.snapshots[5].ebb_minrc ||
                a.switches_minrc[0] != b.switches_minrc[0]);
    cs_vmsim_result_free(&a);
    cs_vmsim_result_free(&b);
    c.population = 0;
    assert_int_equal(cs_vmsim_run(&c, &a, &err), -1);
    assert_non_null(strstr(err.msg, "population 0%"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_patterns),
                                       cmocka_unit_test(test_deterministic)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
