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

/* The hybrid reconfiguration paper's hardware testbed (Sect. V-A, Fig. 7(a)), built from its
 * prose; the PGFT tuple it prints gives 32 nodes and 36 switches, not 10 and 14. 4 leaves of 4
 * node slots (the last one lacks two nodes: 14 nodes), two 2-level sub-trees of 2 leaves and 2
 * second-level switches each, 2 roots: XGFT(3;4,2,2;1,2,1), each second-level switch under one
 * root. Numbered bottom-up as the paper's Fig. 2 numbers its switches: leaves S1..S4,
 * second-level switches S5..S8, roots S9, S10, so that S5 and S6 are the lower-left sub-tree's
 * second-level switches, and CN1..CN4 are on S1, CN5..CN8 on S2 (the generator's fabric order
 * is already bottom-up and left to right). */
static const unsigned hybrid_testbed_numbers[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

/* Table I of the hybrid reconfiguration paper: k-3-x-half = XGFT(3; x*k, k, k; 1, k, k) (a
 * k-ary-3-tree with x*k nodes per leaf), k-3-x-full = XGFT(3; x*k, k, 2k; 1, k, k) (roots use
 * every port downward: twice the sub-trees). */
#define HYBRID_TABLE_I(label, counts, tree)                                                        \
    {                                                                                              \
        .name = "hybrid-" label, .summary = "hybrid paper Table I " label ": " counts,             \
        .xgft = tree,                                                                              \
    }

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
    {
        .name = "hybrid-testbed",
        .summary = "hybrid paper's testbed: switches S1..S10, nodes CN1..CN14 (S5, S6: lower left)",
        .xgft = "3;4,2,2;1,2,1",
        .hosts = 14,
        .default_vfs = 0,
        .switch_numbers = hybrid_testbed_numbers,
        .num_switch_numbers = sizeof hybrid_testbed_numbers / sizeof hybrid_testbed_numbers[0],
        .switch_prefix = "S",
        .host_prefix = "CN",
    },
    HYBRID_TABLE_I("8-3-1-half", "512 nodes / 192 switches", "3;8,8,8;1,8,8"),
    HYBRID_TABLE_I("8-3-1-full", "1024 nodes / 320 switches", "3;8,8,16;1,8,8"),
    HYBRID_TABLE_I("8-3-2-half", "1024 nodes / 192 switches", "3;16,8,8;1,8,8"),
    HYBRID_TABLE_I("8-3-2-full", "2048 nodes / 320 switches", "3;16,8,16;1,8,8"),
    HYBRID_TABLE_I("8-3-4-half", "2048 nodes / 192 switches", "3;32,8,8;1,8,8"),
    HYBRID_TABLE_I("8-3-4-full", "4096 nodes / 320 switches", "3;32,8,16;1,8,8"),
    HYBRID_TABLE_I("12-3-1-half", "1728 nodes / 432 switches", "3;12,12,12;1,12,12"),
    HYBRID_TABLE_I("12-3-1-full", "3456 nodes / 720 switches", "3;12,12,24;1,12,12"),
    HYBRID_TABLE_I("12-3-2-half", "3456 nodes / 432 switches", "3;24,12,12;1,12,12"),
    HYBRID_TABLE_I("12-3-2-full", "6912 nodes / 720 switches", "3;24,12,24;1,12,12"),
    HYBRID_TABLE_I("16-3-1-half", "4096 nodes / 768 switches", "3;16,16,16;1,16,16"),
    HYBRID_TABLE_I("16-3-1-full", "8192 nodes / 1280 switches", "3;16,16,32;1,16,16"),
    HYBRID_TABLE_I("16-3-2-half", "8192 nodes / 768 switches", "3;32,16,16;1,16,16"),
    HYBRID_TABLE_I("16-3-2-full", "16384 nodes / 1280 switches", "3;32,16,32;1,16,16"),
    HYBRID_TABLE_I("18-3-1-half", "5832 nodes / 972 switches", "3;18,18,18;1,18,18"),
    HYBRID_TABLE_I("18-3-1-full", "11664 nodes / 1620 switches", "3;18,18,36;1,18,18"),
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
        char known[1024] = "";
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
        const char *prefix = preset->switch_prefix ? preset->switch_prefix : "sw-";
        for (uint32_t j = 0; j < counts.switches; j++)
            snprintf(f->nodes[first_switch + j].desc, sizeof f->nodes[first_switch + j].desc,
                     "%s%u", prefix, preset->switch_numbers[j]);
    }
    if (preset->host_prefix && spec.vfs_per_hypervisor == 0) /* hosts come first */
        for (uint32_t i = 0; i < counts.hosts; i++)
            snprintf(f->nodes[i].desc, sizeof f->nodes[i].desc, "%s%u", preset->host_prefix, i + 1);
    return 0;
}
