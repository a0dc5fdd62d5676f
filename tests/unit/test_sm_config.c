/* cloudsmd's configuration file: OpenSM's opensm.conf syntax, cloudsm's checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/adapt_decision.h"
#include "cloudsm/sm_config.h"
#include "testlib.h"

static void parse_ok(struct cs_sm_config *c, const char *text, struct cs_sm_config_warnings *w)
{
    struct cs_error err = {""};
    if (cs_sm_config_parse(c, text, strlen(text), "sm.conf", w, &err) != 0)
        fail_msg("%s", err.msg);
}

/* The error a one-file parse gives; the configuration must stay as it was. */
static const char *parse_error(const char *text)
{
    static struct cs_error err;
    struct cs_sm_config c, before;
    cs_sm_config_defaults(&c);
    c.sm_priority = 7; /* not a default: "unchanged" must mean this, not the defaults */
    before = c;
    struct cs_sm_config_warnings w = {0};
    if (cs_sm_config_parse(&c, text, strlen(text), "sm.conf", &w, &err) == 0)
        fail_msg("accepted: %s", text);
    assert_true(cs_sm_config_equal(&c, &before));
    assert_int_equal(w.count, 0); /* warnings of a failed parse are taken back */
    cs_sm_config_warnings_free(&w);
    return err.msg;
}

static int write_config(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_sm_config_write(out, ctx, err);
}

static void test_defaults(void **state)
{
    (void)state;
    struct cs_sm_config c;
    memset(&c, 0x5a, sizeof c);
    cs_sm_config_defaults(&c);
    assert_int_equal(c.port_guid, 0);
    assert_string_equal(c.routing_engine, "minhop"); /* OpenSM's default */
    assert_false(c.connect_roots);
    assert_int_equal(c.sm_priority, 0);
    assert_true(c.subnet_prefix == UINT64_C(0xfe80000000000000));
    assert_int_equal(c.m_key, 0);
    assert_int_equal(c.m_key_lease_period, 0);
    assert_int_equal(c.sm_key, 1);
    assert_int_equal(c.smp_window, CS_SMP_PIPE_DEFAULT_WINDOW);
    assert_true(c.smp_window > 4); /* larger than OpenSM's max_wire_smps on purpose */
    assert_int_equal(c.timeout_ms, 200);
    assert_int_equal(c.retries, 3);
    assert_int_equal(c.sweep_interval, 10);
    assert_string_equal(c.root_guid_file, "");
    assert_string_equal(c.cn_guid_file, "");
    assert_string_equal(c.log_file, "");
    assert_string_equal(c.state_dir, "/var/lib/cloudsm");
    assert_int_equal(c.log_level, CS_LOG_INFO);

    struct cs_smp_pipe_options p = cs_sm_config_pipe_options(&c);
    assert_int_equal(p.window, CS_SMP_PIPE_DEFAULT_WINDOW);
    assert_int_equal(p.timeout_ms, 200);
    assert_int_equal(p.retries, 3);

    /* An empty file (and one of comments only) is the defaults. */
    struct cs_sm_config parsed;
    parse_ok(&parsed, "", NULL);
    assert_true(cs_sm_config_equal(&parsed, &c));
    parse_ok(&parsed, "# nothing\n\n   \t\n#\n", NULL);
    assert_true(cs_sm_config_equal(&parsed, &c));
}

