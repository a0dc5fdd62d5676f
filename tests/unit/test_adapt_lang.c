/* IBAdapt (include/cloudsm/adapt.h): the grammar and its precedence, units, the checker's
 * errors with their file:line:column, parameter overrides, evaluation over hand-built
 * measurements with known answers (aggregates, window weighting, links, partitions), the `for`
 * and `cooldown` timers, priorities, replay (deterministic, never ahead of its time), and the
 * example files and the manual's action table against the registry. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/adapt.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/fabric.h"
#include "cloudsm/metrics.h"

#define DOCS CLOUDSM_TEST_DATA "/../../docs/adapt"

/* Equal but for the last bits of a double; NAN only as NAN. */
static bool near(double got, double want)
{
    return isnan(want) ? isnan(got) : fabs(got - want) <= 1e-9 * fmax(1.0, fabs(want));
}

static void assert_near(double got, double want)
{
    if (!near(got, want))
        fail_msg("got %.17g, want %.17g", got, want);
}

static struct cs_adapt_rules *parse_ok(const char *text)
{
    struct cs_adapt_rules *r = NULL;
    struct cs_error err = {""};
    if (cs_adapt_parse(text, strlen(text), "t.rules", &r, &err) != 0)
        fail_msg("%s", err.msg);
    return r;
}

/* The error text parses to; the rules must not parse. */
static void assert_error(const char *text, const char *want)
{
    struct cs_adapt_rules *r = (struct cs_adapt_rules *)1;
    struct cs_error err = {""};
    assert_int_equal(cs_adapt_parse(text, strlen(text), "t.rules", &r, &err), -1);
    assert_null(r);
    assert_string_equal(err.msg, want);
}

static struct cs_adapt_param_info param(const struct cs_adapt_rules *r, const char *name)
{
    for (uint32_t i = 0; i < cs_adapt_param_count(r); i++) {
        struct cs_adapt_param_info p;
        cs_adapt_param_get(r, i, &p);
        if (strcmp(p.name, name) == 0)
            return p;
    }
    fail_msg("no parameter %s", name);
    return (struct cs_adapt_param_info){0};
}

/* ---- grammar ---- */

static void test_grammar(void **state)
{
    (void)state;
    struct cs_adapt_rules *r = parse_ok(
        "# a comment\n"
        "param threshold = 2 GB/s   # trailing comment\n"
        "param engine = \"wftree\"\n"
        "param hot = true\n"
        "rule quiet {\n"
        "    priority -3\n"
        "    when avg(node.throughput in partition \"tenant-a\" over 30s) < threshold\n"
        "         or not hot\n"
        "    for 1m\n"
        "    cooldown 10m\n"
        "    then reroute(engine = engine, weights = learned(over 5m));\n"
        "         log(message = \"a \\\"quoted\\\" word\\tand\\\\more\\n\")\n"
        "         set(param = hot, value = false)\n"
        "}\n"
        "rule busy { when count(port.errors over 1h) >= 1 then\n"
        "  reroute(engine = \"ftree\", subtree = top(node.rcv_bytes over 1m, 4), order = \"o\"); "
        "migrate(vm = \"vm1\", to = \"hv2\"); set_policy(partition = \"a\", isolation = \"phy\") "
        "}\n");
    assert_int_equal(cs_adapt_param_count(r), 3);
    assert_int_equal(cs_adapt_rule_count(r), 2);
    struct cs_adapt_param_info p = param(r, "engine");
    assert_int_equal(p.value.type, CS_ADAPT_STRING);
    assert_string_equal(p.value.text, "wftree");
    assert_int_equal(p.line, 3);
    assert_int_equal(p.column, 7);
    /* priority 0 (busy) before -3 (quiet) */
    struct cs_adapt_rule_info info;
    cs_adapt_rule_get(r, 0, &info);
    assert_string_equal(info.name, "busy");
    assert_int_equal(info.num_actions, 3);
    assert_string_equal(info.condition, "count(port.errors over 1h) >= 1");
    assert_string_equal(info.actions[0], "reroute(engine = \"ftree\", subtree = top(node.rcv_bytes "
                                         "over 1m, 4), order = \"o\")");
    assert_string_equal(info.actions[2], "set_policy(partition = \"a\", isolation = \"phy\")");
    assert_near(info.for_s, 0);
    cs_adapt_rule_get(r, 1, &info);
    assert_string_equal(info.name, "quiet");
    assert_int_equal(info.priority, -3);
    assert_int_equal(info.line, 5);
    assert_near(info.for_s, 60);
    assert_near(info.cooldown_s, 600);
    assert_int_equal(info.num_actions, 3);
    assert_string_equal(info.condition, "avg(node.throughput in partition \"tenant-a\" over 30s) < "
                                        "threshold or not hot");
    assert_string_equal(info.actions[0], "reroute(engine = engine, weights = learned(over 5m))");
    assert_string_equal(info.actions[1],
                        "log(message = \"a \\\"quoted\\\" word\\tand\\\\more\\n\")");
    assert_string_equal(info.actions[2], "set(param = hot, value = false)");
    cs_adapt_rules_free(r);

    /* an empty file and a file of comments are no rules */
    r = parse_ok("");
    assert_int_equal(cs_adapt_rule_count(r), 0);
    cs_adapt_rules_free(r);
    r = parse_ok("# nothing\n\n   # at all\n");
    assert_int_equal(cs_adapt_param_count(r), 0);
    cs_adapt_rules_free(r);
}

