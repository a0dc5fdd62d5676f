/* The in-process SMA model: directed-route walks, ibsim's answers and Set rules, LID routing
 * through programmed LFTs, faults, counters, and the transport under a real cs_smp_pipe. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/smp.h"
#include "cloudsm/smp_pipe.h"

/* The fixture fabric (node index: name, GUID):
 *   0 host0 0x100, 1 port   port 1 -- leaf0 port 2   (4x EDR)      SM port
 *   1 host1 0x200, 2 ports  port 1 -- leaf0 port 3   (1x SDR)
 *                           port 2 -- leaf1 port 3   (12x HDR)
 *   2 leaf0 0x1000, 4 ports port 1 -- spine port 1   (4x QDR), port 4 unlinked
 *   3 leaf1 0x2000, 4 ports port 1 -- spine port 2   (4x EDR), ports 2 and 4 unlinked
 *   4 spine 0x3000, 4 ports ports 3 and 4 unlinked */
enum { HOST0, HOST1, LEAF0, LEAF1, SPINE };

static void build_fixture(struct cs_fabric *f)
{
    struct cs_error err;
    cs_fabric_init(f);
    static const struct {
        enum cs_node_type type;
        uint64_t guid;
        unsigned ports;
        const char *desc;
    } nodes[] = {{CS_NODE_CA, 0x100, 1, "host0 HCA-1"},
                 {CS_NODE_CA, 0x200, 2, "host1 HCA-1"},
                 {CS_NODE_SWITCH, 0x1000, 4, "leaf0"},
                 {CS_NODE_SWITCH, 0x2000, 4, "leaf1"},
                 {CS_NODE_SWITCH, 0x3000, 4, "spine"}};
    for (unsigned i = 0; i < 5; i++)
        assert_int_equal(cs_fabric_add_node(f, nodes[i].type, nodes[i].guid, nodes[i].ports,
                                            nodes[i].desc, &err),
                         i);
    f->nodes[LEAF0].enhanced_port0 = true;
    f->nodes[HOST1].vendor_id = 0x2c9;
    f->nodes[HOST1].device_id = 0x1017;
    static const struct {
        uint32_t a, pa, b, pb;
        uint8_t width;
        enum cs_link_speed speed;
    } links[] = {{HOST0, 1, LEAF0, 2, 4, CS_SPEED_EDR},
                 {HOST1, 1, LEAF0, 3, 1, CS_SPEED_SDR},
                 {HOST1, 2, LEAF1, 3, 12, CS_SPEED_HDR},
                 {LEAF0, 1, SPINE, 1, 4, CS_SPEED_QDR},
                 {LEAF1, 1, SPINE, 2, 4, CS_SPEED_EDR}};
    for (unsigned i = 0; i < 5; i++) {
        uint32_t a = cs_fabric_port(f, links[i].a, links[i].pa);
        assert_int_equal(cs_fabric_connect(f, a, cs_fabric_port(f, links[i].b, links[i].pb), &err),
                         0);
        cs_fabric_set_link_rate(f, a, links[i].width, links[i].speed);
    }
}

struct fixture {
    struct cs_fabric fabric;
    struct cs_sma_model *model;
};

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    build_fixture(&fx->fabric);
    struct cs_error err;
    fx->model = cs_sma_model_create(&fx->fabric, HOST0, 1, &err);
    assert_non_null(fx->model);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    cs_sma_model_destroy(fx->model);
    cs_fabric_free(&fx->fabric);
    free(fx);
    return 0;
}

/* Send one directed-route SMP along path[1..hops]; 1 with the decoded reply, 0 if none came. */
static int ask_dr(struct cs_sma_model *m, uint8_t method, uint16_t attr, uint32_t mod,
                  const uint8_t *path, unsigned hops, const uint8_t *data, struct cs_smp *reply)
{
    struct cs_smp smp;
    struct cs_error err;
    assert_int_equal(cs_smp_init_directed(&smp, method, attr, mod, path, hops, 0x1234, &err), 0);
    if (data)
        memcpy(smp.data, data, CS_SMP_DATA_SIZE);
    uint8_t wire[CS_SMP_SIZE], out[CS_SMP_SIZE];
    cs_smp_encode(&smp, wire);
    uint16_t slid = 0;
    int got = cs_sma_model_process(m, wire, CS_SMP_PERMISSIVE_LID, out, &slid);
    if (got == 1) {
        cs_smp_decode(out, reply);
        assert_int_equal(slid, CS_SMP_PERMISSIVE_LID);
        assert_int_equal(reply->method, CS_SMP_METHOD_GET_RESP);
        assert_int_equal(reply->transaction_id, 0x1234);
        assert_true(reply->status & CS_SMP_STATUS_DIRECTION);
    }
    return got;
}

