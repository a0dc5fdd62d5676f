/* CPU demand traces (cloudsm/trace.h): native CSV, PlanetLab directories, the synthetic UiO-like
 * generator and the cleaning filter, after Paper VI (docs/references.md; docs/formats/trace.md). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
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

#include "cloudsm/trace.h"

#define DATA CLOUDSM_TEST_DATA "/trace/"

static void parse_ok(struct cs_trace *t, const char *text)
{
    struct cs_error err = {""};
    if (cs_trace_parse_csv(t, text, strlen(text), "csv", &err) != 0)
        fail_msg("%s", err.msg);
}

static int write_cb(FILE *out, const void *t, struct cs_error *err)
{
    return cs_trace_write_csv(out, t, err);
}

static void assert_same_trace(const struct cs_trace *a, const struct cs_trace *b)
{
    assert_int_equal(a->num_vms, b->num_vms);
    assert_int_equal(a->steps, b->steps);
    assert_int_equal(a->step_seconds, b->step_seconds);
    for (uint32_t v = 0; v < a->num_vms; v++) {
        assert_string_equal(a->vms[v].name, b->vms[v].name);
        assert_int_equal(a->vms[v].vcores, b->vms[v].vcores);
    }
    size_t n = (size_t)a->num_vms * a->steps;
    for (size_t i = 0; i < n; i++)
        assert_true((isnan(a->demand[i]) && isnan(b->demand[i])) || a->demand[i] == b->demand[i]);
}

static void test_csv_small_file(void **state)
{
    (void)state;
    struct cs_trace t;
    struct cs_error err = {""};
    if (cs_trace_read_csv(&t, DATA "small.csv", &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(t.num_vms, 2);
    assert_int_equal(t.steps, 4);
    assert_int_equal(t.step_seconds, 60);
    assert_string_equal(t.vms[0].name, "web"); /* first appearance order */
    assert_int_equal(t.vms[0].vcores, 1);
    assert_string_equal(t.vms[1].name, "db");
    assert_int_equal(t.vms[1].vcores, 4);
    const float *web = cs_trace_vm_demand(&t, 0), *db = cs_trace_vm_demand(&t, 1);
    assert_true(web[0] == 10.0f && web[1] == 20.5f && isnan(web[2]) && web[3] == 7.0f);
    assert_true(isnan(db[0]) && db[1] == 0.0f && db[2] == 399.75f && db[3] == -1.0f);

    char *text = capture(write_cb, &t);
    assert_string_equal(text, "# cloudsm-trace step_seconds=60 steps=4\n"
                              "vm,vcores,t,cpu_pct\n"
                              "web,1,0,10\nweb,1,1,20.5\nweb,1,2,\nweb,1,3,7\n"
                              "db,4,0,\ndb,4,1,0\ndb,4,2,399.75\ndb,4,3,-1\n");
    struct cs_trace back;
    parse_ok(&back, text);
    assert_same_trace(&t, &back);
    free(text);
    cs_trace_free(&back);
    cs_trace_free(&t);
}

static void test_csv_directive_and_values(void **state)
{
    (void)state;
    struct cs_trace t;
    /* steps from the directive keeps trailing missing steps; CRLF, spaces, comments */
    parse_ok(&t, "# cloudsm-trace step_seconds=300 steps=5\r\n# a comment\n"
                 "vm,vcores,t,cpu_pct\r\n\n a ,2, 1 , 0.1 \r\n# more\na,2,0,1e2\n");
    assert_int_equal(t.steps, 5);
    assert_int_equal(t.step_seconds, 300);
    assert_string_equal(t.vms[0].name, "a");
    const float *a = cs_trace_vm_demand(&t, 0);
    assert_true(a[0] == 100.0f && a[1] == 0.1f && isnan(a[2]) && isnan(a[4]));
    char *text = capture(write_cb, &t);
    /* 0.1f is written as "0.1", not 0.100000001 */
    assert_non_null(strstr(text, "a,2,1,0.1\n"));
    free(text);
    cs_trace_free(&t);

    parse_ok(&t, "vm,vcores,t,cpu_pct\n");
    assert_int_equal(t.num_vms, 0);
    assert_int_equal(t.steps, 0);
    cs_trace_free(&t);
}

