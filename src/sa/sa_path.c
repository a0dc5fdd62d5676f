/* PathRecord answers (IBA 15.2.5.16), computed the way OpenSM 3.3.23's osm_sa_path_record.c
 * computes them (docs/sm/sa.md lists the rules and the deliberate differences):
 *
 *   route     the LFTs from the source port toward the DLID (cs_trace_route), which must deliver
 *             to the destination port; at most 64 switches
 *   MTU, rate the minimum PortInfo:MTUCap and link rate over the ports OpenSM visits: the
 *             source port, every switch's ingress and egress port (a source switch: its port 0,
 *             not its egress port), the destination port (a destination switch: its port 0);
 *             over the reverse path too when it delivers (OpenSM takes the forward path only)
 *   lifetime  subnet_timeout, 0 on a loopback path
 *   P_Key     the requested one if both ends share it, else the first one they share in
 *             OpenSM's table order; none shared: no path
 *   reversible the reverse route (DLID = the source LID) delivers to the source
 *
 * No allocation: a route is traced into a stack array, O(hops) per LID pair. */
#include <string.h>

#include "route/osm_order.h"
#include "sa/sa_internal.h"

/* OpenSM gives up on a path through more than 64 switches (MAX_HOPS). */
#define MAX_SWITCH_HOPS 64

/* OpenSM orders rates by the data they carry after line encoding (8b/10b up to QDR, 64b/66b
 * from FDR), not by code or signalling rate: 40 Gb/s QDR (32 of data) ranks above 28 Gb/s 2x FDR
 * (27.3) and 30 Gb/s 12x SDR (24); 120 Gb/s 12x QDR (96) below 100 Gb/s 4x EDR. Measured on
 * OpenSM 3.3.23: "rate less than 100" answers 120, "less than 40" answers 28. Data rate in
 * 10 Mb/s per code. */
static unsigned rate_order(uint8_t rate)
{
    static const uint16_t data_rate[] = {
        [2] = 200,    [3] = 800,    [4] = 2400,   [5] = 400,    [6] = 1600,   [7] = 3200,
        [8] = 4800,   [9] = 6400,   [10] = 9600,  [11] = 1364,  [12] = 5455,  [13] = 10909,
        [14] = 16364, [15] = 2500,  [16] = 10000, [17] = 20000, [18] = 30000, [19] = 2727,
        [20] = 5000,  [21] = 40000, [22] = 60000,
    };
    return rate < sizeof data_rate / sizeof data_rate[0] ? data_rate[rate] : 0;
}

static bool rate_valid(uint8_t rate)
{
    return rate_order(rate) != 0;
}

/* The next rate down in that order, 0 if there is none. */
static uint8_t rate_below(uint8_t rate)
{
    uint8_t best = 0;
    for (uint8_t code = 2; code <= 22; code++)
        if (rate_order(code) < rate_order(rate) &&
            (best == 0 || rate_order(code) > rate_order(best)))
            best = code;
    return best;
}

struct path_values {
    uint8_t mtu;
    uint8_t rate;
};

static void take_port(const struct cs_sa_db *db, uint32_t port, struct path_values *v)
{
    if (db->mtu_cap[port] < v->mtu)
        v->mtu = db->mtu_cap[port];
    if (rate_order(db->rate[port]) < rate_order(v->rate))
        v->rate = db->rate[port];
}

/* The route from src toward dlid, if it delivers to dst: the minimum MTU and rate over the ports
 * OpenSM looks at. */
static bool walk(const struct cs_sa_db *db, uint32_t src, uint32_t dst, uint16_t dlid,
                 struct path_values *v)
{
    uint32_t links[MAX_SWITCH_HOPS + 2];
    struct cs_route_trace trace;
    if (cs_trace_route(&db->tracer, src, dlid, &trace, links, MAX_SWITCH_HOPS + 2, NULL) < 0 ||
        trace.outcome != CS_TRACE_DELIVERED || trace.end_port != dst ||
        trace.hops > MAX_SWITCH_HOPS + 1)
        return false;
    const struct cs_fabric *f = db->fabric;
    bool src_switch = cs_node_is_switch(&f->nodes[f->ports[src].node]);
    v->mtu = db->mtu_cap[src];
    v->rate = db->rate[src];
    for (uint32_t i = 0; i < trace.hops; i++) {
        uint32_t from = db->tracer.links.from[links[i]];
        if (i > 0 || !src_switch)
            take_port(db, from, v);
        take_port(db, f->ports[from].peer, v);
    }
    if (cs_node_is_switch(&f->nodes[f->ports[dst].node]))
        take_port(db, dst, v);
    return true;
}

