/* Packers, experiments, Table I/II rows and the SLA view on small hand-made traces. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/delay.h"

/* Constant demands: averages 55, 50, 48, 2 on one core at threshold 100%. First fit puts the 2
 * in the first bin that fits (bin 0 at 55); best fit in the fullest (bin 1 at 98). */
static void test_util_first_vs_best_fit(void **state)
{
    (void)state;
    enum { S = 10 };
    float m[4 * S];
    const float avg[4] = {2, 48, 55, 50}; /* given out of order: the packer sorts */
    for (int v = 0; v < 4; v++)
        for (int t = 0; t < S; t++)
            m[v * S + t] = avg[v];
    struct cs_demand d = {m, 4, S, 1.0};
    struct cs_pack_options o = {CS_PACK_UTIL, CS_FIT_FIRST, 1, 1.0, 0, CS_DELAY_DRAIN_TIME};
    struct cs_packing p;
    struct cs_error err;
    assert_int_equal(cs_pack(&d, &o, &p, &err), 0);
    assert_int_equal(p.num_bins, 2);
    assert_int_equal(p.bin_of_vm[2], 0); /* 55 */
    assert_int_equal(p.bin_of_vm[3], 1); /* 50 */
    assert_int_equal(p.bin_of_vm[1], 1); /* 48: 55+48 > 100 */
    assert_int_equal(p.bin_of_vm[0], 0); /* 2: first fit */
    cs_packing_free(&p);
    o.fit = CS_FIT_BEST;
    assert_int_equal(cs_pack(&d, &o, &p, &err), 0);
    assert_int_equal(p.num_bins, 2);
    assert_int_equal(p.bin_of_vm[0], 1); /* 2: best fit, 98 + 2 = 100 (equality fits) */
    cs_packing_free(&p);
    /* threshold 50%: capacity 50 -> 55 alone, 50 alone, 48 alone, 2 with 48 (first fit) */
    o.fit = CS_FIT_FIRST;
    o.threshold = 0.5;
    assert_int_equal(cs_pack(&d, &o, &p, &err), 0);
    assert_int_equal(p.num_bins, 3);
    assert_int_equal(p.bin_of_vm[0], 2);
    cs_packing_free(&p);
}

/* Three VMs of equal average 40 on one core: A and C burst (80) in even minutes, B in odd ones.
 * Sorted by index (equal averages), the utilization packer puts A and C together (80 <= 100);
 * the delay packer with accepted delay 0 sees their bursts collide and pairs A with B. */
static void fill_phased(float *m, int steps)
{
    for (int t = 0; t < steps; t++) {
        m[0 * steps + t] = t % 2 == 0 ? 80 : 0; /* A */
        m[1 * steps + t] = t % 2 == 0 ? 80 : 0; /* C */
        m[2 * steps + t] = t % 2 == 1 ? 80 : 0; /* B */
    }
}

static void test_delay_packer_avoids_collisions(void **state)
{
    (void)state;
    enum { S = 100 };
    float m[3 * S];
    fill_phased(m, S);
    struct cs_demand d = {m, 3, S, 1.0};
    struct cs_error err;
    struct cs_pack_options u = {CS_PACK_UTIL, CS_FIT_FIRST, 1, 1.0, 0, CS_DELAY_DRAIN_TIME};
    struct cs_packing pu, pd;
    assert_int_equal(cs_pack(&d, &u, &pu, &err), 0);
    assert_int_equal(pu.num_bins, 2);
    assert_int_equal(pu.bin_of_vm[0], pu.bin_of_vm[1]);
    struct cs_pack_options dl = u;
    dl.policy = CS_PACK_DELAY;
    assert_int_equal(cs_pack(&d, &dl, &pd, &err), 0);
    assert_int_equal(pd.num_bins, 2);
    assert_int_equal(pd.bin_of_vm[0], pd.bin_of_vm[2]);
    assert_true(pd.bin_of_vm[1] != pd.bin_of_vm[0]);

    struct cs_delay_stats su[2], sd[2];
    uint32_t vms[2];
    assert_int_equal(cs_packing_eval(&d, &pu, 1, CS_DELAY_DRAIN_TIME, su, vms, &err), 0);
    assert_int_equal(vms[0], 2);
    /* A+C: 160 in even minutes, 0 in odd: q = 60 then 0 -> 0.6 min per even minute */
    assert_true(fabs(su[0].total_delay - 0.6 * S / 2) < 1e-9);
    assert_true(fabs(su[0].filling - 0.8) < 1e-9);
    assert_int_equal(cs_packing_eval(&d, &pd, 1, CS_DELAY_DRAIN_TIME, sd, NULL, &err), 0);
    assert_true(sd[0].total_delay == 0 && sd[1].total_delay == 0);
    cs_packing_free(&pu);
    cs_packing_free(&pd);
}

