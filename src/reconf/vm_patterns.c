/* VM placements and migration patterns (include/cloudsm/vm_patterns.h). */
#include "cloudsm/vm_patterns.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/fabric.h" /* CS_NONE */
#include "core/grow.h"

static const char *const distribution_names[] = {"random", "uniform"};
static const char *const pattern_names[] = {"random", "consolidate", "grouping", "to-uniform"};

int cs_vm_distribution_parse(const char *text, enum cs_vm_distribution *d)
{
    for (unsigned i = 0; i < 2; i++)
        if (strcmp(text, distribution_names[i]) == 0) {
            *d = (enum cs_vm_distribution)i;
            return 0;
        }
    return -1;
}

int cs_vm_pattern_parse(const char *text, enum cs_vm_pattern *p)
{
    for (unsigned i = 0; i < 4; i++)
        if (strcmp(text, pattern_names[i]) == 0) {
            *p = (enum cs_vm_pattern)i;
            return 0;
        }
    return -1;
}

const char *cs_vm_distribution_name(enum cs_vm_distribution d)
{
    return distribution_names[d];
}

const char *cs_vm_pattern_name(enum cs_vm_pattern p)
{
    return pattern_names[p];
}

void cs_vm_placement_free(struct cs_vm_placement *p)
{
    free(p->hypervisor_of);
    free(p->vf_of);
    free(p->vm_at);
    free(p->load);
    memset(p, 0, sizeof *p);
}

static int placement_alloc(struct cs_vm_placement *p, uint32_t hypervisors, uint32_t slots,
                           uint32_t vms, struct cs_error *err)
{
    memset(p, 0, sizeof *p);
    if (slots < 1 || slots > 255 || hypervisors == 0)
        return cs_fail(err, "placement: %u hypervisors of %u VFs (1..255 VFs, 1+ hypervisors)",
                       hypervisors, slots);
    if ((uint64_t)vms > (uint64_t)hypervisors * slots)
        return cs_fail(err, "placement: %u VMs do not fit %u hypervisors of %u VFs", vms,
                       hypervisors, slots);
    p->hypervisors = hypervisors;
    p->slots = slots;
    p->vms = vms;
    p->hypervisor_of = cs_calloc_array(vms + 1, sizeof *p->hypervisor_of, err);
    p->vf_of = cs_calloc_array(vms + 1, 1, err);
    p->vm_at = cs_calloc_array((size_t)hypervisors * slots, sizeof *p->vm_at, err);
    p->load = cs_calloc_array(hypervisors, sizeof *p->load, err);
    if (!p->hypervisor_of || !p->vf_of || !p->vm_at || !p->load) {
        cs_vm_placement_free(p);
        return -1;
    }
    for (size_t i = 0; i < (size_t)hypervisors * slots; i++)
        p->vm_at[i] = CS_NONE;
    return 0;
}

static void put(struct cs_vm_placement *p, uint32_t vm, uint32_t h, unsigned vf)
{
    p->hypervisor_of[vm] = h;
    p->vf_of[vm] = (uint8_t)vf;
    p->vm_at[(size_t)h * p->slots + vf - 1] = vm;
    p->load[h]++;
}

int cs_vm_place(struct cs_vm_placement *p, uint32_t hypervisors, uint32_t slots, uint32_t vms,
                enum cs_vm_distribution d, struct cs_rng *rng, struct cs_error *err)
{
    if (placement_alloc(p, hypervisors, slots, vms, err) < 0)
        return -1;
    if (d == CS_VM_DIST_UNIFORM) {
        for (uint32_t vm = 0; vm < vms; vm++)
            put(p, vm, vm % hypervisors, vm / hypervisors + 1);
        return 0;
    }
    /* Random: a uniform draw among the free VFs left (swap-remove from the list of free). */
    uint32_t total = hypervisors * slots;
    uint32_t *free_slots = cs_calloc_array(total, sizeof *free_slots, err);
    if (!free_slots) {
        cs_vm_placement_free(p);
        return -1;
    }
    for (uint32_t i = 0; i < total; i++)
        free_slots[i] = i;
    for (uint32_t vm = 0; vm < vms; vm++) {
        uint32_t pick = cs_rng_below(rng, total - vm);
        uint32_t slot = free_slots[pick];
        free_slots[pick] = free_slots[total - vm - 1];
        put(p, vm, slot / slots, slot % slots + 1);
    }
    free(free_slots);
    return 0;
}

