/* LID swap and copy on LFTs, and the SMPs that carry them (include/cloudsm/vm_plan.h).
 *
 * Paper II, Algorithm 1 (thesis lines 3465-3560): "If the LFT block needs to be updated send SMP
 * on the switch"; a block needs it when one of its 64 entries changes. A swap touches the blocks
 * of two LIDs (m' = 2 when they differ, section V-C1, thesis lines 3576-3595), a copy one
 * (section V-C2). A switch whose entries already agree is skipped: n' <= n (thesis lines
 * 3819-3824).
 */
#include "cloudsm/vm_plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/grow.h"

void cs_plan_init(struct cs_plan *p)
{
    memset(p, 0, sizeof *p);
}

void cs_plan_free(struct cs_plan *p)
{
    free(p->smps);
    memset(p, 0, sizeof *p);
}

const char *cs_plan_smp_kind_name(enum cs_plan_smp_kind k)
{
    switch (k) {
    case CS_PLAN_SMP_PORT255:
        return "port255";
    case CS_PLAN_SMP_LFT_BLOCK:
        return "lft";
    case CS_PLAN_SMP_LID_UNSET:
        return "lid_unset";
    case CS_PLAN_SMP_LID_SET:
        return "lid_set";
    case CS_PLAN_SMP_VGUID_SET:
        return "vguid_set";
    case CS_PLAN_SMP_VGUID_UNSET:
        return "vguid_unset";
    }
    return "?";
}

static int plan_push(struct cs_plan *p, const struct cs_plan_smp *smp, struct cs_error *err)
{
    if (cs_grow((void **)&p->smps, &p->capacity, (uint64_t)p->count + 1, sizeof *p->smps, err) < 0)
        return -1;
    p->smps[p->count++] = *smp;
    if (smp->kind == CS_PLAN_SMP_PORT255)
        p->port255_smps++;
    else if (smp->kind == CS_PLAN_SMP_LFT_BLOCK)
        p->lft_smps++;
    else
        p->hypervisor_smps++;
    return 0;
}

/* The entries u gives one switch's table: new_lid for u->lid, new_other for u->other. */
static void new_entries(const struct cs_lid_update *u, const uint8_t *table, uint8_t *new_lid,
                        uint8_t *new_other)
{
    if (u->kind == CS_LID_SWAP) {
        *new_lid = table[u->other];
        *new_other = table[u->lid];
    } else {
        *new_lid = table[u->other];
        *new_other = table[u->other];
    }
}

static int push_block(struct cs_plan *plan, uint32_t table, uint16_t block, uint8_t entries,
                      uint16_t lid, bool active, struct cs_error *err)
{
    struct cs_plan_smp smp = {.kind = CS_PLAN_SMP_LFT_BLOCK,
                              .entries = entries,
                              .active_route = active,
                              .block = block,
                              .lid = lid,
                              .table = table,
                              .node = CS_NONE};
    return plan_push(plan, &smp, err);
}