static int ask_lid(struct cs_sma_model *m, uint16_t dlid, uint16_t attr, uint32_t mod,
                   struct cs_smp *reply, uint16_t *slid)
{
    struct cs_smp smp;
    cs_smp_init_lid_routed(&smp, CS_SMP_METHOD_GET, attr, mod, 77);
    uint8_t wire[CS_SMP_SIZE], out[CS_SMP_SIZE];
    cs_smp_encode(&smp, wire);
    int got = cs_sma_model_process(m, wire, dlid, out, slid);
    if (got == 1)
        cs_smp_decode(out, reply);
    return got;
}

static uint16_t code(const struct cs_smp *reply)
{
    return reply->status & CS_SMP_STATUS_CODE_MASK;
}

static struct cs_smp_node_info node_info_at(struct cs_sma_model *m, const uint8_t *path,
                                            unsigned hops)
{
    struct cs_smp r;
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, path, hops, NULL, &r),
                     1);
    assert_int_equal(code(&r), 0);
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(r.data, &ni);
    return ni;
}

static struct cs_smp_port_info port_info_at(struct cs_sma_model *m, const uint8_t *path,
                                            unsigned hops, unsigned port)
{
    struct cs_smp r;
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PORT_INFO, port, path, hops, NULL, &r), 1);
    assert_int_equal(code(&r), 0);
    struct cs_smp_port_info pi;
    cs_smp_port_info_decode(r.data, &pi);
    return pi;
}

/* Set PortInfo of `port` at the end of path, starting from what a Get returns. */
static uint16_t set_port(struct cs_sma_model *m, const uint8_t *path, unsigned hops, unsigned port,
                         void (*edit)(struct cs_smp_port_info *pi, unsigned arg), unsigned arg)
{
    struct cs_smp_port_info pi = port_info_at(m, path, hops, port);
    pi.port_state = CS_SMP_PORT_STATE_NO_CHANGE;
    pi.port_physical_state = 0;
    edit(&pi, arg);
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_port_info_encode(&pi, data);
    struct cs_smp r;
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_PORT_INFO, port, path, hops, data, &r), 1);
    return code(&r);
}

static void edit_state(struct cs_smp_port_info *pi, unsigned state)
{
    pi->port_state = (uint8_t)state;
}

static void edit_lid(struct cs_smp_port_info *pi, unsigned lid)
{
    pi->lid = (uint16_t)lid;
    pi->master_sm_lid = 1;
    pi->subnet_prefix = UINT64_C(0xfe80000000000000);
}

static const uint8_t TO_LEAF0[] = {0, 1};
static const uint8_t TO_SPINE[] = {0, 1, 1};
static const uint8_t TO_HOST1[] = {0, 1, 3};
static const uint8_t TO_LEAF1[] = {0, 1, 1, 2};
static const uint8_t HERE[] = {0};
static const uint8_t TO_UNLINKED[] = {0, 1, 4}; /* leaf0 port 4 has no cable */

static void test_node_info_along_paths(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;

    struct cs_smp_node_info ni = node_info_at(m, HERE, 0);
    assert_int_equal(ni.node_type, CS_SMP_NODE_TYPE_CA);
    assert_int_equal(ni.node_guid, 0x100);
    assert_int_equal(ni.port_guid, 0x101); /* the SM port */
    assert_int_equal(ni.local_port_num, 1);
    assert_int_equal(ni.num_ports, 1);

    ni = node_info_at(m, TO_LEAF0, 1);
    assert_int_equal(ni.node_type, CS_SMP_NODE_TYPE_SWITCH);
    assert_int_equal(ni.node_guid, 0x1000);
    assert_int_equal(ni.port_guid, 0x1000); /* a switch answers its port 0 GUID */
    assert_int_equal(ni.local_port_num, 2); /* it arrived on port 2 */

    ni = node_info_at(m, TO_HOST1, 2);
    assert_int_equal(ni.node_guid, 0x200);
    assert_int_equal(ni.port_guid, 0x201);
    assert_int_equal(ni.local_port_num, 1);
    assert_int_equal(ni.vendor_id, 0x2c9);
    assert_int_equal(ni.device_id, 0x1017);

    struct cs_smp r;
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_LEAF1, 3, NULL, &r),
                     1);
    cs_smp_node_info_decode(r.data, &ni);
    assert_int_equal(ni.node_guid, 0x2000);
    assert_int_equal(ni.local_port_num, 1);
    /* The return path holds the input port at each hop: SM port 1, leaf0 2, spine 1, leaf1 1. */
    assert_int_equal(r.return_path[0], 1);
    assert_int_equal(r.return_path[1], 2);
    assert_int_equal(r.return_path[2], 1);
    assert_int_equal(r.return_path[3], 1);
    assert_int_equal(r.hop_count, 3);
}

static void test_lost_paths(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    struct cs_smp r;
    static const uint8_t through_ca[] = {0, 1, 3, 2};   /* host1 would have to forward */
    static const uint8_t no_such_port[] = {0, 1, 5};    /* leaf0 has 4 ports */
    static const uint8_t wrong_ca_port[] = {0, 2};      /* host0 has only port 1 */
    static const uint8_t down_far_end[] = {0, 1, 1, 3}; /* spine port 3 unlinked */
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, through_ca, 3, NULL, &r), 0);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_UNLINKED, 2, NULL, &r), 0);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, no_such_port, 2, NULL, &r), 0);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, wrong_ca_port, 1, NULL, &r), 0);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, down_far_end, 3, NULL, &r), 0);
    struct cs_sma_model_stats st = cs_sma_model_stats(m);
    assert_int_equal(st.requests, 5);
    assert_int_equal(st.lost, 5);
    assert_int_equal(st.answered, 0);
}