struct path_query {
    const struct cs_sa_db *db;
    uint32_t requester;
    bool get;
    uint64_t mask;
    struct cs_sa_path_record want;
    struct sa_emit *emit;
};

static bool selected_mtu(const struct path_query *q, uint8_t *mtu)
{
    if (!(q->mask & CS_SA_PR_MTU_SELECTOR) || !(q->mask & CS_SA_PR_MTU))
        return true; /* a selector without its value is ignored, as OpenSM does */
    uint8_t want = q->want.mtu;
    switch (q->want.mtu_selector) {
    case CS_SA_SELECTOR_GREATER:
        return *mtu > want;
    case CS_SA_SELECTOR_LESS:
        if (*mtu >= want) {
            if (want <= 1)
                return false;
            *mtu = (uint8_t)(want - 1);
        }
        return true;
    case CS_SA_SELECTOR_EXACTLY:
        if (*mtu < want)
            return false;
        *mtu = want;
        return true;
    default:
        return true;
    }
}

static bool selected_rate(const struct path_query *q, uint8_t *rate)
{
    if (!(q->mask & CS_SA_PR_RATE_SELECTOR) || !(q->mask & CS_SA_PR_RATE))
        return true;
    uint8_t want = q->want.rate;
    unsigned have = rate_order(*rate), asked = rate_order(want);
    /* "Exactly" is taken literally for the rate (OpenSM 3.3.23 refuses a 100 Gb/s path asked for
     * exactly 40), while MTU and lifetime are lowered to the value asked for. */
    switch (q->want.rate_selector) {
    case CS_SA_SELECTOR_GREATER:
        return have > asked;
    case CS_SA_SELECTOR_LESS:
        if (have >= asked) {
            *rate = rate_below(want);
            return *rate != 0;
        }
        return true;
    case CS_SA_SELECTOR_EXACTLY:
        return have == asked;
    default:
        return true;
    }
}

static bool selected_life(const struct path_query *q, uint8_t *life)
{
    if (!(q->mask & CS_SA_PR_PACKET_LIFE_SELECTOR) || !(q->mask & CS_SA_PR_PACKET_LIFE))
        return true;
    uint8_t want = q->want.packet_life;
    switch (q->want.packet_life_selector) {
    case CS_SA_SELECTOR_GREATER:
        return *life > want;
    case CS_SA_SELECTOR_LESS:
        if (*life >= want) {
            if (want <= 1)
                return false;
            *life = (uint8_t)(want - 1);
        }
        return true;
    case CS_SA_SELECTOR_EXACTLY:
        if (*life < want)
            return false;
        *life = want;
        return true;
    default: /* smallest available: never disqualifies */
        return true;
    }
}

/* One end of a path: an end port, and the GUID its GID carries (the port's own or an alias). */
struct endpoint {
    uint32_t port;
    uint64_t guid;
};

static void gid_of(const struct cs_sa_db *db, uint64_t guid, uint8_t gid[16])
{
    cs_bits_set(gid, 0, 64, db->opt.subnet_prefix);
    cs_bits_set(gid, 64, 64, guid);
}

/* The policy's SL for the path from the port whose GUID is source to target's. */
static uint8_t policy_sl(const struct path_query *q, uint64_t source, uint64_t target)
{
    struct cs_qos_path_query pq = {
        .has_service_id = (q->mask & CS_SA_PR_SERVICE_ID) == CS_SA_PR_SERVICE_ID,
        .service_id = q->want.service_id,
        .has_pkey = (q->mask & CS_SA_PR_PKEY) != 0,
        .pkey = q->want.pkey,
        .source_guid = source,
        .target_guid = target,
    };
    return cs_qos_policy_sl(q->db->opt.qos_policy, &pq);
}

