/* sa_flood: SA PathRecord load generator for bench/sa_vs_opensm.
 *
 *   sa_flood --queries N --outstanding W --lids GUID2LID [--seed S]
 *   sa_flood --malformed N --lids GUID2LID
 *
 * Sends N SubnAdmGet(PathRecord) queries (SLID/DLID form, pairs drawn from the LIDs of the
 * guid2lid file) to the SM named in the local port's PortInfo, with W in flight, and prints one
 * line:
 *
 *     queries 20000 answered 20000 errors 0 timeouts 0 seconds 1.234 qps 16207 median_us 210
 *     p99_us 950
 *
 * W in flight are W synchronous SA Flooder instances of Paper I (each sends its next query when
 * its reply comes), multiplexed on one port by the library's flooder (include/cloudsm/sa_flood.h)
 * over the CLI's libibumad client port (tools/cloudsm/umad_client.c): the same code as
 * `cloudsm saflood`, run to a query count instead of by rounds. Latency is per query, from send
 * to its reply.
 *
 * --malformed sends N broken requests one at a time (an MTU that does not exist, an unknown
 * attribute, a Set of a PathRecord, a Get whose record is random bytes, in turn), then one good
 * query, and prints how many were answered and how many of those carried an error status:
 *
 *     malformed 40 answered 40 error_status 30 then_good 1
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "cloudsm/lid.h"
#include "cloudsm/rng.h"
#include "cloudsm/sa.h"
#include "cloudsm/sa_client.h"
#include "cloudsm/sa_flood.h"
#include "umad_client.h"

#define TIMEOUT_MS 1000
#define MAX_OUTSTANDING 1024

/* One request and its reply (or none within TIMEOUT_MS): the reply's status, -1 if none. */
static int ask(struct umad_client *port, uint8_t *mad, uint32_t tid)
{
    struct cs_error err;
    cs_bits_set(mad, 12 * 8, 32, tid);
    if (umad_client_send_sa(port, mad, CS_SA_MAD_SIZE, &err) < 0)
        return -1;
    double until = cs_clock_ms() + TIMEOUT_MS;
    while (cs_clock_ms() < until) {
        const uint8_t *reply;
        size_t len;
        if (umad_client_recv(port, &reply, &len, NULL, 50, &err) <= 0 || len < CS_SA_HEADER_SIZE)
            continue;
        struct cs_sa_header h;
        cs_sa_header_decode(reply, &h);
        if ((uint32_t)h.transaction_id == tid)
            return h.status;
    }
    return -1;
}

