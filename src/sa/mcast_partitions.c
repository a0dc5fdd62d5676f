/* The multicast groups partitions.conf asks for (include/cloudsm/mcast.h,
 * cs_mcast_groups_sync_partitions): IPoIB broadcast groups and `mgid=` groups, made as OpenSM
 * 3.3.23 makes them when it reads the file (osm_prtn_config.c, osm_prtn.c). */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/mcast.h"
#include "cloudsm/sa.h"
#include "core/grow.h"

#define HOP_LIMIT_MAX 0xff

/* OpenSM's group flags: what a partition header or an mgid= line says about its groups. */
struct group_flags {
    uint8_t mtu, rate, sl, tclass;
    uint32_t qkey, flow_label;
    uint16_t scope_mask; /* bit s: a group at scope s; none: one at link-local scope */
};

/* ff12:401b:ffff::ffff:ffff, the IPv4 broadcast MGID OpenSM starts from. */
static const uint8_t ipoib_broadcast[16] = {0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0,    0,
                                            0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff};

struct text {
    const char *p;
    size_t n;
};

static struct text trim(struct text t)
{
    while (t.n && isspace((unsigned char)t.p[0]))
        t.p++, t.n--;
    while (t.n && isspace((unsigned char)t.p[t.n - 1]))
        t.n--;
    return t;
}

/* OpenSM compares a flag with strncmp(flag, word, strlen(flag)): any prefix of the word. */
static bool names(struct text flag, const char *word)
{
    return flag.n <= strlen(word) && strncmp(flag.p, word, flag.n) == 0;
}

/* strtoul(value, NULL, 0) of the token, and whether anything but trailing blanks follows. */
static unsigned long number(struct text v, bool *clean)
{
    char buf[32];
    size_t n = v.n < sizeof buf - 1 ? v.n : sizeof buf - 1;
    memcpy(buf, v.p, n);
    buf[n] = '\0';
    char *end;
    unsigned long x = strtoul(buf, &end, 0);
    *clean = end != buf && (*end == '\0' || isspace((unsigned char)*end));
    return x;
}

/* One flag, as OpenSM's parse_group_flag reads it (its quirks included: a value of 0 for mtu or
 * rate is stored before it is refused). Unknown flags are ignored (OpenSM logs them). */
static void group_flag(struct group_flags *f, struct text flag, const struct text *value)
{
    bool clean;
    if (names(flag, "mtu")) {
        if (value)
            f->mtu = (uint8_t)number(*value, &clean);
    } else if (names(flag, "rate")) {
        if (value)
            f->rate = (uint8_t)number(*value, &clean);
    } else if (names(flag, "scope")) {
        unsigned long scope = value ? number(*value, &clean) : 0;
        if (scope > 0 && scope <= 0xf)
            f->scope_mask |= (uint16_t)(1u << scope);
    } else if (names(flag, "Q_Key")) {
        if (value)
            f->qkey = (uint32_t)number(*value, &clean);
    } else if (names(flag, "TClass")) {
        if (value)
            f->tclass = (uint8_t)number(*value, &clean);
    } else if (names(flag, "sl")) {
        unsigned long sl = value && value->n ? number(*value, &clean) : 16;
        if (sl <= 15 && clean)
            f->sl = (uint8_t)sl;
    } else if (names(flag, "FlowLabel")) {
        unsigned long label = value && value->n ? number(*value, &clean) : 0x100000;
        if (label <= 0xfffff && clean)
            f->flow_label = (uint32_t)label;
    }
}

/* A comma-separated list of name[=value] flags (the verbatim text cs_partitions keeps). */
static void group_flags(struct group_flags *f, const char *text)
{
    if (text == NULL)
        return;
    while (*text) {
        const char *comma = strchr(text, ',');
        size_t len = comma ? (size_t)(comma - text) : strlen(text);
        const char *eq = memchr(text, '=', len);
        struct text flag = trim((struct text){text, eq ? (size_t)(eq - text) : len});
        struct text value = eq ? trim((struct text){eq + 1, len - (size_t)(eq + 1 - text)})
                               : (struct text){NULL, 0};
        if (flag.n)
            group_flag(f, flag, eq ? &value : NULL);
        text += len + (comma != NULL);
    }
}

#define NO_SL 0xff

int cs_partition_flag_sl(const struct cs_partition *p)
{
    struct group_flags f = {.sl = NO_SL};
    group_flags(&f, p->group_flags);
    return f.sl == NO_SL ? -1 : f.sl;
}

/* A group to make: its MGID and flags, for partition `partition`. */
struct wanted {
    uint8_t mgid[16];
    struct group_flags flags;
    uint32_t partition;
};

struct wanted_list {
    struct wanted *items;
    uint32_t count, capacity;
};