/* Each of these parameters is a constant expression: its value shows the parse. */
static void test_precedence(void **state)
{
    (void)state;
    struct cs_adapt_rules *r = parse_ok("param p1 = 1 + 2 * 3\n"
                                        "param p2 = (1 + 2) * 3\n"
                                        "param p3 = 10 - 4 - 3\n"
                                        "param p4 = 8 / 4 / 2\n"
                                        "param p5 = 2 * -3 + 1\n"
                                        "param p6 = 1 + 2 * 3 == 7\n"
                                        "param p7 = not true and false\n"
                                        "param p8 = true or false and false\n"
                                        "param p9 = not 1 > 2\n"
                                        "param p10 = -(2 - 5) * 2\n");
    assert_near(param(r, "p1").value.number, 7);
    assert_near(param(r, "p2").value.number, 9);
    assert_near(param(r, "p3").value.number, 3);
    assert_near(param(r, "p4").value.number, 1);
    assert_near(param(r, "p5").value.number, -5);
    assert_int_equal(param(r, "p6").value.type, CS_ADAPT_BOOL);
    assert_near(param(r, "p6").value.number, 1);
    /* (not true) and false, not not (true and false) */
    assert_near(param(r, "p7").value.number, 0);
    /* true or (false and false) */
    assert_near(param(r, "p8").value.number, 1);
    /* not (1 > 2) */
    assert_near(param(r, "p9").value.number, 1);
    assert_near(param(r, "p10").value.number, 6);
    cs_adapt_rules_free(r);
    /* comparisons do not chain  */
    assert_error("param k = 1 < 2 == true\n",
                 "t.rules:1:17: unexpected '==': comparisons do not chain (write a < b and b < c)");
    /* the canonical form keeps the meaning with the fewest parentheses */
    r = parse_ok("rule x { when not (true and false) or (1 + 2) * 3 > 4 - (5 - 6) then "
                 "log(message = \"m\") }");
    struct cs_adapt_rule_info info;
    cs_adapt_rule_get(r, 0, &info);
    assert_string_equal(info.condition, "not (true and false) or (1 + 2) * 3 > 4 - (5 - 6)");
    cs_adapt_rules_free(r);
}

static void test_units(void **state)
{
    (void)state;
    struct cs_adapt_rules *r = parse_ok("param r1 = 2 GB/s\nparam r2 = 1.5 KiB/s\n"
                                        "param r3 = 3MB/s\nparam r4 = 1e9 B/s\n"
                                        "param r5 = 2 GiB/s\nparam r6 = 7 KB/s\n"
                                        "param d1 = 30s\nparam d2 = 1m\nparam d3 = 2 h\n"
                                        "param d4 = 1d\nparam d5 = 500ms\n"
                                        "param f = 50%\nparam c = 100/s\nparam n = 12\n"
                                        "param x = 1.5e-3\n");
    struct {
        const char *name;
        enum cs_adapt_type type;
        double value;
    } want[] = {
        {"r1", CS_ADAPT_RATE, 2e9},          {"r2", CS_ADAPT_RATE, 1536},
        {"r3", CS_ADAPT_RATE, 3e6},          {"r4", CS_ADAPT_RATE, 1e9},
        {"r5", CS_ADAPT_RATE, 2147483648.0}, {"r6", CS_ADAPT_RATE, 7000},
        {"d1", CS_ADAPT_DURATION, 30},       {"d2", CS_ADAPT_DURATION, 60},
        {"d3", CS_ADAPT_DURATION, 7200},     {"d4", CS_ADAPT_DURATION, 86400},
        {"d5", CS_ADAPT_DURATION, 0.5},      {"f", CS_ADAPT_NUMBER, 0.5},
        {"c", CS_ADAPT_COUNT_RATE, 100},     {"n", CS_ADAPT_NUMBER, 12},
        {"x", CS_ADAPT_NUMBER, 1.5e-3},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct cs_adapt_param_info p = param(r, want[i].name);
        assert_int_equal(p.value.type, want[i].type);
        assert_near(p.value.number, want[i].value);
    }
    /* values written back: the largest whole unit, decimal rates */
    char buf[64];
    struct cs_adapt_param_info d2 = param(r, "d2"), d5 = param(r, "d5"), r1 = param(r, "r1");
    assert_string_equal(cs_adapt_value_format(&d2.value, 4, buf, sizeof buf), "1m");
    assert_string_equal(cs_adapt_value_format(&d5.value, 4, buf, sizeof buf), "500ms");
    assert_string_equal(cs_adapt_value_format(&r1.value, 4, buf, sizeof buf), "2 GB/s");
    struct cs_adapt_value v = {.type = CS_ADAPT_DURATION, .number = 90};
    assert_string_equal(cs_adapt_value_format(&v, 4, buf, sizeof buf), "90s");
    v = (struct cs_adapt_value){.type = CS_ADAPT_RATE, .number = 8e8};
    assert_string_equal(cs_adapt_value_format(&v, 4, buf, sizeof buf), "800 MB/s");
    cs_adapt_rules_free(r);
}

/* ---- errors: each class, with its file:line:column ---- */

