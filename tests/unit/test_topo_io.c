/* Topology reader and writer: real ibnetdiscover output, ibsim net files, round trips, errors. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "testlib.h"

#include "cloudsm/lft.h"
#include "cloudsm/topo_io.h"

#define DATA CLOUDSM_TEST_DATA

/* --- helpers --- */

static void parse_ok(struct cs_fabric *f, const char *text)
{
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    if (cs_topo_parse(f, text, strlen(text), "t.topo", &err) < 0)
        fail_msg("parse failed: %s", err.msg);
}

static void read_ok(struct cs_fabric *f, const char *path)
{
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    if (cs_topo_read(f, path, &err) < 0)
        fail_msg("read failed: %s", err.msg);
}

static int write_topo(FILE *out, const void *f, struct cs_error *err)
{
    return cs_topo_write(out, f, err);
}

static char *write_text(const struct cs_fabric *f, size_t *len)
{
    char *buf = capture(write_topo, f);
    if (len)
        *len = strlen(buf);
    return buf;
}

static uint32_t node_by_guid(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t i = 0; i < f->num_nodes; i++)
        if (f->nodes[i].guid == guid)
            return i;
    fail_msg("no node with GUID 0x%llx", (unsigned long long)guid);
    return CS_NONE;
}

static const struct cs_port *port_of(const struct cs_fabric *f, uint32_t node, unsigned num)
{
    uint32_t p = cs_fabric_port(f, node, num);
    assert_int_not_equal(p, CS_NONE);
    return &f->ports[p];
}

/* Port `num` of `node` is cabled to port `rnum` of `rnode` with the given rate. */
static void assert_link(const struct cs_fabric *f, uint32_t node, unsigned num, uint32_t rnode,
                        unsigned rnum, unsigned width, enum cs_link_speed speed)
{
    const struct cs_port *a = port_of(f, node, num);
    const struct cs_port *b = port_of(f, rnode, rnum);
    assert_int_equal(a->peer, cs_fabric_port(f, rnode, rnum));
    assert_int_equal(b->peer, cs_fabric_port(f, node, num));
    assert_int_equal(a->width, width);
    assert_int_equal(b->width, width);
    assert_int_equal(a->speed, speed);
    assert_int_equal(b->speed, speed);
}

/* Write, read back, compare; then the second write must be byte-identical to the first. */
static void assert_round_trip(const struct cs_fabric *f)
{
    size_t len1, len2;
    char *text1 = write_text(f, &len1);
    struct cs_fabric back;
    struct cs_error err = {{0}};
    cs_fabric_init(&back);
    if (cs_topo_parse(&back, text1, len1, "written.topo", &err) < 0)
        fail_msg("re-read failed: %s\n%s", err.msg, text1);
    if (!cs_fabric_equal(f, &back, &err))
        fail_msg("round trip differs: %s", err.msg);
    char *text2 = write_text(&back, &len2);
    assert_int_equal(len1, len2);
    assert_memory_equal(text1, text2, len1);
    cs_fabric_free(&back);
    free(text1);
    free(text2);
}

static void expect_error(const char *text, const char *prefix, const char *needle)
{
    struct cs_fabric f;
    struct cs_error err = {{0}};
    cs_fabric_init(&f);
    assert_int_equal(cs_topo_parse(&f, text, strlen(text), "bad.topo", &err), -1);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, needle))
        fail_msg("expected '%s...%s', got '%s'", prefix, needle, err.msg);
    assert_int_equal(f.num_nodes, 0);
    assert_int_equal(f.num_port_slots, 0);
    assert_null(f.nodes);
    assert_null(f.ports);
}

/* --- reading real files --- */

/* tests/data/ibnetdiscover-small.topo is unedited ibnetdiscover output from ibsim 0.10 with LIDs
 * assigned by opensm 3.3.23 (see tests/data/ibsim-small.net for how it was made). */