int cs_vm_placement_copy(struct cs_vm_placement *dst, const struct cs_vm_placement *src,
                         struct cs_error *err)
{
    if (placement_alloc(dst, src->hypervisors, src->slots, src->vms, err) < 0)
        return -1;
    memcpy(dst->hypervisor_of, src->hypervisor_of, src->vms * sizeof *src->hypervisor_of);
    memcpy(dst->vf_of, src->vf_of, src->vms);
    memcpy(dst->vm_at, src->vm_at, (size_t)src->hypervisors * src->slots * sizeof *src->vm_at);
    memcpy(dst->load, src->load, src->hypervisors * sizeof *src->load);
    return 0;
}

int cs_vm_placement_apply(struct cs_vm_placement *p, const struct cs_vm_move *m,
                          struct cs_error *err)
{
    if (m->vm >= p->vms || m->from >= p->hypervisors || m->to >= p->hypervisors || m->from_vf < 1 ||
        m->from_vf > p->slots || m->to_vf < 1 || m->to_vf > p->slots ||
        p->hypervisor_of[m->vm] != m->from || p->vf_of[m->vm] != m->from_vf ||
        p->vm_at[(size_t)m->to * p->slots + m->to_vf - 1] != CS_NONE)
        return cs_fail(err, "move of VM %u from %u/%u to %u/%u does not fit the placement", m->vm,
                       m->from, m->from_vf, m->to, m->to_vf);
    p->vm_at[(size_t)m->from * p->slots + m->from_vf - 1] = CS_NONE;
    p->load[m->from]--;
    put(p, m->vm, m->to, m->to_vf);
    return 0;
}

void cs_vm_moves_free(struct cs_vm_moves *m)
{
    free(m->items);
    free(m->group_of);
    memset(m, 0, sizeof *m);
}

/* ---- Patterns: each works on a copy of the placement, moving VMs as it records them ------ */

static unsigned lowest_free_vf(const struct cs_vm_placement *p, uint32_t h)
{
    for (unsigned vf = 1; vf <= p->slots; vf++)
        if (p->vm_at[(size_t)h * p->slots + vf - 1] == CS_NONE)
            return vf;
    return 0;
}

/* The VM on h's highest occupied VF (the "last" one), CS_NONE if h is empty. */
static uint32_t last_vm(const struct cs_vm_placement *p, uint32_t h)
{
    for (unsigned vf = p->slots; vf >= 1; vf--)
        if (p->vm_at[(size_t)h * p->slots + vf - 1] != CS_NONE)
            return p->vm_at[(size_t)h * p->slots + vf - 1];
    return CS_NONE;
}

static int move_to(struct cs_vm_placement *p, uint32_t vm, uint32_t to, struct cs_vm_moves *out,
                   struct cs_error *err)
{
    struct cs_vm_move m = {.vm = vm,
                           .from = p->hypervisor_of[vm],
                           .from_vf = p->vf_of[vm],
                           .to = to,
                           .to_vf = (uint8_t)lowest_free_vf(p, to)};
    if (cs_grow((void **)&out->items, &out->capacity, (uint64_t)out->count + 1, sizeof *out->items,
                err) < 0)
        return -1;
    if (cs_vm_placement_apply(p, &m, err) < 0)
        return -1;
    out->items[out->count++] = m;
    return 0;
}

static int pattern_random(struct cs_vm_placement *p, struct cs_rng *rng, struct cs_vm_moves *out,
                          struct cs_error *err)
{
    uint32_t *candidates = cs_calloc_array(p->hypervisors, sizeof *candidates, err);
    if (!candidates)
        return -1;
    int rc = 0;
    for (uint64_t i = 0; i < 2 * (uint64_t)p->hypervisors && p->vms > 0 && rc == 0; i++) {
        uint32_t vm = cs_rng_below(rng, p->vms);
        uint32_t n = 0;
        for (uint32_t h = 0; h < p->hypervisors; h++)
            if (h != p->hypervisor_of[vm] && p->load[h] < p->slots)
                candidates[n++] = h;
        if (n == 0)
            continue; /* every other hypervisor is full: this VM cannot move */
        rc = move_to(p, vm, candidates[cs_rng_below(rng, n)], out, err);
    }
    free(candidates);
    return rc;
}