static void test_initial_state(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;

    struct cs_smp_port_info pi = port_info_at(m, TO_LEAF0, 1, 0);
    assert_int_equal(pi.port_state, CS_SMP_PORT_STATE_ACTIVE);
    assert_int_equal(pi.port_physical_state, CS_SMP_PORT_PHYS_LINK_UP);
    assert_int_equal(pi.lid, 0);
    assert_int_equal(pi.local_port_num, 0);

    pi = port_info_at(m, TO_LEAF0, 1, 1);
    assert_int_equal(pi.port_state, CS_SMP_PORT_STATE_INIT);
    assert_int_equal(pi.port_physical_state, CS_SMP_PORT_PHYS_LINK_UP);
    assert_int_equal(cs_smp_width_from_active(pi.link_width_active), 4);
    assert_int_equal(cs_smp_speed_from_active(pi.link_speed_active, pi.link_speed_ext_active),
                     CS_SPEED_QDR);
    assert_int_equal(pi.link_speed_ext_active, 0);
    assert_true(pi.operational_vls <= pi.vl_cap);
    assert_int_equal(pi.operational_vls, pi.vl_cap);

    pi = port_info_at(m, TO_LEAF0, 1, 4);
    assert_int_equal(pi.port_state, CS_SMP_PORT_STATE_DOWN);
    assert_int_equal(pi.port_physical_state, 2); /* Polling */

    /* host1 reached on its port 1: portnum 0 means that port; port 2 can be read too. */
    pi = port_info_at(m, TO_HOST1, 2, 0);
    assert_int_equal(pi.local_port_num, 1);
    assert_int_equal(cs_smp_width_from_active(pi.link_width_active), 1);
    assert_int_equal(pi.link_speed_active, 1);
    pi = port_info_at(m, TO_HOST1, 2, 2);
    assert_int_equal(pi.local_port_num, 2);
    assert_int_equal(cs_smp_width_from_active(pi.link_width_active), 12);
    assert_int_equal(cs_smp_speed_from_active(pi.link_speed_active, pi.link_speed_ext_active),
                     CS_SPEED_HDR);
    assert_int_equal(pi.link_speed_ext_active, 4);

    struct cs_smp r;
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_SWITCH_INFO, 0, TO_LEAF0, 1, NULL, &r), 1);
    struct cs_smp_switch_info si;
    cs_smp_switch_info_decode(r.data, &si);
    assert_int_equal(si.linear_fdb_cap, 49152);
    assert_int_equal(si.linear_fdb_top, 0);
    assert_int_equal(si.port_state_change, 1);
    assert_int_equal(si.enhanced_port0, 1);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_SWITCH_INFO, 0, TO_SPINE, 2, NULL, &r), 1);
    cs_smp_switch_info_decode(r.data, &si);
    assert_int_equal(si.enhanced_port0, 0);

    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_LINEAR_FT, 5, TO_LEAF0, 1, NULL, &r),
                     1);
    struct cs_smp_lft_block b;
    cs_smp_lft_block_decode(r.data, &b);
    for (unsigned i = 0; i < CS_LFT_PORTS_PER_BLOCK; i++)
        assert_int_equal(b.port[i], 0xff);

    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_DESCRIPTION, 0, TO_SPINE, 2, NULL, &r), 1);
    struct cs_smp_node_description nd;
    cs_smp_node_description_decode(r.data, &nd);
    assert_string_equal(nd.text, "spine");
}

