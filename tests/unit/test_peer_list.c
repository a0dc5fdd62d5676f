/* Peer addresses and peer list files (cloudsm pathcache --peers). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/peer_list.h"

static void test_addresses(void **state)
{
    (void)state;
    struct cs_peer_address a;
    struct cs_error err = {""};
    assert_int_equal(cs_peer_address_parse("fe80::200:0:0:1", &a, &err), 0);
    assert_int_equal(a.kind, CS_PEER_GID);
    const uint8_t gid[16] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0, 0, 0, 0, 0, 0, 1};
    assert_memory_equal(a.gid, gid, 16);
    assert_int_equal(cs_peer_address_parse("0x0010000000000101", &a, &err), 0);
    assert_int_equal(a.kind, CS_PEER_GUID);
    assert_true(a.guid == UINT64_C(0x0010000000000101));
    assert_int_equal(cs_peer_address_parse("0X1f", &a, &err), 0);
    assert_true(a.kind == CS_PEER_GUID && a.guid == 0x1f);
    assert_int_equal(cs_peer_address_parse("lid:12", &a, &err), 0);
    assert_true(a.kind == CS_PEER_LID && a.lid == 12);
    assert_int_equal(cs_peer_address_parse("49151", &a, &err), 0);
    assert_true(a.kind == CS_PEER_LID && a.lid == 49151);

    const struct {
        const char *text, *msg;
    } bad[] = {
        {"", "an empty address"},
        {"lid:0", "a LID is 1 to 49151"},
        {"49152", "a LID is 1 to 49151"},
        {"lid:", "a LID is 1 to 49151"},
        {"lid:0x5", "a LID is 1 to 49151"},
        {"0x0", "not a port GUID (0x and up to 16 hex digits, not 0)"},
        {"0x", "not a port GUID (0x and up to 16 hex digits, not 0)"},
        {"0x00100000000001011", "not a port GUID (0x and up to 16 hex digits, not 0)"},
        {"0x12g", "not a port GUID (0x and up to 16 hex digits, not 0)"},
        {"fe80::1::2", "not a GID, a port GUID (0x...) or a LID (lid:N)"},
        {"vm-1", "not a GID, a port GUID (0x...) or a LID (lid:N)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(cs_peer_address_parse(bad[i].text, &a, &err), -1);
        if (strcmp(err.msg, bad[i].msg) != 0)
            fail_msg("'%s': got \"%s\", expected \"%s\"", bad[i].text, err.msg, bad[i].msg);
    }

    struct cs_peer_address b;
    cs_peer_address_parse("0x0010000000000101", &a, &err);
    cs_peer_address_parse("0x10000000000101", &b, &err);
    assert_true(cs_peer_address_equal(&a, &b));
    cs_peer_address_parse("lid:7", &b, &err);
    assert_false(cs_peer_address_equal(&a, &b));
    cs_peer_address_parse("7", &a, &err);
    assert_true(cs_peer_address_equal(&a, &b));
}

static void parse_ok(struct cs_peer_list *l, const char *text)
{
    struct cs_error err = {""};
    if (cs_peer_list_parse(l, text, strlen(text), "peers", &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_forms(void **state)
{
    (void)state;
    struct cs_peer_list l;
    parse_ok(&l, "# the VM, by its GID\n"
                 "fe80::200:0:0:1   vm-1\n"
                 "  0x0010000000000101\tdb # the database\r\n"
                 "\n"
                 "lid:12 lb#no blank before the comment\n"
                 "12 10.0.0.12");
    assert_int_equal(l.count, 4);
    assert_string_equal(l.peers[0].name, "vm-1");
    assert_string_equal(l.peers[0].text, "fe80::200:0:0:1");
    assert_int_equal(l.peers[0].address.kind, CS_PEER_GID);
    assert_int_equal(l.peers[0].line, 2);
    assert_string_equal(l.peers[1].name, "db");
    assert_true(l.peers[1].address.guid == UINT64_C(0x0010000000000101));
    assert_string_equal(l.peers[2].name, "lb");
    assert_int_equal(l.peers[2].address.lid, 12);
    assert_int_equal(l.peers[2].line, 5);
    assert_string_equal(l.peers[3].name, "10.0.0.12");
    assert_true(cs_peer_address_equal(&l.peers[2].address, &l.peers[3].address));

    /* Written out and read back: the same peers. */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct cs_error err;
    assert_int_equal(cs_peer_list_write(out, &l, &err), 0);
    fclose(out);
    assert_string_equal(text, "fe80::200:0:0:1 vm-1\n0x0010000000000101 db\nlid:12 lb\n"
                              "12 10.0.0.12\n");
    struct cs_peer_list again;
    parse_ok(&again, text);
    assert_int_equal(again.count, l.count);
    for (uint32_t i = 0; i < l.count; i++) {
        assert_string_equal(again.peers[i].name, l.peers[i].name);
        assert_true(cs_peer_address_equal(&again.peers[i].address, &l.peers[i].address));
    }
    free(text);
    cs_peer_list_free(&again);
    cs_peer_list_free(&l);

    parse_ok(&l, "# nothing\n\n");
    assert_int_equal(l.count, 0);
    cs_peer_list_free(&l);
}

