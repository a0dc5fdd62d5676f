/* Heavy sweep (cs_sm_discover) through the SMA model: generated fat trees come back exactly,
 * with the SMP counts the algorithm promises; dead nodes, pulled cables, lost SMPs, reordered
 * replies and contradicting answers give the documented results. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/fabric_diff.h"
#include "cloudsm/key_index.h"
#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_gen.h"
#include "sm_fixtures.h"

/* ---- Fabrics ---- */

/* Make every attribute the sweep reads differ somewhere, so that equality means something:
 * vendor/device ids, system image GUIDs, enhanced port 0, and a spread of link rates. */
static void vary(struct cs_fabric *f)
{
    static const struct {
        uint8_t width;
        enum cs_link_speed speed;
    } rates[] = {{4, CS_SPEED_EDR}, {1, CS_SPEED_SDR}, {12, CS_SPEED_HDR}, {2, CS_SPEED_DDR},
                 {8, CS_SPEED_QDR}, {4, CS_SPEED_FDR}, {4, CS_SPEED_NDR}};
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        struct cs_node *node = &f->nodes[n];
        node->vendor_id = 0x2c9 + n % 3;
        node->device_id = 0x1000 + n;
        if (n % 4 == 1)
            node->sysimg_guid = node->guid ^ 0xabcd;
        node->enhanced_port0 = cs_node_is_switch(node) && n % 2 == 0;
    }
    unsigned k = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (f->ports[p].peer != CS_NONE && f->ports[p].peer > p) {
            cs_fabric_set_link_rate(f, p, rates[k % 7].width, rates[k % 7].speed);
            k++;
        }
}

static uint32_t count_links(const struct cs_fabric *f)
{
    uint32_t links = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        links += f->ports[p].peer != CS_NONE && f->ports[p].peer > p;
    return links;
}

/* What a sweep can see of `src`, in the node order of `order` (matched by GUID; nodes of src
 * not in order are dropped): unlinked ports have no rate, and CA ports nobody arrived on have
 * no GUID. */
static void as_seen(const struct cs_fabric *src, const struct cs_fabric *order,
                    struct cs_fabric *out)
{
    struct cs_error err;
    struct cs_key_index ix;
    cs_key_index_init(&ix);
    assert_int_equal(cs_key_index_nodes(&ix, src, &err), 0);
    uint32_t *new_index = malloc(src->num_nodes * sizeof *new_index);
    for (uint32_t n = 0; n < src->num_nodes; n++)
        new_index[n] = CS_NONE;
    cs_fabric_init(out);
    for (uint32_t i = 0; i < order->num_nodes; i++) {
        uint32_t s = cs_key_index_find(&ix, order->nodes[i].guid);
        assert_int_not_equal(s, CS_NONE);
        const struct cs_node *sn = &src->nodes[s];
        uint32_t n = cs_fabric_add_node(out, (enum cs_node_type)sn->type, sn->guid, sn->num_ports,
                                        sn->desc, &err);
        assert_int_equal(n, i);
        uint32_t first = out->nodes[n].first_port;
        out->nodes[n] = *sn;
        out->nodes[n].first_port = first;
        for (unsigned p = 0; p <= sn->num_ports; p++) {
            const struct cs_port *sp = &src->ports[sn->first_port + p];
            struct cs_port *op = &out->ports[first + p];
            op->guid = sp->guid;
            op->width = sp->width;
            op->speed = sp->speed;
            op->lid = sp->lid;
            op->lmc = sp->lmc;
        }
        new_index[s] = n;
    }
    for (uint32_t i = 0; i < out->num_nodes; i++) {
        const struct cs_node *sn = &src->nodes[cs_key_index_find(&ix, out->nodes[i].guid)];
        for (unsigned p = 1; p <= sn->num_ports; p++) {
            uint32_t sp = sn->first_port + p, peer = src->ports[sp].peer;
            uint32_t op = out->nodes[i].first_port + p;
            uint32_t peer_node = peer == CS_NONE ? CS_NONE : new_index[src->ports[peer].node];
            if (peer_node == CS_NONE) {
                out->ports[op].width = 0;
                out->ports[op].speed = 0;
                if (!cs_node_is_switch(sn))
                    out->ports[op].guid = 0;
                continue;
            }
            uint32_t far = cs_fabric_port(out, peer_node, src->ports[peer].num);
            if (out->ports[op].peer == CS_NONE)
                assert_int_equal(cs_fabric_connect(out, op, far, &err), 0);
        }
    }
    free(new_index);
    cs_key_index_free(&ix);
}