static void test_port_info_set_rules(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    uint32_t host0_p1 = cs_fabric_port(&fx->fabric, HOST0, 1);
    uint32_t leaf0_p2 = cs_fabric_port(&fx->fabric, LEAF0, 2);
    uint32_t leaf0_p1 = cs_fabric_port(&fx->fabric, LEAF0, 1);

    assert_int_equal(set_port(m, HERE, 0, 1, edit_lid, 7), 0);
    assert_int_equal(cs_sma_model_port_lid(m, host0_p1), 7);
    struct cs_smp_port_info pi;
    cs_sma_model_port_info(m, host0_p1, &pi);
    assert_int_equal(pi.master_sm_lid, 1);

    /* A CA sets only the port it was reached through. */
    assert_int_equal(set_port(m, TO_HOST1, 2, 2, edit_lid, 9), CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(set_port(m, TO_HOST1, 2, 1, edit_lid, 9), 0);

    /* INIT -> ACTIVE skips ARMED. */
    assert_int_equal(set_port(m, HERE, 0, 1, edit_state, CS_SMP_PORT_STATE_ACTIVE),
                     CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(set_port(m, HERE, 0, 1, edit_state, CS_SMP_PORT_STATE_ARMED), 0);
    /* ARMED -> ACTIVE needs the peer at least ARMED. */
    assert_int_equal(set_port(m, HERE, 0, 1, edit_state, CS_SMP_PORT_STATE_ACTIVE),
                     CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 2, edit_state, CS_SMP_PORT_STATE_ARMED), 0);
    assert_int_equal(set_port(m, HERE, 0, 1, edit_state, CS_SMP_PORT_STATE_ACTIVE), 0);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 2, edit_state, CS_SMP_PORT_STATE_ACTIVE), 0);
    assert_int_equal(cs_sma_model_port_state(m, host0_p1), CS_SMP_PORT_STATE_ACTIVE);
    assert_int_equal(cs_sma_model_port_state(m, leaf0_p2), CS_SMP_PORT_STATE_ACTIVE);

    /* DOWN re-initialises the link: both ends INIT; the far switch's PortStateChange rises. */
    struct cs_smp_switch_info si = {0};
    si.port_state_change = 1; /* write 1 to clear */
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_switch_info_encode(&si, data);
    struct cs_smp r;
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_SWITCH_INFO, 0, TO_SPINE, 2, data, &r), 1);
    cs_sma_model_switch_info(m, SPINE, &si);
    assert_int_equal(si.port_state_change, 0);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 1, edit_state, CS_SMP_PORT_STATE_DOWN), 0);
    assert_int_equal(cs_sma_model_port_state(m, leaf0_p1), CS_SMP_PORT_STATE_INIT);
    cs_sma_model_switch_info(m, SPINE, &si);
    assert_int_equal(si.port_state_change, 1);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 2, edit_state, CS_SMP_PORT_STATE_DOWN), 0);
    assert_int_equal(cs_sma_model_port_state(m, host0_p1), CS_SMP_PORT_STATE_INIT);
    assert_int_equal(cs_sma_model_port_state(m, leaf0_p2), CS_SMP_PORT_STATE_INIT);

    /* An unlinked port cannot leave DOWN; DOWN itself is accepted. States above 4 are bad. */
    assert_int_equal(set_port(m, TO_LEAF0, 1, 4, edit_state, CS_SMP_PORT_STATE_ARMED),
                     CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 4, edit_state, CS_SMP_PORT_STATE_INIT),
                     CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 4, edit_state, CS_SMP_PORT_STATE_DOWN), 0);
    assert_int_equal(set_port(m, HERE, 0, 1, edit_state, 5), CS_SMP_STATUS_INVALID_FIELD);

    /* OperationalVLs above the VLCap written in the same Set: rejected, and nothing changes. */
    pi = port_info_at(m, HERE, 0, 1);
    pi.port_state = 0;
    pi.lid = 99;
    pi.operational_vls = (uint8_t)(pi.vl_cap + 1);
    cs_smp_port_info_encode(&pi, data);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_PORT_INFO, 1, HERE, 0, data, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(cs_sma_model_port_lid(m, host0_p1), 7);

    /* A port number beyond the node: 0x1c. */
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PORT_INFO, 5, TO_LEAF0, 1, NULL, &r),
                     1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);
}

static void test_switch_info_and_lft(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    struct cs_smp r;
    struct cs_smp_switch_info si = {0};
    si.linear_fdb_top = 100;
    si.life_time_value = 5;
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_switch_info_encode(&si, data);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_SWITCH_INFO, 0, TO_LEAF0, 1, data, &r), 1);
    cs_smp_switch_info_decode(r.data, &si);
    assert_int_equal(si.linear_fdb_top, 100);
    assert_int_equal(si.life_time_value, 5);
    assert_int_equal(si.linear_fdb_cap, 49152);
    assert_int_equal(si.port_state_change, 1); /* written 0: not cleared */
    assert_int_equal(cs_sma_model_lft_top(m, LEAF0), 100);

    struct cs_smp_lft_block b;
    for (unsigned i = 0; i < CS_LFT_PORTS_PER_BLOCK; i++)
        b.port[i] = (uint8_t)(i % 5);
    cs_smp_lft_block_encode(&b, data);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_LINEAR_FT, 767, TO_LEAF0, 1, data, &r), 1);
    assert_int_equal(code(&r), 0);
    assert_int_equal(cs_sma_model_lft_entry(m, LEAF0, 767 * 64 + 3), 3);
    assert_int_equal(cs_sma_model_lft_entry(m, LEAF0, 766 * 64 + 3), 0xff);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_LINEAR_FT, 767, TO_LEAF0, 1, NULL, &r), 1);
    struct cs_smp_lft_block back;
    cs_smp_lft_block_decode(r.data, &back);
    assert_memory_equal(back.port, b.port, sizeof b.port);

    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_LINEAR_FT, 768, TO_LEAF0, 1, data, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_LINEAR_FT, 0, HERE, 0, NULL, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_ATTR_UNSUPPORTED);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_SWITCH_INFO, 0, HERE, 0, NULL, &r),
                     1);
    assert_int_equal(code(&r), CS_SMP_STATUS_ATTR_UNSUPPORTED);
}

