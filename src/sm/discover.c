/* Heavy sweep: directed-route breadth-first discovery (cs_sm_discover in include/cloudsm/sm.h).
 *
 * The sweep goes level by level: level k is the set of nodes first reached in k hops. Each level
 * costs two pipelined batches:
 *   reads   NodeDescription of every node of the level; SwitchInfo and PortInfo 0..n of its
 *           switches; PortInfo of every CA port the sweep arrived on (a CA answers only for the
 *           port it is reached through, so each of its linked ports is read on its own path);
 *   probes  NodeInfo through every port of the level's switches (and the SM port at level 0)
 *           whose PortInfo says the link is up and whose peer is not known yet; the answer gives
 *           the node behind the port and the port number it arrived on.
 * A link is probed only from the side that reaches it first: by the time a level is probed,
 * every link to an earlier level is already known from that level's probes. In a fabric with no
 * links inside one level (a fat tree) every link is probed exactly once, which halves the
 * switch-to-switch NodeInfo SMPs against probing from both ends.
 *
 * Why the result does not depend on reply order: the completion callbacks only store each reply
 * in its request's record; records are interpreted after the batch, in submission order (level
 * order, then node order, then port number). New nodes therefore get their indices in BFS order
 * with ports ascending whatever the window, the timing or the order replies arrive in, and so do
 * their DR paths (the first probe in that order that reached a node names its path).
 *
 * What is found goes straight into out->fabric: a node once its NodeInfo answered, a link once
 * a probe crossed it. Port GUIDs are learnt from NodeInfo (switch port 0; a CA port when the
 * sweep arrives on it); a CA port never arrived on keeps GUID 0.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "cloudsm/key_index.h"
#include "cloudsm/sm.h"
#include "core/grow.h"
#include "sm/phase.h"

#define PATH_TEXT_MAX (4 * CS_SMP_PATH_SIZE)

void cs_sm_sweep_init(struct cs_sm_sweep *s)
{
    memset(s, 0, sizeof *s);
    cs_fabric_init(&s->fabric);
    s->sm_node = CS_NONE;
    s->sm_port = CS_NONE;
}

void cs_sm_sweep_free(struct cs_sm_sweep *s)
{
    cs_fabric_free(&s->fabric);
    free(s->port_info);
    free(s->port_info_valid);
    free(s->switch_info);
    free(s->node_info);
    free(s->path);
    free(s->lid_withheld);
    cs_key_index_free(&s->end_ports);
    cs_sm_sweep_init(s);
}

enum req_kind { REQ_NODE_DESCRIPTION, REQ_SWITCH_INFO, REQ_PORT_INFO, REQ_PROBE };

/* One SMP of a batch and, once the batch has run, what came back. */
struct req {
    uint32_t node;   /* the node read, or the node probed from */
    uint8_t port;    /* PortInfo: port read; probe: port probed through */
    uint8_t kind;    /* enum req_kind */
    uint8_t result;  /* enum cs_smp_result */
    uint16_t status; /* status code of a CS_SMP_STATUS reply */
    struct cs_dr_path path;
    uint8_t data[CS_SMP_DATA_SIZE];
};

/* A CA port to read PortInfo of, on the path that arrived on it. */
struct ca_port_read {
    uint32_t node;
    uint8_t port;
    struct cs_dr_path path;
};

struct discovery {
    struct cs_smp_pipe *pipe;
    const struct cs_log *log;
    struct cs_sm_sweep *out;
    struct cs_error *err;

    /* Capacities of the out arrays, which grow with the fabric. */
    uint32_t port_info_cap, port_valid_cap, switch_info_cap, node_info_cap, path_cap,
        read_failures_cap;
    uint16_t *read_failures; /* per node, within one read batch */

    struct cs_key_index known; /* node GUID -> node index, for the levels before this one */

    uint32_t *level, num_level, level_cap; /* nodes of the level being swept */
    uint32_t *next, num_next, next_cap;    /* nodes found by its probes */
    struct ca_port_read *ca_reads;
    uint32_t num_ca_reads, ca_reads_cap;

    struct req *reqs; /* the current batch */
    uint32_t num_reqs, reqs_cap;
};

static const char *path_text(const struct cs_dr_path *p, char buf[PATH_TEXT_MAX])
{
    return cs_dr_path_format(p, buf, PATH_TEXT_MAX);
}

