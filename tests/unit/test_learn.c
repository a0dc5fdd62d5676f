/* Rates over a window (overlap-weighted means), learned node weights (pFTree-Wt's min-max map
 * over the bytes received in a window, equal to learning from counter snapshots of the same
 * traffic), and the EWMA and Holt predictors on series whose forecasts are known in closed form. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/counters.h"
#include "cloudsm/learn.h"

/* Three CAs (node GUIDs 0x10, 0x20, 0x30; their port GUIDs out of node order: 0x300, 0x100,
 * 0x200) and a switch 0x40 with ports 1 and 2. Ports: 0..2 the CAs', 3 and 4 the switch's. */
static void fabric(struct cs_metrics *m)
{
    struct cs_error err = {""};
    cs_metrics_init(m);
    const uint64_t port_guid[3] = {0x300, 0x100, 0x200};
    for (uint32_t i = 0; i < 3; i++)
        if (cs_metrics_add_node(m, 0x10 * (i + 1), CS_NODE_CA, "ca", &err) < 0)
            fail_msg("%s", err.msg);
    if (cs_metrics_add_node(m, 0x40, CS_NODE_SWITCH, "sw", &err) < 0)
        fail_msg("%s", err.msg);
    for (uint32_t i = 0; i < 3; i++) {
        struct cs_metric_port p = {.guid = port_guid[i], .node = i, .num = 1, .lid = 1 + i};
        if (cs_metrics_add_port(m, &p, &err) < 0)
            fail_msg("%s", err.msg);
    }
    for (uint8_t num = 1; num <= 2; num++) {
        struct cs_metric_port p = {.node = 3, .num = num, .lid = 9};
        if (cs_metrics_add_port(m, &p, &err) < 0)
            fail_msg("%s", err.msg);
    }
}

static void sample(struct cs_metrics *m, uint32_t port, double time, double interval,
                   enum cs_metric metric, double value)
{
    struct cs_metric_sample s = {.time = time, .interval = interval, .port = port};
    s.value[metric] = value;
    struct cs_error err = {""};
    if (cs_metrics_add_sample(m, &s, &err) < 0)
        fail_msg("%s", err.msg);
}

