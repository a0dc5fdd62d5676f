/* cloudsm pathcache: a client that keeps "connections" to peers the way RDS does, over the SA
 * client and the PathRecord cache of the library (sa_client.h, path_cache.h), on a libibumad
 * port (umad_client.h). Options, the event loop, output and signals; the semantics are the
 * library's. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/clock.h"
#include "cloudsm/json.h"
#include "cloudsm/path_cache.h"
#include "cloudsm/peer_list.h"
#include "cloudsm/rng.h"
#include "cloudsm/sa_client.h"
#include "cloudsm/smp.h"
#include "umad_client.h"

static const char pathcache_help[] =
    "usage: cloudsm pathcache [options] PEER...\n"
    "       cloudsm pathcache [options] --peers FILE\n"
    "\n"
    "Keep a connection to each PEER the way RDS does, with Paper I's client-side SA PathRecord\n"
    "cache (docs/sa-path-cache.md). A connection attempt resolves the path (Algorithm 2: the\n"
    "cached record if caching is enabled and the peer's DGID is held, else one SubnAdmGet\n"
    "PathRecord to the SA) and connects: a LID-routed SMP NodeInfo Get along the record's DLID,\n"
    "which only the peer's port answers with its GUID (or lists it in GUIDInfo: a VM's vGUID).\n"
    "The connection is to that port: it is probed every --probe-interval, and a probe that\n"
    "fails (no answer, or another port answers: the LID, or the VM behind it, moved) drops the\n"
    "connection. The client reconnects: at once after a drop, then after a random\n"
    "delay below a ceiling that doubles from 1 ms to --backoff-max (RDS's rule). Per peer it\n"
    "counts SA queries, cache hits (SA queries saved), reconnects and failures.\n"
    "\n"
    "The cache starts off and turns on with the first PathRecord carrying the SM's caching flag\n"
    "(cloudsmd's subnet_supports_sa_path_caching); OpenSM never sets it, so there the client\n"
    "behaves as one without the cache. Only flagged records are kept, keyed by DGID, never\n"
    "invalidated (the paper) unless an extra says so.\n"
    "\n"
    "PEER: a GID (fe80::10:0:0:101), a port GUID (0x0010000000000101, with the local port's\n"
    "subnet prefix), or a LID (lid:12, or 12; its GID is learned from the first record).\n"
    "With --peers FILE the peers are FILE's lines, ADDRESS NAME (# comments); on SIGHUP the\n"
    "file is read again and each NAME's next attempt goes to its address there, the way IPoIB's\n"
    "ARP tells RDS a new GID behind an IP address (a file that does not parse, or names other\n"
    "peers, changes nothing and is reported on standard error).\n"
    "\n"
    "  -C, --ca NAME            the local CA (default: the first active port)\n"
    "  -P, --port N             the local port number\n"
    "  --no-cache               the unmodified client: every attempt queries the SA\n"
    "  --invalidate-on-failure  extra: a failed connection over a cached record drops it\n"
    "  --flush-on-sm-change     extra: when the SM LID changes, drop every cached record and\n"
    "                           forget the flag\n"
    "  --peers FILE             the peers from FILE (ADDRESS NAME lines), read again on SIGHUP\n"
    "  --trust-dlid             take the port that answers at the record's DLID for the peer\n"
    "                           even if it shows neither the peer's GUID nor the alias in\n"
    "                           GUIDInfo: for SMAs that hold no alias GUIDs (ibsim's refuses\n"
    "                           the SM's GUIDInfo Sets), where a VM's vGUID lives only in the\n"
    "                           SA (identity \"trusted\" in the report)\n"
    "  --probe-interval MS      probe connected peers this often (default 200)\n"
    "  --probe-timeout MS       wait this long for a probe's answer (default 250)\n"
    "  --probe-retries N        resend an unanswered probe N times before failing (default 1)\n"
    "  --sa-timeout MS          wait this long for an SA reply (default 1000)\n"
    "  --sa-retries N           resend an unanswered SA query N times (default 2)\n"
    "  --backoff-max MS         ceiling of the random reconnect delay (default 1000)\n"
    "  --port-poll MS           read the local PortInfo this often for SM changes (default\n"
    "                           1000; 0 never)\n"
    "  --duration SEC           stop after this long (default: until SIGINT or SIGTERM)\n"
    "  --until-connected        stop once every peer has connected\n"
    "  --seed N                 seed of the reconnect delays (default 1)\n"
    "  -o, --report FILE        write the report to FILE (atomically) at start, on every\n"
    "                           connect and drop, on SIGUSR1 and at exit, instead of printing\n"
    "                           it at exit and on SIGUSR1\n"
    "  --json                   the report as JSON: unix_ms, reloads, port, cache, sa, per\n"
    "                           peer {name, peer, gid, dlid, state, port_guid, identity,\n"
    "                           connected_unix_ms, dropped_unix_ms, attempts, sa_queries,\n"
    "                           cache_hits, connects, drops, reconnects, connect_failures,\n"
    "                           probes, probe_failures, address_changes}, totals\n"
    "  -v, --verbose            one line per event on standard error\n"
    "\n"
    "Exit status: 0, or 1 if a peer never connected by the end (or the port failed).\n"
    "\n"
    "examples:\n"
    "  cloudsm pathcache 0x0010000000000101 lid:14 --duration 10\n"
    "  cloudsm pathcache fe80::10:0:0:101 --json --until-connected\n"
    "  cloudsm pathcache 0x0010000000000101 -o peer.json --json &   # a background peer\n"
    "  kill -USR1 $!; jq .totals.sa_queries peer.json; kill $!\n"
    "  echo 'fe80::200:0:0:1 vm-1' > peers; cloudsm pathcache --peers peers -o p.json --json &\n"
    "  echo 'fe80::200:0:0:2 vm-1' > peers.new; mv peers.new peers; kill -HUP $!   # re-ARP\n"
    "  LD_PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so SIM_HOST=H-0010000000000300 "
    "\\\n"
    "      cloudsm pathcache 0x0010000000000101 --duration 5   # on ibsim\n";

/* ---- Options ---- */

