/* partitions.conf: OpenSM's grammar and meaning, the isolation extension, errors, writing back,
 * and resolution checked against the P_Key tables OpenSM 3.3.23 gave ibsim's ports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/partitions.h"
#include "cloudsm/topo_io.h"
#include "testlib.h"

static void parse_ok(struct cs_partitions *p, const char *text)
{
    struct cs_error err = {""};
    if (cs_partitions_parse(p, text, strlen(text), "p.conf", &err) != 0)
        fail_msg("%s", err.msg);
}

static const struct cs_partition *by_pkey(const struct cs_partitions *p, uint16_t pkey)
{
    uint32_t i = cs_partitions_find(p, pkey);
    if (i == CS_NONE)
        fail_msg("no partition 0x%04x", pkey);
    return &p->partitions[i];
}

static void expect_member(const struct cs_partition *part, uint32_t k, enum cs_member_set set,
                          uint64_t guid, enum cs_pkey_membership m)
{
    assert_true(k < part->num_members);
    const struct cs_partition_member *mem = &part->members[k];
    if (mem->set != set || mem->guid != guid || mem->membership != m)
        fail_msg("'%s' member %u: set %u guid 0x%llx membership %u, expected %u 0x%llx %u",
                 part->name, k, mem->set, (unsigned long long)mem->guid, mem->membership, set,
                 (unsigned long long)guid, m);
}

/* OpenSM's doc/partition-config.txt examples (anchors spec section 1.4(f)). */
static void test_opensm_examples(void **state)
{
    (void)state;
    char *text = slurp(CLOUDSM_TEST_DATA "/partitions/opensm-examples.conf");
    struct cs_partitions p;
    parse_ok(&p, text);
    free(text);
    assert_true(p.from_file);
    assert_int_equal(p.count, 4); /* the two Default definitions merge */
    assert_int_equal(p.warnings_total, 0);

    const struct cs_partition *def = by_pkey(&p, 0x7fff);
    assert_string_equal(def->name, "Default");
    assert_int_equal(def->line, 2);
    assert_true(def->ipoib);
    assert_int_equal(def->num_members, 3);
    expect_member(def, 0, CS_MEMBERS_ALL, 0, CS_MEMBER_LIMITED);
    expect_member(def, 1, CS_MEMBERS_SELF, 0, CS_MEMBER_FULL);
    expect_member(def, 2, CS_MEMBERS_ALL, 0, CS_MEMBER_FULL);
    assert_int_equal(def->num_mgroups, 2);
    static const uint8_t ipv4[16] = {0xff, 0x12, 0x40, 0x1b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7, 7};
    assert_memory_equal(def->mgroups[0].mgid, ipv4, 16);
    assert_string_equal(def->mgroups[0].flags, "sl=1");
    assert_int_equal(def->mgroups[0].line, 7);
    assert_string_equal(def->mgroups[1].flags, "sl=1,Q_Key=0xDEADBEEF,rate=3,mtu=2");

    /* No PKey: OpenSM's first free one. */
    const struct cs_partition *np = by_pkey(&p, 0x0001);
    assert_string_equal(np->name, "NewPartition");
    assert_true(np->ipoib);
    expect_member(np, 0, CS_MEMBERS_GUID, 0x123456, CS_MEMBER_FULL);
    expect_member(np, 1, CS_MEMBERS_GUID, 0x3456789034, CS_MEMBER_LIMITED); /* "limi" */
    expect_member(np, 2, CS_MEMBERS_GUID, 0x2134af2306, CS_MEMBER_LIMITED); /* the default */

    const struct cs_partition *y = by_pkey(&p, 0x0300);
    assert_string_equal(y->name, "YetAnotherOne");
    expect_member(y, 0, CS_MEMBERS_SELF, 0, CS_MEMBER_FULL);

    const struct cs_partition *s = by_pkey(&p, 0x0080);
    assert_string_equal(s->name, "ShareIO");
    assert_false(s->ipoib);
    expect_member(s, 0, CS_MEMBERS_GUID, 0x123451, CS_MEMBER_FULL); /* defmember=full */
    expect_member(s, 1, CS_MEMBERS_GUID, 0x123452, CS_MEMBER_FULL);
    cs_partitions_free(&p);
}