static void test_port_rates(void **state)
{
    (void)state;
    struct cs_metrics m;
    fabric(&m);
    /* window [100, 200] */
    sample(&m, 1, 100, 10, CS_METRIC_RCV_BYTES, 999);  /* covers (90, 100]: misses it */
    sample(&m, 4, 105, 10, CS_METRIC_RCV_BYTES, 50);   /* (95, 105]: 5 s of it */
    sample(&m, 0, 110, 10, CS_METRIC_RCV_BYTES, 100);  /* (100, 110]: 10 s */
    sample(&m, 0, 130, 20, CS_METRIC_RCV_BYTES, 400);  /* (110, 130]: 20 s */
    sample(&m, 0, 205, 10, CS_METRIC_RCV_BYTES, 1000); /* (195, 205]: still running at 200 */
    sample(&m, 3, 300, 200, CS_METRIC_RCV_BYTES, 7);   /* (100, 300]: likewise */
    sample(&m, 4, 400, 10, CS_METRIC_RCV_BYTES, 5);    /* after it */
    double rate[5], covered[5];
    struct cs_error err = {""};
    assert_int_equal(cs_metrics_port_rates(&m, CS_METRIC_RCV_BYTES, 100, 200, rate, covered, &err),
                     0);
    /* (100 * 10 + 400 * 20) / 30: a sample that ends after the window is not seen (a window
     * ending now never sees a later sample) */
    assert_true(rate[0] == 300);
    assert_true(covered[0] == 30);
    assert_true(isnan(rate[1]) && covered[1] == 0);
    assert_true(isnan(rate[2]));
    assert_true(isnan(rate[3]) && covered[3] == 0);
    assert_true(rate[4] == 50 && covered[4] == 5);
    /* another metric of the same samples: all zero where covered */
    assert_int_equal(cs_metrics_port_rates(&m, CS_METRIC_XMIT_BYTES, 100, 200, rate, NULL, &err),
                     0);
    assert_true(rate[0] == 0 && isnan(rate[3]) && isnan(rate[1]));
    /* nodes: the sum of their ports that have a rate */
    double node[4];
    assert_int_equal(cs_metrics_node_rates(&m, CS_METRIC_RCV_BYTES, 100, 200, node, &err), 0);
    assert_true(node[0] == 300);
    assert_true(isnan(node[1]) && isnan(node[2]));
    assert_true(node[3] == 50);
    assert_int_equal(cs_metrics_node_rates(&m, CS_METRIC_RCV_BYTES, 0, 1000, node, &err), 0);
    /* port 3: 7 over its 200 s; port 4: (50 x 10 + 5 x 10) / 20 */
    assert_true(node[3] == 7 + 27.5);
    /* a window must have a start before its end; a metric must exist */
    assert_int_equal(cs_metrics_port_rates(&m, CS_METRIC_RCV_BYTES, 200, 200, rate, NULL, &err),
                     -1);
    assert_non_null(strstr(err.msg, "needs a start before its end"));
    assert_int_equal(cs_metrics_port_rates(&m, CS_METRIC_COUNT, 100, 200, rate, NULL, &err), -1);
    /* the accumulator itself: one sample, fed twice, counts twice */
    struct cs_rate_window w;
    assert_int_equal(cs_rate_window_init(&w, 5, 100, 200, &err), 0);
    cs_rate_window_add(&w, &m.samples[2]);
    cs_rate_window_add(&w, &m.samples[2]);
    assert_true(cs_rate_window_covered(&w, 0) == 20);
    assert_true(cs_rate_window_amount(&w, 0, CS_METRIC_RCV_BYTES) == 2000);
    assert_true(cs_rate_window_mean(&w, 0, CS_METRIC_RCV_BYTES) == 100);
    cs_rate_window_free(&w);
    cs_metrics_free(&m);
}

/* Port p received `rate` bytes/s from 0 to 100 s, in 10 s samples. */
static void steady(struct cs_metrics *m, double rates[5])
{
    for (int k = 1; k <= 10; k++)
        for (uint32_t p = 0; p < 5; p++)
            if (!isnan(rates[p]))
                sample(m, p, 10.0 * k, 10, CS_METRIC_RCV_BYTES, rates[p]);
}

