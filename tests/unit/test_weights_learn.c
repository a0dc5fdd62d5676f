/* Learning node weights: the min-max map (pFTree-Wt's Eq. 1, corrected), the two snapshot forms
 * (perfquery -x output, CSV) and what learning from two of them refuses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/counters.h"
#include "cloudsm/weights.h"

static void test_scale(void **state)
{
    (void)state;
    /* the ends map to a and b */
    assert_int_equal(cs_weight_scale(10, 10, 110, 1, 100), 1);
    assert_int_equal(cs_weight_scale(110, 10, 110, 1, 100), 100);
    /* (x - min) * (b - a) / (max - min) + a: 50 * 99 / 100 + 1 = 50.5 -> 51 (a half rounds up) */
    assert_int_equal(cs_weight_scale(60, 10, 110, 1, 100), 51);
    /* 49 * 99 / 100 + 1 = 49.51 -> 50; 1 * 99 / 100 + 1 = 1.99 -> 2; 0.5 * 99 ... */
    assert_int_equal(cs_weight_scale(59, 10, 110, 1, 100), 50);
    assert_int_equal(cs_weight_scale(11, 10, 110, 1, 100), 2);
    /* 1 * 4 / 8 + 1 = 1.5 -> 2 (half up); 1 * 4 / 9 + 1 = 1.44 -> 1 */
    assert_int_equal(cs_weight_scale(1, 0, 8, 1, 5), 2);
    assert_int_equal(cs_weight_scale(1, 0, 9, 1, 5), 1);
    /* Eq. 1 as printed in the paper would not give b at max; the corrected form does for any
     * [a, b] */
    assert_int_equal(cs_weight_scale(7, 3, 7, 20, 30), 30);
    assert_int_equal(cs_weight_scale(5, 3, 7, 20, 30), 25);
    /* every port measured the same: all weigh a (no division by zero) */
    assert_int_equal(cs_weight_scale(42, 42, 42, 1, 100), 1);
    assert_int_equal(cs_weight_scale(42, 42, 42, 9, 100), 9);
    /* a == b: all weigh a */
    assert_int_equal(cs_weight_scale(5, 0, 10, 7, 7), 7);
    /* the full 64-bit range and the full weight range do not overflow */
    assert_int_equal(cs_weight_scale(UINT64_MAX, 0, UINT64_MAX, 1, CS_WEIGHT_MAX), CS_WEIGHT_MAX);
    assert_int_equal(cs_weight_scale(UINT64_MAX / 2, 0, UINT64_MAX, 1, CS_WEIGHT_MAX), 500000);
    assert_int_equal(cs_weight_scale(UINT64_MAX / 2 + 1, 0, UINT64_MAX, 1, CS_WEIGHT_MAX), 500001);
}

static const char guid2lid_text[] = "0x0002c9000b000101 0x0002 0x0002\n\n"
                                    "0x0002c9000b000201 0x0003 0x0003\n\n"
                                    "0x0002c9000a000101 0x0001 0x0001\n\n"
                                    "0x0002c9000b000301 0x0004 0x0007\n\n";

static void parse_snapshot(struct cs_counter_snapshot *s, const char *text, const char *name,
                           const struct cs_guid2lid *lids)
{
    struct cs_error err = {""};
    if (cs_counter_snapshot_parse(s, text, strlen(text), name, lids, &err) != 0)
        fail_msg("%s", err.msg);
}

static void load_lids(struct cs_guid2lid *lids)
{
    struct cs_error err = {""};
    if (cs_guid2lid_parse(lids, guid2lid_text, strlen(guid2lid_text), "guid2lid", &err) != 0)
        fail_msg("%s", err.msg);
}

/* One record as perfquery -x prints it (infiniband-diags 44 on ibsim). */
#define RECORD(lid, port, rcv)                                                                     \
    "# Port extended counters: Lid " #lid " port " #port                                           \
    " (CapMask: 0x1200 CapMask2: 0x0000000)\n"                                                     \
    "PortSelect:......................" #port "\n"                                                 \
    "CounterSelect:...................0x0000\n"                                                    \
    "PortXmitData:....................936\n"                                                       \
    "PortRcvData:....................." #rcv "\n"                                                  \
    "PortXmitPkts:....................13\n"                                                        \
    "PortRcvPkts:.....................14\n"

