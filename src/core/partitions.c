/* Partition configurations and their meaning on a fabric (include/cloudsm/partitions.h).
 *
 * Resolution replays, per partition, what OpenSM does while it parses (osm_prtn.c,
 * osm_prtn_config.c): each member line adds its ports as full or limited members, replacing the
 * membership a port had, except `both` with allow_both_pkeys, which makes it both. Default first
 * gets every port (limited when there is a file, full when there is none) and the SM port as a
 * full member, and then the file's Default lines.
 */
#include "cloudsm/partitions.h"

#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "core/grow.h"

int cs_partitions_init(struct cs_partitions *p, struct cs_error *err)
{
    memset(p, 0, sizeof *p);
    if (cs_grow((void **)&p->partitions, &p->capacity, 1, sizeof *p->partitions, err) < 0)
        return -1;
    struct cs_partition *def = &p->partitions[0];
    memset(def, 0, sizeof *def);
    strcpy(def->name, "Default");
    def->pkey = CS_PKEY_DEFAULT;
    p->count = 1;
    return 0;
}

void cs_partitions_free(struct cs_partitions *p)
{
    for (uint32_t i = 0; i < p->count; i++) {
        struct cs_partition *part = &p->partitions[i];
        free(part->group_flags);
        free(part->members);
        for (uint32_t g = 0; g < part->num_mgroups; g++)
            free(part->mgroups[g].flags);
        free(part->mgroups);
    }
    free(p->partitions);
    free(p->warnings);
    memset(p, 0, sizeof *p);
}

uint32_t cs_partitions_find(const struct cs_partitions *p, uint16_t pkey)
{
    pkey &= CS_PKEY_MASK;
    for (uint32_t i = 0; i < p->count; i++)
        if (p->partitions[i].pkey == pkey)
            return i;
    return CS_NONE;
}

int cs_isolation_parse(const char *name)
{
    for (int i = CS_ISOLATION_DEF; i <= CS_ISOLATION_PHY; i++)
        if (strcmp(cs_isolation_name((enum cs_isolation)i), name) == 0)
            return i;
    return -1;
}

const char *cs_isolation_name(enum cs_isolation i)
{
    switch (i) {
    case CS_ISOLATION_DEF:
        return "def";
    case CS_ISOLATION_VLANE:
        return "vlane";
    case CS_ISOLATION_PHY:
        return "phy";
    }
    return "?";
}

const char *cs_isolation_policy_name(enum cs_isolation_policy p)
{
    return p == CS_ISOLATION_STRICT ? "strict" : "best-effort";
}

/* ---- Resolution ---- */

#define TOUCHED 0x80 /* state flag: the port is in the partition's touched list */

struct resolver {
    const struct cs_fabric *f;
    bool allow_both;
    uint8_t *state;    /* [port] membership bits | TOUCHED */
    uint32_t *touched; /* ports whose state is set */
    uint32_t num_touched;
    uint32_t ports_capacity; /* of the output's ports[] */
};

/* The ports OpenSM has in its port table: switch port 0 and the CA and router ports it found
 * through a cable. */
static bool in_port_table(const struct cs_fabric *f, uint32_t port)
{
    const struct cs_port *p = &f->ports[port];
    if (cs_node_is_switch(&f->nodes[p->node]))
        return p->num == 0;
    return p->num != 0 && p->peer != CS_NONE;
}

static void set_membership(struct resolver *r, uint32_t port, uint8_t membership)
{
    /* Full and limited replace what the port had; both needs allow_both_pkeys (else full). */
    uint8_t bits = membership == CS_MEMBER_BOTH && !r->allow_both ? CS_MEMBER_FULL : membership;
    if (!(r->state[port] & TOUCHED))
        r->touched[r->num_touched++] = port;
    r->state[port] = (uint8_t)(TOUCHED | bits);
}

static void add_set(struct resolver *r, enum cs_member_set set, uint8_t membership)
{
    const struct cs_fabric *f = r->f;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        if (!in_port_table(f, i))
            continue;
        uint8_t type = f->nodes[f->ports[i].node].type;
        bool wanted = set == CS_MEMBERS_ALL || (set == CS_MEMBERS_ALL_CAS && type == CS_NODE_CA) ||
                      (set == CS_MEMBERS_ALL_SWITCHES && type == CS_NODE_SWITCH) ||
                      (set == CS_MEMBERS_ALL_ROUTERS && type == CS_NODE_ROUTER);
        if (wanted)
            set_membership(r, i, membership);
    }
}

/* A port GUID: added if OpenSM would know the port; returns false if not. */
static bool add_guid(struct resolver *r, const struct cs_key_index *ports, uint64_t guid,
                     uint8_t membership)
{
    uint32_t port = cs_key_index_find(ports, guid);
    if (port == CS_NONE || !in_port_table(r->f, port))
        return false;
    set_membership(r, port, membership);
    return true;
}