static void test_errors(void **state)
{
    (void)state;
    const char *log = " then log(message = \"m\") }";
    char text[512], want[512];
    struct {
        const char *when, *error;
    } conditions[] = {
        {"1s < 1 MB/s", "1:18: cannot compare a duration with a rate"},
        {"1 and 2", "1:17: 'and' joins bools, not a number and a number"},
        {"avg(node.foo) > 1", "1:24: unknown metric 'foo' (metrics: xmit_bytes, rcv_bytes, "
                              "xmit_pkts, rcv_pkts, xmit_wait, errors, throughput, "
                              "utilisation, link_rate)"},
        {"avg(nodes.rcv_bytes) > 1 MB/s",
         "1:19: unknown entity 'nodes' (entities: port, node, switch, link, fabric)"},
        {"threshold > 1", "1:15: unknown parameter 'threshold'"},
        {"node.rcv_bytes > 1 MB/s", "1:15: aggregate it: avg(node.rcv_bytes)"},
        {"3", "1:15: the condition is a number, not a bool"},
        {"avg(node.rcv_bytes) > 1 GB", "1:37: 'GB' is an amount of data: a rate is written GB/s"},
        {"frob(node.rcv_bytes) > 1", "1:15: unknown function 'frob' (functions: avg, sum, min, "
                                     "max, count, median, p90, p99, stddev, top, learned)"},
        {"avg(switch.rcv_bytes in partition \"a\") > 1 MB/s",
         "1:36: switches are in no partition (members are CA nodes): 'in partition' filters "
         "port, node, link and fabric"},
        {"avg(node.rcv_bytes over 0s) > 1 MB/s", "1:39: 'over' must be above zero, not 0s"},
        {"avg(node.rcv_bytes over 5) > 1 MB/s", "1:39: 'over' is a duration, not a number"},
        {"true @ false", "1:20: unexpected character '@'"},
        {"avg(node.rcv_bytes) / 1s > 1", "1:35: cannot divide a rate by a duration (divide by a "
                                         "number, or by the same type for a ratio)"},
    };
    for (size_t i = 0; i < sizeof conditions / sizeof conditions[0]; i++) {
        snprintf(text, sizeof text, "rule r { when %s%s\n", conditions[i].when, log);
        snprintf(want, sizeof want, "t.rules:%s", conditions[i].error);
        assert_error(text, want);
    }
    struct {
        const char *text, *error;
    } files[] = {
        {"rule r { when true foo then log(message = \"m\") }",
         "1:20: unexpected identifier 'foo', expecting 'for', 'cooldown', 'then' or an operator"},
        {"rule r {\n  when true\n  then lag(message = \"m\")\n}",
         "3:8: unknown action 'lag' (actions: reroute, set_policy, migrate, set, log)"},
        {"rule r { when true then reroute(engine = \"ftree\", foo = 1) }",
         "1:51: reroute() has no argument 'foo' (arguments: engine, weights, subtree, order)"},
        {"rule r { when true then reroute(weights = learned(over 1m)) }",
         "1:25: reroute() needs argument 'engine' (a string)"},
        {"rule r { when true then reroute(engine = 3) }",
         "1:42: engine wants a string, not a number"},
        {"rule r { when true then reroute(engine = \"wfree\") }",
         "1:42: unknown routing engine \"wfree\" (engines: ftree, noftree, wftree, pftree, vftree, "
         "slimupdate, mftree, minhop, updn)"},
        {"rule r { when true then reroute(engine = \"pftree\", subtree = top(node.rcv_bytes, 4)) }",
         "1:42: engine \"pftree\" cannot re-route a sub-tree (engines that can: ftree, noftree, "
         "wftree, slimupdate)"},
        {"rule r { when true then set_policy(partition = \"a\", isolation = \"strong\") }",
         "1:65: unknown isolation \"strong\" (phy, vlane or def)"},
        {"rule r { when true then log(message = \"m\", message = \"n\") }",
         "1:44: argument 'message' given twice"},
        {"param t = 1m\nrule r { when true then set(param = t, value = 5 MB/s) }",
         "2:48: t is a duration, not a rate"},
        {"rule r { when true then set(param = nope, value = 1) }",
         "1:37: unknown parameter 'nope'"},
        {"rule r { when true for 3 then log(message = \"m\") }", "1:24: 'for' is a duration, not a "
                                                                 "number"},
        {"rule r { when true for avg(node.rcv_bytes) then log(message = \"m\") }",
         "1:24: 'for' is a constant: it cannot measure (avg())"},
        {"rule r { when true for -1s then log(message = \"m\") }",
         "1:24: 'for' must be at least zero, not -1s"},
        {"param a = 1\nparam b = a", "2:11: a parameter's value is a constant: it cannot name 'a'"},
        {"param a = 1\n\nparam a = 2", "3:7: parameter 'a' declared again (first at 1:7)"},
        {"param s = 1", "1:7: 's' is a unit: a parameter cannot be called so"},
        {"rule r { when true then log(message = \"m\") }\nrule r { when false then log(message = "
         "\"n\") }",
         "2:6: rule 'r' defined again (first at 1:6)"},
        {"rule r { priority 1.5 when true then log(message = \"m\") }",
         "1:19: priority is a whole number from -1000000 to 1000000"},
        {"rule r { when true then log(message = \"m) }",
         "1:39: unterminated string (a string ends on its line)"},
        {"rule r { when true then log(message = \"a\\q\") }",
         "1:41: unknown escape '\\q' (known: \\\" \\\\ \\n \\t)"},
        {"rule r { when true then reroute(engine = \"ftree\", subtree = top(port.rcv_bytes, 2)) }",
         "1:65: top() ranks nodes: top(node.METRIC, N)"},
        {"rule r { when true then reroute(engine = \"ftree\", subtree = top(node.rcv_bytes, 0)) }",
         "1:81: top's count is a whole number from 1 to 1000000, not 0"},
        {"rule r {", "1:9: unexpected end of file, expecting 'priority' or 'when'"},
        {"param x = 1e999", "1:11: number 1e999 out of range"},
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(want, sizeof want, "t.rules:%s", files[i].error);
        assert_error(files[i].text, want);
    }
    /* nesting is bounded (the checker and the evaluator recurse) */
    size_t n = 0;
    n += (size_t)snprintf(text + n, sizeof text - n, "param x = ");
    for (int i = 0; i < 210; i++)
        text[n++] = '-';
    snprintf(text + n, sizeof text - n, "1");
    assert_error(text, "t.rules:1:21: expression nested more than 200 deep");
    /* a NUL byte is an error, not the end */
    struct cs_adapt_rules *r;
    struct cs_error err;
    assert_int_equal(cs_adapt_parse("param a = 1\0", 12, "t.rules", &r, &err), -1);
    assert_string_equal(err.msg, "t.rules:1:12: unexpected byte 0x00");
}