static void problem(struct discovery *d, const char *fmt, ...) CS_PRINTF(2, 3);

/* Every inconsistency goes through here: one WARN line, one count. */
static void problem(struct discovery *d, const char *fmt, ...)
{
    d->out->problems++;
    if (d->log == NULL || d->log->fn == NULL)
        return;
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    cs_logf(d->log, CS_LOG_WARN, "%s", line);
}

static const char *result_text(const struct req *r, char *buf, size_t size)
{
    if (r->result == CS_SMP_TIMEOUT)
        return "no answer";
    snprintf(buf, size, "status 0x%04x", r->status);
    return buf;
}

/* Make the per-port and per-node output arrays cover the fabric as it is now. */
static int grow_outputs(struct discovery *d)
{
    struct cs_sm_sweep *o = d->out;
    uint32_t ports = o->fabric.num_port_slots, nodes = o->fabric.num_nodes;
    if (cs_grow_zeroed((void **)&o->port_info, &d->port_info_cap, ports, sizeof *o->port_info,
                       d->err) < 0 ||
        cs_grow_zeroed((void **)&o->port_info_valid, &d->port_valid_cap, ports,
                       sizeof *o->port_info_valid, d->err) < 0 ||
        cs_grow_zeroed((void **)&o->switch_info, &d->switch_info_cap, nodes, sizeof *o->switch_info,
                       d->err) < 0 ||
        cs_grow_zeroed((void **)&o->node_info, &d->node_info_cap, nodes, sizeof *o->node_info,
                       d->err) < 0 ||
        cs_grow_zeroed((void **)&o->path, &d->path_cap, nodes, sizeof *o->path, d->err) < 0 ||
        cs_grow_zeroed((void **)&d->read_failures, &d->read_failures_cap, nodes,
                       sizeof *d->read_failures, d->err) < 0)
        return -1;
    return 0;
}

static struct req *add_req(struct discovery *d, enum req_kind kind, uint32_t node, unsigned port,
                           const struct cs_dr_path *path)
{
    if (cs_grow((void **)&d->reqs, &d->reqs_cap, (uint64_t)d->num_reqs + 1, sizeof *d->reqs,
                d->err) < 0)
        return NULL;
    struct req *r = &d->reqs[d->num_reqs++];
    memset(r, 0, sizeof *r);
    r->kind = (uint8_t)kind;
    r->node = node;
    r->port = (uint8_t)port;
    r->path = *path;
    return r;
}

static int append_node(uint32_t **array, uint32_t *count, uint32_t *cap, uint32_t node,
                       struct cs_error *err)
{
    if (cs_grow((void **)array, cap, (uint64_t)*count + 1, sizeof **array, err) < 0)
        return -1;
    (*array)[(*count)++] = node;
    return 0;
}

static int add_ca_read(struct discovery *d, uint32_t node, unsigned port,
                       const struct cs_dr_path *path)
{
    if (cs_grow((void **)&d->ca_reads, &d->ca_reads_cap, (uint64_t)d->num_ca_reads + 1,
                sizeof *d->ca_reads, d->err) < 0)
        return -1;
    d->ca_reads[d->num_ca_reads++] = (struct ca_port_read){node, (uint8_t)port, *path};
    return 0;
}

/* The pipe's completion callback: keep the reply, interpret it later (see the top). */
static int on_reply(void *arg, enum cs_smp_result result, const struct cs_smp *request,
                    const struct cs_smp *reply, struct cs_error *err)
{
    (void)request;
    (void)err;
    struct req *r = arg;
    r->result = (uint8_t)result;
    if (reply != NULL) {
        r->status = reply->status & CS_SMP_STATUS_CODE_MASK;
        memcpy(r->data, reply->data, CS_SMP_DATA_SIZE);
    }
    return 0;
}

static uint16_t req_attr(const struct req *r)
{
    switch (r->kind) {
    case REQ_NODE_DESCRIPTION:
        return CS_SMP_ATTR_NODE_DESCRIPTION;
    case REQ_SWITCH_INFO:
        return CS_SMP_ATTR_SWITCH_INFO;
    case REQ_PORT_INFO:
        return CS_SMP_ATTR_PORT_INFO;
    default:
        return CS_SMP_ATTR_NODE_INFO;
    }
}