static void expect_error(const char *text, const char *message)
{
    struct cs_peer_list l;
    struct cs_error err = {""};
    assert_int_equal(cs_peer_list_parse(&l, text, strlen(text), "peers", &err), -1);
    if (strcmp(err.msg, message) != 0)
        fail_msg("got \"%s\", expected \"%s\"", err.msg, message);
    assert_int_equal(l.count, 0);
    assert_null(l.peers);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("fe80::200:0:0:1 vm\nfe80::1::2 b\n",
                 "peers:2: peer address \"fe80::1::2\": not a GID, a port GUID (0x...) or a LID "
                 "(lid:N)");
    expect_error("lid:0 a\n", "peers:1: peer address \"lid:0\": a LID is 1 to 49151");
    expect_error("0x10\n", "peers:1: expected a name after the address (ADDRESS NAME)");
    expect_error("0x10 # a comment, no name\n",
                 "peers:1: expected a name after the address (ADDRESS NAME)");
    expect_error("0x10 a b\n", "peers:1: unexpected \"b\" after the name");
    expect_error("0x10 a\n0x11 b\n# c\n0x12 a\n", "peers:4: peer name 'a' is used twice (line 1)");
    expect_error("0x10 caf\xc3\xa9\n", "peers:1: a name is 1 to 63 printable characters without "
                                       "blanks, not \"caf\\xc3\\xa9\"");
    char long_name[200];
    snprintf(long_name, sizeof long_name, "0x10 %064d\n", 7);
    expect_error(long_name, "peers:1: a name is 1 to 63 printable characters without blanks, not "
                            "\"0000000000000000000000000000000000000000000000000000000000000007\"");
    expect_error("fe80:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0001 a\n",
                 "peers:1: an address of at most 63 characters, not "
                 "\"fe80:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0000:0001\"");
}

/* next (a list read again) against cur: refused with message. */
static void expect_mismatch(const struct cs_peer_list *cur, const char *next_text,
                            const char *message)
{
    struct cs_peer_list next;
    struct cs_error err = {""};
    uint32_t at[8];
    parse_ok(&next, next_text);
    assert_int_equal(cs_peer_list_match(cur, &next, "new", at, &err), -1);
    assert_string_equal(err.msg, message);
    cs_peer_list_free(&next);
}

static void test_match(void **state)
{
    (void)state;
    struct cs_peer_list cur, next;
    struct cs_error err = {""};
    uint32_t at[3];
    parse_ok(&cur, "fe80::200:0:0:1 vm\n0x10 db\nlid:5 lb\n");
    parse_ok(&next, "lid:6 lb\nfe80::200:0:0:2 vm\n0x10 db\n");
    assert_int_equal(cs_peer_list_match(&cur, &next, "new", at, &err), 0);
    assert_int_equal(at[0], 1);
    assert_int_equal(at[1], 2);
    assert_int_equal(at[2], 0);
    assert_false(cs_peer_address_equal(&cur.peers[0].address, &next.peers[at[0]].address));
    assert_true(cs_peer_address_equal(&cur.peers[1].address, &next.peers[at[1]].address));
    cs_peer_list_free(&next);

    expect_mismatch(&cur, "0x10 db\nlid:6 lb\n",
                    "new: peer 'vm' is missing (a reload changes addresses, not peers)");
    expect_mismatch(&cur, "0x10 db\nlid:6 lb\nfe80::200:0:0:1 vm\n0x11 web\n",
                    "new:4: peer 'web' is new (a reload changes addresses, not peers)");
    expect_mismatch(&cur, "0x10 db\nlid:6 lb\nfe80::200:0:0:1 vm2\n",
                    "new: peer 'vm' is missing (a reload changes addresses, not peers)");
    cs_peer_list_free(&cur);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_addresses),
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
