/* Path modifications (cs_path_diff): changed (source, destination) pairs counted by hand on a
 * small fabric, where a change at an upper switch changes exactly the pairs that cross it; and
 * the memoised count equal to tracing every pair hop by hop, on damaged, shuffled and shrunk
 * fat-trees with scrambled tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analyze_fixtures.h"
#include "cloudsm/lft_diff.h"
#include "cloudsm/mutate.h"
#include "cloudsm/rng.h"

/* Three leaves under two spines; spine S0 has two cables to leaf L1 (ports 2 and 3), so a
 * route to L1 through S0 can change at S0 alone. Two hosts per leaf; leaf port 6 is free.
 *
 *        S0 [1:L0 2:L1 3:L1 4:L2]        S1 [1:L0 2:L1 3:L2]
 *   L0 [1:a0 2:a1 3:S0 4:S1]  L1 [1:b0 2:b1 3:S0 4:S1 5:S0]  L2 [1:c0 2:c1 3:S0 4:S1]
 */
struct small {
    struct cs_fabric f;
    uint32_t s0, s1, l0, l1, l2, a0, a1, b0, b1, c0, c1;
};

static void small_build(struct small *s)
{
    struct cs_fabric *f = &s->f;
    cs_fabric_init(f);
    s->s0 = fx_switch(f, 0x100, 4, "S0");
    s->s1 = fx_switch(f, 0x101, 3, "S1");
    s->l0 = fx_switch(f, 0x200, 6, "L0");
    s->l1 = fx_switch(f, 0x201, 6, "L1");
    s->l2 = fx_switch(f, 0x202, 6, "L2");
    s->a0 = fx_ca(f, 0x1000, "a0");
    s->a1 = fx_ca(f, 0x1100, "a1");
    s->b0 = fx_ca(f, 0x1200, "b0");
    s->b1 = fx_ca(f, 0x1300, "b1");
    s->c0 = fx_ca(f, 0x1400, "c0");
    s->c1 = fx_ca(f, 0x1500, "c1");
    fx_link(f, s->a0, 1, s->l0, 1);
    fx_link(f, s->a1, 1, s->l0, 2);
    fx_link(f, s->b0, 1, s->l1, 1);
    fx_link(f, s->b1, 1, s->l1, 2);
    fx_link(f, s->c0, 1, s->l2, 1);
    fx_link(f, s->c1, 1, s->l2, 2);
    fx_link(f, s->l0, 3, s->s0, 1);
    fx_link(f, s->l0, 4, s->s1, 1);
    fx_link(f, s->l1, 3, s->s0, 2);
    fx_link(f, s->l1, 5, s->s0, 3);
    fx_link(f, s->l1, 4, s->s1, 2);
    fx_link(f, s->l2, 3, s->s0, 4);
    fx_link(f, s->l2, 4, s->s1, 3);
    fx_lids(f, 0);
}

/* Shortest-path tables, then b0's routes pinned: L0 and L2 go up to S0, S0 down its first cable. */
static void small_tables(struct cs_lfts *t, const struct small *s)
{
    fx_lfts(t, &s->f);
    fx_fill_shortest(t, &s->f);
    uint32_t b0 = fx_lid(&s->f, s->b0, 1);
    fx_set(t, &s->f, s->l0, b0, 3);
    fx_set(t, &s->f, s->l2, b0, 3);
    fx_set(t, &s->f, s->s0, b0, 2);
    fx_set(t, &s->f, s->s1, b0, 2);
    fx_set(t, &s->f, s->l1, b0, 1);
}

static void copy_tables(struct cs_lfts *dst, const struct cs_lfts *src)
{
    struct cs_error err = {{0}};
    if (cs_lfts_copy(dst, src, &err) != 0)
        fail_msg("copy: %s", err.msg);
}

