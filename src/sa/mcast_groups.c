/* The multicast group store (include/cloudsm/mcast.h): groups by MGID, their members, MLIDs. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/mcast.h"
#include "cloudsm/sa.h"
#include "core/grow.h"

#define BITS_PER_WORD 64
#define MLID_WORDS ((CS_MCAST_MLIDS + BITS_PER_WORD - 1) / BITS_PER_WORD)

struct cs_mcast_groups {
    struct cs_mcast_group **groups; /* MGID order */
    uint32_t count;
    uint32_t capacity;
    uint16_t last_mlid;
    uint32_t mgid_count; /* the next SA-assigned MGID's unique part */
    struct cs_mcast_group *by_mlid[CS_MCAST_MLIDS];
    uint64_t used[MLID_WORDS];  /* MLIDs held by a group */
    uint64_t dirty[MLID_WORDS]; /* MLIDs whose member ports changed */
};

static bool bit_get(const uint64_t *bits, uint16_t mlid)
{
    unsigned i = mlid - CS_MCAST_MLID_FIRST;
    return (bits[i / BITS_PER_WORD] >> (i % BITS_PER_WORD)) & 1;
}

static void bit_put(uint64_t *bits, uint16_t mlid, bool on)
{
    unsigned i = mlid - CS_MCAST_MLID_FIRST;
    uint64_t m = UINT64_C(1) << (i % BITS_PER_WORD);
    bits[i / BITS_PER_WORD] = on ? bits[i / BITS_PER_WORD] | m : bits[i / BITS_PER_WORD] & ~m;
}

static bool is_mlid(uint16_t mlid)
{
    return mlid >= CS_MCAST_MLID_FIRST && mlid <= CS_MCAST_MLID_LAST;
}

struct cs_mcast_groups *cs_mcast_groups_create(struct cs_error *err)
{
    struct cs_mcast_groups *g = calloc(1, sizeof *g);
    if (g == NULL) {
        cs_fail(err, "out of memory for the multicast groups");
        return NULL;
    }
    g->last_mlid = CS_MCAST_MLID_LAST;
    return g;
}

static void group_free(struct cs_mcast_group *group)
{
    free(group->members);
    free(group);
}

void cs_mcast_groups_destroy(struct cs_mcast_groups *g)
{
    if (g == NULL)
        return;
    for (uint32_t i = 0; i < g->count; i++)
        group_free(g->groups[i]);
    free(g->groups);
    free(g);
}

uint32_t cs_mcast_groups_count(const struct cs_mcast_groups *g)
{
    return g->count;
}

const struct cs_mcast_group *cs_mcast_groups_at(const struct cs_mcast_groups *g, uint32_t i)
{
    return i < g->count ? g->groups[i] : NULL;
}