static void test_every_key(void **state)
{
    (void)state;
    struct cs_sm_config c;
    struct cs_sm_config_warnings w = {0};
    parse_ok(&c,
             "guid 0x0002c90300001234\n"
             "routing_engine updn\n"
             "connect_roots TRUE\n"
             "root_guid_file /etc/opensm/roots\n"
             "cn_guid_file /etc/opensm/cns\n"
             "sm_priority 15\n"
             "subnet_prefix 0xfec0000000000001\n"
             "m_key 0x1122334455667788\n"
             "m_key_lease_period 65535\n"
             "sm_key 0x55\n"
             "partition_config_file /etc/cloudsm/partitions.conf\n"
             "part_enforce out\n"
             "allow_both_pkeys TRUE\n"
             "subnet_supports_sa_path_caching TRUE\n"
             "sm_assigned_guid 0x42\n"
             "subnet_timeout 20\n"
             "lmc 0\n"
             "max_wire_smps 4096\n"
             "transaction_timeout 1000\n"
             "transaction_retries 0\n"
             "sweep_interval 0\n"
             "state_dir /srv/sm\n"
             "log_file /var/log/cloudsmd.log\n"
             "log_level debug\n"
             "perfmgr TRUE\n"
             "perfmgr_sweep_time_s 10\n"
             "adapt_rules_file /etc/cloudsm/fabric.rules\n"
             "adapt_mode on\n"
             "adapt_min_gain_percent 12\n"
             "adapt_max_smps_per_percent 40\n"
             "adapt_max_smps_per_hour 5000\n"
             "adapt_quiet_hours 22:00-06:00\n",
             &w);
    assert_int_equal(w.count, 0);
    assert_true(c.port_guid == UINT64_C(0x0002c90300001234));
    assert_string_equal(c.routing_engine, "updn");
    assert_true(c.connect_roots);
    assert_string_equal(c.root_guid_file, "/etc/opensm/roots");
    assert_string_equal(c.cn_guid_file, "/etc/opensm/cns");
    assert_int_equal(c.sm_priority, 15);
    assert_true(c.subnet_prefix == UINT64_C(0xfec0000000000001));
    assert_true(c.m_key == UINT64_C(0x1122334455667788));
    assert_int_equal(c.m_key_lease_period, 65535);
    assert_int_equal(c.sm_key, 0x55);
    assert_string_equal(c.partition_config_file, "/etc/cloudsm/partitions.conf");
    assert_int_equal(c.part_enforce, 2); /* out */
    assert_true(c.allow_both_pkeys);
    assert_true(c.sa_path_caching);
    assert_int_equal(c.sm_assigned_guid, 0x42);
    assert_int_equal(c.subnet_timeout, 20);
    assert_int_equal(c.smp_window, 4096);
    assert_int_equal(c.timeout_ms, 1000);
    assert_int_equal(c.retries, 0);
    assert_int_equal(c.sweep_interval, 0);
    assert_string_equal(c.state_dir, "/srv/sm");
    assert_string_equal(c.log_file, "/var/log/cloudsmd.log");
    assert_int_equal(c.log_level, CS_LOG_DEBUG);
    assert_true(c.perfmgr);
    assert_int_equal(c.perfmgr_sweep_time_s, 10);
    assert_string_equal(c.adapt_rules_file, "/etc/cloudsm/fabric.rules");
    assert_int_equal(c.adapt_mode, CS_ADAPT_MODE_ON);
    assert_int_equal(c.adapt_min_gain_percent, 12);
    assert_int_equal(c.adapt_max_smps_per_percent, 40);
    assert_int_equal(c.adapt_max_smps_per_hour, 5000);
    assert_string_equal(c.adapt_quiet_hours, "22:00-06:00");
    cs_sm_config_warnings_free(&w);
}

static void test_numbers_and_booleans(void **state)
{
    (void)state;
    struct cs_sm_config c;
    parse_ok(&c,
             "sm_priority 0xf\n"
             "max_wire_smps 0x100\n"
             "guid 1234567890\n"
             "m_key 0XABC\n"
             "transaction_timeout 0x0a\n"
             "connect_roots true\n",
             NULL);
    assert_int_equal(c.sm_priority, 15);
    assert_int_equal(c.smp_window, 256);
    assert_int_equal(c.port_guid, 1234567890);
    assert_int_equal(c.m_key, 0xabc);
    assert_int_equal(c.timeout_ms, 10);
    assert_true(c.connect_roots);
    parse_ok(&c, "connect_roots TRUE\nconnect_roots FALSE\n", NULL);
    assert_false(c.connect_roots);
    /* The largest 64-bit value fits, one more does not. */
    parse_ok(&c, "m_key 0xffffffffffffffff\nguid 18446744073709551615\n", NULL);
    assert_true(c.m_key == UINT64_MAX && c.port_guid == UINT64_MAX);
    assert_non_null(strstr(parse_error("m_key 0x10000000000000000\n"), "is not a number"));
}

static void test_syntax(void **state)
{
    (void)state;
    struct cs_sm_config c;
    parse_ok(&c,
             "# OpenSM writes comment blocks like this\n"
             "\n"
             "   sm_priority\t 9   # trailing comment\r\n"
             "state_dir /a/b#c\n"          /* '#' ends the value, as in OpenSM */
             "log_file \"/var/log/x y\"\n" /* quotes go; the blank inside stays */
             "cn_guid_file '  padded  '\n"
             "root_guid_file \"unbalanced\n"
             "\tlog_level   WARN",
             NULL);
    assert_int_equal(c.sm_priority, 9);
    assert_string_equal(c.state_dir, "/a/b");
    assert_string_equal(c.log_file, "/var/log/x y");
    assert_string_equal(c.cn_guid_file, "  padded  ");
    assert_string_equal(c.root_guid_file, "\"unbalanced");
    assert_int_equal(c.log_level, CS_LOG_WARN);

    /* (null), as OpenSM writes an unset string, unsets; "" does too. */
    parse_ok(&c,
             "log_file /x\nlog_file (null)\nstate_dir \"\"\nrouting_engine (null)\n"
             "root_guid_file \"(null)\"\n",
             NULL);
    assert_string_equal(c.log_file, "");
    assert_string_equal(c.state_dir, "");
    assert_string_equal(c.routing_engine, "minhop");
    assert_string_equal(c.root_guid_file, "");
}