/* Rows interleaved by time (not grouped by VM) still map to the right VMs. */
static void test_csv_interleaved(void **state)
{
    (void)state;
    struct cs_trace t;
    parse_ok(&t, "vm,vcores,t,cpu_pct\nb,1,0,1\na,1,0,2\nc,1,0,3\nb,1,1,4\na,1,1,5\nc,1,1,6\n");
    assert_int_equal(t.num_vms, 3);
    assert_string_equal(t.vms[0].name, "b");
    assert_string_equal(t.vms[2].name, "c");
    assert_true(cs_trace_vm_demand(&t, 0)[1] == 4.0f);
    assert_true(cs_trace_vm_demand(&t, 1)[1] == 5.0f);
    assert_true(cs_trace_vm_demand(&t, 2)[0] == 3.0f);
    cs_trace_free(&t);
}

/* Many VMs interleaved by time (the name table grows several times while rows come in, and a
 * later t grows every VM's series): each value lands at its VM and t, the rest stay NaN. */
static void test_csv_many_vms_interleaved(void **state)
{
    (void)state;
    enum { VMS = 300, STEPS = 40 };
    size_t cap = 64 + (size_t)VMS * STEPS * 32, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len, "vm,vcores,t,cpu_pct\n");
    for (unsigned t = 0; t < STEPS; t++)
        for (unsigned vm = 0; vm < VMS; vm++)
            if (t == 0 || (vm + t) % 7 != 0) /* some samples left out after t = 0 */
                len += (size_t)snprintf(text + len, cap - len, "vm-%u,%u,%u,%u\n", vm, vm % 4 + 1,
                                        t, vm * 100 + t);
    struct cs_trace tr;
    struct cs_error err;
    assert_int_equal(cs_trace_parse_csv(&tr, text, len, "many", &err), 0);
    assert_int_equal(tr.num_vms, VMS);
    assert_int_equal(tr.steps, STEPS);
    for (unsigned vm = 0; vm < VMS; vm++) {
        char name[16];
        snprintf(name, sizeof name, "vm-%u", vm);
        assert_string_equal(tr.vms[vm].name, name); /* first appearance order */
        assert_int_equal(tr.vms[vm].vcores, vm % 4 + 1);
        const float *demand = cs_trace_vm_demand(&tr, vm);
        for (unsigned t = 0; t < STEPS; t++) {
            if (t > 0 && (vm + t) % 7 == 0)
                assert_true(isnan(demand[t]));
            else
                assert_true(demand[t] == (float)(vm * 100 + t));
        }
    }
    cs_trace_free(&tr);
    free(text);
}

static void expect_error(const char *text, const char *expected_prefix, const char *part)
{
    struct cs_trace t;
    struct cs_error err = {""};
    assert_int_equal(cs_trace_parse_csv(&t, text, strlen(text), "csv", &err), -1);
    if (strncmp(err.msg, expected_prefix, strlen(expected_prefix)) != 0 || !strstr(err.msg, part))
        fail_msg("got \"%s\", expected \"%s...%s...\"", err.msg, expected_prefix, part);
    assert_null(t.vms);
    assert_null(t.demand);
}