static struct cs_path_diff path_diff(const struct cs_fabric *old_f, const struct cs_lfts *old_t,
                                     const struct cs_fabric *new_f, const struct cs_lfts *new_t)
{
    struct cs_tracer ot, nt;
    struct cs_error err = {{0}};
    struct cs_path_diff d;
    fx_tracer(&ot, old_f, old_t);
    fx_tracer(&nt, new_f, new_t);
    if (cs_path_diff(&ot, &nt, &d, &err) != 0)
        fail_msg("path diff: %s", err.msg);
    cs_tracer_free(&ot);
    cs_tracer_free(&nt);
    return d;
}

static void test_hand_counted(void **state)
{
    (void)state;
    struct small s;
    struct cs_lfts old_t, new_t;
    small_build(&s);
    small_tables(&old_t, &s);
    const struct cs_fabric *f = &s.f;
    uint32_t b0 = fx_lid(f, s.b0, 1);

    copy_tables(&new_t, &old_t);
    struct cs_path_diff d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.sources, 6);
    assert_int_equal(d.destinations, 6);
    assert_int_equal(d.pairs, 30);
    assert_int_equal(d.paths_changed, 0);
    assert_int_equal(d.destinations_changed, 0);
    assert_int_equal(d.entries_changed, 0);
    assert_int_equal(d.undelivered_old + d.undelivered_new + d.sources_moved, 0);

    /* S0 takes its second cable to L1: the four pairs from L0 and L2 cross S0, b1's does not. */
    fx_set(&new_t, f, s.s0, b0, 3);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 4);
    assert_int_equal(d.destinations_changed, 1);
    assert_int_equal(d.entries_changed, 1);

    /* The same with L2 going up to S1 in both: only L0's two hosts cross S0 now. */
    fx_set(&old_t, f, s.l2, b0, 4);
    fx_set(&new_t, f, s.l2, b0, 4);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 2);
    assert_int_equal(d.entries_changed, 1);

    /* S0 back as before; L0 goes up to S1 instead: L0's two hosts again, at the leaf this time. */
    fx_set(&new_t, f, s.s0, b0, 2);
    fx_set(&new_t, f, s.l0, b0, 4);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 2);
    assert_int_equal(d.destinations_changed, 1);
    assert_int_equal(d.entries_changed, 1);

    /* An entry no route to b0 uses (S0 once nobody goes up to it for b0) is an entry, not a
     * path. */
    fx_set(&new_t, f, s.s0, b0, 3);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 2);
    assert_int_equal(d.entries_changed, 2);
    fx_set(&new_t, f, s.l0, b0, 3);
    fx_set(&new_t, f, s.s0, b0, 2);
    fx_set(&new_t, f, s.s1, b0, CS_LFT_NO_ROUTE);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 2); /* c0, c1 went through S1, which has lost b0 */
    assert_int_equal(d.undelivered_new, 2);
    fx_set(&old_t, f, s.l2, b0, 3);
    fx_set(&new_t, f, s.l2, b0, 3);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 0);
    assert_int_equal(d.destinations_changed, 0);
    assert_int_equal(d.entries_changed, 1);
    assert_int_equal(d.undelivered_new, 0);

    /* S0 loses b0 in the new tables: delivered before, not now. In both: not a change. */
    fx_set(&new_t, f, s.s1, b0, 2);
    fx_set(&new_t, f, s.s0, b0, CS_LFT_NO_ROUTE);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 4);
    assert_int_equal(d.undelivered_new, 4);
    assert_int_equal(d.undelivered_old, 0);
    fx_set(&old_t, f, s.s0, b0, CS_LFT_NO_ROUTE);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 0);
    assert_int_equal(d.undelivered_new, 4);
    assert_int_equal(d.undelivered_old, 4);

    /* A loop (S0 sends b0 back down to L0) loses the pairs that cross S0. */
    fx_set(&old_t, f, s.s0, b0, 2);
    fx_set(&new_t, f, s.s0, b0, 1);
    d = path_diff(f, &old_t, f, &new_t);
    assert_int_equal(d.paths_changed, 4);
    assert_int_equal(d.undelivered_new, 4);

    cs_lfts_free(&old_t);
    cs_lfts_free(&new_t);
    cs_fabric_free(&s.f);
}

/* The new fabric without a1 (shut down), same tables: a1's pairs are not counted, no path
 * changed; b0 moved from L1 to L2's free port: its routes start elsewhere. */