/* GUIDInfo: a CA port's table (the arrival port) and a switch's (port 0), GUIDCap entries. */
static void test_guid_info(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    struct cs_error err;
    struct cs_smp r;
    struct cs_smp_guid_block b;
    uint32_t host0 = cs_fabric_port(&fx->fabric, HOST0, 1);
    uint32_t leaf0 = cs_fabric_port(&fx->fabric, LEAF0, 0);
    /* GUIDCap 1: block 0 holds the port GUID, block 1 does not exist. */
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_GUID_INFO, 0, HERE, 0, NULL, &r), 1);
    assert_int_equal(code(&r), 0);
    cs_smp_guid_block_decode(r.data, &b);
    assert_int_equal(b.guid[0], fx->fabric.ports[host0].guid);
    assert_int_equal(b.guid[1], 0);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_GUID_INFO, 1, HERE, 0, NULL, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);

    /* GUIDCap 12: two blocks; a Set keeps entry 0 and what lies beyond entry 11. */
    assert_int_equal(cs_sma_model_set_guid_cap(m, host0, 12, &err), 0);
    uint8_t data[CS_SMP_DATA_SIZE];
    for (unsigned i = 0; i < CS_GUIDS_PER_BLOCK; i++)
        b.guid[i] = 0xa100 + i;
    cs_smp_guid_block_encode(&b, data);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_GUID_INFO, 0, HERE, 0, data, &r), 1);
    assert_int_equal(code(&r), 0);
    cs_smp_guid_block_decode(r.data, &b);
    assert_int_equal(b.guid[0], fx->fabric.ports[host0].guid);
    assert_int_equal(b.guid[1], 0xa101);
    assert_int_equal(b.guid[7], 0xa107);
    for (unsigned i = 0; i < CS_GUIDS_PER_BLOCK; i++)
        b.guid[i] = 0xb100 + i;
    cs_smp_guid_block_encode(&b, data);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_GUID_INFO, 1, HERE, 0, data, &r), 1);
    cs_smp_guid_block_decode(r.data, &b);
    assert_int_equal(b.guid[0], 0xb100);
    assert_int_equal(b.guid[3], 0xb103);
    assert_int_equal(b.guid[4], 0); /* entry 12: beyond GUIDCap */
    assert_int_equal(cs_sma_model_guid(m, host0, 11), 0xb103);
    assert_int_equal(cs_sma_model_guid(m, host0, 12), 0);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_GUID_INFO, 2, HERE, 0, data, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);

    /* A switch answers for port 0 whatever the modifier's port: GUIDCap 1 there. */
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_GUID_INFO, 0, TO_LEAF0, 1, data, &r),
                     1);
    assert_int_equal(code(&r), 0);
    cs_smp_guid_block_decode(r.data, &b);
    assert_int_equal(b.guid[0], fx->fabric.ports[leaf0].guid);
    assert_int_equal(b.guid[1], 0);
    /* GUIDCap sits on CA ports and switch port 0 only. */
    assert_int_equal(cs_sma_model_set_guid_cap(m, leaf0 + 1, 8, &err), -1);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_GUID_INFO, CS_SMP_METHOD_SET), 4);
}

static void test_pkeys_and_unsupported(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    struct cs_smp r;
    struct cs_smp_pkey_block pk;
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PKEY_TABLE, 0, HERE, 0, NULL, &r), 1);
    assert_int_equal(code(&r), 0);
    cs_smp_pkey_block_decode(r.data, &pk);
    assert_int_equal(pk.pkey[0], 0xffff);
    assert_int_equal(pk.pkey[1], 0);

    memset(&pk, 0, sizeof pk);
    pk.pkey[0] = 0x8001;
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_pkey_block_encode(&pk, data);
    uint32_t port3_block1 = (3u << 16) | 1;
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_PKEY_TABLE, port3_block1, TO_LEAF0, 1, data, &r),
        1);
    assert_int_equal(code(&r), 0);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PKEY_TABLE, port3_block1, TO_LEAF0, 1, NULL, &r),
        1);
    cs_smp_pkey_block_decode(r.data, &pk);
    assert_int_equal(pk.pkey[0], 0x8001);
    /* Another port of the same switch still has the default table. */
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PKEY_TABLE, 2u << 16, TO_LEAF0, 1, NULL, &r), 1);
    cs_smp_pkey_block_decode(r.data, &pk);
    assert_int_equal(pk.pkey[0], 0xffff);
    /* Block 2 is beyond a 64-entry table; port 5 is beyond the switch. */
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PKEY_TABLE, 2, HERE, 0, NULL, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PKEY_TABLE, 5u << 16, TO_LEAF0, 1, NULL, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);

    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, HERE, 0, NULL, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_ATTR_UNSUPPORTED);
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, 0x001A /* RandomForwardingTable */, 0, TO_LEAF0, 1, NULL, &r),
        1);
    assert_int_equal(code(&r), CS_SMP_STATUS_ATTR_UNSUPPORTED);
    /* VLArbitrationTable as ibsim answers it: block (1..4) << 16 | port; ibsim's default low
     * table; no block 0, no block past the caps (8 and 8: blocks 1 and 3 only). */
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_VL_ARBITRATION, 1u << 16 | 1,
                            TO_LEAF0, 1, NULL, &r),
                     1);
    assert_int_equal(code(&r), 0);
    struct cs_smp_vlarb vla;
    cs_smp_vlarb_decode(r.data, &vla);
    assert_int_equal(vla.vl[7], 7);
    assert_int_equal(vla.weight[7], 4);
    assert_int_equal(vla.weight[8], 0); /* past the cap */
    assert_int_equal(
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_VL_ARBITRATION, 1, TO_LEAF0, 1, NULL, &r), 1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_VL_ARBITRATION, 2u << 16 | 1,
                            TO_LEAF0, 1, NULL, &r),
                     1);
    assert_int_equal(code(&r), CS_SMP_STATUS_INVALID_FIELD);
    /* NodeInfo is read-only; the answer still carries it. */
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_NODE_INFO, 0, TO_LEAF0, 1, data, &r),
                     1);
    assert_int_equal(code(&r), CS_SMP_STATUS_METHOD_UNSUPPORTED);
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(r.data, &ni);
    assert_int_equal(ni.node_guid, 0x1000);
}

