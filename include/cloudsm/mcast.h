/* Multicast groups: what the SA's MCMemberRecord Set (join, create) and Delete (leave) change,
 * what its Get/GetTable read, and what the SM builds spanning trees and MulticastForwardingTables
 * for (IBA 1.2.1 15.2.5.17, 14.2.5.11; OpenSM 3.3.23's osm_mgrp and osm_mcast_mgr).
 *
 * One struct cs_mcast_groups lives as long as the SM, like the alias GUID store (alias_guids.h):
 * the SA db of each sweep points to it. A group is its MCMemberRecord (the record the SA answers
 * with: MGID, MLID, Q_Key, MTU, TClass, P_Key, rate, packet lifetime, SL, FlowLabel, HopLimit,
 * scope) and its members: one per port GUID, with the port GID it joined with, its JoinState bits
 * (full, non-member, send-only) and whether a proxy joined it.
 *
 * Groups are kept in MGID order (memcmp, OpenSM's map) and members in the order of their
 * byte-swapped port GUIDs (OpenSM's map keyed by the network-order GUID, walked on a
 * little-endian host), so that whole-table answers come in OpenSM's order.
 *
 * MLIDs: 0xC000 upwards, the lowest free one (or the one a creator asks for, when free), up to
 * the last MLID every switch's MulticastFDBCap holds (cs_mcast_groups_set_mlid_limit). One group
 * per MLID. A group is deleted when its last full member leaves, unless it is well known: the
 * IPoIB broadcast group of a partition with the `ipoib` flag, and the groups partitions.conf
 * names with `mgid=`, which exist without members as long as their partition does
 * (cs_mcast_groups_sync_partitions).
 *
 * Every change of a group's set of member ports marks its MLID dirty: the SM takes the dirty
 * MLIDs (cs_mcast_groups_take_dirty), builds their trees again and writes the MFT blocks that
 * changed.
 */
#ifndef CLOUDSM_MCAST_H
#define CLOUDSM_MCAST_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/log.h"
#include "cloudsm/partitions.h"

#define CS_MCAST_MLID_FIRST 0xC000u
#define CS_MCAST_MLID_LAST 0xFFFEu /* 0xFFFF is the permissive LID */
#define CS_MCAST_MLIDS (CS_MCAST_MLID_LAST - CS_MCAST_MLID_FIRST + 1)

/* JoinState bits (IBA 15.2.5.17; send-only full member: IBA 1.3). A group lives while it has
 * a full or a send-only full member ("full" below means either), and only they create one. */
#define CS_MCAST_JOIN_FULL 0x1
#define CS_MCAST_JOIN_NON 0x2
#define CS_MCAST_JOIN_SEND_ONLY 0x4
#define CS_MCAST_JOIN_SEND_ONLY_FULL 0x8
#define CS_MCAST_JOIN_ANY_FULL (CS_MCAST_JOIN_FULL | CS_MCAST_JOIN_SEND_ONLY_FULL)

/* Scopes of a multicast GID (IBA 4.1.1). */
#define CS_MCAST_SCOPE_LINK_LOCAL 0x2

/* IPoIB's Q_Key for the broadcast group (OpenSM's OSM_IPOIB_BROADCAST_MGRP_QKEY). */
#define CS_MCAST_IPOIB_QKEY 0x0b1bu
/* OpenSM's defaults for the groups partitions.conf creates: MTU 2048, 10 Gb/s. */
#define CS_MCAST_DEFAULT_MTU 4
#define CS_MCAST_DEFAULT_RATE 3

/* MCMemberRecord (IBA 15.2.5.17): 52 bytes on the wire (sa.h has its codec). Selector fields
 * are the top two bits of mtu, rate and packet_life, as on the wire. */
struct cs_mcmember_record {
    uint8_t mgid[16];
    uint8_t port_gid[16];
    uint32_t qkey;
    uint16_t mlid;
    uint8_t mtu; /* MTUSelector (2 bits) | MTU (6 bits) */
    uint8_t tclass;
    uint16_t pkey;
    uint8_t rate;        /* RateSelector | Rate */
    uint8_t packet_life; /* PacketLifeTimeSelector | PacketLifeTime */
    uint8_t sl;          /* 4 bits */
    uint32_t flow_label; /* 20 bits */
    uint8_t hop_limit;
    uint8_t scope_state; /* Scope (4 bits) | JoinState (4 bits) */
    uint8_t proxy_join;  /* 1 bit */
};

struct cs_mcast_member {
    uint64_t guid; /* the port GUID: the interface id of the PortGID it joined with */
    uint8_t port_gid[16];
    uint8_t scope_state; /* the scope it joined with | its JoinState bits */
    bool proxy;          /* another port joined it (ProxyJoin) */
};

struct cs_mcast_group {
    struct cs_mcmember_record rec; /* the group's record; selectors of mtu, rate, life: 2 */
    bool well_known;               /* made by partitions.conf: kept without members */
    uint32_t full_members;
    struct cs_mcast_member *members; /* OpenSM's order (byte-swapped GUIDs) */
    uint32_t num_members;
    uint32_t members_capacity;
};

struct cs_mcast_groups;

struct cs_mcast_groups *cs_mcast_groups_create(struct cs_error *err);
void cs_mcast_groups_destroy(struct cs_mcast_groups *g);

/* The groups, in MGID order (valid until the next change). */
uint32_t cs_mcast_groups_count(const struct cs_mcast_groups *g);
const struct cs_mcast_group *cs_mcast_groups_at(const struct cs_mcast_groups *g, uint32_t i);
struct cs_mcast_group *cs_mcast_groups_find(struct cs_mcast_groups *g, const uint8_t mgid[16]);
const struct cs_mcast_group *cs_mcast_groups_by_mlid(const struct cs_mcast_groups *g,
                                                     uint16_t mlid);