/* The threshold sets the capacity of the delay test; a VM opening a bin stays even if it alone
 * exceeds the limit, and such a bin takes nobody else. Final evaluation uses full capacity. */
static void test_delay_packer_threshold_and_lone_vms(void **state)
{
    (void)state;
    enum { S = 50 };
    float m[3 * S];
    for (int t = 0; t < S; t++) {
        m[0 * S + t] = 150; /* heavy: over one core on its own */
        m[1 * S + t] = 30;
        m[2 * S + t] = 10;
    }
    struct cs_demand d = {m, 3, S, 1.0};
    struct cs_error err;
    struct cs_pack_options o = {CS_PACK_DELAY, CS_FIT_FIRST, 1, 1.0, 0, CS_DELAY_DRAIN_TIME};
    struct cs_packing p;
    assert_int_equal(cs_pack(&d, &o, &p, &err), 0);
    assert_int_equal(p.num_bins, 2);
    assert_int_equal(p.bin_of_vm[0], 0); /* alone */
    assert_int_equal(p.bin_of_vm[1], 1);
    assert_int_equal(p.bin_of_vm[2], 1); /* 40 <= 100: no delay */
    cs_packing_free(&p);
    /* at threshold 35% the capacity in packing is 35: 30 + 10 queues, so 10 gets its own bin */
    o.threshold = 0.35;
    assert_int_equal(cs_pack(&d, &o, &p, &err), 0);
    assert_int_equal(p.num_bins, 3);
    struct cs_delay_stats s[3];
    assert_int_equal(cs_packing_eval(&d, &p, 1, CS_DELAY_DRAIN_TIME, s, NULL, &err), 0);
    assert_true(s[0].total_delay > 0); /* the heavy VM still delays at full capacity */
    assert_true(s[1].total_delay == 0 && s[2].total_delay == 0);
    cs_packing_free(&p);
    /* a generous limit lets them share: 40 at capacity 35 queues 5 per minute */
    o.delay_limit = 1e9;
    assert_int_equal(cs_pack(&d, &o, &p, &err), 0);
    assert_int_equal(p.num_bins, 1);
    cs_packing_free(&p);
    o.cores = 0;
    assert_int_equal(cs_pack(&d, &o, &p, &err), -1);
}

/* Leave-one-day-out on a 3-day trace of 4 steps per day; results identical for 1 and 3
 * threads; the per-day accepted delay scales with the training days. */
static void test_experiment_folds_and_threads(void **state)
{
    (void)state;
    enum { S = 12, V = 5 };
    float m[V * S];
    for (int v = 0; v < V; v++)
        for (int t = 0; t < S; t++)
            m[v * S + t] = (float)((v * 37 + t * 11) % 90);
    struct cs_demand d = {m, V, S, 360.0}; /* 4 steps per day */
    uint32_t cores[2] = {1, 2};
    double th[2] = {0.7, 1.0}, acc[2] = {1, 100};
    struct cs_experiment e = {
        CS_PACK_DELAY, CS_FIT_FIRST, CS_DELAY_DRAIN_TIME, true, 0, cores, 2, th, 2, acc, 2, 1};
    struct cs_experiment_result r1, r3;
    struct cs_error err;
    assert_int_equal(cs_experiment_run(&d, &e, &r1, &err), 0);
    e.threads = 3;
    assert_int_equal(cs_experiment_run(&d, &e, &r3, &err), 0);
    assert_int_equal(r1.folds, 3);
    assert_true(r1.window_days == 1.0);
    assert_int_equal(r1.num_bins, r3.num_bins);
    assert_memory_equal(r1.bins, r3.bins, r1.num_bins * sizeof *r1.bins);
    /* every (fold, cores, threshold, accepted) appears; bins count VMs up to V */
    uint32_t vms = 0;
    for (size_t i = 0; i < r1.num_bins; i++) {
        assert_true(r1.bins[i].fold < 3);
        assert_int_equal(r1.bins[i].stats.steps, 4);
        if (r1.bins[i].fold == 1 && r1.bins[i].cores == 2 && r1.bins[i].threshold == 1.0 &&
            r1.bins[i].accepted == 100)
            vms += r1.bins[i].vms;
    }
    assert_int_equal(vms, V);
    cs_experiment_result_free(&r1);
    cs_experiment_result_free(&r3);
    /* a 1-day trace cannot be cross-validated */
    struct cs_demand one = {m, V, 4, 360.0};
    assert_int_equal(cs_experiment_run(&one, &e, &r1, &err), -1);
}