static int compare_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Move the touched ports with a membership into out, sorted, and clear the state. */
static int collect(struct resolver *r, struct cs_partition_set *out,
                   struct cs_resolved_partition *rp, struct cs_error *err)
{
    if (cs_grow((void **)&out->ports, &r->ports_capacity, (uint64_t)out->num_ports + r->num_touched,
                sizeof *out->ports, err) < 0)
        return -1;
    qsort(r->touched, r->num_touched, sizeof *r->touched, compare_u32);
    rp->first = out->num_ports;
    for (uint32_t k = 0; k < r->num_touched; k++) {
        uint32_t port = r->touched[k];
        uint8_t bits = r->state[port] & CS_MEMBER_BOTH;
        r->state[port] = 0;
        if (!bits)
            continue;
        out->ports[out->num_ports++] = (struct cs_partition_port){port, bits};
        rp->full += (bits & CS_MEMBER_FULL) != 0;
        rp->limited += (bits & CS_MEMBER_LIMITED) != 0;
    }
    rp->count = out->num_ports - rp->first;
    r->num_touched = 0;
    return 0;
}

int cs_partitions_resolve(const struct cs_partitions *p, const struct cs_fabric *f,
                          const struct cs_partition_resolve_options *opt,
                          struct cs_partition_set *out, struct cs_error *err)
{
    static const struct cs_partition_resolve_options defaults = {0};
    if (!opt)
        opt = &defaults;
    memset(out, 0, sizeof *out);
    out->policy = p->policy;
    struct cs_key_index ports;
    cs_key_index_init(&ports);
    struct resolver r = {.f = f, .allow_both = opt->allow_both_pkeys};
    int rc = -1;
    r.state = cs_calloc_array(f->num_port_slots, sizeof *r.state, err);
    r.touched = cs_calloc_array(f->num_port_slots, sizeof *r.touched, err);
    out->partitions = cs_calloc_array(p->count, sizeof *out->partitions, err);
    if (!r.state || !r.touched || !out->partitions || cs_key_index_ports(&ports, f, err) < 0)
        goto done;

    for (uint32_t i = 0; i < p->count; i++) {
        const struct cs_partition *part = &p->partitions[i];
        if (part->pkey == CS_PKEY_DEFAULT) {
            add_set(&r, CS_MEMBERS_ALL, p->from_file ? CS_MEMBER_LIMITED : CS_MEMBER_FULL);
            if (opt->sm_port_guid && !add_guid(&r, &ports, opt->sm_port_guid, CS_MEMBER_FULL))
                out->unknown_guids++;
        }
        for (uint32_t k = 0; k < part->num_members; k++) {
            const struct cs_partition_member *m = &part->members[k];
            if (m->set == CS_MEMBERS_GUID || m->set == CS_MEMBERS_SELF) {
                uint64_t guid = m->set == CS_MEMBERS_GUID ? m->guid : opt->sm_port_guid;
                if (guid && !add_guid(&r, &ports, guid, m->membership))
                    out->unknown_guids++;
            } else {
                add_set(&r, (enum cs_member_set)m->set, m->membership);
            }
        }
        struct cs_resolved_partition *rp = &out->partitions[out->count];
        memset(rp, 0, sizeof *rp);
        if (collect(&r, out, rp, err) < 0)
            goto done;
        if (!rp->count) {
            out->empty_partitions++;
            continue;
        }
        memcpy(rp->name, part->name, sizeof rp->name);
        rp->pkey = part->pkey;
        rp->isolation = part->isolation;
        rp->config_index = i;
        out->count++;
    }
    rc = 0;
done:
    free(r.state);
    free(r.touched);
    cs_key_index_free(&ports);
    if (rc < 0)
        cs_partition_set_free(out);
    return rc;
}

void cs_partition_set_free(struct cs_partition_set *s)
{
    free(s->partitions);
    free(s->ports);
    memset(s, 0, sizeof *s);
}

uint32_t cs_partition_set_find(const struct cs_partition_set *s, uint16_t pkey)
{
    pkey &= CS_PKEY_MASK;
    for (uint32_t i = 0; i < s->count; i++)
        if (s->partitions[i].pkey == pkey)
            return i;
    return CS_NONE;
}

uint8_t cs_partition_membership(const struct cs_partition_set *s, uint32_t partition, uint32_t port)
{
    if (partition >= s->count)
        return 0;
    const struct cs_resolved_partition *rp = &s->partitions[partition];
    uint32_t lo = rp->first, hi = rp->first + rp->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->ports[mid].port < port)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rp->first + rp->count && s->ports[lo].port == port ? s->ports[lo].membership : 0;
}