static void test_real_ibnetdiscover_output(void **state)
{
    (void)state;
    struct cs_fabric f;
    read_ok(&f, DATA "/ibnetdiscover-small.topo");
    assert_int_equal(f.num_nodes, 4);
    /* File order is fabric order: spine0, leaf0, host1, host0 (ibnetdiscover's order). */
    const uint64_t guids[4] = {0x2c90000000201, 0x2c90000000101, 0x2c90000002000, 0x2c90000001000};
    const char *descs[4] = {"spine0", "leaf0", "host1", "host0"};
    const uint8_t types[4] = {CS_NODE_SWITCH, CS_NODE_SWITCH, CS_NODE_CA, CS_NODE_CA};
    const uint8_t nports[4] = {4, 4, 2, 1};
    for (uint32_t i = 0; i < 4; i++) {
        assert_int_equal(f.nodes[i].guid, guids[i]);
        assert_int_equal(f.nodes[i].sysimg_guid, guids[i]);
        assert_string_equal(f.nodes[i].desc, descs[i]);
        assert_int_equal(f.nodes[i].type, types[i]);
        assert_int_equal(f.nodes[i].num_ports, nports[i]);
        assert_int_equal(f.nodes[i].vendor_id, 0);
        assert_int_equal(f.nodes[i].device_id, 0);
        assert_false(f.nodes[i].enhanced_port0);
    }
    /* Switch port 0: GUID from switchguid=...(...), LID from the header comment. */
    assert_int_equal(port_of(&f, 0, 0)->guid, 0x2c90000000201);
    assert_int_equal(port_of(&f, 0, 0)->lid, 3);
    assert_int_equal(port_of(&f, 1, 0)->guid, 0x2c90000000101);
    assert_int_equal(port_of(&f, 1, 0)->lid, 2);
    assert_int_equal(port_of(&f, 1, 0)->lmc, 0);
    /* CA ports: GUID in parentheses, LID from "# lid N lmc M". */
    assert_int_equal(port_of(&f, 2, 1)->guid, 0x2c90000002001);
    assert_int_equal(port_of(&f, 2, 1)->lid, 4);
    assert_int_equal(port_of(&f, 3, 1)->guid, 0x2c90000001001);
    assert_int_equal(port_of(&f, 3, 1)->lid, 1);
    /* host1's second port has no line: unconnected, default GUID, no LID. */
    assert_int_equal(port_of(&f, 2, 2)->peer, CS_NONE);
    assert_int_equal(port_of(&f, 2, 2)->guid, 0x2c90000002002);
    assert_int_equal(port_of(&f, 2, 2)->lid, 0);
    /* Switch external ports carry no GUID or LID. */
    assert_int_equal(port_of(&f, 1, 1)->guid, 0);
    assert_int_equal(port_of(&f, 1, 1)->lid, 0);

    assert_link(&f, 0, 1, 1, 3, 4, CS_SPEED_QDR);
    assert_link(&f, 0, 2, 1, 4, 12, CS_SPEED_SDR);
    assert_link(&f, 1, 1, 3, 1, 4, CS_SPEED_SDR);
    assert_link(&f, 1, 2, 2, 1, 4, CS_SPEED_SDR);
    assert_int_equal(port_of(&f, 0, 3)->peer, CS_NONE);
    assert_int_equal(port_of(&f, 0, 4)->peer, CS_NONE);
    cs_fabric_free(&f);
}

/* Our output for a fabric read from ibnetdiscover is ibnetdiscover's own text, line for line,
 * apart from the header comment. */
static void test_writer_matches_ibnetdiscover_layout(void **state)
{
    (void)state;
    struct cs_fabric f;
    read_ok(&f, DATA "/ibnetdiscover-small.topo");
    char *orig = slurp(DATA "/ibnetdiscover-small.topo");
    char *ours = write_text(&f, NULL);
    /* Both start with '#' comment lines; the node records start at the first "vendid=". */
    const char *a = strstr(orig, "vendid=");
    const char *b = strstr(ours, "vendid=");
    assert_non_null(a);
    assert_non_null(b);
    size_t alen = strlen(a), blen = strlen(b);
    /* ibnetdiscover puts the blank line before a record, we put it after: trim the end. */
    while (alen && a[alen - 1] == '\n')
        alen--;
    while (blen && b[blen - 1] == '\n')
        blen--;
    if (alen != blen || memcmp(a, b, alen) != 0)
        fail_msg("layout differs.\n--- ibnetdiscover:\n%.*s\n--- ours:\n%.*s", (int)alen, a,
                 (int)blen, b);
    free(orig);
    free(ours);
    cs_fabric_free(&f);
}

/* The net file that produced the sample gives the same GUIDs, links and rates: ibsim's w=/s=
 * masks are turned into the rates ibsim itself reported. */
static void test_ibsim_net_matches_ibnetdiscover(void **state)
{
    (void)state;
    struct cs_fabric net, disc;
    read_ok(&net, DATA "/ibsim-small.net");
    read_ok(&disc, DATA "/ibnetdiscover-small.topo");
    assert_int_equal(net.num_nodes, disc.num_nodes);
    assert_int_equal(net.num_port_slots, disc.num_port_slots);
    unsigned rated = 0;
    for (uint32_t i = 0; i < net.num_nodes; i++) {
        const struct cs_node *n = &net.nodes[i];
        uint32_t j = node_by_guid(&disc, n->guid);
        assert_int_equal(n->type, disc.nodes[j].type);
        assert_int_equal(n->num_ports, disc.nodes[j].num_ports);
        assert_string_equal(n->desc, disc.nodes[j].desc);
        for (unsigned p = 0; p <= n->num_ports; p++) {
            const struct cs_port *a = port_of(&net, i, p);
            const struct cs_port *b = port_of(&disc, j, p);
            assert_int_equal(a->guid, b->guid);
            assert_int_equal(a->peer == CS_NONE, b->peer == CS_NONE);
            /* A link with no rate in the file stays unknown (ibsim would say 4xSDR). */
            if (a->width || a->speed) {
                assert_int_equal(a->width, b->width);
                assert_int_equal(a->speed, b->speed);
                rated++;
            }
            if (a->peer != CS_NONE) {
                assert_int_equal(net.nodes[net.ports[a->peer].node].guid,
                                 disc.nodes[disc.ports[b->peer].node].guid);
                assert_int_equal(net.ports[a->peer].num, disc.ports[b->peer].num);
            }
        }
    }
    assert_int_equal(rated, 4); /* the two spine links, seen from both ends */
    cs_fabric_free(&net);
    cs_fabric_free(&disc);
}

/* GUIDs by ibsim's counters; the expected values are what ibsim 0.10 reported for this file
 * (noted in the file's header). */
