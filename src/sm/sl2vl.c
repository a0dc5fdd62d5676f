/* SL to VL mapping on a live fabric (include/cloudsm/sm.h, "SL to VL mapping").
 *
 * One rule for the whole subnet, so that the SL a routing engine gives a partition keeps its
 * traffic on a VL of its own wherever the links have enough VLs: SL s -> VL s where the link has
 * more than s data VLs, VL 0 where it has not. Every table is read back first and only the ones
 * that differ are written, so an SM restart on a programmed fabric sends no Set.
 */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sm.h"
#include "core/grow.h"
#include "sm/phase.h"

/* Data VLs of an OperationalVLs code (IBA 14.2.5.6: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7,
 * 5 = VL0-14); anything else is taken as VL0 alone. */
static unsigned data_vls(uint8_t operational_vls)
{
    static const unsigned vls[] = {1, 1, 2, 4, 8, 15};
    return operational_vls < sizeof vls / sizeof vls[0] ? vls[operational_vls] : 1;
}

uint8_t cs_sm_sl2vl_vl(unsigned link_vls, unsigned sl)
{
    return sl < link_vls ? (uint8_t)sl : 0;
}

/* The data VLs of the link at port slot p: the fewer of what its two ends operate (an end whose
 * PortInfo the sweep did not read does not count; neither read: VL0 alone). */
static unsigned link_vls(const struct cs_sm_sweep *s, uint32_t p)
{
    unsigned vls = 0;
    uint32_t ends[2] = {p, s->fabric.ports[p].peer};
    for (int i = 0; i < 2; i++) {
        if (ends[i] == CS_NONE || !s->port_info_valid[ends[i]])
            continue;
        unsigned v = data_vls(s->port_info[ends[i]].operational_vls);
        if (vls == 0 || v < vls)
            vls = v;
    }
    return vls ? vls : 1;
}

static void want_table(unsigned vls, struct cs_smp_sl2vl *t)
{
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
        t->vl[sl] = cs_sm_sl2vl_vl(vls, sl);
}

/* With QoS: the sl2vl template of the output port's class, each VL but 15 (drop) cut to the VLs
 * that port operates (OpenSM's sl2vl_update_table). */
static void want_qos_table(const struct cs_sm_sweep *s, const struct cs_qos_config *q, uint32_t op,
                           struct cs_smp_sl2vl *t)
{
    const struct cs_smp_sl2vl *from = &q->cls[cs_sm_qos_class(&s->fabric, op)].sl2vl;
    uint8_t mask = s->port_info_valid[op] ? cs_sm_qos_vl_mask(s->port_info[op].operational_vls) : 0;
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
        t->vl[sl] = from->vl[sl] == 15 ? 15 : from->vl[sl] & mask;
}

/* One table: the CA port's own, or a switch's (input port, output port) pair. */
struct table {
    uint32_t node;
    uint32_t out_port; /* port slot */
    uint8_t in_port;
    struct cs_dr_path path;
    uint32_t mod;
    struct cs_smp_sl2vl want, held;
    bool known; /* held is what the port answered */
};

struct sl2vl_phase {
    const struct cs_sm_sweep *s;
    const struct cs_log *log;
    unsigned failures;
};

struct sl2vl_job {
    struct sl2vl_phase *ph;
    struct table *t;
};

static int table_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                      const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct sl2vl_job *job = arg;
    if (cs_sm_smp_failed(job->ph->s, job->ph->log, job->t->node, result, req, reply)) {
        job->ph->failures++;
        job->t->known = false; /* a Set may or may not have landed */
        return 0;
    }
    cs_smp_sl2vl_decode(reply->data, &job->t->held);
    job->t->known = true;
    return 0;
}

/* The tables the SM programs, in fabric order: CA and router ports the sweep reached over a
 * cable, and on every switch each pair of an input port (0 or linked) and a linked output port.
 * Their contents: QoS's templates (q), or else the SL s -> VL s rule, and then *short_ports
 * counts the links with fewer data VLs than num_sls. */
static struct table *list_tables(const struct cs_sm_sweep *s, const struct cs_qos_config *q,
                                 unsigned num_sls, uint32_t *count, uint32_t *short_ports,
                                 const struct cs_log *log, unsigned *failures, struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    uint64_t most = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        most += cs_node_is_switch(node) ? (uint64_t)(node->num_ports + 1) * node->num_ports
                                        : node->num_ports;
    }
    struct table *tables = cs_calloc_array(most ? most : 1, sizeof *tables, err);
    if (tables == NULL)
        return NULL;
    uint32_t k = 0;
    for (uint32_t n = 0; n < f->num_nodes; n++) {
        const struct cs_node *node = &f->nodes[n];
        for (unsigned out = 1; out <= node->num_ports; out++) {
            uint32_t op = node->first_port + out;
            const struct cs_port *port = &f->ports[op];
            if (port->peer == CS_NONE)
                continue;
            struct cs_smp_sl2vl want;
            if (q) {
                want_qos_table(s, q, op, &want);
            } else {
                unsigned vls = link_vls(s, op);
                *short_ports += vls < num_sls;
                want_table(vls, &want);
            }
            if (!cs_node_is_switch(node)) {
                if (port->guid == 0)
                    continue; /* a CA port the sweep did not arrive on */
                struct table *t = &tables[k];
                *t = (struct table){.node = n, .out_port = op, .want = want};
                if (!cs_sm_port_path(s, op, &t->path)) {
                    (*failures)++;
                    cs_logf(log, CS_LOG_WARN, "no directed route to port %u of 0x%016llx \"%s\"",
                            out, (unsigned long long)node->guid, node->desc);
                    continue;
                }
                k++;
                continue;
            }
            for (unsigned in = 0; in <= node->num_ports; in++) {
                if (in != 0 && f->ports[node->first_port + in].peer == CS_NONE)
                    continue;
                tables[k++] = (struct table){.node = n,
                                             .out_port = op,
                                             .in_port = (uint8_t)in,
                                             .path = s->path[n],
                                             .mod = in << 8 | out,
                                             .want = want};
            }
        }
    }
    *count = k;
    return tables;
}