static void test_overrides(void **state)
{
    (void)state;
    struct cs_adapt_rules *r =
        parse_ok("param threshold = 2 GB/s\nparam window = 30s\nparam engine = \"wftree\"\n"
                 "rule r { when avg(node.throughput over window) < threshold for window\n"
                 "  then reroute(engine = engine) }\n");
    struct cs_error err = {""};
    assert_int_equal(cs_adapt_set_param(r, "threshold", "1.5 GB/s", &err), 0);
    assert_near(param(r, "threshold").value.number, 1.5e9);
    assert_true(param(r, "threshold").overridden);
    assert_false(param(r, "window").overridden);
    /* exact text written back reads back as the same value */
    char text[64];
    struct cs_adapt_value odd = {.type = CS_ADAPT_RATE, .number = 1e9 / 3};
    assert_int_equal(cs_adapt_set_param(r, "threshold",
                                        cs_adapt_value_format(&odd, 17, text, sizeof text), &err),
                     0);
    assert_true(param(r, "threshold").value.number == odd.number);
    /* The longest window read (what the loop keeps samples for) follows the parameter too. */
    assert_true(cs_adapt_rules_longest_window(r) == 30);
    /* `for window` follows the parameter */
    assert_int_equal(cs_adapt_set_param(r, "window", "2m", &err), 0);
    assert_true(cs_adapt_rules_longest_window(r) == 120);
    struct cs_adapt_rule_info info;
    cs_adapt_rule_get(r, 0, &info);
    assert_near(info.for_s, 120);
    /* the wrong type: refused, value kept */
    assert_int_equal(cs_adapt_set_param(r, "window", "3 GB/s", &err), -1);
    assert_string_equal(err.msg, "parameter window: '3 GB/s' is a rate; window is a duration "
                                 "(declared at t.rules:2:7)");
    assert_near(param(r, "window").value.number, 120);
    /* a value the rules cannot use: refused, value kept */
    assert_int_equal(cs_adapt_set_param(r, "window", "0s", &err), -1);
    assert_string_equal(err.msg, "parameter window = 0s: t.rules:4:40: 'over' must be above zero, "
                                 "not 0s");
    assert_near(param(r, "window").value.number, 120);
    assert_int_equal(cs_adapt_set_param(r, "engine", "wfree", &err), -1);
    assert_string_equal(err.msg,
                        "parameter engine = wfree: t.rules:5:25: unknown routing engine \"wfree\" "
                        "(engines: ftree, noftree, wftree, pftree, vftree, slimupdate, mftree, "
                        "minhop, updn)");
    assert_string_equal(param(r, "engine").value.text, "wftree");
    /* a string: a bare word or a quoted string */
    assert_int_equal(cs_adapt_set_param(r, "engine", "ftree", &err), 0);
    assert_string_equal(param(r, "engine").value.text, "ftree");
    assert_int_equal(cs_adapt_set_param(r, "engine", "\"slimupdate\"", &err), 0);
    assert_string_equal(param(r, "engine").value.text, "slimupdate");
    /* not a constant, not a value, no such parameter */
    assert_int_equal(cs_adapt_set_param(r, "threshold", "avg(node.rcv_bytes)", &err), -1);
    assert_string_equal(err.msg, "parameter threshold:1:1: a parameter's value is a constant: it "
                                 "cannot call avg()");
    assert_int_equal(cs_adapt_set_param(r, "threshold", "2 GB/s x", &err), -1);
    assert_string_equal(
        err.msg, "parameter threshold:1:8: unexpected identifier 'x', expecting end of file or "
                 "an operator");
    assert_int_equal(cs_adapt_set_param(r, "nope", "1", &err), -1);
    assert_string_equal(err.msg, "t.rules: no parameter 'nope' (parameters: threshold, window, "
                                 "engine)");
    cs_adapt_rules_free(r);
}

/* ---- evaluation over hand-built measurements ---- */

/* Four CA nodes (GUIDs 0x11..0x14, one port each) on one switch (0x100, ports 1..4); links of
 * 1 GB/s but the fourth, whose rate is unknown. Ports: CAs 0..3, the switch's 4..7. Partition
 * tenant-a: the first two nodes. */
static void four_nodes(struct cs_metrics *m)
{
    struct cs_error err = {""};
    cs_metrics_init(m);
    for (uint64_t i = 0; i < 4; i++)
        assert_int_equal(cs_metrics_add_node(m, 0x11 + i, CS_NODE_CA, "ca", &err), 0);
    assert_int_equal(cs_metrics_add_node(m, 0x100, CS_NODE_SWITCH, "sw", &err), 0);
    for (uint32_t i = 0; i < 4; i++) {
        struct cs_metric_port p = {.guid = 0x1000 + i,
                                   .node = i,
                                   .num = 1,
                                   .peer_num = (uint8_t)(i + 1),
                                   .lid = (uint16_t)(i + 1),
                                   .peer_node_guid = 0x100,
                                   .link_bytes_per_s = i == 3 ? 0 : 1e9};
        assert_int_equal(cs_metrics_add_port(m, &p, &err), 0);
    }
    for (uint32_t k = 1; k <= 4; k++) {
        struct cs_metric_port p = {.node = 4,
                                   .num = (uint8_t)k,
                                   .peer_num = 1,
                                   .lid = 9,
                                   .peer_node_guid = 0x11 + k - 1,
                                   .link_bytes_per_s = k == 4 ? 0 : 1e9};
        assert_int_equal(cs_metrics_add_port(m, &p, &err), 0);
    }
    uint32_t members[] = {0, 1};
    assert_int_equal(cs_metrics_add_partition(m, "tenant-a", 1, members, 2, &err), 0);
}

static void add_sample(struct cs_metrics *m, double time, double interval, uint32_t port,
                       double xmit, double rcv)
{
    struct cs_error err = {""};
    struct cs_metric_sample s = {.time = time, .interval = interval, .port = port};
    s.value[CS_METRIC_XMIT_BYTES] = xmit;
    s.value[CS_METRIC_RCV_BYTES] = rcv;
    if (cs_metrics_add_sample(m, &s, &err) != 0)
        fail_msg("%s", err.msg);
}

/* One poll at 100 s over 10 s: CA i transmits (i + 1) / 2 MB/s and receives i + 1 MB/s; the
 * switch port to CA k-1 transmits k + 0.1 MB/s (a little more than its CA receives) and
 * receives k / 2 MB/s. */
static void four_nodes_polled(struct cs_metrics *m)
{
    four_nodes(m);
    for (uint32_t i = 0; i < 4; i++)
        add_sample(m, 100, 10, i, (i + 1) * 0.5e6, (i + 1) * 1e6);
    for (uint32_t k = 1; k <= 4; k++)
        add_sample(m, 100, 10, 3 + k, k * 1e6 + 0.1e6, k * 0.5e6);
}