static void program(struct cs_sma_model *m, const uint8_t *path, unsigned hops, uint16_t top,
                    const uint8_t *entries, unsigned count)
{
    struct cs_smp r;
    struct cs_smp_switch_info si = {0};
    si.linear_fdb_top = top;
    uint8_t data[CS_SMP_DATA_SIZE];
    cs_smp_switch_info_encode(&si, data);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_SWITCH_INFO, 0, path, hops, data, &r),
                     1);
    struct cs_smp_lft_block b;
    memset(b.port, 0xff, sizeof b.port);
    memcpy(b.port, entries, count);
    cs_smp_lft_block_encode(&b, data);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_LINEAR_FT, 0, path, hops, data, &r),
                     1);
}

static void test_lid_routing(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    /* LIDs: host0 1 (the SM), leaf0 2, spine 3, host1 port 1 4. */
    assert_int_equal(set_port(m, HERE, 0, 1, edit_lid, 1), 0);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 0, edit_lid, 2), 0);
    assert_int_equal(set_port(m, TO_SPINE, 2, 0, edit_lid, 3), 0);
    assert_int_equal(set_port(m, TO_HOST1, 2, 1, edit_lid, 4), 0);
    static const uint8_t leaf0_lft[] = {0xff, 2, 0, 1, 3};
    static const uint8_t spine_lft[] = {0xff, 1, 1, 0, 1};
    program(m, TO_LEAF0, 1, 4, leaf0_lft, sizeof leaf0_lft);
    program(m, TO_SPINE, 2, 3, spine_lft, sizeof spine_lft);

    struct cs_smp r;
    uint16_t slid = 0;
    /* Its own LID reaches the SM's own node without a link. */
    assert_int_equal(ask_lid(m, 1, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 1);
    assert_int_equal(slid, 1);
    /* leaf0 is reached, but the reply needs leaf0 port 2 ACTIVE to come back. */
    assert_int_equal(ask_lid(m, 2, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 0);
    assert_int_equal(set_port(m, HERE, 0, 1, edit_state, CS_SMP_PORT_STATE_ARMED), 0);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 2, edit_state, CS_SMP_PORT_STATE_ARMED), 0);
    assert_int_equal(set_port(m, HERE, 0, 1, edit_state, CS_SMP_PORT_STATE_ACTIVE), 0);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 2, edit_state, CS_SMP_PORT_STATE_ACTIVE), 0);
    assert_int_equal(ask_lid(m, 2, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 1);
    assert_int_equal(slid, 2);
    assert_int_equal(r.mgmt_class, CS_SMP_CLASS_LID_ROUTED);
    assert_int_equal(r.status, 0);
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(r.data, &ni);
    assert_int_equal(ni.node_guid, 0x1000);

    /* The spine: leaf0 port 1 is still INIT, so its LID does not route yet. */
    assert_int_equal(ask_lid(m, 3, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 0);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 1, edit_state, CS_SMP_PORT_STATE_ARMED), 0);
    assert_int_equal(set_port(m, TO_SPINE, 2, 1, edit_state, CS_SMP_PORT_STATE_ARMED), 0);
    assert_int_equal(set_port(m, TO_LEAF0, 1, 1, edit_state, CS_SMP_PORT_STATE_ACTIVE), 0);
    assert_int_equal(set_port(m, TO_SPINE, 2, 1, edit_state, CS_SMP_PORT_STATE_ACTIVE), 0);
    assert_int_equal(ask_lid(m, 3, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 1);
    cs_smp_node_info_decode(r.data, &ni);
    assert_int_equal(ni.node_guid, 0x3000);

    /* LID 4: leaf0 sends it out port 3 to host1, whose link is still INIT: lost. LID 0 and a
     * LID above leaf0's LinearFDBTop are lost too. */
    assert_int_equal(ask_lid(m, 4, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 0);
    assert_int_equal(ask_lid(m, 0, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 0);
    assert_int_equal(ask_lid(m, 40, CS_SMP_ATTR_NODE_INFO, 0, &r, &slid), 0);
}

static void test_faults(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    struct cs_smp r;
    struct cs_error err;

    cs_sma_model_set_unresponsive(m, LEAF0, true);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, HERE, 0, NULL, &r), 1);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_LEAF0, 1, NULL, &r),
                     0);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_SPINE, 2, NULL, &r),
                     0); /* nor does it forward */
    cs_sma_model_set_unresponsive(m, LEAF0, false);
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_SPINE, 2, NULL, &r),
                     1);

    uint32_t leaf1_p1 = cs_fabric_port(&fx->fabric, LEAF1, 1);
    uint32_t spine_p2 = cs_fabric_port(&fx->fabric, SPINE, 2);
    assert_int_equal(cs_sma_model_unlink(m, spine_p2, &err), 0);
    assert_int_equal(cs_sma_model_unlink(m, leaf1_p1, &err), -1); /* already apart */
    assert_int_equal(ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_LEAF1, 3, NULL, &r),
                     0);
    struct cs_smp_port_info pi = port_info_at(m, TO_SPINE, 2, 2);
    assert_int_equal(pi.port_state, CS_SMP_PORT_STATE_DOWN);
    assert_int_equal(pi.port_physical_state, 2);
    assert_int_equal(cs_sma_model_port_state(m, leaf1_p1), CS_SMP_PORT_STATE_DOWN);
    assert_int_equal(cs_sma_model_fabric(m)->ports[leaf1_p1].peer, CS_NONE);
    assert_int_equal(fx->fabric.ports[leaf1_p1].peer, spine_p2); /* the model has its own copy */
}

