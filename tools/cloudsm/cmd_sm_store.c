/* cloudsm sm counters | sm events: what cloudsmd keeps in its monitoring store (monitor.h),
 * read from the file directly (read-only: it works while cloudsmd writes), not through the
 * control socket. Samples are streamed batch by batch, so a long window of a large fabric is
 * printed without being held in memory. The store's options and -o output are defined here for
 * every command that reads the store (store_cli.h). */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/json.h"
#include "cloudsm/monitor.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/time_point.h"
#include "store_cli.h"

#define STORE_OPTIONS_HELP                                                                         \
    CLI_STORE_WINDOW_HELP                                                                          \
    "  --json                one JSON object (raw numbers, exact)\n"                               \
    "  --csv                 CSV with a header line (raw numbers, exact)\n"                        \
    "  -o, --output FILE     write to FILE (atomically) instead of standard output\n"              \
    "\n"                                                                                           \
    "The store is read, never written: this works while cloudsmd runs. Times print in UTC.\n"      \
    "Exit status: 0 ok (also when nothing is in the window), 1 the store cannot be read,\n"        \
    "2 bad usage. The store, its retention and downsampling: docs/sm/monitoring.md.\n"

const char cli_sm_counters_help[] =
    "usage: cloudsm sm counters [--since T] [--until T] [--node GUID]... [--port GUID:NUM]...\n"
    "                           [--metric NAME]... [--json | --csv]\n"
    "                           [--store FILE | -d DIR | -c FILE]\n"
    "\n"
    "The port counters cloudsmd polled, as rates per second over each sample's interval:\n"
    "one line per port and sample with its time (the interval's end), node GUID and\n"
    "description, port number, interval (10s for raw polls; 1m and 1h buckets for older\n"
    "data, which the store keeps averaged), flags (R: a counter was reset, S: one\n"
    "saturated; the rates are then lower bounds) and the metrics:\n"
    "\n"
    "  xmit_bytes, rcv_bytes   data sent and received (B/s)\n"
    "  xmit_pkts, rcv_pkts     packets (pkt/s)\n"
    "  xmit_wait               PortXmitWait ticks: waiting for credits (ticks/s)\n"
    "  errors                  every error counter, summed (/s)\n"
    "\n"
    "  --node GUID           only this node's ports (repeat for more)\n"
    "  --port GUID:NUM       only port NUM of the node GUID (repeat for more; with --node,\n"
    "                        either matches)\n"
    "  --metric NAME         only these columns (repeat, or NAME,NAME; default "
    "all)\n" STORE_OPTIONS_HELP "Default window: the last 10 minutes.\n"
    "\n"
    "examples:\n"
    "  cloudsm sm counters --since 5m --node 0x0010000000000100\n"
    "  cloudsm sm counters --port 0x0020000100000003:7 --metric rcv_bytes,xmit_wait\n"
    "  cloudsm sm counters --since 2026-11-27T08:00:00Z --until 2026-11-27T09:00:00Z --csv \\\n"
    "      -o morning.csv\n"
    "  cloudsm sm counters --since 1h --json | jq '.samples[] | select(.xmit_wait > 0)'\n"
    "  cloudsm sm counters --store ./state/monitor.sqlite     # a cloudsmd run with -d ./state\n";

const char cli_sm_events_help[] =
    "usage: cloudsm sm events [--since T] [--until T] [--kind K] [--json | --csv]\n"
    "                         [--store FILE | -d DIR | -c FILE]\n"
    "\n"
    "What happened to the fabric, as cloudsmd recorded it: one line per event with its time,\n"
    "kind, subject (what it is about), text, and detail (a JSON document: for the adaptation\n"
    "loop's \"adapt\" events why it acted, what it did, the cost, the expected gain, and,\n"
    "once measured, the effect). Kinds: sweep, fault, reconfiguration, vm, adapt.\n"
    "\n"
    "  --kind K              only events of kind K\n" STORE_OPTIONS_HELP
    "Default window: the last day.\n"
    "\n"
    "examples:\n"
    "  cloudsm sm events\n"
    "  cloudsm sm events --since 7d --kind adapt --json | jq '.events[].detail'\n"
    "  cloudsm sm events --since 2026-11-27 --csv -o events.csv\n";