static int send_malformed(struct umad_client *port, unsigned long n,
                          const struct cs_saflood_target *lids, uint32_t num_lids, uint64_t seed)
{
    struct cs_rng rng;
    cs_rng_seed(&rng, seed);
    unsigned long answered = 0, error_status = 0;
    uint8_t mad[CS_SA_MAD_SIZE];
    for (unsigned long i = 0; i < n; i++) {
        struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET};
        switch (i % 4) {
        case 0: /* MTU "exactly 0": no such MTU (ibsim drops bad versions before any SM) */
            q.component_mask = CS_SA_PR_MTU_SELECTOR | CS_SA_PR_MTU;
            q.record.mtu_selector = CS_SA_SELECTOR_EXACTLY;
            cs_sa_path_request_encode(&q, 0, 0, mad);
            break;
        case 1:
            cs_sa_path_request_encode(&q, 0, 0, mad);
            cs_bits_set(mad, 16 * 8, 16, 0x1234); /* no such attribute */
            break;
        case 2:
            q.method = CS_SA_METHOD_SET;
            cs_sa_path_request_encode(&q, 0, 0, mad);
            break;
        default: /* a Get whose SA header and record are noise, SM_Key 0 (a key the SA does not
                    know is dropped, not answered) */
            cs_sa_path_request_encode(&q, 0, 0, mad);
            for (unsigned b = CS_SA_SA_OFFSET; b < CS_SA_MAD_SIZE; b++)
                mad[b] = (uint8_t)cs_rng_next(&rng);
            cs_bits_set(mad, CS_SA_SA_OFFSET * 8, 64, 0);
            break;
        }
        int status = ask(port, mad, (uint32_t)(0x1000 + i));
        if (getenv("SA_FLOOD_VERBOSE"))
            fprintf(stderr, "malformed %lu (kind %lu): status %d\n", i, i % 4, status);
        answered += status >= 0;
        error_status += status > 0;
    }
    /* And the SA still answers a good query. */
    struct cs_sa_path_query good = {.method = CS_SA_METHOD_GET,
                                    .component_mask = CS_SA_PR_DLID | CS_SA_PR_SLID};
    good.record.dlid = lids[num_lids - 1].lid;
    good.record.slid = lids[0].lid;
    cs_sa_path_request_encode(&good, 0, 0, mad);
    int ok = ask(port, mad, 0x9999) == 0;
    printf("malformed %lu answered %lu error_status %lu then_good %d\n", n, answered, error_status,
           ok);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    unsigned long queries = 10000, outstanding = 16, seed = 1, malformed = 0;
    const char *lid_file = NULL;
    static const struct option options[] = {
        {"queries", required_argument, NULL, 'n'},   {"outstanding", required_argument, NULL, 'w'},
        {"lids", required_argument, NULL, 'l'},      {"seed", required_argument, NULL, 's'},
        {"malformed", required_argument, NULL, 'm'}, {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (c == 'n')
            queries = strtoul(optarg, NULL, 0);
        else if (c == 'w')
            outstanding = strtoul(optarg, NULL, 0);
        else if (c == 'l')
            lid_file = optarg;
        else if (c == 's')
            seed = strtoul(optarg, NULL, 0);
        else if (c == 'm')
            malformed = strtoul(optarg, NULL, 0);
        else
            return 2;
    }
    if (lid_file == NULL || outstanding == 0 || outstanding > MAX_OUTSTANDING || queries == 0) {
        fprintf(stderr, "usage: sa_flood --queries N --outstanding W(1..%d) --lids GUID2LID\n",
                MAX_OUTSTANDING);
        return 2;
    }
    struct cs_error err;
    struct cs_guid2lid g = {0};
    if (cs_guid2lid_read(&g, lid_file, &err) < 0) {
        fprintf(stderr, "sa_flood: %s\n", err.msg);
        return 1;
    }
    if (g.count < 2) {
        fprintf(stderr, "sa_flood: %s: fewer than 2 LIDs\n", lid_file);
        return 1;
    }
    struct cs_saflood_target *lids = calloc(g.count, sizeof *lids);
    if (!lids)
        return 1;
    for (uint32_t i = 0; i < g.count; i++)
        lids[i] = (struct cs_saflood_target){g.entries[i].guid, g.entries[i].min_lid};
    uint32_t num_lids = g.count;
    cs_guid2lid_free(&g);

    struct umad_client port;
    if (umad_client_open(&port, NULL, 0, 0, TIMEOUT_MS, &err) < 0) {
        fprintf(stderr, "sa_flood: %s\n", err.msg);
        return 1;
    }
    if (port.sm_lid == 0) {
        fprintf(stderr, "sa_flood: the port knows no SM (SM LID 0)\n");
        return 1;
    }
    int rc = 1;
    if (malformed > 0) {
        rc = send_malformed(&port, malformed, lids, num_lids, seed);
        goto out;
    }
    struct cs_gmp_transport t = umad_client_sa_transport(&port);
    struct cs_sa_client_options so = {.timeout_ms = TIMEOUT_MS, .retries = 0};
    struct cs_saflood_options fo = {.targets = lids,
                                    .num_targets = num_lids,
                                    .random_source = true,
                                    .seed = seed,
                                    .limit = queries};
    struct cs_sa_client *sa = NULL;
    struct cs_saflood *flood = NULL;
    struct cs_saflood_window w;
    if (cs_sa_client_create(&t, &so, &sa, &err) < 0 ||
        cs_saflood_create(sa, &fo, &flood, &err) < 0 || (cs_saflood_window_begin(flood), 0) ||
        cs_saflood_add_instances(flood, (unsigned)outstanding, &err) < 0 ||
        cs_saflood_drain(flood, &err) < 0 || cs_saflood_window_end(flood, &w, &err) < 0) {
        fprintf(stderr, "sa_flood: %s\n", err.msg);
    } else {
        if (getenv("SA_FLOOD_VERBOSE") && w.counts.refused)
            fprintf(stderr, "%llu queries refused with an error status\n",
                    (unsigned long long)w.counts.refused);
        printf("queries %lu answered %llu errors %llu timeouts %llu seconds %.3f qps %.0f "
               "median_us %.0f p99_us %.0f\n",
               queries, (unsigned long long)w.counts.answered, (unsigned long long)w.counts.refused,
               (unsigned long long)w.counts.timeouts, w.seconds, w.qps, w.latency.median_ms * 1000,
               w.latency.p99_ms * 1000);
        rc = w.counts.timeouts == queries ? 1 : 0;
    }
    cs_saflood_destroy(flood);
    cs_sa_client_destroy(sa);
out:
    umad_client_close(&port);
    free(lids);
    return rc;
}