/* Submit every request of the batch and run the pipe until all have completed. The records
 * must not move from here on: the pipe holds pointers to them. */
static int run_batch(struct discovery *d)
{
    for (uint32_t i = 0; i < d->num_reqs; i++) {
        struct req *r = &d->reqs[i];
        struct cs_smp smp;
        uint32_t mod = r->kind == REQ_PORT_INFO ? r->port : 0;
        if (cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, req_attr(r), mod, r->path.port,
                                 r->path.hops, 0, d->err) < 0 ||
            cs_smp_pipe_submit(d->pipe, &smp, CS_SMP_PERMISSIVE_LID, on_reply, r, d->err) < 0)
            return -1;
    }
    return cs_smp_pipe_run(d->pipe, d->err);
}

static bool path_extend(struct discovery *d, const struct cs_dr_path *from, unsigned port,
                        struct cs_dr_path *to)
{
    if (from->hops >= CS_SMP_MAX_HOPS) {
        char pt[PATH_TEXT_MAX];
        problem(d, "directed route %s is %u hops long: port %u behind it is not explored",
                path_text(from, pt), from->hops, port);
        return false;
    }
    *to = *from;
    to->hops++;
    to->port[to->hops] = (uint8_t)port;
    return true;
}

static const char *node_type_name(uint8_t type)
{
    return type == CS_NODE_SWITCH ? "switch" : type == CS_NODE_CA ? "CA" : "router";
}

/* ---- Reads ---- */

static int plan_reads(struct discovery *d)
{
    const struct cs_fabric *f = &d->out->fabric;
    d->num_reqs = 0;
    for (uint32_t i = 0; i < d->num_level; i++) {
        uint32_t n = d->level[i];
        const struct cs_dr_path *path = &d->out->path[n];
        if (add_req(d, REQ_NODE_DESCRIPTION, n, 0, path) == NULL)
            return -1;
        if (!cs_node_is_switch(&f->nodes[n]))
            continue;
        if (add_req(d, REQ_SWITCH_INFO, n, 0, path) == NULL)
            return -1;
        for (unsigned p = 0; p <= f->nodes[n].num_ports; p++)
            if (add_req(d, REQ_PORT_INFO, n, p, path) == NULL)
                return -1;
    }
    for (uint32_t i = 0; i < d->num_ca_reads; i++) {
        const struct ca_port_read *c = &d->ca_reads[i];
        if (add_req(d, REQ_PORT_INFO, c->node, c->port, &c->path) == NULL)
            return -1;
    }
    d->num_ca_reads = 0;
    return 0;
}

static void apply_read(struct discovery *d, const struct req *r)
{
    struct cs_sm_sweep *o = d->out;
    struct cs_node *n = &o->fabric.nodes[r->node];
    switch (r->kind) {
    case REQ_NODE_DESCRIPTION: {
        struct cs_smp_node_description nd;
        cs_smp_node_description_decode(r->data, &nd);
        memcpy(n->desc, nd.text, sizeof n->desc);
        break;
    }
    case REQ_SWITCH_INFO:
        cs_smp_switch_info_decode(r->data, &o->switch_info[r->node]);
        n->enhanced_port0 = o->switch_info[r->node].enhanced_port0;
        break;
    case REQ_PORT_INFO: {
        uint32_t slot = n->first_port + r->port;
        cs_smp_port_info_decode(r->data, &o->port_info[slot]);
        o->port_info_valid[slot] = true;
        break;
    }
    }
}

static int read_level(struct discovery *d)
{
    if (plan_reads(d) < 0 || run_batch(d) < 0)
        return -1;
    for (uint32_t i = 0; i < d->num_reqs; i++) {
        const struct req *r = &d->reqs[i];
        if (r->result == CS_SMP_OK)
            apply_read(d, r);
        else
            d->read_failures[r->node]++;
    }
    /* One line per node that did not answer everything, at its first request in batch order. */
    for (uint32_t i = 0; i < d->num_reqs; i++) {
        const struct req *r = &d->reqs[i];
        uint16_t failed = d->read_failures[r->node];
        if (failed == 0 || r->result == CS_SMP_OK)
            continue;
        d->read_failures[r->node] = 0;
        const struct cs_node *n = &d->out->fabric.nodes[r->node];
        char pt[PATH_TEXT_MAX], st[32];
        problem(d,
                "%s 0x%016" PRIx64 " at %s: %u read%s failed (first: %s attribute 0x%04x "
                "modifier %u); it stays in the fabric with what it did answer",
                node_type_name(n->type), n->guid, path_text(&r->path, pt), failed,
                failed == 1 ? "" : "s", result_text(r, st, sizeof st), req_attr(r), r->port);
    }
    return 0;
}

