/* vSwitch hypervisors (the one-uplink rule), LID demand and limits (Paper II's
 * 16-VF example, thesis lines 3372-3407), and the VM state file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/topo_gen.h"
#include "cloudsm/vm.h"
#include "cloudsm/vswitch.h"

/* A leaf with two uplinks to two spines and, below it, two hypervisors of `vfs` VFs (vSwitch
 * port 1 up, VF k on port k + 1) and one plain host; LIDs 1.. in node order when `lids`. */
struct small {
    struct cs_fabric f;
    uint32_t leaf, spine[2], hyp[2], host;
};

static void build_small(struct small *s, unsigned vfs)
{
    struct cs_error err = {{0}};
    struct cs_fabric *f = &s->f;
    cs_fabric_init(f);
    s->leaf = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100, 8, "leaf", &err);
    for (unsigned i = 0; i < 2; i++) {
        s->spine[i] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x200 + i, 4, "spine", &err);
        assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, s->leaf, 7 + i),
                                           cs_fabric_port(f, s->spine[i], 1), &err),
                         0);
    }
    for (unsigned h = 0; h < 2; h++) {
        s->hyp[h] = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x1000 + (h << 8), vfs + 1, "hyp", &err);
        assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, s->hyp[h], 1),
                                           cs_fabric_port(f, s->leaf, 1 + h), &err),
                         0);
        for (unsigned k = 1; k <= vfs; k++) {
            uint32_t vf =
                cs_fabric_add_node(f, CS_NODE_CA, 0x3000 + (h << 8) + (k << 4), 1, "vf", &err);
            assert_int_equal(cs_fabric_connect(f, cs_fabric_port(f, vf, 1),
                                               cs_fabric_port(f, s->hyp[h], k + 1), &err),
                             0);
        }
    }
    s->host = cs_fabric_add_node(f, CS_NODE_CA, 0x9000, 1, "host", &err);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, s->host, 1), cs_fabric_port(f, s->leaf, 3), &err),
        0);
    uint16_t lid = 1;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        if (cs_node_is_switch(&f->nodes[n]))
            f->ports[cs_fabric_port(f, n, 0)].lid = lid++;
        else
            f->ports[cs_fabric_port(f, n, 1)].lid = lid++;
    }
}

static void test_find_hypervisors(void **state)
{
    (void)state;
    struct small s;
    build_small(&s, 3);
    struct cs_hypervisors h;
    struct cs_error err = {{0}};
    assert_int_equal(cs_hypervisors_find(&s.f, &h, &err), 0);
    assert_int_equal(h.count, 2); /* not the leaf (two uplinks), not the spines (no CA) */
    assert_int_equal(h.num_vfs, 6);
    for (unsigned i = 0; i < 2; i++) {
        const struct cs_hypervisor *hv = &h.items[i];
        assert_int_equal(hv->node, s.hyp[i]);
        assert_int_equal(hv->leaf, s.leaf);
        assert_int_equal(hv->uplink, 1);
        assert_int_equal(hv->leaf_port, 1 + i);
        assert_int_equal(hv->num_vfs, 3);
        for (unsigned k = 1; k <= 3; k++) {
            uint32_t port = cs_hypervisor_vf_port(&h, i, k);
            assert_int_not_equal(port, CS_NONE);
            assert_int_equal(s.f.nodes[s.f.ports[port].node].guid, 0x3000 + (i << 8) + (k << 4));
            assert_int_equal(h.vf_num[h.vf_of_port[port]], k + 1);
        }
        assert_int_equal(cs_hypervisor_vf_port(&h, i, 4), CS_NONE);
        assert_int_equal(cs_hypervisor_vf_port(&h, i, 0), CS_NONE);
        assert_int_equal(cs_hypervisor_by_guid(&h, &s.f, 0x1000 + (i << 8)), i);
    }
    assert_int_equal(h.of_node[s.leaf], CS_NONE);
    assert_int_equal(h.of_node[s.host], CS_NONE);
    assert_int_equal(cs_hypervisor_by_guid(&h, &s.f, 0x100), CS_NONE);

    /* LIDs: 3 physical switches, 2 PFs, 6 VFs, 1 plain host. */
    struct cs_lid_demand d;
    cs_lid_demand_of_fabric(&s.f, &h, &d);
    assert_int_equal(d.switches, 3);
    assert_int_equal(d.hypervisors, 2);
    assert_int_equal(d.vfs, 6);
    assert_int_equal(d.others, 1);
    d.running_vms = 2;
    assert_int_equal(cs_lid_demand_total(&d, CS_LID_PREPOPULATED), 12);
    assert_int_equal(cs_lid_demand_total(&d, CS_LID_DYNAMIC), 8);
    assert_int_equal(cs_lid_demand_total(&d, CS_LID_SHARED_PORT), 6); /* VMs take none */
    cs_hypervisors_free(&h);
    cs_fabric_free(&s.f);
}