struct options {
    const char *ca;
    unsigned port;
    bool cache, invalidate_on_failure, flush_on_sm_change;
    bool trust_dlid;        /* a port at the DLID that does not show the peer's GUID is the peer */
    const char *peers_file; /* --peers: the peers, read again on SIGHUP */
    unsigned probe_interval_ms, probe_timeout_ms, probe_retries;
    unsigned sa_timeout_ms, sa_retries, backoff_max_ms, port_poll_ms;
    double duration_s; /* 0: until a signal */
    bool until_connected;
    uint64_t seed;
    const char *report;
    bool json, verbose;
};

/* ---- Peers ---- */

enum peer_state {
    PEER_WAITING,    /* until next_ms: then an attempt */
    PEER_RESOLVING,  /* an SA query in flight */
    PEER_CONNECTING, /* the first probe in flight */
    PEER_UP,         /* connected; probed every interval */
};

static const char *const state_names[] = {"waiting", "resolving", "connecting", "up"};

enum probe_stage { PROBE_NONE, PROBE_NODE_INFO, PROBE_GUID_INFO };

/* How the port at the DLID was taken for the peer when the connection was made. */
enum identity { IDENTITY_NONE, IDENTITY_PORT, IDENTITY_ALIAS, IDENTITY_TRUSTED };
static const char *const identity_names[] = {"", "port", "alias", "trusted"};

struct peer {
    char name[CS_PEER_NAME_MAX];
    char text[CS_PEER_TEXT_MAX]; /* its address as given */
    uint8_t dgid[16];
    bool have_dgid;        /* false for a LID peer until its first record */
    bool prefix_from_port; /* given as a port GUID: the GID takes the local subnet prefix */
    uint16_t lid;          /* a LID peer's LID */
    enum peer_state state;
    struct cs_sa_path_record path; /* the record of the current/last attempt */
    bool path_from_cache;
    uint64_t want_guid; /* the GUID the current attempt looks for at the DLID */
    /* The connection is to this port (the one that answered when it was made): a probe that
     * another port answers means the LID, or the VM behind it, moved. */
    uint64_t port_guid;
    enum identity identity;
    uint64_t answered_guid;          /* the port GUID NodeInfo gave, while its GUIDInfo is asked */
    double connected_ms, dropped_ms; /* the last connect and drop (cs_clock_ms), 0: none */
    double next_ms;                  /* waiting: next attempt; up: next probe */
    double backoff_ms;               /* RDS's c_reconnect_jiffies: 0 right after a connect/start */
    bool ever_up;
    /* The probe in flight. */
    enum probe_stage probe;
    uint32_t probe_tid;
    double probe_deadline_ms;
    unsigned probe_attempts;
    /* Counts. */
    uint64_t attempts, sa_queries, cache_hits, connects, drops, reconnects, connect_failures;
    uint64_t probes, probe_failures, address_changes;
    uint16_t last_sa_status;
    const char *last_failure;
};

struct run {
    const char *who;
    struct options o;
    struct umad_client port;
    struct cs_sa_client *sa;
    struct cs_path_cache *cache; /* NULL with --no-cache */
    struct peer *peers;
    unsigned num_peers;
    struct cs_peer_list list; /* --peers: the file as last read, in the order of peers */
    uint64_t reloads, reload_failures;
    struct cs_rng rng;
    double start_ms, start_wall_s, next_poll_ms, poll_deadline_ms;
    uint32_t poll_tid;
    bool poll_pending;
    uint64_t sm_changes;
    bool stopping; /* the end: no new attempt or probe, the ones in flight finish */
    bool failed;
    struct cs_error error;
};

static volatile sig_atomic_t stop_requested, report_requested, reload_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void on_report(int sig)
{
    (void)sig;
    report_requested = 1;
}

static void on_reload(int sig)
{
    (void)sig;
    reload_requested = 1;
}

static double elapsed_s(const struct run *r)
{
    return (cs_clock_ms() - r->start_ms) / 1000.0;
}

/* A moment of the run (cs_clock_ms) on the wall clock in milliseconds since the epoch (date
 * +%s%3N), for scripts that compare it with their own; 0 stays 0 (never happened). */
static uint64_t wall_ms(const struct run *r, double ms)
{
    return ms ? (uint64_t)llround(r->start_wall_s * 1000 + (ms - r->start_ms)) : 0;
}