/* getopt_long over the store options and a command's own (store_cli.h). */
int cli_store_getopt(int argc, char **argv, const struct option *options,
                     struct cli_store_options *o, const char *who, int *rc)
{
    opterr = 0;
    for (;;) {
        int opt = getopt_long(argc, argv, ":c:d:o:", options, NULL);
        switch (opt) {
        case CLI_STORE_OPT_STORE:
            o->store = optarg;
            break;
        case 'd':
            o->state_dir = optarg;
            break;
        case 'c':
            o->config_path = optarg;
            break;
        case CLI_STORE_OPT_SINCE:
            o->since_text = optarg;
            break;
        case CLI_STORE_OPT_UNTIL:
            o->until_text = optarg;
            break;
        case CLI_STORE_OPT_JSON:
        case CLI_STORE_OPT_CSV:
            if (o->format != CLI_FORMAT_TEXT) {
                *rc = cli_usage(who, "give --json or --csv, not both");
                return -2;
            }
            o->format = opt == CLI_STORE_OPT_JSON ? CLI_FORMAT_JSON : CLI_FORMAT_CSV;
            break;
        case 'o':
            o->output = optarg;
            break;
        case ':':
            *rc = cli_usage(who, "option '%s' needs a value", argv[optind - 1]);
            return -2;
        case '?':
            *rc = cli_usage(who, "unknown option '%s'", argv[optind - 1]);
            return -2;
        default:
            return opt;
        }
    }
}

int cli_store_check(struct cli_store_options *o, int argc, char **argv, int operands,
                    const char *who, const char *default_since, char *path, size_t size)
{
    if (operands == 0 && optind < argc)
        return cli_usage(who, "takes options only, not '%s'", argv[optind]);
    if (argc - optind != operands)
        return cli_usage(who, "wants %d operand%s", operands, operands == 1 ? "" : "s");
    if (!!o->store + !!o->state_dir + !!o->config_path > 1)
        return cli_usage(who, "give one of --store, --state-dir and --config");
    double now = cli_wall_clock_s();
    struct cs_error err;
    if (cs_time_point_parse(o->since_text ? o->since_text : default_since, now, &o->since, &err) <
        0)
        return cli_usage(who, "--since %s", err.msg);
    if (cs_time_point_parse(o->until_text ? o->until_text : "now", now, &o->until, &err) < 0)
        return cli_usage(who, "--until %s", err.msg);
    if (o->since > o->until)
        return cli_usage(who, "--since is after --until: the window is empty");
    char dir[CS_SM_CONFIG_PATH_MAX];
    if (o->store)
        snprintf(path, size, "%s", o->store);
    else if (cli_state_dir(o->state_dir, o->config_path, dir, sizeof dir, &err) < 0)
        return cli_fail(who, &err);
    else if ((size_t)snprintf(path, size, "%s/%s", dir, CS_MONITOR_STORE_NAME) >= size)
        return cli_usage(who, "the state directory is too long");
    return EXIT_OK;
}

int cli_output_open(struct cli_output *out, const char *path, struct cs_error *err)
{
    out->atomic = path != NULL;
    out->fp = stdout;
    if (!path)
        return 0;
    if (cs_atomic_open(&out->af, path, err) < 0)
        return -1;
    out->fp = out->af.fp;
    return 0;
}

int cli_output_close(struct cli_output *out, const char *who, int rc)
{
    struct cs_error err;
    if (!out->atomic)
        return fflush(stdout) == 0 || rc != EXIT_OK ? rc : EXIT_FAILED;
    if (rc != EXIT_OK) {
        cs_atomic_abort(&out->af);
        return rc;
    }
    if (cs_atomic_commit(&out->af, &err) < 0)
        return cli_fail(who, &err);
    return EXIT_OK;
}

/* A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
static void csv_field(FILE *fp, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

/* ---- counters ----------------------------------------------------------------------------- */

struct port_filter {
    uint64_t node_guid;
    uint8_t num;
};

struct counters {
    struct cli_store_options o;
    FILE *fp;
    struct cs_json j;
    int metrics[CS_METRIC_COUNT];
    int num_metrics;
    uint64_t *nodes; /* --node */
    uint32_t num_nodes;
    struct port_filter *ports; /* --port */
    uint32_t num_ports;
    uint64_t printed;
};

