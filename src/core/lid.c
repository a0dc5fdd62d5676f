/* LID assignment and the link between a fabric and a guid2lid map.
 *
 * A LID range is 2^lmc LIDs starting at a multiple of 2^lmc (a port answers every LID whose top
 * bits match its base LID), so both checks and assignment work on aligned ranges. The whole
 * unicast space is 49151 LIDs, small enough for a flat owner table.
 */
#include "cloudsm/lid.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/lft.h"
#define LID_SPACE (CS_LID_UCAST_MAX + 1)
#define LMC_MAX 7

uint16_t cs_fabric_max_lid(const struct cs_fabric *f)
{
    uint32_t max = 0;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid)
            continue;
        uint32_t top = (uint32_t)p->lid + (UINT32_C(1) << (p->lmc & 15)) - 1;
        if (top > max)
            max = top;
    }
    return max > UINT16_MAX ? UINT16_MAX : (uint16_t)max;
}

int cs_guid2lid_from_fabric(struct cs_guid2lid *g, const struct cs_fabric *f, struct cs_error *err)
{
    memset(g, 0, sizeof *g);
    uint32_t count = 0;
    for (uint32_t i = 0; i < f->num_port_slots; i++)
        count += f->ports[i].lid && f->ports[i].guid;
    g->entries = malloc((count ? count : 1) * sizeof *g->entries);
    if (!g->entries)
        return cs_fail(err, "out of memory for guid2lid");
    g->capacity = count;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid || !p->guid)
            continue;
        uint32_t top = (uint32_t)p->lid + (UINT32_C(1) << (p->lmc & 15)) - 1;
        g->entries[g->count++] = (struct cs_guid2lid_entry){
            p->guid, p->lid, (uint16_t)(top > UINT16_MAX ? UINT16_MAX : top)};
    }
    return 0;
}

static void describe_port(const struct cs_fabric *f, uint32_t port, char *buf, size_t size)
{
    const struct cs_port *p = &f->ports[port];
    const struct cs_node *n = &f->nodes[p->node];
    snprintf(buf, size, "port %u of 0x%016" PRIx64 " (\"%s\")", p->num, n->guid, n->desc);
}

struct lid_range {
    uint32_t min;
    uint32_t max;
    uint32_t port;
};

static int by_min(const void *a, const void *b)
{
    const struct lid_range *x = a, *y = b;
    return (x->min > y->min) - (x->min < y->min);
}

int cs_guid2lid_apply(const struct cs_guid2lid *g, struct cs_fabric *f, struct cs_error *err)
{
    struct cs_key_index ix;
    if (cs_key_index_ports(&ix, f, err) < 0)
        return -1;
    struct lid_range *ranges = malloc((g->count ? g->count : 1) * sizeof *ranges);
    if (!ranges) {
        cs_key_index_free(&ix);
        return cs_fail(err, "out of memory applying guid2lid");
    }
    /* Check everything before touching f, so that a bad map leaves the fabric as it was. */
    uint32_t used = 0;
    int rc = -1;
    for (uint32_t i = 0; i < g->count; i++) {
        const struct cs_guid2lid_entry *e = &g->entries[i];
        uint32_t port = cs_key_index_find(&ix, e->guid);
        if (port == CS_NONE)
            continue;
        uint32_t size = (uint32_t)e->max_lid - e->min_lid + 1;
        if (e->min_lid == 0 || e->max_lid > CS_LID_UCAST_MAX || e->max_lid < e->min_lid ||
            (size & (size - 1)) != 0 || size > (1u << LMC_MAX) || e->min_lid % size != 0) {
            cs_fail(err,
                    "guid2lid: GUID 0x%016" PRIx64 " has LIDs 0x%04x-0x%04x, not an aligned range"
                    " of 2^LMC unicast LIDs",
                    e->guid, e->min_lid, e->max_lid);
            goto done;
        }
        ranges[used++] = (struct lid_range){e->min_lid, e->max_lid, port};
    }
    qsort(ranges, used, sizeof *ranges, by_min);
    for (uint32_t i = 1; i < used; i++) {
        if (ranges[i].min <= ranges[i - 1].max) {
            char a[128], b[128];
            describe_port(f, ranges[i - 1].port, a, sizeof a);
            describe_port(f, ranges[i].port, b, sizeof b);
            cs_fail(err, "guid2lid: LID 0x%04x is given to both %s and %s", ranges[i].min, a, b);
            goto done;
        }
    }
    for (uint32_t i = 0; i < used; i++) {
        struct cs_port *p = &f->ports[ranges[i].port];
        uint32_t size = ranges[i].max - ranges[i].min + 1;
        uint8_t lmc = 0;
        while ((1u << lmc) < size)
            lmc++;
        p->lid = (uint16_t)ranges[i].min;
        p->lmc = lmc;
    }
    rc = (int)used;
done:
    free(ranges);
    cs_key_index_free(&ix);
    return rc;
}

/* Record the LIDs ports already have; fail on a range that is out of bounds, misaligned or
 * shared. owner[lid] is the port index answering lid, or CS_NONE. */