static void test_old_fabric(void **state)
{
    (void)state;
    struct small s;
    struct cs_lfts old_t;
    struct cs_error err = {{0}};
    small_build(&s);
    small_tables(&old_t, &s);

    struct cs_fabric down;
    assert_int_equal(cs_fabric_copy(&down, &s.f, &err), 0);
    bool gone[16] = {false};
    gone[s.a1] = true;
    assert_int_equal(cs_fabric_remove_nodes(&down, gone, &err), 0);
    struct cs_path_diff d = path_diff(&s.f, &old_t, &down, &old_t);
    assert_int_equal(d.sources, 5);
    assert_int_equal(d.pairs, 20);
    assert_int_equal(d.paths_changed, 0);
    assert_int_equal(d.sources_moved, 0);
    /* The destination entries of the new fabric's switches: a1's LID is not one. */
    assert_int_equal(d.entries_changed, 0);
    cs_fabric_free(&down);

    struct cs_fabric moved;
    assert_int_equal(cs_fabric_copy(&moved, &s.f, &err), 0);
    uint32_t b0_port = cs_fabric_port(&moved, s.b0, 1);
    uint32_t leaf_port = moved.ports[b0_port].peer;
    moved.ports[b0_port].peer = moved.ports[leaf_port].peer = CS_NONE;
    fx_link(&moved, s.b0, 1, s.l2, 6);
    struct cs_lfts moved_t;
    fx_lfts(&moved_t, &moved);
    fx_fill_shortest(&moved_t, &moved);
    d = path_diff(&s.f, &old_t, &moved, &moved_t);
    assert_int_equal(d.sources, 6);
    assert_int_equal(d.sources_moved, 1);
    /* b0's five pairs start at L2 now, and every pair to b0 ends elsewhere. */
    assert_true(d.paths_changed >= 5 + 4);
    assert_int_equal(d.undelivered_new, 0);
    assert_int_equal(d.undelivered_old, 0);
    cs_lfts_free(&moved_t);
    cs_fabric_free(&moved);
    cs_lfts_free(&old_t);
    cs_fabric_free(&s.f);
}

/* ---- Every pair traced hop by hop ---- */

/* The (switch GUID, output port) sequence of a route, from the switch the source is cabled to,
 * and the port GUID it is delivered to. Returns whether it is delivered. */
static bool trace(const struct cs_tracer *t, uint32_t src, uint32_t lid, uint64_t *seq,
                  uint32_t *len, uint64_t *dest_guid)
{
    const struct cs_fabric *f = t->fabric;
    uint32_t max = t->num_switches + 2;
    uint32_t *links = malloc(max * sizeof *links);
    assert_non_null(links);
    struct cs_route_trace tr;
    struct cs_error err;
    bool ok =
        cs_trace_route(t, src, lid, &tr, links, max, &err) == 0 && tr.outcome == CS_TRACE_DELIVERED;
    *len = 0;
    if (ok) {
        for (uint32_t k = 1; k < tr.hops; k++) {
            const struct cs_port *from = &f->ports[t->links.from[links[k]]];
            seq[(*len)++] = f->nodes[from->node].guid << 8 | from->num;
        }
        *dest_guid = f->ports[tr.end_port].guid;
    }
    free(links);
    return ok;
}

static uint32_t port_by_guid(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t i = 0; i < f->num_port_slots; i++)
        if (f->ports[i].guid == guid && !cs_node_is_switch(&f->nodes[f->ports[i].node]))
            return i;
    return CS_NONE;
}

