/* OpenSM's QoS policy file, its qos-ulps section (src/sm/qos_policy.c): each rule kind and the
 * ranges it stands for, errors with their line and column, rule order and the SL lookup; and the
 * policy in the SA's PathRecords (src/sa/sa_path.c) on the PGFT of sm_fixtures.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "cloudsm/qos_policy.h"
#include "sa_rig.h"

static struct cs_qos_policy *parse_ok(const char *text)
{
    struct cs_qos_policy *p = NULL;
    struct cs_error err = {""};
    if (cs_qos_policy_parse(text, strlen(text), "qos-policy.conf", &p, &err) != 0)
        fail_msg("%s", err.msg);
    assert_non_null(p);
    return p;
}

static void expect_error(const char *text, const char *msg)
{
    struct cs_qos_policy *p = (struct cs_qos_policy *)1;
    struct cs_error err = {""};
    assert_int_equal(cs_qos_policy_parse(text, strlen(text), "qos-policy.conf", &p, &err), -1);
    assert_null(p);
    if (strstr(err.msg, msg) == NULL)
        fail_msg("expected \"%s\" in \"%s\"", msg, err.msg);
}

static void expect_range(const struct cs_qos_policy *p, uint32_t rule, uint32_t i, uint64_t lo,
                         uint64_t hi)
{
    assert_true(i < p->rules[rule].count);
    const struct cs_qos_range *r = &p->ranges[p->rules[rule].first + i];
    assert_true(r->lo == lo);
    assert_true(r->hi == hi);
}

/* Every rule of OpenSM's documented example, with what each stands for. */
static void test_rule_kinds(void **state)
{
    (void)state;
    struct cs_qos_policy *p = parse_ok("# every kind\n"
                                       "qos-ulps\n"
                                       "    default                       : 9 # default SL\n"
                                       "    sdp, port-num 30000           : 1\n"
                                       "    sdp, port-num 10000-20000     : 2\n"
                                       "    sdp                           : 3\n"
                                       "    rds                           : 4\n"
                                       "    rds, port-num 0x10            : 5\n"
                                       "    iser, port-num 900            : 6\n"
                                       "    iser                          : 7\n"
                                       "    ipoib, pkey 0x8001            : 8\n"
                                       "    ipoib                         : 10\n"
                                       "    any, service-id 0x6234        : 11\n"
                                       "    any, pkey 0x0ABC              : 12\n"
                                       "    srp, target-port-guid 0x1234  : 13\n"
                                       "    any, target-port-guid 0x0ABC-0xFFFFF : 14\n"
                                       "    any, source-port-guid 0x5678  : 15\n"
                                       "end-qos-ulps\n");
    assert_int_equal(p->default_sl, 9);
    assert_int_equal(p->num_rules, 14);
    static const struct {
        enum cs_qos_match match;
        uint8_t sl;
        uint64_t lo, hi;
    } want[] = {
        {CS_QOS_MATCH_SERVICE_ID, 1, 0x10000 + 30000, 0x10000 + 30000},
        {CS_QOS_MATCH_SERVICE_ID, 2, 0x10000 + 10000, 0x10000 + 20000},
        {CS_QOS_MATCH_SERVICE_ID, 3, 0x10000, 0x1ffff},
        {CS_QOS_MATCH_SERVICE_ID, 4, 0x10648ca, 0x10648ca},
        {CS_QOS_MATCH_SERVICE_ID, 5, 0x1060010, 0x1060010},
        {CS_QOS_MATCH_SERVICE_ID, 6, 0x1060000 + 900, 0x1060000 + 900},
        {CS_QOS_MATCH_SERVICE_ID, 7, 0x1060cbc, 0x1060cbc},
        {CS_QOS_MATCH_PKEY, 8, 0x0001, 0x0001}, /* the membership bit dropped */
        {CS_QOS_MATCH_PKEY, 10, 0x7fff, 0x7fff},
        {CS_QOS_MATCH_SERVICE_ID, 11, 0x6234, 0x6234},
        {CS_QOS_MATCH_PKEY, 12, 0x0abc, 0x0abc},
        {CS_QOS_MATCH_TARGET_GUID, 13, 0x1234, 0x1234},
        {CS_QOS_MATCH_TARGET_GUID, 14, 0x0abc, 0xfffff},
        {CS_QOS_MATCH_SOURCE_GUID, 15, 0x5678, 0x5678},
    };
    for (uint32_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(p->rules[i].match, want[i].match);
        assert_int_equal(p->rules[i].sl, want[i].sl);
        assert_int_equal(p->rules[i].count, 1);
        assert_int_equal(p->rules[i].line, i + 4);
        expect_range(p, i, 0, want[i].lo, want[i].hi);
    }
    cs_qos_policy_free(p);
}

