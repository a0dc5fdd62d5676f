/* sa_flood: SA PathRecord load generator for bench/sa_vs_opensm.
 *
 *   sa_flood --queries N --outstanding W --lids FILE [--seed S]
 *   sa_flood --malformed N --lids FILE
 *
 * Sends N SubnAdmGet(PathRecord) queries (SLID/DLID form, pairs drawn from the LIDs in FILE, one
 * per line, decimal or 0x hex; a guid2lid file works) to the SM named in the local port's
 * PortInfo, with at most W in flight, and prints one line:
 *
 *     queries 20000 answered 20000 errors 0 timeouts 0 seconds 1.234 qps 16207 median_us 210 p99_us
 * 950
 *
 * --malformed sends N broken requests one at a time (an MTU that does not exist, an unknown
 * attribute, a Set of a PathRecord, a Get whose record is random bytes, in turn), then one good
 * query, and prints how many were answered and how many of those carried an error status:
 *
 *     malformed 40 answered 40 error_status 30 then_good 1
 *
 * Like Paper I's SA Flooder (docs/references.md) but asynchronous: W > 1 keeps the
 * SA busy the way many synchronous flooder instances do. Latency is per query, from umad_send
 * to its reply. Talks libibumad directly, so it runs on hardware and under umad2sim alike.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "sa_umad.h"

#define ATTR_PATH_RECORD 0x0035
#define SA_DATA SA_UMAD_DATA
#define TIMEOUT_MS SA_UMAD_TIMEOUT_MS
#define MAX_OUTSTANDING 1024

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* LIDs from a file: the second column of a guid2lid line, or the only one of a plain list. */
static unsigned read_lids(const char *path, uint16_t **out)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "sa_flood: %s: %s\n", path, strerror(errno));
        exit(1);
    }
    unsigned n = 0, cap = 0;
    uint16_t *lids = NULL;
    char line[256];
    while (fgets(line, sizeof(line), f)) {
        char *tok = strtok(line, " \t\n");
        if (tok == NULL || tok[0] == '#')
            continue;
        char *second = strtok(NULL, " \t\n");
        unsigned long lid = strtoul(second ? second : tok, NULL, 0);
        if (lid == 0 || lid > 0xbfff)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 1024;
            lids = realloc(lids, cap * sizeof(*lids));
            if (lids == NULL)
                exit(1);
        }
        lids[n++] = (uint16_t)lid;
    }
    fclose(f);
    *out = lids;
    return n;
}

struct slot {
    uint32_t tid;
    double sent_us;
    bool busy;
};

static uint64_t next_rand(uint64_t *rng)
{
    *rng ^= *rng << 13, *rng ^= *rng >> 7, *rng ^= *rng << 17;
    return *rng;
}

static int send_malformed(struct sa_umad *c, unsigned long n, const uint16_t *lids,
                          unsigned num_lids, uint64_t *rng)
{
    unsigned long answered = 0, error_status = 0;
    for (unsigned long i = 0; i < n; i++) {
        uint8_t *mad = sa_umad_request(c, 0x01, ATTR_PATH_RECORD, 0);
        switch (i % 4) {
        case 0: /* MTU "exactly 0": no such MTU (ibsim drops bad versions before any SM) */
            sa_put64(mad + 48, (1u << 16) | (1u << 17));
            mad[SA_DATA + 54] = 2 << 6;
            break;
        case 1:
            sa_put16(mad + 16, 0x1234); /* no such attribute */
            break;
        case 2:
            mad[3] = 0x02; /* Set of a PathRecord */
            break;
        default: /* a Get whose SA header and record are noise */
            for (unsigned b = 36; b < SA_UMAD_MAD_SIZE; b++)
                mad[b] = (uint8_t)next_rand(rng);
            sa_put64(mad + 36, 0); /* SM_Key 0: a key the SA does not know is dropped */
            break;
        }
        int status = sa_umad_ask(c, (uint32_t)(0x1000 + i));
        if (getenv("SA_FLOOD_VERBOSE"))
            fprintf(stderr, "malformed %lu (kind %lu): status %d\n", i, i % 4, status);
        answered += status >= 0;
        error_status += status > 0;
    }
    /* And the SA still answers a good query. */
    uint8_t *mad = sa_umad_request(c, 0x01, ATTR_PATH_RECORD, (1u << 4) | (1u << 5));
    sa_put16(mad + SA_DATA + 40, lids[num_lids - 1]);
    sa_put16(mad + SA_DATA + 42, lids[0]);
    int good = sa_umad_ask(c, 0x9999) == 0;
    printf("malformed %lu answered %lu error_status %lu then_good %d\n", n, answered, error_status,
           good);
    return good ? 0 : 1;
}