/* Get or Set every table selected (Set: those not known to hold what they should). */
static int run_tables(struct cs_smp_pipe *pipe, struct sl2vl_phase *ph, struct table *tables,
                      uint32_t count, bool set, uint64_t *sent, struct cs_error *err)
{
    struct sl2vl_job *jobs = cs_calloc_array(count ? count : 1, sizeof *jobs, err);
    if (jobs == NULL)
        return -1;
    int rc = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        struct table *t = &tables[i];
        uint8_t data[CS_SMP_DATA_SIZE];
        if (set) {
            if (t->known && memcmp(t->held.vl, t->want.vl, sizeof t->want.vl) == 0)
                continue;
            cs_smp_sl2vl_encode(&t->want, data);
        }
        jobs[i] = (struct sl2vl_job){ph, t};
        (*sent)++;
        rc = cs_sm_submit_dr(pipe, set ? CS_SMP_METHOD_SET : CS_SMP_METHOD_GET,
                             CS_SMP_ATTR_SL2VL_TABLE, t->mod, &t->path, set ? data : NULL,
                             table_done, &jobs[i], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    free(jobs);
    return rc;
}

void cs_sm_sl2vl_tables_init(struct cs_sm_sl2vl_tables *t)
{
    memset(t, 0, sizeof *t);
}

void cs_sm_sl2vl_tables_free(struct cs_sm_sl2vl_tables *t)
{
    free(t->entries);
    cs_sm_sl2vl_tables_init(t);
}

static int by_port(const void *a, const void *b)
{
    const struct cs_sm_sl2vl_entry *x = a, *y = b;
    if (x->out_port != y->out_port)
        return x->out_port < y->out_port ? -1 : 1;
    return (x->in_port > y->in_port) - (x->in_port < y->in_port);
}

/* The tables the ports answered, for the SA. */
static int keep_tables(const struct cs_sm_sweep *s, const struct table *tables, uint32_t count,
                       struct cs_sm_sl2vl_tables *held, struct cs_error *err)
{
    cs_sm_sl2vl_tables_free(held);
    held->num_ports = s->fabric.num_port_slots;
    held->entries = cs_calloc_array(count ? count : 1, sizeof *held->entries, err);
    if (held->entries == NULL)
        return -1;
    for (uint32_t i = 0; i < count; i++)
        if (tables[i].known)
            held->entries[held->count++] = (struct cs_sm_sl2vl_entry){
                .out_port = tables[i].out_port,
                .in_port = tables[i].in_port,
                .table = tables[i].held,
            };
    qsort(held->entries, held->count, sizeof *held->entries, by_port);
    return 0;
}

static int program_tables(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                          const struct cs_qos_config *q, unsigned num_sls, const struct cs_log *log,
                          struct cs_sm_sl2vl_counts *counts, struct cs_sm_sl2vl_tables *held,
                          struct cs_error *err)
{
    *counts = (struct cs_sm_sl2vl_counts){0};
    struct sl2vl_phase ph = {.s = s, .log = log};
    uint32_t count = 0;
    struct table *tables =
        list_tables(s, q, num_sls, &count, &counts->short_ports, log, &ph.failures, err);
    if (tables == NULL)
        return -1;
    int rc = run_tables(pipe, &ph, tables, count, false, &counts->tables_read, err);
    if (rc == 0)
        rc = run_tables(pipe, &ph, tables, count, true, &counts->tables_sent, err);
    if (rc == 0 && held != NULL)
        rc = keep_tables(s, tables, count, held, err);
    free(tables);
    counts->failures = ph.failures;
    if (rc < 0)
        return -1;
    if (counts->short_ports)
        cs_logf(log, CS_LOG_WARN,
                "sl2vl: %u ports have fewer data VLs than the %u SLs in use: the SLs beyond "
                "share VL 0 there",
                counts->short_ports, num_sls);
    cs_logf(log, CS_LOG_DEBUG, "sl2vl: %llu tables read, %llu sent, %u failures",
            (unsigned long long)counts->tables_read, (unsigned long long)counts->tables_sent,
            ph.failures);
    return 0;
}

int cs_sm_program_sl2vl(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s, unsigned num_sls,
                        const struct cs_log *log, struct cs_sm_sl2vl_counts *counts,
                        struct cs_sm_sl2vl_tables *held, struct cs_error *err)
{
    return program_tables(pipe, s, NULL, num_sls, log, counts, held, err);
}

int cs_sm_program_sl2vl_qos(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                            const struct cs_qos_config *q, const struct cs_log *log,
                            struct cs_sm_sl2vl_counts *counts, struct cs_sm_sl2vl_tables *held,
                            struct cs_error *err)
{
    return program_tables(pipe, s, q, 0, log, counts, held, err);
}