static void test_ibsim_sequential_guids(void **state)
{
    (void)state;
    struct cs_fabric f;
    read_ok(&f, DATA "/ibsim-sequential.net");
    assert_int_equal(f.num_nodes, 6);
    const uint64_t guids[6] = {0x200000, 0x200005, 0x100000, 0x100003, 0x500000, 0x500010};
    const char *descs[6] = {"Switch1", "Switch2", "Hca1", "Hca2", "Hca3", "Hca4"};
    for (uint32_t i = 0; i < 6; i++) {
        assert_int_equal(f.nodes[i].guid, guids[i]);
        assert_int_equal(f.nodes[i].sysimg_guid, guids[i]);
        assert_string_equal(f.nodes[i].desc, descs[i]); /* no comment: the id is the desc */
    }
    assert_int_equal(port_of(&f, 2, 1)->guid, 0x100001);
    assert_int_equal(port_of(&f, 2, 2)->guid, 0x100002);
    assert_int_equal(port_of(&f, 3, 1)->guid, 0x100004);
    assert_int_equal(port_of(&f, 4, 2)->guid, 0x500002);
    assert_int_equal(port_of(&f, 5, 1)->guid, 0x500011);
    assert_int_equal(port_of(&f, 0, 0)->guid, 0x200000);
    /* "[2] "Hca2"" has no remote port: it means port 1. No rate anywhere: unknown. */
    assert_link(&f, 0, 2, 3, 1, 0, CS_SPEED_UNKNOWN);
    assert_link(&f, 0, 3, 1, 3, 0, CS_SPEED_UNKNOWN);
    assert_link(&f, 0, 5, 1, 5, 0, CS_SPEED_UNKNOWN);
    assert_link(&f, 1, 6, 4, 2, 0, CS_SPEED_UNKNOWN);
    assert_link(&f, 1, 7, 5, 1, 0, CS_SPEED_UNKNOWN);
    assert_int_equal(port_of(&f, 4, 1)->peer, CS_NONE);
    cs_fabric_free(&f);
}

static void test_guid_lines_and_ids(void **state)
{
    (void)state;
    struct cs_fabric f;
    parse_ok(&f, "vendid=0x2c9\n"
                 "devid=0xc738\n"
                 "sysimgguid=0xabc\n"
                 "rtguid=0x900\n"
                 "Rt\t2 \"R1\"\t\t# \"router one\"\n"
                 "[1](901) \"Sw\"[2]\t\t# lid 7 lmc 1 \"sw\" lid 9 4xEDR\n"
                 "\n"
                 "hcaguids=0x700\n"
                 "Hca 1 \"Hx\"  # unquoted desc lid 5\n"
                 "[1] \"Sw\"[1] w=8 s=7 e=2\n"
                 "\n"
                 "Switch 2 \"Sw\" # \"sw\" enhanced port 0 lid 9 lmc 2\n"
                 "[1] \"Hx\"[1] w=9 s=4 e=3\n");
    assert_int_equal(f.num_nodes, 3);
    /* vendid and sysimgguid apply to the next node only; devid stays (as in ibsim). */
    assert_int_equal(f.nodes[0].type, CS_NODE_ROUTER);
    assert_int_equal(f.nodes[0].guid, 0x900);
    assert_int_equal(f.nodes[0].sysimg_guid, 0xabc);
    assert_int_equal(f.nodes[0].vendor_id, 0x2c9);
    assert_int_equal(f.nodes[0].device_id, 0xc738);
    assert_string_equal(f.nodes[0].desc, "router one");
    assert_int_equal(port_of(&f, 0, 1)->guid, 0x901);
    assert_int_equal(port_of(&f, 0, 1)->lid, 7);
    assert_int_equal(port_of(&f, 0, 1)->lmc, 1);
    assert_int_equal(port_of(&f, 0, 2)->guid, 0x902);
    assert_int_equal(f.nodes[1].guid, 0x700);
    assert_int_equal(f.nodes[1].sysimg_guid, 0x700);
    assert_int_equal(f.nodes[1].vendor_id, 0);
    assert_int_equal(f.nodes[1].device_id, 0xc738);
    assert_string_equal(f.nodes[1].desc, "unquoted desc");
    assert_int_equal(f.nodes[2].guid, 0x200000);
    assert_true(f.nodes[2].enhanced_port0);
    assert_int_equal(port_of(&f, 2, 0)->lid, 9);
    assert_int_equal(port_of(&f, 2, 0)->lmc, 2);
    /* A rate in the comment, one end only: both ends get it. */
    assert_link(&f, 0, 1, 2, 2, 4, CS_SPEED_EDR);
    /* w=8&9 -> 12x; e=2&3 -> EDR wins over s= (as ibsim's extended speed does). */
    assert_link(&f, 1, 1, 2, 1, 12, CS_SPEED_EDR);
    cs_fabric_free(&f);
}