/* Rules, their state and the last step's firings. */
struct run {
    struct cs_adapt_rules *r;
    struct cs_adapt_state s;
    struct cs_adapt_firing *f;
    uint32_t n;
    struct cs_error err;
};

static void run_start(struct run *x, const char *text)
{
    memset(x, 0, sizeof(*x));
    x->r = parse_ok(text);
    assert_int_equal(cs_adapt_state_init(&x->s, x->r, &x->err), 0);
}

/* One step at now; the previous step's firings are freed first. */
static void run_step(struct run *x, const struct cs_metrics *m, double now)
{
    cs_adapt_firings_free(x->f, x->n);
    x->f = NULL;
    x->n = 0;
    if (cs_adapt_step(x->r, &x->s, m, now, &x->f, &x->n, &x->err) != 0)
        fail_msg("step at %g: %s", now, x->err.msg);
}

static void run_end(struct run *x)
{
    cs_adapt_firings_free(x->f, x->n);
    cs_adapt_state_free(&x->s);
    cs_adapt_rules_free(x->r);
}

/* The value of expr (whose type's zero is `zero`) at now over m, as a firing's `set` resolves
 * it; NAN when the rule cannot be evaluated. */
static double value_of(const char *zero, const char *expr, const struct cs_metrics *m, double now)
{
    char text[512];
    snprintf(text, sizeof text,
             "param out = %s\nrule r { when true then set(param = out, value = %s) }", zero, expr);
    struct run x;
    run_start(&x, text);
    run_step(&x, m, now);
    double v = NAN;
    if (x.n == 1) {
        const struct cs_adapt_value *got = cs_adapt_action_arg(&x.f[0].actions[0], "value");
        assert_non_null(got);
        v = got->number;
    } else {
        assert_int_equal(x.s.rules[0].status, CS_ADAPT_UNDEFINED);
    }
    run_end(&x);
    return v;
}

/* An expression's known value at a time; NAN: it cannot be evaluated then. */
struct known {
    const char *zero, *expr;
    double now, value;
};

static void check_known(const struct cs_metrics *m, const struct known *k, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        double got = value_of(k[i].zero, k[i].expr, m, k[i].now);
        if (!near(got, k[i].value))
            fail_msg("%s at %g: got %.17g, want %.17g", k[i].expr, k[i].now, got, k[i].value);
    }
}

static void test_aggregates(void **state)
{
    (void)state;
    struct cs_metrics m;
    four_nodes_polled(&m);
    /* node.rcv_bytes: 1, 2, 3, 4 MB/s */
    const struct known want[] = {
        {"0 B/s", "avg(node.rcv_bytes)", 100, 2.5e6},
        {"0 B/s", "sum(node.rcv_bytes)", 100, 10e6},
        {"0 B/s", "min(node.rcv_bytes)", 100, 1e6},
        {"0 B/s", "max(node.rcv_bytes)", 100, 4e6},
        {"0 B/s", "median(node.rcv_bytes)", 100, 2.5e6},
        /* rank (4 - 1) x 0.9 = 2.7: 3 + 0.7 x (4 - 3) MB/s */
        {"0 B/s", "p90(node.rcv_bytes)", 100, 3.7e6},
        {"0 B/s", "p99(node.rcv_bytes)", 100, 3.97e6},
        /* population: sqrt((2.25 + 0.25 + 0.25 + 2.25) / 4) MB/s */
        {"0 B/s", "stddev(node.rcv_bytes)", 100, sqrt(1.25) * 1e6},
        {"0", "count(node.rcv_bytes)", 100, 4},
        /* throughput: transmit plus receive, 1.5 x (i + 1) MB/s */
        {"0 B/s", "avg(node.throughput)", 100, 3.75e6},
        /* the switch sums its ports; the fabric sums the CA ports */
        {"0 B/s", "sum(switch.rcv_bytes)", 100, 5e6},
        {"0", "count(switch.rcv_bytes)", 100, 1},
        {"0 B/s", "sum(fabric.throughput)", 100, 15e6},
        {"0", "count(fabric.throughput)", 100, 1},
        /* every watched port */
        {"0", "count(port.xmit_bytes)", 100, 8},
        {"0 B/s", "avg(port.xmit_bytes)", 100, (5e6 + 10.4e6) / 8},
        /* a link is the busier end: max(CA k-1 transmits k/2, the switch transmits k + 0.1) */
        {"0", "count(link.xmit_bytes)", 100, 4},
        {"0 B/s", "avg(link.xmit_bytes)", 100, 2.6e6},
        {"0 B/s", "max(link.xmit_bytes)", 100, 4.1e6},
        {"0 B/s", "avg(link.rcv_bytes)", 100, 2.5e6},
        /* ... and its throughput the busier direction, not the two summed */
        {"0 B/s", "max(link.throughput)", 100, 4.1e6},
        /* utilisation: the busier direction over the rate; the unknown rates left out */
        {"0", "count(port.utilisation)", 100, 6},
        {"0", "max(port.utilisation)", 100, 3.1e6 / 1e9},
        {"0", "count(link.utilisation)", 100, 3},
        {"0", "min(link.utilisation)", 100, 1.1e6 / 1e9},
        /* link_rate is static: the ports with a known rate */
        {"0", "count(port.link_rate)", 100, 6},
        {"0 B/s", "sum(node.link_rate)", 100, 3e9},
        /* the partition's nodes, their ports and links */
        {"0 B/s", "avg(node.rcv_bytes in partition \"tenant-a\")", 100, 1.5e6},
        {"0", "count(port.rcv_bytes in partition \"tenant-a\")", 100, 2},
        {"0", "count(link.rcv_bytes in partition \"tenant-a\")", 100, 2},
        {"0 B/s", "sum(fabric.rcv_bytes in partition \"tenant-a\")", 100, 3e6},
        /* an unknown partition cannot be evaluated */
        {"0 B/s", "avg(node.rcv_bytes in partition \"nope\")", 100, NAN},
        /* arithmetic on measurements: a ratio of two rates is a number */
        {"0", "max(node.rcv_bytes) / avg(node.rcv_bytes)", 100, 1.6},
        /* a count rate: nobody sent packets, and that is a value (0), not missing */
        {"0/s", "sum(node.xmit_pkts)", 100, 0},
    };
    check_known(&m, want, sizeof want / sizeof want[0]);
    cs_metrics_free(&m);
}