static unsigned answers_with_drop(const struct cs_fabric *f, double p, uint64_t seed)
{
    struct cs_error err;
    struct cs_sma_model *m = cs_sma_model_create(f, HOST0, 1, &err);
    assert_non_null(m);
    cs_sma_model_set_drop(m, p, seed);
    unsigned answered = 0, pattern = 0;
    for (unsigned i = 0; i < 200; i++) {
        struct cs_smp r;
        int got = ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_SPINE, 2, NULL, &r);
        answered += (unsigned)got;
        pattern = pattern * 31 + (unsigned)got;
    }
    struct cs_sma_model_stats st = cs_sma_model_stats(m);
    assert_int_equal(st.answered, answered);
    assert_int_equal(st.requests, 200);
    /* A request dropped on the way out produces no reply to drop, so drops <= 2 per request. */
    assert_true(st.dropped == 200 - answered);
    cs_sma_model_destroy(m);
    return answered * 100000u + pattern % 100000u;
}

static void test_drops(void **state)
{
    struct fixture *fx = *state;
    assert_int_equal(answers_with_drop(&fx->fabric, 0, 1) / 100000u, 200);
    assert_int_equal(answers_with_drop(&fx->fabric, 1, 1) / 100000u, 0);
    unsigned a = answers_with_drop(&fx->fabric, 0.5, 42);
    unsigned b = answers_with_drop(&fx->fabric, 0.5, 42);
    assert_int_equal(a, b); /* seeded: the same SMPs are lost */
    /* Each request survives both draws with probability 1/4: about 50 of 200. */
    assert_in_range(a / 100000u, 25, 80);
    assert_int_not_equal(answers_with_drop(&fx->fabric, 0.5, 43), a);
}

static void test_counts(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    struct cs_smp r;
    for (int i = 0; i < 3; i++)
        ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_LEAF0, 1, NULL, &r);
    ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, HERE, 0, NULL, &r);
    ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_PORT_INFO, 1, TO_LEAF0, 1, NULL, &r);
    uint8_t data[CS_SMP_DATA_SIZE] = {0};
    ask_dr(m, CS_SMP_METHOD_SET, CS_SMP_ATTR_PORT_INFO, 0, TO_LEAF0, 1, data, &r);
    ask_dr(m, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0, TO_UNLINKED, 2, NULL,
           &r); /* lost, still counted */
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET), 5);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_PORT_INFO, CS_SMP_METHOD_GET), 1);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_PORT_INFO, CS_SMP_METHOD_SET), 1);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_SWITCH_INFO, CS_SMP_METHOD_GET), 0);
    assert_int_equal(cs_sma_model_stats(m).requests, 7);
    assert_int_equal(cs_sma_model_stats(m).lost, 1);
    cs_sma_model_reset_counts(m);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET), 0);
    assert_int_equal(cs_sma_model_stats(m).requests, 0);

    /* Not requests an SMA answers: a GetResp, and a DR SMP sent to a LID. */
    struct cs_smp smp;
    struct cs_error err;
    assert_int_equal(cs_smp_init_directed(&smp, CS_SMP_METHOD_GET_RESP, CS_SMP_ATTR_NODE_INFO, 0,
                                          HERE, 0, 1, &err),
                     0);
    uint8_t wire[CS_SMP_SIZE], out[CS_SMP_SIZE];
    uint16_t slid;
    cs_smp_encode(&smp, wire);
    assert_int_equal(cs_sma_model_process(m, wire, CS_SMP_PERMISSIVE_LID, out, &slid), 0);
    smp.method = CS_SMP_METHOD_GET;
    cs_smp_encode(&smp, wire);
    assert_int_equal(cs_sma_model_process(m, wire, 5, out, &slid), 0);
    assert_int_equal(cs_sma_model_stats(m).rejected, 2);
}