int main(int argc, char **argv)
{
    unsigned long queries = 10000, outstanding = 16, seed = 1, malformed = 0;
    const char *lid_file = NULL;
    static const struct option options[] = {
        {"queries", required_argument, NULL, 'n'},   {"outstanding", required_argument, NULL, 'w'},
        {"lids", required_argument, NULL, 'l'},      {"seed", required_argument, NULL, 's'},
        {"malformed", required_argument, NULL, 'm'}, {NULL, 0, NULL, 0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        if (opt == 'n')
            queries = strtoul(optarg, NULL, 0);
        else if (opt == 'w')
            outstanding = strtoul(optarg, NULL, 0);
        else if (opt == 'l')
            lid_file = optarg;
        else if (opt == 's')
            seed = strtoul(optarg, NULL, 0);
        else if (opt == 'm')
            malformed = strtoul(optarg, NULL, 0);
        else
            return 2;
    }
    if (lid_file == NULL || outstanding == 0 || outstanding > MAX_OUTSTANDING || queries == 0) {
        fprintf(stderr, "usage: sa_flood --queries N --outstanding W(1..%d) --lids FILE\n",
                MAX_OUTSTANDING);
        return 2;
    }
    uint16_t *lids;
    unsigned num_lids = read_lids(lid_file, &lids);
    if (num_lids < 2) {
        fprintf(stderr, "sa_flood: %s: fewer than 2 LIDs\n", lid_file);
        return 1;
    }
    struct sa_umad c;
    if (sa_umad_open(&c, "sa_flood") < 0)
        return 1;
    double *latency = calloc(queries, sizeof(double));
    struct slot *slots = calloc(outstanding, sizeof(*slots));
    if (!latency || !slots)
        return 1;
    uint64_t rng = seed * 0x9e3779b97f4a7c15ull + 1;
    if (malformed > 0) {
        int rc = send_malformed(&c, malformed, lids, num_lids, &rng);
        free(latency), free(slots), free(lids);
        sa_umad_close(&c);
        return rc;
    }
    unsigned long sent = 0, answered = 0, errors = 0, timeouts = 0, in_flight = 0;
    uint32_t next_tid = 1;
    double start = sa_now_us();
    while (answered + errors + timeouts < queries) {
        for (unsigned i = 0; i < outstanding && sent < queries; i++) {
            if (slots[i].busy)
                continue;
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            uint16_t slid = lids[rng % num_lids], dlid = lids[(rng >> 20) % num_lids];
            /* Get, component mask DLID and SLID */
            uint8_t *mad = sa_umad_request(&c, 0x01, ATTR_PATH_RECORD, (1u << 4) | (1u << 5));
            uint32_t tid = next_tid++;
            sa_put64(mad + 8, (uint64_t)tid << 8 | i); /* low byte: slot, for the reply */
            sa_put16(mad + SA_DATA + 40, dlid);
            sa_put16(mad + SA_DATA + 42, slid);
            umad_set_addr(c.send_buf, (int)c.sm_lid, 1, 0, (int)SA_UMAD_QP1_QKEY);
            slots[i] = (struct slot){tid, sa_now_us(), true};
            if (umad_send(c.portid, c.agent, c.send_buf, SA_UMAD_MAD_SIZE, 0, 0) < 0) {
                fprintf(stderr, "sa_flood: umad_send failed\n");
                return 1;
            }
            sent++;
            in_flight++;
        }
        int len = SA_UMAD_RECV_MAX;
        int rc = umad_recv(c.portid, c.recv_buf, &len, 10);
        double t = sa_now_us();
        if (rc >= 0 && umad_status(c.recv_buf) == 0) {
            const uint8_t *mad = sa_umad_reply(&c);
            uint64_t tid = sa_get64(mad + 8) & 0xffffffffull; /* bits 32..47 are the agent's */
            unsigned i = (unsigned)(tid & 0xff);
            if (i < outstanding && slots[i].busy && slots[i].tid == (uint32_t)(tid >> 8)) {
                slots[i].busy = false;
                in_flight--;
                if (sa_get16(mad + 4) == 0) {
                    latency[answered++] = t - slots[i].sent_us;
                } else {
                    if (getenv("SA_FLOOD_VERBOSE") && errors < 10)
                        fprintf(stderr, "status 0x%04x for SLID %u DLID %u\n", sa_get16(mad + 4),
                                sa_get16(mad + SA_DATA + 42), sa_get16(mad + SA_DATA + 40));
                    errors++;
                }
            }
        }
        for (unsigned i = 0; i < outstanding; i++)
            if (slots[i].busy && t - slots[i].sent_us > TIMEOUT_MS * 1000.0) {
                slots[i].busy = false;
                in_flight--;
                timeouts++;
            }
    }
    double seconds = (sa_now_us() - start) / 1e6;
    qsort(latency, answered, sizeof(double), cmp_double);
    double median = answered ? latency[answered / 2] : 0;
    double p99 = answered ? latency[(size_t)((answered - 1) * 0.99)] : 0;
    printf("queries %lu answered %lu errors %lu timeouts %lu seconds %.3f qps %.0f median_us %.0f "
           "p99_us %.0f\n",
           queries, answered, errors, timeouts, seconds, answered / seconds, median, p99);
    free(latency), free(slots), free(lids);
    sa_umad_close(&c);
    return timeouts == queries ? 1 : 0;
}