static void test_top(void **state)
{
    (void)state;
    struct cs_metrics m;
    four_nodes_polled(&m);
    struct run x;
    run_start(
        &x,
        "rule r { when true then reroute(engine = \"ftree\", subtree = top(node.rcv_bytes, 2),\n"
        "  weights = learned(over 5m)) }");
    run_step(&x, &m, 100);
    assert_int_equal(x.n, 1);
    assert_string_equal(x.f[0].actions[0].name, "reroute");
    const struct cs_adapt_value *sub = cs_adapt_action_arg(&x.f[0].actions[0], "subtree");
    assert_non_null(sub);
    assert_int_equal(sub->num_guids, 2);
    assert_int_equal(sub->guids[0], 0x14); /* busiest first */
    assert_int_equal(sub->guids[1], 0x13);
    const struct cs_adapt_value *w = cs_adapt_action_arg(&x.f[0].actions[0], "weights");
    assert_int_equal(w->type, CS_ADAPT_WEIGHTS);
    assert_near(w->number, 300);
    assert_string_equal(cs_adapt_action_arg(&x.f[0].actions[0], "engine")->text, "ftree");
    assert_null(cs_adapt_action_arg(&x.f[0].actions[0], "order"));
    run_end(&x);
    cs_metrics_free(&m);
}

/* One port's samples (0, 10] at 100 B/s and (10, 20] at 200 B/s. */
static void test_window(void **state)
{
    (void)state;
    /* learned() windows count among the windows read, in actions too. */
    struct cs_adapt_rules *lr =
        parse_ok("rule r { when avg(node.rcv_bytes over 5m) > 0 B/s\n"
                 "  then reroute(engine = \"wftree\", weights = learned(over 1h)) }\n");
    assert_true(cs_adapt_rules_longest_window(lr) == 3600);
    cs_adapt_rules_free(lr);
    struct cs_metrics m;
    four_nodes(&m);
    add_sample(&m, 10, 10, 0, 0, 100);
    add_sample(&m, 20, 10, 0, 0, 200);
    /* [5, 20]: 5 s of the first, 10 s of the second */
    const struct known want[] = {
        {"0 B/s", "avg(port.rcv_bytes over 15s)", 20, (5 * 100 + 10 * 200) / 15.0},
        {"0 B/s", "avg(port.rcv_bytes over 10s)", 20, 200},
        {"0 B/s", "avg(port.rcv_bytes over 1h)", 20, 150},
        /* no window: the last poll */
        {"0 B/s", "avg(port.rcv_bytes)", 20, 200},
        {"0 B/s", "avg(port.rcv_bytes)", 1000, 200},
        /* at 15 s the second sample has not ended: [5, 15] is 5 s of the first only */
        {"0 B/s", "avg(port.rcv_bytes over 10s)", 15, 100},
        {"0 B/s", "avg(port.rcv_bytes)", 15, 100},
        /* [15, 25]: the half of the second sample inside */
        {"0 B/s", "avg(port.rcv_bytes over 10s)", 25, 200},
        /* nothing in [30, 40], nothing ended by 5 */
        {"0 B/s", "avg(port.rcv_bytes over 10s)", 40, NAN},
        {"0 B/s", "avg(port.rcv_bytes)", 5, NAN},
        /* count is defined without samples: none */
        {"0", "count(port.rcv_bytes over 10s)", 40, 0},
    };
    check_known(&m, want, sizeof want / sizeof want[0]);
    cs_metrics_free(&m);
}

static void test_explanation(void **state)
{
    (void)state;
    struct cs_metrics m;
    four_nodes_polled(&m);
    struct run x;
    run_start(
        &x,
        "param low = 1 MB/s\n"
        "rule hot { when max(node.rcv_bytes) > 1.5 * avg(node.rcv_bytes) and avg(node.rcv_bytes) "
        "> low then log(message = \"hot\") }\n"
        "rule gone { when avg(node.rcv_bytes over 5s) > low then log(message = \"x\") }\n");
    /* at 200 s: without a window the last poll (ending at 100) counts; [195, 200] has nothing */
    run_step(&x, &m, 200);
    assert_int_equal(x.n, 1);
    assert_string_equal(x.f[0].explanation,
                        "max(node.rcv_bytes)=4 MB/s > 1.5 * avg(node.rcv_bytes)=2.5 MB/s and "
                        "avg(node.rcv_bytes)=2.5 MB/s > low=1 MB/s");
    assert_int_equal(x.s.rules[1].status, CS_ADAPT_UNDEFINED);
    assert_string_equal(x.s.rules[1].explanation,
                        "cannot evaluate: no values of node.rcv_bytes in the last 5s");
    /* a step report: each rule's new status, then the firing's actions */
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_int_equal(cs_adapt_write_step(out, x.r, &x.s, 200, x.f, x.n, &x.err), 0);
    fclose(out);
    assert_string_equal(text, "200.000 hot fired: max(node.rcv_bytes)=4 MB/s > 1.5 * "
                              "avg(node.rcv_bytes)=2.5 MB/s and avg(node.rcv_bytes)=2.5 MB/s > "
                              "low=1 MB/s\n"
                              "200.000 gone undefined: cannot evaluate: no values of "
                              "node.rcv_bytes in the last 5s\n"
                              "200.000 hot -> log(message = \"hot\")\n");
    free(text);
    run_end(&x);
    cs_metrics_free(&m);
}

/* ---- for, cooldown, priorities ---- */

/* CA 0x11 receives, per 10 s poll ending at 10, 20, ..., 100: H (5 MB/s), L (1 MB/s) or
 * nothing (-). */
static const char hysteresis_polls[] = "HHHLH-HHHH";

static void hysteresis_metrics(struct cs_metrics *m)
{
    four_nodes(m);
    for (int i = 0; hysteresis_polls[i]; i++)
        if (hysteresis_polls[i] != '-')
            add_sample(m, 10.0 * (i + 1), 10, 0, 0, hysteresis_polls[i] == 'H' ? 5e6 : 1e6);
}