/* The index of mgid's group, or of where it would go (*found false). */
static uint32_t mgid_position(const struct cs_mcast_groups *g, const uint8_t mgid[16], bool *found)
{
    uint32_t lo = 0, hi = g->count;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = memcmp(g->groups[mid]->rec.mgid, mgid, 16);
        if (c == 0) {
            *found = true;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

struct cs_mcast_group *cs_mcast_groups_find(struct cs_mcast_groups *g, const uint8_t mgid[16])
{
    bool found;
    uint32_t i = mgid_position(g, mgid, &found);
    return found ? g->groups[i] : NULL;
}

const struct cs_mcast_group *cs_mcast_groups_by_mlid(const struct cs_mcast_groups *g, uint16_t mlid)
{
    return is_mlid(mlid) ? g->by_mlid[mlid - CS_MCAST_MLID_FIRST] : NULL;
}

void cs_mcast_groups_set_mlid_limit(struct cs_mcast_groups *g, uint16_t last_mlid)
{
    g->last_mlid = last_mlid < CS_MCAST_MLID_FIRST  ? CS_MCAST_MLID_FIRST - 1
                   : last_mlid > CS_MCAST_MLID_LAST ? CS_MCAST_MLID_LAST
                                                    : last_mlid;
}

/* OpenSM's get_new_mlid: the one asked for when it is free and within the limit, else the
 * lowest free one; 0 when there is none. */
static uint16_t new_mlid(const struct cs_mcast_groups *g, uint16_t asked)
{
    if (is_mlid(asked) && asked <= g->last_mlid && !bit_get(g->used, asked))
        return asked;
    for (uint32_t mlid = CS_MCAST_MLID_FIRST; mlid <= g->last_mlid; mlid++)
        if (!bit_get(g->used, (uint16_t)mlid))
            return (uint16_t)mlid;
    return 0;
}

struct cs_mcast_group *cs_mcast_groups_add(struct cs_mcast_groups *g,
                                           const struct cs_mcmember_record *rec, uint16_t *status)
{
    *status = CS_SA_STATUS_NO_RESOURCES;
    bool found;
    uint32_t at = mgid_position(g, rec->mgid, &found);
    uint16_t mlid = new_mlid(g, rec->mlid);
    if (found || mlid == 0)
        return NULL;
    struct cs_error err;
    if (cs_grow((void **)&g->groups, &g->capacity, (uint64_t)g->count + 1, sizeof *g->groups,
                &err) < 0)
        return NULL;
    struct cs_mcast_group *group = calloc(1, sizeof *group);
    if (group == NULL)
        return NULL;
    group->rec = *rec;
    group->rec.mlid = mlid;
    group->rec.mtu = (uint8_t)((group->rec.mtu & 0x3f) | (CS_SA_SELECTOR_EXACTLY << 6));
    group->rec.rate = (uint8_t)((group->rec.rate & 0x3f) | (CS_SA_SELECTOR_EXACTLY << 6));
    group->rec.packet_life =
        (uint8_t)((group->rec.packet_life & 0x3f) | (CS_SA_SELECTOR_EXACTLY << 6));
    memmove(&g->groups[at + 1], &g->groups[at], (g->count - at) * sizeof *g->groups);
    g->groups[at] = group;
    g->count++;
    bit_put(g->used, mlid, true);
    g->by_mlid[mlid - CS_MCAST_MLID_FIRST] = group;
    *status = 0;
    return group;
}

static void group_remove(struct cs_mcast_groups *g, struct cs_mcast_group *group)
{
    bool found;
    uint32_t at = mgid_position(g, group->rec.mgid, &found);
    if (!found)
        return;
    bit_put(g->used, group->rec.mlid, false);
    g->by_mlid[group->rec.mlid - CS_MCAST_MLID_FIRST] = NULL;
    if (group->num_members > 0)
        bit_put(g->dirty, group->rec.mlid, true); /* its tree's entries must go */
    memmove(&g->groups[at], &g->groups[at + 1], (g->count - at - 1) * sizeof *g->groups);
    g->count--;
    group_free(group);
}

bool cs_mcast_group_cleanup(struct cs_mcast_groups *g, struct cs_mcast_group *group)
{
    if (group->full_members > 0)
        return false;
    if (group->num_members > 0)
        bit_put(g->dirty, group->rec.mlid, true);
    group->num_members = 0;
    if (group->well_known)
        return false;
    group_remove(g, group);
    return true;
}

/* OpenSM keys members by the network-order GUID: a little-endian host walks them in the order
 * of the byte-swapped GUIDs. */
static uint64_t member_key(uint64_t guid)
{
    return __builtin_bswap64(guid);
}

static uint32_t member_position(const struct cs_mcast_group *group, uint64_t guid, bool *found)
{
    uint64_t key = member_key(guid);
    uint32_t lo = 0, hi = group->num_members;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t k = member_key(group->members[mid].guid);
        if (k == key) {
            *found = true;
            return mid;
        }
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = false;
    return lo;
}

struct cs_mcast_member *cs_mcast_group_member(const struct cs_mcast_group *group, uint64_t guid)
{
    bool found;
    uint32_t i = member_position(group, guid, &found);
    return found ? &group->members[i] : NULL;
}

int cs_mcast_group_join(struct cs_mcast_groups *g, struct cs_mcast_group *group, uint64_t guid,
                        const uint8_t gid[16], uint8_t scope_state, bool proxy)
{
    bool found;
    uint32_t at = member_position(group, guid, &found);
    uint8_t join = scope_state & 0x0f, before = 0;
    struct cs_mcast_member *m;
    if (found) {
        m = &group->members[at];
        before = m->scope_state & 0x0f;
        m->scope_state = (uint8_t)((m->scope_state & 0xf0) | before | join);
    } else {
        struct cs_error err;
        if (cs_grow((void **)&group->members, &group->members_capacity,
                    (uint64_t)group->num_members + 1, sizeof *group->members, &err) < 0)
            return -1;
        memmove(&group->members[at + 1], &group->members[at],
                (group->num_members - at) * sizeof *group->members);
        group->num_members++;
        m = &group->members[at];
        *m = (struct cs_mcast_member){.guid = guid, .scope_state = scope_state, .proxy = proxy};
        memcpy(m->port_gid, gid, 16);
        bit_put(g->dirty, group->rec.mlid, true);
    }
    if ((join & CS_MCAST_JOIN_ANY_FULL) && !(before & CS_MCAST_JOIN_ANY_FULL))
        group->full_members++;
    return m->scope_state;
}

uint8_t cs_mcast_group_leave(struct cs_mcast_groups *g, struct cs_mcast_group *group,
                             struct cs_mcast_member *m, uint8_t join_state, bool *deleted)
{
    *deleted = false;
    uint8_t had = m->scope_state & 0x0f;
    uint8_t left = had & (uint8_t)~join_state & 0x0f;
    uint8_t after;
    /* OpenSM keeps a membership that still has the full bit, or other bits while another full
     * member holds the group up. */
    bool others_full = group->full_members > (uint32_t)((had & CS_MCAST_JOIN_ANY_FULL) != 0);
    if ((left & CS_MCAST_JOIN_ANY_FULL) || (left && others_full)) {
        m->scope_state = (uint8_t)((m->scope_state & 0xf0) | left);
        after = m->scope_state;
    } else {
        after = m->scope_state & 0xf0;
        uint32_t at = (uint32_t)(m - group->members);
        memmove(&group->members[at], &group->members[at + 1],
                (group->num_members - at - 1) * sizeof *group->members);
        group->num_members--;
        bit_put(g->dirty, group->rec.mlid, true);
    }
    if ((had & CS_MCAST_JOIN_ANY_FULL) && !(left & CS_MCAST_JOIN_ANY_FULL) &&
        --group->full_members == 0)
        *deleted = cs_mcast_group_cleanup(g, group);
    return after;
}

uint32_t cs_mcast_groups_drop_ports(struct cs_mcast_groups *g,
                                    bool (*present)(void *arg, uint64_t guid), void *arg)
{
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < g->count;) {
        struct cs_mcast_group *group = g->groups[i];
        bool deleted = false;
        for (uint32_t k = 0; k < group->num_members && !deleted;) {
            if (present(arg, group->members[k].guid)) {
                k++;
                continue;
            }
            dropped++;
            cs_mcast_group_leave(g, group, &group->members[k], 0x0f, &deleted);
        }
        if (!deleted)
            i++;
    }
    return dropped;
}

bool cs_mcast_groups_dirty(const struct cs_mcast_groups *g)
{
    for (unsigned w = 0; w < MLID_WORDS; w++)
        if (g->dirty[w])
            return true;
    return false;
}

uint32_t cs_mcast_groups_take_dirty(struct cs_mcast_groups *g, uint16_t *mlids, uint32_t max)
{
    uint32_t n = 0;
    for (unsigned w = 0; w < MLID_WORDS && n < max; w++) {
        while (g->dirty[w] && n < max) {
            unsigned b = (unsigned)__builtin_ctzll(g->dirty[w]);
            g->dirty[w] &= g->dirty[w] - 1;
            mlids[n++] = (uint16_t)(CS_MCAST_MLID_FIRST + w * BITS_PER_WORD + b);
        }
    }
    return n;
}

void cs_mcast_groups_clear_dirty(struct cs_mcast_groups *g)
{
    memset(g->dirty, 0, sizeof g->dirty);
}

void cs_mcast_groups_mark_all_dirty(struct cs_mcast_groups *g)
{
    memcpy(g->dirty, g->used, sizeof g->dirty);
}

bool cs_mcast_groups_new_mgid(struct cs_mcast_groups *g, uint8_t scope, uint64_t subnet_prefix,
                              uint8_t mgid[16])
{
    memset(mgid, 0, 16);
    mgid[0] = 0xff;
    mgid[1] = (uint8_t)(0x10 | (scope & 0x0f));
    mgid[2] = 0xa0;
    mgid[3] = 0x1b;
    for (int i = 0; i < 8; i++)
        mgid[4 + i] = (uint8_t)(subnet_prefix >> (56 - 8 * i));
    for (unsigned tries = 0; tries < CS_MCAST_MGID_TRIES; tries++) {
        uint32_t count = g->mgid_count++;
        /* OpenSM copies its counter's bytes as the host holds them (little-endian) over bytes
         * 10..13, the end of the prefix. */
        for (int i = 0; i < 4; i++)
            mgid[10 + i] = (uint8_t)(count >> (8 * i));
        if (cs_mcast_groups_find(g, mgid) == NULL)
            return true;
    }
    return false;
}

bool cs_mcast_mgid_valid(const uint8_t mgid[16])
{
    if (mgid[0] != 0xff)
        return false;
    uint16_t signature = (uint16_t)(mgid[2] << 8 | mgid[3]);
    if (signature == 0x401b || signature == 0x601b)
        return true; /* IPoIB's MGIDs are not checked further */
    if (mgid[1] & 0xe0)
        return false; /* reserved flags */
    /* 0xA01B with link-local scope is reserved for the MGIDs the SA makes itself. */
    return !(signature == 0xa01b && (mgid[1] & 0x0f) == CS_MCAST_SCOPE_LINK_LOCAL);
}