static void test_warnings(void **state)
{
    (void)state;
    struct cs_sm_config c;
    struct cs_sm_config_warnings w = {0};
    parse_ok(&c,
             "# a shared opensm.conf\n"
             "congestion_control TRUE\n"
             "routng_engine ftree\n"
             "sm_priority 1\n"
             "\n"
             "sm_priority 2\n"
             "routing_engine ftree, minhop\n"
             "bogus\n",
             &w);
    assert_int_equal(c.sm_priority, 2); /* the last one wins */
    assert_string_equal(c.routing_engine, "ftree");
    assert_int_equal(w.count, 5);
    assert_int_equal(w.items[0].kind, CS_SM_CONFIG_OPENSM_KEY);
    assert_int_equal(w.items[0].line, 2);
    assert_string_equal(
        w.items[0].msg,
        "sm.conf:2: OpenSM option 'congestion_control' is not used by cloudsm (ignored)");
    assert_int_equal(w.items[1].kind, CS_SM_CONFIG_UNKNOWN_KEY);
    assert_string_equal(w.items[1].msg, "sm.conf:3: unknown key 'routng_engine' ignored");
    assert_int_equal(w.items[2].kind, CS_SM_CONFIG_NOTE);
    assert_string_equal(w.items[2].msg,
                        "sm.conf:6: 'sm_priority' was already set on line 4; this value wins");
    assert_int_equal(w.items[3].kind, CS_SM_CONFIG_NOTE);
    assert_int_equal(w.items[3].line, 7);
    assert_non_null(strstr(w.items[3].msg, "only 'ftree' is used"));
    assert_non_null(strstr(w.items[3].msg, "'minhop'"));
    assert_int_equal(w.items[4].kind, CS_SM_CONFIG_UNKNOWN_KEY);
    assert_string_equal(w.items[4].msg, "sm.conf:8: unknown key 'bogus' ignored");
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_UNKNOWN_KEY), 2);
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_OPENSM_KEY), 1);
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_NOTE), 2);
    /* Keys are case-sensitive, as in OpenSM. */
    parse_ok(&c, "SM_PRIORITY 3\n", &w);
    assert_int_equal(w.count, 6);
    assert_int_equal(w.items[5].kind, CS_SM_CONFIG_UNKNOWN_KEY);
    assert_int_equal(c.sm_priority, 0);
    cs_sm_config_warnings_free(&w);
}