static int claim_existing(const struct cs_fabric *f, uint32_t *owner, uint32_t *claimed,
                          struct cs_error *err)
{
    char a[128], b[128];
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        const struct cs_port *p = &f->ports[i];
        if (!p->lid)
            continue;
        if (p->lmc > LMC_MAX) {
            describe_port(f, i, a, sizeof a);
            return cs_fail(err, "%s has LMC %u (at most %d)", a, p->lmc, LMC_MAX);
        }
        uint32_t size = 1u << p->lmc;
        if ((uint32_t)p->lid + size - 1 > CS_LID_UCAST_MAX || p->lid % size != 0) {
            describe_port(f, i, a, sizeof a);
            return cs_fail(err,
                           "%s has LIDs 0x%04x-0x%04x: not an LMC-aligned range of unicast LIDs", a,
                           p->lid, p->lid + size - 1);
        }
        for (uint32_t lid = p->lid; lid < p->lid + size; lid++) {
            if (owner[lid] != CS_NONE) {
                describe_port(f, owner[lid], a, sizeof a);
                describe_port(f, i, b, sizeof b);
                return cs_fail(err, "LID 0x%04x belongs to both %s and %s", lid, a, b);
            }
            owner[lid] = i;
        }
        *claimed += size;
    }
    return 0;
}

/* A base switch port 0 answers one LID whatever the LMC (IBA 14.2.5.6: LMC applies to
 * enhanced port 0 only), and OpenSM gives it one; CA and router ports take 2^lmc. */
static bool port_gets_lmc(const struct cs_fabric *f, uint32_t port)
{
    const struct cs_node *node = &f->nodes[f->ports[port].node];
    return node->type != CS_NODE_SWITCH || node->enhanced_port0;
}

static bool range_free(const uint32_t *owner, uint32_t base, uint32_t size)
{
    for (uint32_t lid = base; lid < base + size; lid++)
        if (owner[lid] != CS_NONE)
            return false;
    return true;
}

int cs_lids_assign(struct cs_fabric *f, unsigned lmc, struct cs_error *err)
{
    return cs_lids_assign_within(f, lmc, NULL, CS_LID_UCAST_MAX, NULL, err);
}

int cs_lids_assign_within(struct cs_fabric *f, unsigned lmc, const uint8_t *reserved,
                          uint16_t max_lid, const bool *withheld, struct cs_error *err)
{
    if (max_lid > CS_LID_UCAST_MAX)
        max_lid = CS_LID_UCAST_MAX;
    if (lmc > LMC_MAX)
        return cs_fail(err, "LMC %u is not possible (0 to %d)", lmc, LMC_MAX);
    uint32_t *owner = malloc(LID_SPACE * sizeof *owner);
    /* New LIDs are collected first and written only when all fit, so that a failure leaves f
     * as it was. */
    uint16_t *new_lid = calloc(f->num_port_slots ? f->num_port_slots : 1, sizeof *new_lid);
    uint8_t *new_lmc = calloc(f->num_port_slots ? f->num_port_slots : 1, sizeof *new_lmc);
    int rc = -1;
    if (!owner || !new_lid || !new_lmc) {
        cs_fail(err, "out of memory assigning LIDs");
        goto done;
    }
    for (uint32_t lid = 0; lid < LID_SPACE; lid++)
        owner[lid] = CS_NONE;
    uint32_t claimed = 0;
    if (claim_existing(f, owner, &claimed, err) < 0)
        goto done;
    /* Reserved LIDs (held for ports that are away) and everything above max_lid are owned by
     * nobody in particular: out of reach for new ranges. */
    for (uint32_t lid = 1; lid < LID_SPACE; lid++) {
        if (owner[lid] != CS_NONE || (lid <= max_lid && !(reserved && reserved[lid])))
            continue;
        owner[lid] = f->num_port_slots;
        claimed++;
    }

    /* Ports are visited in order and always take the lowest free range of their size. Owned
     * LIDs stay owned, so the search for each size never has to look below the last range it
     * handed out: one cursor per size. LID 0 is not a unicast LID, so a range starts at or
     * above its own size. */
    uint32_t next[LMC_MAX + 1];
    for (unsigned m = 0; m <= LMC_MAX; m++)
        next[m] = 1u << m;
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        if (f->ports[i].lid || !cs_port_needs_lid(f, i) || (withheld && withheld[i]))
            continue;
        unsigned port_lmc = port_gets_lmc(f, i) ? lmc : 0;
        uint32_t size = 1u << port_lmc;
        uint32_t *cursor = &next[port_lmc];
        while (*cursor + size - 1 <= max_lid && !range_free(owner, *cursor, size))
            *cursor += size;
        if (*cursor + size - 1 > max_lid) {
            uint32_t missing = 0;
            for (uint32_t j = i; j < f->num_port_slots; j++)
                missing +=
                    !f->ports[j].lid && cs_port_needs_lid(f, j) && !(withheld && withheld[j]);
            cs_fail(err,
                    "out of LIDs: %u more port%s need%s LIDs (LMC %u) and no free aligned range "
                    "of %u is left (%u of the %u unicast LIDs are taken or out of reach)",
                    missing, missing == 1 ? "" : "s", missing == 1 ? "s" : "", lmc, size, claimed,
                    CS_LID_UCAST_MAX);
            goto done;
        }
        for (uint32_t lid = *cursor; lid < *cursor + size; lid++)
            owner[lid] = i;
        new_lid[i] = (uint16_t)*cursor;
        new_lmc[i] = (uint8_t)port_lmc;
        claimed += size;
        *cursor += size;
    }
    for (uint32_t i = 0; i < f->num_port_slots; i++) {
        if (new_lid[i]) {
            f->ports[i].lid = new_lid[i];
            f->ports[i].lmc = new_lmc[i];
        }
    }
    rc = 0;
done:
    free(owner);
    free(new_lid);
    free(new_lmc);
    return rc;
}
