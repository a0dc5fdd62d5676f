/* OpenSM's guid2lid file: parse, write, and apply to a fabric.
 *
 * tests/data/lft/ft2x2-opensm-default.guid2lid is the file OpenSM 3.3.23 wrote on ibsim for
 * ft2x2.net; ft2x2.guid2lid is one written by cs_guid2lid_write_file that OpenSM then honoured
 * (every port got exactly these LIDs, see docs/formats/guid2lid.md).
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
#include <unistd.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/lid.h"

#define DATA CLOUDSM_TEST_DATA "/lft/"

static void parse_ok(struct cs_guid2lid *g, const char *text)
{
    struct cs_error err = {""};
    if (cs_guid2lid_parse(g, text, strlen(text), "g2l", &err) != 0)
        fail_msg("%s", err.msg);
}

static int write_g2l(FILE *out, const void *g, struct cs_error *err)
{
    return cs_guid2lid_write(out, g, err);
}

static char *write_string(const struct cs_guid2lid *g)
{
    return capture(write_g2l, g);
}

static void test_real_files_round_trip(void **state)
{
    (void)state;
    const char *files[] = {DATA "ft2x2-opensm-default.guid2lid", DATA "ft2x2.guid2lid"};
    for (size_t i = 0; i < 2; i++) {
        struct cs_guid2lid g;
        struct cs_error err = {""};
        if (cs_guid2lid_read(&g, files[i], &err) != 0)
            fail_msg("%s", err.msg);
        assert_int_equal(g.count, 10);
        char *expected = slurp(files[i]);
        char *text = write_string(&g);
        assert_string_equal(text, expected);
        free(text);
        free(expected);
        cs_guid2lid_free(&g);
    }
    /* First entry of OpenSM's file: "0x0002c90000001051 0x000a 0x000a" */
    struct cs_guid2lid g;
    struct cs_error err;
    assert_int_equal(cs_guid2lid_read(&g, DATA "ft2x2-opensm-default.guid2lid", &err), 0);
    assert_true(g.entries[0].guid == UINT64_C(0x0002c90000001051));
    assert_int_equal(g.entries[0].min_lid, 10);
    assert_int_equal(g.entries[0].max_lid, 10);
    cs_guid2lid_free(&g);
}

static void test_parse_and_write_exact(void **state)
{
    (void)state;
    struct cs_guid2lid g;
    /* extra blank lines, a missing separator, CRLF, leading spaces, an LMC 2 range */
    parse_ok(&g, "\n\n0x0002c90000001011 0x0004 0x0004\n\n\n"
                 "0x0002c90000000101 0x0001 0x0001\r\n"
                 "  0x0000000000000abc 0x0008 0x000b\n");
    assert_int_equal(g.count, 3);
    assert_true(g.entries[2].guid == 0xabc);
    assert_int_equal(g.entries[2].min_lid, 8);
    assert_int_equal(g.entries[2].max_lid, 11);
    char *text = write_string(&g);
    assert_string_equal(text, "0x0002c90000001011 0x0004 0x0004\n\n"
                              "0x0002c90000000101 0x0001 0x0001\n\n"
                              "0x0000000000000abc 0x0008 0x000b\n\n");
    struct cs_guid2lid back;
    parse_ok(&back, text);
    assert_int_equal(back.count, g.count);
    for (uint32_t i = 0; i < g.count; i++) {
        assert_true(back.entries[i].guid == g.entries[i].guid);
        assert_int_equal(back.entries[i].min_lid, g.entries[i].min_lid);
        assert_int_equal(back.entries[i].max_lid, g.entries[i].max_lid);
    }
    free(text);
    cs_guid2lid_free(&g);
    cs_guid2lid_free(&back);

    parse_ok(&g, "");
    assert_int_equal(g.count, 0);
    cs_guid2lid_free(&g);
}

static void expect_error(const char *text, const char *prefix, const char *part)
{
    struct cs_guid2lid g;
    struct cs_error err = {""};
    assert_int_equal(cs_guid2lid_parse(&g, text, strlen(text), "g2l", &err), -1);
    if (strncmp(err.msg, prefix, strlen(prefix)) != 0 || !strstr(err.msg, part))
        fail_msg("got \"%s\", expected \"%s...%s...\"", err.msg, prefix, part);
    assert_null(g.entries);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("0x1 0x1 0x1\n\nzz 0x2 0x2\n", "g2l:3: ", "GUID");
    expect_error("0x0 0x1 0x1\n", "g2l:1: ", "GUID");
    expect_error("0x1g 0x1 0x1\n", "g2l:1: ", "GUID");
    expect_error("0x1 0x1\n", "g2l:1: ", "expected");
    expect_error("0x1 0x0000 0x0000\n", "g2l:1: ", "outside the unicast LIDs");
    expect_error("0x1 0xc000 0xc000\n", "g2l:1: ", "outside the unicast LIDs");
    expect_error("0x1 0xbfff 0xc000\n", "g2l:1: ", "outside the unicast LIDs");
    expect_error("0x1 0x0005 0x0004\n", "g2l:1: ", "ends before it starts");
    expect_error("0x1 0x1 0x1 0x1\n", "g2l:1: ", "unexpected text");
    expect_error("0x1 0x0001 0x0001\n\n0x2 0x0002 0x0002\n\n0x1 0x0003 0x0003\n",
                 "g2l:5: ", "GUID 0x0000000000000001 is listed twice (line 1)");
    expect_error("0x1 0x0004 0x0007\n\n0x2 0x0009 0x0009\n\n0x3 0x0006 0x0006\n", "g2l:5: ",
                 "LIDs 0x0006-0x0006 of GUID 0x0000000000000003 overlap 0x0004-0x0007 of GUID "
                 "0x0000000000000001 (line 1)");
    /* An overlap that sorts before the range it hits is still reported at the later line. */
    expect_error("0x1 0x0006 0x0006\n0x3 0x0004 0x0007\n",
                 "g2l:2: ", "LIDs 0x0004-0x0007 of GUID 0x0000000000000003 overlap 0x0006-0x0006");
    /* The same LID twice */
    expect_error("0x1 0x0002 0x0002\n0x3 0x0002 0x0002\n", "g2l:2: ", "overlap");
}