static void test_perfquery(void **state)
{
    (void)state;
    struct cs_guid2lid lids;
    load_lids(&lids);
    struct cs_counter_snapshot s;
    /* LID 6 is inside the LMC range 4..7 of the third host port */
    parse_snapshot(&s, RECORD(3, 1, 1008) RECORD(2, 1, 18446744073709551615) RECORD(6, 1, 5),
                   "before", &lids);
    assert_string_equal(s.name, "before");
    assert_int_equal(s.count, 3);
    assert_true(s.ports[0].guid == UINT64_C(0x0002c9000b000101));
    assert_true(s.ports[0].rcv_data == UINT64_MAX);
    assert_int_equal(s.ports[0].lid, 2);
    assert_int_equal(s.ports[0].line, 8);
    assert_true(s.ports[1].guid == UINT64_C(0x0002c9000b000201));
    assert_true(s.ports[1].rcv_data == 1008);
    assert_int_equal(s.ports[1].line, 1);
    assert_true(s.ports[2].guid == UINT64_C(0x0002c9000b000301));
    assert_true(s.ports[2].rcv_data == 5);
    cs_counter_snapshot_free(&s);
    cs_guid2lid_free(&lids);
}

static void test_csv(void **state)
{
    (void)state;
    struct cs_counter_snapshot s;
    parse_snapshot(&s,
                   "# taken at 10:00\n"
                   "port_guid,rcv_data\n"
                   "0x0002c9000b000201,100\n"
                   "  0x0002c9000b000101 , 7 \r\n"
                   "\n"
                   "12,0\n",
                   "before.csv", NULL);
    assert_int_equal(s.count, 3);
    assert_true(s.ports[0].guid == 12);
    assert_true(s.ports[0].rcv_data == 0);
    assert_int_equal(s.ports[0].line, 6);
    assert_true(s.ports[1].guid == UINT64_C(0x0002c9000b000101));
    assert_true(s.ports[1].rcv_data == 7);
    assert_true(s.ports[2].rcv_data == 100);
    cs_counter_snapshot_free(&s);
    /* the header is optional */
    parse_snapshot(&s, "0x5,1\n", "x", NULL);
    assert_int_equal(s.count, 1);
    cs_counter_snapshot_free(&s);
}

static void expect_snapshot_error(const char *text, bool with_lids, const char *message)
{
    struct cs_guid2lid lids;
    load_lids(&lids);
    struct cs_counter_snapshot s;
    struct cs_error err = {""};
    assert_int_equal(
        cs_counter_snapshot_parse(&s, text, strlen(text), "snap", with_lids ? &lids : NULL, &err),
        -1);
    if (strcmp(err.msg, message) != 0)
        fail_msg("got \"%s\", expected \"%s\"", err.msg, message);
    assert_int_equal(s.count, 0);
    assert_null(s.ports);
    assert_null(s.name);
    cs_guid2lid_free(&lids);
}