static void test_options_against_defaults(void **state)
{
    (void)state;
    struct cs_fabric f;
    /* A port without options has ibsim's default masks (4x, SDR, no extended speed). Loading a
     * net file into ibsim 0.10 here gave: "s=2" on both ends -> 4xDDR, "w=8" on both ends ->
     * 12xSDR, "e=2" on one end only -> 4xSDR, "w=1" against a default end -> ibsim panics
     * (mismatched enabled width). */
    parse_ok(&f, "Switch 3 \"A\"\n[1] \"B\"[1] s=7\n[2] \"B\"[2] s=0 e=2\n[3] \"B\"[3] e=2\n\n"
                 "Switch 3 \"B\"\n[1] \"A\"[1]\n[2] \"A\"[2] s=6 w=3 e=6\n\n"
                 "Hca 1 \"C\"\n");
    assert_link(&f, 0, 1, 1, 1, 4, CS_SPEED_SDR); /* 7 & default 1 */
    assert_link(&f, 0, 2, 1, 2, 4, CS_SPEED_EDR); /* s=0 means QDR; e: 2 & 6 */
    assert_link(&f, 0, 3, 1, 3, 4, CS_SPEED_SDR); /* e=2 against the default 0 */
    cs_fabric_free(&f);
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1] s=0\n\nCa 1 \"B\"\n",
                 "bad.topo:2: ", "no common link speed");
    cs_fabric_free(&f);
}

static void test_desc_rules(void **state)
{
    (void)state;
    struct cs_fabric f;
    parse_ok(&f, "Ca 1 \"a\" # \"0123456789012345678901234567890123456789012345678901234567"
                 "89ABCDEFGHIJ\"\n"
                 "Ca 1 \"b\" # \"\"\n"
                 "Ca 1 \"c\" # say \"hi\" lid 3\n"
                 "Ca 1 \"d\" # \"# and lid 5 base port 0\"\n");
    assert_int_equal(strlen(f.nodes[0].desc), CS_DESC_MAX);
    assert_string_equal(f.nodes[0].desc,
                        "0123456789012345678901234567890123456789012345678901234567"
                        "89ABCD");
    assert_string_equal(f.nodes[1].desc, ""); /* an explicit empty desc stays empty */
    assert_string_equal(f.nodes[2].desc, "say 'hi'");
    assert_string_equal(f.nodes[3].desc, "# and lid 5 base port 0");
    assert_round_trip(&f);
    cs_fabric_free(&f);
}

/* --- round trips of programmatic fabrics --- */

static uint32_t add(struct cs_fabric *f, enum cs_node_type type, uint64_t guid, unsigned ports,
                    const char *desc)
{
    struct cs_error err = {{0}};
    uint32_t n = cs_fabric_add_node(f, type, guid, ports, desc, &err);
    if (n == CS_NONE)
        fail_msg("%s", err.msg);
    return n;
}

static void cable(struct cs_fabric *f, uint32_t a, unsigned pa, uint32_t b, unsigned pb,
                  uint8_t width, enum cs_link_speed speed)
{
    struct cs_error err = {{0}};
    uint32_t x = cs_fabric_port(f, a, pa), y = cs_fabric_port(f, b, pb);
    if (cs_fabric_connect(f, x, y, &err) < 0)
        fail_msg("%s", err.msg);
    cs_fabric_set_link_rate(f, x, width, speed);
}

static void build_mixed(struct cs_fabric *f)
{
    cs_fabric_init(f);
    uint32_t s1 = add(f, CS_NODE_SWITCH, 0xf452140300aa0001, 36, "leaf \"one\" = rack=3");
    uint32_t s2 = add(f, CS_NODE_SWITCH, 0xf452140300aa0002, 36, "spine # lid 99 4xQDR");
    uint32_t ca = add(f, CS_NODE_CA, 0x0002c90300bb0000, 2, "host0 mlx4_0");
    uint32_t ca2 = add(f, CS_NODE_CA, 0x0002c90300cc0000, 1, "");
    uint32_t rt = add(f, CS_NODE_ROUTER, 0x0002c90300dd0000, 2, "gw");
    f->nodes[s1].enhanced_port0 = true;
    f->nodes[s1].vendor_id = 0x2c9;
    f->nodes[s1].device_id = 0xcb20;
    f->nodes[s2].sysimg_guid = 0x1234;
    f->nodes[ca].sysimg_guid = 0;
    f->ports[f->nodes[s1].first_port].lid = 1;
    f->ports[f->nodes[s1].first_port].lmc = 1;
    f->ports[f->nodes[s2].first_port].lid = 0xbfff;
    f->ports[f->nodes[s2].first_port].guid = 0xf452140300aa00ff; /* port 0 GUID != node GUID */
    /* Parallel links between the switches, with every kind of rate. */
    cable(f, s1, 31, s2, 1, 4, CS_SPEED_EDR);
    cable(f, s1, 32, s2, 2, 4, CS_SPEED_FDR10);
    cable(f, s1, 33, s2, 3, 0, CS_SPEED_UNKNOWN);
    cable(f, s1, 34, s2, 4, 12, CS_SPEED_UNKNOWN);
    cable(f, s1, 35, s2, 5, 0, CS_SPEED_HDR);
    cable(f, s1, 36, s2, 36, 2, CS_SPEED_NDR);
    /* A two-port CA on two switches, port GUIDs not following node + p. */
    cable(f, ca, 1, s1, 1, 4, CS_SPEED_QDR);
    cable(f, ca, 2, s2, 10, 1, CS_SPEED_SDR);
    f->ports[f->nodes[ca].first_port + 1].guid = 0x0002c90300bb7777;
    f->ports[f->nodes[ca].first_port + 1].lid = 0x20;
    f->ports[f->nodes[ca].first_port + 1].lmc = 2;
    f->ports[f->nodes[ca].first_port + 2].lid = 0x24;
    /* CA to router, back to back: both ends print the other's port GUID. */
    cable(f, ca2, 1, rt, 2, 8, CS_SPEED_DDR);
    f->ports[f->nodes[ca2].first_port + 1].lid = 77;
    f->ports[f->nodes[rt].first_port + 2].lid = 78;
    cable(f, rt, 1, s1, 20, 4, CS_SPEED_XDR);
    f->ports[f->nodes[rt].first_port + 1].lid = 79;
}