/* One LID pair of a port pair: a record, or nothing when the path does not qualify. */
static bool lid_pair(struct path_query *q, struct endpoint from, struct endpoint to, uint16_t slid,
                     uint16_t dlid, uint8_t preference)
{
    const struct cs_sa_db *db = q->db;
    uint32_t src = from.port, dst = to.port;
    struct path_values forward, reverse;
    if (!walk(db, src, dst, dlid, &forward))
        return false;
    bool reversible = walk(db, dst, src, slid, &reverse);
    struct path_values v = forward;
    if (reversible) { /* a reversible record serves both directions: the slower one counts */
        if (reverse.mtu < v.mtu)
            v.mtu = reverse.mtu;
        if (rate_order(reverse.rate) < rate_order(v.rate))
            v.rate = reverse.rate;
    }
    uint8_t life = src == dst ? 0 : db->opt.subnet_timeout;
    if (!selected_mtu(q, &v.mtu) || !selected_rate(q, &v.rate) || !selected_life(q, &life))
        return false;

    bool raw = (q->mask & CS_SA_PR_RAW_TRAFFIC) && q->want.raw_traffic;
    uint16_t pkey = 0;
    if (raw) {
        pkey = 0; /* raw packets carry no P_Key */
    } else if (q->mask & CS_SA_PR_PKEY) {
        if (!sa_share_this_pkey(db, src, dst, q->want.pkey))
            return false;
        pkey = q->want.pkey;
    } else {
        pkey = sa_common_pkey(db, src, dst);
        if (pkey == 0)
            return false; /* only between ports that share a partition */
    }
    /* The partition's SL: its traffic travels on the VL the SL2VL tables give that SL. */
    uint8_t sl = pkey ? sa_pkey_sl(db, src, dst, pkey) : 0;
    const struct cs_qos_policy *policy = db->opt.qos_policy;
    if (policy) {
        /* OpenSM's pr_rcv_get_path_parms looks the level up once per direction, with the ports
         * swapped for the reverse one: a port GUID rule can give the two different SLs, and a
         * request's SL that the reverse direction does not have makes the path one-way. */
        sl = policy_sl(q, db->fabric->ports[src].guid, db->fabric->ports[dst].guid);
        if ((q->mask & CS_SA_PR_SL) && reversible &&
            policy_sl(q, db->fabric->ports[dst].guid, db->fabric->ports[src].guid) != q->want.sl)
            reversible = false;
    }
    if ((q->mask & CS_SA_PR_REVERSIBLE) && q->want.reversible && !reversible)
        return false;
    if (q->mask & CS_SA_PR_SL) {
        /* With a policy, OpenSM refuses an SL that is not the policy's (ERR 1F1F). */
        if (policy ? q->want.sl != sl : pkey && db->opt.partition_sl && q->want.sl != sl)
            return false;
        sl = q->want.sl;
    }

    struct cs_sa_path_record r = {
        .dlid = dlid,
        .slid = slid,
        .raw_traffic = raw,
        .reserved_353 = db->opt.path_caching ? CS_SA_PATH_CACHING_FLAG : 0,
        .reversible = reversible,
        .pkey = pkey,
        .sl = sl,
        .mtu_selector = CS_SA_SELECTOR_EXACTLY,
        .mtu = v.mtu,
        .rate_selector = CS_SA_SELECTOR_EXACTLY,
        .rate = v.rate,
        .packet_life_selector = CS_SA_SELECTOR_EXACTLY,
        .packet_life = life,
        .preference = preference,
    };
    /* Parameters the SA does not choose come back as asked, so the record matches the query. */
    if (q->mask & CS_SA_PR_SERVICE_ID)
        r.service_id = q->want.service_id;
    if (q->mask & CS_SA_PR_FLOW_LABEL)
        r.flow_label = q->want.flow_label;
    if (q->mask & CS_SA_PR_HOP_LIMIT)
        r.hop_limit = q->want.hop_limit;
    if (q->mask & CS_SA_PR_TCLASS)
        r.traffic_class = q->want.traffic_class;
    if (q->mask & CS_SA_PR_QOS_CLASS)
        r.qos_class = q->want.qos_class;
    gid_of(db, to.guid, r.dgid);
    gid_of(db, from.guid, r.sgid);
    uint8_t encoded[CS_SA_PATH_RECORD_SIZE];
    cs_sa_path_record_encode(&r, encoded);
    sa_emit(q->emit, encoded);
    return true;
}