static void test_learn_weights(void **state)
{
    (void)state;
    struct cs_metrics m;
    fabric(&m);
    /* CAs receive 10, 30, 20 B/s (1000, 3000, 2000 bytes); the switch ports more: not CAs */
    double rates[5] = {10, 30, 20, 1e6, 1e6};
    steady(&m, rates);
    struct cs_node_weights w;
    uint64_t *received = NULL;
    struct cs_error err = {""};
    assert_int_equal(cs_metrics_learn_weights(&m, 0, 100, 1, 100, &w, &received, &err), 0);
    assert_int_equal(w.count, 3);
    /* by port GUID: 0x100 (node 0x20, 3000 B), 0x200 (node 0x30, 2000), 0x300 (node 0x10, 1000);
     * W = (x - 1000) * 99 / 2000 + 1: 100, 50.5 -> 51, 1 */
    assert_int_equal(w.entries[0].guid, 0x100);
    assert_int_equal(w.entries[0].weight, 100);
    assert_int_equal(w.entries[1].guid, 0x200);
    assert_int_equal(w.entries[1].weight, 51);
    assert_int_equal(w.entries[2].guid, 0x300);
    assert_int_equal(w.entries[2].weight, 1);
    assert_int_equal(received[0], 3000);
    assert_int_equal(received[1], 2000);
    assert_int_equal(received[2], 1000);
    free(received);

    /* The same traffic as two counter snapshots (PortRcvData counts bytes / 4) gives the same
     * weights through the snapshot path. */
    char before[256], after[256];
    snprintf(before, sizeof before, "0x300,0\n0x100,0\n0x200,0\n");
    snprintf(after, sizeof after, "0x300,%d\n0x100,%d\n0x200,%d\n", 1000 / 4, 3000 / 4, 2000 / 4);
    struct cs_counter_snapshot b, a;
    struct cs_node_weights from_snapshots;
    if (cs_counter_snapshot_parse(&b, before, strlen(before), "before", NULL, &err) < 0 ||
        cs_counter_snapshot_parse(&a, after, strlen(after), "after", NULL, &err) < 0 ||
        cs_node_weights_learn(&from_snapshots, NULL, &b, &a, 1, 100, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(from_snapshots.count, w.count);
    for (uint32_t i = 0; i < w.count; i++) {
        assert_int_equal(from_snapshots.entries[i].guid, w.entries[i].guid);
        assert_int_equal(from_snapshots.entries[i].weight, w.entries[i].weight);
    }
    cs_node_weights_free(&from_snapshots);
    cs_counter_snapshot_free(&b);
    cs_counter_snapshot_free(&a);
    cs_node_weights_free(&w);

    /* half the window: half the bytes, same weights; [10, 20] */
    assert_int_equal(cs_metrics_learn_weights(&m, 50, 100, 10, 20, &w, &received, &err), 0);
    assert_int_equal(received[0], 1500);
    /* (x - 500) * 10 / 1000 + 10: 20, 15, 10 */
    assert_int_equal(w.entries[0].weight, 20);
    assert_int_equal(w.entries[1].weight, 15);
    assert_int_equal(w.entries[2].weight, 10);
    free(received);
    cs_node_weights_free(&w);

    /* no CA data in the window, a bad range */
    assert_int_equal(cs_metrics_learn_weights(&m, 500, 600, 1, 100, &w, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "no CA port has samples in the window"));
    assert_int_equal(w.count, 0);
    assert_int_equal(cs_metrics_learn_weights(&m, 0, 100, 50, 10, &w, NULL, &err), -1);
    assert_non_null(strstr(err.msg, "need 1 <= a <= b"));
    cs_metrics_free(&m);

    /* equal traffic: every port weighs a; a port without data is left out */
    fabric(&m);
    double even[5] = {25, NAN, 25, NAN, NAN};
    steady(&m, even);
    assert_int_equal(cs_metrics_learn_weights(&m, 0, 100, 7, 100, &w, NULL, &err), 0);
    assert_int_equal(w.count, 2);
    assert_int_equal(w.entries[0].guid, 0x200);
    assert_int_equal(w.entries[0].weight, 7);
    assert_int_equal(w.entries[1].guid, 0x300);
    assert_int_equal(w.entries[1].weight, 7);
    cs_node_weights_free(&w);
    cs_metrics_free(&m);
}

static double predict(const struct cs_metrics *m, uint32_t port, enum cs_predictor method,
                      double alpha, double beta, double horizon)
{
    struct cs_predictor_params p = {.alpha = alpha, .beta = beta};
    struct cs_error err = {""};
    double out = NAN, all[5];
    if (cs_metrics_predict(m, port, CS_METRIC_XMIT_BYTES, method, &p, horizon, &out, &err) < 0 ||
        cs_metrics_predict_ports(m, CS_METRIC_XMIT_BYTES, method, &p, horizon, all, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(out == all[port]); /* one port or all at once: the same number */
    return out;
}

static bool close_to(double got, double want)
{
    return fabs(got - want) <= 1e-9 * fmax(1, fabs(want));
}

static void test_predictors(void **state)
{
    (void)state;
    struct cs_metrics m;
    fabric(&m);
    /* irregular times; port 0 constant 5; port 1 a ramp 3 + 2t; port 2 a step 0 then 1 (regular
     * 10 s); port 3 a ramp 2t at regular 10 s steps */
    const double times[8] = {10, 20, 35, 50, 80, 81, 90, 130};
    for (int k = 0; k < 8; k++) {
        sample(&m, 0, times[k], 1, CS_METRIC_XMIT_BYTES, 5);
        sample(&m, 1, times[k], 1, CS_METRIC_XMIT_BYTES, 3 + 2 * times[k]);
    }
    for (int k = 1; k <= 12; k++) {
        sample(&m, 2, 200 + 10.0 * k, 10, CS_METRIC_XMIT_BYTES, k == 1 ? 0 : 1);
        sample(&m, 3, 200 + 10.0 * k, 10, CS_METRIC_XMIT_BYTES, 2 * (200 + 10.0 * k));
    }
    /* a constant forecasts itself */
    assert_true(close_to(predict(&m, 0, CS_PREDICT_EWMA, 0.3, 0, 60), 5));
    assert_true(close_to(predict(&m, 0, CS_PREDICT_HOLT, 0.3, 0.2, 60), 5));
    /* Holt continues a ramp exactly: 3 + 2 (130 + 60) */
    assert_true(close_to(predict(&m, 1, CS_PREDICT_HOLT, 0.3, 0.2, 60), 383));
    assert_true(close_to(predict(&m, 1, CS_PREDICT_HOLT, 1, 1, 0), 263));
    /* EWMA of a step 0 -> 1 after n = 12 samples: 1 - (1 - alpha)^(n - 1), whatever the horizon */
    double alpha = 0.25;
    assert_true(close_to(predict(&m, 2, CS_PREDICT_EWMA, alpha, 0, 0), 1 - pow(1 - alpha, 11)));
    assert_true(close_to(predict(&m, 2, CS_PREDICT_EWMA, alpha, 0, 1e6), 1 - pow(1 - alpha, 11)));
    /* EWMA lags a ramp of slope s at steps d by s d (1 - alpha) / alpha (1 - (1 - alpha)^(n-1)) */
    double s = 2, d = 10, last = 2 * 320;
    double lag = s * d * (1 - alpha) / alpha * (1 - pow(1 - alpha, 11));
    assert_true(close_to(predict(&m, 3, CS_PREDICT_EWMA, alpha, 0, 30), last - lag));
    /* alpha 1: the last sample */
    assert_true(close_to(predict(&m, 3, CS_PREDICT_EWMA, 1, 0, 30), last));

    /* a port without samples; bad parameters */
    struct cs_predictor_params p = {.alpha = 0.5, .beta = 0.5};
    struct cs_error err = {""};
    double out, all[5];
    assert_int_equal(
        cs_metrics_predict(&m, 4, CS_METRIC_XMIT_BYTES, CS_PREDICT_EWMA, &p, 0, &out, &err), -1);
    assert_non_null(strstr(err.msg, "port 2 of node 0x0000000000000040 has no samples"));
    assert_int_equal(
        cs_metrics_predict_ports(&m, CS_METRIC_XMIT_BYTES, CS_PREDICT_HOLT, &p, 0, all, &err), 0);
    assert_true(isnan(all[4]));
    p.alpha = 0;
    assert_int_equal(
        cs_metrics_predict(&m, 0, CS_METRIC_XMIT_BYTES, CS_PREDICT_EWMA, &p, 0, &out, &err), -1);
    p.alpha = 0.5;
    p.beta = 1.5;
    assert_int_equal(
        cs_metrics_predict(&m, 0, CS_METRIC_XMIT_BYTES, CS_PREDICT_HOLT, &p, 0, &out, &err), -1);
    assert_non_null(strstr(err.msg, "beta"));
    /* beta is Holt's only */
    assert_int_equal(
        cs_metrics_predict(&m, 0, CS_METRIC_XMIT_BYTES, CS_PREDICT_EWMA, &p, 0, &out, &err), 0);
    assert_int_equal(
        cs_metrics_predict(&m, 0, CS_METRIC_XMIT_BYTES, CS_PREDICT_EWMA, &p, -1, &out, &err), -1);
    assert_int_equal(
        cs_metrics_predict(&m, 9, CS_METRIC_XMIT_BYTES, CS_PREDICT_EWMA, &p, 0, &out, &err), -1);
    cs_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_rates),
        cmocka_unit_test(test_learn_weights),
        cmocka_unit_test(test_predictors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