/* Paper II (thesis lines 3372-3407): "If we assume 16 VFs per hypervisor ... floor(49151/17) =
 * 2891, and the number of VMs limit is: 2891 * 16 = 46256"; a demand one LID past 49151 is an error
 * saying so. */
static void test_limits(void **state)
{
    (void)state;
    struct cs_vswitch_limits l = cs_vswitch_limits(CS_LID_PREPOPULATED, 16, 0);
    assert_int_equal(l.max_hypervisors, 2891);
    assert_int_equal(l.max_vms, 46256);
    l = cs_vswitch_limits(CS_LID_PREPOPULATED, 16, 972); /* with an 18-ary-3-tree's switches */
    assert_int_equal(l.max_hypervisors, (49151 - 972) / 17);
    l = cs_vswitch_limits(CS_LID_DYNAMIC, 16, 0); /* every VF running a VM: the same */
    assert_int_equal(l.max_vms, 46256);
    /* Shared port: "the LID space is only consumed by physical machines and switches" (thesis
     * lines 3325-3337): one LID per HCA, 16 VMs behind each. */
    l = cs_vswitch_limits(CS_LID_SHARED_PORT, 16, 972);
    assert_int_equal(l.max_hypervisors, 49151 - 972);
    assert_int_equal(l.max_vms, (49151 - 972) * 16);
    l = cs_vswitch_limits(CS_LID_SHARED_PORT, 16, 49151);
    assert_int_equal(l.max_hypervisors, 0);
    struct cs_lid_demand d = {.switches = 0, .hypervisors = 2891, .vfs = 2891 * 16};
    struct cs_error err = {{0}};
    assert_int_equal(cs_lid_demand_check(&d, CS_LID_PREPOPULATED, &err), 0);
    d.switches = 5;
    assert_int_equal(cs_lid_demand_check(&d, CS_LID_PREPOPULATED, &err), -1);
    assert_non_null(strstr(err.msg, "49152 unicast LIDs"));
    assert_non_null(strstr(err.msg, "1 more than the 49151"));
    /* Dynamic: only running VMs count. */
    d.running_vms = 100;
    assert_int_equal(cs_lid_demand_check(&d, CS_LID_DYNAMIC, &err), 0);
    enum cs_lid_policy p;
    assert_int_equal(cs_lid_policy_parse("dynamic", &p), 0);
    assert_int_equal(p, CS_LID_DYNAMIC);
    assert_int_equal(cs_lid_policy_parse("static", &p), -1);
    assert_int_equal(cs_lid_policy_parse("shared-port", &p), 0);
    assert_string_equal(cs_lid_policy_name(p), "shared-port");
    /* Shared port: 49151 HCAs and switches, whatever the VMs. */
    struct cs_lid_demand sp = {.switches = 972, .hypervisors = 49151 - 972, .running_vms = 1000};
    assert_int_equal(cs_lid_demand_check(&sp, CS_LID_SHARED_PORT, &err), 0);
    sp.others = 2;
    assert_int_equal(cs_lid_demand_check(&sp, CS_LID_SHARED_PORT, &err), -1);
    assert_non_null(strstr(err.msg, "shared-port HCAs need 49153 unicast LIDs"));
}