/* Lists, reversed ranges, octal and hex numbers, any case for the ULP's name, blanks and line
 * breaks between tokens, several sections, a second default. */
static void test_ranges_and_layout(void **state)
{
    (void)state;
    struct cs_qos_policy *p = parse_ok("qos-ulps default:1 end-qos-ulps\n"
                                       "qos-ulps\n"
                                       "  ANY,service-id 0x20-0x10, 5 ,010\n"
                                       "     : 2\n"
                                       "  IPoIB\t,\tpkey 0xffff-0x8002 :3\n"
                                       "  Default : 4\n"
                                       "end-qos-ulps");
    assert_int_equal(p->default_sl, 4);
    assert_int_equal(p->num_rules, 2);
    assert_int_equal(p->rules[0].count, 3);
    expect_range(p, 0, 0, 0x10, 0x20);
    expect_range(p, 0, 1, 5, 5);
    expect_range(p, 0, 2, 8, 8); /* 010 is octal, as strtoull(.., 0) reads it */
    assert_int_equal(p->rules[0].sl, 2);
    expect_range(p, 1, 0, 0x0002, 0x7fff);
    assert_int_equal(p->rules[1].line, 5);
    cs_qos_policy_free(p);
}

/* Errors name the file, the line and the column, and leave no policy. */
static void test_errors(void **state)
{
    (void)state;
    expect_error("qos-ulps\n  default : 16\nend-qos-ulps\n",
                 "qos-policy.conf:2:13: illegal SL value 16 (0..15)");
    expect_error("qos-ulps\n  default : 0\n  sdp, port-num 70000 : 1\nend-qos-ulps\n",
                 "qos-policy.conf:3:17: sdp port number out of range (0..65535)");
    expect_error("qos-ulps\n  default : 0\n  srp : 1\nend-qos-ulps\n",
                 "qos-policy.conf:3:3: expected a rule or end-qos-ulps, found \"s\"");
    expect_error("qos-ulps\n  default : 0\n  any, pkey : 1\nend-qos-ulps\n",
                 "qos-policy.conf:3:13: expected a number, found ':'");
    expect_error("qos-ulps\n  default : 0\n  any, pkey 1 2 : 1\nend-qos-ulps\n",
                 "qos-policy.conf:3:15: expected ',' or ':', found the number 2");
    expect_error("qos-ulps\n  default : 0\n", "qos-policy.conf:2:14: expected a rule or "
                                              "end-qos-ulps, found the end of the file");
    expect_error("qos-ulps\nend-qos-ulps\n", "qos-policy.conf:2:1: expected a rule (qos-ulps is "
                                             "empty), found end-qos-ulps");
    expect_error("qos-ulps\n  sdp : 1\nend-qos-ulps\n",
                 "qos-policy.conf:3:1: no `default : SL` rule in qos-ulps");
    expect_error("# nothing\n", "qos-policy.conf:1:1: no qos-ulps section");
    expect_error("qos-ulps\n  default : 0x10000000000000000\nend-qos-ulps\n",
                 "qos-policy.conf:2:13: number \"0x10000000000000000\" is longer than 64 bits");
    /* The full policy's sections are refused, not skipped. */
    expect_error("qos-ulps default : 0 end-qos-ulps\n"
                 "qos-levels\n  qos-level\n    name: DEFAULT\n    sl: 3\n  end-qos-level\n"
                 "end-qos-levels\n",
                 "qos-policy.conf:2:1: qos-levels: cloudsm reads only the qos-ulps section");
    expect_error("port-groups\nend-port-groups\n", "qos-policy.conf:1:1: port-groups: cloudsm");
    expect_error("qos-ulps\n  default : 0\n  qos-match-rule\nend-qos-ulps\n",
                 "qos-policy.conf:3:3: qos-match-rule: cloudsm");
}

/* A file that cannot be read is the reader's error; a good one reads as the text does. */
static void test_read_file(void **state)
{
    (void)state;
    struct cs_qos_policy *p = NULL;
    struct cs_error err = {""};
    assert_int_equal(cs_qos_policy_read("/nonexistent/qos-policy.conf", &p, &err), -1);
    assert_null(p);
    char path[] = "/tmp/test_qos_policy_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char text[] = "qos-ulps\n default : 2\n any, pkey 0x1 : 3\nend-qos-ulps\n";
    assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    assert_int_equal(cs_qos_policy_read(path, &p, &err), 0);
    assert_int_equal(p->default_sl, 2);
    assert_int_equal(p->num_rules, 1);
    cs_qos_policy_free(p);
    unlink(path);
}

/* The first rule that matches wins; default only when none does; each rule needs its field in
 * the request (ServiceID, P_Key) and the path's port GUIDs for the port rules. */
