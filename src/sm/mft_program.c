/* Programming multicast (include/cloudsm/sm.h, cs_sm_program_mfts): the spanning trees
 * (cs_mcast_tree) of every group, or of the groups whose members changed, into the MFTs the
 * switches should hold, then only the (block, position) pairs that differ from what they hold:
 * read back first where the SM does not know it yet. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/key_index.h"
#include "cloudsm/sm.h"
#include "sm/phase.h"

struct mft_phase {
    const struct cs_sm_sweep *s;
    const struct cs_log *log;
    struct cs_mfts *held;
    unsigned failures;
};

struct mft_job {
    struct mft_phase *ph;
    uint32_t sw, block, position;
    uint16_t content[CS_MFT_BLOCK]; /* a Set's */
};

static void encode_block(const uint16_t masks[CS_MFT_BLOCK], uint8_t data[CS_SMP_DATA_SIZE])
{
    memset(data, 0, CS_SMP_DATA_SIZE);
    for (unsigned i = 0; i < CS_MFT_BLOCK; i++) {
        data[2 * i] = (uint8_t)(masks[i] >> 8);
        data[2 * i + 1] = (uint8_t)masks[i];
    }
}

static int block_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                      const struct cs_smp *reply, struct cs_error *err)
{
    (void)err;
    struct mft_job *job = arg;
    struct mft_phase *ph = job->ph;
    bool *known = cs_mfts_known(ph->held, job->sw, job->block, job->position);
    if (cs_sm_smp_failed(ph->s, ph->log, ph->held->switches[job->sw].node, result, req, reply)) {
        ph->failures++;
        *known = false; /* a Set may or may not have landed */
        return 0;
    }
    uint16_t masks[CS_MFT_BLOCK];
    for (unsigned i = 0; i < CS_MFT_BLOCK; i++)
        masks[i] = (uint16_t)(reply->data[2 * i] << 8 | reply->data[2 * i + 1]);
    cs_mfts_set_block(ph->held, job->sw, job->block, job->position, masks);
    *known = true;
    return 0;
}

/* The tables the trees ask for: every group's (dirty NULL), or those of the MLIDs listed, whose
 * entries are built afresh while the others stay as want has them. */
static int want_tables(const struct cs_sm_sweep *s, const struct cs_mcast_groups *g,
                       struct cs_mcast_router *router, const uint16_t *dirty, uint32_t num_dirty,
                       struct cs_mfts *want, struct cs_sm_mft_counts *counts, struct cs_error *err)
{
    uint32_t top = 0;
    for (uint32_t i = 0; i < cs_mcast_groups_count(g); i++) {
        uint32_t index = cs_mcast_groups_at(g, i)->rec.mlid - CS_MCAST_MLID_FIRST;
        top = index + 1 > top ? index + 1 : top;
    }
    if (cs_mfts_reserve(want, top, err) < 0)
        return -1;
    uint32_t count = dirty ? num_dirty : cs_mcast_groups_count(g);
    for (uint32_t i = 0; dirty && i < count; i++) {
        uint32_t index = (uint32_t)(dirty[i] - CS_MCAST_MLID_FIRST);
        for (uint32_t sw = 0; index < want->mlid_count && sw < want->num_switches; sw++)
            memset(cs_mfts_entry(want, sw, index), 0, CS_MFT_POSITIONS_MAX * sizeof(uint16_t));
    }
    int rc = 0;
    uint32_t *ports = NULL;
    uint32_t capacity = 0;
    for (uint32_t i = 0; i < count && rc == 0; i++) {
        const struct cs_mcast_group *group =
            dirty ? cs_mcast_groups_by_mlid(g, dirty[i]) : cs_mcast_groups_at(g, i);
        if (group == NULL)
            continue; /* gone: its entries stay cleared */
        if (group->num_members > capacity) {
            free(ports);
            capacity = group->num_members;
            if ((ports = malloc(capacity * sizeof *ports)) == NULL) {
                rc = cs_fail(err, "out of memory for the multicast trees");
                break;
            }
        }
        uint32_t members = 0;
        for (uint32_t k = 0; k < group->num_members; k++) {
            uint32_t p = cs_sm_sweep_end_port_by_guid(s, group->members[k].guid);
            if (p != CS_NONE)
                ports[members++] = p;
        }
        uint32_t root;
        int reached = cs_mcast_tree(router, ports, members, group->rec.mlid - CS_MCAST_MLID_FIRST,
                                    want, &root, err);
        if (reached < 0)
            rc = -1;
        else if (reached > 0)
            counts->trees++;
    }
    free(ports);
    return rc;
}

