/* monitor_fixture PATH NOW: write a small monitoring store with known numbers through the
 * library, the way cloudsmd does (monitor.h), for tests/cli/monitor_store.sh to read with the
 * CLI.
 *
 * monitor_fixture --hot-receivers PATH TOPOLOGY T0: a store of the fabric TOPOLOGY (topology put
 * at T0) holding the hot-receivers recording of tests/lib/hot_receivers.h from T0, for
 * tests/cli/adapt_simulate.sh.
 *
 * Fabric: CAs 0x0010000000000100 ("host-a, rack 1"), ..200 ("host-b"), ..300 ("host-c") with
 * port 1 (port GUIDs ..101, ..201, ..301) cabled to ports 1, 2, 3 of switch 0x0020000100000001
 * ("leaf-1"); partition "blue" (0x12) of host-a and host-b. Topology put at NOW - 600.
 *
 * Samples: polls at NOW - 30, NOW - 20, NOW - 10 (interval 10 s). rcv_bytes per second:
 * host-a 1000, 2000, 3000; host-b 4000 each; host-c 3000 each; the switch ports receive what
 * the hosts send: xmit_bytes of host-x = 10 x its rcv_bytes, and the switch port's rcv_bytes is
 * that. xmit_wait 5 on switch port 3 at NOW - 10 (flag S there). Other metrics 0.
 *
 * Events: sweep at NOW - 600, adapt at NOW - 300 (subject "rule hot-leaf", detail
 * {"why":"hot leaf","cost":2}), fault at NOW - 100 (subject 0x0020000100000001, no detail).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/monitor.h"
#include "cloudsm/topo_io.h"
#include "hot_receivers.h"

static void die(const struct cs_error *err)
{
    fprintf(stderr, "monitor_fixture: %s\n", err->msg);
    exit(1);
}

static int hot_receivers(const char *path, const char *topology, double t0)
{
    struct cs_error err;
    struct cs_fabric f;
    struct cs_metrics m;
    struct cs_monitor *mon = NULL;
    cs_fabric_init(&f);
    cs_metrics_init(&m);
    if (cs_topo_read(&f, topology, &err) < 0 || cs_metrics_set_fabric(&m, &f, NULL, &err) < 0 ||
        cs_monitor_open(path, CS_MONITOR_READ_WRITE, &mon, &err) < 0 ||
        cs_monitor_put_topology(mon, &m, t0, &err) < 0 || hr_record(&m, &f, t0, &err) < 0 ||
        cs_monitor_put_samples(mon, &m, m.samples, m.num_samples, &err) < 0)
        die(&err);
    cs_monitor_close(mon);
    cs_metrics_free(&m);
    cs_fabric_free(&f);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--hot-receivers") == 0)
        return hot_receivers(argv[2], argv[3], strtod(argv[4], NULL));
    if (argc != 3) {
        fprintf(stderr, "usage: monitor_fixture PATH NOW | --hot-receivers PATH TOPOLOGY T0\n");
        return 2;
    }
    double now = strtod(argv[2], NULL);
    struct cs_error err;
    struct cs_metrics m;
    cs_metrics_init(&m);
    const char *desc[3] = {"host-a, rack 1", "host-b", "host-c"};
    const uint64_t sw = 0x0020000100000001;
    for (int h = 0; h < 3; h++)
        if (cs_metrics_add_node(&m, 0x0010000000000100 + 0x100 * (uint64_t)h, CS_NODE_CA, desc[h],
                                &err) < 0)
            die(&err);
    if (cs_metrics_add_node(&m, sw, CS_NODE_SWITCH, "leaf-1", &err) < 0)
        die(&err);
    for (uint32_t h = 0; h < 3; h++) {
        struct cs_metric_port p = {.guid = 0x0010000000000101 + 0x100 * (uint64_t)h,
                                   .node = h,
                                   .num = 1,
                                   .lid = (uint16_t)(2 + h),
                                   .peer_node_guid = sw,
                                   .peer_num = (uint8_t)(h + 1),
                                   .link_bytes_per_s = 12.5e9};
        if (cs_metrics_add_port(&m, &p, &err) < 0)
            die(&err);
    }
    for (uint32_t h = 0; h < 3; h++) {
        struct cs_metric_port p = {.node = 3,
                                   .num = (uint8_t)(h + 1),
                                   .lid = 1,
                                   .peer_node_guid = 0x0010000000000100 + 0x100 * (uint64_t)h,
                                   .peer_num = 1,
                                   .link_bytes_per_s = 12.5e9};
        if (cs_metrics_add_port(&m, &p, &err) < 0)
            die(&err);
    }
    uint32_t blue[2] = {0, 1};
    if (cs_metrics_add_partition(&m, "blue", 0x12, blue, 2, &err) < 0)
        die(&err);

    struct cs_monitor *mon;
    if (cs_monitor_open(argv[1], CS_MONITOR_READ_WRITE, &mon, &err) < 0 ||
        cs_monitor_put_topology(mon, &m, now - 600, &err) < 0)
        die(&err);
    const double rcv[3][3] = {{1000, 2000, 3000}, {4000, 4000, 4000}, {3000, 3000, 3000}};
    for (int k = 0; k < 3; k++) {
        struct cs_metric_sample s[6] = {{0}};
        for (uint32_t h = 0; h < 3; h++) {
            s[h].port = h;
            s[h].value[CS_METRIC_RCV_BYTES] = rcv[h][k];
            s[h].value[CS_METRIC_XMIT_BYTES] = 10 * rcv[h][k];
            s[3 + h].port = 3 + h;
            s[3 + h].value[CS_METRIC_RCV_BYTES] = 10 * rcv[h][k];
        }
        for (int i = 0; i < 6; i++) {
            s[i].time = now - 30 + 10 * k;
            s[i].interval = 10;
        }
        if (k == 2) {
            s[5].value[CS_METRIC_XMIT_WAIT] = 5;
            s[5].flags = CS_METRIC_SATURATED;
        }
        if (cs_monitor_put_samples(mon, &m, s, 6, &err) < 0)
            die(&err);
    }
    if (cs_monitor_put_event(mon, now - 600, CS_MONITOR_EVENT_SWEEP, NULL, "heavy sweep: 4 nodes",
                             NULL, NULL, &err) < 0 ||
        cs_monitor_put_event(mon, now - 300, CS_MONITOR_EVENT_ADAPT, "rule hot-leaf",
                             "moved 1 VM off leaf-1", "{\"why\":\"hot leaf\",\"cost\":2}", NULL,
                             &err) < 0 ||
        cs_monitor_put_event(mon, now - 100, CS_MONITOR_EVENT_FAULT, "0x0020000100000001",
                             "port 3 down", NULL, NULL, &err) < 0)
        die(&err);
    cs_monitor_close(mon);
    cs_metrics_free(&m);
    return 0;
}