/* ---- Probes ---- */

static bool port_says_up(const struct discovery *d, uint32_t slot)
{
    return d->out->port_info_valid[slot] &&
           d->out->port_info[slot].port_state > CS_SMP_PORT_STATE_DOWN;
}

static int plan_probes(struct discovery *d)
{
    const struct cs_fabric *f = &d->out->fabric;
    d->num_reqs = 0;
    for (uint32_t i = 0; i < d->num_level; i++) {
        uint32_t n = d->level[i];
        const struct cs_node *node = &f->nodes[n];
        unsigned first = 1, last = node->num_ports;
        if (!cs_node_is_switch(node)) {
            if (n != d->out->sm_node)
                continue;                                 /* a CA forwards nothing */
            first = last = f->ports[d->out->sm_port].num; /* and ours sends by the SM port */
        }
        for (unsigned p = first; p <= last; p++) {
            uint32_t slot = node->first_port + p;
            if (f->ports[slot].peer != CS_NONE || !port_says_up(d, slot))
                continue;
            struct cs_dr_path path;
            if (!path_extend(d, &d->out->path[n], p, &path))
                continue;
            if (add_req(d, REQ_PROBE, n, p, &path) == NULL)
                return -1;
        }
    }
    return 0;
}

/* A NodeInfo answer that cannot describe a node; NULL if it can. */
static const char *node_info_flaw(const struct cs_smp_node_info *ni)
{
    if (ni->node_type < CS_NODE_CA || ni->node_type > CS_NODE_ROUTER)
        return "unknown node type";
    if (ni->num_ports < 1 || ni->num_ports > CS_MAX_PORTS)
        return "impossible port count";
    if (ni->node_guid == 0)
        return "node GUID 0";
    if (ni->local_port_num < 1 || ni->local_port_num > ni->num_ports)
        return "arrival port out of range";
    return NULL;
}

static uint32_t add_found_node(struct discovery *d, const struct cs_smp_node_info *ni,
                               const struct cs_dr_path *path)
{
    struct cs_fabric *f = &d->out->fabric;
    uint32_t v = cs_fabric_add_node(f, (enum cs_node_type)ni->node_type, ni->node_guid,
                                    ni->num_ports, "", d->err);
    if (v == CS_NONE || grow_outputs(d) < 0)
        return CS_NONE;
    struct cs_node *node = &f->nodes[v];
    node->sysimg_guid = ni->system_image_guid;
    node->vendor_id = ni->vendor_id;
    node->device_id = ni->device_id;
    /* Port GUIDs are what the node says, not a rule: unknown (0) until the sweep arrives. */
    for (unsigned p = 0; p <= node->num_ports; p++)
        f->ports[node->first_port + p].guid = 0;
    if (ni->node_type == CS_NODE_SWITCH)
        f->ports[node->first_port].guid = ni->port_guid;
    d->out->path[v] = *path;
    d->out->node_info[v] = *ni;
    return v;
}

/* The arrival port's GUID (CAs and routers name the port they are reached through). */
static void learn_ca_port_guid(struct discovery *d, uint32_t v, uint32_t slot,
                               const struct cs_smp_node_info *ni, const struct cs_dr_path *path)
{
    struct cs_port *p = &d->out->fabric.ports[slot];
    if (p->guid == 0) {
        p->guid = ni->port_guid;
    } else if (p->guid != ni->port_guid) {
        char pt[PATH_TEXT_MAX];
        problem(d,
                "CA 0x%016" PRIx64 " port %u answered port GUID 0x%016" PRIx64 " at %s, "
                "0x%016" PRIx64 " before; keeping the first",
                d->out->fabric.nodes[v].guid, p->num, ni->port_guid, path_text(path, pt), p->guid);
    }
}