static void test_lookup(void **state)
{
    (void)state;
    struct cs_qos_policy *p = parse_ok("qos-ulps\n"
                                       "  default : 1\n"
                                       "  sdp, port-num 5000 : 2\n"
                                       "  sdp : 3\n"
                                       "  ipoib, pkey 0x0005 : 4\n"
                                       "  any, source-port-guid 0x100-0x1ff : 5\n"
                                       "  any, target-port-guid 0x200 : 6\n"
                                       "  any, pkey 0x7fff : 7\n"
                                       "end-qos-ulps\n");
    struct cs_qos_path_query q = {.source_guid = 0x1, .target_guid = 0x2};
    assert_int_equal(cs_qos_policy_match(p, &q), -1);
    assert_int_equal(cs_qos_policy_sl(p, &q), 1);
    q.has_service_id = true;
    q.service_id = 0x10000 + 5000;
    assert_int_equal(cs_qos_policy_sl(p, &q), 2); /* before the sdp rule that also matches */
    q.service_id = 0x10000 + 5001;
    assert_int_equal(cs_qos_policy_sl(p, &q), 3);
    q.service_id = 0x20000;
    assert_int_equal(cs_qos_policy_sl(p, &q), 1);
    q.has_service_id = false;
    q.service_id = 0x10000; /* not in the component mask: the SDP rules do not look */
    assert_int_equal(cs_qos_policy_sl(p, &q), 1);
    q.pkey = 0x8005; /* not in the mask either */
    assert_int_equal(cs_qos_policy_sl(p, &q), 1);
    q.has_pkey = true;
    assert_int_equal(cs_qos_policy_sl(p, &q), 4); /* membership bit ignored */
    q.pkey = 0x0005;
    assert_int_equal(cs_qos_policy_sl(p, &q), 4);
    q.pkey = 0xffff;
    assert_int_equal(cs_qos_policy_sl(p, &q), 7);
    q.source_guid = 0x1ff; /* the source rule stands before the P_Key rule */
    assert_int_equal(cs_qos_policy_sl(p, &q), 5);
    assert_int_equal(cs_qos_policy_match(p, &q), 3);
    q.source_guid = 0x200;
    q.target_guid = 0x200;
    assert_int_equal(cs_qos_policy_sl(p, &q), 6);
    q.target_guid = 0x201;
    assert_int_equal(cs_qos_policy_sl(p, &q), 7);
    cs_qos_policy_free(p);
}

/* The ipoib rules' P_Keys must be partitions with two full members or more (OpenSM refuses the
 * file otherwise); the other P_Key rules may name any P_Key. */
static void test_check_partitions(void **state)
{
    (void)state;
    struct cs_resolved_partition parts[] = {
        {.name = "Default", .pkey = 0xffff, .full = 4},
        {.name = "Blue", .pkey = 0x8001, .full = 2},
        {.name = "Red", .pkey = 0x0002, .full = 1, .limited = 3},
    };
    struct cs_partition_set set = {.partitions = parts, .count = 3};
    struct cs_error err = {""};
    struct cs_qos_policy *p = parse_ok("qos-ulps default : 0\n ipoib : 1\n"
                                       " ipoib, pkey 0x0001 : 2\n any, pkey 0x0002-0x0009 : 3\n"
                                       "end-qos-ulps\n");
    assert_int_equal(cs_qos_policy_check_partitions(p, "q", &set, &err), 0);
    cs_qos_policy_free(p);
    p = parse_ok("qos-ulps default : 0\n ipoib : 1\n ipoib, pkey 0x0001-0x0002 : 2\n"
                 "end-qos-ulps\n");
    assert_int_equal(cs_qos_policy_check_partitions(p, "q", &set, &err), -1);
    assert_string_equal(err.msg, "q:3: ipoib rule: P_Key 0x0002 is no partition with two full "
                                 "members or more (OpenSM refuses the file then)");
    cs_qos_policy_free(p);
    p = parse_ok("qos-ulps default : 0\n ipoib, pkey 0x0003 : 2\nend-qos-ulps\n");
    assert_int_equal(cs_qos_policy_check_partitions(p, "q", &set, &err), -1);
    assert_non_null(strstr(err.msg, "q:2: ipoib rule: P_Key 0x0003"));
    cs_qos_policy_free(p);
    p = parse_ok("qos-ulps default : 0\n ipoib, pkey 0x0001-0x7fff : 2\nend-qos-ulps\n");
    assert_int_equal(cs_qos_policy_check_partitions(p, "q", &set, &err), -1);
    cs_qos_policy_free(p);
}

/* ---- In the SA ---- */

/* The policy gives every PathRecord its SL, over the partitions' SLs: by the request's ServiceID
 * and P_Key when its mask has them, by the path's port GUIDs; a request for another SL finds no
 * path, and a path whose reverse direction has another SL is not reversible. */