static const char good[] = "# VMs\n"
                           "lid_policy prepopulated\n"
                           "vm web-1 vguid=0x0200000000000001 lid=3 hypervisor=0x1000 vf=1 # a\n"
                           "\n"
                           "vm db.2 hypervisor=4096 vf=2 lid=4 vguid=0x0200000000000002\n";

static void test_state_parse_and_write(void **state)
{
    (void)state;
    struct cs_vm_state s;
    struct cs_error err = {{0}};
    assert_int_equal(cs_vm_state_parse(&s, good, strlen(good), "vms", &err), 0);
    assert_int_equal(s.lid_policy, CS_LID_PREPOPULATED);
    assert_int_equal(s.count, 2);
    assert_string_equal(s.vms[1].name, "db.2");
    assert_int_equal(s.vms[1].vguid, 0x0200000000000002);
    assert_int_equal(s.vms[1].lid, 4);
    assert_int_equal(s.vms[1].hypervisor, 0x1000);
    assert_int_equal(s.vms[1].vf, 2);
    assert_int_equal(s.vms[1].line, 5);
    assert_int_equal(cs_vm_state_find(&s, "web-1"), 0);
    assert_int_equal(cs_vm_state_find(&s, "nope"), CS_NONE);

    /* Written and read back: the same VMs. */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    assert_int_equal(cs_vm_state_write(out, &s, &err), 0);
    fclose(out);
    struct cs_vm_state back;
    assert_int_equal(cs_vm_state_parse(&back, text, len, "back", &err), 0);
    assert_int_equal(back.count, 2);
    for (uint32_t i = 0; i < 2; i++) {
        assert_string_equal(back.vms[i].name, s.vms[i].name);
        assert_int_equal(back.vms[i].vguid, s.vms[i].vguid);
        assert_int_equal(back.vms[i].lid, s.vms[i].lid);
        assert_int_equal(back.vms[i].hypervisor, s.vms[i].hypervisor);
        assert_int_equal(back.vms[i].vf, s.vms[i].vf);
    }
    free(text);
    cs_vm_state_free(&back);

    /* add: a clash names the other VM; remove keeps the order. */
    struct cs_vm vm = {.name = "x", .vguid = 9, .lid = 3, .hypervisor = 0x1100, .vf = 1};
    assert_int_equal(cs_vm_state_add(&s, &vm, &err), -1);
    assert_non_null(strstr(err.msg, "same LID as VM 'web-1'"));
    vm.lid = 9;
    assert_int_equal(cs_vm_state_add(&s, &vm, &err), 0);
    cs_vm_state_remove(&s, 0);
    assert_int_equal(s.count, 2);
    assert_string_equal(s.vms[0].name, "db.2");
    assert_string_equal(s.vms[1].name, "x");
    cs_vm_state_free(&s);
}

static void expect_error(const char *text, const char *needle)
{
    struct cs_vm_state s;
    struct cs_error err = {{0}};
    assert_int_equal(cs_vm_state_parse(&s, text, strlen(text), "vms", &err), -1);
    if (!strstr(err.msg, needle))
        fail_msg("error '%s' lacks '%s'", err.msg, needle);
    assert_int_equal(s.count, 0);
}