/* Interpret probe i: attach the node it found, and the link it crossed. */
static int apply_probe(struct discovery *d, const struct cs_key_index *batch, uint32_t *found,
                       uint32_t i)
{
    struct req *r = &d->reqs[i];
    struct cs_fabric *f = &d->out->fabric;
    char pt[PATH_TEXT_MAX], st[32];
    if (r->result != CS_SMP_OK) {
        problem(d, "no NodeInfo through port %u of %s 0x%016" PRIx64 " (%s at %s): left out",
                r->port, node_type_name(f->nodes[r->node].type), f->nodes[r->node].guid,
                result_text(r, st, sizeof st), path_text(&r->path, pt));
        return 0;
    }
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(r->data, &ni);
    const char *flaw = node_info_flaw(&ni);
    if (flaw) {
        problem(d, "NodeInfo at %s: %s (type %u, %u ports, arrival port %u): left out",
                path_text(&r->path, pt), flaw, ni.node_type, ni.num_ports, ni.local_port_num);
        return 0;
    }

    uint32_t v = cs_key_index_find(&d->known, ni.node_guid);
    if (v == CS_NONE) {
        uint32_t first = cs_key_index_find(batch, ni.node_guid); /* earliest probe of it */
        if (first == i) {
            v = add_found_node(d, &ni, &r->path);
            if (v == CS_NONE || append_node(&d->next, &d->num_next, &d->next_cap, v, d->err) < 0)
                return -1;
            found[i] = v;
        } else {
            v = found[first];
        }
    }
    const struct cs_node *vn = &f->nodes[v];
    if (vn->type != ni.node_type || vn->num_ports != ni.num_ports) {
        char first_at[PATH_TEXT_MAX];
        problem(d,
                "GUID 0x%016" PRIx64 " answers as a %s with %u ports at %s, but as a %s with %u "
                "ports at %s: keeping the first",
                ni.node_guid, node_type_name(ni.node_type), ni.num_ports, path_text(&r->path, pt),
                node_type_name(vn->type), vn->num_ports, path_text(&d->out->path[v], first_at));
        return 0;
    }

    uint32_t near = cs_fabric_port(f, r->node, r->port);
    uint32_t far = cs_fabric_port(f, v, ni.local_port_num);
    if (f->ports[near].peer == far)
        return 0; /* a link inside one level, probed from both ends in the same batch */
    if (f->ports[near].peer != CS_NONE || f->ports[far].peer != CS_NONE) {
        uint32_t other = f->ports[far].peer != CS_NONE ? f->ports[far].peer : f->ports[near].peer;
        problem(d,
                "port %u of 0x%016" PRIx64 " answers at %s (behind port %u of 0x%016" PRIx64
                "), but the sweep already cabled port %u of 0x%016" PRIx64
                " elsewhere: keeping the first view",
                ni.local_port_num, ni.node_guid, path_text(&r->path, pt), r->port,
                f->nodes[r->node].guid, f->ports[other].num, f->nodes[f->ports[other].node].guid);
        return 0;
    }
    if (cs_fabric_connect(f, near, far, d->err) < 0)
        return -1;
    if (ni.node_type == CS_NODE_SWITCH) {
        if (f->ports[vn->first_port].guid != ni.port_guid)
            problem(d,
                    "switch 0x%016" PRIx64 " answered port GUID 0x%016" PRIx64
                    " at %s, 0x%016" PRIx64 " before; keeping the first",
                    ni.node_guid, ni.port_guid, path_text(&r->path, pt),
                    f->ports[vn->first_port].guid);
        return 0;
    }
    learn_ca_port_guid(d, v, far, &ni, &r->path);
    return add_ca_read(d, v, ni.local_port_num, &r->path);
}

static int probe_level(struct discovery *d)
{
    if (plan_probes(d) < 0 || run_batch(d) < 0)
        return -1;
    /* GUID -> earliest probe in this batch that found it: equal keys sort by value, and find
     * returns the first, so two probes reaching one new node agree on who adds it. */
    struct cs_key_index batch;
    cs_key_index_init(&batch);
    uint32_t *found = cs_calloc_array(d->num_reqs, sizeof *found, d->err);
    int rc = found ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < d->num_reqs; i++) {
        if (d->reqs[i].result != CS_SMP_OK)
            continue;
        struct cs_smp_node_info ni;
        cs_smp_node_info_decode(d->reqs[i].data, &ni);
        if (node_info_flaw(&ni) == NULL)
            rc = cs_key_index_add(&batch, ni.node_guid, i, d->err);
    }
    cs_key_index_sort(&batch);
    d->num_next = 0;
    for (uint32_t i = 0; rc == 0 && i < d->num_reqs; i++)
        rc = apply_probe(d, &batch, found, i);
    /* The new level's nodes become known for the levels after it. */
    for (uint32_t i = 0; rc == 0 && i < d->num_next; i++)
        rc = cs_key_index_add(&d->known, d->out->fabric.nodes[d->next[i]].guid, d->next[i], d->err);
    cs_key_index_sort(&d->known);
    cs_key_index_free(&batch);
    free(found);
    return rc;
}

