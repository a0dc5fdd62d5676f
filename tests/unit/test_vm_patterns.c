/* VM placements and the migration patterns of Paper V's simulator (thesis lines 1352-1384,
 * 6795-6807): every move is valid when made, and each pattern ends where it says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/vm_patterns.h"

static void check_placement(const struct cs_vm_placement *p)
{
    uint32_t total = 0;
    for (uint32_t h = 0; h < p->hypervisors; h++) {
        uint32_t n = 0;
        for (unsigned vf = 1; vf <= p->slots; vf++) {
            uint32_t vm = p->vm_at[(size_t)h * p->slots + vf - 1];
            if (vm == CS_NONE)
                continue;
            n++;
            assert_int_equal(p->hypervisor_of[vm], h);
            assert_int_equal(p->vf_of[vm], vf);
        }
        assert_int_equal(n, p->load[h]);
        total += n;
    }
    assert_int_equal(total, p->vms);
}

/* The pattern's moves replayed on a copy (each must be valid then); the end state in *end. */
static void run(const struct cs_vm_placement *start, enum cs_vm_pattern pattern, uint64_t seed,
                struct cs_vm_moves *moves, struct cs_vm_placement *end)
{
    struct cs_rng rng;
    cs_rng_seed(&rng, seed);
    struct cs_error err = {{0}};
    assert_int_equal(cs_vm_pattern_moves(start, pattern, 2, &rng, moves, &err), 0);
    check_placement(start); /* untouched */
    assert_int_equal(cs_vm_placement_copy(end, start, &err), 0);
    for (uint32_t i = 0; i < moves->count; i++) {
        assert_int_not_equal(moves->items[i].from, moves->items[i].to);
        if (cs_vm_placement_apply(end, &moves->items[i], &err) != 0)
            fail_msg("move %u: %s", i, err.msg);
    }
    check_placement(end);
}

static void test_distributions(void **state)
{
    (void)state;
    struct cs_vm_placement p;
    struct cs_rng rng;
    struct cs_error err = {{0}};
    cs_rng_seed(&rng, 1);
    /* 25%, 50%, 75% of 4 VFs on 32 hypervisors, as in Paper V's Table 4 runs. */
    for (unsigned pct = 25; pct <= 75; pct += 25) {
        uint32_t vms = 32 * 4 * pct / 100;
        assert_int_equal(cs_vm_place(&p, 32, 4, vms, CS_VM_DIST_UNIFORM, &rng, &err), 0);
        check_placement(&p);
        for (uint32_t h = 0; h < 32; h++)
            assert_int_equal(p.load[h], pct / 25);
        cs_vm_placement_free(&p);
        assert_int_equal(cs_vm_place(&p, 32, 4, vms, CS_VM_DIST_RANDOM, &rng, &err), 0);
        check_placement(&p);
        cs_vm_placement_free(&p);
    }
    assert_int_equal(cs_vm_place(&p, 4, 4, 17, CS_VM_DIST_RANDOM, &rng, &err), -1);
    assert_non_null(strstr(err.msg, "17 VMs do not fit 4 hypervisors of 4 VFs"));
    enum cs_vm_pattern pat;
    assert_int_equal(cs_vm_pattern_parse("to-uniform", &pat), 0);
    assert_int_equal(pat, CS_VM_PATTERN_TO_UNIFORM);
    assert_int_equal(cs_vm_pattern_parse("uniform", &pat), -1);
}

static void test_random_pattern(void **state)
{
    (void)state;
    struct cs_vm_placement start, end;
    struct cs_vm_moves a, b;
    struct cs_rng rng;
    struct cs_error err = {{0}};
    cs_rng_seed(&rng, 7);
    assert_int_equal(cs_vm_place(&start, 16, 4, 32, CS_VM_DIST_RANDOM, &rng, &err), 0);
    run(&start, CS_VM_PATTERN_RANDOM, 3, &a, &end);
    assert_int_equal(a.count, 2 * 16); /* "2 . num_nodes_in_topology random migrations" */
    cs_vm_placement_free(&end);
    run(&start, CS_VM_PATTERN_RANDOM, 3, &b, &end); /* same seed, same moves */
    assert_int_equal(b.count, a.count);
    assert_memory_equal(a.items, b.items, a.count * sizeof *a.items);
    cs_vm_placement_free(&end);
    cs_vm_moves_free(&b);
    run(&start, CS_VM_PATTERN_RANDOM, 4, &b, &end);
    assert_true(memcmp(a.items, b.items, a.count * sizeof *a.items) != 0);
    cs_vm_placement_free(&end);
    cs_vm_moves_free(&a);
    cs_vm_moves_free(&b);
    cs_vm_placement_free(&start);
}

