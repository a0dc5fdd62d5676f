/* LFT dumps: reading OpenSM's and ibroute's layouts, writing them byte for byte, round trips.
 *
 * Fixtures in tests/data/lft/ were produced on ibsim (ft2x2.net) with OpenSM 3.3.23 and
 * infiniband-diags 44: ft2x2-{ftree,minhop}.dump are OpenSM's opensm-lfts.dump, the *-dump_fts /
 * *-ibroute-* files are dump_fts / ibroute output taken after the minhop run.
 */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"
#include <dirent.h>
#include <unistd.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/lft_io.h"

#define DATA CLOUDSM_TEST_DATA "/lft/"

/* The samples of the format reference (docs/formats/lft.md). */
static const char osm_sample[] =
    "Unicast lids [0-4] of switch Lid 1 guid 0x0002c90000000101 ('leaf0'):\n"
    "0x0001 000 # Switch portguid 0x0002c90000000101: 'leaf0'\n"
    "0x0002 003 # Switch portguid 0x0002c90000000201: 'spine0'\n"
    "0x0003 001 # Channel Adapter portguid 0x0002c90000001001: 'host0'\n"
    "0x0004 002 # Channel Adapter portguid 0x0002c90000001011: 'host1'\n"
    "4 lids dumped\n";

static const char ibroute_sample[] =
    "Unicast lids [0x0-0x4] of switch DR path slid 0; dlid 0; 0,3 guid 0x0002c90000000201 "
    "(spine0):\n"
    "  Lid  Out   Destination\n"
    "       Port     Info \n"
    "0x0001 001 : (Switch portguid 0x0002c90000000101: 'leaf0')\n"
    "0x0002 000 : (Switch portguid 0x0002c90000000201: 'spine0')\n"
    "0x0003 001 : (Channel Adapter portguid 0x0002c90000001001: 'host0')\n"
    "3 valid lids dumped \n";