static void test_table_row_and_sla(void **state)
{
    (void)state;
    struct cs_bin_result b[4];
    memset(b, 0, sizeof b);
    const double delays[4] = {0, 10, 30, 1000}, fill[4] = {0.2, 0.4, 0.6, 1.2};
    for (int i = 0; i < 4; i++) {
        b[i].threshold = i < 3 ? 0.8 : 0.8;
        b[i].accepted = 10;
        b[i].vms = i == 3 ? 1 : 3;
        b[i].stats.total_delay = delays[i];
        b[i].stats.filling = fill[i];
        b[i].stats.delayed_fraction = i * 0.1;
        b[i].stats.mean_when_delayed = i;
    }
    struct cs_experiment_result r = {b, 4, 1, 1.0};
    struct cs_table_row row;
    struct cs_error err;
    assert_int_equal(cs_experiment_table_row(&r, 0.8, 10, &row, &err), 0);
    assert_int_equal(row.bins, 4);
    assert_true(fabs(row.avg_delay - 260) < 1e-9);
    assert_true(fabs(row.med_delay - 20) < 1e-9);
    assert_true(row.max_delay == 1000);
    assert_true(fabs(row.avg_filling - 0.6) < 1e-9);
    assert_true(fabs(row.med_filling - 0.5) < 1e-9);
    assert_true(row.max_filling == 1.2);
    assert_true(fabs(row.avg_delayed_fraction - 0.15) < 1e-9);
    assert_true(fabs(row.avg_delay_when_delayed - 1.5) < 1e-9);
    assert_int_equal(cs_experiment_table_row(&r, 0.9, -1, &row, &err), 0);
    assert_int_equal(row.bins, 0);

    struct cs_sla_summary s;
    cs_experiment_sla(&r, 0.8, -1, 10, &s);
    assert_int_equal(s.bins, 4);
    assert_int_equal(s.compliant, 2);
    assert_true(fabs(s.compliance_rate - 0.5) < 1e-12);
    assert_int_equal(s.lone_vm_bins, 1);
    assert_int_equal(s.lone_vm_violations, 1);
    assert_true(fabs(s.mean_overshoot - (20 + 990) / 2.0) < 1e-9);
    assert_true(s.max_overshoot == 990);
}

/* ---- Qualitative results of the paper on the synthetic UiO-like trace (spec section 5.2) ---- */

static struct cs_trace synthetic;

static int synthetic_setup(void **state)
{
    (void)state;
    struct cs_error err;
    return cs_trace_synthetic(&synthetic, NULL, &err);
}

static int synthetic_teardown(void **state)
{
    (void)state;
    cs_trace_free(&synthetic);
    return 0;
}

/* Whole-period packing of the synthetic trace with one core count and threshold. */
static void whole(enum cs_pack_policy policy, uint32_t cores, double threshold, double accepted,
                  struct cs_experiment_result *r)
{
    struct cs_demand d = cs_demand_of_trace(&synthetic);
    double acc = accepted;
    struct cs_experiment e = {
        policy, CS_FIT_FIRST, CS_DELAY_DRAIN_TIME, false, 0, &cores, 1, &threshold, 1, &acc, 1, 2};
    struct cs_error err;
    assert_int_equal(cs_experiment_run(&d, &e, r, &err), 0);
    assert_true(r->num_bins > 0);
}

static double mean_delay(const struct cs_experiment_result *r)
{
    double s = 0;
    for (size_t i = 0; i < r->num_bins; i++)
        s += r->bins[i].stats.total_delay;
    return s / r->num_bins;
}

static double max_delay(const struct cs_experiment_result *r)
{
    double m = 0;
    for (size_t i = 0; i < r->num_bins; i++)
        m = fmax(m, r->bins[i].stats.total_delay);
    return m;
}