static int want(struct wanted_list *l, const uint8_t mgid[16], const struct group_flags *flags,
                uint32_t partition, struct cs_error *err)
{
    if (cs_grow((void **)&l->items, &l->capacity, (uint64_t)l->count + 1, sizeof *l->items, err) <
        0)
        return -1;
    struct wanted *w = &l->items[l->count++];
    memcpy(w->mgid, mgid, 16);
    w->flags = *flags;
    w->partition = partition;
    return 0;
}

static bool mgid_is_ip(const uint8_t mgid[16])
{
    return (mgid[2] == 0x40 || mgid[2] == 0x60) && mgid[3] == 0x1b;
}

static void put_pkey(uint8_t mgid[16], uint16_t pkey)
{
    mgid[4] = (uint8_t)(pkey >> 8);
    mgid[5] = (uint8_t)pkey;
}

static char *gid_text(const uint8_t gid[16], char buf[40])
{
    static const char hex[] = "0123456789abcdef";
    char *o = buf;
    for (int i = 0; i < 16; i++) {
        *o++ = hex[gid[i] >> 4];
        *o++ = hex[gid[i] & 15];
        if (i % 2 && i < 15)
            *o++ = ':';
    }
    *o = '\0';
    return buf;
}

/* The `mgid=` line's group (osm_prtn_config.c mgroup_create): the partition's flags but TClass,
 * then its own; IP groups must keep the partition's P_Key, rate and MTU. */
static int want_mgroup(struct wanted_list *l, const struct cs_partition *part, uint32_t index,
                       const struct group_flags *partition_flags,
                       const struct cs_partition_mgroup *mg, const struct cs_log *log,
                       struct cs_error *err)
{
    struct group_flags f = *partition_flags;
    f.tclass = 0;
    group_flags(&f, mg->flags);
    uint8_t mgid[16];
    memcpy(mgid, mg->mgid, 16);
    char buf[40];
    if (mgid_is_ip(mgid)) {
        uint16_t in_mgid = (uint16_t)(mgid[4] << 8 | mgid[5]);
        const char *bad = NULL;
        if (memcmp(mgid, ipoib_broadcast, 16) != 0 && in_mgid != 0 && in_mgid != part->pkey)
            bad = "P_Key";
        else if (f.rate != partition_flags->rate)
            bad = "rate";
        else if (f.mtu != partition_flags->mtu)
            bad = "MTU";
        if (bad) {
            cs_logf(log, CS_LOG_WARN,
                    "partitions line %u: IP multicast group %s has another %s than partition "
                    "'%s' (0x%04x): not created (as OpenSM)",
                    mg->line, gid_text(mgid, buf), bad, part->name, part->pkey);
            return 0;
        }
        put_pkey(mgid, part->pkey | 0x8000);
        if (f.qkey == 0)
            f.qkey = CS_MCAST_IPOIB_QKEY;
    }
    for (uint32_t i = 0; i < l->count; i++)
        if (memcmp(l->items[i].mgid, mgid, 16) == 0)
            return 0; /* "don't create multiple copies of the group" */
    return want(l, mgid, &f, index, err);
}

/* Partitions in the order of their first definition (partitions[0], Default, may come later in
 * the file, or not at all: line 0). */
static int by_line(const void *a, const void *b, void *arg)
{
    const struct cs_partitions *p = arg;
    uint32_t la = p->partitions[*(const uint32_t *)a].line;
    uint32_t lb = p->partitions[*(const uint32_t *)b].line;
    return la < lb ? -1 : la > lb;
}

static int wanted_groups(const struct cs_partitions *parts, bool qos, struct wanted_list *l,
                         const struct cs_log *log, struct cs_error *err)
{
    struct group_flags defaults = {.mtu = CS_MCAST_DEFAULT_MTU, .rate = CS_MCAST_DEFAULT_RATE};
    if (!parts->from_file) {
        defaults.qkey = CS_MCAST_IPOIB_QKEY;
        return want(l, ipoib_broadcast, &defaults, 0, err);
    }
    uint32_t *order = malloc(parts->count * sizeof *order);
    if (order == NULL)
        return cs_fail(err, "out of memory for the partitions' multicast groups");
    for (uint32_t i = 0; i < parts->count; i++)
        order[i] = i;
    qsort_r(order, parts->count, sizeof *order, by_line, (void *)parts);
    int rc = 0;
    for (uint32_t k = 0; k < parts->count && rc == 0; k++) {
        const struct cs_partition *part = &parts->partitions[order[k]];
        struct group_flags f = defaults;
        group_flags(&f, part->group_flags);
        if (!qos)
            f.sl = 0; /* OpenSM: a partition's SL is the default one without QoS */
        if (part->ipoib) {
            struct group_flags bf = f;
            bf.scope_mask = 0; /* OpenSM: the broadcast group takes no scope flag */
            if (bf.qkey == 0)
                bf.qkey = CS_MCAST_IPOIB_QKEY;
            uint8_t mgid[16];
            memcpy(mgid, ipoib_broadcast, 16);
            put_pkey(mgid, part->pkey | 0x8000);
            rc = want(l, mgid, &bf, order[k], err);
        }
        for (uint32_t m = 0; m < part->num_mgroups && rc == 0; m++)
            rc = want_mgroup(l, part, order[k], &f, &part->mgroups[m], log, err);
    }
    free(order);
    return rc;
}