/* Every path between two ports, best first (OpenSM's preference 0 pairs, then preference 2). */
static void port_pair(struct path_query *q, struct endpoint from, struct endpoint to)
{
    const struct cs_sa_db *db = q->db;
    uint32_t src = from.port, dst = to.port;
    if (q->requester != CS_NONE &&
        (!sa_share_pkey(db, q->requester, src) || !sa_share_pkey(db, q->requester, dst)))
        return;
    if (!sa_share_pkey(db, src, dst))
        return;
    uint16_t src_base = sa_port_base_lid(db, src), dst_base = sa_port_base_lid(db, dst);
    uint8_t src_lmc = sa_port_lmc(db, src), dst_lmc = sa_port_lmc(db, dst);
    uint32_t smin = src_base, smax = src_base + (1u << (src_lmc & 7)) - 1;
    uint32_t dmin = dst_base, dmax = dst_base + (1u << (dst_lmc & 7)) - 1;
    if (q->mask & CS_SA_PR_SLID) {
        if (!sa_lid_in_range(q->want.slid, src_base, src_lmc))
            return;
        smin = smax = q->want.slid;
    }
    if (q->mask & CS_SA_PR_DLID) {
        if (!sa_lid_in_range(q->want.dlid, dst_base, dst_lmc))
            return;
        dmin = dmax = q->want.dlid;
    }
    if (src_base == 0 || dst_base == 0)
        return;
    /* A Get wants one path (IBA 1.2 erratum); NumbPath limits a GetTable. */
    uint32_t iterations = q->get                           ? 1
                          : (q->mask & CS_SA_PR_NUMB_PATH) ? q->want.numb_path
                                                           : UINT32_MAX;
    uint32_t found = 0;
    for (uint32_t s = smin, d = dmin; found < iterations && !sa_emit_done(q->emit);) {
        found += lid_pair(q, from, to, (uint16_t)s, (uint16_t)d, 0);
        if (++s > smax || ++d > dmax)
            break;
    }
    /* The rest: pairs whose offsets differ (not redundant with the ones above). */
    for (uint32_t so = 0; so <= smax - smin && found < iterations; so++)
        for (uint32_t dof = 0; dof <= dmax - dmin && found < iterations; dof++) {
            if (so == dof || sa_emit_done(q->emit))
                continue;
            found += lid_pair(q, from, to, (uint16_t)(smin + so), (uint16_t)(dmin + dof), 2);
        }
}

/* ---- Which ports: OpenSM's endpoint rules with alias GUIDs (osm_sa_path_record.c) ----
 *
 * A GID names one endpoint: an end port's own GUID or an alias of one. A LID names a port, i.e.
 * every GUID of it (its own and its aliases), in OpenSM's map order. Nothing named: every GUID of
 * every end port, in that order. Both a GID and a LID for one end must name the same port
 * (REQ_INVALID otherwise). The loops run as OpenSM's do: a named GUID against the other end's
 * set; with neither end a single GUID, the source's GUIDs outside when a SLID names them, else
 * the destination's (so the table of every pair runs destination by destination, each against
 * every source). */

/* A set of endpoints: one GUID, the GUIDs of one port, or all of them. */
struct endpoint_set {
    enum { ONE, PORT, ALL } kind;
    struct endpoint one;
    uint32_t port;
};

/* Walks a set in OpenSM's order. ALL merges the end ports' own GUIDs (db->end_port_order) with
 * the aliases of present ports, both sorted by byte-swapped GUID. */
struct endpoint_walk {
    const struct cs_sa_db *db;
    const struct endpoint_set *set;
    uint32_t next_port, next_alias; /* ALL */
    unsigned at, count;             /* PORT: guids[at .. count) */
    uint64_t guids[CS_ALIAS_MAX_ENTRIES];
};

static void walk_start(struct endpoint_walk *w, const struct cs_sa_db *db,
                       const struct endpoint_set *set)
{
    w->db = db;
    w->set = set;
    w->next_port = w->next_alias = 0;
    w->at = w->count = 0;
    if (set->kind == ONE) {
        w->count = 1;
    } else if (set->kind == PORT) {
        uint64_t guid = db->fabric->ports[set->port].guid;
        if (db->opt.aliases) {
            w->count = cs_alias_guids_port_order(db->opt.aliases, guid, w->guids);
        } else {
            w->guids[0] = guid;
            w->count = 1;
        }
    }
}

static bool walk_next(struct endpoint_walk *w, struct endpoint *out)
{
    const struct cs_sa_db *db = w->db;
    if (w->set->kind == ONE) {
        *out = w->set->one;
        return w->at++ == 0;
    }
    if (w->set->kind == PORT) {
        if (w->at >= w->count)
            return false;
        *out = (struct endpoint){w->set->port, w->guids[w->at++]};
        return true;
    }
    const struct cs_alias_guids *a = db->opt.aliases;
    uint32_t aliases = a ? cs_alias_guids_count(a) : 0;
    for (;;) {
        uint64_t alias = 0, base = 0;
        uint32_t alias_port = CS_NONE;
        if (w->next_alias < aliases) {
            cs_alias_guids_at(a, w->next_alias, &alias, &base);
            alias_port = cs_key_index_find(&db->end_port_by_guid, base);
        }
        if (w->next_port < db->num_end_ports) {
            uint32_t port = db->end_port_order[w->next_port];
            uint64_t own = db->fabric->ports[port].guid;
            if (w->next_alias >= aliases || cs_osm_map_key(own) < cs_osm_map_key(alias)) {
                w->next_port++;
                *out = (struct endpoint){port, own};
                return true;
            }
        } else if (w->next_alias >= aliases) {
            return false;
        }
        w->next_alias++;
        if (alias_port != CS_NONE) { /* an alias of a port this sweep has */
            *out = (struct endpoint){alias_port, alias};
            return true;
        }
    }
}