static void test_bad_values(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *error;
    } cases[] = {
        {"sm_priority 16\n", "sm.conf:1: sm_priority: 16 is out of range 0..15"},
        {"sm_assigned_guid 0x100\n", "sm.conf:1: sm_assigned_guid: 0x100 is out of range 0..255"},
        {"\n\nsm_priority -1\n", "sm.conf:3: sm_priority: '-1' is not a number"},
        {"sm_priority 5x\n", "sm.conf:1: sm_priority: '5x' is not a number"},
        {"sm_priority\n", "sm.conf:1: sm_priority: missing value"},
        {"sm_priority \"\"\n", "sm.conf:1: sm_priority: missing value"},
        {"guid 0xZZ\n", "sm.conf:1: guid: '0xZZ' is not a number"},
        {"guid 1 2\n", "sm.conf:1: guid: '1 2' is not a number"},
        {"subnet_prefix fe80::\n", "sm.conf:1: subnet_prefix: 'fe80::' is not a number"},
        {"m_key_lease_period 65536\n", "sm.conf:1: m_key_lease_period: 65536 is out of range"},
        {"max_wire_smps 0\n", "sm.conf:1: max_wire_smps: 0 (OpenSM: no limit) is not supported"},
        {"max_wire_smps 4097\n", "sm.conf:1: max_wire_smps: 4097 is out of range 1..4096"},
        {"transaction_timeout 0\n", "sm.conf:1: transaction_timeout: 0 is out of range 1.."},
        {"transaction_retries 101\n", "sm.conf:1: transaction_retries: 101 is out of range"},
        {"sweep_interval ten\n", "sm.conf:1: sweep_interval: 'ten' is not a number"},
        {"connect_roots yes\n", "sm.conf:1: connect_roots: 'yes' is not TRUE or FALSE"},
        {"connect_roots 1\n", "sm.conf:1: connect_roots: '1' is not TRUE or FALSE"},
        /* (the list that follows is the registry's: test_sm_control checks it whole) */
        {"routing_engine dfsssp\n",
         "sm.conf:1: routing_engine: unknown routing engine 'dfsssp' (cloudsm has: ftree, "},
        {"routing_engine ,minhop\n", "sm.conf:1: routing_engine: no engine before the ','"},
        {"log_level loud\n", "sm.conf:1: log_level: 'loud' is not one of error, warn, info"},
        {"state_dir\n", "sm.conf:1: state_dir: missing value (write (null) for none)"},
        {"lmc 2\n", "sm.conf:1: lmc: LMC 2 is not supported"},
        {"lmc x\n", "sm.conf:1: lmc: 'x' is not a number"},
        {"qos TRUE\nbogus 1\nsm_priority 99\n", "sm.conf:3: sm_priority: 99 is out of range"},
        {"adapt_mode maybe\n", "sm.conf:1: adapt_mode: 'maybe' is not one of off, dry-run, on"},
        {"adapt_quiet_hours 8-18\n",
         "sm.conf:1: adapt_quiet_hours: '8-18' is not a daily window HH:MM-HH:MM"},
        {"adapt_quiet_hours 08:00-24:00\n",
         "sm.conf:1: adapt_quiet_hours: '08:00-24:00' is not a daily window HH:MM-HH:MM"},
        {"adapt_quiet_hours 08:00-18:00:00\n",
         "sm.conf:1: adapt_quiet_hours: '08:00-18:00:00' is not a daily window HH:MM-HH:MM"},
        {"adapt_quiet_hours\n", "sm.conf:1: adapt_quiet_hours: missing value (write (null)"},
        {"adapt_min_gain_percent 101\n", "sm.conf:1: adapt_min_gain_percent: 101 is out of "},
        {"qos maybe\n", "sm.conf:1: qos: 'maybe' is not TRUE or FALSE"},
        {"qos_max_vls 16\n", "sm.conf:1: qos_max_vls: 16 is out of range 0..15"},
        {"qos_ca_high_limit 256\n",
         "sm.conf:1: qos_ca_high_limit: 256 is out of range -1 (not set), 0..255"},
        {"qos_high_limit -2\n", "sm.conf:1: qos_high_limit: '-2' is not a number"},
        {"\nqos_vlarb_high 0:4,15:1\n", "sm.conf:2: qos_vlarb_high: VL (0..14) 15 is larger"},
        {"qos_swe_vlarb_low 0:256\n", "sm.conf:1: qos_swe_vlarb_low: weight (0..255) 256 is "},
        {"qos_vlarb_low 0:1,1\n", "sm.conf:1: qos_vlarb_low: entry 2: VL:weight expected"},
        {"qos_vlarb_low 0:1;1:2\n", "sm.conf:1: qos_vlarb_low: entry 1: ',' expected at ';1:2'"},
        {"qos_vlarb_low 0:1,,1:2\n", "sm.conf:1: qos_vlarb_low: VL (0..14) expected at ',1:2'"},
        {"qos_sl2vl 0,1,2\n", "sm.conf:1: qos_sl2vl: 3 VLs given: one for each SL 0..15"},
        {"qos_rtr_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,0\n",
         "sm.conf:1: qos_rtr_sl2vl: more than 16 VLs given"},
        {"qos_sw0_sl2vl 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,16\n",
         "sm.conf:1: qos_sw0_sl2vl: VL (0..15) 16 is larger than 15"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *msg = parse_error(cases[i].text);
        if (strncmp(msg, cases[i].error, strlen(cases[i].error)) != 0)
            fail_msg("'%s': got '%s', want '%s...'", cases[i].text, msg, cases[i].error);
    }
    /* A NUL byte inside a value (a binary file) is an error, not a shorter value. */
    static const char nul[] = "state_dir /a\0b\n";
    struct cs_sm_config c;
    struct cs_error err;
    assert_int_equal(cs_sm_config_parse(&c, nul, sizeof nul - 1, "sm.conf", NULL, &err), -1);
    assert_string_equal(err.msg, "sm.conf:1: NUL byte: binary data, not text");
    /* A key of bytes that are not printable ASCII fails the file and is shown escaped: no raw
     * byte (here an escape sequence and a high byte) reaches the terminal. */
    static const char binary_key[] = "sm_priority 3\n\x1b[2J\xfe\x80 1\n";
    assert_int_equal(
        cs_sm_config_parse(&c, binary_key, sizeof binary_key - 1, "sm.conf", NULL, &err), -1);
    assert_string_equal(err.msg, "sm.conf:2: key '\\x1b[2J\\xfe\\x80' has bytes that are not "
                                 "printable ASCII: not an opensm.conf");
    /* A value too long for a path. */
    size_t long_len = CS_SM_CONFIG_PATH_MAX + 20;
    char *text = malloc(long_len + 1);
    memcpy(text, "log_file ", 9);
    memset(text + 9, 'a', long_len - 9);
    text[long_len] = '\0';
    assert_string_equal(parse_error(text), "sm.conf:1: log_file: the path is longer than 4095 "
                                           "bytes");
    free(text);
}

static void test_lmc(void **state)
{
    (void)state;
    struct cs_sm_config c;
    parse_ok(&c, "lmc 0\nlmc 0x0\n", NULL);
    for (int lmc = 1; lmc <= 7; lmc++) {
        char line[32];
        snprintf(line, sizeof line, "lmc %d\n", lmc);
        assert_non_null(strstr(parse_error(line), "is not supported"));
    }
}

