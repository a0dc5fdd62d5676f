/* Partition configuration: OpenSM's partitions.conf, plus cloudsm's isolation-policy flags.
 *
 *     Default=0x7fff, ipoib : ALL, SELF=full ;
 *     Victim=0x0001, isolation=phy, isolation_policy=strict :
 *         0x0002c90000001001=full, 0x0002c90000001011=full ;
 *     Rest=0x0002 : ALL_CAS=full ;
 *
 * The grammar and its meaning are OpenSM 3.3.23's (opensm/osm_prtn_config.c, osm_prtn.c):
 * `Name[=PKey][,flag[=value]]... : member, member, ... ;` with members `<PortGUID>[=full|limited|
 * both]`, `ALL`, `ALL_CAS`, `ALL_SWITCHES`, `ALL_ROUTERS`, `SELF` and `mgid=` lines; flags and
 * keywords match by prefix; the default membership is limited; a repeated PKey merges the
 * definitions; a definition without a PKey gets the next free one. Reading keeps what the file
 * says (members in order, as written); resolving applies it to a fabric as OpenSM does: the
 * Default partition (0x7fff) always starts as `ALL=limited, SELF=full` (`ALL=full` without a
 * file) and the file's definitions are applied on top, in order. docs/formats/partitions.md
 * has every rule, with the OpenSM runs that confirmed them.
 *
 * The extension (pFTree-Ext's isolation policies, FGCS 2017 Table 1) is two partition flags that
 * OpenSM ignores ("unrecognized partition flag ... - ignored"): `isolation=phy|vlane|def` per
 * partition and `isolation_policy=strict|best-effort` for the whole file.
 */
#ifndef CLOUDSM_PARTITIONS_H
#define CLOUDSM_PARTITIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"

#define CS_PKEY_DEFAULT 0x7fff  /* the Default partition */
#define CS_PKEY_FULL_BIT 0x8000 /* membership bit of a P_Key table entry; not part of the id */
#define CS_PKEY_MASK 0x7fff     /* only the low 15 bits identify a partition */
/* OpenSM keeps 32 bytes of a name (osm_prtn_t.name); longer names are refused. */
#define CS_PARTITION_NAME_MAX 31
/* Warnings kept in full (the rest are only counted). */
#define CS_PARTITION_WARNINGS_MAX 32

/* Membership as a bit set: a port is a limited member, a full member, or (allow_both_pkeys)
 * both. A member line asks for one of the three. */
enum cs_pkey_membership {
    CS_MEMBER_LIMITED = 1,
    CS_MEMBER_FULL = 2,
    CS_MEMBER_BOTH = 3,
};

/* Who a member line names. */
enum cs_member_set {
    CS_MEMBERS_GUID,         /* one port by port GUID */
    CS_MEMBERS_ALL,          /* every port OpenSM knows: CA and router ports, switch port 0 */
    CS_MEMBERS_ALL_CAS,      /* every CA port */
    CS_MEMBERS_ALL_SWITCHES, /* every switch (port 0) */
    CS_MEMBERS_ALL_ROUTERS,  /* every router port */
    CS_MEMBERS_SELF,         /* the SM's port */
};

/* pFTree-Ext's partition-wise policies, in priority order (phy > vlane > def). */
enum cs_isolation {
    CS_ISOLATION_DEF = 0,   /* best-effort isolation (the default) */
    CS_ISOLATION_VLANE = 1, /* may share links with other partitions on a separate VL only */
    CS_ISOLATION_PHY = 2,   /* shares no link with any other partition */
};

/* pFTree-Ext's global policy: what routing does when a partition's policy cannot be met. */
enum cs_isolation_policy {
    CS_ISOLATION_BEST_EFFORT = 0, /* keep routing, warn (the default) */
    CS_ISOLATION_STRICT = 1,      /* fail */
};

struct cs_partition_member {
    uint64_t guid;      /* CS_MEMBERS_GUID: the port GUID */
    uint32_t line;      /* where it is written */
    uint8_t set;        /* enum cs_member_set */
    uint8_t membership; /* enum cs_pkey_membership as written (or the defmember default) */
};

/* A multicast group to create (an `mgid=` line). Kept for writing back; cloudsm does not use it. */
struct cs_partition_mgroup {
    uint8_t mgid[16];
    uint32_t line;
    char *flags; /* the group flags after the MGID, verbatim ("sl=1,Q_Key=0xDEADBEEF"); or NULL */
};

struct cs_partition {
    char name[CS_PARTITION_NAME_MAX + 1];
    uint16_t pkey;           /* 15-bit id: as written, or generated (OpenSM's next free id) */
    uint32_t line;           /* of its first definition; 0 for Default when the file has none */
    bool ipoib;              /* create the IPoIB broadcast group */
    bool indx0;              /* put the P_Key at index 0 of the members' tables */
    uint8_t isolation;       /* enum cs_isolation */
    bool isolation_set;      /* the file says which (else def) */
    uint32_t isolation_line; /* where it says so */
    /* OpenSM's multicast-group flags of its definitions (mtu, rate, scope, Q_Key, TClass, sl,
     * FlowLabel), verbatim and comma-separated in file order; NULL if none. Kept for writing
     * back; cloudsm does not use them. */
    char *group_flags;
    struct cs_partition_member *members; /* every definition's members, in file order */
    uint32_t num_members;
    uint32_t members_capacity;
    struct cs_partition_mgroup *mgroups;
    uint32_t num_mgroups;
    uint32_t mgroups_capacity;
};