static void test_grammar_details(void **state)
{
    (void)state;
    struct cs_partitions p;
    parse_ok(&p, "# prefixes of keywords and flags, as OpenSM's strncmp(text, word, strlen(text))\n"
                 "Kw = 0x10 , ip, d=f : A=lim, ALL_C, ALL_S=fu, ALL_R, S=b, N, NON, ,\r\n"
                 "   010=, 0x20=l; Two=0x11:0x30;Three=0x8012 : 0X40 ; 0x13 : 0x50 ;\n"
                 "Multi=0x14 :\n"
                 "  0x60 # a comment, ending nothing\n"
                 "  , 0x61 ;\n");
    assert_int_equal(p.count, 6);
    const struct cs_partition *kw = by_pkey(&p, 0x10);
    assert_true(kw->ipoib);
    assert_int_equal(kw->num_members, 7); /* N and NON (prefixes of NONE) and empties add none */
    expect_member(kw, 0, CS_MEMBERS_ALL, 0, CS_MEMBER_LIMITED);
    expect_member(kw, 1, CS_MEMBERS_ALL_CAS, 0, CS_MEMBER_FULL); /* defmember=f */
    expect_member(kw, 2, CS_MEMBERS_ALL_SWITCHES, 0, CS_MEMBER_FULL);
    expect_member(kw, 3, CS_MEMBERS_ALL_ROUTERS, 0, CS_MEMBER_FULL);
    expect_member(kw, 4, CS_MEMBERS_SELF, 0, CS_MEMBER_BOTH);
    /* strtoull(.., 0): a leading 0 is octal; an empty flag is a prefix of "full". */
    expect_member(kw, 5, CS_MEMBERS_GUID, 8, CS_MEMBER_FULL);
    expect_member(kw, 6, CS_MEMBERS_GUID, 0x20, CS_MEMBER_LIMITED);
    assert_int_equal(kw->members[6].line, 3);
    expect_member(by_pkey(&p, 0x11), 0, CS_MEMBERS_GUID, 0x30, CS_MEMBER_LIMITED);
    /* Only the low 15 bits name the partition. */
    assert_string_equal(by_pkey(&p, 0x12)->name, "Three");
    /* A name that starts with a digit is the PKey; the partition is named after it. */
    assert_string_equal(by_pkey(&p, 0x13)->name, "0013");
    const struct cs_partition *multi = by_pkey(&p, 0x14);
    assert_int_equal(multi->num_members, 2);
    expect_member(multi, 1, CS_MEMBERS_GUID, 0x61, CS_MEMBER_LIMITED);
    assert_int_equal(multi->members[1].line, 6);
    assert_int_equal(p.warnings_total, 0);
    cs_partitions_free(&p);
}

/* PKeys of definitions without one (osm_prtn.c: generate_pkey, osm_prtn_find_by_name). */
static void test_generated_pkeys(void **state)
{
    (void)state;
    struct cs_partitions p;
    parse_ok(&p, "Used=0x1 : ALL ;\n"
                 "A : 0x10 ;\n"        /* 0x1 is taken: 0x2 */
                 "B=0x8000 : 0x11 ;\n" /* 0 after masking: generated too, 0x3 */
                 "A : 0x12 ;\n"        /* the same name: merged into A */
                 "Late=0x3 : 0x13 ;\n" /* an explicit PKey merges into a generated one */
                 ": 0x14 ;\n");        /* no name: "%04x" of the generated 0x4 */
    assert_int_equal(p.count, 5);
    const struct cs_partition *a = by_pkey(&p, 0x2);
    assert_string_equal(a->name, "A");
    assert_int_equal(a->num_members, 2);
    expect_member(a, 1, CS_MEMBERS_GUID, 0x12, CS_MEMBER_LIMITED);
    const struct cs_partition *b = by_pkey(&p, 0x3);
    assert_string_equal(b->name, "B");
    assert_int_equal(b->num_members, 2);
    assert_int_equal(b->line, 3);
    assert_string_equal(by_pkey(&p, 0x4)->name, "0004");
    /* "Default" without a PKey is the Default partition. */
    cs_partitions_free(&p);
    parse_ok(&p, "Default : ALL=full ;");
    assert_int_equal(p.count, 1);
    assert_int_equal(p.partitions[0].line, 1);
    expect_member(&p.partitions[0], 0, CS_MEMBERS_ALL, 0, CS_MEMBER_FULL);
    cs_partitions_free(&p);
}