/* Consolidate: every move goes left; the VMs end on the fewest hypervisors, from the left. */
static void test_consolidate(void **state)
{
    (void)state;
    struct cs_rng rng;
    struct cs_error err = {{0}};
    for (uint64_t seed = 1; seed <= 5; seed++) {
        struct cs_vm_placement start, end;
        struct cs_vm_moves m;
        cs_rng_seed(&rng, seed);
        assert_int_equal(
            cs_vm_place(&start, 32, 4, 64 + (uint32_t)seed, CS_VM_DIST_RANDOM, &rng, &err), 0);
        run(&start, CS_VM_PATTERN_CONSOLIDATE, seed, &m, &end);
        assert_true(m.count > 0);
        for (uint32_t i = 0; i < m.count; i++)
            assert_true(m.items[i].to < m.items[i].from);
        uint32_t used = (start.vms + 3) / 4;
        for (uint32_t h = 0; h < 32; h++)
            assert_int_equal(end.load[h], h + 1 < used    ? 4
                                          : h + 1 == used ? start.vms - 4 * (used - 1)
                                                          : 0);
        cs_vm_moves_free(&m);
        cs_vm_placement_free(&end);
        cs_vm_placement_free(&start);
    }
}

/* Replays grouping's moves from start and checks consolidate's rule per group: a move into a
 * VM's own block goes to the block's leftmost free VF, taking first the VMs that sit in another
 * group's block, then those outside every block, each time the rightmost (among those whose
 * block has room); any other move is an eviction out of a block of another group. Returns the
 * evictions. */
static uint32_t check_grouping_order(const struct cs_vm_placement *start,
                                     const struct cs_vm_moves *m, const uint32_t first[3])
{
    struct cs_error err = {{0}};
    struct cs_vm_placement at;
    assert_int_equal(cs_vm_placement_copy(&at, start, &err), 0);
    uint32_t evictions = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        const struct cs_vm_move *mv = &m->items[i];
        uint32_t g = m->group_of[mv->vm];
        int from_block = mv->from < first[1] ? 0 : mv->from < first[2] ? 1 : -1;
        if (mv->to >= first[g] && mv->to < first[g + 1]) {
            for (uint32_t h = first[g]; h < mv->to; h++)
                assert_int_equal(at.load[h], 4); /* leftmost free VF of the block */
            /* No VM of a higher class (in another block, then outside), or further right in
             * the same class, could have moved into its block instead. */
            for (size_t s = 0; s < (size_t)at.hypervisors * 4; s++) {
                uint32_t vm = at.vm_at[s], h = (uint32_t)(s / 4);
                if (vm == CS_NONE || vm == mv->vm)
                    continue;
                uint32_t vg = m->group_of[vm];
                int block = h < first[1] ? 0 : h < first[2] ? 1 : -1;
                if (block == (int)vg)
                    continue;
                bool room = false;
                for (uint32_t b = first[vg]; b < first[vg + 1]; b++)
                    room = room || at.load[b] < 4;
                if (!room)
                    continue;
                bool higher_class = block >= 0 && from_block < 0;
                bool same_class_right =
                    (block >= 0) == (from_block >= 0) && s > (size_t)mv->from * 4 + mv->from_vf - 1;
                assert_false(higher_class || same_class_right);
            }
        } else {
            assert_true(from_block >= 0 && from_block != (int)g);
            evictions++;
        }
        assert_int_equal(cs_vm_placement_apply(&at, mv, &err), 0);
    }
    cs_vm_placement_free(&at);
    return evictions;
}

/* Grouping: groups of equal size (+-1), each on its own neighbouring hypervisors, none shared;
 * each consolidated into its block by consolidate's rule. */
