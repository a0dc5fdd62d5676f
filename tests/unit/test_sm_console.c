/* The operator's reports (include/cloudsm/sm_console.h) over a hand-made sweep: the cases ibsim
 * does not produce (a disabled port, a reduced width, an unenabled speed, an unbalanced switch),
 * each counted once and listed with its node and port. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/sm.h"
#include "cloudsm/sm_console.h"
#include "cloudsm/smp.h"

/* Two switches (4 ports each) cabled by ports 3 and 4 (two parallel links); CA a on s1 port 1,
 * CA b on s2 port 1, CA c on s2 port 2. LIDs: s1 1, s2 2, a 3, b 4, c 5. */
struct rig {
    struct cs_sm_sweep s;
    uint32_t s1, s2, a, b, c;
};

static struct cs_smp_port_info up(uint8_t lanes, enum cs_link_speed speed)
{
    struct cs_smp_port_info pi = {0};
    pi.port_state = CS_SMP_PORT_STATE_ACTIVE;
    pi.port_physical_state = CS_SMP_PORT_PHYS_LINK_UP;
    pi.link_width_active = cs_smp_width_to_active(lanes);
    pi.link_width_enabled = 1 | 2; /* 1x and 4x */
    cs_smp_speed_to_active(speed, &pi.link_speed_active, &pi.link_speed_ext_active);
    pi.link_speed_enabled = 1 | 2 | 4; /* SDR, DDR, QDR */
    return pi;
}

static void rig_build(struct rig *r)
{
    struct cs_error err;
    cs_sm_sweep_init(&r->s);
    struct cs_fabric *f = &r->s.fabric;
    r->s1 = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100, 4, "s1", &err);
    r->s2 = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x200, 4, "s2", &err);
    r->a = cs_fabric_add_node(f, CS_NODE_CA, 0x1000, 1, "a", &err);
    r->b = cs_fabric_add_node(f, CS_NODE_CA, 0x2000, 2, "b", &err);
    r->c = cs_fabric_add_node(f, CS_NODE_CA, 0x3000, 1, "c", &err);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, r->s1, 3), cs_fabric_port(f, r->s2, 3), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, r->s1, 4), cs_fabric_port(f, r->s2, 4), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, r->a, 1), cs_fabric_port(f, r->s1, 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, r->b, 1), cs_fabric_port(f, r->s2, 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, r->c, 1), cs_fabric_port(f, r->s2, 2), &err), 0);
    f->ports[cs_fabric_port(f, r->s1, 0)].lid = 1;
    f->ports[cs_fabric_port(f, r->s2, 0)].lid = 2;
    f->ports[cs_fabric_port(f, r->a, 1)].lid = 3;
    f->ports[cs_fabric_port(f, r->b, 1)].lid = 4;
    f->ports[cs_fabric_port(f, r->c, 1)].lid = 5;
    r->s.port_info = calloc(f->num_port_slots, sizeof *r->s.port_info);
    r->s.port_info_valid = calloc(f->num_port_slots, sizeof *r->s.port_info_valid);
    assert_non_null(r->s.port_info);
    assert_non_null(r->s.port_info_valid);
    /* Every switch port and the CA ports the sweep arrived on (b's port 2: not read). */
    const uint32_t read[] = {
        cs_fabric_port(f, r->s1, 0), cs_fabric_port(f, r->s1, 1), cs_fabric_port(f, r->s1, 2),
        cs_fabric_port(f, r->s1, 3), cs_fabric_port(f, r->s1, 4), cs_fabric_port(f, r->s2, 0),
        cs_fabric_port(f, r->s2, 1), cs_fabric_port(f, r->s2, 2), cs_fabric_port(f, r->s2, 3),
        cs_fabric_port(f, r->s2, 4), cs_fabric_port(f, r->a, 1),  cs_fabric_port(f, r->b, 1),
        cs_fabric_port(f, r->c, 1)};
    for (size_t i = 0; i < sizeof read / sizeof read[0]; i++) {
        r->s.port_info[read[i]] = up(4, CS_SPEED_QDR);
        r->s.port_info_valid[read[i]] = true;
    }
    /* s1 port 2: nothing cabled, disabled. */
    struct cs_smp_port_info *pi = &r->s.port_info[cs_fabric_port(f, r->s1, 2)];
    pi->port_state = CS_SMP_PORT_STATE_DOWN;
    pi->port_physical_state = 3;
    /* s2 port 4 and s1 port 4: trained at 1x though 4x is enabled. */
    r->s.port_info[cs_fabric_port(f, r->s2, 4)] = up(1, CS_SPEED_QDR);
    r->s.port_info[cs_fabric_port(f, r->s1, 4)] = up(1, CS_SPEED_QDR);
    /* c: runs DDR, but only SDR is enabled. */
    pi = &r->s.port_info[cs_fabric_port(f, r->c, 1)];
    *pi = up(4, CS_SPEED_DDR);
    pi->link_speed_enabled = 1;
    /* s2 port 2 (towards c): INIT. */
    r->s.port_info[cs_fabric_port(f, r->s2, 2)].port_state = CS_SMP_PORT_STATE_INIT;
}