static void test_csv_errors(void **state)
{
    (void)state;
    const char *h = "vm,vcores,t,cpu_pct\n";
    char buf[256];
    expect_error("", "csv:1: ", "missing the header");
    expect_error("a,1,0,5\n", "csv:1: ", "expected the header");
    snprintf(buf, sizeof buf, "%sa,1,0,5\na,2,1,5\n", h);
    expect_error(buf, "csv:3: ", "2 vcores here but 1");
    snprintf(buf, sizeof buf, "%sa,1,0,5\nb,1,0,5\na,1,0,6\n", h);
    expect_error(buf, "csv:4: ", "second sample for VM a at t = 0");
    snprintf(buf, sizeof buf, "%sa,1,0\n", h);
    expect_error(buf, "csv:2: ", "expected 4 fields");
    snprintf(buf, sizeof buf, "%sa,1,0,5,\n", h);
    expect_error(buf, "csv:2: ", "more than 4 fields");
    snprintf(buf, sizeof buf, "%sa,0,0,5\n", h);
    expect_error(buf, "csv:2: ", "vcores");
    snprintf(buf, sizeof buf, "%sa,1,-1,5\n", h);
    expect_error(buf, "csv:2: ", "t must be");
    snprintf(buf, sizeof buf, "%sa,1,0,5\na,1,1,inf\n", h);
    expect_error(buf, "csv:3: ", "cpu_pct");
    snprintf(buf, sizeof buf, "%sa,1,0,0x10\n", h);
    expect_error(buf, "csv:2: ", "cpu_pct");
    snprintf(buf, sizeof buf, "%s,1,0,5\n", h);
    expect_error(buf, "csv:2: ", "empty VM name");
    expect_error("# cloudsm-trace steps=2\nvm,vcores,t,cpu_pct\na,1,2,5\n",
                 "csv:3: ", "not below steps");
    expect_error("# cloudsm-trace step=2\n", "csv:1: ", "expected \"# cloudsm-trace");
}