static int pattern_consolidate(struct cs_vm_placement *p, struct cs_vm_moves *out,
                               struct cs_error *err)
{
    for (;;) {
        uint32_t right = p->hypervisors, left = 0;
        while (right > 0 && p->load[right - 1] == 0)
            right--;
        while (left < p->hypervisors && p->load[left] == p->slots)
            left++;
        if (right == 0 || left >= right - 1)
            return 0; /* the leftmost free VF is on the rightmost occupied hypervisor or beyond */
        if (move_to(p, last_vm(p, right - 1), left, out, err) < 0)
            return -1;
    }
}

static int pattern_to_uniform(struct cs_vm_placement *p, struct cs_vm_moves *out,
                              struct cs_error *err)
{
    uint32_t floor_load = p->vms / p->hypervisors;
    uint32_t ceil_load = floor_load + (p->vms % p->hypervisors != 0);
    for (;;) {
        uint32_t fullest = 0, emptiest = 0;
        for (uint32_t h = 0; h < p->hypervisors; h++) {
            if (p->load[h] >= p->load[fullest])
                fullest = h; /* rightmost on a tie */
            if (p->load[h] < p->load[emptiest])
                emptiest = h; /* leftmost on a tie */
        }
        if (p->load[fullest] <= ceil_load && p->load[emptiest] >= floor_load)
            return 0;
        if (move_to(p, last_vm(p, fullest), emptiest, out, err) < 0)
            return -1;
    }
}