static void test_isolation_extension(void **state)
{
    (void)state;
    struct cs_partitions p;
    char *text = slurp(CLOUDSM_TEST_DATA "/partitions/isolation.conf");
    parse_ok(&p, text);
    free(text);
    const struct cs_partition *p1 = by_pkey(&p, 1);
    assert_true(p1->isolation_set);
    assert_int_equal(p1->isolation, CS_ISOLATION_PHY);
    assert_int_equal(p1->isolation_line, 2);
    assert_true(p.policy_set);
    assert_int_equal(p.policy, CS_ISOLATION_STRICT);
    assert_false(p.partitions[0].isolation_set);
    assert_int_equal(p.partitions[0].isolation, CS_ISOLATION_DEF);
    assert_int_equal(p.warnings_total, 0);
    cs_partitions_free(&p);

    /* Repeating a partition may repeat its policy, not change it. */
    parse_ok(&p, "V=1,isolation=vlane : 0x1 ;\nV=1 : 0x2 ;\nV=1,isolation=vlane : 0x3 ;\n"
                 "W=2,isolation=def,isolation_policy=best-effort : 0x4 ;");
    assert_int_equal(by_pkey(&p, 1)->isolation, CS_ISOLATION_VLANE);
    assert_int_equal(by_pkey(&p, 2)->isolation, CS_ISOLATION_DEF);
    assert_true(by_pkey(&p, 2)->isolation_set);
    assert_int_equal(p.policy, CS_ISOLATION_BEST_EFFORT);
    cs_partitions_free(&p);
    assert_string_equal(cs_isolation_name(CS_ISOLATION_VLANE), "vlane");
    assert_string_equal(cs_isolation_policy_name(CS_ISOLATION_BEST_EFFORT), "best-effort");
}

static void expect_error(const char *text, const char *message)
{
    struct cs_partitions p;
    struct cs_error err = {""};
    assert_int_equal(cs_partitions_parse(&p, text, strlen(text), "p.conf", &err), -1);
    if (strcmp(err.msg, message) != 0)
        fail_msg("got \"%s\", expected \"%s\"", err.msg, message);
    assert_null(p.partitions);
    assert_int_equal(p.count, 0);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("# c\nFoo ALL ;\n", "p.conf:2: no partition definition found (expected "
                                     "'Name[=PKey][,flag]... : members ;')");
    expect_error("P=0x1 : zzz ;", "p.conf:1: bad port GUID 'zzz'");
    expect_error("P=0x1 : 0 ;", "p.conf:1: bad port GUID '0'");
    expect_error("P=0x1 : all ;", "p.conf:1: bad port GUID 'all'");
    expect_error("P=0x1 : ALLX ;", "p.conf:1: bad port GUID 'ALLX'");
    expect_error("P=0x1 : 0x10 \nQ : ALL ;",
                 "p.conf:2: bad port GUID 'Q : ALL' (is the ';' of the definition before "
                 "missing?)");
    expect_error("P=0xg : ALL;", "p.conf:1: bad PKey '0xg' in the partition definition");
    expect_error("P= : ALL;", "p.conf:1: bad PKey '' in the partition definition");
    expect_error("P=-1 : ALL;", "p.conf:1: bad PKey '-1' in the partition definition");
    expect_error("P=0x10000 : ALL;", "p.conf:1: PKey 0x10000 does not fit in 16 bits");
    expect_error("P=0x1 : 09 ;", "p.conf:1: bad port GUID '09'"); /* not octal */
    expect_error("AVeryLongPartitionNameOf32Bytes_=1 : ALL ;",
                 "p.conf:1: partition name 'AVeryLongPartitionNameOf32Bytes_' is longer than 31 "
                 "bytes");
    expect_error("P=1,isolation=full : ALL ;",
                 "p.conf:1: isolation=full: expected phy, vlane or def");
    expect_error("P=1,isolation : ALL ;", "p.conf:1: isolation=: expected phy, vlane or def");
    expect_error("P=1,isolation_policy=lax : ALL ;",
                 "p.conf:1: isolation_policy=lax: expected strict or best-effort");
    expect_error("P=1,isolation=phy : ALL ;\n\nP=1,isolation=def : ALL ;",
                 "p.conf:3: partition 'P' (0x0001): isolation=def conflicts with isolation=phy "
                 "at line 1");
    expect_error("P=1,isolation_policy=strict : ALL ;\nQ=2,isolation_policy=best-effort : ALL ;",
                 "p.conf:2: isolation_policy=best-effort conflicts with isolation_policy=strict at"
                 " line 1");
    /* Input quoted in a message is escaped: no raw control or high byte reaches a terminal. */
    expect_error("P=1,isolation=\x1b[2J\xff : ALL ;",
                 "p.conf:1: isolation=\\x1b[2J\\xff: expected phy, vlane or def");
    static const char nul[] = "P=1 : ALL ;\nQ=2 : \0 ALL ;\n";
    struct cs_partitions p;
    struct cs_error err = {""};
    assert_int_equal(cs_partitions_parse(&p, nul, sizeof nul - 1, "p.conf", &err), -1);
    assert_string_equal(err.msg, "p.conf:2: NUL byte: binary data, not text");
}