static void test_state_errors(void **state)
{
    (void)state;
    expect_error("vm a vguid=1 lid=2 hypervisor=3\n", "vms:1: VM 'a': vf= is missing");
    expect_error("vm a vguid=1 lid=49152 hypervisor=3 vf=1\n", "vms:1: VM 'a': lid=\"49152\"");
    expect_error("vm a vguid=1 lid=0 hypervisor=3 vf=1\n", "unicast LID");
    expect_error("vm a vguid=1 lid=2 hypervisor=3 vf=127\n", "VF number (1..126)");
    expect_error("vm a vguid=1 lid=2x hypervisor=3 vf=1\n", "lid=\"2x\"");
    expect_error("vm a vguid=1 lid=2 hypervisor=3 vf=1 vf=2\n", "vf given twice");
    expect_error("vm a vguid=1 lid=2 hypervisor=3 vf=1 colour=red\n", "\"colour=red\" is not");
    expect_error("vm a/b vguid=1 lid=2 hypervisor=3 vf=1\n", "letters, digits");
    expect_error("vm a vguid=1 lid=2 hypervisor=3 vf=1\nvm b vguid=2 lid=2 hypervisor=3 vf=2\n",
                 "vms:2: VM 'b' has the same LID as VM 'a' (line 1)");
    expect_error("vm a vguid=1 lid=2 hypervisor=3 vf=1\nvm a vguid=2 lid=3 hypervisor=3 vf=2\n",
                 "vms:2: VM 'a' has the same name");
    expect_error("vm a vguid=1 lid=2 hypervisor=3 vf=1\nvm b vguid=2 lid=3 hypervisor=3 vf=1\n",
                 "same place");
    expect_error("vm a vguid=1 lid=2 hypervisor=3 vf=1\nlid_policy dynamic\n",
                 "vms:2: lid_policy comes once, before the VMs");
    expect_error("lid_policy static\n", "not \"static\"");
    expect_error("lid_policy dynamic now\n", "unexpected \"now\"");
    expect_error("0x10 5\n", "expected \"vm NAME");
}

/* Against a fabric: the hypervisor must be a vSwitch with that VF; prepopulated: the VF's LID. */
static void test_state_check(void **state)
{
    (void)state;
    struct small s;
    build_small(&s, 2);
    struct cs_hypervisors h;
    struct cs_error err = {{0}};
    assert_int_equal(cs_hypervisors_find(&s.f, &h, &err), 0);
    uint16_t vf2_lid = s.f.ports[cs_hypervisor_vf_port(&h, 1, 2)].lid;
    char text[256];
    snprintf(text, sizeof text, "vm a vguid=1 lid=%u hypervisor=0x1100 vf=2\n", vf2_lid);
    struct cs_vm_state st;
    assert_int_equal(cs_vm_state_parse(&st, text, strlen(text), "vms", &err), 0);
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), 0);
    st.vms[0].lid++;
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), -1);
    assert_non_null(strstr(err.msg, "vms:1: VM 'a': LID"));
    st.lid_policy = CS_LID_DYNAMIC; /* any free LID will do */
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), 0);
    st.vms[0].vf = 3;
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), -1);
    assert_non_null(strstr(err.msg, "has 2 VFs, not VF 3"));
    st.vms[0].hypervisor = 0x100; /* the leaf */
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), -1);
    assert_non_null(strstr(err.msg, "is not a vSwitch of the fabric"));
    cs_vm_state_free(&st);
    cs_hypervisors_free(&h);
    cs_fabric_free(&s.f);
}

/* live_routes: LIDs of live reconfigurations, kept sorted and unique, written 16 a line and read
 * back; a copy is deep; bad lines name their place. */