/* R2 (seed 7246-7253): more cores -> fewer bins; lower threshold -> more bins. */
static void test_synthetic_bin_counts(void **state)
{
    (void)state;
    struct cs_experiment_result r12, r16, r32, r12_70;
    whole(CS_PACK_UTIL, 12, 1.0, 0, &r12);
    whole(CS_PACK_UTIL, 16, 1.0, 0, &r16);
    whole(CS_PACK_UTIL, 32, 1.0, 0, &r32);
    whole(CS_PACK_UTIL, 12, 0.7, 0, &r12_70);
    assert_true(r12.num_bins > r16.num_bins);
    assert_true(r16.num_bins > r32.num_bins);
    assert_true(r12_70.num_bins > r12.num_bins);
    /* the same holds for delay-based packing, which needs more bins than utilization packing
     * at the same threshold (R6, seed 7322-7323) */
    struct cs_experiment_result d12, d32;
    whole(CS_PACK_DELAY, 12, 1.0, 1000, &d12);
    whole(CS_PACK_DELAY, 32, 1.0, 1000, &d32);
    assert_true(d12.num_bins > d32.num_bins);
    assert_true(d12.num_bins > r12.num_bins);
    cs_experiment_result_free(&r12);
    cs_experiment_result_free(&r16);
    cs_experiment_result_free(&r32);
    cs_experiment_result_free(&r12_70);
    cs_experiment_result_free(&d12);
    cs_experiment_result_free(&d32);
}

/* R3 (seed 7254-7261): the delay explodes as the threshold nears 100%: each 10-point step
 * costs more than the one before, and 100% is over 10 times 80%. */
static void test_synthetic_delay_explodes(void **state)
{
    (void)state;
    double m[4];
    for (int i = 0; i < 4; i++) {
        struct cs_experiment_result r;
        whole(CS_PACK_UTIL, 12, 0.7 + 0.1 * i, 0, &r);
        m[i] = mean_delay(&r);
        cs_experiment_result_free(&r);
    }
    assert_true(m[0] < m[1] && m[1] < m[2] && m[2] < m[3]);
    assert_true(m[2] - m[1] > m[1] - m[0]);
    assert_true(m[3] - m[2] > m[2] - m[1]);
    assert_true(m[3] > 10 * m[1]);
}

/* R5 (seed 7318-7321): delay-based packing keeps every bin within the accepted delay, except
 * bins holding a single VM; R9 (seed 7417-7424, 7741-7760): at about the same mean delay its
 * max/mean spread is far smaller than utilization packing's. */
static void test_synthetic_delay_packing_control(void **state)
{
    (void)state;
    for (uint32_t cores = 12; cores <= 32; cores += 20) {
        struct cs_experiment_result r;
        whole(CS_PACK_DELAY, cores, 1.0, 1000, &r);
        for (size_t i = 0; i < r.num_bins; i++)
            if (r.bins[i].vms > 1)
                assert_true(r.bins[i].stats.total_delay <= 1000);
        cs_experiment_result_free(&r);
    }
    struct cs_experiment_result dr;
    whole(CS_PACK_DELAY, 12, 1.0, 1000, &dr);
    double d_mean = mean_delay(&dr), d_spread = max_delay(&dr) / d_mean;
    /* utilization packing at the threshold whose mean delay is closest to d_mean */
    double best_gap = INFINITY, u_mean = 0, u_spread = 0;
    for (int pct = 30; pct <= 100; pct += 5) {
        struct cs_experiment_result ur;
        whole(CS_PACK_UTIL, 12, pct / 100.0, 0, &ur);
        double m = mean_delay(&ur);
        if (m > 0 && fabs(log(m / d_mean)) < best_gap) {
            best_gap = fabs(log(m / d_mean));
            u_mean = m;
            u_spread = max_delay(&ur) / m;
        }
        cs_experiment_result_free(&ur);
    }
    assert_true(best_gap < log(1.5)); /* means within a factor 1.5: a fair comparison */
    assert_true(u_mean > 0);
    assert_true(d_spread * 2 < u_spread);
    cs_experiment_result_free(&dr);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_util_first_vs_best_fit),
        cmocka_unit_test(test_delay_packer_avoids_collisions),
        cmocka_unit_test(test_delay_packer_threshold_and_lone_vms),
        cmocka_unit_test(test_experiment_folds_and_threads),
        cmocka_unit_test(test_table_row_and_sla),
    };
    const struct CMUnitTest synthetic_tests[] = {
        cmocka_unit_test(test_synthetic_bin_counts),
        cmocka_unit_test(test_synthetic_delay_explodes),
        cmocka_unit_test(test_synthetic_delay_packing_control),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    failed += cmocka_run_group_tests_name("synthetic", synthetic_tests, synthetic_setup,
                                          synthetic_teardown);
    return failed;
}