static void test_snapshot_errors(void **state)
{
    (void)state;
    expect_snapshot_error(RECORD(2, 1, 5), false,
                          "snap:1: perfquery output names ports by LID: a guid2lid file is needed "
                          "to map LIDs to port GUIDs");
    expect_snapshot_error(RECORD(2, 1, 5) RECORD(9, 1, 5), true,
                          "snap:8: LID 9 is not in the guid2lid file: no port GUID for it");
    /* two records of one port GUID: a switch's ports share its LID */
    expect_snapshot_error(RECORD(1, 1, 5) RECORD(1, 2, 5), true,
                          "snap:8: port GUID 0x0002c9000a000101 is counted twice (line 1)");
    expect_snapshot_error(RECORD(1, 255, 5), true,
                          "snap:1: port 255 is the sum over all ports of a node (perfquery -a): "
                          "capture each end port on its own");
    expect_snapshot_error(
        "# Port extended counters: Lid 2 port 1\nPortXmitData:....1\n" RECORD(3, 1, 5), true,
        "snap:1: the perfquery record of LID 2 has no PortRcvData line");
    expect_snapshot_error(RECORD(3, 1, 5) "# Port extended counters: Lid 2 port 1\n", true,
                          "snap:8: the perfquery record of LID 2 has no PortRcvData line");
    expect_snapshot_error("# Port extended counters: Lid 2 port 1\nPortRcvData:.....12x\n", true,
                          "snap:2: PortRcvData \"12x\" is not a whole number");
    expect_snapshot_error(
        "# Port extended counters: Lid 2 port 1\nPortRcvData:...1\nPortRcvData:...2\n", true,
        "snap:3: a second PortRcvData line in one perfquery record");
    expect_snapshot_error("# Port extended counters: Lid 2 port 1\nPortRcvData:...1\ngarbage\n",
                          true,
                          "snap:3: expected a perfquery counter line (\"Name:....value\"), not "
                          "\"garbage\"");
    expect_snapshot_error("# Port extended counters: DR path slid 0; dlid 0; 0,1 port 1\n", true,
                          "snap:1: expected \"Lid N port P\" after \"# Port extended counters:\" "
                          "(perfquery -x by LID, not by directed route)");
    expect_snapshot_error("# Port counters: Lid 2 port 1 (CapMask: 0x1200)\n", true,
                          "snap:1: perfquery without -x: its 32-bit counters stop at their "
                          "maximum; capture perfquery -x (PortCountersExtended)");
    expect_snapshot_error("0x10,5\n" RECORD(2, 1, 5), true,
                          "snap:2: a perfquery record in a CSV snapshot: a snapshot is one or the "
                          "other");
    expect_snapshot_error("port_guid,rcv_data\n0x10,5\n0x11;6\n", false,
                          "snap:3: expected \"port GUID,rcv_data\", not \"0x11;6\"");
    expect_snapshot_error(
        "0x10,5\n0x11,-6\n", false,
        "snap:2: rcv_data \"-6\" is not a whole number (PortRcvData: octets / 4)");
    expect_snapshot_error(
        "0x10,5\n0x11,6,7\n", false,
        "snap:2: rcv_data \"6,7\" is not a whole number (PortRcvData: octets / 4)");
    expect_snapshot_error("0x0,5\n", false, "snap:1: GUID 0 is not a valid port GUID");
    expect_snapshot_error("0x10,5\n16,6\n", false,
                          "snap:2: port GUID 0x0000000000000010 is counted twice (line 1)");
    expect_snapshot_error("Switch 4 \"leaf0\"\n", false,
                          "snap:1: expected a port counter snapshot (perfquery -x output or "
                          "\"port_guid,rcv_data\" CSV lines); found a topology");
    expect_snapshot_error("# nothing here\nport_guid,rcv_data\n", false,
                          "snap: expected a port counter snapshot (perfquery -x output or "
                          "\"port_guid,rcv_data\" CSV lines); found no port in text starting "
                          "\"port_guid,rcv_data\"");
    expect_snapshot_error("", false,
                          "snap: expected a port counter snapshot (perfquery -x output or "
                          "\"port_guid,rcv_data\" CSV lines); found no port in an empty file");
}

static void learn_ok(const char *before_text, const char *after_text, uint32_t a, uint32_t b,
                     struct cs_node_weights *w, uint64_t **received)
{
    struct cs_counter_snapshot before, after;
    parse_snapshot(&before, before_text, "before", NULL);
    parse_snapshot(&after, after_text, "after", NULL);
    struct cs_error err = {""};
    if (cs_node_weights_learn(w, received, &before, &after, a, b, &err) != 0)
        fail_msg("%s", err.msg);
    cs_counter_snapshot_free(&before);
    cs_counter_snapshot_free(&after);
}