static void test_state_live_routes(void **state)
{
    (void)state;
    struct cs_error err = {{0}};
    const char text[] = "lid_policy dynamic\n"
                        "vm a vguid=1 lid=21 hypervisor=0x1000 vf=1\n"
                        "live_routes 21 0x20\n"
                        "live_routes 3\n";
    struct cs_vm_state s;
    assert_int_equal(cs_vm_state_parse(&s, text, strlen(text), "vms", &err), 0);
    assert_int_equal(s.num_live_routes, 3);
    assert_int_equal(s.live_routes[0], 3);
    assert_int_equal(s.live_routes[1], 21);
    assert_int_equal(s.live_routes[2], 32);
    assert_true(cs_vm_state_route_is_live(&s, 32));
    assert_false(cs_vm_state_route_is_live(&s, 4));
    for (uint16_t lid = 100; lid < 140; lid++) /* 40 more, out of order */
        assert_int_equal(cs_vm_state_mark_route_live(&s, (uint16_t)(239 - lid), &err), 0);
    assert_int_equal(cs_vm_state_mark_route_live(&s, 21, &err), 0); /* once */
    assert_int_equal(s.num_live_routes, 43);
    cs_vm_state_unmark_route_live(&s, 21);
    cs_vm_state_unmark_route_live(&s, 21); /* not there: nothing */
    assert_int_equal(s.num_live_routes, 42);
    for (uint32_t i = 1; i < s.num_live_routes; i++)
        assert_true(s.live_routes[i - 1] < s.live_routes[i]);
    char *written = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&written, &len);
    assert_int_equal(cs_vm_state_write(out, &s, &err), 0);
    fclose(out);
    unsigned lines = 0;
    for (const char *p = strstr(written, "live_routes"); p; p = strstr(p + 1, "live_routes"))
        lines++;
    assert_int_equal(lines, 3); /* 42 LIDs, 16 a line */
    struct cs_vm_state back, copy;
    assert_int_equal(cs_vm_state_parse(&back, written, len, "back", &err), 0);
    assert_int_equal(cs_vm_state_copy(&copy, &back, &err), 0);
    cs_vm_state_free(&back);
    assert_int_equal(copy.num_live_routes, 42);
    assert_memory_equal(copy.live_routes, s.live_routes, 42 * sizeof *s.live_routes);
    assert_int_equal(copy.count, 1);
    free(written);
    cs_vm_state_free(&copy);
    cs_vm_state_free(&s);
    const char *bad[][2] = {
        {"live_routes 3 3\n", "vms:1: live_routes: LID 3 is listed twice"},
        {"live_routes 3\nlive_routes 3\n", "vms:2: live_routes: LID 3 is listed twice"},
        {"live_routes 0\n", "vms:1: live_routes: \"0\" is not a unicast LID (1..49151)"},
        {"live_routes 49152\n", "is not a unicast LID"},
        {"live_routes 7x\n", "\"7x\" is not a unicast LID"},
        {"live_routes -1\n", "\"-1\" is not a unicast LID"},
        {"live_routes web\n", "\"web\" is not a unicast LID"},           /* not a number at all */
        {"live_routes 123456789012345678901\n", "is not a unicast LID"}, /* too long to copy */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(cs_vm_state_parse(&s, bad[i][0], strlen(bad[i][0]), "vms", &err), -1);
        if (!strstr(err.msg, bad[i][1]))
            fail_msg("'%s': '%s' does not say '%s'", bad[i][0], err.msg, bad[i][1]);
    }
}

/* Shared port: the VMs of one HCA share its LID (two HCAs may not), the hypervisor is the HCA's
 * node GUID, and the LID must be that HCA's; a vSwitch or an unknown GUID is refused. */