/* ---- The SM's own node ---- */

static int find_own_node(struct discovery *d)
{
    struct cs_dr_path here = {0};
    d->num_reqs = 0;
    if (add_req(d, REQ_PROBE, CS_NONE, 0, &here) == NULL || run_batch(d) < 0)
        return -1;
    const struct req *r = &d->reqs[0];
    char st[32];
    if (r->result != CS_SMP_OK)
        return cs_fail(d->err, "the SM's own node gives no NodeInfo (%s)",
                       result_text(r, st, sizeof st));
    struct cs_smp_node_info ni;
    cs_smp_node_info_decode(r->data, &ni);
    bool on_switch = ni.node_type == CS_NODE_SWITCH;
    struct cs_smp_node_info check = ni;
    if (on_switch && check.local_port_num == 0)
        check.local_port_num = 1; /* an SM on a switch sends from port 0 */
    const char *flaw = node_info_flaw(&check);
    if (flaw)
        return cs_fail(d->err, "the SM's own NodeInfo is unusable: %s", flaw);
    uint32_t v = add_found_node(d, &ni, &here);
    if (v == CS_NONE)
        return -1;
    d->out->sm_node = v;
    d->out->sm_port = d->out->fabric.nodes[v].first_port + ni.local_port_num;
    if (!on_switch) {
        d->out->fabric.ports[d->out->sm_port].guid = ni.port_guid;
        if (add_ca_read(d, v, ni.local_port_num, &here) < 0)
            return -1;
    }
    d->num_level = 0;
    if (append_node(&d->level, &d->num_level, &d->level_cap, v, d->err) < 0 ||
        cs_key_index_add(&d->known, ni.node_guid, v, d->err) < 0)
        return -1;
    cs_key_index_sort(&d->known);
    return 0;
}

/* ---- After the last level ---- */

/* Link rates from PortInfo, and ports that say DOWN although the sweep crossed them. Each link
 * is looked at once, from its lower port index, so each problem is counted once. */
static void finish_links(struct discovery *d)
{
    struct cs_sm_sweep *o = d->out;
    struct cs_fabric *f = &o->fabric;
    for (uint32_t a = 0; a < f->num_port_slots; a++) {
        uint32_t b = f->ports[a].peer;
        if (b == CS_NONE || b < a)
            continue;
        uint32_t ends[2] = {a, b};
        for (int e = 0; e < 2; e++)
            if (o->port_info_valid[ends[e]] &&
                o->port_info[ends[e]].port_state == CS_SMP_PORT_STATE_DOWN) {
                const struct cs_port *p = &f->ports[ends[e]];
                char pt[PATH_TEXT_MAX];
                problem(d, "port %u of 0x%016" PRIx64 " (at %s) says DOWN, yet its link answered",
                        p->num, f->nodes[p->node].guid, path_text(&o->path[p->node], pt));
            }
        uint8_t width[2] = {0, 0}, speed[2] = {0, 0};
        for (int e = 0; e < 2; e++) {
            const struct cs_smp_port_info *pi = &o->port_info[ends[e]];
            if (!o->port_info_valid[ends[e]])
                continue;
            width[e] = cs_smp_width_from_active(pi->link_width_active);
            speed[e] =
                (uint8_t)cs_smp_speed_from_active(pi->link_speed_active, pi->link_speed_ext_active);
        }
        bool both = o->port_info_valid[a] && o->port_info_valid[b];
        if (both && (width[0] != width[1] || speed[0] != speed[1])) {
            const struct cs_port *pa = &f->ports[a], *pb = &f->ports[b];
            problem(d,
                    "the ends of a link disagree on its rate: port %u of 0x%016" PRIx64
                    " says %ux%s, port %u of 0x%016" PRIx64 " says %ux%s; keeping the first",
                    pa->num, f->nodes[pa->node].guid, width[0],
                    cs_link_speed_name((enum cs_link_speed)speed[0]), pb->num,
                    f->nodes[pb->node].guid, width[1],
                    cs_link_speed_name((enum cs_link_speed)speed[1]));
        }
        int src = o->port_info_valid[a] ? 0 : 1;
        cs_fabric_set_link_rate(f, a, width[src], (enum cs_link_speed)speed[src]);
    }
}

