/* bench_informs RUNS: event subscriptions on the 11664-host tree (hybrid-18-3-1-full:
 * XGFT(3;18,18,36;1,18,18), 1620 switches), the worst case of a subnet where every host
 * subscribes to every trap, against a fresh ftree routing of the same fabric measured in the same
 * run (the anchor: the SM's other computation per sweep).
 *
 *   subscribe     every host's Set(InformInfo) through the SA (cs_sa_answer), one after the other:
 *                 each looks the store up for the same subscription first
 *   one notice    a host out of service (trap 65): matched against every subscription, a Report
 *                 queued for each
 *   a leaf        the 18 hosts of a leaf switch out of service: what a sweep after a leaf's
 *                 power cut reports
 *
 * Medians of RUNS. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/sa_fixtures.h"
#include "bench_util.h"
#include "cloudsm/informs.h"
#include "cloudsm/route.h"

#define MAX_RUNS 50
#define LEAF_HOSTS 18
#define PREFIX UINT64_C(0xfe80000000000000)

static const char bench[] = "bench_informs";

/* The notice of host port p going out of service, issued by the SM on LID 1. */
static void out_of_service(const struct cs_fabric *f, uint32_t p, struct cs_notice *n)
{
    uint8_t gid[16];
    cs_bits_set(gid, 0, 64, PREFIX);
    cs_bits_set(gid, 64, 64, f->ports[p].guid);
    cs_notice_from_sm(CS_TRAP_GID_OUT_OF_SERVICE, 1, PREFIX, f->ports[0].guid, gid, n);
}

int main(int argc, char **argv)
{
    int runs = bench_runs(bench, argc, argv, MAX_RUNS);
    struct cs_fabric f;
    struct cs_error err;
    bench_big_tree(bench, &f);
    uint32_t *hosts = malloc(f.num_nodes * sizeof *hosts), num_hosts = 0;
    for (uint32_t n = 0; n < f.num_nodes; n++)
        if (!cs_node_is_switch(&f.nodes[n]))
            hosts[num_hosts++] = f.nodes[n].first_port + 1;
    struct cs_sm_sweep sweep;
    struct cs_lfts lfts;
    struct cs_route_stats st;
    if (sa_ibsim_sweep(&sweep, &f, hosts[0], PREFIX, &err) < 0 ||
        cs_route_with("ftree", &sweep.fabric, NULL, NULL, &lfts, &st, NULL, &err) < 0)
        bench_die(bench, "sweep", &err);
    uint8_t *resp = malloc(CS_SA_MAD_SIZE);
    struct cs_report *reports = malloc(num_hosts * sizeof *reports);
    if (!hosts || !resp || !reports)
        return 1;

    double ftree_ms[MAX_RUNS], set_ms[MAX_RUNS], one_ms[MAX_RUNS], leaf_ms[MAX_RUNS];
    uint32_t one_reports = 0, leaf_reports = 0;
    for (int r = 0; r < runs; r++) {
        ftree_ms[r] = bench_ftree_ms(bench, &f);

        double start;
        struct cs_informs *store = cs_informs_create(&err);
        struct cs_sa_options opt = {.subnet_prefix = PREFIX, .informs = store};
        struct cs_sa_db *db;
        if (store == NULL || cs_sa_db_build(&sweep, &lfts, NULL, &opt, &db, &err) < 0)
            bench_die(bench, "db", &err);
        struct cs_inform_info all = cs_inform_info_all();
        uint8_t record[CS_INFORM_INFO_SIZE], req[CS_SA_MAD_SIZE];
        cs_inform_info_encode(&all, record);
        sa_request(CS_SA_METHOD_SET, CS_SA_ATTR_INFORM_INFO, 0, 0, 1, record, sizeof record, req);
        start = bench_now_ms();
        for (uint32_t h = 0; h < num_hosts; h++) {
            size_t len;
            if (cs_sa_answer(db, sweep.fabric.ports[hosts[h]].lid, req, sizeof req, resp,
                             CS_SA_MAD_SIZE, &len) != 1 ||
                resp[4] != 0 || resp[5] != 0)
                bench_die(bench, "subscribe", &err);
        }
        set_ms[r] = bench_now_ms() - start;
        if (cs_informs_count(store) != num_hosts)
            return 1;

        struct cs_notice n;
        out_of_service(&sweep.fabric, hosts[num_hosts / 2], &n);
        start = bench_now_ms();
        int queued = cs_sa_report_notice(db, &n, &err);
        one_ms[r] = bench_now_ms() - start;
        if (queued < 0)
            bench_die(bench, "notice", &err);
        one_reports = (uint32_t)queued;
        while (cs_informs_take_reports(store, reports, num_hosts) > 0)
            ;
        leaf_reports = 0;
        start = bench_now_ms();
        for (uint32_t k = 0; k < LEAF_HOSTS; k++) {
            out_of_service(&sweep.fabric, hosts[k], &n);
            queued = cs_sa_report_notice(db, &n, &err);
            if (queued < 0)
                bench_die(bench, "notice", &err);
            leaf_reports += (uint32_t)queued;
        }
        leaf_ms[r] = bench_now_ms() - start;
        cs_sa_db_free(db);
        cs_informs_destroy(store);
    }
    double ftree = bench_median(ftree_ms, runs), set = bench_median(set_ms, runs),
           one = bench_median(one_ms, runs), leaf = bench_median(leaf_ms, runs);
    printf(
        "hybrid-18-3-1-full (%u hosts, every one subscribed to every trap); medians of %d runs\n",
        num_hosts, runs);
    printf("  anchor: ftree routing          %8.1f ms\n", ftree);
    printf("  %u subscriptions through the SA %8.1f ms  (%.3f of the anchor; %.2f us a Set)\n",
           num_hosts, set, set / ftree, set * 1e3 / num_hosts);
    printf("  one host out of service        %8.2f ms  (%.4f of the anchor; %u Reports queued)\n",
           one, one / ftree, one_reports);
    printf("  a leaf's %d hosts out           %8.2f ms  (%.4f of the anchor; %u Reports queued)\n",
           LEAF_HOSTS, leaf, leaf / ftree, leaf_reports);
    free(reports);
    free(resp);
    free(hosts);
    cs_lfts_free(&lfts);
    cs_sm_sweep_free(&sweep);
    cs_fabric_free(&f);
    return 0;
}