static void parse_ok(struct cs_lfts *t, const char *text, const char *name)
{
    struct cs_error err = {""};
    int rc = cs_lfts_parse(t, text, strlen(text), name, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
}

static void read_ok(struct cs_lfts *t, const char *path)
{
    struct cs_error err = {""};
    if (cs_lfts_read(t, path, &err) != 0)
        fail_msg("%s", err.msg);
}

struct lft_write_request {
    const struct cs_lfts *t;
    enum cs_lft_format format;
};

static int write_lfts(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct lft_write_request *req = ctx;
    return cs_lfts_write(out, req->t, req->format, err);
}

static char *write_string(const struct cs_lfts *t, enum cs_lft_format format)
{
    struct lft_write_request req = {t, format};
    return capture(write_lfts, &req);
}

/* Same switches (in order), LIDs, tables and, for every LID some switch routes, the same target.
 * Descriptions are compared only when with_desc: the ibroute header "(desc)" cannot tell a
 * description that is itself quoted from OpenSM's "('desc')". */
static void assert_sets_equal(const struct cs_lfts *a, const struct cs_lfts *b, bool with_desc)
{
    assert_int_equal(a->num_switches, b->num_switches);
    assert_int_equal(a->max_lid, b->max_lid);
    uint32_t lids = a->capacity > b->capacity ? a->capacity : b->capacity;
    for (uint32_t sw = 0; sw < a->num_switches; sw++) {
        assert_true(a->switches[sw].guid == b->switches[sw].guid);
        assert_int_equal(a->switches[sw].lid, b->switches[sw].lid);
        if (with_desc)
            assert_string_equal(a->switches[sw].desc, b->switches[sw].desc);
        for (uint32_t lid = 0; lid < lids; lid++)
            assert_int_equal(cs_lfts_get(a, sw, lid), cs_lfts_get(b, sw, lid));
    }
    for (uint32_t lid = 0; lid <= a->max_lid; lid++) {
        bool routed = false;
        for (uint32_t sw = 0; sw < a->num_switches && !routed; sw++)
            routed = cs_lfts_get(a, sw, lid) != CS_LFT_NO_ROUTE;
        if (!routed)
            continue;
        assert_true(a->targets[lid].port_guid == b->targets[lid].port_guid);
        assert_int_equal(a->targets[lid].type, b->targets[lid].type);
        assert_string_equal(a->targets[lid].desc, b->targets[lid].desc);
    }
}

static void test_parse_osm_sample(void **state)
{
    (void)state;
    struct cs_lfts t;
    parse_ok(&t, osm_sample, "sample");
    assert_int_equal(t.num_switches, 1);
    assert_true(t.switches[0].guid == UINT64_C(0x0002c90000000101));
    assert_int_equal(t.switches[0].lid, 1);
    assert_int_equal(t.switches[0].node, CS_NONE);
    assert_string_equal(t.switches[0].desc, "leaf0");
    assert_int_equal(t.max_lid, 4);
    assert_int_equal(cs_lfts_get(&t, 0, 0), CS_LFT_NO_ROUTE);
    assert_int_equal(cs_lfts_get(&t, 0, 1), 0);
    assert_int_equal(cs_lfts_get(&t, 0, 2), 3);
    assert_int_equal(cs_lfts_get(&t, 0, 3), 1);
    assert_int_equal(cs_lfts_get(&t, 0, 4), 2);
    assert_int_equal(cs_lfts_get(&t, 0, 5), CS_LFT_NO_ROUTE);
    assert_true(t.targets[2].port_guid == UINT64_C(0x0002c90000000201));
    assert_int_equal(t.targets[2].type, CS_NODE_SWITCH);
    assert_string_equal(t.targets[2].desc, "spine0");
    assert_true(t.targets[4].port_guid == UINT64_C(0x0002c90000001011));
    assert_int_equal(t.targets[4].type, CS_NODE_CA);
    assert_string_equal(t.targets[4].desc, "host1");
    assert_int_equal(t.targets[0].type, 0);
    cs_lfts_free(&t);
}

static void test_parse_ibroute_sample(void **state)
{
    (void)state;
    struct cs_lfts t;
    parse_ok(&t, ibroute_sample, "sample");
    assert_int_equal(t.num_switches, 1);
    assert_true(t.switches[0].guid == UINT64_C(0x0002c90000000201));
    assert_int_equal(t.switches[0].lid, 0); /* addressed by DR path: LID not in the dump */
    assert_string_equal(t.switches[0].desc, "spine0");
    assert_int_equal(t.max_lid, 4);
    assert_int_equal(cs_lfts_get(&t, 0, 1), 1);
    assert_int_equal(cs_lfts_get(&t, 0, 2), 0);
    assert_int_equal(cs_lfts_get(&t, 0, 3), 1);
    assert_int_equal(cs_lfts_get(&t, 0, 4), CS_LFT_NO_ROUTE);
    assert_int_equal(t.targets[3].type, CS_NODE_CA);
    assert_true(t.targets[3].port_guid == UINT64_C(0x0002c90000001001));
    assert_string_equal(t.targets[3].desc, "host0");
    assert_int_equal(t.targets[4].type, 0);
    cs_lfts_free(&t);
}

static void test_parse_router_and_unknown_targets(void **state)
{
    (void)state;
    struct cs_lfts t;
    parse_ok(&t,
             "Unicast lids [0-3] of switch Lid 1 guid 0x10 ('s'):\n"
             "0x0001 001 # Router portguid 0x0000000000000077: 'r (a) ''x'''\n"
             "0x0002 002 # unknown node and type\n"
             "0x0003 003 : (path #2 out of 4: portguid 0x0000000000000099)\n"
             "3 lids dumped\n",
             "t");
    assert_int_equal(t.targets[1].type, CS_NODE_ROUTER);
    assert_string_equal(t.targets[1].desc, "r (a) ''x''");
    assert_int_equal(t.targets[2].type, 0);
    assert_true(t.targets[2].port_guid == 0);
    assert_int_equal(t.targets[3].type, 0);
    assert_true(t.targets[3].port_guid == 0x99);
    assert_int_equal(cs_lfts_get(&t, 0, 2), 2);
    cs_lfts_free(&t);
}

static void test_write_osm_reproduces_sample(void **state)
{
    (void)state;
    struct cs_lfts t;
    parse_ok(&t, osm_sample, "sample");
    char *text = write_string(&t, CS_LFT_FORMAT_OSM);
    assert_string_equal(text, osm_sample);
    free(text);
    cs_lfts_free(&t);
}

static void test_write_ibroute_exact(void **state)
{
    (void)state;
    struct cs_lfts t;
    parse_ok(&t, osm_sample, "sample");
    char *text = write_string(&t, CS_LFT_FORMAT_IBROUTE);
    assert_string_equal(text,
                        "Unicast lids [0x0-0x4] of switch Lid 1 guid 0x0002c90000000101 (leaf0):\n"
                        "  Lid  Out   Destination\n"
                        "       Port     Info \n"
                        "0x0001 000 : (Switch portguid 0x0002c90000000101: 'leaf0')\n"
                        "0x0002 003 : (Switch portguid 0x0002c90000000201: 'spine0')\n"
                        "0x0003 001 : (Channel Adapter portguid 0x0002c90000001001: 'host0')\n"
                        "0x0004 002 : (Channel Adapter portguid 0x0002c90000001011: 'host1')\n"
                        "4 valid lids dumped \n");
    free(text);
    cs_lfts_free(&t);
}

/* A LID whose destination the set does not know is written the way each tool does it. */
static void test_write_unknown_target(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_error err;
    assert_int_equal(cs_lfts_init(&t, 2, &err), 0);
    assert_int_equal(cs_lfts_add_switch(&t, 0xab, 7, "sw", CS_NONE, &err), 0);
    cs_lfts_set(&t, 0, 2, 13);
    char *osm = write_string(&t, CS_LFT_FORMAT_OSM);
    assert_string_equal(osm, "Unicast lids [0-2] of switch Lid 7 guid 0x00000000000000ab ('sw'):\n"
                             "0x0002 013 # unknown node and type\n"
                             "2 lids dumped\n");
    char *ibroute = write_string(&t, CS_LFT_FORMAT_IBROUTE);
    assert_string_equal(ibroute,
                        "Unicast lids [0x0-0x2] of switch Lid 7 guid 0x00000000000000ab (sw):\n"
                        "  Lid  Out   Destination\n"
                        "       Port     Info \n"
                        "0x0002 013 : (unknown node and type)\n"
                        "1 valid lids dumped \n");
    free(osm);
    free(ibroute);
    cs_lfts_free(&t);
}

/* OpenSM's own files are reproduced byte for byte, including its footer, which states the max LID
 * rather than the number of lines (spine0 has 9 lines and "256 lids dumped"). */
static void test_write_osm_reproduces_opensm(void **state)
{
    (void)state;
    const char *files[] = {DATA "ft2x2-ftree.dump", DATA "ft2x2-minhop.dump"};
    for (size_t i = 0; i < 2; i++) {
        struct cs_lfts t;
        read_ok(&t, files[i]);
        assert_int_equal(t.num_switches, 4);
        assert_int_equal(t.max_lid, 256);
        char *expected = slurp(files[i]);
        char *text = write_string(&t, CS_LFT_FORMAT_OSM);
        assert_string_equal(text, expected);
        free(text);
        free(expected);
        cs_lfts_free(&t);
    }
}

/* ibroute output of one switch addressed by LID is reproduced byte for byte. */
static void test_write_ibroute_reproduces_ibroute(void **state)
{
    (void)state;
    struct cs_lfts t;
    read_ok(&t, DATA "ft2x2-minhop-ibroute-lid64.txt");
    assert_int_equal(t.num_switches, 1);
    assert_int_equal(t.switches[0].lid, 64);
    assert_string_equal(t.switches[0].desc, "spine0");
    char *expected = slurp(DATA "ft2x2-minhop-ibroute-lid64.txt");
    char *text = write_string(&t, CS_LFT_FORMAT_IBROUTE);
    assert_string_equal(text, expected);
    free(text);
    free(expected);
    cs_lfts_free(&t);
}

/* dump_fts read the LFTs OpenSM's minhop run programmed: the same routes as OpenSM's dump,
 * except LID 0x100, which dump_fts/ibroute never print when the top LID is a multiple of 64
 * (their last block is ALIGN(top, 64) / 64 - 1). */
static void test_dump_fts_matches_opensm_dump(void **state)
{
    (void)state;
    struct cs_lfts osm, fts;
    read_ok(&osm, DATA "ft2x2-minhop.dump");
    read_ok(&fts, DATA "ft2x2-minhop-dump_fts.txt");
    assert_int_equal(fts.num_switches, 4);
    assert_int_equal(fts.max_lid, 0x100);
    for (uint32_t sw = 0; sw < osm.num_switches; sw++) {
        uint32_t other = cs_lfts_find(&fts, osm.switches[sw].guid);
        assert_int_not_equal(other, CS_NONE);
        assert_int_equal(fts.switches[other].lid, 0);
        assert_string_equal(fts.switches[other].desc, osm.switches[sw].desc);
        for (uint32_t lid = 0; lid < 0x100; lid++)
            assert_int_equal(cs_lfts_get(&fts, other, lid), cs_lfts_get(&osm, sw, lid));
        assert_int_not_equal(cs_lfts_get(&osm, sw, 0x100), CS_LFT_NO_ROUTE);
        assert_int_equal(cs_lfts_get(&fts, other, 0x100), CS_LFT_NO_ROUTE);
    }
    cs_lfts_free(&osm);
    cs_lfts_free(&fts);
}

/* ibroute -a lists every LID, 255 ("illegal port") included: same table as without -a. */
static void test_ibroute_all_lists_255_as_no_route(void **state)
{
    (void)state;
    struct cs_lfts all, valid;
    read_ok(&all, DATA "ft2x2-minhop-ibroute-all-lid64.txt");
    read_ok(&valid, DATA "ft2x2-minhop-ibroute-lid64.txt");
    assert_sets_equal(&all, &valid, true);
    cs_lfts_free(&all);
    cs_lfts_free(&valid);
}

static void round_trip(const struct cs_lfts *t, enum cs_lft_format format, bool with_desc)
{
    char *text = write_string(t, format);
    struct cs_lfts back;
    parse_ok(&back, text, "written");
    assert_sets_equal(t, &back, with_desc);
    free(text);
    cs_lfts_free(&back);
}

static void test_round_trips(void **state)
{
    (void)state;
    const char *files[] = {DATA "ft2x2-ftree.dump", DATA "ft2x2-minhop.dump",
                           DATA "ft2x2-minhop-dump_fts.txt"};
    for (size_t i = 0; i < 3; i++) {
        struct cs_lfts t;
        read_ok(&t, files[i]);
        round_trip(&t, CS_LFT_FORMAT_OSM, true);
        round_trip(&t, CS_LFT_FORMAT_IBROUTE, true);

        /* osm -> ibroute -> parse -> osm gives the same set again */
        char *ibroute = write_string(&t, CS_LFT_FORMAT_IBROUTE);
        struct cs_lfts mid;
        parse_ok(&mid, ibroute, "mid");
        char *osm = write_string(&mid, CS_LFT_FORMAT_OSM);
        struct cs_lfts back;
        parse_ok(&back, osm, "back");
        assert_sets_equal(&t, &back, true);
        free(ibroute);
        free(osm);
        cs_lfts_free(&mid);
        cs_lfts_free(&back);
        cs_lfts_free(&t);
    }
}

/* A file may mix both layouts, and tables grow when a later header or entry needs more LIDs. */
static void test_mixed_layouts_and_growth(void **state)
{
    (void)state;
    struct cs_lfts t;
    parse_ok(&t,
             "Unicast lids [0-4] of switch Lid 1 guid 0x0000000000000001 ('a'):\n"
             "0x0001 000 # Switch portguid 0x0000000000000001: 'a'\n"
             "0x00c8 002 # Channel Adapter portguid 0x0000000000000c81: 'far'\n"
             "4 lids dumped\n"
             "Unicast lids [0x0-0x1000] of switch Lid 2 guid 0x0000000000000002 (b):\n"
             "  Lid  Out   Destination\n"
             "       Port     Info \n"
             "0x1000 005 : (Channel Adapter portguid 0x0000000000001001: 'h')\n"
             "1 valid lids dumped \n",
             "mixed");
    assert_int_equal(t.num_switches, 2);
    assert_int_equal(t.max_lid, 0x1000);
    assert_true(t.capacity >= 0x1001);
    assert_int_equal(t.capacity % CS_LFT_BLOCK, 0);
    assert_int_equal(cs_lfts_get(&t, 0, 0xc8), 2);
    assert_int_equal(cs_lfts_get(&t, 0, 0x1000), CS_LFT_NO_ROUTE);
    assert_int_equal(cs_lfts_get(&t, 1, 0x1000), 5);
    assert_int_equal(cs_lfts_get(&t, 1, 1), CS_LFT_NO_ROUTE);
    assert_string_equal(t.targets[0xc8].desc, "far");
    assert_string_equal(t.switches[1].desc, "b");
    cs_lfts_free(&t);
}

static void test_multicast_sections_skipped(void **state)
{
    (void)state;
    struct cs_lfts t;
    /* Real dump_fts -M output: only multicast sections, so no unicast table to use. */
    struct cs_error err;
    assert_int_equal(cs_lfts_read(&t, DATA "ft2x2-dump_fts-M.txt", &err), -1);
    assert_non_null(strstr(err.msg, "found no unicast switch table: multicast tables only"));

    /* Multicast between unicast sections, with an mlid line as dump_mlid() prints it; the
     * multicast header of switch 0x1 is not a second listing of that switch. */
    parse_ok(&t,
             "Unicast lids [0x0-0x2] of switch Lid 1 guid 0x0000000000000001 (a):\n"
             "0x0002 003 : (Switch portguid 0x0000000000000002: 'b')\n"
             "1 valid lids dumped \n"
             "Multicast mlids [0xc000-0xc3ff] of switch Lid 1 guid 0x0000000000000001 (a):\n"
             "     Ports: 0 1 2 3 4 5 6 7 8 \n"
             " MLid\n"
             "0xc000      x   x       x   \n"
             "1 valid mlids dumped \n"
             "Unicast lids [0x0-0x2] of switch Lid 2 guid 0x0000000000000002 (b):\n"
             "0x0001 004 : (Switch portguid 0x0000000000000001: 'a')\n"
             "1 valid lids dumped \n",
             "mc");
    assert_int_equal(t.num_switches, 2);
    assert_int_equal(t.max_lid, 2);
    assert_int_equal(cs_lfts_get(&t, 0, 2), 3);
    assert_int_equal(cs_lfts_get(&t, 1, 1), 4);
    cs_lfts_free(&t);
}

static void expect_error(const char *text, const char *expected_prefix, const char *expected_part)
{
    struct cs_lfts t;
    struct cs_error err = {""};
    memset(&t, 0x5a, sizeof t);
    assert_int_equal(cs_lfts_parse(&t, text, strlen(text), "t.dump", &err), -1);
    if (strncmp(err.msg, expected_prefix, strlen(expected_prefix)) != 0 ||
        !strstr(err.msg, expected_part))
        fail_msg("got \"%s\", expected \"%s...%s...\"", err.msg, expected_prefix, expected_part);
    /* nothing left allocated: the set is emptied */
    assert_null(t.ports);
    assert_null(t.switches);
}

#define HEADER "Unicast lids [0-4] of switch Lid 1 guid 0x0000000000000001 ('a'):\n"

static void test_errors(void **state)
{
    (void)state;
    expect_error("# comment\n0x0001 001\n", "t.dump:2: ", "outside a switch's table");
    expect_error(HEADER "0x0001 001\n4 lids dumped\n0x0002 001\n",
                 "t.dump:4: ", "outside a switch's table");
    expect_error(HEADER "0x0001 001\n0xc000 001\n", "t.dump:3: ", "beyond the unicast range");
    expect_error(HEADER "0x10000000000 001\n", "t.dump:2: ", "beyond the unicast range");
    expect_error(HEADER "0x0001 256 # x\n", "t.dump:2: ", "port 256");
    expect_error(HEADER "0x0001 abc\n", "t.dump:2: ", "cannot parse the port");
    expect_error(HEADER "0x00zz 001\n", "t.dump:2: ", "cannot parse the LID");
    expect_error(HEADER "0x 001\n", "t.dump:2: ", "cannot parse the LID");
    expect_error("Unicast lids [0-4] of switch Lid 1 ('a'):\n", "t.dump:1: ", "guid");
    expect_error("Unicast lids [0-4] of switch Lid 1 guid 0xzz ('a'):\n",
                 "t.dump:1: ", "switch GUID");
    expect_error("Unicast lids [0-0xc000] of switch Lid 1 guid 0x1 ('a'):\n",
                 "t.dump:1: ", "beyond the unicast range");
    expect_error(HEADER "0x0001 001\n4 lids dumped\n" HEADER "4 lids dumped\n",
                 "t.dump:4: ", "switch 0x0000000000000001 is listed twice (first at line 1)");
    /* Damaged and truncated dumps are not read as shorter tables. */
    expect_error("Unicast lids [0x10-0x2] of switch Lid 1 guid 0x1 ('a'):\n",
                 "t.dump:1: ", "reversed LID range [0x10-0x2]");
    expect_error(HEADER "0x0001 001\n", "t.dump:2: ",
                 "the file ends inside the table of switch 0x0000000000000001 (line 1), before "
                 "its \"lids dumped\" footer: the dump is truncated");
    expect_error(HEADER "0x0001 001\n" HEADER, "t.dump:3: ",
                 "a new switch starts, but the table of switch 0x0000000000000001 (line 1) has "
                 "no \"lids dumped\" footer");
    expect_error(HEADER "0x0001 001\n3 lids dumped\n", "t.dump:3: ",
                 "footer says 3 lids dumped, but the table of switch 0x0000000000000001 (line 1) "
                 "has 1 entries and its range does not end there");
    expect_error(HEADER "0x0001 001\n4 valid lids dumped\n",
                 "t.dump:3: ", "footer says 4 valid lids dumped");
    /* Input with no table at all is not an empty set: it is not an LFT dump. */
    expect_error("", "t.dump: ", "found no unicast switch table: an empty file");
    expect_error("hello world\n", "t.dump: ",
                 "expected an LFT dump (\"Unicast lids ... guid 0x...\" switch tables); found no "
                 "unicast switch table: text starting \"hello world\"");
    expect_error("Switch 4 \"S-1\"\n", "t.dump: ", "found no unicast switch table: a topology");
    expect_error(HEADER "0x0001 001\n0x0002 001\n0x0001 002\n", "t.dump:4: ",
                 "LID 0x0001 of switch 0x0000000000000001 is listed twice (ports 1 and 2)");
}

static void test_tolerated_input(void **state)
{
    (void)state;
    struct cs_lfts t;
    /* The same entry twice, an explicit 255, CRLF, tabs, no final newline, junk lines. */
    parse_ok(&t,
             "some tool banner\r\n" HEADER "0x0001 001\r\n0x0001 001 # again\n"
             "\t0x0002\t255 : (illegal port)\n"
             "0x0003 002\n"
             "4 lids dumped",
             "ok");
    assert_int_equal(cs_lfts_get(&t, 0, 1), 1);
    assert_int_equal(cs_lfts_get(&t, 0, 2), CS_LFT_NO_ROUTE);
    assert_int_equal(cs_lfts_get(&t, 0, 3), 2);
    cs_lfts_free(&t);

    /* An empty set writes as nothing. */
    struct cs_error err;
    assert_int_equal(cs_lfts_init(&t, 0, &err), 0);
    char *text = write_string(&t, CS_LFT_FORMAT_OSM);
    assert_string_equal(text, "");
    free(text);
    cs_lfts_free(&t);

    /* Bytes that are not text at all do not crash the reader. */
    static const char junk[] = "Unicast lids\0[\xff-\x01 guid 0x\n0x\0\0\n\x00\x80Unicast";
    int rc = cs_lfts_parse(&t, junk, sizeof junk - 1, "junk", &err);
    if (rc == 0)
        cs_lfts_free(&t);
}

static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static void test_write_file_atomic(void **state)
{
    (void)state;
    char dir[] = "/tmp/cs-lft-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/out.dump", dir);
    struct cs_lfts t;
    struct cs_error err;
    parse_ok(&t, osm_sample, "sample");

    assert_int_equal(cs_lfts_write_file(path, &t, CS_LFT_FORMAT_OSM, &err), 0);
    char *text = slurp(path);
    assert_string_equal(text, osm_sample);
    free(text);
    assert_int_equal(count_entries(dir), 1);

    /* A failing write leaves the old file and no temporary. */
    assert_int_equal(cs_lfts_write_file(path, &t, (enum cs_lft_format)7, &err), -1);
    text = slurp(path);
    assert_string_equal(text, osm_sample);
    free(text);
    assert_int_equal(count_entries(dir), 1);

    /* A failing write of a new file leaves nothing. */
    char missing[80];
    snprintf(missing, sizeof missing, "%s/new.dump", dir);
    assert_int_equal(cs_lfts_write_file(missing, &t, (enum cs_lft_format)7, &err), -1);
    assert_int_equal(access(missing, F_OK), -1);
    assert_int_equal(count_entries(dir), 1);
    snprintf(missing, sizeof missing, "%s/no/such/dir.dump", dir);
    assert_int_equal(cs_lfts_write_file(missing, &t, CS_LFT_FORMAT_OSM, &err), -1);

    unlink(path);
    rmdir(dir);
    cs_lfts_free(&t);
}

