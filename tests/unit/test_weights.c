/* Node-weights files: what the reader accepts, what it rejects (file:line), lookups, the writer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloudsm/weights.h"
#include "testlib.h"

static void parse_ok(struct cs_node_weights *w, const char *text)
{
    struct cs_error err = {""};
    if (cs_node_weights_parse(w, text, strlen(text), "weights", &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_forms(void **state)
{
    (void)state;
    struct cs_node_weights w;
    parse_ok(&w, "# port GUID          weight\n"
                 "0x0010000000000201   1\n"
                 "  0x0010000000000101\t100   # the storage node\n"
                 "\n"
                 "12345 7#right after\r\n"
                 "0xABC 1000000");
    assert_int_equal(w.count, 4);
    /* sorted by GUID, each with the line it came from */
    assert_true(w.entries[0].guid == 0xabc);
    assert_int_equal(w.entries[0].weight, CS_WEIGHT_MAX);
    assert_int_equal(w.entries[0].line, 6);
    assert_true(w.entries[1].guid == 12345);
    assert_int_equal(w.entries[1].weight, 7);
    assert_true(w.entries[2].guid == UINT64_C(0x0010000000000101));
    assert_int_equal(w.entries[2].weight, 100);
    assert_int_equal(w.entries[2].line, 3);
    assert_true(w.entries[3].guid == UINT64_C(0x0010000000000201));
    assert_int_equal(w.entries[3].weight, 1);

    assert_int_equal(cs_node_weights_find(&w, UINT64_C(0x0010000000000101)), 100);
    assert_int_equal(cs_node_weights_find(&w, 0xabc), CS_WEIGHT_MAX);
    assert_int_equal(cs_node_weights_find(&w, 12345), 7);
    /* not named: the default, on either side of the named GUIDs and between them */
    assert_int_equal(cs_node_weights_find(&w, 1), CS_WEIGHT_DEFAULT);
    assert_int_equal(cs_node_weights_find(&w, 0xabd), CS_WEIGHT_DEFAULT);
    assert_int_equal(cs_node_weights_find(&w, UINT64_MAX), CS_WEIGHT_DEFAULT);
    assert_int_equal(cs_node_weights_find(NULL, 12345), CS_WEIGHT_DEFAULT);
    cs_node_weights_free(&w);
    assert_null(w.entries);
    assert_int_equal(w.count, 0);
}

static void expect_error(const char *text, const char *message)
{
    struct cs_node_weights w;
    struct cs_error err = {""};
    assert_int_equal(cs_node_weights_parse(&w, text, strlen(text), "weights", &err), -1);
    if (strcmp(err.msg, message) != 0)
        fail_msg("got \"%s\", expected \"%s\"", err.msg, message);
    assert_int_equal(w.count, 0);
    assert_null(w.entries);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("0x10 5\n0x11 0\n", "weights:2: weight 0 is not in 1..1000000");
    expect_error("0x10 5\n0x11 1000001\n", "weights:2: weight 1000001 is not in 1..1000000");
    expect_error("0x10 5\n0x11 12kg\n",
                 "weights:2: weight \"12kg\" is not a whole number from 1 to 1000000");
    expect_error("0x10 5\n0x11 0x10\n",
                 "weights:2: weight \"0x10\" is not a whole number from 1 to 1000000");
    expect_error("0x10 5\n0x11 -3\n",
                 "weights:2: weight \"-3\" is not a whole number from 1 to 1000000");
    expect_error("0x10 5\n0x11 99999999999999999999\n",
                 "weights:2: weight \"99999999999999999999\" is not a whole number from 1 to "
                 "1000000");
    expect_error("0x10 5\n0x11 3 4\n", "weights:2: unexpected \"4\" after the weight");
    expect_error("0x10 5\n0x11\n", "weights:2: a weight is missing after the port GUID");
    expect_error("0x10 5\n0x11 # none\n", "weights:2: a weight is missing after the port GUID");
    expect_error("0x10 5\nnode7 3\n", "weights:2: expected a port GUID (0x hex or decimal)");
    expect_error("0x10 5\n0x0 3\n", "weights:2: GUID 0 is not a valid port GUID");
    expect_error("0x10 5\n# c\n0x11 6\n16 7\n",
                 "weights:4: port GUID 0x0000000000000010 is given twice (line 1)");
    /* the first duplicate in input order, whatever the GUIDs' order */
    expect_error("0x20 1\n0x10 1\n0x10 2\n0x20 3\n",
                 "weights:3: port GUID 0x0000000000000010 is given twice (line 2)");
    /* a file without an entry, and a first line that is not one, say what the file is */
    expect_error("", "weights: expected a weights file (\"<port GUID> <weight>\" lines); found an "
                     "empty file");
    expect_error("# nothing\n\n",
                 "weights: expected a weights file (\"<port GUID> <weight>\" lines); found only "
                 "blank lines and comments");
    expect_error("0x0002c90000001001 0x0003 0x0003\n",
                 "weights:1: weight \"0x0003\" is not a whole number from 1 to 1000000 (expected "
                 "a weights file of \"<port GUID> <weight>\" lines; found an OpenSM guid2lid "
                 "file)");
    expect_error("0x10\t3 \x01\n", "weights:1: unexpected \"\\x01\" after the weight (expected a "
                                   "weights file of \"<port GUID> <weight>\" lines; found text "
                                   "starting \"0x10\\t3 \\x01\")");
}