static void test_state_shared_port(void **state)
{
    (void)state;
    struct small s;
    build_small(&s, 2);
    struct cs_hypervisors h;
    struct cs_error err = {{0}};
    assert_int_equal(cs_hypervisors_find(&s.f, &h, &err), 0);
    uint16_t host_lid = s.f.ports[cs_fabric_port(&s.f, s.host, 1)].lid;
    char text[512];
    snprintf(text, sizeof text,
             "lid_policy shared-port\n"
             "vm a vguid=1 lid=%u hypervisor=0x9000 vf=1\n"
             "vm b vguid=2 lid=%u hypervisor=0x9000 vf=2\n",
             host_lid, host_lid);
    struct cs_vm_state st;
    assert_int_equal(cs_vm_state_parse(&st, text, strlen(text), "vms", &err), 0);
    assert_int_equal(st.lid_policy, CS_LID_SHARED_PORT);
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), 0);
    /* Another HCA with that LID clashes, in a file and by add. */
    struct cs_vm vm = {.name = "c", .vguid = 3, .lid = host_lid, .hypervisor = 0x9100, .vf = 1};
    assert_int_equal(cs_vm_state_add(&st, &vm, &err), -1);
    assert_non_null(strstr(err.msg, "same LID as VM 'a'"));
    vm.hypervisor = 0x9000;
    vm.vf = 3;
    assert_int_equal(cs_vm_state_add(&st, &vm, &err), 0); /* its third VM */
    st.vms[2].lid = (uint16_t)(host_lid + 1);             /* not its HCA's LID */
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), -1);
    assert_non_null(strstr(err.msg, "VM 'c': LID"));
    assert_non_null(strstr(err.msg, "(shared-port: a VM has its HCA's)"));
    st.vms[2].lid = host_lid;
    st.vms[2].hypervisor = 0x1000; /* a vSwitch, not an HCA */
    assert_int_equal(cs_vm_state_check(&st, &s.f, &h, "vms", &err), -1);
    assert_non_null(strstr(err.msg, "is not a cabled CA (HCA)"));
    cs_vm_state_free(&st);
    snprintf(text, sizeof text,
             "lid_policy shared-port\n"
             "vm a vguid=1 lid=7 hypervisor=0x9000 vf=1\n"
             "vm b vguid=2 lid=8 hypervisor=0x9100 vf=1\n"
             "vm c vguid=3 lid=7 hypervisor=0x9100 vf=2\n");
    assert_int_equal(cs_vm_state_parse(&st, text, strlen(text), "vms", &err), -1);
    assert_non_null(strstr(err.msg, "vms:4: VM 'c' has the same LID as VM 'a' (line 2)"));
    cs_hypervisors_free(&h);
    cs_fabric_free(&s.f);
}

/* The generator's vSwitches (cloudsm topo gen --vswitch) are what the rule finds: one per host
 * slot, on the leaf the host would be on, VF k on port k + 1; the LID demand is the generator's
 * count. */
static void test_generated_vswitches(void **state)
{
    (void)state;
    struct cs_pgft_spec spec;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pgft_parse(&spec, "3;4,4,2;1,2,2", false, &err), 0);
    spec.vfs_per_hypervisor = 3;
    struct cs_pgft_counts c;
    assert_int_equal(cs_pgft_count(&spec, &c, &err), 0);
    struct cs_fabric f;
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_generate(&f, &spec, &err), 0);
    struct cs_hypervisors h;
    assert_int_equal(cs_hypervisors_find(&f, &h, &err), 0);
    assert_int_equal(h.count, c.hypervisors);
    assert_int_equal(h.num_vfs, c.vfs);
    for (uint32_t i = 0; i < h.count; i++) {
        const struct cs_hypervisor *hv = &h.items[i];
        assert_int_equal(f.nodes[hv->node].guid, CS_GUID_HOST_BASE + ((uint64_t)i << 8));
        assert_int_equal(hv->uplink, 1);
        assert_int_equal(h.of_node[hv->leaf], CS_NONE); /* a physical switch */
        assert_int_equal(hv->leaf_port, i % 4 + 1);     /* host slot i's leaf port */
        for (unsigned k = 1; k <= 3; k++)
            assert_int_equal(f.nodes[f.ports[cs_hypervisor_vf_port(&h, i, k)].node].guid,
                             CS_GUID_VF_BASE + ((uint64_t)i << 16) + ((uint64_t)k << 8));
    }
    struct cs_lid_demand d;
    cs_lid_demand_of_fabric(&f, &h, &d);
    assert_int_equal(d.switches, c.switches);
    assert_int_equal(d.others, 0);
    assert_int_equal(cs_lid_demand_total(&d, CS_LID_PREPOPULATED), c.lids);
    cs_hypervisors_free(&h);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_find_hypervisors),      cmocka_unit_test(test_limits),
        cmocka_unit_test(test_state_parse_and_write), cmocka_unit_test(test_state_errors),
        cmocka_unit_test(test_state_check),           cmocka_unit_test(test_state_shared_port),
        cmocka_unit_test(test_state_live_routes),     cmocka_unit_test(test_generated_vswitches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