/* Kept by the --node and --port filters (none given: everything). */
static bool wanted(const struct counters *c, uint64_t node_guid, uint8_t num)
{
    if (c->num_nodes == 0 && c->num_ports == 0)
        return true;
    for (uint32_t i = 0; i < c->num_nodes; i++)
        if (c->nodes[i] == node_guid)
            return true;
    for (uint32_t i = 0; i < c->num_ports; i++)
        if (c->ports[i].node_guid == node_guid && c->ports[i].num == num)
            return true;
    return false;
}

/* "12.5 GB/s": a rate with an SI prefix, three significant digits. */
static void human_rate(char *buf, size_t size, double v, const char *unit)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P"};
    int p = 0;
    while (fabs(v) >= 999.5 && p < 5) {
        v /= 1000;
        p++;
    }
    int decimals = v == 0 ? 0 : fabs(v) < 9.995 ? 2 : fabs(v) < 99.95 ? 1 : 0;
    snprintf(buf, size, "%.*f %s%s", decimals, v, prefix[p], unit);
}

static const char *metric_unit(int metric)
{
    switch (metric) {
    case CS_METRIC_XMIT_BYTES:
    case CS_METRIC_RCV_BYTES:
        return "B/s";
    case CS_METRIC_XMIT_PKTS:
    case CS_METRIC_RCV_PKTS:
        return "pkt/s";
    case CS_METRIC_XMIT_WAIT:
        return "ticks/s";
    default:
        return "/s";
    }
}

/* "10s", "1m", "1h", or seconds with a fraction. */
static void human_interval(char *buf, size_t size, double s)
{
    if (s >= 3600 && fmod(s, 3600) == 0)
        snprintf(buf, size, "%.0fh", s / 3600);
    else if (s >= 60 && fmod(s, 60) == 0)
        snprintf(buf, size, "%.0fm", s / 60);
    else
        snprintf(buf, size, "%gs", s);
}

static void flags_text(char buf[3], uint32_t flags)
{
    int n = 0;
    if (flags & CS_METRIC_RESET)
        buf[n++] = 'R';
    if (flags & CS_METRIC_SATURATED)
        buf[n++] = 'S';
    if (n == 0)
        buf[n++] = '-';
    buf[n] = '\0';
}

static void counters_head(struct counters *c)
{
    switch (c->o.format) {
    case CLI_FORMAT_TEXT:
        fprintf(c->fp, "%-24s %-18s %-20s %4s %8s %5s", "time", "node", "description", "port",
                "interval", "flags");
        for (int i = 0; i < c->num_metrics; i++)
            fprintf(c->fp, " %13s", cs_metric_name(c->metrics[i]));
        fputc('\n', c->fp);
        break;
    case CLI_FORMAT_CSV:
        fputs("time,node_guid,node_desc,port,port_guid,interval_s,flags", c->fp);
        for (int i = 0; i < c->num_metrics; i++)
            fprintf(c->fp, ",%s", cs_metric_name(c->metrics[i]));
        fputc('\n', c->fp);
        break;
    case CLI_FORMAT_JSON:
        cs_json_init(&c->j, c->fp);
        cs_json_object_begin(&c->j, NULL);
        cs_json_str(&c->j, "store", c->o.store);
        cs_json_double_exact(&c->j, "since", c->o.since);
        cs_json_double_exact(&c->j, "until", c->o.until);
        cs_json_array_begin(&c->j, "metrics");
        for (int i = 0; i < c->num_metrics; i++)
            cs_json_str(&c->j, NULL, cs_metric_name(c->metrics[i]));
        cs_json_array_end(&c->j);
        cs_json_array_begin(&c->j, "samples");
        break;
    }
}