/* ---- Running a sweep ---- */

struct run {
    unsigned window, timeout_ms, retries;
    uint64_t shuffle_seed; /* 0: replies in send order */
};

static int discover(struct cs_sma_model *m, const struct run *r, struct log_capture *lc,
                    struct cs_sm_sweep *sweep, struct cs_error *err)
{
    struct cs_smp_transport t = cs_sma_model_transport(m);
    cs_sma_model_shuffle_replies(m, r->shuffle_seed);
    struct cs_smp_pipe_options opt = {
        .window = r->window, .timeout_ms = r->timeout_ms, .retries = r->retries};
    struct cs_smp_pipe *pipe = cs_smp_pipe_create(&t, &opt, err);
    assert_non_null(pipe);
    struct cs_log log = {capture_log, lc};
    int rc = cs_sm_discover(pipe, &log, sweep, err);
    cs_smp_pipe_destroy(pipe);
    return rc;
}

static void assert_same_fabric(const struct cs_fabric *want, const struct cs_fabric *got)
{
    struct cs_error why = {""};
    if (!cs_fabric_equal(want, got, &why))
        fail_msg("discovered fabric differs: %s", why.msg);
}

/* Every node's recorded path leads to it, and every port that should have been read was. */
static void assert_paths_and_reads(struct cs_sma_model *m, const struct cs_sm_sweep *s)
{
    const struct cs_fabric *f = &s->fabric;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        struct cs_smp smp;
        struct cs_error err;
        assert_int_equal(cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0,
                                              s->path[n].port, s->path[n].hops, 1, &err),
                         0);
        uint8_t wire[CS_SMP_SIZE], out[CS_SMP_SIZE];
        uint16_t slid;
        cs_smp_encode(&smp, wire);
        assert_int_equal(cs_sma_model_process(m, wire, CS_SMP_PERMISSIVE_LID, out, &slid), 1);
        struct cs_smp reply;
        cs_smp_decode(out, &reply);
        struct cs_smp_node_info ni;
        cs_smp_node_info_decode(reply.data, &ni);
        assert_int_equal(ni.node_guid, f->nodes[n].guid);
        const struct cs_node *node = &f->nodes[n];
        for (unsigned p = 0; p <= node->num_ports; p++) {
            uint32_t slot = node->first_port + p;
            bool should = cs_node_is_switch(node) ? true : p > 0 && f->ports[slot].peer != CS_NONE;
            assert_int_equal(s->port_info_valid[slot], should);
        }
        if (cs_node_is_switch(node))
            assert_int_equal(s->switch_info[n].linear_fdb_cap, 49152);
    }
}

/* ---- Tests ---- */

/* SMP counts of a complete sweep with no losses, derived from the algorithm:
 *   NodeInfo        1 (the SM's own node, hop 0) + one probe per link: a link is probed from
 *                   the side the sweep reaches first, and a fat tree has no link inside one BFS
 *                   level (its levels alternate), so no link is probed twice. Probing both ends
 *                   of every switch-to-switch link would cost that many more.
 *   NodeDescription one per node.
 *   SwitchInfo      one per switch.
 *   PortInfo        ports 0..n of every switch, plus every CA port the sweep arrives on (each
 *                   linked CA port, the SM's own included).
 * For the PGFT: 16 switches of 6 ports, 12 single-port hosts, 48 links (12 host, 24 leaf-up,
 * 12 level-2-up: 36 between switches):
 *   NodeInfo 49 (not 85), NodeDescription 28, SwitchInfo 16, PortInfo 16*7 + 12 = 124. */