static void test_round_trip_mixed(void **state)
{
    (void)state;
    struct cs_fabric f;
    build_mixed(&f);
    /* '"' is the one thing that does not survive: it is written as '\''. */
    assert_non_null(strchr(f.nodes[0].desc, '"'));
    size_t len;
    char *text = write_text(&f, &len);
    assert_non_null(strstr(text, "# \"leaf 'one' = rack=3\" enhanced port 0 lid 1 lmc 1\n"));
    /* In port-line comments '=' would be taken by ibsim as an option. */
    assert_non_null(strstr(text, "\"leaf 'one' - rack-3\" lid 1 4xQDR\n"));
    assert_non_null(strstr(text, "switchguid=0xf452140300aa0002(f452140300aa00ff)\n"));
    assert_non_null(strstr(text, "[1](2c90300bb7777) \t\"S-f452140300aa0001\"[1]\t\t# lid 32 "
                                 "lmc 2 \"leaf 'one' - rack-3\" lid 1 4xQDR\n"));
    assert_non_null(strstr(text, "[1](2c90300cc0001) \t\"R-0002c90300dd0000\"[2] (2c90300dd0002) "
                                 "\t\t# lid 77 lmc 0 \"gw\" lid 78 8xDDR\n"));
    assert_non_null(strstr(text, "[33]\t\"S-f452140300aa0002\"[3]\t\t# \"spine # lid 99 4xQDR\" "
                                 "lid 49151\n"));
    assert_non_null(strstr(text, "lid 49151 12x???\n"));
    assert_non_null(strstr(text, "lid 49151 ??HDR\n"));
    assert_non_null(strstr(text, "lid 49151 2xNDR\n"));
    assert_non_null(strstr(text, "sysimgguid=0x0\ncaguid=0x2c90300bb0000\n"));
    free(text);
    for (char *q = strchr(f.nodes[0].desc, '"'); q; q = strchr(q, '"'))
        *q = '\'';
    assert_round_trip(&f);
    cs_fabric_free(&f);
}

static void test_round_trip_of_read_files(void **state)
{
    (void)state;
    const char *files[] = {DATA "/ibnetdiscover-small.topo", DATA "/ibsim-small.net",
                           DATA "/ibsim-sequential.net"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        struct cs_fabric f;
        read_ok(&f, files[i]);
        assert_round_trip(&f);
        cs_fabric_free(&f);
    }
}

static void test_unwritable_fabrics(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err = {{0}};
    char buf[64];
    FILE *m = fmemopen(buf, sizeof buf, "w");
    assert_non_null(m);

    cs_fabric_init(&f);
    add(&f, CS_NODE_SWITCH, 0x10, 2, "a");
    add(&f, CS_NODE_CA, 0x10, 1, "b");
    assert_int_equal(cs_topo_write(m, &f, &err), -1);
    assert_non_null(strstr(err.msg, "0x0000000000000010"));
    cs_fabric_free(&f);

    cs_fabric_init(&f);
    add(&f, CS_NODE_SWITCH, 0x10, 2, "a");
    add(&f, CS_NODE_CA, 0x20, 1, "b");
    cable(&f, 0, 1, 1, 1, 3, CS_SPEED_QDR);
    assert_int_equal(cs_topo_write(m, &f, &err), -1);
    assert_non_null(strstr(err.msg, "width 3"));
    cs_fabric_set_link_rate(&f, cs_fabric_port(&f, 0, 1), 4, CS_SPEED_QDR);
    f.ports[cs_fabric_port(&f, 1, 1)].speed = CS_SPEED_EDR;
    assert_int_equal(cs_topo_write(m, &f, &err), -1);
    assert_non_null(strstr(err.msg, "different"));
    cs_fabric_free(&f);
    /* Nothing reached the stream. */
    assert_int_equal(ftell(m), 0);
    fclose(m);
}