static void test_port_status(void **state)
{
    (void)state;
    struct rig r;
    rig_build(&r);
    struct cs_port_status st;
    struct cs_error err;
    assert_int_equal(cs_port_status(&r.s, 0, &st, &err), 0);
    assert_int_equal(st.nodes, 5);
    assert_int_equal(st.ports, 11); /* 8 switch ports, a, b port 1, c; not b port 2 */
    assert_int_equal(st.by_state[CS_SMP_PORT_STATE_DOWN], 1);
    assert_int_equal(st.by_state[CS_SMP_PORT_STATE_INIT], 1);
    assert_int_equal(st.by_state[CS_SMP_PORT_STATE_ACTIVE], 9);
    assert_int_equal(st.by_width[2], 8); /* 4X */
    assert_int_equal(st.by_width[0], 2); /* 1X */
    assert_int_equal(st.by_speed[CS_SPEED_QDR], 9);
    assert_int_equal(st.by_speed[CS_SPEED_DDR], 1);
    assert_int_equal(st.issues[CS_PORT_DISABLED], 1);
    assert_int_equal(st.issues[CS_PORT_REDUCED_WIDTH], 2);
    assert_int_equal(st.issues[CS_PORT_UNENABLED_SPEED], 1);
    assert_int_equal(st.issues[CS_PORT_REDUCED_SPEED], 0);
    assert_int_equal(st.count, 4);
    assert_int_equal(st.list[0].issue, CS_PORT_DISABLED); /* nodes in fabric order */
    assert_int_equal(st.list[0].node, r.s1);
    assert_int_equal(st.list[0].port, 2);
    assert_int_equal(st.list[3].issue, CS_PORT_UNENABLED_SPEED);
    assert_int_equal(st.list[3].node, r.c);
    cs_port_status_free(&st);
    /* One node type only. */
    assert_int_equal(cs_port_status(&r.s, CS_NODE_CA, &st, &err), 0);
    assert_int_equal(st.nodes, 3);
    assert_int_equal(st.ports, 3);
    assert_int_equal(st.count, 1);
    cs_port_status_free(&st);
    assert_string_equal(cs_port_issue_name(CS_PORT_REDUCED_WIDTH), "with reduced width");
    cs_sm_sweep_free(&r.s);
}

static void test_query_lid(void **state)
{
    (void)state;
    struct rig r;
    rig_build(&r);
    const struct cs_fabric *f = &r.s.fabric;
    assert_int_equal(cs_sweep_port_by_lid(&r.s, 5), cs_fabric_port(f, r.c, 1));
    assert_int_equal(cs_sweep_port_by_lid(&r.s, 2), cs_fabric_port(f, r.s2, 0));
    assert_int_equal(cs_sweep_port_by_lid(&r.s, 6), CS_NONE);
    assert_int_equal(cs_sweep_port_by_lid(&r.s, 0), CS_NONE);
    struct cs_port_view v;
    cs_port_view(&r.s, cs_fabric_port(f, r.c, 1), &v);
    assert_true(v.known);
    assert_int_equal(v.state, CS_SMP_PORT_STATE_ACTIVE);
    assert_int_equal(v.width, 4);
    assert_int_equal(v.speed, CS_SPEED_DDR);
    assert_int_equal(v.peer, cs_fabric_port(f, r.s2, 2));
    cs_port_view(&r.s, cs_fabric_port(f, r.b, 2), &v);
    assert_false(v.known); /* the sweep never read it */
    assert_int_equal(v.peer, CS_NONE);
    cs_port_view(&r.s, cs_fabric_port(f, r.s1, 2), &v);
    assert_string_equal(cs_port_state_name(v.state), "DOWN");
    assert_string_equal(cs_port_phys_state_name(v.phys), "Disabled");
    assert_int_equal(v.width, 0); /* down: no rate */
    cs_sm_sweep_free(&r.s);
}

static void test_lid_balance(void **state)
{
    (void)state;
    struct rig r;
    rig_build(&r);
    const struct cs_fabric *f = &r.s.fabric;
    struct cs_lfts t;
    struct cs_error err;
    assert_int_equal(cs_lfts_for_fabric(&t, f, &err), 0);
    uint32_t sw1 = cs_lfts_find(&t, 0x100), sw2 = cs_lfts_find(&t, 0x200);
    /* s1: a out of 1, b and c both out of 3 (port 4 carries none: unbalanced), s2 out of 3. */
    cs_lfts_set(&t, sw1, 1, 0);
    cs_lfts_set(&t, sw1, 2, 3);
    cs_lfts_set(&t, sw1, 3, 1);
    cs_lfts_set(&t, sw1, 4, 3);
    cs_lfts_set(&t, sw1, 5, 3);
    /* s2: b out of 1, c out of 2, a out of 4. */
    cs_lfts_set(&t, sw2, 3, 4);
    cs_lfts_set(&t, sw2, 4, 1);
    cs_lfts_set(&t, sw2, 5, 2);
    struct cs_lid_balance b;
    cs_lid_balance(&r.s, &t, sw1, &b);
    assert_int_equal(b.node, r.s1);
    assert_int_equal(b.num_ports, 4);
    assert_int_equal(b.ports[0].lids, 1); /* a; the switch LIDs 1 and 2 do not count */
    assert_false(b.ports[0].to_switch);
    assert_int_equal(b.ports[2].lids, 2);
    assert_true(b.ports[2].to_switch);
    assert_int_equal(b.ports[3].lids, 0);
    assert_true(b.ports[3].to_switch);
    assert_false(b.ports[1].to_switch); /* nothing cabled */
    assert_int_equal(b.min, 0);
    assert_int_equal(b.max, 2);
    assert_true(b.unbalanced);
    cs_lid_balance(&r.s, &t, sw2, &b);
    assert_int_equal(b.ports[3].lids, 1);
    assert_int_equal(b.ports[2].lids, 0);
    assert_int_equal(b.max - b.min, 1);
    assert_false(b.unbalanced); /* one apart is balanced, as OpenSM says */
    cs_lfts_free(&t);
    cs_sm_sweep_free(&r.s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_status),
        cmocka_unit_test(test_query_lid),
        cmocka_unit_test(test_lid_balance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