static void test_learn(void **state)
{
    (void)state;
    struct cs_node_weights w;
    uint64_t *received;
    /* increases 100, 300, 500, 150 (min 100, max 500): (x - 100) * 99 / 400 + 1 */
    learn_ok("0x1,1000\n0x2,2000\n0x3,0\n0x4,50\n", "0x4,200\n0x3,500\n0x2,2300\n0x1,1100\n", 1,
             100, &w, &received);
    assert_int_equal(w.count, 4);
    assert_true(w.entries[0].guid == 1 && received[0] == 100);
    assert_int_equal(w.entries[0].weight, 1);
    assert_true(received[1] == 300);
    assert_int_equal(w.entries[1].weight, 51); /* 49.5 + 1 = 50.5 -> 51 */
    assert_int_equal(w.entries[2].weight, 100);
    assert_int_equal(w.entries[3].weight, 13); /* 12.375 + 1 -> 13 */
    assert_int_equal(cs_node_weights_find(&w, 4), 13);
    free(received);
    cs_node_weights_free(&w);

    /* other ranges */
    learn_ok("0x1,0\n0x2,0\n0x3,0\n", "0x1,0\n0x2,5\n0x3,10\n", 10, 20, &w, NULL);
    assert_int_equal(w.entries[0].weight, 10);
    assert_int_equal(w.entries[1].weight, 15);
    assert_int_equal(w.entries[2].weight, 20);
    cs_node_weights_free(&w);

    /* nobody received more than anyone else: all weigh a */
    learn_ok("0x1,7\n0x2,9\n", "0x1,17\n0x2,19\n", 3, 100, &w, NULL);
    assert_int_equal(w.entries[0].weight, 3);
    assert_int_equal(w.entries[1].weight, 3);
    cs_node_weights_free(&w);
}

static void expect_learn_error(const char *before_text, const char *after_text, uint32_t a,
                               uint32_t b, const char *message)
{
    struct cs_counter_snapshot before, after;
    parse_snapshot(&before, before_text, "before", NULL);
    parse_snapshot(&after, after_text, "after", NULL);
    struct cs_node_weights w;
    uint64_t *received = (uint64_t *)&w; /* must come back NULL */
    struct cs_error err = {""};
    assert_int_equal(cs_node_weights_learn(&w, &received, &before, &after, a, b, &err), -1);
    if (strcmp(err.msg, message) != 0)
        fail_msg("got \"%s\", expected \"%s\"", err.msg, message);
    assert_null(received);
    assert_int_equal(w.count, 0);
    assert_null(w.entries);
    cs_counter_snapshot_free(&before);
    cs_counter_snapshot_free(&after);
}

static void test_learn_errors(void **state)
{
    (void)state;
    expect_learn_error("0x1,5\n0x2,5\n", "0x1,6\n", 1, 100,
                       "before:2: port 0x0000000000000002 is not in after: both snapshots must "
                       "count the same ports");
    expect_learn_error("0x2,5\n", "0x1,6\n0x2,6\n", 1, 100,
                       "after:1: port 0x0000000000000001 is not in before: both snapshots must "
                       "count the same ports");
    expect_learn_error("0x1,5\n0x2,500\n", "0x1,6\n0x2,499\n", 1, 100,
                       "after:2: port 0x0000000000000002: PortRcvData went down from 500 "
                       "(before:2) to 499; were the counters reset between the snapshots?");
    expect_learn_error("0x1,5\n", "0x1,6\n", 0, 100,
                       "weights from 0 to 100: need 1 <= a <= b <= 1000000");
    expect_learn_error("0x1,5\n", "0x1,6\n", 50, 49,
                       "weights from 50 to 49: need 1 <= a <= b <= 1000000");
    expect_learn_error("0x1,5\n", "0x1,6\n", 1, CS_WEIGHT_MAX + 1,
                       "weights from 1 to 1000001: need 1 <= a <= b <= 1000000");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale), cmocka_unit_test(test_perfquery),
        cmocka_unit_test(test_csv),   cmocka_unit_test(test_snapshot_errors),
        cmocka_unit_test(test_learn), cmocka_unit_test(test_learn_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