static void counters_row(struct counters *c, const struct cs_metrics *m,
                         const struct cs_metric_sample *s)
{
    const struct cs_metric_port *p = &m->ports[s->port];
    const struct cs_metric_node *n = &m->nodes[p->node];
    char when[CS_TIME_POINT_MAX], buf[32], flags[3];
    cs_time_point_format(s->time, when, sizeof when);
    switch (c->o.format) {
    case CLI_FORMAT_TEXT:
        human_interval(buf, sizeof buf, s->interval);
        flags_text(flags, s->flags);
        fprintf(c->fp, "%-24s 0x%016" PRIx64 " %-20.20s %4u %8s %5s", when, n->guid, n->desc,
                p->num, buf, flags);
        for (int i = 0; i < c->num_metrics; i++) {
            human_rate(buf, sizeof buf, s->value[c->metrics[i]], metric_unit(c->metrics[i]));
            fprintf(c->fp, " %13s", buf);
        }
        fputc('\n', c->fp);
        break;
    case CLI_FORMAT_CSV:
        fprintf(c->fp, "%.3f,0x%016" PRIx64 ",", s->time, n->guid);
        csv_field(c->fp, n->desc);
        fprintf(c->fp, ",%u,0x%016" PRIx64 ",%.17g,%u", p->num, p->guid, s->interval, s->flags);
        for (int i = 0; i < c->num_metrics; i++)
            fprintf(c->fp, ",%.17g", s->value[c->metrics[i]]);
        fputc('\n', c->fp);
        break;
    case CLI_FORMAT_JSON:
        cs_json_object_begin(&c->j, NULL);
        cs_json_double_exact(&c->j, "time", s->time);
        cs_json_str(&c->j, "time_iso", when);
        cs_json_guid(&c->j, "node_guid", n->guid);
        cs_json_str(&c->j, "node_desc", n->desc);
        cs_json_u64(&c->j, "port", p->num);
        cs_json_guid(&c->j, "port_guid", p->guid);
        cs_json_double_exact(&c->j, "interval", s->interval);
        cs_json_u64(&c->j, "flags", s->flags);
        for (int i = 0; i < c->num_metrics; i++)
            cs_json_double_exact(&c->j, cs_metric_name(c->metrics[i]), s->value[c->metrics[i]]);
        cs_json_object_end(&c->j);
        break;
    }
}

static int print_batch(void *ctx, const struct cs_metrics *m, const struct cs_metric_sample *s,
                       uint32_t n, struct cs_error *err)
{
    struct counters *c = ctx;
    (void)err;
    for (uint32_t i = 0; i < n; i++) {
        const struct cs_metric_port *p = &m->ports[s[i].port];
        if (!wanted(c, m->nodes[p->node].guid, p->num))
            continue;
        counters_row(c, m, &s[i]);
        c->printed++;
    }
    return 0;
}

static int add_metrics(struct counters *c, const char *list, const char *who)
{
    for (const char *p = list;;) {
        size_t len = strcspn(p, ",");
        int metric = cs_metric_from_name(p, len);
        if (metric < 0)
            return cli_usage(who,
                             "--metric '%.*s': no such metric (xmit_bytes, rcv_bytes, xmit_pkts, "
                             "rcv_pkts, xmit_wait, errors)",
                             (int)len, p);
        bool seen = false;
        for (int i = 0; i < c->num_metrics; i++)
            seen |= c->metrics[i] == metric;
        if (!seen)
            c->metrics[c->num_metrics++] = metric;
        if (!p[len])
            return EXIT_OK;
        p += len + 1;
    }
}

/* --port GUID:NUM */
static bool parse_port(const char *text, struct port_filter *out)
{
    const char *colon = strrchr(text, ':');
    char guid[32];
    unsigned num;
    if (!colon || (size_t)(colon - text) >= sizeof guid)
        return false;
    memcpy(guid, text, (size_t)(colon - text));
    guid[colon - text] = '\0';
    if (!cli_parse_u64(guid, &out->node_guid) || !cli_parse_uint(colon + 1, 1, 254, &num))
        return false;
    out->num = (uint8_t)num;
    return true;
}