/* The highest MLID a new group may get: 0xC000 + the smallest MulticastFDBCap - 1 (a cap of 0
 * leaves only CS_MCAST_MLID_LAST's bound). Groups above it keep their MLIDs. */
void cs_mcast_groups_set_mlid_limit(struct cs_mcast_groups *g, uint16_t last_mlid);

/* Create a group with record rec (MGID set; its MLID: rec->mlid if it is free and within the
 * limit, else the lowest free one). Returns it, or NULL with *status NO_RESOURCES (no MLID or
 * memory; status is sa.h's CS_SA_STATUS_*). The selectors of mtu, rate and packet_life become 2
 * (exactly). */
struct cs_mcast_group *cs_mcast_groups_add(struct cs_mcast_groups *g,
                                           const struct cs_mcmember_record *rec, uint16_t *status);

/* An MGID the SA makes for a creator that asked for none (OpenSM's build_new_mgid): ff1S:a01b,
 * the subnet prefix, a running count over bytes 10..13; false after CS_MCAST_MGID_TRIES counts
 * that all name groups. */
#define CS_MCAST_MGID_TRIES 1000
bool cs_mcast_groups_new_mgid(struct cs_mcast_groups *g, uint8_t scope, uint64_t subnet_prefix,
                              uint8_t mgid[16]);
/* IBA o15-0.1.5 as OpenSM checks a requested MGID: 0xff first; IPoIB's signatures (0x401b,
 * 0x601b) pass; reserved flag bits clear; not the SA's signature 0xa01b at link-local scope. */
bool cs_mcast_mgid_valid(const uint8_t mgid[16]);

/* Join: add port guid (gid, join state of scope_state, proxy) to group, or OR the JoinState bits
 * into its membership. Returns the member's scope_state after the join, -1 out of memory. */
int cs_mcast_group_join(struct cs_mcast_groups *g, struct cs_mcast_group *group, uint64_t guid,
                        const uint8_t gid[16], uint8_t scope_state, bool proxy);
/* The member of group with port GUID guid, or NULL. */
struct cs_mcast_member *cs_mcast_group_member(const struct cs_mcast_group *group, uint64_t guid);
/* Leave: clear join_state's bits of member m (OpenSM: the membership stays while it keeps the
 * full bit, or other bits while the group has another full member; else the member goes). The
 * group goes when its last full member left and it is not well known. Returns the member's
 * scope_state after the leave (its scope alone once it is gone); *deleted says whether the group
 * went (group is then invalid). */
uint8_t cs_mcast_group_leave(struct cs_mcast_groups *g, struct cs_mcast_group *group,
                             struct cs_mcast_member *m, uint8_t join_state, bool *deleted);
/* Drop a group that has no full member and is not well known (a join that failed after
 * creating it); true if it went. */
bool cs_mcast_group_cleanup(struct cs_mcast_groups *g, struct cs_mcast_group *group);

/* The groups partitions.conf asks for, as OpenSM 3.3.23 makes them: for every partition with the
 * `ipoib` flag, its IPv4 broadcast group ff1S:401b:PPPP::ffff:ffff (P_Key PPPP with the full
 * bit, Q_Key 0x0b1b unless the partition's Q_Key flag says otherwise, the partition's mtu, rate
 * (defaults 4 and 3), TClass and FlowLabel, link-local scope whatever the partition's scope flags
 * say, HopLimit 0, PacketLifeTime subnet_timeout, the partition's `sl` with QoS (qos), else 0, as
 * OpenSM); for every `mgid=` line,
 * that group with its flags on top of the partition's (but TClass), one per `scope=` flag
 * (HopLimit 0 at link-local scope, 0xff beyond). Without a file (or one
 * with no definition): the Default partition's broadcast group with the defaults. Groups made for
 * an earlier set that it no longer asks for stop being well known and go if they have no full
 * member, and so do the groups of partitions without a member in the fabric (present: the set
 * resolved against it; NULL: all are). Partitions in the order of their first definition. The
 * warnings OpenSM would log (invalid IP group parameters) go to log. Returns the number of
 * groups created. */
int cs_mcast_groups_sync_partitions(struct cs_mcast_groups *g, const struct cs_partitions *parts,
                                    const struct cs_partition_set *present, bool qos,
                                    uint8_t subnet_timeout, const struct cs_log *log,
                                    struct cs_error *err);

/* The SL a partition's header gives with OpenSM's `sl=` flag (its last valid one, as OpenSM
 * reads group flags), or -1 if it gives none. */
int cs_partition_flag_sl(const struct cs_partition *p);

/* Drop the memberships of ports whose GUID present() does not know (ports gone from the
 * fabric), as OpenSM's drop manager does. Returns the number of memberships dropped. */
uint32_t cs_mcast_groups_drop_ports(struct cs_mcast_groups *g,
                                    bool (*present)(void *arg, uint64_t guid), void *arg);

/* MLIDs whose member ports changed since the last call, ascending: up to max into mlids; returns
 * how many (the rest stay dirty). cs_mcast_groups_dirty says whether any is. */
bool cs_mcast_groups_dirty(const struct cs_mcast_groups *g);
uint32_t cs_mcast_groups_take_dirty(struct cs_mcast_groups *g, uint16_t *mlids, uint32_t max);
/* Forget the dirty MLIDs (every tree is about to be built again). */
void cs_mcast_groups_clear_dirty(struct cs_mcast_groups *g);
/* Mark every MLID in use dirty. */
void cs_mcast_groups_mark_all_dirty(struct cs_mcast_groups *g);

#endif