/* The record of a group at scope `scope` (osm_prtn_add_mcgroup). */
static struct cs_mcmember_record group_record(const struct wanted *w, uint8_t scope, uint16_t pkey,
                                              uint8_t subnet_timeout)
{
    struct cs_mcmember_record r = {0};
    memcpy(r.mgid, w->mgid, 16);
    r.mgid[1] = (uint8_t)((r.mgid[1] & 0xf0) | scope);
    r.qkey = w->flags.qkey;
    r.mtu = w->flags.mtu;
    r.tclass = w->flags.tclass;
    r.pkey = pkey | 0x8000;
    r.rate = w->flags.rate;
    r.packet_life = subnet_timeout;
    r.sl = w->flags.sl;
    r.flow_label = w->flags.flow_label;
    r.hop_limit = scope == CS_MCAST_SCOPE_LINK_LOCAL ? 0 : HOP_LIMIT_MAX;
    r.scope_state = (uint8_t)(scope << 4 | CS_MCAST_JOIN_FULL);
    return r;
}

/* OpenSM makes the group only if its MTU and rate are codes the IBA has. */
static bool realizable(const struct cs_mcmember_record *r)
{
    uint8_t mtu = r->mtu & 0x3f, rate = r->rate & 0x3f;
    return mtu >= 1 && mtu <= 5 && rate >= 2 && rate <= 22;
}

int cs_mcast_groups_sync_partitions(struct cs_mcast_groups *g, const struct cs_partitions *parts,
                                    const struct cs_partition_set *present, bool qos,
                                    uint8_t subnet_timeout, const struct cs_log *log,
                                    struct cs_error *err)
{
    struct wanted_list l = {0};
    if (wanted_groups(parts, qos, &l, log, err) < 0) {
        free(l.items);
        return -1;
    }
    /* Which groups this set keeps: those of partitions with a member in the fabric (OpenSM
     * deletes the others, and their groups, after every reading of the file). */
    uint8_t(*kept_mgids)[16] = calloc((size_t)l.count * 16 + 1, 16);
    if (kept_mgids == NULL) {
        free(l.items);
        return cs_fail(err, "out of memory for the partitions' multicast groups");
    }
    uint32_t num_kept = 0;
    int created = 0;
    char buf[40];
    for (uint32_t i = 0; i < l.count; i++) {
        const struct wanted *w = &l.items[i];
        uint16_t pkey = parts->partitions[w->partition].pkey;
        bool in_fabric = present == NULL;
        for (uint32_t k = 0; present && k < present->count && !in_fabric; k++)
            in_fabric = present->partitions[k].config_index == w->partition;
        uint16_t mask = w->flags.scope_mask ? w->flags.scope_mask : 1u << CS_MCAST_SCOPE_LINK_LOCAL;
        for (uint8_t scope = 0; scope < 16; scope++) {
            if (!(mask & (1u << scope)))
                continue;
            struct cs_mcmember_record r = group_record(w, scope, pkey, subnet_timeout);
            struct cs_mcast_group *group = cs_mcast_groups_find(g, r.mgid);
            if (group == NULL) {
                if (!realizable(&r)) {
                    cs_logf(log, CS_LOG_WARN,
                            "partition '%s': multicast group %s: MTU %u or rate %u is not an IBA "
                            "code: not created (as OpenSM)",
                            parts->partitions[w->partition].name, gid_text(r.mgid, buf), r.mtu,
                            r.rate);
                    continue;
                }
                uint16_t status;
                group = cs_mcast_groups_add(g, &r, &status);
                if (group == NULL) {
                    cs_logf(log, CS_LOG_ERROR,
                            "partition '%s': multicast group %s: no MLID left (or memory)",
                            parts->partitions[w->partition].name, gid_text(r.mgid, buf));
                    continue;
                }
                created++;
            }
            group->well_known = true;
            if (in_fabric)
                memcpy(kept_mgids[num_kept++], r.mgid, 16);
        }
    }
    /* Well-known groups this set does not keep stop being well known and go unless a full
     * member holds them. */
    for (uint32_t i = 0; i < cs_mcast_groups_count(g);) {
        struct cs_mcast_group *group = (struct cs_mcast_group *)cs_mcast_groups_at(g, i);
        bool keep = !group->well_known;
        for (uint32_t k = 0; k < num_kept && !keep; k++)
            keep = memcmp(kept_mgids[k], group->rec.mgid, 16) == 0;
        if (!keep) {
            group->well_known = false;
            if (cs_mcast_group_cleanup(g, group))
                continue;
        }
        i++;
    }
    free(kept_mgids);
    free(l.items);
    return created;
}