static void test_read_missing_file(void **state)
{
    (void)state;
    struct cs_lfts t;
    struct cs_error err = {""};
    assert_int_equal(cs_lfts_read(&t, DATA "does-not-exist.dump", &err), -1);
    assert_non_null(strstr(err.msg, "does-not-exist.dump"));
}

static void test_format_names(void **state)
{
    (void)state;
    assert_int_equal(cs_lft_format_parse("osm"), CS_LFT_FORMAT_OSM);
    assert_int_equal(cs_lft_format_parse("ibroute"), CS_LFT_FORMAT_IBROUTE);
    assert_int_equal(cs_lft_format_parse("dump"), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_osm_sample),
        cmocka_unit_test(test_parse_ibroute_sample),
        cmocka_unit_test(test_parse_router_and_unknown_targets),
        cmocka_unit_test(test_write_osm_reproduces_sample),
        cmocka_unit_test(test_write_ibroute_exact),
        cmocka_unit_test(test_write_unknown_target),
        cmocka_unit_test(test_write_osm_reproduces_opensm),
        cmocka_unit_test(test_write_ibroute_reproduces_ibroute),
        cmocka_unit_test(test_dump_fts_matches_opensm_dump),
        cmocka_unit_test(test_ibroute_all_lists_255_as_no_route),
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_mixed_layouts_and_growth),
        cmocka_unit_test(test_multicast_sections_skipped),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_tolerated_input),
        cmocka_unit_test(test_write_file_atomic),
        cmocka_unit_test(test_read_missing_file),
        cmocka_unit_test(test_format_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