/* What OpenSM logs and skips is kept as warnings; the rest of the file still counts. */
static void test_warnings(void **state)
{
    (void)state;
    struct cs_partitions p;
    parse_ok(&p, "P=1, foo=bar, ipoib, ,defmember=x : 0x1=fool, 0x2 ;\n"
                 "Q=2 :\n mgid=ff12::1,sl=2\n mgid=fe80::1\n mgid=nonsense\n 0x3 ;\n"
                 "R=3 : 0x4");
    assert_int_equal(p.warnings_total, 7);
    assert_int_equal(p.num_warnings, 7);
    static const char *const expected[] = {
        "p.conf:1: unrecognized partition flag 'foo' - ignored",
        "p.conf:1: empty partition flag - ignored",
        "p.conf:1: flag 'defmember' needs limited, full or both - ignored",
        "p.conf:1: unrecognized port flag 'fool' - taken as limited",
        "p.conf:4: mgid 'fe80::1' is not a multicast GID - ignored",
        "p.conf:5: mgid 'nonsense' is not a multicast GID - ignored",
        "p.conf:7: the definition of 'R' (line 7) is not ended by ';'",
    };
    for (unsigned i = 0; i < 7; i++)
        assert_string_equal(p.warnings[i].msg, expected[i]);
    assert_true(by_pkey(&p, 1)->ipoib);
    expect_member(by_pkey(&p, 1), 0, CS_MEMBERS_GUID, 1, CS_MEMBER_LIMITED);
    assert_int_equal(by_pkey(&p, 2)->num_mgroups, 1);
    assert_int_equal(by_pkey(&p, 2)->num_members, 1);
    expect_member(by_pkey(&p, 3), 0, CS_MEMBERS_GUID, 4, CS_MEMBER_LIMITED);
    cs_partitions_free(&p);

    /* Warnings beyond the kept ones are counted. */
    char many[4096] = "P=1";
    for (int i = 0; i < 40; i++)
        strcat(many, ",zz");
    strcat(many, " : ALL ;");
    parse_ok(&p, many);
    assert_int_equal(p.num_warnings, CS_PARTITION_WARNINGS_MAX);
    assert_int_equal(p.warnings_total, 40);
    cs_partitions_free(&p);
}

static void test_empty_and_default(void **state)
{
    (void)state;
    struct cs_partitions p;
    parse_ok(&p, "# only a comment\n\n  ;  \n");
    assert_false(p.from_file); /* OpenSM: "in error; retrying with default config" */
    assert_int_equal(p.count, 1);
    cs_partitions_free(&p);
    struct cs_error err = {""};
    assert_int_equal(cs_partitions_init(&p, &err), 0);
    assert_false(p.from_file);
    assert_int_equal(p.count, 1);
    assert_int_equal(p.partitions[0].pkey, CS_PKEY_DEFAULT);
    assert_string_equal(p.partitions[0].name, "Default");
    assert_int_equal(p.partitions[0].line, 0);
    cs_partitions_free(&p);
}

static int write_partitions(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_partitions_write(out, ctx, err);
}