static void event(const struct run *r, const struct peer *p, const char *fmt, ...) CS_PRINTF(3, 4);
static void event(const struct run *r, const struct peer *p, const char *fmt, ...)
{
    if (!r->o.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%9.3f %s: ", elapsed_s(r), p ? p->name : "port");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- The report ---- */

static void write_json(FILE *out, const struct run *r)
{
    struct cs_json j;
    cs_json_init(&j, out);
    cs_json_object_begin(&j, NULL);
    cs_json_double(&j, "seconds", elapsed_s(r));
    cs_json_u64(&j, "unix_ms", wall_ms(r, cs_clock_ms()));
    cs_json_str(&j, "peers_file", r->o.peers_file ? r->o.peers_file : "");
    cs_json_u64(&j, "reloads", r->reloads);
    cs_json_u64(&j, "reload_failures", r->reload_failures);
    cs_json_bool(&j, "trust_dlid", r->o.trust_dlid);
    cs_json_object_begin(&j, "port");
    cs_json_str(&j, "ca", r->port.ca_name);
    cs_json_u64(&j, "port", (uint64_t)r->port.port_num);
    cs_json_guid(&j, "guid", r->port.port_guid);
    cs_json_u64(&j, "lid", r->port.lid);
    cs_json_u64(&j, "sm_lid", r->port.sm_lid);
    cs_json_u64(&j, "sm_changes", r->sm_changes);
    cs_json_object_end(&j);

    cs_json_object_begin(&j, "cache");
    cs_json_bool(&j, "on", r->cache != NULL);
    cs_json_bool(&j, "invalidate_on_failure", r->o.invalidate_on_failure);
    cs_json_bool(&j, "flush_on_sm_change", r->o.flush_on_sm_change);
    if (r->cache) {
        struct cs_path_cache_stats st = cs_path_cache_stats(r->cache);
        cs_json_bool(&j, "enabled", st.enabled);
        cs_json_u64(&j, "entries", st.entries);
        cs_json_u64(&j, "lookups", st.lookups);
        cs_json_u64(&j, "hits", st.hits);
        cs_json_u64(&j, "responses", st.responses);
        cs_json_u64(&j, "flagged", st.flagged);
        cs_json_u64(&j, "inserted", st.inserted);
        cs_json_u64(&j, "invalidated", st.invalidated);
        cs_json_u64(&j, "flushed", st.flushed);
        cs_json_u64(&j, "table_bytes", st.table_bytes);
    }
    cs_json_u64(&j, "entry_bytes", cs_path_cache_entry_bytes());
    cs_json_u64(&j, "paper_entry_bytes", CS_PATH_CACHE_PAPER_ENTRY_BYTES);
    cs_json_object_end(&j);

    struct cs_sa_client_stats sa = cs_sa_client_stats(r->sa);
    cs_json_object_begin(&j, "sa");
    cs_json_u64(&j, "queries", sa.queries);
    cs_json_u64(&j, "sent", sa.sent);
    cs_json_u64(&j, "answered", sa.answered);
    cs_json_u64(&j, "status", sa.status);
    cs_json_u64(&j, "timeouts", sa.timeouts);
    cs_json_u64(&j, "malformed", sa.malformed);
    cs_json_object_end(&j);

    uint64_t queries = 0, hits = 0, reconnects = 0, drops = 0, up = 0;
    cs_json_array_begin(&j, "peers");
    char gid[CS_GID_TEXT_SIZE];
    for (unsigned i = 0; i < r->num_peers; i++) {
        const struct peer *p = &r->peers[i];
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "name", p->name);
        cs_json_str(&j, "peer", p->text);
        cs_json_str(&j, "gid", p->have_dgid ? cs_gid_format(p->dgid, gid) : "");
        cs_json_u64(&j, "dlid", p->path.dlid);
        cs_json_str(&j, "state", state_names[p->state]);
        cs_json_bool(&j, "connected", p->state == PEER_UP);
        cs_json_guid(&j, "port_guid", p->port_guid);
        cs_json_str(&j, "identity", identity_names[p->identity]);
        cs_json_u64(&j, "connected_unix_ms", wall_ms(r, p->connected_ms));
        cs_json_u64(&j, "dropped_unix_ms", wall_ms(r, p->dropped_ms));
        cs_json_u64(&j, "address_changes", p->address_changes);
        cs_json_u64(&j, "attempts", p->attempts);
        cs_json_u64(&j, "sa_queries", p->sa_queries);
        cs_json_u64(&j, "cache_hits", p->cache_hits);
        cs_json_u64(&j, "connects", p->connects);
        cs_json_u64(&j, "drops", p->drops);
        cs_json_u64(&j, "reconnects", p->reconnects);
        cs_json_u64(&j, "connect_failures", p->connect_failures);
        cs_json_u64(&j, "probes", p->probes);
        cs_json_u64(&j, "probe_failures", p->probe_failures);
        cs_json_u64(&j, "last_sa_status", p->last_sa_status);
        cs_json_str(&j, "last_failure", p->last_failure ? p->last_failure : "");
        cs_json_object_end(&j);
        queries += p->sa_queries;
        hits += p->cache_hits;
        reconnects += p->reconnects;
        drops += p->drops;
        up += p->state == PEER_UP;
    }
    cs_json_array_end(&j);
    cs_json_object_begin(&j, "totals");
    cs_json_u64(&j, "peers", r->num_peers);
    cs_json_u64(&j, "connected", up);
    cs_json_u64(&j, "sa_queries", queries);
    cs_json_u64(&j, "cache_hits", hits);
    cs_json_u64(&j, "drops", drops);
    cs_json_u64(&j, "reconnects", reconnects);
    cs_json_object_end(&j);
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

static void write_text(FILE *out, const struct run *r)
{
    fprintf(out, "%s port %d (LID %u, GUID 0x%016" PRIx64 "), SM LID %u, %.1f s\n", r->port.ca_name,
            r->port.port_num, r->port.lid, r->port.port_guid, r->port.sm_lid, elapsed_s(r));
    if (r->cache) {
        struct cs_path_cache_stats st = cs_path_cache_stats(r->cache);
        fprintf(out,
                "cache: %s by the SM; %" PRIu64 " entries of %zu bytes (Paper I: %d); %" PRIu64
                " hits; extras:%s%s\n",
                st.enabled ? "enabled" : "not enabled", st.entries, cs_path_cache_entry_bytes(),
                CS_PATH_CACHE_PAPER_ENTRY_BYTES, st.hits,
                r->o.invalidate_on_failure ? " invalidate-on-failure" : "",
                r->o.flush_on_sm_change ? " flush-on-sm-change"
                                        : (r->o.invalidate_on_failure ? "" : " none"));
    } else {
        fprintf(out, "cache: off (--no-cache)\n");
    }
    fprintf(out, "%-24s %-10s %6s %9s %10s %8s %6s %10s %8s\n", "peer", "state", "DLID",
            "SA queries", "cache hits", "connects", "drops", "reconnects", "failures");
    for (unsigned i = 0; i < r->num_peers; i++) {
        const struct peer *p = &r->peers[i];
        fprintf(out,
                "%-24s %-10s %6u %9" PRIu64 " %10" PRIu64 " %8" PRIu64 " %6" PRIu64 " %10" PRIu64
                " %8" PRIu64 "\n",
                p->name, state_names[p->state], p->path.dlid, p->sa_queries, p->cache_hits,
                p->connects, p->drops, p->reconnects, p->connect_failures);
    }
}

static int write_report_file(FILE *out, const void *ctx, struct cs_error *err)
{
    (void)err;
    const struct run *r = ctx;
    if (r->o.json)
        write_json(out, r);
    else
        write_text(out, r);
    return 0;
}

/* The report where it goes: the file (rewritten whole), or standard output. */
static void report(struct run *r)
{
    if (r->o.report) {
        struct cs_error err;
        if (cs_atomic_write(r->o.report, write_report_file, r, &err) < 0 && !r->failed) {
            r->failed = true;
            r->error = err;
        }
        return;
    }
    write_report_file(stdout, r, NULL);
    fflush(stdout);
}

/* A state change worth a fresh report file. */
static void changed(struct run *r)
{
    if (r->o.report)
        report(r);
}

/* ---- Addresses ---- */

/* Give the peer an address (at start, or when a reload changes it). A port GUID takes the local
 * subnet prefix once the port is open (prefix: 0 before). */
static void set_address(struct peer *p, const char *text, const struct cs_peer_address *a,
                        uint64_t prefix)
{
    snprintf(p->text, sizeof p->text, "%s", text);
    memset(p->dgid, 0, sizeof p->dgid);
    p->have_dgid = a->kind != CS_PEER_LID;
    p->prefix_from_port = a->kind == CS_PEER_GUID;
    p->lid = a->kind == CS_PEER_LID ? a->lid : 0;
    if (a->kind == CS_PEER_GID)
        memcpy(p->dgid, a->gid, 16);
    else if (a->kind == CS_PEER_GUID)
        cs_gid_make(p->dgid, prefix, a->guid);
}

/* SIGHUP with --peers: read the file again; a peer whose address changed goes there from its
 * next attempt (an attempt in flight finishes with the old one; a connection stays as long as
 * its probes find its port), as RDS learns a new GID from IPoIB's ARP. A file that does not
 * parse, or names other peers, changes nothing. */
static void reload(struct run *r)
{
    struct cs_peer_list next;
    struct cs_error err;
    r->reloads++;
    uint32_t *at = malloc(r->num_peers * sizeof *at);
    if (!at) {
        r->failed = true;
        r->error = (struct cs_error){"out of memory"};
        return;
    }
    if (cs_peer_list_read(&next, r->o.peers_file, &err) < 0 ||
        cs_peer_list_match(&r->list, &next, r->o.peers_file, at, &err) < 0) {
        r->reload_failures++;
        fprintf(stderr, "cloudsm %s: SIGHUP: %s (every peer keeps its address)\n", r->who, err.msg);
        cs_peer_list_free(&next);
        free(at);
        changed(r);
        return;
    }
    unsigned moved = 0;
    for (unsigned i = 0; i < r->num_peers; i++) {
        const struct cs_peer *now = &next.peers[at[i]];
        struct peer *p = &r->peers[i];
        if (!cs_peer_address_equal(&r->list.peers[i].address, &now->address)) {
            set_address(p, now->text, &now->address, r->port.subnet_prefix);
            p->address_changes++;
            moved++;
            event(r, p, "address now %s", p->text);
        }
    }
    for (unsigned i = 0; i < r->num_peers; i++) /* kept in the peers' order */
        r->list.peers[i] = next.peers[at[i]];
    cs_peer_list_free(&next);
    free(at);
    event(r, NULL, "SIGHUP: %s read again, %u peers at a new address", r->o.peers_file, moved);
    changed(r);
}

/* ---- Connections ---- */

static void schedule_attempt(struct run *r, struct peer *p, double now)
{
    /* RDS (rds_queue_reconnect): the first attempt after a connect or a drop goes at once, the
     * next ones after rand % ceiling, the ceiling doubling from 1 ms up to the maximum. */
    p->state = PEER_WAITING;
    if (p->backoff_ms == 0) {
        p->backoff_ms = 1;
        p->next_ms = now;
        return;
    }
    double delay = (double)cs_rng_below(&r->rng, (uint32_t)p->backoff_ms);
    p->next_ms = now + delay;
    p->backoff_ms = fmin(2 * p->backoff_ms, (double)r->o.backoff_max_ms);
}

/* A connection over the peer's path failed (an attempt, or a drop of a connection that was up):
 * with invalidate_on_failure the cache drops its record of that DGID, however the connection got
 * it (the record of a first connection came from the SA and was cached). */
static void forget_path(struct run *r, struct peer *p)
{
    if (r->cache && p->have_dgid && cs_path_cache_connect_failed(r->cache, p->dgid))
        event(r, p, "cached record dropped");
}

static void attempt_failed(struct run *r, struct peer *p, const char *why)
{
    p->connect_failures++;
    p->last_failure = why;
    forget_path(r, p);
    event(r, p, "attempt failed: %s", why);
    schedule_attempt(r, p, cs_clock_ms());
}

static void dropped(struct run *r, struct peer *p, const char *why)
{
    p->drops++;
    p->dropped_ms = cs_clock_ms();
    p->last_failure = why;
    event(r, p, "connection dropped: %s", why);
    forget_path(r, p);
    p->backoff_ms = 0;
    schedule_attempt(r, p, cs_clock_ms());
    changed(r);
}

static void send_probe(struct run *r, struct peer *p, enum probe_stage stage)
{
    struct cs_smp smp;
    uint8_t wire[CS_SMP_SIZE];
    p->probe = stage;
    p->probe_tid = umad_client_tid(&r->port);
    p->probe_deadline_ms = cs_clock_ms() + r->o.probe_timeout_ms;
    uint16_t attr = stage == PROBE_NODE_INFO ? CS_SMP_ATTR_NODE_INFO : CS_SMP_ATTR_GUID_INFO;
    cs_smp_init_lid_routed(&smp, CS_SMP_METHOD_GET, attr, 0, p->probe_tid);
    cs_smp_encode(&smp, wire);
    if (umad_client_send_smp(&r->port, wire, p->path.dlid, &r->error) < 0)
        r->failed = true;
}

static void start_probe(struct run *r, struct peer *p)
{
    p->probes++;
    p->probe_attempts = 1;
    send_probe(r, p, PROBE_NODE_INFO);
}

/* The probe found the peer (or not): the connection is up, or the attempt / connection failed. */
static void probe_done(struct run *r, struct peer *p, bool reached, const char *why)
{
    p->probe = PROBE_NONE;
    if (!reached)
        p->probe_failures++;
    if (p->state == PEER_CONNECTING) {
        if (!reached) {
            attempt_failed(r, p, why);
            return;
        }
        p->state = PEER_UP;
        p->connects++;
        if (p->ever_up)
            p->reconnects++;
        p->ever_up = true;
        p->backoff_ms = 0;
        p->connected_ms = cs_clock_ms();
        p->next_ms = p->connected_ms + r->o.probe_interval_ms;
        event(r, p, "connected to LID %u, port 0x%016" PRIx64 " (%s; %s)", p->path.dlid,
              p->port_guid, p->path_from_cache ? "cached record" : "record from the SA",
              identity_names[p->identity]);
        changed(r);
        return;
    }
    if (!reached) {
        dropped(r, p, why);
        return;
    }
    p->next_ms = cs_clock_ms() + r->o.probe_interval_ms;
}

/* The resolution callback needs both the run and the peer. */
struct resolve_arg {
    struct run *r;
    struct peer *p;
};

static void resolved(void *arg, const struct cs_path_resolution *res)
{
    struct resolve_arg *a = arg;
    struct run *r = a->r;
    struct peer *p = a->p;
    if (res->source == CS_PATH_FROM_CACHE)
        p->cache_hits++;
    else
        p->sa_queries++;
    p->last_sa_status = res->sa.status;
    if (res->source == CS_PATH_NONE) {
        attempt_failed(r, p,
                       res->sa.result == CS_SA_TIMEOUT  ? "no answer from the SA"
                       : res->sa.result == CS_SA_STATUS ? "the SA found no path"
                                                        : "malformed SA reply");
        return;
    }
    p->path = res->record;
    p->path_from_cache = res->source == CS_PATH_FROM_CACHE;
    if (!p->have_dgid) { /* a LID peer: from now on it is this GID */
        memcpy(p->dgid, res->record.dgid, 16);
        p->have_dgid = true;
    }
    if (!p->want_guid) /* a LID peer's attempt: the GUID its record names */
        p->want_guid = cs_gid_guid(res->record.dgid);
    if (r->stopping) {
        p->state = PEER_WAITING;
        return;
    }
    p->state = PEER_CONNECTING;
    start_probe(r, p);
}

static void attempt(struct run *r, struct peer *p, struct resolve_arg *arg)
{
    p->attempts++;
    p->state = PEER_RESOLVING;
    /* Kept for the attempt's probes: a reload may give the peer another address meanwhile. */
    p->want_guid = p->have_dgid ? cs_gid_guid(p->dgid) : 0;
    struct cs_sa_path_query q = {.method = CS_SA_METHOD_GET};
    if (p->have_dgid) {
        q.component_mask = CS_SA_PR_DGID | CS_SA_PR_SGID | CS_SA_PR_REVERSIBLE | CS_SA_PR_NUMB_PATH;
        memcpy(q.record.dgid, p->dgid, 16);
        cs_gid_make(q.record.sgid, r->port.subnet_prefix, r->port.port_guid);
        q.record.reversible = 1;
        q.record.numb_path = 1;
    } else {
        q.component_mask = CS_SA_PR_DLID | CS_SA_PR_SLID | CS_SA_PR_REVERSIBLE | CS_SA_PR_NUMB_PATH;
        q.record.dlid = p->lid;
        q.record.slid = r->port.lid;
        q.record.reversible = 1;
        q.record.numb_path = 1;
    }
    arg->r = r;
    arg->p = p;
    if (cs_path_resolve(r->cache, r->sa, &q, resolved, arg, &r->error) < 0)
        r->failed = true;
}

/* The first probe found a port that is (or, with --trust-dlid, is taken for) the peer: the
 * connection is to that port. */
static void accept_port(struct run *r, struct peer *p, uint64_t port_guid, enum identity how)
{
    p->port_guid = port_guid;
    p->identity = how;
    probe_done(r, p, true, NULL);
}

/* A MAD for the SMP side: a probe's answer, or our own PortInfo. */
static void smp_reply(struct run *r, const uint8_t *mad, size_t len)
{
    if (len < CS_SMP_SIZE)
        return;
    struct cs_smp smp;
    cs_smp_decode(mad, &smp);
    uint32_t tid = (uint32_t)smp.transaction_id;
    if (r->poll_pending && tid == r->poll_tid && smp.mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE) {
        r->poll_pending = false;
        if (smp.status & 0x7fff)
            return;
        struct cs_smp_port_info pi;
        cs_smp_port_info_decode(smp.data, &pi);
        uint16_t old = r->port.sm_lid;
        r->port.lid = pi.lid;
        r->port.sm_lid = pi.master_sm_lid;
        r->port.sm_sl = pi.master_sm_sl;
        r->port.subnet_prefix = pi.subnet_prefix;
        if (old != pi.master_sm_lid) {
            r->sm_changes++;
            unsigned dropped_entries = r->cache ? cs_path_cache_sm_changed(r->cache) : 0;
            event(r, NULL, "SM LID %u -> %u (%u cached records dropped)", old, pi.master_sm_lid,
                  dropped_entries);
            changed(r);
        }
        return;
    }
    for (unsigned i = 0; i < r->num_peers; i++) {
        struct peer *p = &r->peers[i];
        if (p->probe == PROBE_NONE || p->probe_tid != tid)
            continue;
        if (smp.status & 0x7fff) {
            probe_done(r, p, false, "the probe was refused");
            return;
        }
        if (p->probe == PROBE_NODE_INFO) {
            struct cs_smp_node_info ni;
            cs_smp_node_info_decode(smp.data, &ni);
            if (p->state == PEER_UP) { /* a connection: to the port that accepted it */
                probe_done(r, p, ni.port_guid == p->port_guid, "another port answers at the DLID");
                return;
            }
            if (ni.port_guid == p->want_guid) {
                accept_port(r, p, ni.port_guid, IDENTITY_PORT);
                return;
            }
            /* Another port GUID: the peer's GID may be an alias (a VM's vGUID) of this port. */
            p->answered_guid = ni.port_guid;
            send_probe(r, p, PROBE_GUID_INFO);
            return;
        }
        struct cs_smp_guid_block block;
        cs_smp_guid_block_decode(smp.data, &block);
        for (unsigned g = 0; g < CS_GUIDS_PER_BLOCK; g++)
            if (block.guid[g] == p->want_guid) {
                accept_port(r, p, p->answered_guid, IDENTITY_ALIAS);
                return;
            }
        if (r->o.trust_dlid)
            accept_port(r, p, p->answered_guid, IDENTITY_TRUSTED);
        else
            probe_done(r, p, false, "another port answers at the DLID");
        return;
    }
}

static void expire_probes(struct run *r, double now)
{
    for (unsigned i = 0; i < r->num_peers; i++) {
        struct peer *p = &r->peers[i];
        if (p->probe == PROBE_NONE || now < p->probe_deadline_ms)
            continue;
        if (p->probe_attempts <= r->o.probe_retries && !r->stopping) {
            p->probe_attempts++;
            send_probe(r, p, p->probe);
            continue;
        }
        probe_done(r, p, false, "no answer at the DLID");
    }
}

static void start_poll(struct run *r)
{
    struct cs_smp smp;
    uint8_t wire[CS_SMP_SIZE];
    r->poll_tid = umad_client_tid(&r->port);
    if (cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_PORT_INFO, 0, NULL, 0,
                             r->poll_tid, &r->error) < 0 ||
        (cs_smp_encode(&smp, wire), umad_client_send_smp(&r->port, wire, 0, &r->error) < 0)) {
        r->failed = true;
        return;
    }
    r->poll_pending = true;
    r->poll_deadline_ms = cs_clock_ms() + r->o.probe_timeout_ms;
}

static void dispatch(struct run *r, const uint8_t *mad, size_t len)
{
    if (mad[1] == CS_SA_CLASS)
        cs_sa_client_deliver(r->sa, mad, len);
    else if (mad[1] == CS_SMP_CLASS_LID_ROUTED || mad[1] == CS_SMP_CLASS_DIRECTED_ROUTE)
        smp_reply(r, mad, len);
}

static bool all_connected(const struct run *r)
{
    for (unsigned i = 0; i < r->num_peers; i++)
        if (!r->peers[i].ever_up)
            return false;
    return true;
}

static int event_loop(struct run *r, struct resolve_arg *args)
{
    double end_ms = r->o.duration_s > 0 ? r->start_ms + r->o.duration_s * 1000 : INFINITY;
    while (!stop_requested && !r->failed) {
        double now = cs_clock_ms();
        if (now >= end_ms || (r->o.until_connected && all_connected(r)))
            break;
        if (reload_requested) {
            reload_requested = 0;
            reload(r);
        }
        if (report_requested) {
            report_requested = 0;
            report(r);
        }
        for (unsigned i = 0; i < r->num_peers && !r->failed; i++) {
            struct peer *p = &r->peers[i];
            if (p->state == PEER_WAITING && now >= p->next_ms)
                attempt(r, p, &args[i]);
            else if (p->state == PEER_UP && p->probe == PROBE_NONE && now >= p->next_ms)
                start_probe(r, p);
        }
        expire_probes(r, now);
        if (r->poll_pending && now >= r->poll_deadline_ms)
            r->poll_pending = false; /* lost: the next poll asks again */
        if (r->o.port_poll_ms && now >= r->next_poll_ms) {
            r->next_poll_ms = now + r->o.port_poll_ms;
            if (!r->poll_pending)
                start_poll(r);
        }
        if (cs_sa_client_expire(r->sa, &r->error) < 0)
            r->failed = true;
        if (r->failed)
            break;
        /* Sleep until the next thing to do, at most 50 ms (signals end the wait early). */
        double wake = fmin(end_ms, now + 50);
        for (unsigned i = 0; i < r->num_peers; i++) {
            const struct peer *p = &r->peers[i];
            if (p->state == PEER_WAITING || (p->state == PEER_UP && p->probe == PROBE_NONE))
                wake = fmin(wake, p->next_ms);
            if (p->probe != PROBE_NONE)
                wake = fmin(wake, p->probe_deadline_ms);
        }
        int64_t sa_next = cs_sa_client_next_timeout_us(r->sa);
        if (sa_next >= 0)
            wake = fmin(wake, now + (double)sa_next / 1000);
        int wait_ms = wake > now ? (int)ceil(wake - now) : 0;
        const uint8_t *mad;
        size_t len;
        int got = umad_client_recv(&r->port, &mad, &len, NULL, wait_ms, &r->error);
        if (got < 0) {
            r->failed = true;
            break;
        }
        if (got > 0)
            dispatch(r, mad, len);
    }
    return r->failed ? -1 : 0;
}

static bool in_flight(const struct run *r)
{
    if (r->poll_pending || cs_sa_client_outstanding(r->sa) > 0)
        return true;
    for (unsigned i = 0; i < r->num_peers; i++)
        if (r->peers[i].probe != PROBE_NONE)
            return true;
    return false;
}

/* The end: start nothing new and let what is in flight finish (or time out), so that no reply
 * arrives at a port being closed (umad2sim's teardown can hang on one). */
static void quiesce(struct run *r)
{
    r->stopping = true;
    double deadline = cs_clock_ms() + (double)r->o.sa_timeout_ms * (1 + r->o.sa_retries) +
                      (double)r->o.probe_timeout_ms * (1 + r->o.probe_retries);
    struct cs_error err;
    while (in_flight(r) && cs_clock_ms() < deadline) {
        const uint8_t *mad;
        size_t len;
        int got = umad_client_recv(&r->port, &mad, &len, NULL, 10, &err);
        if (got < 0)
            break;
        if (got > 0)
            dispatch(r, mad, len);
        double now = cs_clock_ms();
        expire_probes(r, now);
        if (r->poll_pending && now >= r->poll_deadline_ms)
            r->poll_pending = false; /* lost: the next poll asks again */
        if (cs_sa_client_expire(r->sa, &err) < 0)
            break;
    }
}

/* ---- Parsing ---- */

static bool parse_ms(const char *text, unsigned min, unsigned *out)
{
    return cli_parse_uint(text, min, 3600 * 1000, out);
}

static int pathcache(int argc, char **argv)
{
    const char *who = argv[0];
    struct options o = {
        .cache = true,
        .probe_interval_ms = 200,
        .probe_timeout_ms = 250,
        .probe_retries = 1,
        .sa_timeout_ms = 1000,
        .sa_retries = 2,
        .backoff_max_ms = 1000,
        .port_poll_ms = 1000,
        .seed = 1,
    };
    enum {
        OPT_NO_CACHE = 256,
        OPT_INVALIDATE,
        OPT_FLUSH,
        OPT_PROBE_INTERVAL,
        OPT_PROBE_TIMEOUT,
        OPT_PROBE_RETRIES,
        OPT_SA_TIMEOUT,
        OPT_SA_RETRIES,
        OPT_BACKOFF,
        OPT_POLL,
        OPT_DURATION,
        OPT_UNTIL,
        OPT_SEED,
        OPT_JSON,
        OPT_PEERS,
        OPT_TRUST_DLID,
    };
    static const struct option options[] = {
        {"ca", required_argument, NULL, 'C'},
        {"port", required_argument, NULL, 'P'},
        {"no-cache", no_argument, NULL, OPT_NO_CACHE},
        {"invalidate-on-failure", no_argument, NULL, OPT_INVALIDATE},
        {"flush-on-sm-change", no_argument, NULL, OPT_FLUSH},
        {"probe-interval", required_argument, NULL, OPT_PROBE_INTERVAL},
        {"probe-timeout", required_argument, NULL, OPT_PROBE_TIMEOUT},
        {"probe-retries", required_argument, NULL, OPT_PROBE_RETRIES},
        {"sa-timeout", required_argument, NULL, OPT_SA_TIMEOUT},
        {"sa-retries", required_argument, NULL, OPT_SA_RETRIES},
        {"backoff-max", required_argument, NULL, OPT_BACKOFF},
        {"port-poll", required_argument, NULL, OPT_POLL},
        {"duration", required_argument, NULL, OPT_DURATION},
        {"until-connected", no_argument, NULL, OPT_UNTIL},
        {"seed", required_argument, NULL, OPT_SEED},
        {"report", required_argument, NULL, 'o'},
        {"json", no_argument, NULL, OPT_JSON},
        {"peers", required_argument, NULL, OPT_PEERS},
        {"trust-dlid", no_argument, NULL, OPT_TRUST_DLID},
        {"verbose", no_argument, NULL, 'v'},
        {NULL, 0, NULL, 0},
    };
    int opt, li = 0;
    while ((opt = getopt_long(argc, argv, "C:P:o:v", options, &li)) != -1) {
        switch (opt) {
        case 'C':
            o.ca = optarg;
            break;
        case 'P':
            if (!cli_parse_uint(optarg, 1, 254, &o.port))
                return cli_usage(who, "--port is a port number 1..254, not '%s'", optarg);
            break;
        case OPT_NO_CACHE:
            o.cache = false;
            break;
        case OPT_INVALIDATE:
            o.invalidate_on_failure = true;
            break;
        case OPT_FLUSH:
            o.flush_on_sm_change = true;
            break;
        case OPT_PROBE_INTERVAL:
        case OPT_PROBE_TIMEOUT:
        case OPT_SA_TIMEOUT:
        case OPT_BACKOFF: {
            unsigned *at = opt == OPT_PROBE_INTERVAL  ? &o.probe_interval_ms
                           : opt == OPT_PROBE_TIMEOUT ? &o.probe_timeout_ms
                           : opt == OPT_SA_TIMEOUT    ? &o.sa_timeout_ms
                                                      : &o.backoff_max_ms;
            if (!parse_ms(optarg, 1, at))
                return cli_usage(who, "--%s is a time in milliseconds, 1 to 3600000, not '%s'",
                                 options[li].name, optarg);
            break;
        }
        case OPT_POLL:
            if (!parse_ms(optarg, 0, &o.port_poll_ms))
                return cli_usage(who, "--port-poll is milliseconds (0: never), not '%s'", optarg);
            break;
        case OPT_PROBE_RETRIES:
        case OPT_SA_RETRIES:
            if (!cli_parse_uint(optarg, 0, 100,
                                opt == OPT_SA_RETRIES ? &o.sa_retries : &o.probe_retries))
                return cli_usage(who, "--%s is a count 0..100, not '%s'", options[li].name, optarg);
            break;
        case OPT_DURATION:
            if (!cli_parse_seconds(optarg, &o.duration_s))
                return cli_usage(who, "--duration is a positive number of seconds, not '%s'",
                                 optarg);
            break;
        case OPT_UNTIL:
            o.until_connected = true;
            break;
        case OPT_SEED:
            if (!cli_parse_u64(optarg, &o.seed))
                return cli_usage(who, "--seed is a whole number, not '%s'", optarg);
            break;
        case 'o':
            o.report = optarg;
            break;
        case OPT_JSON:
            o.json = true;
            break;
        case OPT_PEERS:
            o.peers_file = optarg;
            break;
        case OPT_TRUST_DLID:
            o.trust_dlid = true;
            break;
        case 'v':
            o.verbose = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (optind < argc && o.peers_file)
        return cli_usage(who, "name the peers on the command line or with --peers, not both");
    if (optind >= argc && !o.peers_file)
        return cli_usage(who,
                         "name at least one PEER (a GID, a port GUID or lid:N), or --peers FILE");
    if (o.port && !o.ca)
        return cli_usage(who, "--port needs --ca");
    if (!o.cache && (o.invalidate_on_failure || o.flush_on_sm_change))
        return cli_usage(who, "the cache extras need the cache: drop --no-cache");

    struct run r = {.who = who, .o = o};
    struct cs_error err;
    if (o.peers_file) {
        if (cs_peer_list_read(&r.list, o.peers_file, &err) < 0 ||
            (r.list.count == 0 &&
             cs_fail(&err, "%s: no peers in it (ADDRESS NAME lines)", o.peers_file) < 0)) {
            cs_peer_list_free(&r.list);
            return cli_fail(who, &err);
        }
        r.num_peers = r.list.count;
    } else {
        r.num_peers = (unsigned)(argc - optind);
    }
    r.peers = calloc(r.num_peers, sizeof *r.peers);
    struct resolve_arg *args = calloc(r.num_peers, sizeof *args);
    int status = EXIT_FAILED;
    if (!r.peers || !args) {
        cli_fail(who, &(struct cs_error){"out of memory"});
        goto out;
    }
    for (unsigned i = 0; i < r.num_peers; i++) {
        struct peer *p = &r.peers[i];
        if (o.peers_file) {
            snprintf(p->name, sizeof p->name, "%s", r.list.peers[i].name);
            set_address(p, r.list.peers[i].text, &r.list.peers[i].address, 0);
            continue;
        }
        const char *text = argv[optind + i];
        struct cs_peer_address a;
        if (strlen(text) >= CS_PEER_TEXT_MAX) {
            status = cli_usage(who, "peer '%.*s...': an address has at most %d characters", 20,
                               text, CS_PEER_TEXT_MAX - 1);
            goto out;
        }
        if (cs_peer_address_parse(text, &a, &err) < 0) {
            status = cli_usage(who, "peer '%s': %s", text, err.msg);
            goto out;
        }
        snprintf(p->name, sizeof p->name, "%s", text);
        set_address(p, text, &a, 0);
    }
    if (o.report && cli_check_output(o.report, false, &err) < 0) {
        cli_fail(who, &err);
        goto out;
    }

    if (umad_client_open(
            &r.port, o.ca, (int)o.port, UMAD_CLIENT_SMP,
            (int)(o.sa_timeout_ms > o.probe_timeout_ms ? o.sa_timeout_ms : o.probe_timeout_ms),
            &err) < 0 ||
        umad_client_refresh(&r.port, NULL, &err) < 0) {
        cli_fail(who, &err);
        goto out;
    }
    /* A GUID peer's GID takes the local subnet prefix; a LID peer is resolved by LID. */
    for (unsigned i = 0; i < r.num_peers; i++) {
        struct peer *p = &r.peers[i];
        if (p->prefix_from_port)
            cs_gid_make(p->dgid, r.port.subnet_prefix, cs_gid_guid(p->dgid));
    }
    struct cs_gmp_transport t = umad_client_sa_transport(&r.port);
    struct cs_sa_client_options so = {.timeout_ms = o.sa_timeout_ms, .retries = o.sa_retries};
    struct cs_path_cache_options co = {.invalidate_on_failure = o.invalidate_on_failure,
                                       .flush_on_sm_change = o.flush_on_sm_change};
    if (cs_sa_client_create(&t, &so, &r.sa, &err) < 0 ||
        (o.cache && cs_path_cache_create(&co, &r.cache, &err) < 0)) {
        cli_fail(who, &err);
        goto out;
    }
    cs_rng_seed(&r.rng, o.seed);
    r.start_ms = cs_clock_ms();
    r.start_wall_s = cli_wall_clock_s();
    r.next_poll_ms = r.start_ms + o.port_poll_ms;
    for (unsigned i = 0; i < r.num_peers; i++)
        schedule_attempt(&r, &r.peers[i], r.start_ms);

    struct sigaction sa = {.sa_handler = on_stop};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sa.sa_handler = on_report;
    sigaction(SIGUSR1, &sa, NULL);
    if (o.peers_file) {
        sa.sa_handler = on_reload;
        sigaction(SIGHUP, &sa, NULL);
    }
    changed(&r);
    int rc = event_loop(&r, args);
    if (rc == 0)
        quiesce(&r);
    report(&r);
    if (rc < 0 || r.failed) {
        cli_fail(who, &r.error);
        goto out;
    }
    status = all_connected(&r) ? EXIT_OK : EXIT_FAILED;
    if (status != EXIT_OK)
        for (unsigned i = 0; i < r.num_peers; i++)
            if (!r.peers[i].ever_up)
                fprintf(stderr, "cloudsm %s: %s never connected (%s)\n", who, r.peers[i].name,
                        r.peers[i].last_failure ? r.peers[i].last_failure : "no attempt ended");
out:
    cs_path_cache_destroy(r.cache);
    cs_sa_client_destroy(r.sa);
    if (r.port.send_buf)
        umad_client_close(&r.port);
    cs_peer_list_free(&r.list);
    free(r.peers);
    free(args);
    return status;
}

const struct cli_command cli_pathcache_commands[] = {
    {"pathcache", "", "keep connections to peers with Paper I's SA PathRecord cache",
     pathcache_help, pathcache},
    {NULL, NULL, NULL, NULL, NULL},
};
