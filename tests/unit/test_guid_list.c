/* GUID list files, read as OpenSM's parse_node_map reads root/cn/io GUID files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/guid_list.h"

static void parse_ok(struct cs_guid_list *l, const char *text)
{
    struct cs_error err = {""};
    if (cs_guid_list_parse(l, text, strlen(text), "roots", &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_forms(void **state)
{
    (void)state;
    struct cs_guid_list l;
    parse_ok(&l, "# roots of the spine\n"
                 "0x0020000300000000 spine-0\n"
                 "  0x0020000300000001\t# trailing comment\n"
                 "\n"
                 "12345\n"
                 "0xABCDEF#name right after\r\n"
                 "0x7");
    assert_int_equal(l.count, 5);
    assert_true(l.guids[0] == UINT64_C(0x0020000300000000));
    assert_true(l.guids[1] == UINT64_C(0x0020000300000001));
    assert_int_equal(l.guids[2], 12345);
    assert_int_equal(l.guids[3], 0xabcdef);
    assert_int_equal(l.guids[4], 7);
    cs_guid_list_free(&l);
    parse_ok(&l, "");
    assert_int_equal(l.count, 0);
    cs_guid_list_free(&l);
}

static void expect_error(const char *text, const char *message)
{
    struct cs_guid_list l;
    struct cs_error err = {""};
    assert_int_equal(cs_guid_list_parse(&l, text, strlen(text), "roots", &err), -1);
    if (strcmp(err.msg, message) != 0)
        fail_msg("got \"%s\", expected \"%s\"", err.msg, message);
    assert_int_equal(l.count, 0);
    assert_null(l.guids);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("0x10\nspine\n", "roots:2: expected a GUID (0x hex or decimal)");
    expect_error("0x10x\n", "roots:1: expected a GUID (0x hex or decimal)");
    expect_error("0x0\n", "roots:1: GUID 0 is not a valid GUID");
    expect_error("0x10000000000000000\n", "roots:1: expected a GUID (0x hex or decimal)");
    expect_error("0x5\n# c\n0x6\n5\n", "roots:4: GUID 0x0000000000000005 is listed twice (line 1)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