static void test_sa_path_sl(void **state)
{
    (void)state;
    struct cs_fabric f;
    gen_pgft(&f);
    struct rig r;
    rig_model(&r, &f);
    rig_partition(&r, "Default=0x7fff, ipoib : ALL, SELF=full ;\n"
                      "P1=0x0001 : 0x0010000000000001=full, 0x0010000000000101=full ;\n");
    uint8_t sls[2] = {3, 2};
    r.opt.partition_sl = sls;
    r.opt.num_partition_sl = 2;
    char text[512];
    snprintf(text, sizeof text,
             "qos-ulps\n"
             "  default : 1\n"
             "  any, service-id 0x100-0x1ff : 4\n"
             "  ipoib, pkey 0x0001 : 5\n"
             "  any, target-port-guid 0x%016" PRIx64 " : 6\n"
             "end-qos-ulps\n",
             HOST_PORT_GUID(2));
    struct cs_qos_policy *p = parse_ok(text);
    r.opt.qos_policy = p;
    rig_build_db(&r);

    uint16_t h0 = lid_of(&r, HOST_PORT_GUID(0)), h1 = lid_of(&r, HOST_PORT_GUID(1));
    uint16_t h2 = lid_of(&r, HOST_PORT_GUID(2)), h3 = lid_of(&r, HOST_PORT_GUID(3));
    struct cs_sa_path_record got;
    /* No rule: the default, not P1's or Default's SL. */
    assert_int_equal(path(&r, 0, h0, h1, &got), 0);
    assert_int_equal(got.pkey, 0x8001);
    assert_int_equal(got.sl, 1);
    assert_int_equal(path(&r, 0, h0, h3, &got), 0);
    assert_int_equal(got.sl, 1);
    /* By the P_Key, only when the request has it. */
    uint64_t lids = CS_SA_PR_SLID | CS_SA_PR_DLID;
    struct cs_sa_path_record want = {.slid = h0, .dlid = h1, .pkey = 0x8001};
    assert_int_equal(path_query(&r, 0, CS_SA_METHOD_GET, lids | CS_SA_PR_PKEY, &want, &got), 0);
    assert_int_equal(got.sl, 5);
    /* By the ServiceID (both halves of the mask), before the P_Key rule. */
    want.service_id = 0x180;
    assert_int_equal(path_query(&r, 0, CS_SA_METHOD_GET, lids | CS_SA_PR_PKEY | CS_SA_PR_SERVICE_ID,
                                &want, &got),
                     0);
    assert_int_equal(got.sl, 4);
    assert_true(got.service_id == 0x180);
    want.service_id = 0x200;
    assert_int_equal(path_query(&r, 0, CS_SA_METHOD_GET, lids | CS_SA_PR_PKEY | CS_SA_PR_SERVICE_ID,
                                &want, &got),
                     0);
    assert_int_equal(got.sl, 5);
    /* By the target port: toward host 2, not from it. */
    assert_int_equal(path(&r, 0, h0, h2, &got), 0);
    assert_int_equal(got.sl, 6);
    assert_true(got.reversible);
    assert_int_equal(path(&r, 0, h2, h0, &got), 0);
    assert_int_equal(got.sl, 1);
    /* An SL asked for: the policy's or no path; the reverse direction's SL differs: one-way. */
    uint64_t with_sl = lids | CS_SA_PR_SL;
    want = (struct cs_sa_path_record){.slid = h0, .dlid = h2, .sl = 1};
    assert_int_equal(path_query(&r, 0, CS_SA_METHOD_GET, with_sl, &want, NULL),
                     CS_SA_STATUS_NO_RECORDS);
    want.sl = 6;
    assert_int_equal(path_query(&r, 0, CS_SA_METHOD_GET, with_sl, &want, &got), 0);
    assert_int_equal(got.sl, 6);
    assert_false(got.reversible);
    want = (struct cs_sa_path_record){.slid = h0, .dlid = h1, .sl = 1};
    assert_int_equal(path_query(&r, 0, CS_SA_METHOD_GET, with_sl, &want, &got), 0);
    assert_true(got.reversible);
    /* Without the policy: the partitions' SLs again. */
    r.opt.qos_policy = NULL;
    rig_build_db(&r);
    assert_int_equal(path(&r, 0, h0, h1, &got), 0);
    assert_int_equal(got.sl, 2);
    rig_close(&r);
    cs_qos_policy_free(p);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rule_kinds), cmocka_unit_test(test_ranges_and_layout),
        cmocka_unit_test(test_errors),     cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_lookup),     cmocka_unit_test(test_check_partitions),
        cmocka_unit_test(test_sa_path_sl),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