static void assert_same(const struct cs_partitions *a, const struct cs_partitions *b)
{
    assert_int_equal(a->count, b->count);
    assert_int_equal(a->from_file, b->from_file);
    assert_int_equal(a->policy, b->policy);
    assert_int_equal(a->policy_set, b->policy_set);
    for (uint32_t i = 0; i < a->count; i++) {
        const struct cs_partition *x = &a->partitions[i], *y = &b->partitions[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->pkey, y->pkey);
        assert_int_equal(x->line != 0, y->line != 0);
        assert_int_equal(x->ipoib, y->ipoib);
        assert_int_equal(x->indx0, y->indx0);
        assert_int_equal(x->isolation, y->isolation);
        assert_int_equal(x->isolation_set, y->isolation_set);
        assert_int_equal(x->group_flags == NULL, y->group_flags == NULL);
        if (x->group_flags)
            assert_string_equal(x->group_flags, y->group_flags);
        assert_int_equal(x->num_members, y->num_members);
        for (uint32_t k = 0; k < x->num_members; k++) {
            assert_int_equal(x->members[k].set, y->members[k].set);
            assert_true(x->members[k].guid == y->members[k].guid);
            assert_int_equal(x->members[k].membership, y->members[k].membership);
        }
        assert_int_equal(x->num_mgroups, y->num_mgroups);
        for (uint32_t k = 0; k < x->num_mgroups; k++) {
            assert_memory_equal(x->mgroups[k].mgid, y->mgroups[k].mgid, 16);
            assert_int_equal(x->mgroups[k].flags == NULL, y->mgroups[k].flags == NULL);
            if (x->mgroups[k].flags)
                assert_string_equal(x->mgroups[k].flags, y->mgroups[k].flags);
        }
    }
}

static void test_write(void **state)
{
    (void)state;
    struct cs_partitions p, q;
    parse_ok(&p, "Victim = 0x1 , isolation=phy, sl=1, isolation_policy=strict, indx0 :"
                 " 0x0002c90000001001=full, ALL_CAS ;\n"
                 "Grp=2,ipoib,mtu=4: mgid=ff12:401b::707,rate=3 ;\n"
                 "Empty=3 : ;\n");
    char *text = capture(write_partitions, &p);
    assert_string_equal(text, "Victim=0x0001,indx0,isolation=phy,isolation_policy=strict,sl=1 :\n"
                              "\t0x0002c90000001001=full,\n"
                              "\tALL_CAS=limited ;\n"
                              "\n"
                              "Grp=0x0002,ipoib,mtu=4 :\n"
                              "\tmgid=ff12:401b::707,rate=3 ;\n"
                              "\n"
                              "Empty=0x0003 : ;\n");
    parse_ok(&q, text);
    assert_same(&p, &q);
    free(text);
    cs_partitions_free(&p);
    cs_partitions_free(&q);

    /* Every data file survives write -> read. */
    static const char *const files[] = {"opensm-examples.conf", "isolation.conf",
                                        "generated-pkey.conf",  "both.conf",
                                        "default-cas.conf",     "empty.conf"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[512];
        snprintf(path, sizeof path, CLOUDSM_TEST_DATA "/partitions/%s", files[i]);
        char *in = slurp(path);
        parse_ok(&p, in);
        char *out = capture(write_partitions, &p);
        parse_ok(&q, out);
        assert_same(&p, &q);
        free(in);
        free(out);
        cs_partitions_free(&p);
        cs_partitions_free(&q);
    }
}

/* ---- Resolution, against OpenSM 3.3.23 on ibsim (tests/data/partitions/opensm-pkeys.sh) ---- */

/* The P_Key table entries of a port, ascending ("0x7fff 0x8001"). */
static void pkey_entries(const struct cs_partition_set *s, uint32_t port, char *out, size_t size)
{
    unsigned entries[64], n = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        uint8_t m = cs_partition_membership(s, i, port);
        if (m & CS_MEMBER_LIMITED)
            entries[n++] = s->partitions[i].pkey;
        if (m & CS_MEMBER_FULL)
            entries[n++] = s->partitions[i].pkey | CS_PKEY_FULL_BIT;
    }
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++)
            if (entries[j] < entries[i]) {
                unsigned t = entries[i];
                entries[i] = entries[j];
                entries[j] = t;
            }
    out[0] = '\0';
    for (unsigned i = 0; i < n; i++)
        snprintf(out + strlen(out), size - strlen(out), "%s0x%04x", i ? " " : "", entries[i]);
}