static void test_pgft_exact(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    vary(&src);
    assert_int_equal(count_links(&src), 48);
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 0, 1, &err);
    assert_non_null(m);
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 64};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);

    assert_int_equal(s.problems, 0);
    assert_int_equal(lc.warnings, 0);
    assert_int_equal(s.fabric.num_nodes, src.num_nodes);
    struct cs_fabric want;
    as_seen(&src, &s.fabric, &want);
    assert_same_fabric(&want, &s.fabric);
    struct cs_fabric_diff diff;
    struct cs_fabric_diff_options opt = {.rates = true};
    assert_int_equal(cs_fabric_diff(&src, &s.fabric, &opt, &diff, &err), 0);
    assert_int_equal(diff.differences, 0);

    assert_int_equal(s.sm_node, 0);
    assert_int_equal(s.fabric.nodes[0].guid, src.nodes[0].guid);
    assert_int_equal(s.sm_port, s.fabric.nodes[0].first_port + 1);
    assert_int_equal(s.path[0].hops, 0);

    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET), 49);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_DESCRIPTION, CS_SMP_METHOD_GET), 28);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_SWITCH_INFO, CS_SMP_METHOD_GET), 16);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_PORT_INFO, CS_SMP_METHOD_GET), 124);
    assert_int_equal(s.smps.sent, 49 + 28 + 16 + 124);
    assert_int_equal(s.smps.gets, 49 + 28 + 16 + 124);
    assert_int_equal(s.smps.sets, 0);
    assert_int_equal(s.smps.timeouts, 0);
    assert_true(s.ms >= 0);
    assert_true(log_count(&lc, "heavy sweep: 28 nodes (16 switches), 48 links"));

    assert_paths_and_reads(m, &s);
    cs_fabric_free(&want);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* 4-ary-3-tree: 64 hosts, 48 switches of 8 ports, 192 links. NodeInfo 1 + 192, PortInfo
 * 48*9 + 64 = 496, NodeDescription 112, SwitchInfo 48. The SM sits on a host in the middle. */
static void test_kary_exact(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_kary(&src, 4, 3);
    vary(&src);
    assert_int_equal(src.num_nodes, 112);
    assert_int_equal(count_links(&src), 192);
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 37, 1, &err);
    assert_non_null(m);
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 16};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);
    assert_int_equal(s.problems, 0);
    struct cs_fabric want;
    as_seen(&src, &s.fabric, &want);
    assert_same_fabric(&want, &s.fabric);
    assert_int_equal(s.fabric.nodes[s.sm_node].guid, src.nodes[37].guid);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET), 193);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_PORT_INFO, CS_SMP_METHOD_GET), 496);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_DESCRIPTION, CS_SMP_METHOD_GET), 112);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_SWITCH_INFO, CS_SMP_METHOD_GET), 48);
    assert_paths_and_reads(m, &s);
    /* BFS order: the SM's node first, then its leaf, at one hop. */
    assert_int_equal(s.sm_node, 0);
    assert_int_equal(s.path[1].hops, 1);
    assert_true(cs_node_is_switch(&s.fabric.nodes[1]));
    for (uint32_t n = 1; n < s.fabric.num_nodes; n++)
        assert_true(s.path[n].hops >= s.path[n - 1].hops);
    cs_fabric_free(&want);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* Window 1, window 64, window 7 with replies handed back in random order: the same fabric, the
 * same paths, the same port reads, the same SMP count. */
static void test_order_independent(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    vary(&src);
    struct cs_error err;
    const struct run runs[] = {{.window = 1},
                               {.window = 64},
                               {.window = 7, .shuffle_seed = 12345},
                               {.window = 64, .shuffle_seed = 777}};
    struct cs_sm_sweep first;
    cs_sm_sweep_init(&first);
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        struct cs_sma_model *m = cs_sma_model_create(&src, 5, 1, &err);
        struct cs_sm_sweep s;
        cs_sm_sweep_init(&s);
        struct log_capture lc = {0};
        assert_int_equal(discover(m, &runs[i], &lc, &s, &err), 0);
        assert_int_equal(s.problems, 0);
        if (i == 0) {
            first = s;
        } else {
            assert_same_fabric(&first.fabric, &s.fabric);
            uint32_t nodes = s.fabric.num_nodes, ports = s.fabric.num_port_slots;
            assert_memory_equal(first.path, s.path, nodes * sizeof *s.path);
            assert_memory_equal(first.port_info_valid, s.port_info_valid,
                                ports * sizeof *s.port_info_valid);
            for (uint32_t p = 0; p < ports; p++)
                if (s.port_info_valid[p])
                    assert_memory_equal(&first.port_info[p], &s.port_info[p],
                                        sizeof s.port_info[p]);
            assert_int_equal(first.smps.sent, s.smps.sent);
            cs_sm_sweep_free(&s);
        }
        cs_sma_model_destroy(m);
        free(lc.text);
    }
    cs_sm_sweep_free(&first);
    cs_fabric_free(&src);
}

