/* cloudsm pma: read a port's counters from its Performance Management agent (the PerfMgt class,
 * include/cloudsm/pma.h) through libibumad, as perfquery does: the first brick of the performance
 * manager. Options and output here; the MADs are the library's. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/json.h"
#include "cloudsm/pma.h"
#include "cloudsm/smp.h"
#include "umad_client.h"

static const char pma_help[] =
    "usage: cloudsm pma LID PORT [--extended] [--json] [-C CA] [-P PORT] [--timeout MS]\n"
    "\n"
    "Read port PORT's counters from the Performance Management agent at LID (PerfMgt\n"
    "PortCounters; --extended: PortCountersExtended, the 64-bit data and packet counters) and\n"
    "print them by their IBA names, as `perfquery LID PORT` (`perfquery -x`) does. Data counters\n"
    "are octets divided by 4. The 16- and 32-bit PortCounters stop at their largest value\n"
    "(they saturate) until reset; docs/sm/pma.md.\n"
    "\n"
    "  --extended      PortCountersExtended instead of PortCounters\n"
    "  --json          one JSON object: lid, port, attribute, then each counter\n"
    "  -C, --ca NAME   the local CA (default: the first active port)\n"
    "  -P, --port N    the local port number\n"
    "  --timeout MS    wait this long for the answer (default 1000)\n"
    "\n"
    "exit status: 0 read, 1 no answer or an error status, 2 bad usage\n"
    "\n"
    "example (on ibsim, LD_PRELOAD=libumad2sim.so):\n"
    "  cloudsm pma 1 1 --extended\n";

struct counter {
    const char *name; /* as perfquery prints it */
    uint64_t value;
};

static void print_counters(const char *attribute, unsigned lid, unsigned port,
                           const struct counter *c, size_t n, bool as_json)
{
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, stdout);
        cs_json_object_begin(&j, NULL);
        cs_json_u64(&j, "lid", lid);
        cs_json_u64(&j, "port", port);
        cs_json_str(&j, "attribute", attribute);
        for (size_t i = 0; i < n; i++)
            cs_json_u64(&j, c[i].name, c[i].value);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return;
    }
    printf("# %s: Lid %u port %u\n", attribute, lid, port);
    for (size_t i = 0; i < n; i++)
        printf("%s:%" PRIu64 "\n", c[i].name, c[i].value);
}