static bool gid_is_ours(const struct cs_sa_db *db, const uint8_t gid[16])
{
    uint64_t prefix = cs_bits_get(gid, 0, 64);
    /* link-local fe80::/10, as OpenSM's ib_gid_is_link_local */
    return (prefix & UINT64_C(0xffc0000000000000)) == UINT64_C(0xfe80000000000000) ||
           prefix == db->opt.subnet_prefix;
}

/* The set a GID and/or a LID name for one end. 0 with the set, or 1: the answer is empty (an
 * unknown GID or LID, a GID of another subnet: cloudsm knows no routers), or REQ_INVALID. */
static uint16_t endpoint_set(const struct cs_sa_db *db, uint64_t mask, uint64_t gid_bit,
                             uint64_t lid_bit, const uint8_t gid[16], uint16_t lid,
                             struct endpoint_set *set)
{
    set->kind = ALL;
    uint32_t by_lid = CS_NONE;
    if (mask & gid_bit) {
        uint64_t guid = cs_bits_get(gid, 64, 64);
        uint32_t port = gid_is_ours(db, gid) ? sa_guid_port(db, guid) : CS_NONE;
        if (port == CS_NONE)
            return 1;
        set->kind = ONE;
        set->one = (struct endpoint){port, guid};
    }
    if (mask & lid_bit) {
        by_lid = cs_tracer_owner(&db->tracer, lid);
        if (by_lid == CS_NONE)
            return 1;
        if (set->kind == ONE && set->one.port != by_lid)
            return CS_SA_STATUS_REQ_INVALID;
        if (set->kind == ALL) {
            set->kind = PORT;
            set->port = by_lid;
        }
    }
    return 0;
}

uint16_t sa_path_records(const struct cs_sa_db *db, uint32_t requester, bool get,
                         const struct cs_sa_header *h, const uint8_t *request, struct sa_emit *e)
{
    struct path_query q = {
        .db = db, .requester = requester, .get = get, .mask = h->component_mask, .emit = e};
    cs_sa_path_record_decode(request, &q.want);
    if ((q.mask & CS_SA_PR_RATE_SELECTOR) && (q.mask & CS_SA_PR_RATE) && !rate_valid(q.want.rate))
        return CS_SA_STATUS_REQ_INVALID;
    if ((q.mask & CS_SA_PR_MTU_SELECTOR) && (q.mask & CS_SA_PR_MTU) &&
        (q.want.mtu < 1 || q.want.mtu > 5))
        return CS_SA_STATUS_REQ_INVALID;
    if ((q.mask & CS_SA_PR_DGID) && q.want.dgid[0] == 0xff)
        return 0; /* a multicast group: cloudsm has none */

    struct endpoint_set src, dst;
    uint16_t s =
        endpoint_set(db, q.mask, CS_SA_PR_SGID, CS_SA_PR_SLID, q.want.sgid, q.want.slid, &src);
    if (s == 1)
        return 0;
    uint16_t d =
        endpoint_set(db, q.mask, CS_SA_PR_DGID, CS_SA_PR_DLID, q.want.dgid, q.want.dlid, &dst);
    if (d == 1)
        return 0;
    if (s != 0 || d != 0)
        return CS_SA_STATUS_REQ_INVALID;

    /* The outer loop: the source's GUIDs when a SLID names them (or the source is one GUID and
     * the destination is not), else the destination's. A Get stops at the first path. */
    bool src_outer = src.kind == PORT || (src.kind == ONE && dst.kind != ONE);
    const struct endpoint_set *outer_set = src_outer ? &src : &dst;
    const struct endpoint_set *inner_set = src_outer ? &dst : &src;
    struct endpoint_walk outer, inner;
    struct endpoint o, i;
    walk_start(&outer, db, outer_set);
    while (walk_next(&outer, &o)) {
        walk_start(&inner, db, inner_set);
        while (walk_next(&inner, &i)) {
            if (sa_emit_done(e) || (get && e->count > 0))
                return 0;
            if (src_outer)
                port_pair(&q, o, i);
            else
                port_pair(&q, i, o);
        }
    }
    return 0;
}