static void test_set(void **state)
{
    (void)state;
    struct cs_sm_config c, before;
    struct cs_error err;
    struct cs_sm_config_warnings w = {0};
    cs_sm_config_defaults(&c);
    assert_int_equal(cs_sm_config_set(&c, "sm_priority", "0x0c", &w, &err), 0);
    assert_int_equal(c.sm_priority, 12);
    assert_int_equal(cs_sm_config_set(&c, "log_level", "Warning", &w, &err), 0);
    assert_int_equal(c.log_level, CS_LOG_WARN);
    assert_int_equal(cs_sm_config_set(&c, "connect_roots", "TRUE", &w, &err), 0);
    assert_true(c.connect_roots);
    before = c;
    /* The error names the value, not the key: the caller says where it came from. */
    assert_int_equal(cs_sm_config_set(&c, "sm_priority", "16", &w, &err), -1);
    assert_string_equal(err.msg, "16 is out of range 0..15");
    assert_int_equal(cs_sm_config_set(&c, "max_wire_smps", "", &w, &err), -1);
    assert_string_equal(err.msg, "missing value");
    assert_int_equal(cs_sm_config_set(&c, "nonsense", "1", &w, &err), -1);
    assert_string_equal(err.msg, "unknown key 'nonsense'");
    assert_true(cs_sm_config_equal(&c, &before));
    assert_int_equal(w.count, 0);
    /* An engine list keeps the first; the note has no file:line. */
    assert_int_equal(cs_sm_config_set(&c, "routing_engine", "minhop,updn", &w, &err), 0);
    assert_string_equal(c.routing_engine, "minhop");
    assert_int_equal(w.count, 1);
    assert_int_equal(w.items[0].line, 0);
    assert_int_equal(strncmp(w.items[0].msg, "routing_engine: only 'minhop'", 29), 0);
    cs_sm_config_warnings_free(&w);
}

static void test_log_levels(void **state)
{
    (void)state;
    enum cs_log_level l;
    const char *names[] = {"error", "warn", "info", "debug"};
    for (int i = 0; i < 4; i++) {
        assert_string_equal(cs_log_level_name((enum cs_log_level)i), names[i]);
        assert_true(cs_log_level_parse(names[i], &l));
        assert_int_equal(l, i);
    }
    assert_true(cs_log_level_parse("DEBUG", &l) && l == CS_LOG_DEBUG);
    assert_false(cs_log_level_parse("verbose", &l));
    assert_false(cs_log_level_parse("", &l));
}

static void round_trip(const struct cs_sm_config *c)
{
    char *text = capture(write_config, c);
    struct cs_sm_config back;
    struct cs_sm_config_warnings w = {0};
    parse_ok(&back, text, &w);
    if (!cs_sm_config_equal(&back, c))
        fail_msg("round trip changed the configuration:\n%s", text);
    assert_int_equal(w.count, 0); /* the writer writes only keys cloudsm knows, once each */
    free(text);
    cs_sm_config_warnings_free(&w);
}

static void test_round_trip(void **state)
{
    (void)state;
    struct cs_sm_config c;
    cs_sm_config_defaults(&c);
    round_trip(&c);
    char *text = capture(write_config, &c);
    assert_non_null(strstr(text, "\nmax_wire_smps 64\n"));
    assert_non_null(strstr(text, "\nsubnet_prefix 0xfe80000000000000\n"));
    assert_non_null(strstr(text, "\nlog_file (null)\n"));
    assert_non_null(strstr(text, "\nconnect_roots FALSE\n"));
    assert_non_null(strstr(text, "\nlmc 0\n"));
    assert_non_null(strstr(text, "\nadapt_mode dry-run\n"));
    assert_non_null(strstr(text, "\nadapt_quiet_hours (null)\n"));
    free(text);

    parse_ok(&c,
             "guid 0x1\nrouting_engine minhop\nconnect_roots TRUE\nsm_priority 11\n"
             "subnet_prefix 0x1\nm_key 0xffffffffffffffff\nm_key_lease_period 60\n"
             "max_wire_smps 1\ntransaction_timeout 60000\ntransaction_retries 100\n"
             "sweep_interval 86400\nlog_level error\nstate_dir (null)\n"
             "adapt_quiet_hours 23:30-00:15\nadapt_mode off\n",
             NULL);
    assert_string_equal(c.adapt_quiet_hours, "23:30-00:15");
    round_trip(&c);
    /* Strings the parser would change without quotes: blanks at either end, enclosing
     * quotes. */
    cs_sm_config_defaults(&c);
    strcpy(c.log_file, " leading and trailing\t");
    strcpy(c.state_dir, "\"quoted\"");
    strcpy(c.root_guid_file, "'single'");
    strcpy(c.cn_guid_file, "\"");
    round_trip(&c);
    strcpy(c.state_dir, "it's \"mixed\"'");
    round_trip(&c);
}

static void test_unwritable(void **state)
{
    (void)state;
    static const char *const values[] = {"/a#b", "two\nlines", "(null)"};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        struct cs_sm_config c;
        cs_sm_config_defaults(&c);
        strcpy(c.state_dir, values[i]);
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        struct cs_error err;
        assert_int_equal(cs_sm_config_write(out, &c, &err), -1);
        fclose(out);
        assert_int_equal(len, 0); /* nothing written */
        assert_int_equal(strncmp(err.msg, "state_dir cannot be written", 27), 0);
        free(buf);
    }
}