struct cs_partitions {
    /* partitions[0] is always Default (0x7fff); the rest in the order the file defines them
     * (a repeated PKey is merged into the first definition). */
    struct cs_partition *partitions;
    uint32_t count;
    uint32_t capacity;
    /* A file with at least one definition. False without a file, and for a file with none:
     * OpenSM then uses `Default=0x7fff : ALL=full ;` (an empty file is "in error; retrying with
     * default config"). */
    bool from_file;
    uint8_t policy;  /* enum cs_isolation_policy */
    bool policy_set; /* the file says which (else best-effort) */
    uint32_t policy_line;
    /* What OpenSM would log and skip (unknown flags, non-multicast MGIDs, ...), as
     * "name:line: ..." lines: the first CS_PARTITION_WARNINGS_MAX kept, all counted. */
    struct cs_error *warnings;
    uint32_t num_warnings;
    uint32_t warnings_capacity;
    uint32_t warnings_total;
};

/* The configuration without a file: Default only, ALL=full. */
int cs_partitions_init(struct cs_partitions *p, struct cs_error *err);
void cs_partitions_free(struct cs_partitions *p);

/* Parse partitions.conf text into an uninitialised p; errors are "name:line: ...". */
int cs_partitions_parse(struct cs_partitions *p, const char *text, size_t len, const char *name,
                        struct cs_error *err);
int cs_partitions_read(struct cs_partitions *p, const char *path, struct cs_error *err);

/* Write p back in the same grammar, one definition per partition (merged definitions written as
 * one), every PKey explicit, one member per line (OpenSM reads lines of at most 4095 bytes).
 * Default is written only if the file defined it. Reading the output gives the same p. */
int cs_partitions_write(FILE *out, const struct cs_partitions *p, struct cs_error *err);

/* Index in p->partitions of the partition with this 15-bit PKey, or CS_NONE. */
uint32_t cs_partitions_find(const struct cs_partitions *p, uint16_t pkey);

/* "def", "vlane", "phy"; "strict", "best-effort". */
const char *cs_isolation_name(enum cs_isolation i);
/* The isolation a name (as cs_isolation_name writes it) stands for, or -1. */
int cs_isolation_parse(const char *name);
const char *cs_isolation_policy_name(enum cs_isolation_policy p);

/* ---- Resolved against a fabric ------------------------------------------------------------- */

struct cs_partition_resolve_options {
    uint64_t sm_port_guid; /* the port SELF names; 0: none (SELF adds nobody) */
    bool allow_both_pkeys; /* OpenSM's -W: `both` makes a port full and limited member; without
                              it `both` means full */
};

struct cs_partition_port {
    uint32_t port;      /* fabric port index */
    uint8_t membership; /* CS_MEMBER_LIMITED and/or CS_MEMBER_FULL bits */
};

struct cs_resolved_partition {
    char name[CS_PARTITION_NAME_MAX + 1];
    uint16_t pkey;
    uint8_t isolation;      /* enum cs_isolation */
    uint32_t first, count;  /* its members: ports[first .. first + count), by port index */
    uint32_t full, limited; /* members with the full / limited bit */
    uint32_t config_index;  /* index in the cs_partitions it came from */
};

struct cs_partition_set {
    struct cs_resolved_partition *partitions; /* non-empty partitions, in configuration order */
    uint32_t count;
    struct cs_partition_port *ports;
    uint32_t num_ports;
    uint8_t policy;            /* enum cs_isolation_policy */
    uint32_t empty_partitions; /* dropped: no member is in the fabric (OpenSM drops them too) */
    uint32_t unknown_guids;    /* member lines naming a port GUID the fabric lacks (ignored) */
};

/* Apply p to f as OpenSM does. Members are the ports OpenSM has in its port table: connected CA
 * and router ports and switch port 0; GUIDs of other ports, or of no port, are ignored (counted).
 * opt may be NULL (no SM port, no allow_both_pkeys). */
int cs_partitions_resolve(const struct cs_partitions *p, const struct cs_fabric *f,
                          const struct cs_partition_resolve_options *opt,
                          struct cs_partition_set *out, struct cs_error *err);
void cs_partition_set_free(struct cs_partition_set *s);

/* Index in s->partitions of a PKey, or CS_NONE. */
uint32_t cs_partition_set_find(const struct cs_partition_set *s, uint16_t pkey);

/* Membership bits of a port in a resolved partition (0 if not a member); binary search. */
uint8_t cs_partition_membership(const struct cs_partition_set *s, uint32_t partition,
                                uint32_t port);

#endif