/* The index of the node with this GUID in f, or CS_NONE. */
static uint32_t find_guid(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == guid)
            return n;
    return CS_NONE;
}

/* A dead leaf takes its hosts with it; each cable into it is one timed-out probe, one problem,
 * one WARN that names the probe's DR path. */
static void test_dead_leaf(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    const uint32_t leaf = 12 + 3; /* hosts are nodes 0..11, leaves 12..17; hosts 6, 7 below */
    assert_int_equal(src.nodes[leaf].guid, CS_GUID_SWITCH_BASE + (UINT64_C(1) << 32) + 3);
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 0, 1, &err);
    cs_sma_model_set_unresponsive(m, leaf, true);
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 64, .timeout_ms = 1, .retries = 1};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);

    assert_int_equal(s.fabric.num_nodes, src.num_nodes - 3);
    assert_int_equal(find_guid(&s.fabric, src.nodes[leaf].guid), CS_NONE);
    assert_int_equal(find_guid(&s.fabric, src.nodes[6].guid), CS_NONE);
    assert_int_equal(find_guid(&s.fabric, src.nodes[7].guid), CS_NONE);
    /* The leaf's 4 up cables were each probed once (plus one retry) from its parents. */
    assert_int_equal(s.problems, 4);
    assert_int_equal(lc.warnings, 4);
    assert_int_equal(s.smps.timeouts, 4);
    assert_int_equal(s.smps.retries, 4);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET),
                     1 + (48 - 2 - 4) + 4 * 2);
    const struct cs_node *sl = &src.nodes[leaf];
    for (unsigned p = 1; p <= sl->num_ports; p++) {
        uint32_t peer = src.ports[sl->first_port + p].peer;
        if (peer == CS_NONE || cs_node_is_switch(&src.nodes[src.ports[peer].node]) == false)
            continue;
        uint32_t parent = find_guid(&s.fabric, src.nodes[src.ports[peer].node].guid);
        assert_int_not_equal(parent, CS_NONE);
        struct cs_dr_path probe = s.path[parent];
        probe.port[++probe.hops] = src.ports[peer].num;
        char text[256], where[300];
        snprintf(where, sizeof where, "no answer at %s",
                 cs_dr_path_format(&probe, text, sizeof text));
        if (log_count(&lc, where) == 0)
            fail_msg("no warning with \"%s\" in:\n%s", where, lc.text);
        /* the parent's port towards the dead leaf stays uncabled */
        assert_int_equal(
            s.fabric.ports[s.fabric.nodes[parent].first_port + src.ports[peer].num].peer, CS_NONE);
    }
    /* Everything else is as it is in the fabric. */
    struct cs_fabric want;
    const struct cs_fabric *mf = cs_sma_model_fabric(m);
    as_seen(mf, &s.fabric, &want);
    assert_same_fabric(&want, &s.fabric);
    cs_fabric_free(&want);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* A dead level-2 switch in the middle: only it is missing (every leaf has another parent);
 * its 6 cables (4 down, 2 up) are 6 problems. */
static void test_dead_middle_switch(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    const uint32_t mid = 18 + 2; /* level-2 switches are nodes 18..23 */
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 0, 1, &err);
    cs_sma_model_set_unresponsive(m, mid, true);
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 64, .timeout_ms = 1, .retries = 0};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);
    assert_int_equal(s.fabric.num_nodes, src.num_nodes - 1);
    assert_int_equal(find_guid(&s.fabric, src.nodes[mid].guid), CS_NONE);
    assert_int_equal(s.problems, 6);
    assert_int_equal(count_links(&s.fabric), 48 - 6);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* The SM's own node does not answer: the only failure cs_sm_discover reports. */