/* ibsim reads lines into a 256-byte buffer (MAXLINE in ibsim/sim_net.c) including the newline. */
static void test_line_length(void **state)
{
    (void)state;
    struct cs_fabric f;
    cs_fabric_init(&f);
    char desc[CS_DESC_MAX + 1];
    memset(desc, 'x', CS_DESC_MAX);
    desc[CS_DESC_MAX] = '\0';
    uint32_t sw = add(&f, CS_NODE_SWITCH, UINT64_MAX, CS_MAX_PORTS, desc);
    uint32_t big = add(&f, CS_NODE_CA, UINT64_MAX - 0x1000, CS_MAX_PORTS, desc);
    uint32_t big2 = add(&f, CS_NODE_ROUTER, UINT64_MAX - 0x2000, CS_MAX_PORTS, desc);
    f.nodes[sw].enhanced_port0 = true;
    f.nodes[sw].vendor_id = UINT32_MAX;
    f.nodes[sw].device_id = UINT32_MAX;
    f.ports[f.nodes[sw].first_port].lid = CS_LID_UCAST_MAX;
    f.ports[f.nodes[sw].first_port].lmc = 7;
    for (unsigned p = 1; p <= 100; p++)
        cable(&f, sw, p + 154, big, p + 154, 12, CS_SPEED_FDR10);
    for (unsigned p = 1; p <= 100; p++)
        cable(&f, big, p, big2, p + 154, 12, CS_SPEED_FDR10);
    for (unsigned p = 1; p <= CS_MAX_PORTS; p++) {
        if (p > 100 && p <= 154)
            continue; /* unconnected ports are not written, so they keep no LID */
        f.ports[f.nodes[big].first_port + p].lid = CS_LID_UCAST_MAX;
        f.ports[f.nodes[big].first_port + p].lmc = 7;
        if (p > 154) {
            f.ports[f.nodes[big2].first_port + p].lid = CS_LID_UCAST_MAX;
            f.ports[f.nodes[big2].first_port + p].lmc = 7;
        }
    }
    size_t len;
    char *text = write_text(&f, &len);
    size_t longest = 0;
    for (const char *p = text; p < text + len;) {
        const char *nl = memchr(p, '\n', (size_t)(text + len - p));
        assert_non_null(nl);
        size_t n = (size_t)(nl - p) + 1;
        if (n > longest)
            longest = n;
        p = nl + 1;
    }
    /* ibsim's readline() keeps at most 255 bytes of a line, newline included. */
    assert_true(longest <= 255);
    assert_true(longest > 150); /* the worst case was really exercised */
    free(text);
    assert_round_trip(&f);
    cs_fabric_free(&f);
}

/* --- files --- */

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

static void test_write_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/cloudsm-topo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[sizeof dir + 32];
    snprintf(path, sizeof path, "%s/out.topo", dir);

    struct cs_fabric f, back;
    struct cs_error err = {{0}};
    build_mixed(&f);
    for (char *q = strchr(f.nodes[0].desc, '"'); q; q = strchr(q, '"'))
        *q = '\''; /* make it representable */
    if (cs_topo_write_file(path, &f, &err) < 0)
        fail_msg("%s", err.msg);
    read_ok(&back, path);
    assert_true(cs_fabric_equal(&f, &back, &err));
    cs_fabric_free(&back);
    assert_int_equal(count_entries(dir), 1); /* no temporary file left */

    /* A failing write leaves the old file as it was and no temporary file. */
    size_t before_len, after_len;
    char *before = slurp(path);
    before_len = strlen(before);
    f.nodes[1].guid = f.nodes[0].guid;
    assert_int_equal(cs_topo_write_file(path, &f, &err), -1);
    char *after = slurp(path);
    after_len = strlen(after);
    assert_int_equal(before_len, after_len);
    assert_memory_equal(before, after, before_len);
    assert_int_equal(count_entries(dir), 1);
    free(before);
    free(after);

    /* A directory that does not exist: a clean error, nothing created. */
    char missing[sizeof dir + 32];
    snprintf(missing, sizeof missing, "%s/nope/out.topo", dir);
    f.nodes[1].guid = 0x99;
    assert_int_equal(cs_topo_write_file(missing, &f, &err), -1);
    assert_non_null(strstr(err.msg, "nope/out.topo"));
    assert_int_equal(count_entries(dir), 1);

    assert_int_equal(cs_topo_read(&back, missing, &err), -1);
    assert_int_equal(back.num_nodes, 0);

    cs_fabric_free(&f);
    unlink(path);
    rmdir(dir);
}

/* --- errors: one per class, each with its "name:line:" prefix --- */