static int write_weights(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_node_weights_write(out, ctx, err);
}

static void test_add_sort_write(void **state)
{
    (void)state;
    struct cs_node_weights w;
    struct cs_error err = {""};
    cs_node_weights_init(&w);
    assert_int_equal(cs_node_weights_add(&w, 0x30, 3, &err), 0);
    assert_int_equal(cs_node_weights_add(&w, 0x10, 1, &err), 0);
    assert_int_equal(cs_node_weights_add(&w, 0x20, CS_WEIGHT_MAX, &err), 0);
    assert_int_equal(cs_node_weights_add(&w, 0x40, 0, &err), -1);
    assert_string_equal(err.msg, "port 0x0000000000000040: weight 0 is not in 1..1000000");
    assert_int_equal(cs_node_weights_add(&w, 0x40, CS_WEIGHT_MAX + 1, &err), -1);
    assert_int_equal(cs_node_weights_add(&w, 0, 5, &err), -1);
    assert_int_equal(w.count, 3);
    assert_int_equal(cs_node_weights_sort(&w, "made", &err), 0);
    assert_int_equal(cs_node_weights_find(&w, 0x20), CS_WEIGHT_MAX);

    char *text = capture(write_weights, &w);
    assert_string_equal(text, "# port GUID          weight\n"
                              "0x0000000000000010 1\n"
                              "0x0000000000000020 1000000\n"
                              "0x0000000000000030 3\n");
    /* what the writer writes reads back the same */
    struct cs_node_weights again;
    parse_ok(&again, text);
    assert_int_equal(again.count, w.count);
    for (uint32_t i = 0; i < w.count; i++) {
        assert_true(again.entries[i].guid == w.entries[i].guid);
        assert_int_equal(again.entries[i].weight, w.entries[i].weight);
    }
    free(text);
    cs_node_weights_free(&again);

    /* a GUID added twice in memory: no lines to name */
    assert_int_equal(cs_node_weights_add(&w, 0x20, 2, &err), 0);
    assert_int_equal(cs_node_weights_sort(&w, "made", &err), -1);
    assert_string_equal(err.msg, "made: port GUID 0x0000000000000020 is given twice");
    cs_node_weights_free(&w);
}

static void test_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/cloudsm-test-weights.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], gz[160];
    snprintf(path, sizeof path, "%s/weights.txt", dir);
    snprintf(gz, sizeof gz, "%s/weights.txt.gz", dir);

    struct cs_node_weights w, back;
    struct cs_error err = {""};
    parse_ok(&w, "0x2 50\n0x1 7\n");
    assert_int_equal(cs_node_weights_write_file(path, &w, &err), 0);
    if (cs_node_weights_read(&back, path, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(back.count, 2);
    assert_int_equal(cs_node_weights_find(&back, 2), 50);
    assert_int_equal(back.entries[1].line, 3); /* after the header comment */
    cs_node_weights_free(&back);

    /* gzip reads the same */
    char command[512];
    snprintf(command, sizeof command, "gzip -c '%s' > '%s'", path, gz);
    assert_int_equal(system(command), 0);
    if (cs_node_weights_read(&back, gz, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cs_node_weights_find(&back, 1), 7);
    cs_node_weights_free(&back);

    /* a write that fails leaves the old file whole: a directory is not writable as a file */
    char missing[192];
    snprintf(missing, sizeof missing, "%s/no-such-dir/weights.txt", dir);
    assert_int_equal(cs_node_weights_write_file(missing, &w, &err), -1);
    assert_int_equal(cs_node_weights_read(&back, missing, &err), -1);
    cs_node_weights_free(&w);

    unlink(path);
    unlink(gz);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forms),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_add_sort_write),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
