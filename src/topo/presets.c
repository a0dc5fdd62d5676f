/* Example fabrics from the papers, as presets of the fat-tree generator: each is a tree spec, a
 * vSwitch VF count and, where the paper numbers its switches, those numbers as descriptions.
 * Where each layout comes from (and what is inferred) is in docs/topology-generators.md. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cloudsm/topo_gen.h"

/* The journal paper's Fig. 3 numbers its 12 switches 1..12. XGFT(3;2,2,2;1,2,2) in fabric
 * order is leaves L0..L3, middles M0..M3, roots R0..R3, with leaf (a3,a2) under middles (a3,*)
 * and middle (a3,b2) under roots (*,b2). The numbering below makes the paper's paths
 * P1 = 12-9-5-3-1 and P2 = 12-10-6-4-1 up-down paths: leaf 1 = L0 and leaf 12 = L3 sit in
 * different level-2 sub-trees, and 1's two middles (3, 4) reach 12's (9, 10) through roots 5
 * and 6 respectively. */
static const unsigned journal_fig3_numbers[12] = {
    1, 2, 11, 12, /* leaves */
    3, 4, 9,  10, /* middles */
    5, 6, 7,  8,  /* roots */
};

static const struct cs_topo_preset presets[] = {
    {
        .name = "vswitch-fig3",
        .summary = "vSwitch paper Fig. 3/5: 3 hypervisors x 3 VFs on 2 leaves, 2 spines",
        .xgft = "2;2,2;1,2",
        .hosts = 3,
        .default_vfs = 3,
        .switch_numbers = NULL,
        .num_switch_numbers = 0,
    },
    {
        .name = "vswitch-journal-fig3",
        .summary = "vSwitch journal Fig. 3: 12 switches sw-1..sw-12, 8 hypervisors x 2 VFs",
        .xgft = "3;2,2,2;1,2,2",
        .hosts = 0,
        .default_vfs = 2,
        .switch_numbers = journal_fig3_numbers,
        .num_switch_numbers = sizeof journal_fig3_numbers / sizeof journal_fig3_numbers[0],
    },
};

#define NUM_PRESETS (sizeof presets / sizeof presets[0])

const struct cs_topo_preset *cs_topo_presets(size_t *count)
{
    *count = NUM_PRESETS;
    return presets;
}

int cs_topo_preset_generate(struct cs_fabric *f, const char *name, unsigned vfs_per_hypervisor,
                            struct cs_error *err)
{
    const struct cs_topo_preset *preset = NULL;
    for (size_t i = 0; i < NUM_PRESETS; i++)
        if (strcmp(presets[i].name, name) == 0)
            preset = &presets[i];
    if (!preset) {
        char known[256] = "";
        for (size_t i = 0; i < NUM_PRESETS; i++) {
            size_t used = strlen(known);
            snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", presets[i].name);
        }
        return cs_fail(err, "no preset named \"%.64s\" (known: %s)", name, known);
    }

    struct cs_pgft_spec spec;
    if (cs_pgft_parse(&spec, preset->xgft, false, err) < 0)
        return -1;
    spec.hosts = preset->hosts;
    spec.vfs_per_hypervisor = vfs_per_hypervisor ? vfs_per_hypervisor : preset->default_vfs;
    struct cs_pgft_counts counts;
    if (cs_pgft_count(&spec, &counts, err) < 0 || cs_pgft_generate(f, &spec, err) < 0)
        return -1;

    if (preset->switch_numbers) {
        if (counts.switches != preset->num_switch_numbers) {
            cs_fabric_free(f);
            return cs_fail(err, "preset %s: %u switch numbers for a tree of %" PRIu64 " switches",
                           preset->name, preset->num_switch_numbers, counts.switches);
        }
        /* The tree's switches follow the hypervisors and their VFs in fabric order. */
        uint32_t first_switch = (uint32_t)(counts.hosts + counts.vfs);
        for (uint32_t j = 0; j < counts.switches; j++)
            snprintf(f->nodes[first_switch + j].desc, sizeof f->nodes[first_switch + j].desc,
                     "sw-%u", preset->switch_numbers[j]);
    }
    return 0;
}