static void test_errors(void **state)
{
    (void)state;
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1]\n\nCa 1 \"B\"\n[1] \"A\"[1]\n\nCa 1 \"A\"\n",
                 "bad.topo:7: ", "duplicate node id \"A\" (first defined at line 1)");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1]\n[2] \"Nowhere\"[1]\n\nCa 1 \"B\"\n",
                 "bad.topo:3: ", "remote node \"Nowhere\" is not defined");
    expect_error("Switch 2 \"A\"\n[3] \"B\"[1]\n", "bad.topo:2: ", "port 3 out of range");
    expect_error("Switch 2 \"A\"\n[0] \"B\"[1]\n", "bad.topo:2: ", "port 0 cannot be cabled");
    expect_error("Ca 2 \"A\"\n[1] \"B\"[1]\n[1] \"B\"[2]\n\nSwitch 2 \"B\"\n",
                 "bad.topo:3: ", "declared twice (first at line 2)");
    expect_error("# c\nSwitch 0 \"A\"\n", "bad.topo:2: ", "1 to 254 ports, not 0");
    expect_error("Switch 255 \"A\"\n", "bad.topo:1: ", "not 255");
    expect_error("caguid=0x10\nCa 1 \"A\"\n\ncaguid=0x10\nCa 1 \"B\"\n",
                 "bad.topo:5: ", "duplicate node GUID 0x0000000000000010 (node \"A\" at line 2");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[2]\n\nSwitch 2 \"B\"\n[2] \"A\"[2]\n", "bad.topo:2: ",
                 "\"A\"[1] is cabled to \"B\"[2], but line 5 cables \"B\"[2] to \"A\"[2]");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1]\n\nCa 1 \"B\"\n[1] \"A\"[3]\n",
                 "bad.topo:5: ", "remote port 3 out of range");
    expect_error("Switch 2 \"A\"\n[1] \"C\"[1]\n[2] \"C\"[1]\n\nCa 1 \"C\"\n",
                 "bad.topo:3: ", "\"C\"[1] is already cabled to \"A\"[1] (line 2)");
    expect_error("Switch 2 \"A\"\n[1] \"A\"[1]\n", "bad.topo:2: ", "cabled to itself");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1] # \"b\" lid 2 4xQDR\n\n"
                 "Ca 1 \"B\"\n[1] \"A\"[1] # lid 2 lmc 0 \"a\" lid 1 4xDDR\n",
                 "bad.topo:5: ", "link rate 4xDDR disagrees with 4xQDR at line 2");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1] # \"b\" lid 2 3xQDR\n",
                 "bad.topo:2: ", "bad link width");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1] w=1\n\nCa 1 \"B\"\n[1] \"A\"[1] w=2\n",
                 "bad.topo:5: ", "no common link width");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1] w=0\n", "bad.topo:2: ", "bad port option \"w=0\"");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[1] s=9\n", "bad.topo:2: ", "bad port option \"s=9\"");
    expect_error("Switch 2 \"A\"\n\n[1] \"B\"[1]\n", "bad.topo:3: ", "outside a node record");
    expect_error("\n\ninclude \"other.net\"\n", "bad.topo:3: ", "\"include\" is not supported");
    expect_error("module=\"x\"\n", "bad.topo:1: ", "\"module\" is not supported");
    expect_error("do Link \"a\"[1] \"b\"[1]\n", "bad.topo:1: ", "\"do\" is not supported");
    expect_error("Switch 2 \"A\"\n@1 \"x\"\n", "bad.topo:2: ", "alias");
    expect_error("Switch 2 A\n", "bad.topo:1: ", "quoted node id");
    expect_error("Switch 2 \"A\"\n[1] B\n", "bad.topo:2: ", "quoted remote node id");
    expect_error("Switch 2 \"A\"\n[1] \"B\"[0]\n", "bad.topo:2: ", "bad remote port 0");
    expect_error("Switch 2 \"A\" # \"a\" base port 0 lid 70000\n",
                 "bad.topo:1: ", "LID 70000 is beyond the unicast range (0 to 49151)");
    /* 49151 (0xBFFF) is the last unicast LID; 49152 is the first multicast one. */
    expect_error("Switch 2 \"A\" # \"a\" base port 0 lid 49152\n",
                 "bad.topo:1: ", "LID 49152 is beyond the unicast range (0 to 49151)");
    expect_error("Switch 2 \"A\" # \"a\" base port 0 lid 1\n"
                 "[1] \"H\"[1]\n\nCa 1 \"H\"\n[1](5) \"A\"[1] # lid 0xc000 lmc 0\n",
                 "bad.topo:5: ", "LID 49152 is beyond the unicast range (0 to 49151)");
    /* Input with no node is not an empty fabric: say what was expected and what was found. */
    expect_error("", "bad.topo: ",
                 "expected an ibnetdiscover or ibsim topology (Switch, Ca or Rt node lines); "
                 "found no node in an empty file");
    expect_error("hello world\n", "bad.topo: ", "found no node in text starting \"hello world\"");
    expect_error("{ CA Ports:01 SystemGUID:0002c90300000001 NodeGUID:0002c90300000001 "
                 "PortGUID:0002c90300000002 VenID:000002C9 DevID:1003 Rev:000000B0 {h1 HCA-1} "
                 "LID:0001 PN:01 } { SW Ports:24 SystemGUID:0002c90300000010 "
                 "NodeGUID:0002c90300000010 PortGUID:0002c90300000010 VenID:000002C9 DevID:C738 "
                 "Rev:000000A0 {sw1} LID:0003 PN:01 } PHY=4x LOG=ACT SPD=10\n",
                 "bad.topo: ", "found no node in an OpenSM subnet list (opensm-subnet.lst)");
    expect_error("Unicast lids [0-1] of switch Lid 1 guid 0x1 ('x'):\n",
                 "bad.topo: ", "found no node in an LFT dump");
    /* Node ids quoted in errors are escaped. */
    expect_error("Switch 2 \"A\x1b\"\n[1] \"B\xff\"[1]\n",
                 "bad.topo:2: ", "remote node \"B\\xff\" is not defined");
    expect_error("Ca 2 \"A\"\n[1] \"B\"[1] # lid 3 lmc 9\n", "bad.topo:2: ", "bad LMC");
    expect_error("switchguid=zz\n", "bad.topo:1: ", "bad GUID after switchguid");
    expect_error("caguid 5\n", "bad.topo:1: ", "expected '=' or '+' after caguid");
    expect_error("vendid=0x1ffffffff\n", "bad.topo:1: ", "bad value for vendid");
    expect_error("Ca 1 \"A\"\n[1](12 \"B\"[1]\n", "bad.topo:2: ", "bad port GUID");
    /* The name given by the caller is used as is. */
    struct cs_fabric f;
    struct cs_error err = {{0}};
    cs_fabric_init(&f);
    assert_int_equal(cs_topo_parse(&f, "Switch 0 \"x\"", 12, "/some/dir/fab.net", &err), -1);
    assert_string_equal(err.msg, "/some/dir/fab.net:1: a node has 1 to 254 ports, not 0");
}