/* ---- Under a pipe ---- */

struct completion {
    enum cs_smp_result result;
    uint64_t guid;
    unsigned calls;
};

static int on_done(void *arg, enum cs_smp_result result, const struct cs_smp *request,
                   const struct cs_smp *reply, struct cs_error *err)
{
    (void)request;
    (void)err;
    struct completion *c = arg;
    c->result = result;
    c->calls++;
    if (reply) {
        struct cs_smp_node_info ni;
        cs_smp_node_info_decode(reply->data, &ni);
        c->guid = ni.node_guid;
    }
    return 0;
}

static void test_transport_under_pipe(void **state)
{
    struct fixture *fx = *state;
    struct cs_sma_model *m = fx->model;
    cs_sma_model_shuffle_replies(m, 99);
    struct cs_smp_transport t = cs_sma_model_transport(m);
    struct cs_smp_pipe_options opt = {.window = 3, .timeout_ms = 1, .retries = 2};
    struct cs_error err;
    struct cs_smp_pipe *pipe = cs_smp_pipe_create(&t, &opt, &err);
    assert_non_null(pipe);

    static const struct {
        const uint8_t *path;
        unsigned hops;
        uint64_t guid; /* 0: no answer */
    } asks[] = {{HERE, 0, 0x100},     {TO_LEAF0, 1, 0x1000}, {TO_SPINE, 2, 0x3000},
                {TO_HOST1, 2, 0x200}, {TO_LEAF1, 3, 0x2000}, {TO_UNLINKED, 2, 0}};
    enum { ASKS = sizeof asks / sizeof asks[0] };
    struct completion done[ASKS];
    memset(done, 0, sizeof done);
    for (unsigned i = 0; i < ASKS; i++) {
        struct cs_smp smp;
        assert_int_equal(cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_NODE_INFO, 0,
                                              asks[i].path, asks[i].hops, 0, &err),
                         0);
        assert_int_equal(
            cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, on_done, &done[i], &err), 0);
    }
    assert_int_equal(cs_smp_pipe_run(pipe, &err), 0);
    for (unsigned i = 0; i < ASKS; i++) {
        assert_int_equal(done[i].calls, 1);
        assert_int_equal(done[i].result, asks[i].guid ? CS_SMP_OK : CS_SMP_TIMEOUT);
        assert_int_equal(done[i].guid, asks[i].guid);
    }
    /* The lost one was sent three times (two retries); the others once. */
    struct cs_smp_pipe_stats ps = cs_smp_pipe_stats(pipe);
    assert_int_equal(ps.sent, ASKS + 2);
    assert_int_equal(ps.timeouts, 1);
    assert_int_equal(cs_sma_model_count(m, CS_SMP_ATTR_NODE_INFO, CS_SMP_METHOD_GET), ASKS + 2);
    cs_smp_pipe_destroy(pipe);
}

static void test_create_rejects_bad_sm_port(void **state)
{
    struct fixture *fx = *state;
    struct cs_error err;
    assert_null(cs_sma_model_create(&fx->fabric, HOST0, 2, &err));
    assert_null(cs_sma_model_create(&fx->fabric, HOST0, 0, &err));
    assert_null(cs_sma_model_create(&fx->fabric, LEAF0, 1, &err));
    assert_null(cs_sma_model_create(&fx->fabric, 9, 1, &err));
    /* An SM on a switch sends from port 0: path[1] is then any external port. */
    struct cs_sma_model *m = cs_sma_model_create(&fx->fabric, LEAF0, 0, &err);
    assert_non_null(m);
    struct cs_smp_node_info ni = node_info_at(m, HERE, 0);
    assert_int_equal(ni.node_guid, 0x1000);
    assert_int_equal(ni.local_port_num, 0);
    ni = node_info_at(m, (const uint8_t[]){0, 3}, 1);
    assert_int_equal(ni.node_guid, 0x200);
    cs_sma_model_destroy(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_node_info_along_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lost_paths, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initial_state, setup, teardown),
        cmocka_unit_test_setup_teardown(test_port_info_set_rules, setup, teardown),
        cmocka_unit_test_setup_teardown(test_switch_info_and_lft, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pkeys_and_unsupported, setup, teardown),
        cmocka_unit_test_setup_teardown(test_guid_info, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lid_routing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_faults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_drops, setup, teardown),
        cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
        cmocka_unit_test_setup_teardown(test_transport_under_pipe, setup, teardown),
        cmocka_unit_test_setup_teardown(test_create_rejects_bad_sm_port, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