static int counters_run(struct counters *c, const char *who, const char *path)
{
    struct cs_error err;
    struct cs_monitor *mon = NULL;
    if (cs_monitor_open(path, CS_MONITOR_READ_ONLY, &mon, &err) < 0)
        return cli_fail(who, &err);
    /* The store needs the nodes: those of --node and of --port. */
    uint32_t count = c->num_nodes + c->num_ports;
    uint64_t *select = calloc(count + 1, sizeof *select);
    if (!select) {
        cs_monitor_close(mon);
        return cli_usage(who, "out of memory");
    }
    if (c->num_nodes > 0)
        memcpy(select, c->nodes, c->num_nodes * sizeof *select);
    for (uint32_t i = 0; i < c->num_ports; i++)
        select[c->num_nodes + i] = c->ports[i].node_guid;
    struct cli_output out;
    struct cs_metrics topology;
    int rc = EXIT_OK;
    c->o.store = path;
    if (cli_output_open(&out, c->o.output, &err) < 0) {
        rc = cli_fail(who, &err);
    } else {
        c->fp = out.fp;
        counters_head(c);
        if (cs_monitor_scan(mon, c->o.since, c->o.until, count ? select : NULL, count, &topology,
                            print_batch, c, &err) < 0)
            rc = cli_fail(who, &err);
        else
            cs_metrics_free(&topology);
        if (rc == EXIT_OK && c->o.format == CLI_FORMAT_JSON) {
            cs_json_array_end(&c->j);
            cs_json_u64(&c->j, "count", c->printed);
            cs_json_object_end(&c->j);
            cs_json_finish(&c->j);
        }
        rc = cli_output_close(&out, who, rc);
    }
    if (rc == EXIT_OK && c->printed == 0 && c->o.format == CLI_FORMAT_TEXT) {
        char from[CS_TIME_POINT_MAX], to[CS_TIME_POINT_MAX];
        fprintf(stderr, "cloudsm %s: no samples from %s to %s in %s\n", who,
                cs_time_point_format(c->o.since, from, sizeof from),
                cs_time_point_format(c->o.until, to, sizeof to), path);
    }
    free(select);
    cs_monitor_close(mon);
    return rc;
}

int cli_sm_counters(int argc, char **argv)
{
    const char *who = argv[0];
    enum { OPT_NODE = CLI_STORE_OPT_OWN, OPT_PORT, OPT_METRIC };
    static const struct option options[] = {CLI_STORE_LONG_OPTIONS,
                                            CLI_STORE_CSV_OPTION,
                                            {"node", required_argument, NULL, OPT_NODE},
                                            {"port", required_argument, NULL, OPT_PORT},
                                            {"metric", required_argument, NULL, OPT_METRIC},
                                            {NULL, 0, NULL, 0}};
    struct counters c = {.num_metrics = 0};
    c.nodes = calloc((size_t)argc, sizeof *c.nodes);
    c.ports = calloc((size_t)argc, sizeof *c.ports);
    int opt, rc = EXIT_OK;
    if (!c.nodes || !c.ports)
        rc = cli_usage(who, "out of memory");
    while (rc == EXIT_OK && (opt = cli_store_getopt(argc, argv, options, &c.o, who, &rc)) >= 0) {
        if (opt == OPT_NODE && !cli_parse_u64(optarg, &c.nodes[c.num_nodes++]))
            rc = cli_usage(who, "--node wants a node GUID (0x0010000000000100), not '%s'", optarg);
        else if (opt == OPT_PORT && !parse_port(optarg, &c.ports[c.num_ports++]))
            rc = cli_usage(who,
                           "--port wants NODE_GUID:NUM (0x0020000100000003:7, NUM 1 to 254), "
                           "not '%s'",
                           optarg);
        else if (opt == OPT_METRIC)
            rc = add_metrics(&c, optarg, who);
    }
    char path[4096];
    if (rc == EXIT_OK)
        rc = cli_store_check(&c.o, argc, argv, 0, who, "10m", path, sizeof path);
    if (rc == EXIT_OK && c.num_metrics == 0)
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            c.metrics[c.num_metrics++] = k;
    if (rc == EXIT_OK)
        rc = counters_run(&c, who, path);
    free(c.nodes);
    free(c.ports);
    return rc;
}

/* ---- events ------------------------------------------------------------------------------- */

struct events {
    struct cli_store_options o;
    FILE *fp;
    struct cs_json j;
    uint64_t printed;
};