/* Whether block b holds one of the MLIDs listed (all blocks do when none is). */
static bool block_dirty(const uint16_t *dirty, uint32_t num_dirty, uint32_t b)
{
    if (dirty == NULL)
        return true;
    for (uint32_t i = 0; i < num_dirty; i++)
        if ((uint32_t)(dirty[i] - CS_MCAST_MLID_FIRST) / CS_MFT_BLOCK == b)
            return true;
    return false;
}

bool *cs_sm_multicast_capable(const struct cs_sm_sweep *s, struct cs_error *err)
{
    const struct cs_fabric *f = &s->fabric;
    bool *capable = calloc(f->num_nodes ? f->num_nodes : 1, sizeof *capable);
    if (capable == NULL) {
        cs_fail(err, "out of memory for the multicast trees");
        return NULL;
    }
    for (uint32_t n = 0; n < f->num_nodes; n++)
        capable[n] = cs_node_is_switch(&f->nodes[n]) && s->switch_info[n].multicast_fdb_cap > 0;
    return capable;
}

int cs_sm_program_mfts(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                       const struct cs_mcast_groups *g, struct cs_mcast_router *router,
                       const uint16_t *dirty, uint32_t num_dirty, struct cs_mfts *want,
                       struct cs_mfts *held, const struct cs_log *log,
                       struct cs_sm_mft_counts *counts, struct cs_error *err)
{
    *counts = (struct cs_sm_mft_counts){0};
    if (want_tables(s, g, router, dirty, num_dirty, want, counts, err) < 0 ||
        cs_mfts_reserve(held, want->mlid_count, err) < 0)
        return -1;
    struct mft_phase ph = {.s = s, .log = log, .held = held};
    uint32_t blocks = cs_mfts_blocks(held);
    uint64_t most = 0;
    for (uint32_t sw = 0; sw < held->num_switches; sw++)
        most += (uint64_t)blocks * held->switches[sw].positions;
    struct mft_job *jobs = calloc(most ? most : 1, sizeof *jobs);
    int rc = jobs ? 0 : cs_fail(err, "out of memory for the MFT blocks");
    /* Pass 0 reads what the SM does not know; pass 1 writes what differs. */
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        uint64_t n = 0;
        for (uint32_t sw = 0; sw < held->num_switches && rc == 0; sw++) {
            uint32_t node = held->switches[sw].node;
            uint16_t cap = s->switch_info[node].multicast_fdb_cap;
            /* Beyond the switch's MulticastFDBCap there is nothing to program. */
            for (uint32_t b = 0; b < blocks && (uint64_t)b * CS_MFT_BLOCK < cap && rc == 0; b++) {
                if (!block_dirty(dirty, num_dirty, b))
                    continue;
                for (uint32_t pos = 0; pos < held->switches[sw].positions && rc == 0; pos++) {
                    bool known = *cs_mfts_known(held, sw, b, pos);
                    if (pass == 0 ? known : !known || cs_mfts_block_equal(want, held, sw, b, pos))
                        continue;
                    struct mft_job *job = &jobs[n++];
                    *job = (struct mft_job){&ph, sw, b, pos, {0}};
                    uint8_t data[CS_SMP_DATA_SIZE];
                    if (pass == 1) {
                        if (b * CS_MFT_BLOCK < want->mlid_count)
                            cs_mfts_get_block(want, sw, b, pos, job->content);
                        encode_block(job->content, data);
                        counts->blocks_sent++;
                    } else {
                        counts->blocks_read++;
                    }
                    rc = cs_sm_submit_dr(pipe, pass ? CS_SMP_METHOD_SET : CS_SMP_METHOD_GET,
                                         CS_SMP_ATTR_MCAST_FT, pos << 28 | b, &s->path[node],
                                         pass ? data : NULL, block_done, job, err);
                }
            }
        }
        if (rc == 0)
            rc = cs_smp_pipe_run(pipe, err);
    }
    free(jobs);
    counts->failures = ph.failures;
    return rc;
}