/* leaf (switch, 4 ports) with two CAs: hostA (2 ports, port 1 cabled) and hostB. */
static void build(struct cs_fabric *f, uint32_t *leaf, uint32_t *a, uint32_t *b)
{
    struct cs_error err;
    cs_fabric_init(f);
    *leaf = cs_fabric_add_node(f, CS_NODE_SWITCH, 0x100, 4, "leaf", &err);
    *a = cs_fabric_add_node(f, CS_NODE_CA, 0x1000, 2, "hostA", &err);
    *b = cs_fabric_add_node(f, CS_NODE_CA, 0x2000, 1, "hostB", &err);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, *a, 1), cs_fabric_port(f, *leaf, 1), &err), 0);
    assert_int_equal(
        cs_fabric_connect(f, cs_fabric_port(f, *b, 1), cs_fabric_port(f, *leaf, 2), &err), 0);
}

static void test_apply(void **state)
{
    (void)state;
    struct cs_fabric f;
    uint32_t leaf, a, b;
    build(&f, &leaf, &a, &b);
    struct cs_guid2lid g;
    /* port GUIDs follow ibsim's rule: switch port 0 = node GUID, CA port p = node GUID + p;
     * 0x9999 is a stale entry for a port that is gone. */
    parse_ok(&g, "0x0000000000002001 0x0004 0x0007\n\n"
                 "0x0000000000009999 0x0002 0x0002\n\n"
                 "0x0000000000000100 0x0001 0x0001\n\n"
                 "0x0000000000001002 0x0003 0x0003\n\n");
    struct cs_error err = {""};
    assert_int_equal(cs_guid2lid_apply(&g, &f, &err), 3);
    const struct cs_port *sw0 = &f.ports[cs_fabric_port(&f, leaf, 0)];
    const struct cs_port *a1 = &f.ports[cs_fabric_port(&f, a, 1)];
    const struct cs_port *a2 = &f.ports[cs_fabric_port(&f, a, 2)];
    const struct cs_port *b1 = &f.ports[cs_fabric_port(&f, b, 1)];
    assert_int_equal(sw0->lid, 1);
    assert_int_equal(sw0->lmc, 0);
    assert_int_equal(a1->lid, 0);
    assert_int_equal(a2->lid, 3); /* not cabled, but the file names it: OpenSM keeps it too */
    assert_int_equal(b1->lid, 4);
    assert_int_equal(b1->lmc, 2);
    assert_int_equal(cs_fabric_max_lid(&f), 7);

    /* from_fabric lists the LIDs back in fabric order (leaf, hostA port 2, hostB) */
    struct cs_guid2lid back;
    assert_int_equal(cs_guid2lid_from_fabric(&back, &f, &err), 0);
    char *text = write_string(&back);
    assert_string_equal(text, "0x0000000000000100 0x0001 0x0001\n\n"
                              "0x0000000000001002 0x0003 0x0003\n\n"
                              "0x0000000000002001 0x0004 0x0007\n\n");
    free(text);
    cs_guid2lid_free(&back);
    cs_guid2lid_free(&g);
    cs_fabric_free(&f);
}

static void expect_apply_error(const struct cs_guid2lid_entry *entries, uint32_t count,
                               const char *part)
{
    struct cs_fabric f, before;
    uint32_t leaf, a, b;
    struct cs_error err = {""};
    build(&f, &leaf, &a, &b);
    assert_int_equal(cs_fabric_copy(&before, &f, &err), 0);
    struct cs_guid2lid g = {(struct cs_guid2lid_entry *)entries, count, count};
    assert_int_equal(cs_guid2lid_apply(&g, &f, &err), -1);
    if (!strstr(err.msg, part))
        fail_msg("got \"%s\", expected \"...%s...\"", err.msg, part);
    assert_true(cs_fabric_equal(&f, &before, NULL)); /* nothing applied */
    cs_fabric_free(&f);
    cs_fabric_free(&before);
}

static void test_apply_errors(void **state)
{
    (void)state;
    const struct cs_guid2lid_entry three[] = {{0x2001, 4, 6}};
    expect_apply_error(three, 1, "not an aligned range");
    const struct cs_guid2lid_entry misaligned[] = {{0x2001, 5, 6}};
    expect_apply_error(misaligned, 1, "not an aligned range");
    const struct cs_guid2lid_entry shared[] = {{0x100, 1, 1}, {0x2001, 2, 3}, {0x1001, 3, 3}};
    expect_apply_error(shared, 3, "LID 0x0003 is given to both port 1 of 0x0000000000002000");
}

static void test_write_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/cs-g2l-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/guid2lid", dir);
    struct cs_guid2lid g;
    parse_ok(&g, "0x2 0x2 0x3\n");
    struct cs_error err;
    assert_int_equal(cs_guid2lid_write_file(path, &g, &err), 0);
    char *text = slurp(path);
    assert_string_equal(text, "0x0000000000000002 0x0002 0x0003\n\n");
    free(text);
    unlink(path);
    rmdir(dir);
    cs_guid2lid_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_files_round_trip),
        cmocka_unit_test(test_parse_and_write_exact),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_apply),
        cmocka_unit_test(test_apply_errors),
        cmocka_unit_test(test_write_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