/* A complete opensm.conf as OpenSM 3.3.23 writes it (`opensm -c FILE`): it must load, with
 * every key known either to cloudsm or as an OpenSM key, and OpenSM's values honoured. */
static void test_opensm_conf(void **state)
{
    (void)state;
    struct cs_sm_config c;
    struct cs_sm_config_warnings w = {0};
    struct cs_error err;
    const char *path = CLOUDSM_TEST_DATA "/sm/opensm-3.3.23.conf";
    if (cs_sm_config_read(&c, path, &w, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_UNKNOWN_KEY), 0);
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_NOTE), 0);
    /* 160 keys in the file: 105 of them OpenSM keys cloudsm does not use. */
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_OPENSM_KEY), 105);
    assert_string_equal(c.qos_policy_file, "/etc/opensm/qos-policy.conf"); /* used with qos */
    assert_int_equal(c.sminfo_polling_timeout_ms, 10000); /* OpenSM's defaults, as written */
    assert_int_equal(c.polling_retry_number, 4);
    assert_false(c.perfmgr);                       /* OpenSM writes FALSE */
    assert_int_equal(c.perfmgr_sweep_time_s, 180); /* and its default */
    assert_int_equal(c.sm_assigned_guid, 0);
    assert_false(c.reassign_lids); /* OpenSM writes FALSE */
    assert_int_equal(c.subnet_timeout, 18);
    assert_string_equal(c.partition_config_file, "/etc/opensm/partitions.conf");
    assert_int_equal(c.part_enforce, 0); /* both */
    assert_false(c.allow_both_pkeys);
    assert_int_equal(c.sm_key, 1);                   /* OpenSM's default, read from its file */
    assert_string_equal(c.routing_engine, "minhop"); /* "(null)": OpenSM's default */
    assert_int_equal(c.smp_window, 4);               /* OpenSM's max_wire_smps */
    assert_int_equal(c.timeout_ms, 200);
    assert_int_equal(c.retries, 3);
    assert_int_equal(c.sweep_interval, 10);
    assert_string_equal(c.log_file, "/var/log/opensm.log");
    assert_string_equal(c.root_guid_file, "");
    assert_true(c.subnet_prefix == UINT64_C(0xfe80000000000000));
    cs_sm_config_warnings_free(&w);

    assert_int_equal(cs_sm_config_read(&c, CLOUDSM_TEST_DATA "/sm/missing.conf", NULL, &err), -1);
    assert_non_null(strstr(err.msg, "missing.conf"));
}