static void test_own_node_dead(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct cs_error err = {""};
    struct cs_sma_model *m = cs_sma_model_create(&src, 0, 1, &err);
    cs_sma_model_set_unresponsive(m, 0, true);
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 4, .timeout_ms = 1, .retries = 1};
    assert_int_equal(discover(m, &r, &lc, &s, &err), -1);
    assert_non_null(strstr(err.msg, "own node"));
    assert_int_equal(s.fabric.num_nodes, 0);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* Pulled cables: a level-2-to-root cable is simply missing (both ends DOWN, nobody probes
 * them, no problem); a host's only cable takes the host out. */
static void test_unlinked_cables(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    vary(&src);
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 0, 1, &err);
    const uint32_t mid = 19, host = 9;
    uint32_t up = cs_fabric_port(&src, mid, 5); /* level-2 ports 5, 6 go up */
    uint32_t root_port = src.ports[up].peer;
    assert_int_not_equal(root_port, CS_NONE);
    assert_int_equal(cs_sma_model_unlink(m, up, &err), 0);
    uint32_t host_leaf_port = src.ports[cs_fabric_port(&src, host, 1)].peer;
    assert_int_equal(cs_sma_model_unlink(m, cs_fabric_port(&src, host, 1), &err), 0);

    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 64};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);
    assert_int_equal(s.problems, 0);
    assert_int_equal(s.fabric.num_nodes, src.num_nodes - 1);
    assert_int_equal(find_guid(&s.fabric, src.nodes[host].guid), CS_NONE);
    assert_int_equal(count_links(&s.fabric), 48 - 2);
    uint32_t dmid = find_guid(&s.fabric, src.nodes[mid].guid);
    assert_int_equal(s.fabric.ports[cs_fabric_port(&s.fabric, dmid, 5)].peer, CS_NONE);
    uint32_t droot = find_guid(&s.fabric, src.nodes[src.ports[root_port].node].guid);
    assert_int_equal(
        s.fabric.ports[cs_fabric_port(&s.fabric, droot, src.ports[root_port].num)].peer, CS_NONE);
    uint32_t dleaf = find_guid(&s.fabric, src.nodes[src.ports[host_leaf_port].node].guid);
    uint32_t dleaf_port = cs_fabric_port(&s.fabric, dleaf, src.ports[host_leaf_port].num);
    assert_int_equal(s.fabric.ports[dleaf_port].peer, CS_NONE);
    assert_true(s.port_info_valid[dleaf_port]);
    assert_int_equal(s.port_info[dleaf_port].port_state, CS_SMP_PORT_STATE_DOWN);

    struct cs_fabric want;
    as_seen(cs_sma_model_fabric(m), &s.fabric, &want);
    assert_same_fabric(&want, &s.fabric);
    /* The probe count shrinks by exactly the two cables. */
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET), 1 + 46);
    cs_fabric_free(&want);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* The SM's own link: with the cable pulled the sweep is the SM's node alone and says that its
 * port is down; with the neighbour silent (ibsim's Error on the leaf) it is the node alone with
 * the port up. Either way it lost the fabric compared with a full sweep, and must not replace
 * it; the SM port's own PortInfo still answers (hop 0) and tells the two apart. */
static void test_sm_port_down(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 0, 1, &err);
    struct log_capture lc = {0};
    struct run r = {.window = 8, .timeout_ms = 1, .retries = 0};
    struct cs_sm_sweep full, alone, nothing;
    cs_sm_sweep_init(&full);
    cs_sm_sweep_init(&alone);
    cs_sm_sweep_init(&nothing);
    assert_int_equal(discover(m, &r, &lc, &full, &err), 0);
    assert_false(full.sm_port_down);
    assert_false(cs_sm_sweep_lost_fabric(&full, &nothing)); /* a first sweep */

    struct cs_smp_transport t = cs_sma_model_transport(m);
    struct cs_smp_pipe_options opt = {.window = 1, .timeout_ms = 1, .retries = 0};
    struct cs_smp_pipe *pipe = cs_smp_pipe_create(&t, &opt, &err);
    assert_non_null(pipe);
    struct cs_log log = {capture_log, &lc};
    struct cs_smp_port_info pi;

    /* The leaf next to the SM stops answering: the SM port is up, the sweep sees one node. */
    uint32_t leaf = src.ports[src.ports[cs_fabric_port(&src, 0, 1)].peer].node;
    cs_sma_model_set_unresponsive(m, leaf, true);
    assert_int_equal(discover(m, &r, &lc, &alone, &err), 0);
    assert_int_equal(alone.fabric.num_nodes, 1);
    assert_false(alone.sm_port_down);
    assert_true(cs_sm_sweep_lost_fabric(&alone, &full));
    assert_int_equal(cs_sm_own_port_info(pipe, &full, &log, &pi, &err), 1);
    assert_true(pi.port_state > CS_SMP_PORT_STATE_DOWN);
    cs_sma_model_set_unresponsive(m, leaf, false);

    /* The SM's cable pulled: the port is down, and says so when polled. */
    assert_int_equal(cs_sma_model_unlink(m, cs_fabric_port(&src, 0, 1), &err), 0);
    assert_int_equal(discover(m, &r, &lc, &alone, &err), 0);
    assert_int_equal(alone.fabric.num_nodes, 1);
    assert_true(alone.sm_port_down);
    assert_int_equal(log_count(&lc, "is not up: the fabric is this node alone"), 1);
    assert_true(cs_sm_sweep_lost_fabric(&alone, &full));
    assert_false(cs_sm_sweep_lost_fabric(&full, &alone));
    assert_int_equal(cs_sm_own_port_info(pipe, &full, &log, &pi, &err), 1);
    assert_int_equal(pi.port_state, CS_SMP_PORT_STATE_DOWN);

    cs_smp_pipe_destroy(pipe);
    cs_sm_sweep_free(&full);
    cs_sm_sweep_free(&alone);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* Lost requests and lost replies, retried by the pipe: the sweep still sees everything. */
static void test_random_drops(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_kary(&src, 4, 3);
    vary(&src);
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 0, 1, &err);
    cs_sma_model_set_drop(m, 0.1, 2024);
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 32, .timeout_ms = 1, .retries = 8};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);
    assert_int_equal(s.problems, 0);
    assert_true(s.smps.retries > 50); /* about one in five attempts is lost */
    assert_int_equal(s.smps.timeouts, 0);
    assert_true(cs_sma_model_stats(m).dropped > 50);
    struct cs_fabric want;
    as_seen(&src, &s.fabric, &want);
    assert_same_fabric(&want, &s.fabric);

    /* And in the same order as a sweep without losses. */
    struct cs_sma_model *clean = cs_sma_model_create(&src, 0, 1, &err);
    struct cs_sm_sweep c;
    cs_sm_sweep_init(&c);
    struct run rc = {.window = 32};
    assert_int_equal(discover(clean, &rc, &lc, &c, &err), 0);
    assert_same_fabric(&c.fabric, &s.fabric);
    assert_int_equal(s.smps.gets, c.smps.gets); /* first attempts: the same requests */
    assert_int_equal(s.smps.sent, c.smps.sent + s.smps.retries);
    cs_sm_sweep_free(&c);
    cs_sma_model_destroy(clean);
    cs_fabric_free(&want);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