static struct cs_path_diff brute_force(const struct cs_tracer *ot, const struct cs_tracer *nt)
{
    const struct cs_fabric *nf = nt->fabric, *of = ot->fabric;
    struct cs_path_diff d;
    memset(&d, 0, sizeof d);
    uint32_t max = nt->num_switches + ot->num_switches + 2;
    uint64_t *sn = malloc(max * sizeof *sn), *so = malloc(max * sizeof *so);
    bool *is_source = calloc(nf->num_port_slots, sizeof *is_source);
    assert_true(sn && so && is_source);
    for (uint32_t i = 0; i < nf->num_port_slots; i++) {
        const struct cs_port *p = &nf->ports[i];
        is_source[i] = nf->nodes[p->node].type == CS_NODE_CA && p->num && p->lid &&
                       cs_tracer_entry_switch(nt, i) != CS_NONE;
        d.sources += is_source[i];
    }
    /* Entries of the new fabric's switches for the destinations. */
    for (uint32_t lid = 1; lid < nt->lid_limit; lid++) {
        uint32_t owner = nt->lid_owner[lid];
        if (owner == CS_NONE || !is_source[owner])
            continue;
        d.destinations++;
        for (uint32_t s = 0; s < nt->num_switches; s++) {
            uint64_t guid = nf->nodes[nt->switch_node[s]].guid;
            uint32_t nt_table = nt->switch_table[s];
            uint32_t ot_table = cs_lfts_find(ot->lfts, guid);
            uint32_t old_node = CS_NONE;
            for (uint32_t k = 0; k < ot->num_switches; k++)
                if (of->nodes[ot->switch_node[k]].guid == guid)
                    old_node = k;
            uint8_t now =
                nt_table == CS_NONE ? CS_LFT_NO_ROUTE : cs_lfts_get(nt->lfts, nt_table, lid);
            uint8_t before = old_node == CS_NONE || ot_table == CS_NONE
                                 ? CS_LFT_NO_ROUTE
                                 : cs_lfts_get(ot->lfts, ot_table, lid);
            d.entries_changed += now != before;
        }
        bool any = false;
        for (uint32_t src = 0; src < nf->num_port_slots; src++) {
            if (!is_source[src] || src == owner)
                continue;
            d.pairs++;
            uint32_t ln, lo;
            uint64_t gn = 0, go = 0;
            bool dn = trace(nt, src, lid, sn, &ln, &gn);
            uint32_t old_src = port_by_guid(of, nf->ports[src].guid);
            bool dold = old_src != CS_NONE && trace(ot, old_src, lid, so, &lo, &go);
            bool changed = dn != dold ||
                           (dn && (ln != lo || gn != go || memcmp(sn, so, ln * sizeof *sn) != 0));
            d.paths_changed += changed;
            d.undelivered_new += !dn;
            d.undelivered_old += !dold;
            any |= changed;
        }
        d.destinations_changed += any;
    }
    free(sn);
    free(so);
    free(is_source);
    return d;
}

/* Scramble count entries of the tables: a random switch, a CA LID, a random port (255 and
 * port 0 included), so that loops, black holes and wrong deliveries all happen. */
static void scramble(struct cs_lfts *t, const struct cs_fabric *f, struct cs_rng *rng,
                     unsigned count)
{
    uint16_t max_lid = cs_fabric_max_lid(f);
    for (unsigned k = 0; k < count; k++) {
        uint32_t s = cs_rng_below(rng, t->num_switches);
        uint32_t lid = 1 + cs_rng_below(rng, max_lid);
        uint32_t node = CS_NONE;
        for (uint32_t n = 0; n < f->num_nodes; n++)
            if (f->nodes[n].guid == t->switches[s].guid)
                node = n;
        unsigned ports = node == CS_NONE ? 8 : f->nodes[node].num_ports;
        uint32_t r = cs_rng_below(rng, ports + 2);
        cs_lfts_set(t, s, lid, r == ports + 1 ? CS_LFT_NO_ROUTE : (uint8_t)r);
    }
}

static void expect_same(const struct cs_path_diff *a, const struct cs_path_diff *b)
{
    assert_int_equal(a->sources, b->sources);
    assert_int_equal(a->destinations, b->destinations);
    assert_int_equal(a->pairs, b->pairs);
    assert_int_equal(a->paths_changed, b->paths_changed);
    assert_int_equal(a->destinations_changed, b->destinations_changed);
    assert_int_equal(a->entries_changed, b->entries_changed);
    assert_int_equal(a->undelivered_old, b->undelivered_old);
    assert_int_equal(a->undelivered_new, b->undelivered_new);
}