/* SIGHUP's question: which keys differ, and which of them a running SM cannot take. */
static void test_diff(void **state)
{
    (void)state;
    struct cs_sm_config was, now;
    struct cs_sm_config_change ch[CS_SM_CONFIG_KEYS_MAX];
    cs_sm_config_defaults(&was);
    now = was;
    assert_int_equal(cs_sm_config_diff(&was, &now, ch), 0);
    /* Bytes after a string's NUL are not part of its value. */
    now.log_file[10] = 'x';
    assert_int_equal(cs_sm_config_diff(&was, &now, ch), 0);

    parse_ok(&now,
             "routing_engine ftree\nstate_dir /srv/sm\npartition_config_file /etc/p.conf\n"
             "sweep_interval 3\nm_key 0x5\nlog_level debug\nlmc 0\n",
             NULL);
    unsigned n = cs_sm_config_diff(&was, &now, ch);
    assert_int_equal(n, 6);
    /* In the file's order, each with what it takes. */
    const char *want[] = {"routing_engine", "m_key",     "partition_config_file",
                          "sweep_interval", "state_dir", "log_level"};
    const enum cs_sm_config_effect how[] = {CS_SM_CONFIG_REROUTE, CS_SM_CONFIG_RESTART,
                                            CS_SM_CONFIG_PKEYS,   CS_SM_CONFIG_LIVE,
                                            CS_SM_CONFIG_RESTART, CS_SM_CONFIG_LIVE};
    for (unsigned i = 0; i < n; i++) {
        assert_string_equal(ch[i].key, want[i]);
        assert_int_equal(ch[i].how, how[i]);
    }
    assert_true(cs_sm_config_changed(ch, n, "sweep_interval"));
    assert_false(cs_sm_config_changed(ch, n, "sm_priority"));
    assert_true(cs_sm_config_changes_take(ch, n, CS_SM_CONFIG_REROUTE));
    assert_true(cs_sm_config_changes_take(ch, n, CS_SM_CONFIG_PKEYS));

    /* Keeping the running values of the keys that need a restart. */
    for (unsigned i = 0; i < n; i++)
        if (ch[i].how == CS_SM_CONFIG_RESTART)
            assert_int_equal(cs_sm_config_copy_key(&now, &was, ch[i].key), 0);
    assert_string_equal(now.state_dir, CS_SM_CONFIG_DEFAULT_STATE_DIR);
    assert_true(now.m_key == 0);
    assert_string_equal(now.routing_engine, "ftree");
    assert_int_equal(cs_sm_config_diff(&was, &now, ch), 4);
    assert_int_equal(cs_sm_config_copy_key(&now, &was, "no_such_key"), -1);

    /* Every key that can differ is found, and each is told apart from the others. */
    for (const char *const *k =
             (const char *const[]){
                 "guid", "connect_roots", "root_guid_file", "cn_guid_file", "sm_priority",
                 "subnet_prefix", "sm_key", "part_enforce", "allow_both_pkeys", "subnet_timeout",
                 "subnet_supports_sa_path_caching", "max_wire_smps", "transaction_timeout",
                 "transaction_retries", "m_key_lease_period", "log_file", "node_order_file",
                 "node_weights_file", NULL};
         *k; k++) {
        struct cs_sm_config other = was;
        const char *value = strstr(*k, "file")      ? "/x"
                            : strstr(*k, "enforce") ? "off"
                            : strstr(*k, "roots") || strstr(*k, "allow") || strstr(*k, "caching")
                                ? "TRUE"
                                : "5";
        struct cs_error err = {""};
        if (cs_sm_config_set(&other, *k, value, NULL, &err) != 0)
            fail_msg("%s %s: %s", *k, value, err.msg);
        assert_int_equal(cs_sm_config_diff(&was, &other, ch), 1);
        assert_string_equal(ch[0].key, *k);
        /* noftree's order and wftree's weights: a SIGHUP routes again */
        if (strcmp(*k, "node_order_file") == 0 || strcmp(*k, "node_weights_file") == 0)
            assert_int_equal(ch[0].how, CS_SM_CONFIG_REROUTE);
    }
    /* And vftree's VM state: a SIGHUP routes again. */
    struct cs_sm_config with_vms = was;
    struct cs_error vms_err = {""};
    assert_int_equal(cs_sm_config_set(&with_vms, "vm_state_file", "/x", NULL, &vms_err), 0);
    assert_int_equal(cs_sm_config_diff(&was, &with_vms, ch), 1);
    assert_string_equal(ch[0].key, "vm_state_file");
    assert_int_equal(ch[0].how, CS_SM_CONFIG_REROUTE);

    char buf[64];
    parse_ok(&now, "guid 0x2c9\nroot_guid_file (null)\npart_enforce in\n", NULL);
    cs_sm_config_format_value(&now, "guid", buf, sizeof buf);
    assert_string_equal(buf, "0x00000000000002c9");
    cs_sm_config_format_value(&now, "root_guid_file", buf, sizeof buf);
    assert_string_equal(buf, "(null)");
    cs_sm_config_format_value(&now, "part_enforce", buf, sizeof buf);
    assert_string_equal(buf, "in");
    cs_sm_config_format_value(&now, "log_level", buf, sizeof buf);
    assert_string_equal(buf, "info");
}

/* OpenSM's QoS keys: values as OpenSM reads them, a class inheriting the general keys, which
 * inherit OpenSM's built-in defaults (osm_qos.c's qos_build_config). */