static void test_lenient_forms(void **state)
{
    (void)state;
    struct cs_fabric f;
    /* CRLF, leading blanks, comment lines inside a record, unknown keywords (ignored as by
     * ibsim), ibnetdiscover -g "[ext N]" suffixes, a record ended by the next keyword. */
    parse_ok(&f, "# header\r\n"
                 "width=3\r\nspeed=1\r\npdebug=1\r\nChassis 1 (guid 0x1)\r\n"
                 "Switch\t2 \"A\"\t\t# \"a\" base port 0 lid 4 lmc 0\r\n"
                 "  # a comment inside the record\r\n"
                 "  [1][ext 3]\t\"B\"[1]\t\t# \"b\" lid 5 4xQDR s=4 w=2\r\n"
                 "Hostname: x\r\n"
                 "Ca 1 \"B\"\r\n"
                 "[1](abc) \"A\" [1]\r\n");
    assert_int_equal(f.num_nodes, 2);
    assert_int_equal(port_of(&f, 0, 0)->lid, 4);
    assert_int_equal(port_of(&f, 1, 1)->guid, 0xabc);
    assert_link(&f, 0, 1, 1, 1, 4, CS_SPEED_QDR);
    cs_fabric_free(&f);
}

/* --- scale: XGFT(3;18,18,36;1,18,18), the 11664-host tree --- */

static void build_xgft_11664(struct cs_fabric *f)
{
    enum { PODS = 36, K = 18 };
    struct cs_error err = {{0}};
    cs_fabric_init(f);
    assert_int_equal(cs_fabric_reserve(f, 13284, 13284 + 11664 + 1620 * 37, &err), 0);
    uint32_t host0 = f->num_nodes;
    for (unsigned h = 0; h < PODS * K * K; h++) {
        char d[32];
        snprintf(d, sizeof d, "h%u HCA-1", h);
        add(f, CS_NODE_CA, 0x0010000000000000 + ((uint64_t)h << 8), 1, d);
    }
    uint32_t leaf0 = f->num_nodes;
    for (unsigned i = 0; i < PODS * K; i++)
        add(f, CS_NODE_SWITCH, 0x0020000100000000 + i, 2 * K, "leaf");
    uint32_t mid0 = f->num_nodes;
    for (unsigned i = 0; i < PODS * K; i++)
        add(f, CS_NODE_SWITCH, 0x0020000200000000 + i, 2 * K, "mid");
    uint32_t root0 = f->num_nodes;
    for (unsigned i = 0; i < K * K; i++)
        add(f, CS_NODE_SWITCH, 0x0020000300000000 + i, PODS, "root");
    uint16_t lid = 1;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        f->ports[f->nodes[n].first_port + (f->nodes[n].type == CS_NODE_SWITCH ? 0 : 1)].lid = lid++;
    for (unsigned pod = 0; pod < PODS; pod++)
        for (unsigned l = 0; l < K; l++) {
            uint32_t leaf = leaf0 + pod * K + l;
            for (unsigned h = 0; h < K; h++)
                cable(f, leaf, h + 1, host0 + (pod * K + l) * K + h, 1, 4, CS_SPEED_EDR);
            for (unsigned m = 0; m < K; m++)
                cable(f, leaf, K + 1 + m, mid0 + pod * K + m, l + 1, 4, CS_SPEED_EDR);
        }
    for (unsigned pod = 0; pod < PODS; pod++)
        for (unsigned m = 0; m < K; m++)
            for (unsigned r = 0; r < K; r++)
                cable(f, mid0 + pod * K + m, K + 1 + r, root0 + m * K + r, pod + 1, 4,
                      CS_SPEED_HDR);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_large_tree(void **state)
{
    (void)state;
    struct cs_fabric f, back;
    struct cs_error err = {{0}};
    build_xgft_11664(&f);
    assert_int_equal(f.num_nodes, 13284);
    double t0 = now();
    size_t len;
    char *text = write_text(&f, &len);
    double t1 = now();
    cs_fabric_init(&back);
    if (cs_topo_parse(&back, text, len, "big.topo", &err) < 0)
        fail_msg("%s", err.msg);
    double t2 = now();
    print_message("11664-host tree: %zu bytes, write %.1f ms, parse %.1f ms\n", len,
                  (t1 - t0) * 1e3, (t2 - t1) * 1e3);
    if (!cs_fabric_equal(&f, &back, &err))
        fail_msg("%s", err.msg);
    cs_fabric_free(&back);
    free(text);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_ibnetdiscover_output),
        cmocka_unit_test(test_writer_matches_ibnetdiscover_layout),
        cmocka_unit_test(test_ibsim_net_matches_ibnetdiscover),
        cmocka_unit_test(test_ibsim_sequential_guids),
        cmocka_unit_test(test_guid_lines_and_ids),
        cmocka_unit_test(test_options_against_defaults),
        cmocka_unit_test(test_desc_rules),
        cmocka_unit_test(test_round_trip_mixed),
        cmocka_unit_test(test_round_trip_of_read_files),
        cmocka_unit_test(test_unwritable_fabrics),
        cmocka_unit_test(test_line_length),
        cmocka_unit_test(test_write_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_lenient_forms),
        cmocka_unit_test(test_large_tree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