int cs_lid_update_apply(struct cs_lfts *t, const struct cs_lid_update *u, const uint32_t *tables,
                        uint32_t count, uint32_t active_count, bool port255, bool block_major,
                        struct cs_plan *plan, struct cs_error *err)
{
    if (!u->lid || !u->other || u->lid >= t->capacity || u->other >= t->capacity)
        return cs_fail(err, "LIDs %u and %u must be 1..%u, the LIDs the tables hold", u->lid,
                       u->other, t->capacity - 1);
    if (u->lid == u->other)
        return cs_fail(err, "LID %u cannot be %s itself", u->lid,
                       u->kind == CS_LID_SWAP ? "swapped with" : "copied from");
    /* Which switches change: decided on the old tables, before any is written. */
    uint8_t *changes = cs_calloc_array(count ? count : 1, 1, err);
    if (!changes)
        return -1;
    uint32_t lid_block = u->lid / CS_LFT_BLOCK, other_block = u->other / CS_LFT_BLOCK;
    for (uint32_t k = 0; k < count; k++) {
        const uint8_t *table = cs_lfts_table(t, tables[k]);
        uint8_t new_lid, new_other;
        new_entries(u, table, &new_lid, &new_other);
        changes[k] = new_lid != table[u->lid] || new_other != table[u->other];
    }
    int rc = -1;
    if (port255) {
        /* Paper II section VI-C: "forwarded through port 255" on every switch to reconfigure
         * first, n' more SMPs; the packets towards the moving LID are dropped meanwhile. */
        for (uint32_t k = 0; k < count; k++) {
            if (!changes[k])
                continue;
            struct cs_plan_smp smp = {.kind = CS_PLAN_SMP_PORT255,
                                      .entries = 1,
                                      .active_route = k < active_count,
                                      .block = (uint16_t)lid_block,
                                      .lid = u->lid,
                                      .table = tables[k],
                                      .node = CS_NONE};
            if (plan_push(plan, &smp, err) < 0)
                goto done;
        }
    }
    /* The blocks a changing switch is sent: a swap changes both LIDs' entries (they differed),
     * in one block or two; a copy changes the VM LID's. */
    uint32_t blocks[2] = {lid_block, other_block};
    uint32_t num_blocks = u->kind == CS_LID_SWAP && other_block != lid_block ? 2 : 1;
    if (num_blocks == 2 && other_block < lid_block) {
        blocks[0] = other_block;
        blocks[1] = lid_block;
    }
    uint8_t entries_in_block = u->kind == CS_LID_SWAP && num_blocks == 1 ? 2 : 1;
    uint32_t outer = block_major ? num_blocks : count, inner = block_major ? count : num_blocks;
    for (uint32_t i = 0; i < outer; i++)
        for (uint32_t j = 0; j < inner; j++) {
            uint32_t k = block_major ? j : i, b = block_major ? i : j;
            if (!changes[k])
                continue;
            uint16_t lid = blocks[b] == lid_block ? u->lid : u->other;
            if (push_block(plan, tables[k], (uint16_t)blocks[b], entries_in_block, lid,
                           k < active_count, err) < 0)
                goto done;
        }
    for (uint32_t k = 0; k < count; k++) {
        if (!changes[k])
            continue;
        uint8_t *table = cs_lfts_table(t, tables[k]);
        uint8_t new_lid, new_other;
        new_entries(u, table, &new_lid, &new_other);
        cs_lfts_set(t, tables[k], u->lid, new_lid);
        cs_lfts_set(t, tables[k], u->other, new_other);
        plan->switches_updated++;
    }
    rc = 0;
done:
    free(changes);
    return rc;
}

static int phase_of(const struct cs_plan_smp *smp)
{
    if (smp->kind == CS_PLAN_SMP_PORT255)
        return 0;
    return smp->kind == CS_PLAN_SMP_LFT_BLOCK ? 1 : 2;
}

uint32_t cs_plan_phases(const struct cs_plan *plan, uint32_t *ends)
{
    uint32_t phases = 0;
    for (uint32_t i = 0; i < plan->count; i++) {
        bool last =
            i + 1 == plan->count || phase_of(&plan->smps[i + 1]) != phase_of(&plan->smps[i]);
        if (last)
            ends[phases++] = i + 1;
    }
    return phases;
}

void cs_plan_replay(const struct cs_plan *plan, uint32_t upto, const struct cs_lfts *new_set,
                    const struct cs_switch_tree *tr, struct cs_lfts *t)
{
    for (uint32_t i = 0; i < upto && i < plan->count; i++) {
        const struct cs_plan_smp *smp = &plan->smps[i];
        uint32_t table = smp->table;
        if (smp->kind == CS_PLAN_SMP_PORT255) {
            cs_lfts_set(t, table, smp->lid, CS_LFT_NO_ROUTE);
        } else if (smp->kind == CS_PLAN_SMP_LFT_BLOCK) {
            uint32_t first = (uint32_t)smp->block * CS_LFT_BLOCK;
            for (uint32_t lid = first; lid < first + CS_LFT_BLOCK && lid < t->capacity; lid++)
                cs_lfts_set(t, table, lid, cs_lfts_get(new_set, table, lid));
        } else {
            table = tr->table_of_node[smp->node];
            for (uint32_t lid = 0; table != CS_NONE && lid < t->capacity; lid++)
                if (cs_lfts_get(t, table, lid) != cs_lfts_get(new_set, table, lid))
                    cs_lfts_set(t, table, lid, cs_lfts_get(new_set, table, lid));
        }
    }
}
