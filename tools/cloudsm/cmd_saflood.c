/* cloudsm saflood: Paper I's SA Flooder experiment (Algorithm 1) on libibumad ports, one process
 * per flooder host; the instances, counts and statistics are the library's (sa_flood.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cloudsm/clock.h"
#include "cloudsm/json.h"
#include "cloudsm/lid.h"
#include "cloudsm/sa_client.h"
#include "cloudsm/sa_flood.h"
#include "umad_client.h"

static const char saflood_help[] =
    "usage: cloudsm saflood --targets GUID2LID [-m ROUNDS] [-n MIFS] [-k SPAWN] [options]\n"
    "\n"
    "Paper I's SA Flooder experiment (its Algorithm 1): flood the SA with PathRecord queries\n"
    "from one SIF (Single Instance Flooder: one synchronous SAF instance at all times, whose\n"
    "response times are the figures) and n MIFs (Multiple Instance Flooders), each of which\n"
    "starts k more instances every round from round 2 on (round r runs 1 + n*k*(r-1)\n"
    "instances). An instance sends one SubnAdmGet PathRecord (its port to a random target),\n"
    "waits for the reply or --timeout, logs the response time and sends the next. Each round\n"
    "has a spawn gap (left out of the figures) and a collection window. Every flooder runs in\n"
    "a process of its own, on its own port (--sim-hosts on ibsim, --ports on hardware).\n"
    "\n"
    "Per round it prints Table V's columns: Q/s served to the SIF and to each MIF, the total,\n"
    "and the SIF's mean, median and standard deviation of the response time; and what the paper\n"
    "does not report: queries sent, answered, timed out, and refused (an error status).\n"
    "\n"
    "  --targets FILE      the ports to ask paths to: a guid2lid file (OpenSM's, or cloudsmd's\n"
    "                      STATE_DIR/guid2lid); grep it to choose (e.g. hosts only)\n"
    "  -m, --rounds M      rounds (default 25)\n"
    "  -n, --mifs N        MIF hosts, 0..16 (default 5)\n"
    "  -k, --spawn K       instances each MIF adds per round (default 8)\n"
    "  --collect SEC       collection window per round (default 20)\n"
    "  --gap SEC           spawn gap before each window (default 1)\n"
    "  --timeout MS        an instance's wait for a reply (default 1000)\n"
    "  --by-lid            SLID/DLID queries (default: SGID/DGID, Reversible, NumbPath 1,\n"
    "                      rdma_cm's form)\n"
    "  --sim-hosts LIST    on ibsim: the SIM_HOST of each flooder, comma-separated, the SIF\n"
    "                      first, then MIF1..MIFn (ibsim takes 10 clients: the SM and 1 + n)\n"
    "  --ports LIST        on hardware: each flooder's local port as CA:PORT (default: all on\n"
    "                      the first active port)\n"
    "  --only NAME         run only flooder NAME (SIF, MIF1, ...) in this process, from\n"
    "                      --start-at: one host of an experiment spread over several\n"
    "  --start-at EPOCH    wall-clock second (date +%s) the experiment starts at (--only)\n"
    "  --seed N            seed of the targets drawn (default 1; flooder i uses N + i)\n"
    "  --json              one JSON object: parameters, rounds [{round, instances, total_qps,\n"
    "                      sent, answered, timeouts, refused, flooders [{name, instances, qps,\n"
    "                      sent, answered, timeouts, refused, mean_ms, median_ms, stddev_ms,\n"
    "                      p99_ms}]}], and table_v (first and last round)\n"
    "\n"
    "examples:\n"
    "  cloudsm saflood --targets guid2lid -m 25 -n 5 -k 8            # Paper I's Fig. 2(b)\n"
    "  grep ^0x0010 guid2lid > hosts; cloudsm saflood --targets hosts -m 3 -n 2 -k 4 \\\n"
    "      --collect 2 --gap 0.5 --json \\\n"
    "      --sim-hosts H-0010000000000100,H-0010000000000200,H-0010000000000300   # ibsim\n"
    "  cloudsm saflood --targets hosts -n 2 --only MIF1 --start-at $(($(date +%s) + 10))\n";

#define MAX_MIFS 16
#define READY_MS 30000.0 /* for a flooder to open its port */
#define LATE_MS 5000.0   /* for a round's result after its window closed */