static void discovery_free(struct discovery *d)
{
    cs_key_index_free(&d->known);
    free(d->read_failures);
    free(d->level);
    free(d->next);
    free(d->ca_reads);
    free(d->reqs);
}

static int sweep(struct discovery *d)
{
    if (find_own_node(d) < 0)
        return -1;
    for (bool first = true; d->num_level > 0 || d->num_ca_reads > 0; first = false) {
        if (read_level(d) < 0)
            return -1;
        if (first && !port_says_up(d, d->out->sm_port)) {
            d->out->sm_port_down = true;
            cs_logf(d->log, CS_LOG_WARN,
                    "the SM port (port %u) is not up: the fabric is this node alone",
                    d->out->fabric.ports[d->out->sm_port].num);
        }
        if (probe_level(d) < 0)
            return -1;
        uint32_t *swap = d->level;
        d->level = d->next;
        d->num_level = d->num_next;
        d->next = swap;
        uint32_t cap = d->level_cap;
        d->level_cap = d->next_cap;
        d->next_cap = cap;
    }
    finish_links(d);
    return 0;
}

int cs_sm_discover(struct cs_smp_pipe *pipe, const struct cs_log *log, struct cs_sm_sweep *out,
                   struct cs_error *err)
{
    double t0 = cs_clock_ms();
    struct cs_smp_pipe_stats before = cs_smp_pipe_stats(pipe);
    cs_sm_sweep_free(out);

    struct discovery d = {.pipe = pipe, .log = log, .out = out, .err = err};
    cs_key_index_init(&d.known);
    int rc = sweep(&d);
    discovery_free(&d);
    struct cs_smp_pipe_stats now = cs_smp_pipe_stats(pipe);
    if (rc < 0) {
        cs_sm_sweep_free(out);
        return -1;
    }
    out->smps = cs_smp_pipe_stats_since(&now, &before);
    out->ms = cs_clock_ms() - t0;
    for (uint32_t p = 0; p < out->fabric.num_port_slots; p++)
        if (cs_sm_end_port(out, p) &&
            cs_key_index_add(&out->end_ports, out->fabric.ports[p].guid, p, err) < 0) {
            cs_sm_sweep_free(out);
            return -1;
        }
    cs_key_index_sort(&out->end_ports);
    out->end_ports_indexed = true;

    uint32_t switches = 0, links = 0;
    for (uint32_t n = 0; n < out->fabric.num_nodes; n++)
        switches += cs_node_is_switch(&out->fabric.nodes[n]);
    for (uint32_t p = 0; p < out->fabric.num_port_slots; p++)
        links += out->fabric.ports[p].peer != CS_NONE && out->fabric.ports[p].peer > p;
    cs_logf(log, CS_LOG_INFO,
            "heavy sweep: %u nodes (%u switches), %u links, %" PRIu64 " SMPs (%" PRIu64
            " retries, %" PRIu64 " timeouts), %u problems, %.1f ms",
            out->fabric.num_nodes, switches, links, out->smps.sent, out->smps.retries,
            out->smps.timeouts, out->problems, out->ms);
    return 0;
}

bool cs_sm_sweep_lost_fabric(const struct cs_sm_sweep *fresh, const struct cs_sm_sweep *previous)
{
    return (fresh->sm_port_down || fresh->fabric.num_nodes <= 1) && previous->fabric.num_nodes > 1;
}

uint32_t cs_sm_sweep_end_port_by_guid(const struct cs_sm_sweep *s, uint64_t guid)
{
    if (s->end_ports_indexed)
        return cs_key_index_find(&s->end_ports, guid);
    for (uint32_t p = 0; p < s->fabric.num_port_slots; p++)
        if (s->fabric.ports[p].guid == guid && cs_sm_end_port(s, p))
            return p;
    return CS_NONE;
}