static int pattern_grouping(struct cs_vm_placement *p, unsigned groups, struct cs_rng *rng,
                            struct cs_vm_moves *out, struct cs_error *err)
{
    if (groups < 1)
        return cs_fail(err, "grouping: at least one group");
    uint32_t *group_of = cs_calloc_array(p->vms + 1, sizeof *group_of, err);
    uint32_t *order = cs_calloc_array(p->vms + 1, sizeof *order, err);
    uint32_t *block_of = cs_calloc_array(p->hypervisors, sizeof *block_of, err);
    uint32_t *first = cs_calloc_array(groups + 1, sizeof *first, err);
    uint32_t *cursor = cs_calloc_array(groups + 1, sizeof *cursor, err);
    int rc = 0;
    if (!group_of || !order || !block_of || !first || !cursor)
        rc = -1;
    /* Deal the VMs at random: a shuffled order, position mod groups. */
    for (uint32_t i = 0; rc == 0 && i < p->vms; i++)
        order[i] = i;
    if (rc == 0)
        cs_rng_shuffle(rng, order, p->vms);
    for (uint32_t i = 0; rc == 0 && i < p->vms; i++)
        group_of[order[i]] = i % groups;
    /* Blocks of neighbouring hypervisors, group after group from the left. */
    uint32_t next = 0;
    for (uint32_t h = 0; rc == 0 && h < p->hypervisors; h++)
        block_of[h] = CS_NONE;
    for (unsigned g = 0; rc == 0 && g < groups; g++) {
        uint32_t size = p->vms / groups + (g < p->vms % groups);
        uint32_t need = (size + p->slots - 1) / p->slots;
        if ((uint64_t)next + need > p->hypervisors)
            rc = cs_fail(err,
                         "grouping: %u groups of %u VMs need more than %u hypervisors of %u VFs",
                         groups, size, p->hypervisors, p->slots);
        for (uint32_t h = next; rc == 0 && h < next + need; h++)
            block_of[h] = g;
        first[g] = next;
        next += need;
    }
    first[groups] = next;
    /* Each group consolidated into its block by consolidate's rule (grouping "is basically
     * consolidation by taking into account different tenants", thesis lines 6855-6857): a
     * misplaced VM whose block has a free VF moves to the block's leftmost free VF (cursor[g]:
     * no free VF before it), the rightmost such VM first, but those sitting in another group's
     * block before those outside every block (they must leave anyway, and the room they leave
     * is that group's: taken last, blocks fill up around them and each costs an eviction).
     * The order matters to the routing, not only to the count: under FTreeMinRC a VM keeps its
     * old path on the switches outside the sub-tree it crosses, so VMs that arrive together
     * from one leaf keep that leaf's balance (docs/vswitch.md, "Results"). When every
     * misplaced VM's block is full, each of those blocks holds a VM of another group: the
     * rightmost such in the rightmost waiting VM's block moves out (to the leftmost free VF
     * outside every block, else anywhere outside that block). Each step makes progress; the
     * bound guards against a mistake. */
    for (uint32_t g = 0; rc == 0 && g < groups; g++)
        cursor[g] = first[g];
    for (uint64_t step = 0; rc == 0; step++) {
        if (step > 4 * (uint64_t)p->vms + 4) {
            rc = cs_fail(err, "grouping: no progress after %llu moves", (unsigned long long)step);
            break;
        }
        uint32_t mover = CS_NONE, outsider = CS_NONE, blocked = CS_NONE;
        for (size_t i = (size_t)p->hypervisors * p->slots; i-- > 0 && mover == CS_NONE;) {
            uint32_t vm = p->vm_at[i];
            if (vm == CS_NONE || block_of[i / p->slots] == group_of[vm])
                continue;
            uint32_t g = group_of[vm];
            while (cursor[g] < first[g + 1] && p->load[cursor[g]] == p->slots)
                cursor[g]++;
            if (cursor[g] == first[g + 1]) {
                if (blocked == CS_NONE)
                    blocked = vm;
            } else if (block_of[i / p->slots] != CS_NONE)
                mover = vm;
            else if (outsider == CS_NONE)
                outsider = vm;
        }
        if (mover == CS_NONE)
            mover = outsider;
        if (mover != CS_NONE) {
            uint32_t from = p->hypervisor_of[mover];
            rc = move_to(p, mover, cursor[group_of[mover]], out, err);
            if (block_of[from] != CS_NONE && from < cursor[block_of[from]])
                cursor[block_of[from]] = from; /* it left a VF free there */
            continue;
        }
        if (blocked == CS_NONE)
            break; /* every VM is in its block */
        uint32_t g = group_of[blocked], foreign = CS_NONE;
        for (size_t i = (size_t)first[g + 1] * p->slots;
             i-- > (size_t)first[g] * p->slots && foreign == CS_NONE;)
            if (p->vm_at[i] != CS_NONE && group_of[p->vm_at[i]] != g)
                foreign = p->vm_at[i];
        uint32_t target = CS_NONE;
        for (uint32_t h = 0; h < p->hypervisors && target == CS_NONE; h++)
            if (block_of[h] == CS_NONE && p->load[h] < p->slots)
                target = h;
        for (uint32_t h = 0; h < p->hypervisors && target == CS_NONE; h++)
            if (block_of[h] != g && p->load[h] < p->slots)
                target = h;
        if (foreign == CS_NONE || target == CS_NONE) {
            rc = cs_fail(err, "grouping: no free VF to make room in group %u's block", g);
            break;
        }
        uint32_t from = p->hypervisor_of[foreign];
        rc = move_to(p, foreign, target, out, err);
        if (from < cursor[g])
            cursor[g] = from;
    }
    if (rc == 0)
        out->group_of = group_of;
    else
        free(group_of);
    free(order);
    free(block_of);
    free(first);
    free(cursor);
    return rc;
}

int cs_vm_pattern_moves(const struct cs_vm_placement *p, enum cs_vm_pattern pattern,
                        unsigned groups, struct cs_rng *rng, struct cs_vm_moves *out,
                        struct cs_error *err)
{
    memset(out, 0, sizeof *out);
    struct cs_vm_placement work;
    if (cs_vm_placement_copy(&work, p, err) < 0)
        return -1;
    int rc;
    switch (pattern) {
    case CS_VM_PATTERN_RANDOM:
        rc = pattern_random(&work, rng, out, err);
        break;
    case CS_VM_PATTERN_CONSOLIDATE:
        rc = pattern_consolidate(&work, out, err);
        break;
    case CS_VM_PATTERN_GROUPING:
        rc = pattern_grouping(&work, groups, rng, out, err);
        break;
    default:
        rc = pattern_to_uniform(&work, out, err);
        break;
    }
    cs_vm_placement_free(&work);
    if (rc < 0)
        cs_vm_moves_free(out);
    return rc;
}