static const char hysteresis_rules[] =
    "rule hot { when max(node.rcv_bytes over 10s) > 3 MB/s for 20s then log(message = \"hot\") }";

static void test_for(void **state)
{
    (void)state;
    struct cs_metrics m;
    hysteresis_metrics(&m);
    struct run x;
    run_start(&x, hysteresis_rules);
    /* held from 10: fires at 30; false at 40 resets; held from 50, but 60 has no sample (reset);
     * held from 70: fires at 90, then holds again from 90 */
    const enum cs_adapt_status want[] = {
        CS_ADAPT_HOLDING,   CS_ADAPT_HOLDING, CS_ADAPT_FIRED,   CS_ADAPT_FALSE, CS_ADAPT_HOLDING,
        CS_ADAPT_UNDEFINED, CS_ADAPT_HOLDING, CS_ADAPT_HOLDING, CS_ADAPT_FIRED, CS_ADAPT_HOLDING,
    };
    for (int i = 0; i < 10; i++) {
        double now = 10.0 * (i + 1);
        run_step(&x, &m, now);
        if (x.s.rules[0].status != want[i])
            fail_msg("at %g: %s, want %s", now, cs_adapt_status_name(x.s.rules[0].status),
                     cs_adapt_status_name(want[i]));
        assert_int_equal(x.n, want[i] == CS_ADAPT_FIRED ? 1 : 0);
        if (x.n == 1)
            assert_near(x.f[0].time, now);
    }
    assert_int_equal(x.s.rules[0].fired, 2);
    assert_near(x.s.rules[0].last_fired, 90);
    /* time does not go back; the state is left as it was */
    struct cs_adapt_firing *f;
    uint32_t n;
    assert_int_equal(cs_adapt_step(x.r, &x.s, &m, 50, &f, &n, &x.err), -1);
    assert_null(f);
    assert_string_equal(x.err.msg, "step at 50.000 before the previous one (100.000)");
    assert_near(x.s.last_step, 100);
    assert_int_equal(x.s.rules[0].fired, 2);
    run_end(&x);
    cs_metrics_free(&m);
}

static void test_cooldown(void **state)
{
    (void)state;
    struct cs_metrics m;
    cs_metrics_init(&m);
    struct run x;
    run_start(&x, "rule again { when true cooldown 25s then log(message = \"again\") }");
    /* fires at 0, 30, 60; cooling down between, whether the loop refused or executed */
    for (int i = 0; i <= 6; i++) {
        run_step(&x, &m, 10.0 * i);
        bool fires = i % 3 == 0;
        assert_int_equal(x.n, fires ? 1 : 0);
        assert_int_equal(x.s.rules[0].status, fires ? CS_ADAPT_FIRED : CS_ADAPT_COOLDOWN);
        if (fires) {
            assert_int_equal(x.s.rules[0].outcome, CS_ADAPT_PENDING);
            cs_adapt_state_outcome(&x.s, x.f[0].rule, i != 3); /* the loop refuses the second */
        }
    }
    assert_int_equal(x.s.rules[0].fired, 3);
    assert_int_equal(x.s.rules[0].executed, 2);
    assert_int_equal(x.s.rules[0].refused, 1);
    run_end(&x);
    cs_metrics_free(&m);
}

static void test_priority(void **state)
{
    (void)state;
    struct cs_metrics m;
    cs_metrics_init(&m);
    struct run x;
    run_start(&x, "rule a { priority 1 when true then log(message = \"a\") }\n"
                  "rule b { priority 10 when true then log(message = \"b\") }\n"
                  "rule c { priority 10 when true then log(message = \"c\") }\n"
                  "rule d { priority -5 when true then log(message = \"d\") }\n"
                  "rule e { when false then log(message = \"e\") }\n");
    run_step(&x, &m, 1);
    assert_int_equal(x.n, 4);
    const char *order[] = {"b", "c", "a", "d"};
    for (uint32_t i = 0; i < x.n; i++) {
        assert_string_equal(x.f[i].rule_name, order[i]);
        assert_string_equal(cs_adapt_action_arg(&x.f[i].actions[0], "message")->text, order[i]);
    }
    assert_int_equal(x.f[2].priority, 1);
    run_end(&x);
    cs_metrics_free(&m);
}

/* `set` resolves its value with the parameter's type, written exactly */
static void test_set_action(void **state)
{
    (void)state;
    struct cs_metrics m;
    four_nodes_polled(&m);
    struct run x;
    run_start(
        &x,
        "param threshold = 2 GB/s\n"
        "rule adapt { when true then set(value = 0.8 * avg(node.rcv_bytes), param = threshold) }");
    run_step(&x, &m, 100);
    assert_int_equal(x.n, 1);
    const struct cs_adapt_action *a = &x.f[0].actions[0];
    assert_int_equal(a->num_args, 2);
    assert_string_equal(a->args[0].name, "param"); /* registry order */
    assert_string_equal(a->args[0].value.text, "threshold");
    assert_int_equal(a->args[1].value.type, CS_ADAPT_RATE);
    assert_near(a->args[1].value.number, 2e6);
    /* what the loop does with it */
    char text[64];
    assert_int_equal(
        cs_adapt_set_param(x.r, a->args[0].value.text,
                           cs_adapt_value_format(&a->args[1].value, 17, text, sizeof text), &x.err),
        0);
    assert_near(param(x.r, "threshold").value.number, 2e6);
    run_end(&x);
    cs_metrics_free(&m);
}

/* ---- replay ---- */

static int write_step(void *ctx, double now, const struct cs_adapt_state *s,
                      const struct cs_adapt_firing *firings, uint32_t count)
{
    void **args = ctx;
    struct cs_error err;
    return cs_adapt_write_step(args[0], args[1], s, now, firings, count, &err);
}