struct plan {
    unsigned rounds, mifs, spawn;
    double collect_s, gap_s;
    unsigned timeout_ms;
    bool by_lid;
    uint64_t seed;
    struct cs_saflood_target *targets;
    uint32_t num_targets;
    char *hosts[MAX_MIFS + 1]; /* SIM_HOST per flooder, or NULL */
    char *ports[MAX_MIFS + 1]; /* CA:PORT per flooder, or NULL */
};

/* What a flooder process tells the coordinator: ready (round 0) or one round's window. */
struct message {
    unsigned flooder;
    unsigned round; /* 0: ready (or failed, with error) */
    unsigned instances;
    bool failed;
    char error[CS_ERROR_MAX];
    struct cs_saflood_window w;
};

static void flooder_name(unsigned i, char *buf, size_t size)
{
    if (i == 0)
        snprintf(buf, size, "SIF");
    else
        snprintf(buf, size, "MIF%u", i);
}

/* Instances flooder i runs in round r. */
static unsigned instances_in(const struct plan *p, unsigned i, unsigned round)
{
    return i == 0 ? 1 : (unsigned)cs_saflood_mif_instances(p->spawn, round);
}

static int open_port(const struct plan *p, unsigned i, struct umad_client *port,
                     struct cs_error *err)
{
    if (p->hosts[i] && setenv("SIM_HOST", p->hosts[i], 1) < 0)
        return cs_fail_errno(err, "setenv SIM_HOST");
    char ca[64] = "";
    unsigned num = 0;
    if (p->ports[i]) {
        const char *colon = strrchr(p->ports[i], ':');
        snprintf(ca, sizeof ca, "%.*s", (int)(colon - p->ports[i]), p->ports[i]);
        cli_parse_uint(colon + 1, 1, 254, &num);
    }
    return umad_client_open(port, ca[0] ? ca : NULL, (int)num, 0, (int)p->timeout_ms, err);
}

/* One flooder host, from start_ms (cs_clock_ms) on: Algorithm 1's rounds. Each round's window
 * goes to `report`; returns 0, or -1 with err. */
static int run_flooder(const struct plan *p, unsigned i, struct umad_client *port, double start_ms,
                       void (*report)(void *, const struct message *), void *arg,
                       struct cs_error *err)
{
    struct cs_gmp_transport t = umad_client_sa_transport(port);
    struct cs_sa_client_options so = {.timeout_ms = p->timeout_ms, .retries = 0};
    struct cs_sa_client *sa = NULL;
    struct cs_saflood *f = NULL;
    struct cs_saflood_options fo = {
        .targets = p->targets,
        .num_targets = p->num_targets,
        .by_gid = !p->by_lid,
        .source = {port->port_guid, port->lid},
        .subnet_prefix = port->subnet_prefix,
        .seed = p->seed + i,
    };
    int rc = -1;
    if (cs_sa_client_create(&t, &so, &sa, err) < 0 || cs_saflood_create(sa, &fo, &f, err) < 0)
        goto out;
    double round_ms = (p->gap_s + p->collect_s) * 1000;
    for (unsigned r = 1; r <= p->rounds; r++) {
        double begin = start_ms + (r - 1) * round_ms;
        /* Wait for the round's start (the previous window ended there) while the instances run;
         * then spawn, then the gap. */
        if (cs_saflood_run_until(f, (uint64_t)(begin * 1000), err) < 0)
            goto out;
        unsigned want = instances_in(p, i, r), have = cs_saflood_instances(f);
        if (want > have && cs_saflood_add_instances(f, want - have, err) < 0)
            goto out;
        if (cs_saflood_run_until(f, (uint64_t)((begin + p->gap_s * 1000) * 1000), err) < 0)
            goto out;
        cs_saflood_window_begin(f);
        if (cs_saflood_run_until(f, (uint64_t)((begin + round_ms) * 1000), err) < 0)
            goto out;
        struct message m = {.flooder = i, .round = r, .instances = cs_saflood_instances(f)};
        if (cs_saflood_window_end(f, &m.w, err) < 0)
            goto out;
        report(arg, &m);
    }
    /* Let the queries in flight finish before the port closes. */
    cs_saflood_stop(f);
    rc = cs_saflood_drain(f, err);
out:
    cs_saflood_destroy(f);
    cs_sa_client_destroy(sa);
    return rc;
}