static void test_qos(void **state)
{
    (void)state;
    struct cs_sm_config c;
    cs_sm_config_defaults(&c);
    assert_false(c.qos);
    struct cs_qos_class_config q;
    cs_qos_resolve(&c.qos_class[CS_QOS_CA], &c.qos_general, &q);
    assert_int_equal(q.max_vls, 15);
    assert_int_equal(q.high_limit, 0);
    for (unsigned i = 0; i < CS_VLARB_ENTRIES; i++) {
        /* 0:0,1:4,...,14:4 and 0:4,1:0,...,14:0; entries past 14 are VL 0 weight 0 */
        assert_int_equal(q.vlarb_low[0].vl[i], i < 15 ? i : 0);
        assert_int_equal(q.vlarb_low[0].weight[i], i > 0 && i < 15 ? 4 : 0);
        assert_int_equal(q.vlarb_high[0].vl[i], i < 15 ? i : 0);
        assert_int_equal(q.vlarb_high[0].weight[i], i == 0 ? 4 : 0);
        assert_int_equal(q.vlarb_low[1].weight[i], 0);
    }
    for (unsigned sl = 0; sl < 16; sl++)
        assert_int_equal(q.sl2vl.vl[sl], sl < 15 ? sl : 7);

    struct cs_sm_config_warnings w = {0};
    parse_ok(&c,
             "qos TRUE\n"
             "qos_max_vls 8\n"
             "qos_high_limit 3\n"
             "qos_vlarb_high 0:4, 1:2,0x2:0x9\n"
             "qos_sl2vl 0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,15\n"
             "qos_ca_vlarb_low 0:1,1:5\n"
             "qos_swe_high_limit -1\n"
             "qos_swe_max_vls 0\n"
             "qos_rtr_high_limit 7\n"
             "qos_sw0_sl2vl (null)\n",
             &w);
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_OPENSM_KEY), 0);
    assert_int_equal(cs_sm_config_warnings_count(&w, CS_SM_CONFIG_UNKNOWN_KEY), 0);
    cs_sm_config_warnings_free(&w);
    assert_true(c.qos);
    cs_qos_resolve(&c.qos_class[CS_QOS_CA], &c.qos_general, &q);
    assert_int_equal(q.max_vls, 8);
    assert_int_equal(q.high_limit, 3);
    assert_int_equal(q.vlarb_high[0].vl[2], 2); /* the general list */
    assert_int_equal(q.vlarb_high[0].weight[2], 9);
    assert_int_equal(q.vlarb_high[0].weight[3], 0);
    assert_int_equal(q.vlarb_low[0].vl[1], 1); /* the class's own */
    assert_int_equal(q.vlarb_low[0].weight[1], 5);
    assert_int_equal(q.vlarb_low[0].weight[2], 0);
    assert_int_equal(q.sl2vl.vl[8], 0);
    assert_int_equal(q.sl2vl.vl[15], 15);
    cs_qos_resolve(&c.qos_class[CS_QOS_RTR], &c.qos_general, &q);
    assert_int_equal(q.high_limit, 7);
    assert_int_equal(q.vlarb_low[0].weight[1], 4); /* OpenSM's default: no general list */
    cs_qos_resolve(&c.qos_class[CS_QOS_SWE], &c.qos_general, &q);
    assert_int_equal(q.high_limit, 3); /* -1: not set */
    assert_int_equal(q.max_vls, 8);

    /* The file writes them back as it reads them. */
    char buf[256];
    assert_true(cs_sm_config_format_value(&c, "qos_vlarb_high", buf, sizeof buf) > 0);
    assert_string_equal(buf, "0:4,1:2,2:9");
    assert_true(cs_sm_config_format_value(&c, "qos_swe_vlarb_high", buf, sizeof buf) > 0);
    assert_string_equal(buf, "(null)");
    assert_true(cs_sm_config_format_value(&c, "qos_swe_high_limit", buf, sizeof buf) > 0);
    assert_string_equal(buf, "-1");
    assert_true(cs_sm_config_format_value(&c, "qos_sl2vl", buf, sizeof buf) > 0);
    assert_string_equal(buf, "0,1,2,3,4,5,6,7,0,1,2,3,4,5,6,15");

    /* A change of a QoS key is a re-programming, not a restart. */
    struct cs_sm_config d = c;
    d.qos_class[CS_QOS_SWE].vlarb_low.weight[0] = 9;
    d.qos_class[CS_QOS_SWE].vlarb_low.set = true;
    d.qos_class[CS_QOS_SWE].vlarb_low.count = 1;
    struct cs_sm_config_change changes[CS_SM_CONFIG_KEYS_MAX];
    assert_int_equal(cs_sm_config_diff(&c, &d, changes), 1);
    assert_string_equal(changes[0].key, "qos_swe_vlarb_low");
    assert_int_equal(changes[0].how, CS_SM_CONFIG_REROUTE);
}

/* 64 pairs fit, a 65th does not. */
static void test_qos_vlarb_sizes(void **state)
{
    (void)state;
    char text[64 * 8 + 16] = "";
    size_t used = 0;
    for (unsigned i = 0; i < 65; i++)
        used +=
            (size_t)snprintf(text + used, sizeof text - used, "%s%u:%u", i ? "," : "", i % 15, i);
    struct cs_qos_vlarb_list l;
    struct cs_error err;
    size_t sixty_four = (size_t)(strrchr(text, ',') - text);
    assert_int_equal(cs_qos_vlarb_parse(text, sixty_four, &l, &err), 0);
    assert_int_equal(l.count, 64);
    assert_int_equal(l.vl[63], 63 % 15);
    assert_int_equal(l.weight[63], 63);
    struct cs_qos_class_config q;
    struct cs_qos_options cls, gen;
    cs_qos_options_unset(&cls);
    cs_qos_options_unset(&gen);
    gen.vlarb_low = l;
    cs_qos_resolve(&cls, &gen, &q);
    assert_int_equal(q.vlarb_low[1].weight[31], 63); /* entry 63: block 1, entry 31 */
    assert_int_equal(cs_qos_vlarb_parse(text, used, &l, &err), -1);
    assert_string_equal(err.msg, "more than 64 VL:weight pairs");
    char back[64 * 8 + 16];
    assert_int_equal(cs_qos_vlarb_format(&gen.vlarb_low, back, sizeof back), (int)sixty_four);
    assert_memory_equal(back, text, sixty_four);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_every_key),
        cmocka_unit_test(test_numbers_and_booleans),
        cmocka_unit_test(test_syntax),
        cmocka_unit_test(test_warnings),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_lmc),
        cmocka_unit_test(test_set),
        cmocka_unit_test(test_log_levels),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test(test_opensm_conf),
        cmocka_unit_test(test_qos),
        cmocka_unit_test(test_qos_vlarb_sizes),
        cmocka_unit_test(test_diff),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