static char *replay_text(const struct cs_adapt_rules *r, const struct cs_metrics *m, double step_s)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    void *args[2] = {out, (void *)r};
    struct cs_error err = {""};
    int rc = cs_adapt_replay(r, m, step_s, write_step, args, &err);
    fclose(out);
    if (rc != 0)
        fail_msg("replay: %s", err.msg);
    return text;
}

static void test_replay(void **state)
{
    (void)state;
    struct cs_metrics m;
    hysteresis_metrics(&m);
    struct cs_adapt_rules *r = parse_ok(hysteresis_rules);
    char *first = replay_text(r, &m, 0), *second = replay_text(r, &m, 0);
    assert_string_equal(first, second);
    /* steps at the sample times (none at 60): fires at 30 and, after the reset at 40, at 90 */
    assert_non_null(strstr(first, "30.000 hot fired: max(node.rcv_bytes over 10s)=5 MB/s > 3 MB/s\n"
                                  "30.000 hot -> log(message = \"hot\")\n"));
    assert_non_null(strstr(first, "40.000 hot false: "));
    assert_non_null(strstr(first, "90.000 hot fired: "));
    assert_null(strstr(first, "60.000"));
    free(first);
    free(second);
    /* every 5 s: 60 is stepped, has nothing in its window, and resets the timer */
    char *fives = replay_text(r, &m, 5);
    assert_non_null(strstr(fives, "60.000 hot undefined: cannot evaluate: no values of "
                                  "node.rcv_bytes in the last 10s"));
    free(fives);
    cs_adapt_rules_free(r);
    cs_metrics_free(&m);
}

/* A sample that ends after the step time changes nothing at that step, though the window
 * reaches back into its interval. */
static void test_no_peeking(void **state)
{
    (void)state;
    struct cs_metrics early, late;
    four_nodes(&early);
    four_nodes(&late);
    for (int t = 10; t <= 20; t += 10) {
        add_sample(&early, t, 10, 0, 0, 5e6);
        add_sample(&late, t, 10, 0, 0, 5e6);
    }
    add_sample(&late, 30, 10, 0, 0, 0); /* (20, 30]: would halve the mean of [15, 25] */
    assert_near(value_of("0 B/s", "avg(node.rcv_bytes over 10s)", &late, 25), 5e6);
    assert_near(value_of("0 B/s", "avg(node.rcv_bytes over 10s)", &late, 30), 0);
    struct cs_adapt_rules *r = parse_ok(
        "rule busy { when avg(node.rcv_bytes over 10s) > 4 MB/s then log(message = \"busy\") }");
    char *a = replay_text(r, &early, 2.5), *b = replay_text(r, &late, 2.5);
    /* the later recording's replay starts with the earlier one's, step for step */
    assert_true(strlen(b) > strlen(a));
    assert_memory_equal(a, b, strlen(a));
    assert_non_null(strstr(b, "22.500 busy fired"));
    assert_non_null(strstr(b, "25.000 busy fired"));
    assert_non_null(strstr(b, "30.000 busy false"));
    free(a);
    free(b);
    cs_adapt_rules_free(r);
    cs_metrics_free(&early);
    cs_metrics_free(&late);
}

/* ---- the example files and the manual ---- */

static void test_examples(void **state)
{
    (void)state;
    DIR *dir = opendir(DOCS "/examples");
    assert_non_null(dir);
    int files = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 7 || strcmp(e->d_name + len - 6, ".rules") != 0)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/%s", DOCS, e->d_name);
        struct cs_adapt_rules *r;
        struct cs_error err = {""};
        if (cs_adapt_read(path, &r, &err) != 0)
            fail_msg("%s", err.msg);
        assert_true(cs_adapt_rule_count(r) > 0);
        cs_adapt_rules_free(r);
        files++;
    }
    closedir(dir);
    assert_true(files >= 3);
}

/* Every action and argument of the registry is a row of the manual's table, with its type and
 * whether it is required; every row names a registry entry. */
static void test_manual_actions(void **state)
{
    (void)state;
    char *doc = NULL;
    size_t len;
    struct cs_error err = {""};
    if (cs_read_whole_file(DOCS "/language.md", &doc, &len, &err) != 0)
        fail_msg("%s", err.msg);
    int rows = 0;
    for (const struct cs_adapt_action_def *a = cs_adapt_actions; a->name; a++)
        for (const struct cs_adapt_arg_def *d = a->args; d->name; d++, rows++) {
            char row[256];
            snprintf(row, sizeof row, "\n| `%s` | `%s` | %s | %s |", a->name, d->name,
                     cs_adapt_type_name(d->type), d->required ? "yes" : "no");
            if (strstr(doc, row) == NULL)
                fail_msg("docs/adapt/language.md has no row%s", row);
        }
    /* the table: from its header to the first blank line */
    char *table = strstr(doc, "\n| action | argument | type | required | meaning |\n");
    assert_non_null(table);
    char *end = strstr(table + 1, "\n\n");
    if (end != NULL)
        *end = '\0';
    int documented = 0;
    for (const char *p = strstr(table, "\n| `"); p != NULL; p = strstr(p + 1, "\n| `")) {
        char action[64], arg[64];
        if (sscanf(p, "\n| `%63[a-z_]` | `%63[a-z_]` |", action, arg) != 2)
            continue;
        const struct cs_adapt_action_def *a = cs_adapt_action_find(action);
        if (a == NULL)
            fail_msg("the manual documents an action '%s' the registry does not have", action);
        bool known = false;
        for (const struct cs_adapt_arg_def *d = a->args; d->name; d++)
            known = known || strcmp(d->name, arg) == 0;
        if (!known)
            fail_msg("the manual documents %s(%s), which the registry does not have", action, arg);
        documented++;
    }
    assert_int_equal(documented, rows);
    free(doc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_grammar),
        cmocka_unit_test(test_precedence),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_overrides),
        cmocka_unit_test(test_aggregates),
        cmocka_unit_test(test_top),
        cmocka_unit_test(test_window),
        cmocka_unit_test(test_explanation),
        cmocka_unit_test(test_for),
        cmocka_unit_test(test_cooldown),
        cmocka_unit_test(test_priority),
        cmocka_unit_test(test_set_action),
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_no_peeking),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_manual_actions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