/* Contradicting answers, built into the fabric itself: two hosts share a GUID (the second
 * answers for a port the sweep already cabled elsewhere), a switch answers with a CA's GUID
 * (another node type), and one link's ends report different rates. Each is one problem, the
 * first view wins, and the sweep finishes. */
static void test_contradictions(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    struct cs_error err;
    /* spine(0x30) -- leaf a(0x10) p1, leaf b(0x20) p1; hosts on leaf a p2 (SM), p3; leaf b p2,
     * p3; a third leaf c (GUID = the SM host's!) on spine p3. */
    uint32_t spine = cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x30, 4, "spine", &err);
    uint32_t la = cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x10, 4, "leaf-a", &err);
    uint32_t lb = cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x20, 4, "leaf-b", &err);
    uint32_t sm = cs_fabric_add_node(&f, CS_NODE_CA, 0x100, 1, "sm", &err);
    uint32_t h1 = cs_fabric_add_node(&f, CS_NODE_CA, 0x200, 1, "h1", &err);
    uint32_t twin1 = cs_fabric_add_node(&f, CS_NODE_CA, 0x300, 1, "twin", &err);
    uint32_t twin2 = cs_fabric_add_node(&f, CS_NODE_CA, 0x300, 1, "twin", &err);
    uint32_t fake = cs_fabric_add_node(&f, CS_NODE_SWITCH, 0x100, 4, "fake", &err);
    struct {
        uint32_t a;
        unsigned pa;
        uint32_t b;
        unsigned pb;
    } links[] = {{spine, 1, la, 1}, {spine, 2, lb, 1}, {spine, 3, fake, 1}, {la, 2, sm, 1},
                 {la, 3, twin1, 1}, {lb, 2, h1, 1},    {lb, 3, twin2, 1}};
    for (unsigned i = 0; i < sizeof links / sizeof links[0]; i++) {
        uint32_t a = cs_fabric_port(&f, links[i].a, links[i].pa);
        assert_int_equal(
            cs_fabric_connect(&f, a, cs_fabric_port(&f, links[i].b, links[i].pb), &err), 0);
        cs_fabric_set_link_rate(&f, a, 4, CS_SPEED_EDR);
    }
    f.ports[cs_fabric_port(&f, lb, 2)].speed = CS_SPEED_HDR; /* h1's link: ends disagree */

    struct cs_sma_model *m = cs_sma_model_create(&f, sm, 1, &err);
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 8};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);
    assert_int_equal(s.problems, 3);
    assert_int_equal(lc.warnings, 3);
    /* sm, leaf-a, spine, twin (first: under leaf-a), leaf-b, h1. */
    assert_int_equal(s.fabric.num_nodes, 6);
    assert_int_equal(s.fabric.nodes[0].guid, 0x100);
    assert_int_equal(s.fabric.nodes[0].type, CS_NODE_CA);
    assert_int_equal(s.fabric.nodes[1].guid, 0x10);
    uint32_t twin = find_guid(&s.fabric, 0x300);
    assert_int_equal(s.fabric.ports[cs_fabric_port(&s.fabric, twin, 1)].peer,
                     cs_fabric_port(&s.fabric, 1, 3));
    assert_int_equal(s.fabric.ports[cs_fabric_port(&s.fabric, find_guid(&s.fabric, 0x20), 3)].peer,
                     CS_NONE);
    assert_true(log_count(&lc, "already cabled"));
    assert_true(log_count(&lc, "answers as a switch with 4 ports at 0,1,1,3"));
    assert_true(log_count(&lc, "disagree on its rate"));
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&f);
    free(lc.text);
}