static int pma_main(int argc, char **argv)
{
    const char *who = argv[0], *ca = NULL;
    unsigned local_port = 0, timeout_ms = 1000;
    bool extended = false, as_json = false;
    static const struct option options[] = {
        {"extended", no_argument, NULL, 'x'},      {"json", no_argument, NULL, 'j'},
        {"ca", required_argument, NULL, 'C'},      {"port", required_argument, NULL, 'P'},
        {"timeout", required_argument, NULL, 't'}, {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "C:P:", options, NULL)) != -1) {
        switch (opt) {
        case 'x':
            extended = true;
            break;
        case 'j':
            as_json = true;
            break;
        case 'C':
            ca = optarg;
            break;
        case 'P':
            if (!cli_parse_uint(optarg, 1, 254, &local_port))
                return cli_usage(who, "--port wants 1 to 254, not '%s'", optarg);
            break;
        case 't':
            if (!cli_parse_uint(optarg, 1, 600000, &timeout_ms))
                return cli_usage(who, "--timeout wants 1 to 600000 ms, not '%s'", optarg);
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    unsigned lid, port;
    if (argc - optind != 2)
        return cli_usage(who, "wants a LID and a port number");
    if (!cli_parse_uint(argv[optind], 1, 0xBFFF, &lid))
        return cli_usage(who, "LID wants 1 to 49151, not '%s'", argv[optind]);
    if (!cli_parse_uint(argv[optind + 1], 0, 255, &port))
        return cli_usage(who, "PORT wants 0 to 255, not '%s'", argv[optind + 1]);

    struct cs_error err;
    struct umad_client c;
    if (umad_client_open(&c, ca, (int)local_port, UMAD_CLIENT_PMA, (int)timeout_ms, &err) < 0)
        return cli_fail(who, &err);
    uint16_t attr = extended ? CS_PMA_ATTR_PORT_COUNTERS_EXT : CS_PMA_ATTR_PORT_COUNTERS;
    uint8_t request[CS_PMA_MAD_SIZE];
    uint32_t tid = umad_client_tid(&c);
    cs_pma_get_request(request, attr, (uint8_t)port, tid);
    const uint8_t *reply = NULL;
    size_t len = 0;
    uint16_t slid;
    int rc = umad_client_send_pma(&c, request, (uint16_t)lid, &err);
    while (rc == 0) {
        int got = umad_client_recv(&c, &reply, &len, &slid, (int)timeout_ms, &err);
        if (got < 0) {
            rc = -1;
        } else if (got == 0) {
            rc = cs_fail(&err, "no answer from LID %u in %u ms", lid, timeout_ms);
        } else if (len >= CS_MAD_HEADER_SIZE) {
            struct cs_mad_header h;
            cs_mad_header_decode(reply, &h);
            /* The kernel owns the high half of the transaction id (its agent's). */
            if (h.mgmt_class == CS_PMA_CLASS && (uint32_t)h.transaction_id == tid)
                break;
        }
    }
    struct counter counters[20];
    size_t n = 0;
    if (rc == 0 && extended) {
        struct cs_pma_port_counters_ext x;
        rc = cs_pma_decode_port_counters_ext(reply, len, &x, &err);
        struct counter list[] = {
            {"PortXmitData", x.xmit_data},
            {"PortRcvData", x.rcv_data},
            {"PortXmitPkts", x.xmit_pkts},
            {"PortRcvPkts", x.rcv_pkts},
            {"PortUnicastXmitPkts", x.unicast_xmit_pkts},
            {"PortUnicastRcvPkts", x.unicast_rcv_pkts},
            {"PortMulticastXmitPkts", x.multicast_xmit_pkts},
            {"PortMulticastRcvPkts", x.multicast_rcv_pkts},
        };
        n = sizeof list / sizeof list[0];
        memcpy(counters, list, sizeof list);
    } else if (rc == 0) {
        struct cs_pma_port_counters p;
        rc = cs_pma_decode_port_counters(reply, len, &p, &err);
        struct counter list[] = {
            {"SymbolErrorCounter", p.symbol_errors},
            {"LinkErrorRecoveryCounter", p.link_error_recovery},
            {"LinkDownedCounter", p.link_downed},
            {"PortRcvErrors", p.rcv_errors},
            {"PortRcvRemotePhysicalErrors", p.rcv_remote_physical_errors},
            {"PortRcvSwitchRelayErrors", p.rcv_switch_relay_errors},
            {"PortXmitDiscards", p.xmit_discards},
            {"PortXmitConstraintErrors", p.xmit_constraint_errors},
            {"PortRcvConstraintErrors", p.rcv_constraint_errors},
            {"LocalLinkIntegrityErrors", p.local_link_integrity_errors},
            {"ExcessiveBufferOverrunErrors", p.excessive_buffer_overruns},
            {"VL15Dropped", p.vl15_dropped},
            {"PortXmitData", p.xmit_data},
            {"PortRcvData", p.rcv_data},
            {"PortXmitPkts", p.xmit_pkts},
            {"PortRcvPkts", p.rcv_pkts},
            {"PortXmitWait", p.xmit_wait},
        };
        n = sizeof list / sizeof list[0];
        memcpy(counters, list, sizeof list);
    }
    umad_client_close(&c);
    if (rc < 0)
        return cli_fail(who, &err);
    print_counters(extended ? "PortCountersExtended" : "PortCounters", lid, port, counters, n,
                   as_json);
    return EXIT_OK;
}

const struct cli_command cli_pma_commands[] = {
    {"pma", "", "read a port's counters from its Performance Management agent", pma_help, pma_main},
    {NULL, NULL, NULL, NULL, NULL},
};