static void test_planetlab(void **state)
{
    (void)state;
    struct cs_trace t;
    struct cs_error err = {""};
    if (cs_trace_read_planetlab(&t, DATA "planetlab", NULL, &err) != 0)
        fail_msg("%s", err.msg);
    /* name order, hidden file skipped, 5-minute samples repeated over 1-minute steps, the
     * shorter file padded with NaN */
    assert_int_equal(t.num_vms, 2);
    assert_int_equal(t.steps, 15);
    assert_int_equal(t.step_seconds, 60);
    assert_string_equal(t.vms[0].name, "a-host_1");
    assert_string_equal(t.vms[1].name, "b-host_2");
    assert_int_equal(t.vms[0].vcores, 1);
    const float *a = cs_trace_vm_demand(&t, 0), *b = cs_trace_vm_demand(&t, 1);
    for (uint32_t s = 0; s < 15; s++) {
        assert_true(b[s] == (float)(10 * (s / 5 + 1)));
        if (s < 10)
            assert_true(a[s] == (s < 5 ? 5.0f : 7.0f));
        else
            assert_true(isnan(a[s]));
    }
    cs_trace_free(&t);

    struct cs_planetlab_options o = {.vcores = 2, .step_seconds = 300};
    if (cs_trace_read_planetlab(&t, DATA "planetlab", &o, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(t.steps, 3);
    assert_int_equal(t.vms[1].vcores, 2);
    assert_true(cs_trace_vm_demand(&t, 1)[2] == 30.0f);
    cs_trace_free(&t);

    o.step_seconds = 7;
    assert_int_equal(cs_trace_read_planetlab(&t, DATA "planetlab", &o, &err), -1);
    assert_non_null(strstr(err.msg, "does not divide"));
    assert_int_equal(cs_trace_read_planetlab(&t, DATA "no-such-dir", NULL, &err), -1);

    /* a bad line is reported as file:line */
    char dir[] = "/tmp/cs-planetlab-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/vm1", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("1\n2\nx3\n", f);
    fclose(f);
    assert_int_equal(cs_trace_read_planetlab(&t, dir, NULL, &err), -1);
    char expected[300];
    snprintf(expected, sizeof expected, "%s:3: ", path);
    if (strncmp(err.msg, expected, strlen(expected)) != 0)
        fail_msg("got \"%s\"", err.msg);
    unlink(path);
    rmdir(dir);
}

static void test_synthetic_totals_and_determinism(void **state)
{
    (void)state;
    struct cs_trace t, again, other;
    struct cs_error err = {""};
    if (cs_trace_synthetic(&t, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    /* spec §2 / seed lines 7046-7047, 7092: 405 VMs, 1030 vCores, 13 x 1440 one-minute steps */
    assert_int_equal(t.num_vms, 405);
    assert_int_equal(t.steps, 13 * 1440);
    assert_int_equal(t.step_seconds, 60);
    uint64_t vcores = 0;
    uint32_t by_size[13] = {0};
    for (uint32_t v = 0; v < t.num_vms; v++) {
        vcores += t.vms[v].vcores;
        assert_true(t.vms[v].vcores <= 12);
        by_size[t.vms[v].vcores]++;
    }
    assert_int_equal(vcores, 1030);
    /* seed 7047-7049: mostly 1 or 2 vCores, a few 4, 8, 12 */
    assert_int_equal(by_size[1], 164);
    assert_int_equal(by_size[2], 149);
    assert_int_equal(by_size[12], 14);

    if (cs_trace_synthetic(&again, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    assert_same_trace(&t, &again);
    cs_trace_free(&again);

    struct cs_synthetic_options o;
    cs_synthetic_defaults(&o);
    o.seed = 2;
    if (cs_trace_synthetic(&other, &o, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(other.num_vms, 405);
    assert_memory_not_equal(t.demand, other.demand, (size_t)t.steps * sizeof *t.demand);
    cs_trace_free(&other);

    /* non-default sizes still meet the totals */
    o.vms = 10;
    o.total_vcores = 37;
    o.days = 2;
    if (cs_trace_synthetic(&other, &o, &err) != 0)
        fail_msg("%s", err.msg);
    vcores = 0;
    for (uint32_t v = 0; v < other.num_vms; v++)
        vcores += other.vms[v].vcores;
    assert_int_equal(vcores, 37);
    assert_int_equal(other.steps, 2880);
    cs_trace_free(&other);
    o.total_vcores = 9;
    assert_int_equal(cs_trace_synthetic(&other, &o, &err), -1);
    cs_trace_free(&t);
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_synthetic_shape(void **state)
{
    (void)state;
    struct cs_trace t;
    struct cs_error err = {""};
    if (cs_trace_synthetic(&t, NULL, &err) != 0)
        fail_msg("%s", err.msg);
    double *per_vm_util = calloc(t.num_vms, sizeof *per_vm_util);
    double aggregate_by_phase[5] = {0};
    double total = 0;
    for (uint32_t v = 0; v < t.num_vms; v++) {
        const float *d = cs_trace_vm_demand(&t, v);
        double sum = 0;
        for (uint32_t s = 0; s < t.steps; s++) {
            assert_true(d[s] >= 0 && d[s] <= 100.0f * t.vms[v].vcores);
            sum += d[s];
            aggregate_by_phase[s % 5] += d[s];
        }
        total += sum;
        per_vm_util[v] = sum / t.steps / (100.0 * t.vms[v].vcores);
    }
    /* spec §2: aggregate mean demand about 5000-5900% (bin counts of Fig. 4, lines 7246-7253) */
    double mean = total / t.steps;
    if (mean < 5000 || mean > 5900)
        fail_msg("aggregate mean demand %.0f%% outside 5000..5900", mean);
    /* line 7057-7059: median VM mostly idle */
    qsort(per_vm_util, t.num_vms, sizeof *per_vm_util, compare_doubles);
    assert_true(per_vm_util[t.num_vms / 2] < 0.10);
    /* line 7059-7060: a few VMs heavily used (>= 10 VMs above 25%, and fewer than 10% of VMs) */
    uint32_t heavy = 0;
    for (uint32_t v = 0; v < t.num_vms; v++)
        heavy += per_vm_util[v] > 0.25;
    assert_true(heavy >= 10 && heavy < t.num_vms / 10);
    /* lines 7054-7057: synchronized 5-minute bursts: the aggregate at phase 0 of every 5-minute
     * period is far above every other phase */
    for (int p = 1; p < 5; p++)
        assert_true(aggregate_by_phase[0] > 1.5 * aggregate_by_phase[p]);
    free(per_vm_util);
    cs_trace_free(&t);
}

static void test_clean(void **state)
{
    (void)state;
    struct cs_trace t;
    /* ok: clean; gap: 2 missing in a row then fine; long: 3 bad in a row; empty: nothing good;
     * lead: leading bad sample (negative) and one above capacity (2 vCores -> 200) */
    parse_ok(&t, "vm,vcores,t,cpu_pct\n"
                 "ok,1,0,1\nok,1,1,2\nok,1,2,3\nok,1,3,4\nok,1,4,5\n"
                 "gap,1,0,10\ngap,1,3,40\ngap,1,4,50\n"
                 "long,1,0,1\nlong,1,1,-5\nlong,1,2,101\nlong,1,4,1\n"
                 "empty,1,0,\n"
                 "lead,2,0,-1\nlead,2,1,20\nlead,2,2,200.5\nlead,2,3,30\nlead,2,4,200\n");
    struct cs_trace_clean_options o = {.max_fill_steps = 2};
    struct cs_trace_clean_report r;
    struct cs_error err = {""};
    if (cs_trace_clean(&t, &o, &r, &err) != 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r.vms_in, 5);
    assert_int_equal(r.vms_kept, 3);
    assert_int_equal(r.vcores_in, 6);
    assert_int_equal(r.vcores_kept, 4);
    assert_int_equal(r.dropped_gap, 1);
    assert_int_equal(r.dropped_empty, 1);
    assert_int_equal(r.missing, 2 + 1 + 5);
    assert_int_equal(r.negative, 2);
    assert_int_equal(r.over_capacity, 2);
    assert_int_equal(r.filled, 2 + 2);
    assert_int_equal(r.vms[2].verdict, CS_TRACE_DROPPED_GAP);
    assert_int_equal(r.vms[2].longest_bad_run, 3);
    assert_int_equal(r.vms[3].verdict, CS_TRACE_DROPPED_EMPTY);
    assert_int_equal(r.vms[4].negative, 1);
    assert_int_equal(r.vms[4].over_capacity, 1);
    assert_string_equal(cs_trace_verdict_name(r.vms[2].verdict), "dropped-gap");

    assert_int_equal(t.num_vms, 3);
    assert_string_equal(t.vms[1].name, "gap");
    assert_string_equal(t.vms[2].name, "lead");
    const float *gap = cs_trace_vm_demand(&t, 1), *lead = cs_trace_vm_demand(&t, 2);
    assert_true(gap[1] == 10.0f && gap[2] == 10.0f && gap[3] == 40.0f);
    /* leading bad sample takes the first good one; 200 == capacity is good */
    assert_true(lead[0] == 20.0f && lead[2] == 20.0f && lead[4] == 200.0f);
    cs_trace_clean_report_free(&r);
    cs_trace_free(&t);

    /* the paper's policy: any bad sample drops the VM */
    parse_ok(&t, "vm,vcores,t,cpu_pct\na,1,0,1\na,1,1,\nb,1,0,1\nb,1,1,2\n");
    o.max_fill_steps = 0;
    assert_int_equal(cs_trace_clean(&t, &o, &r, &err), 0);
    assert_int_equal(t.num_vms, 1);
    assert_string_equal(t.vms[0].name, "b");
    assert_true(cs_trace_vm_demand(&t, 0)[1] == 2.0f);
    cs_trace_clean_report_free(&r);
    cs_trace_free(&t);
}

static void test_write_file_and_synthetic_round_trip(void **state)
{
    (void)state;
    struct cs_synthetic_options o;
    cs_synthetic_defaults(&o);
    o.vms = 20;
    o.total_vcores = 50;
    o.days = 1;
    struct cs_trace t, back;
    struct cs_error err = {""};
    assert_int_equal(cs_trace_synthetic(&t, &o, &err), 0);
    char path[] = "/tmp/cs-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    if (cs_trace_write_csv_file(path, &t, &err) != 0)
        fail_msg("%s", err.msg);
    if (cs_trace_read_csv(&back, path, &err) != 0)
        fail_msg("%s", err.msg);
    assert_same_trace(&t, &back);
    unlink(path);
    cs_trace_free(&t);
    cs_trace_free(&back);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_small_file),
        cmocka_unit_test(test_csv_directive_and_values),
        cmocka_unit_test(test_csv_interleaved),
        cmocka_unit_test(test_csv_many_vms_interleaved),
        cmocka_unit_test(test_csv_errors),
        cmocka_unit_test(test_planetlab),
        cmocka_unit_test(test_synthetic_totals_and_determinism),
        cmocka_unit_test(test_synthetic_shape),
        cmocka_unit_test(test_clean),
        cmocka_unit_test(test_write_file_and_synthetic_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