/* An SM on a switch (port 0) sweeps the same fabric, starting from that switch. */
static void test_sm_on_switch(void **state)
{
    (void)state;
    struct cs_fabric src;
    gen_pgft(&src);
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(&src, 26, 0, &err); /* a root */
    struct cs_sm_sweep s;
    cs_sm_sweep_init(&s);
    struct log_capture lc = {0};
    struct run r = {.window = 64};
    assert_int_equal(discover(m, &r, &lc, &s, &err), 0);
    assert_int_equal(s.problems, 0);
    assert_int_equal(s.fabric.nodes[0].guid, src.nodes[26].guid);
    assert_int_equal(s.sm_port, s.fabric.nodes[0].first_port);
    struct cs_fabric want;
    as_seen(&src, &s.fabric, &want);
    assert_same_fabric(&want, &s.fabric);
    cs_fabric_free(&want);
    cs_sm_sweep_free(&s);
    cs_sma_model_destroy(m);
    cs_fabric_free(&src);
    free(lc.text);
}

static void test_path_format(void **state)
{
    (void)state;
    struct cs_dr_path p = {0};
    char buf[64];
    assert_string_equal(cs_dr_path_format(&p, buf, sizeof buf), "0");
    p.hops = 3;
    p.port[1] = 1;
    p.port[2] = 17;
    p.port[3] = 254;
    assert_string_equal(cs_dr_path_format(&p, buf, sizeof buf), "0,1,17,254");
    char small[6];
    assert_string_equal(cs_dr_path_format(&p, small, sizeof small), "0,1,1");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pgft_exact),         cmocka_unit_test(test_kary_exact),
        cmocka_unit_test(test_order_independent),  cmocka_unit_test(test_dead_leaf),
        cmocka_unit_test(test_dead_middle_switch), cmocka_unit_test(test_own_node_dead),
        cmocka_unit_test(test_unlinked_cables),    cmocka_unit_test(test_sm_port_down),
        cmocka_unit_test(test_random_drops),       cmocka_unit_test(test_contradictions),
        cmocka_unit_test(test_sm_on_switch),       cmocka_unit_test(test_path_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