struct expected_port {
    uint64_t guid;
    const char *entries;
};

/* ft2x2.net: leaf0, leaf1, spine0 (the SM's node: ibsim's first node), spine1, host0..host5. */
#define SM_PORT UINT64_C(0x0002c90000000201)

static void check_against_opensm(const char *file, bool allow_both,
                                 const struct expected_port *expected, size_t count)
{
    struct cs_fabric f;
    struct cs_error err = {""};
    cs_fabric_init(&f);
    if (cs_topo_read(&f, CLOUDSM_TEST_DATA "/lft/ft2x2.net", &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_partitions p;
    if (file) {
        char path[512];
        snprintf(path, sizeof path, CLOUDSM_TEST_DATA "/partitions/%s", file);
        if (cs_partitions_read(&p, path, &err) != 0)
            fail_msg("%s", err.msg);
    } else {
        assert_int_equal(cs_partitions_init(&p, &err), 0);
    }
    struct cs_partition_resolve_options opt = {SM_PORT, allow_both};
    struct cs_partition_set s;
    if (cs_partitions_resolve(&p, &f, &opt, &s, &err) != 0)
        fail_msg("%s", err.msg);
    struct cs_key_index ports;
    cs_key_index_init(&ports);
    assert_int_equal(cs_key_index_ports(&ports, &f, &err), 0);
    for (size_t i = 0; i < count; i++) {
        uint32_t port = cs_key_index_find(&ports, expected[i].guid);
        assert_true(port != CS_NONE);
        char got[256];
        pkey_entries(&s, port, got, sizeof got);
        if (strcmp(got, expected[i].entries) != 0)
            fail_msg("%s: port 0x%016llx has \"%s\", OpenSM gave \"%s\"", file ? file : "no file",
                     (unsigned long long)expected[i].guid, got, expected[i].entries);
    }
    cs_key_index_free(&ports);
    cs_partition_set_free(&s);
    cs_partitions_free(&p);
    cs_fabric_free(&f);
}

#define SW(x) UINT64_C(0x0002c90000000##x)
#define CA(x) UINT64_C(0x0002c900000010##x)

static void test_resolve_like_opensm(void **state)
{
    (void)state;
    /* No file, and a file without definitions: every port full in Default. */
    static const struct expected_port all_full[] = {
        {SW(101), "0xffff"}, {SW(102), "0xffff"}, {SW(201), "0xffff"}, {SW(202), "0xffff"},
        {CA(01), "0xffff"},  {CA(11), "0xffff"},  {CA(21), "0xffff"},  {CA(31), "0xffff"},
        {CA(41), "0xffff"},  {CA(51), "0xffff"}};
    check_against_opensm(NULL, false, all_full, 10);
    check_against_opensm("empty.conf", false, all_full, 10);
    /* Default's file lines are applied on top of ALL=limited, SELF=full. */
    static const struct expected_port cas[] = {
        {SW(101), "0x7fff"}, {SW(102), "0x7fff"}, {SW(201), "0xffff"}, {SW(202), "0x7fff"},
        {CA(01), "0xffff"},  {CA(11), "0xffff"},  {CA(21), "0xffff"},  {CA(31), "0xffff"},
        {CA(41), "0xffff"},  {CA(51), "0xffff"}};
    check_against_opensm("default-cas.conf", false, cas, 10);
    static const struct expected_port iso[] = {{SW(101), "0x7fff"},
                                               {SW(201), "0xffff"},
                                               {CA(01), "0x7fff 0x8001"},
                                               {CA(11), "0x0001 0x7fff"},
                                               {CA(21), "0x7fff"}};
    check_against_opensm("isolation.conf", false, iso, 5);
    static const struct expected_port gen[] = {{SW(101), "0x7fff 0x8001"},
                                               {SW(201), "0x8001 0xffff"},
                                               {CA(01), "0x0001 0x7fff"},
                                               {CA(11), "0x7fff 0x8001"},
                                               {CA(51), "0x7fff 0x8001"}};
    check_against_opensm("generated-pkey.conf", false, gen, 5);
    static const struct expected_port both[] = {
        {CA(01), "0x7fff 0x8005"}, {CA(11), "0x0005 0x7fff"}, {CA(21), "0x7fff"}};
    check_against_opensm("both.conf", false, both, 3);
    static const struct expected_port both_w[] = {
        {CA(01), "0x0005 0x7fff 0x8005"}, {CA(11), "0x0005 0x7fff"}, {CA(21), "0x7fff"}};
    check_against_opensm("both.conf", true, both_w, 3);
    /* The examples name GUIDs this fabric lacks: only SELF lands (in YetAnotherOne). */
    static const struct expected_port ex[] = {
        {SW(101), "0xffff"}, {SW(201), "0x8300 0xffff"}, {CA(01), "0xffff"}, {CA(51), "0xffff"}};
    check_against_opensm("opensm-examples.conf", false, ex, 4);
}

static void test_resolve_details(void **state)
{
    (void)state;
    struct cs_fabric f;
    struct cs_error err = {""};
    cs_fabric_init(&f);
    assert_int_equal(cs_topo_read(&f, CLOUDSM_TEST_DATA "/lft/ft2x2.net", &err), 0);
    struct cs_partitions p;
    parse_ok(&p, "Gone=0x9 : 0x1234=full ;\n"
                 "V=0x1,isolation=phy : 0x0002c90000001001=full, 0x0002c90000001011, 0x77 ;\n"
                 "Sw=0x2 : ALL_SWITCHES=full, ALL_ROUTERS ;\n");
    struct cs_partition_set s;
    assert_int_equal(cs_partitions_resolve(&p, &f, NULL, &s, &err), 0);
    assert_int_equal(s.count, 3); /* Gone has no member here: dropped, as OpenSM drops it */
    assert_int_equal(s.empty_partitions, 1);
    assert_int_equal(s.unknown_guids, 2);
    assert_int_equal(s.partitions[0].pkey, 0x7fff);
    assert_int_equal(s.partitions[0].count, 10);
    assert_int_equal(s.partitions[0].full, 0); /* no SM port given: nobody is full */
    const struct cs_resolved_partition *v = &s.partitions[cs_partition_set_find(&s, 1)];
    assert_string_equal(v->name, "V");
    assert_int_equal(v->isolation, CS_ISOLATION_PHY);
    assert_int_equal(v->count, 2);
    assert_int_equal(v->full, 1);
    assert_int_equal(v->limited, 1);
    assert_int_equal(v->config_index, 2);
    assert_true(s.ports[v->first].port < s.ports[v->first + 1].port);
    const struct cs_resolved_partition *sw = &s.partitions[cs_partition_set_find(&s, 2)];
    assert_int_equal(sw->count, 4);
    for (uint32_t k = sw->first; k < sw->first + sw->count; k++) {
        const struct cs_port *port = &f.ports[s.ports[k].port];
        assert_true(cs_node_is_switch(&f.nodes[port->node]));
        assert_int_equal(port->num, 0);
    }
    assert_int_equal(cs_partition_set_find(&s, 0x9), CS_NONE);
    assert_int_equal(cs_partition_membership(&s, 99, 0), 0);
    cs_partition_set_free(&s);
    cs_partitions_free(&p);

    /* An unconnected CA port is not in OpenSM's port table. */
    struct cs_fabric g;
    cs_fabric_init(&g);
    uint32_t lone = cs_fabric_add_node(&g, CS_NODE_CA, 0x500, 2, "lone", &err);
    assert_true(lone != CS_NONE);
    parse_ok(&p, "X=1 : 0x501=full ;");
    assert_int_equal(cs_partitions_resolve(&p, &g, NULL, &s, &err), 0);
    assert_int_equal(s.count, 0);
    assert_int_equal(s.unknown_guids, 1);
    cs_partition_set_free(&s);
    cs_partitions_free(&p);
    cs_fabric_free(&g);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opensm_examples),
        cmocka_unit_test(test_grammar_details),
        cmocka_unit_test(test_generated_pkeys),
        cmocka_unit_test(test_isolation_extension),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_empty_and_default),
        cmocka_unit_test(test_write),
        cmocka_unit_test(test_resolve_like_opensm),
        cmocka_unit_test(test_resolve_details),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