/* ---- A flooder in a child process ---- */

static void write_message(void *arg, const struct message *m)
{
    int fd = *(int *)arg;
    const char *at = (const char *)m;
    size_t left = sizeof *m;
    while (left > 0) {
        ssize_t n = write(fd, at, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            exit(1);
        at += n;
        left -= (size_t)n;
    }
}

static void child(const struct plan *p, unsigned i, int to_parent, int from_parent)
{
    struct message m = {.flooder = i};
    struct umad_client port;
    struct cs_error err;
    if (open_port(p, i, &port, &err) < 0) {
        m.failed = true;
        snprintf(m.error, sizeof m.error, "%s", err.msg);
        write_message(&to_parent, &m);
        exit(1);
    }
    write_message(&to_parent, &m);
    double start_ms;
    ssize_t got = read(from_parent, &start_ms, sizeof start_ms);
    if (got != (ssize_t)sizeof start_ms)
        exit(1); /* the coordinator gave up */
    if (run_flooder(p, i, &port, start_ms, write_message, &to_parent, &err) < 0) {
        m.failed = true;
        m.round = 0;
        snprintf(m.error, sizeof m.error, "%s", err.msg);
        write_message(&to_parent, &m);
        umad_client_close(&port);
        exit(1);
    }
    umad_client_close(&port);
    exit(0);
}

/* ---- Output ---- */

struct results {
    const struct plan *p;
    unsigned flooders;
    struct message *rows; /* [round - 1][flooder] */
};

static struct message *cell(struct results *res, unsigned round, unsigned flooder)
{
    return &res->rows[(size_t)(round - 1) * res->flooders + flooder];
}

static struct cs_saflood_counts round_counts(struct results *res, unsigned round, double *qps)
{
    struct cs_saflood_counts c = {0};
    *qps = 0;
    for (unsigned x = 0; x < res->flooders; x++) {
        const struct message *m = cell(res, round, x);
        c.sent += m->w.counts.sent;
        c.answered += m->w.counts.answered;
        c.timeouts += m->w.counts.timeouts;
        c.refused += m->w.counts.refused;
        *qps += m->w.qps;
    }
    return c;
}

static void print_header(const struct results *res)
{
    printf("%5s %9s %9s", "round", "instances", "SIF Q/s");
    char name[16], label[24];
    for (unsigned x = 1; x < res->flooders; x++) {
        flooder_name(x, name, sizeof name);
        snprintf(label, sizeof label, "%s Q/s", name);
        printf(" %12s", label);
    }
    printf(" %9s %8s %9s %8s %9s %9s %8s %7s\n", "total Q/s", "mean ms", "median ms", "std ms",
           "sent", "answered", "timeouts", "refused");
}

static void print_row(struct results *res, unsigned round)
{
    double total;
    struct cs_saflood_counts c = round_counts(res, round, &total);
    const struct message *sif = cell(res, round, 0);
    unsigned instances = 0;
    for (unsigned x = 0; x < res->flooders; x++)
        instances += cell(res, round, x)->instances;
    printf("%5u %9u %9.0f", round, instances, sif->w.qps);
    for (unsigned x = 1; x < res->flooders; x++)
        printf(" %12.0f", cell(res, round, x)->w.qps);
    printf(" %9.0f %8.2f %9.2f %8.2f %9" PRIu64 " %9" PRIu64 " %8" PRIu64 " %7" PRIu64 "\n", total,
           sif->w.latency.mean_ms, sif->w.latency.median_ms, sif->w.latency.stddev_ms, c.sent,
           c.answered, c.timeouts, c.refused);
    fflush(stdout);
}

static void json_window(struct cs_json *j, const char *name, const struct message *m)
{
    cs_json_object_begin(j, NULL);
    cs_json_str(j, "name", name);
    cs_json_u64(j, "instances", m->instances);
    cs_json_double(j, "seconds", m->w.seconds);
    cs_json_double(j, "qps", m->w.qps);
    cs_json_u64(j, "sent", m->w.counts.sent);
    cs_json_u64(j, "answered", m->w.counts.answered);
    cs_json_u64(j, "timeouts", m->w.counts.timeouts);
    cs_json_u64(j, "refused", m->w.counts.refused);
    cs_json_double(j, "mean_ms", m->w.latency.mean_ms);
    cs_json_double(j, "median_ms", m->w.latency.median_ms);
    cs_json_double(j, "stddev_ms", m->w.latency.stddev_ms);
    cs_json_double(j, "p99_ms", m->w.latency.p99_ms);
    cs_json_object_end(j);
}

static void print_json(struct results *res, unsigned first_flooder)
{
    const struct plan *p = res->p;
    struct cs_json j;
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_object_begin(&j, "parameters");
    cs_json_u64(&j, "rounds", p->rounds);
    cs_json_u64(&j, "mifs", p->mifs);
    cs_json_u64(&j, "spawn", p->spawn);
    cs_json_double(&j, "collect_seconds", p->collect_s);
    cs_json_double(&j, "gap_seconds", p->gap_s);
    cs_json_u64(&j, "timeout_ms", p->timeout_ms);
    cs_json_str(&j, "query", p->by_lid ? "slid-dlid" : "sgid-dgid");
    cs_json_u64(&j, "targets", p->num_targets);
    cs_json_object_end(&j);
    char name[16];
    cs_json_array_begin(&j, "rounds");
    for (unsigned r = 1; r <= p->rounds; r++) {
        double total;
        struct cs_saflood_counts c = round_counts(res, r, &total);
        unsigned instances = 0;
        for (unsigned x = 0; x < res->flooders; x++)
            instances += cell(res, r, x)->instances;
        cs_json_object_begin(&j, NULL);
        cs_json_u64(&j, "round", r);
        cs_json_u64(&j, "instances", instances);
        cs_json_double(&j, "total_qps", total);
        cs_json_u64(&j, "sent", c.sent);
        cs_json_u64(&j, "answered", c.answered);
        cs_json_u64(&j, "timeouts", c.timeouts);
        cs_json_u64(&j, "refused", c.refused);
        cs_json_array_begin(&j, "flooders");
        for (unsigned x = 0; x < res->flooders; x++) {
            flooder_name(first_flooder + x, name, sizeof name);
            json_window(&j, name, cell(res, r, x));
        }
        cs_json_array_end(&j);
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    if (first_flooder == 0) {
        /* Table V's columns: the SIF in the first and the last round, the last round's total. */
        const struct message *a = cell(res, 1, 0), *z = cell(res, p->rounds, 0);
        double total;
        round_counts(res, p->rounds, &total);
        cs_json_object_begin(&j, "table_v");
        cs_json_double(&j, "first_sif_qps", a->w.qps);
        cs_json_double(&j, "first_mean_ms", a->w.latency.mean_ms);
        cs_json_double(&j, "first_median_ms", a->w.latency.median_ms);
        cs_json_double(&j, "first_stddev_ms", a->w.latency.stddev_ms);
        cs_json_double(&j, "last_sif_qps", z->w.qps);
        cs_json_double(&j, "last_mean_ms", z->w.latency.mean_ms);
        cs_json_double(&j, "last_median_ms", z->w.latency.median_ms);
        cs_json_double(&j, "last_stddev_ms", z->w.latency.stddev_ms);
        cs_json_double(&j, "last_total_qps", total);
        cs_json_object_end(&j);
    }
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

static void print_table_v(struct results *res)
{
    const struct message *a = cell(res, 1, 0), *z = cell(res, res->p->rounds, 0);
    double total;
    round_counts(res, res->p->rounds, &total);
    printf("Table V: round 1 SIF %.0f Q/s, mean %.2f ms, median %.2f ms, std %.2f ms; round %u "
           "SIF %.0f Q/s, mean %.2f ms, median %.2f ms, std %.2f ms; round %u total %.0f Q/s\n",
           a->w.qps, a->w.latency.mean_ms, a->w.latency.median_ms, a->w.latency.stddev_ms,
           res->p->rounds, z->w.qps, z->w.latency.mean_ms, z->w.latency.median_ms,
           z->w.latency.stddev_ms, res->p->rounds, total);
}

/* ---- The coordinator ---- */

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* One message from a flooder, by deadline_ms (cs_clock_ms): 0, or -1 if the flooder exited, the
 * deadline passed (a flooder that hangs), or we were interrupted. */
static int read_message(int fd, struct message *m, double deadline_ms)
{
    char *at = (char *)m;
    size_t left = sizeof *m;
    memset(m, 0, sizeof *m);
    while (left > 0) {
        double wait = deadline_ms - cs_clock_ms();
        if (interrupted || wait <= 0)
            return -1;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, (int)ceil(wait));
        if (ready < 0 && errno == EINTR)
            continue;
        if (ready <= 0)
            continue; /* the deadline is checked above */
        ssize_t n = read(fd, at, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        at += n;
        left -= (size_t)n;
    }
    return 0;
}

static int coordinate(const char *who, const struct plan *p, bool as_json)
{
    unsigned flooders = 1 + p->mifs;
    pid_t pids[MAX_MIFS + 1] = {0};
    int up[MAX_MIFS + 1], down[MAX_MIFS + 1];
    struct results res = {.p = p, .flooders = flooders};
    res.rows = calloc((size_t)p->rounds * flooders, sizeof *res.rows);
    if (!res.rows)
        return cli_fail(who, &(struct cs_error){"out of memory"});
    struct sigaction sa = {.sa_handler = on_interrupt};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fflush(NULL);
    int status = EXIT_FAILED;
    unsigned started = 0;
    for (; started < flooders; started++) {
        int a[2], b[2];
        if (pipe(a) < 0 || pipe(b) < 0) {
            fprintf(stderr, "cloudsm %s: pipe: %s\n", who, strerror(errno));
            goto out;
        }
        pid_t pid = fork();
        if (pid < 0) {
            fprintf(stderr, "cloudsm %s: fork: %s\n", who, strerror(errno));
            goto out;
        }
        if (pid == 0) {
            close(a[0]);
            close(b[1]);
            for (unsigned x = 0; x < started; x++)
                close(up[x]), close(down[x]);
            child(p, started, a[1], b[0]);
        }
        close(a[1]);
        close(b[0]);
        pids[started] = pid;
        up[started] = a[0];
        down[started] = b[1];
    }
    /* Every flooder opened its port: start them all at the same moment, a little ahead. */
    for (unsigned x = 0; x < flooders; x++) {
        struct message m;
        char name[16];
        flooder_name(x, name, sizeof name);
        if (read_message(up[x], &m, cs_clock_ms() + READY_MS) < 0 || m.failed) {
            fprintf(stderr, "cloudsm %s: flooder %s: %s\n", who, name,
                    interrupted  ? "interrupted"
                    : m.error[0] ? m.error
                                 : "not ready (exited, or no port within 30 s)");
            goto out;
        }
    }
    double start_ms = cs_clock_ms() + 200;
    for (unsigned x = 0; x < flooders; x++)
        if (write(down[x], &start_ms, sizeof start_ms) != (ssize_t)sizeof start_ms) {
            fprintf(stderr, "cloudsm %s: cannot start the flooders\n", who);
            goto out;
        }
    if (!as_json)
        print_header(&res);
    /* Rounds end at the same time everywhere: read each round from every flooder in turn. */
    double round_ms = (p->gap_s + p->collect_s) * 1000;
    for (unsigned r = 1; r <= p->rounds; r++) {
        /* A round's window ends at the same moment for every flooder; allow one timeout and a
         * margin for the last replies and the message. */
        double deadline = start_ms + r * round_ms + p->timeout_ms + LATE_MS;
        for (unsigned x = 0; x < flooders; x++) {
            struct message m;
            char name[16];
            flooder_name(x, name, sizeof name);
            if (read_message(up[x], &m, deadline) < 0 || m.failed || m.round != r) {
                fprintf(stderr, "cloudsm %s: flooder %s in round %u: %s\n", who, name, r,
                        interrupted ? "interrupted"
                        : m.failed  ? m.error
                                    : "no result (it exited or hangs)");
                goto out;
            }
            *cell(&res, r, x) = m;
        }
        if (!as_json)
            print_row(&res, r);
    }
    if (as_json)
        print_json(&res, 0);
    else
        print_table_v(&res);
    status = EXIT_OK;
out:
    for (unsigned x = 0; x < started; x++) {
        close(up[x]);
        close(down[x]);
        if (status != EXIT_OK)
            kill(pids[x], SIGTERM);
    }
    for (unsigned x = 0; x < started; x++) {
        int ws;
        while (waitpid(pids[x], &ws, 0) < 0 && errno == EINTR)
            ;
        if (status == EXIT_OK && (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0))
            status = EXIT_FAILED;
    }
    free(res.rows);
    return status;
}

/* --only: this process is one flooder of an experiment run on several hosts. */
struct only_report {
    struct results *res;
    bool as_json;
};

static void keep_row(void *arg, const struct message *m)
{
    struct only_report *o = arg;
    m = memcpy(cell(o->res, m->round, 0), m, sizeof *m);
    if (!o->as_json) {
        printf("%5u %9u %9.0f %9" PRIu64 " %9" PRIu64 " %8" PRIu64 " %7" PRIu64
               " %8.2f %9.2f %8.2f\n",
               m->round, m->instances, m->w.qps, m->w.counts.sent, m->w.counts.answered,
               m->w.counts.timeouts, m->w.counts.refused, m->w.latency.mean_ms,
               m->w.latency.median_ms, m->w.latency.stddev_ms);
        fflush(stdout);
    }
}

static int run_only(const char *who, const struct plan *p, unsigned i, double start_epoch,
                    bool as_json)
{
    struct results res = {.p = p, .flooders = 1};
    res.rows = calloc(p->rounds, sizeof *res.rows);
    if (!res.rows)
        return cli_fail(who, &(struct cs_error){"out of memory"});
    struct umad_client port;
    struct cs_error err;
    if (open_port(p, i, &port, &err) < 0) {
        free(res.rows);
        return cli_fail(who, &err);
    }
    double start_ms = cs_clock_ms() + (start_epoch - cli_wall_clock_s()) * 1000;
    if (!as_json)
        printf("%5s %9s %9s %9s %9s %8s %7s %8s %9s %8s\n", "round", "instances", "Q/s", "sent",
               "answered", "timeouts", "refused", "mean ms", "median ms", "std ms");
    struct only_report o = {&res, as_json};
    int rc = run_flooder(p, i, &port, start_ms, keep_row, &o, &err);
    umad_client_close(&port);
    if (rc < 0) {
        free(res.rows);
        return cli_fail(who, &err);
    }
    if (as_json)
        print_json(&res, i);
    free(res.rows);
    return EXIT_OK;
}

/* ---- Options ---- */

static int split_list(char *text, char **out, unsigned max, unsigned *count)
{
    *count = 0;
    for (char *save = NULL, *tok = strtok_r(text, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (*count == max)
            return -1;
        out[(*count)++] = tok;
    }
    return 0;
}

static int read_targets(const char *path, struct plan *p, struct cs_error *err)
{
    struct cs_guid2lid g = {0};
    if (cs_guid2lid_read(&g, path, err) < 0)
        return -1;
    if (g.count == 0) {
        cs_guid2lid_free(&g);
        return cs_fail(err, "%s: no ports in it (a guid2lid file: GUID LID LID per line)", path);
    }
    p->targets = calloc(g.count, sizeof *p->targets);
    if (!p->targets) {
        cs_guid2lid_free(&g);
        return cs_fail(err, "out of memory");
    }
    for (uint32_t i = 0; i < g.count; i++)
        p->targets[i] = (struct cs_saflood_target){g.entries[i].guid, g.entries[i].min_lid};
    p->num_targets = g.count;
    cs_guid2lid_free(&g);
    return 0;
}

static int saflood(int argc, char **argv)
{
    const char *who = argv[0];
    struct plan p = {.rounds = 25,
                     .mifs = 5,
                     .spawn = 8,
                     .collect_s = 20,
                     .gap_s = 1,
                     .timeout_ms = 1000,
                     .seed = 1};
    const char *targets = NULL, *only = NULL;
    char *hosts = NULL, *ports = NULL;
    double start_at = 0;
    bool as_json = false;
    enum {
        OPT_COLLECT = 256,
        OPT_GAP,
        OPT_TIMEOUT,
        OPT_BY_LID,
        OPT_HOSTS,
        OPT_PORTS,
        OPT_ONLY,
        OPT_START,
        OPT_SEED,
        OPT_JSON,
        OPT_TARGETS
    };
    static const struct option options[] = {
        {"targets", required_argument, NULL, OPT_TARGETS},
        {"rounds", required_argument, NULL, 'm'},
        {"mifs", required_argument, NULL, 'n'},
        {"spawn", required_argument, NULL, 'k'},
        {"collect", required_argument, NULL, OPT_COLLECT},
        {"gap", required_argument, NULL, OPT_GAP},
        {"timeout", required_argument, NULL, OPT_TIMEOUT},
        {"by-lid", no_argument, NULL, OPT_BY_LID},
        {"sim-hosts", required_argument, NULL, OPT_HOSTS},
        {"ports", required_argument, NULL, OPT_PORTS},
        {"only", required_argument, NULL, OPT_ONLY},
        {"start-at", required_argument, NULL, OPT_START},
        {"seed", required_argument, NULL, OPT_SEED},
        {"json", no_argument, NULL, OPT_JSON},
        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "m:n:k:", options, NULL)) != -1) {
        switch (opt) {
        case OPT_TARGETS:
            targets = optarg;
            break;
        case 'm':
            if (!cli_parse_uint(optarg, 1, 10000, &p.rounds))
                return cli_usage(who, "-m (rounds) is 1..10000, not '%s'", optarg);
            break;
        case 'n':
            if (!cli_parse_uint(optarg, 0, MAX_MIFS, &p.mifs))
                return cli_usage(who, "-n (MIFs) is 0..%d, not '%s'", MAX_MIFS, optarg);
            break;
        case 'k':
            if (!cli_parse_uint(optarg, 1, 1000, &p.spawn))
                return cli_usage(who, "-k (instances per MIF per round) is 1..1000, not '%s'",
                                 optarg);
            break;
        case OPT_COLLECT:
            if (!cli_parse_seconds(optarg, &p.collect_s))
                return cli_usage(who, "--collect is a positive number of seconds, not '%s'",
                                 optarg);
            break;
        case OPT_GAP:
            if (strcmp(optarg, "0") == 0)
                p.gap_s = 0;
            else if (!cli_parse_seconds(optarg, &p.gap_s))
                return cli_usage(who, "--gap is a number of seconds (0 or more), not '%s'", optarg);
            break;
        case OPT_TIMEOUT:
            if (!cli_parse_uint(optarg, 1, 600000, &p.timeout_ms))
                return cli_usage(who, "--timeout is milliseconds, 1..600000, not '%s'", optarg);
            break;
        case OPT_BY_LID:
            p.by_lid = true;
            break;
        case OPT_HOSTS:
            hosts = optarg;
            break;
        case OPT_PORTS:
            ports = optarg;
            break;
        case OPT_ONLY:
            only = optarg;
            break;
        case OPT_START:
            if (!cli_parse_seconds(optarg, &start_at))
                return cli_usage(who, "--start-at is a wall-clock second (date +%%s), not '%s'",
                                 optarg);
            break;
        case OPT_SEED:
            if (!cli_parse_u64(optarg, &p.seed))
                return cli_usage(who, "--seed is a whole number, not '%s'", optarg);
            break;
        case OPT_JSON:
            as_json = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (optind < argc)
        return cli_usage(who, "unexpected argument '%s'", argv[optind]);
    if (!targets)
        return cli_usage(who, "--targets FILE is required (a guid2lid file of the ports to ask "
                              "paths to)");
    unsigned flooders = 1 + p.mifs, count;
    if (hosts && (split_list(hosts, p.hosts, MAX_MIFS + 1, &count) < 0 || count != flooders))
        return cli_usage(who, "--sim-hosts names %u hosts (the SIF, then MIF1..MIF%u)", flooders,
                         p.mifs);
    if (ports) {
        if (split_list(ports, p.ports, MAX_MIFS + 1, &count) < 0 || count != flooders)
            return cli_usage(who, "--ports names %u ports (the SIF, then MIF1..MIF%u)", flooders,
                             p.mifs);
        for (unsigned x = 0; x < count; x++) {
            const char *colon = strrchr(p.ports[x], ':');
            unsigned num;
            if (!colon || colon == p.ports[x] || !cli_parse_uint(colon + 1, 1, 254, &num))
                return cli_usage(who, "--ports: '%s' is not CA:PORT (e.g. mlx5_0:1)", p.ports[x]);
        }
    }
    unsigned only_index = 0;
    if (only) {
        if (strcmp(only, "SIF") == 0 || strcmp(only, "sif") == 0)
            only_index = 0;
        else if ((strncmp(only, "MIF", 3) != 0 && strncmp(only, "mif", 3) != 0) ||
                 !cli_parse_uint(only + 3, 1, p.mifs, &only_index))
            return cli_usage(who, "--only names SIF or MIF1..MIF%u, not '%s'", p.mifs, only);
        if (start_at == 0)
            return cli_usage(who, "--only needs --start-at (the same for every host)");
    } else if (start_at != 0) {
        return cli_usage(who, "--start-at goes with --only");
    }
    struct cs_error err;
    if (read_targets(targets, &p, &err) < 0)
        return cli_fail(who, &err);
    int rc = only ? run_only(who, &p, only_index, start_at, as_json) : coordinate(who, &p, as_json);
    free(p.targets);
    return rc;
}

const struct cli_command cli_saflood_commands[] = {
    {"saflood", "", "Paper I's SA flooder: Algorithm 1's rounds, Table V's columns", saflood_help,
     saflood},
    {NULL, NULL, NULL, NULL, NULL},
};