static void swap_first_and_last_host(struct cs_fabric *f)
{
    uint32_t first = CS_NONE, last = CS_NONE;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].type == CS_NODE_CA) {
            last = n;
            if (first == CS_NONE)
                first = n;
        }
    uint32_t a = cs_fabric_port(f, first, 1), b = cs_fabric_port(f, last, 1);
    uint32_t pa = f->ports[a].peer, pb = f->ports[b].peer;
    f->ports[a].peer = pb;
    f->ports[pb].peer = a;
    f->ports[b].peer = pa;
    f->ports[pa].peer = b;
}

static void test_memo_equals_brute_force(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    static const struct {
        const char *xgft;
        struct cs_mutation m;
        unsigned scramble_old, scramble_new;
        bool swap; /* the first and the last host trade cables (they change leaves) */
    } cases[] = {
        {"3;4,4,4;1,4,4", {.seed = 1}, 0, 40, false},
        {"3;4,4,4;1,4,4", {.unlink_switch_links = 3, .seed = 2}, 0, 0, false},
        {"3;4,4,4;1,4,4", {.unlink_switch_links = 5, .shutdown_hosts = 6, .seed = 3}, 20, 20, true},
        {"2;8,4;1,4", {.shuffle_host_ports = true, .seed = 4}, 0, 10, false},
        {"2;8,4;1,4", {.shutdown_hosts = 3, .unlink_switch_links = 2, .seed = 5}, 30, 0, true},
        {"3;4,3,2;1,2,3",
         {.shuffle_host_ports = true, .shutdown_hosts = 2, .seed = 6},
         10,
         10,
         false},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct cs_fabric old_f, new_f;
        struct cs_lfts old_t, new_t;
        struct cs_rng rng;
        cs_rng_seed(&rng, 100 + c);
        fx_generate(&old_f, cases[c].xgft);
        fx_lids(&old_f, 0);
        assert_int_equal(cs_fabric_copy(&new_f, &old_f, &err), 0);
        if (cs_fabric_mutate(&new_f, &cases[c].m, &err) != 0)
            fail_msg("mutate: %s", err.msg);
        if (cases[c].swap)
            swap_first_and_last_host(&new_f);
        fx_lfts(&old_t, &old_f);
        fx_fill_shortest(&old_t, &old_f);
        fx_lfts(&new_t, &new_f);
        fx_fill_shortest(&new_t, &new_f);
        scramble(&old_t, &old_f, &rng, cases[c].scramble_old);
        scramble(&new_t, &new_f, &rng, cases[c].scramble_new);

        struct cs_tracer ot, nt, ot_on_new;
        fx_tracer(&ot, &old_f, &old_t);
        fx_tracer(&nt, &new_f, &new_t);
        fx_tracer(&ot_on_new, &new_f, &old_t); /* the old tables over the new fabric */
        struct cs_path_diff fast, slow;
        assert_int_equal(cs_path_diff(&ot, &nt, &fast, &err), 0);
        slow = brute_force(&ot, &nt);
        expect_same(&fast, &slow);
        assert_true(fast.paths_changed > 0);
        assert_int_equal(fast.sources_moved, cases[c].swap ? 2 : 0);
        assert_int_equal(cs_path_diff(&ot_on_new, &nt, &fast, &err), 0);
        slow = brute_force(&ot_on_new, &nt);
        expect_same(&fast, &slow);
        assert_int_equal(fast.sources_moved, 0);
        /* Against itself: nothing changed. */
        assert_int_equal(cs_path_diff(&nt, &nt, &fast, &err), 0);
        assert_int_equal(fast.paths_changed + fast.entries_changed, 0);
        cs_tracer_free(&ot);
        cs_tracer_free(&nt);
        cs_tracer_free(&ot_on_new);
        cs_lfts_free(&old_t);
        cs_lfts_free(&new_t);
        cs_fabric_free(&old_f);
        cs_fabric_free(&new_f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_counted),
        cmocka_unit_test(test_old_fabric),
        cmocka_unit_test(test_memo_equals_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