static int print_event(void *ctx, const struct cs_monitor_event *e, struct cs_error *err)
{
    struct events *ev = ctx;
    (void)err;
    char when[CS_TIME_POINT_MAX];
    cs_time_point_format(e->time, when, sizeof when);
    switch (ev->o.format) {
    case CLI_FORMAT_TEXT:
        fprintf(ev->fp, "%-24s %-15s %-20s %s%s%s\n", when, e->kind, e->subject ? e->subject : "-",
                e->text, e->detail ? "  " : "", e->detail ? e->detail : "");
        break;
    case CLI_FORMAT_CSV:
        fprintf(ev->fp, "%.3f,%" PRId64 ",", e->time, e->id);
        csv_field(ev->fp, e->kind);
        fputc(',', ev->fp);
        csv_field(ev->fp, e->subject);
        fputc(',', ev->fp);
        csv_field(ev->fp, e->text);
        fputc(',', ev->fp);
        csv_field(ev->fp, e->detail);
        fputc('\n', ev->fp);
        break;
    case CLI_FORMAT_JSON:
        cs_json_object_begin(&ev->j, NULL);
        cs_json_u64(&ev->j, "id", (uint64_t)e->id);
        cs_json_double_exact(&ev->j, "time", e->time);
        cs_json_str(&ev->j, "time_iso", when);
        cs_json_str(&ev->j, "kind", e->kind);
        if (e->subject)
            cs_json_str(&ev->j, "subject", e->subject);
        else
            cs_json_raw(&ev->j, "subject", "null");
        cs_json_str(&ev->j, "text", e->text);
        /* The store checks every detail is JSON (a CHECK on the column): embedded as it is. */
        cs_json_raw(&ev->j, "detail", e->detail ? e->detail : "null");
        cs_json_object_end(&ev->j);
        break;
    }
    ev->printed++;
    return 0;
}

int cli_sm_events(int argc, char **argv)
{
    const char *who = argv[0];
    enum { OPT_KIND = CLI_STORE_OPT_OWN };
    static const struct option options[] = {CLI_STORE_LONG_OPTIONS,
                                            CLI_STORE_CSV_OPTION,
                                            {"kind", required_argument, NULL, OPT_KIND},
                                            {NULL, 0, NULL, 0}};
    struct events ev = {.printed = 0};
    const char *kind = NULL;
    int opt, rc = EXIT_OK;
    while ((opt = cli_store_getopt(argc, argv, options, &ev.o, who, &rc)) >= 0)
        kind = optarg;
    char path[4096];
    if (rc == EXIT_OK)
        rc = cli_store_check(&ev.o, argc, argv, 0, who, "1d", path, sizeof path);
    if (rc != EXIT_OK)
        return rc;
    struct cs_error err;
    struct cs_monitor *mon = NULL;
    if (cs_monitor_open(path, CS_MONITOR_READ_ONLY, &mon, &err) < 0)
        return cli_fail(who, &err);
    struct cli_output out;
    if (cli_output_open(&out, ev.o.output, &err) < 0) {
        cs_monitor_close(mon);
        return cli_fail(who, &err);
    }
    ev.fp = out.fp;
    if (ev.o.format == CLI_FORMAT_TEXT) {
        fprintf(ev.fp, "%-24s %-15s %-20s %s\n", "time", "kind", "subject", "text  detail");
    } else if (ev.o.format == CLI_FORMAT_CSV) {
        fputs("time,id,kind,subject,text,detail\n", ev.fp);
    } else {
        cs_json_init(&ev.j, ev.fp);
        cs_json_object_begin(&ev.j, NULL);
        cs_json_str(&ev.j, "store", path);
        cs_json_double_exact(&ev.j, "since", ev.o.since);
        cs_json_double_exact(&ev.j, "until", ev.o.until);
        cs_json_array_begin(&ev.j, "events");
    }
    if (cs_monitor_events(mon, ev.o.since, ev.o.until, kind, print_event, &ev, &err) < 0)
        rc = cli_fail(who, &err);
    if (rc == EXIT_OK && ev.o.format == CLI_FORMAT_JSON) {
        cs_json_array_end(&ev.j);
        cs_json_u64(&ev.j, "count", ev.printed);
        cs_json_object_end(&ev.j);
        cs_json_finish(&ev.j);
    }
    rc = cli_output_close(&out, who, rc);
    cs_monitor_close(mon);
    return rc;
}
