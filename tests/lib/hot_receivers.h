/* The hot-receivers recording of the adaptation tests: tests/unit/test_adapt_simulate.c replays
 * it from memory, tests/lib/monitor_fixture.c writes it into a store for
 * tests/cli/adapt_simulate.sh. One sample per CA port (with a LID) and second, interval 1 s,
 * ending at T0 + 1 .. T0 + HR_END:
 *
 *   calm   seconds 1 .. HR_HOT_FIRST - 1 and HR_HOT_LAST + 1 .. HR_END: every CA port sends and
 *          receives 50 MB/s;
 *   hot    seconds HR_HOT_FIRST .. HR_HOT_LAST: the first CA (fabric order) on every leaf
 *          receives 9 GB/s and sends nothing, every other CA sends 3 GB/s and receives nothing
 *          (on a 4-ary-2-tree: 12 senders x 3 GB/s = 4 receivers x 9 GB/s).
 *
 * ftree, blind to traffic, sends the receivers' traffic up one root per leaf; wftree with the
 * receivers weighted spreads it (tests/unit/test_traffic.c). */
#ifndef CLOUDSM_TEST_HOT_RECEIVERS_H
#define CLOUDSM_TEST_HOT_RECEIVERS_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/fabric.h"
#include "cloudsm/metrics.h"

#define HR_HOT_FIRST 11
#define HR_HOT_LAST 40
#define HR_END 80
#define HR_CALM_RATE 50e6
#define HR_RECEIVE_RATE 9e9
#define HR_SEND_RATE 3e9

/* The switch a CA node is cabled to (its port 1's peer), or CS_NONE. */
static inline uint32_t hr_leaf(const struct cs_fabric *f, uint32_t node)
{
    uint32_t peer = f->ports[f->nodes[node].first_port + 1].peer;
    return peer == CS_NONE ? CS_NONE : f->ports[peer].node;
}

/* How many CAs (fabric order) come before a CA node on its leaf: 0 for the hot receivers. */
static inline unsigned hr_rank(const struct cs_fabric *f, uint32_t node)
{
    unsigned rank = 0;
    for (uint32_t n = 0; n < node; n++)
        rank += f->nodes[n].type == CS_NODE_CA && hr_leaf(f, n) == hr_leaf(f, node);
    return rank;
}

/* The fabric node with a GUID, or CS_NONE. */
static inline uint32_t hr_node(const struct cs_fabric *f, uint64_t guid)
{
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == guid)
            return n;
    return CS_NONE;
}

#define HR_CALM (-1)

/* Append to m, whose ports are f's (cs_metrics_set_fabric), the seconds first .. last (samples
 * ending at t0 + k): calm (rank HR_CALM), or hot with the rank-th CA of every leaf receiving. */
static inline int hr_phase(struct cs_metrics *m, const struct cs_fabric *f, double t0,
                           unsigned first, unsigned last, int rank, struct cs_error *err)
{
    for (unsigned k = first; k <= last; k++)
        for (uint32_t p = 0; p < m->num_ports; p++) {
            uint32_t node = hr_node(f, m->nodes[m->ports[p].node].guid);
            if (node == CS_NONE || f->nodes[node].type != CS_NODE_CA)
                continue;
            bool calm = rank == HR_CALM, receiver = !calm && hr_rank(f, node) == (unsigned)rank;
            struct cs_metric_sample s = {.time = t0 + k, .interval = 1, .port = p};
            s.value[CS_METRIC_RCV_BYTES] = calm ? HR_CALM_RATE : receiver ? HR_RECEIVE_RATE : 0;
            s.value[CS_METRIC_XMIT_BYTES] = calm ? HR_CALM_RATE : receiver ? 0 : HR_SEND_RATE;
            if (cs_metrics_add_sample(m, &s, err) < 0)
                return -1;
        }
    return 0;
}

/* The recording described above, from time t0. */
static inline int hr_record(struct cs_metrics *m, const struct cs_fabric *f, double t0,
                            struct cs_error *err)
{
    return hr_phase(m, f, t0, 1, HR_HOT_FIRST - 1, HR_CALM, err) < 0 ||
                   hr_phase(m, f, t0, HR_HOT_FIRST, HR_HOT_LAST, 0, err) < 0 ||
                   hr_phase(m, f, t0, HR_HOT_LAST + 1, HR_END, HR_CALM, err) < 0
               ? -1
               : 0;
}

#endif