static void test_grouping(void **state)
{
    (void)state;
    struct cs_rng rng;
    struct cs_error err = {{0}};
    for (uint64_t seed = 1; seed <= 10; seed++) {
        struct cs_vm_placement start, end;
        struct cs_vm_moves m;
        cs_rng_seed(&rng, seed);
        /* Random starts at 75% of 32 x 4 and a little less; uniform starts at 25%, 50%. */
        bool uniform = seed > 5;
        uint32_t vms = uniform ? 32 * (uint32_t)(seed - 5 + 1) / 2 : 126 - 6 * (uint32_t)seed;
        assert_int_equal(cs_vm_place(&start, 32, 4, vms,
                                     uniform ? CS_VM_DIST_UNIFORM : CS_VM_DIST_RANDOM, &rng, &err),
                         0);
        run(&start, CS_VM_PATTERN_GROUPING, seed, &m, &end);
        assert_non_null(m.group_of);
        uint32_t size[2] = {0, 0}, lo[2] = {UINT32_MAX, UINT32_MAX}, hi[2] = {0, 0};
        uint32_t misplaced = 0;
        for (uint32_t vm = 0; vm < vms; vm++) {
            uint32_t g = m.group_of[vm], h = end.hypervisor_of[vm];
            assert_true(g < 2);
            size[g]++;
            lo[g] = h < lo[g] ? h : lo[g];
            hi[g] = h > hi[g] ? h : hi[g];
        }
        assert_true(size[0] - size[1] <= 1);
        assert_true(hi[0] < lo[1]); /* group 0's hypervisors, then group 1's */
        assert_int_equal(hi[0] - lo[0] + 1, (size[0] + 3) / 4); /* packed */
        assert_int_equal(lo[1], hi[0] + 1);                     /* neighbours */
        uint32_t first[3] = {0, (size[0] + 3) / 4, (size[0] + 3) / 4 + (size[1] + 3) / 4};
        for (uint32_t vm = 0; vm < vms; vm++) {
            uint32_t g = m.group_of[vm], h = start.hypervisor_of[vm];
            misplaced += h < first[g] || h >= first[g + 1];
        }
        uint32_t evictions = check_grouping_order(&start, &m, first);
        /* Each VM moves once if it starts outside its block, and once more per eviction. */
        assert_int_equal(m.count, misplaced + evictions);
        assert_int_equal(evictions, 0); /* VMs in a wrong block go first: no block fills up */
        cs_vm_moves_free(&m);
        cs_vm_placement_free(&end);
        cs_vm_placement_free(&start);
    }
}

/* Two full hypervisors with both groups on each and an empty third: every misplaced VM's block
 * is full, so a VM must be evicted to the third before any can move in. */
static void test_grouping_evicts(void **state)
{
    (void)state;
    struct cs_rng rng;
    struct cs_error err = {{0}};
    unsigned mixed = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        struct cs_vm_placement start, end;
        struct cs_vm_moves m;
        cs_rng_seed(&rng, seed);
        /* Uniform on 3: VMs 0,3,6 on hypervisor 0, 1,4,7 on 1, 2,5 on 2; then 2 and 5 move to
         * fill 0 and 1. */
        assert_int_equal(cs_vm_place(&start, 3, 4, 8, CS_VM_DIST_UNIFORM, &rng, &err), 0);
        struct cs_vm_move fill[2] = {{.vm = 2, .from = 2, .from_vf = 1, .to = 0, .to_vf = 4},
                                     {.vm = 5, .from = 2, .from_vf = 2, .to = 1, .to_vf = 4}};
        for (unsigned i = 0; i < 2; i++)
            assert_int_equal(cs_vm_placement_apply(&start, &fill[i], &err), 0);
        run(&start, CS_VM_PATTERN_GROUPING, seed, &m, &end);
        const uint32_t first[3] = {0, 1, 2};
        uint32_t misplaced = 0;
        for (uint32_t vm = 0; vm < 8; vm++)
            misplaced += start.hypervisor_of[vm] != m.group_of[vm];
        uint32_t evictions = check_grouping_order(&start, &m, first);
        assert_int_equal(m.count, misplaced + evictions);
        assert_true((misplaced > 0) == (evictions > 0));
        mixed += misplaced > 0;
        for (uint32_t vm = 0; vm < 8; vm++)
            assert_int_equal(end.hypervisor_of[vm], m.group_of[vm]);
        cs_vm_moves_free(&m);
        cs_vm_placement_free(&end);
        cs_vm_placement_free(&start);
    }
    assert_true(mixed >= 6); /* the deal mixes the two hypervisors for most seeds */
}

/* To-uniform from a random start: every hypervisor ends with floor or ceil(vms / H). */
static void test_to_uniform(void **state)
{
    (void)state;
    struct cs_rng rng;
    struct cs_error err = {{0}};
    for (uint32_t vms = 32; vms <= 96; vms += 21) {
        struct cs_vm_placement start, end;
        struct cs_vm_moves m;
        cs_rng_seed(&rng, vms);
        assert_int_equal(cs_vm_place(&start, 32, 4, vms, CS_VM_DIST_RANDOM, &rng, &err), 0);
        run(&start, CS_VM_PATTERN_TO_UNIFORM, 1, &m, &end);
        for (uint32_t h = 0; h < 32; h++)
            assert_true(end.load[h] == vms / 32 || end.load[h] == (vms + 31) / 32);
        cs_vm_moves_free(&m);
        cs_vm_placement_free(&end);
        cs_vm_placement_free(&start);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distributions),   cmocka_unit_test(test_random_pattern),
        cmocka_unit_test(test_consolidate),     cmocka_unit_test(test_grouping),
        cmocka_unit_test(test_grouping_evicts), cmocka_unit_test(test_to_uniform),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
