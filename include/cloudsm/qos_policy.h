/* OpenSM's QoS policy file (qos-policy.conf, opensm.conf's qos_policy_file): its simplified
 * section, qos-ulps, which gives the SL of PathRecords by ULP, service ID, P_Key or port GUID.
 *
 * The section as OpenSM 3.3.23 reads it (osm_qos_parser_l.l, osm_qos_parser_y.y):
 *
 *     qos-ulps
 *         default                       : 0   # the SL of a path no rule matches (required)
 *         any, service-id 0x1000-0x10ff : 1   # ServiceIDs, ranges, comma-separated
 *         any, pkey 0x8001,0x0002       : 2   # P_Keys (membership bit ignored)
 *         any, target-port-guid G[-G]   : 3   # destination port GUIDs
 *         any, source-port-guid G[-G]   : 4   # source port GUIDs
 *         sdp                           : 5   # ServiceID 0x10000 + any port (0x10000-0x1ffff)
 *         sdp, port-num 3000-3010       : 5   # ServiceID 0x10000 + TCP port
 *         rds                           : 6   # ServiceID 0x10648ca (port 0x48ca)
 *         rds, port-num N[-M]           : 6   # ServiceID 0x1060000 + port
 *         iser                          : 7   # ServiceID 0x1060cbc (port 0x0cbc = 3260)
 *         iser, port-num N[-M]          : 7   # ServiceID 0x1060000 + port (RDS's base too)
 *         srp, target-port-guid G[-G]   : 8   # as any, target-port-guid
 *         ipoib                         : 9   # P_Key 0x7fff
 *         ipoib, pkey X[-Y]             : 9   # as any, pkey
 *     end-qos-ulps
 *
 * Blanks and line breaks between tokens do not matter, except inside a rule's name: "sdp" and
 * its ':' or ',' are separated by blanks only, as "sdp, port-num" is. '#' starts a comment to
 * the end of the line. Section keywords, "port-num", "pkey", "service-id" and the port-guid
 * words are lower case; the ULP names are any case. Numbers are C's (strtoull base 0: 0x hex, a
 * leading 0 octal), a range X-Y may be given high first. Ports numbers are 0..65535, SLs 0..15.
 *
 * Rules are tried in file order, the first that matches gives the SL, `default` only when none
 * does (wherever it stands; a second `default` replaces the first). A rule by ServiceID matches a
 * PathRecord request whose component mask has the ServiceID; by P_Key, one whose mask has the
 * P_Key (a request without one matches no P_Key rule: OpenSM's __qos_policy_get_match_rule_by_
 * params); by port GUIDs, the physical ports of the path (their own GUIDs, not alias GUIDs).
 * The policy's SLs are PathRecords' only: OpenSM 3.3.23 leaves the partitions' IPoIB groups on
 * their sl= flags.
 *
 * OpenSM's other sections (port-groups, qos-setup, qos-levels, qos-match-rules) are refused
 * with their place, not ignored: their rules would change SLs. */
#ifndef CLOUDSM_QOS_POLICY_H
#define CLOUDSM_QOS_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/partitions.h"

/* OpenSM's osm_qos_policy.h values. */
#define CS_QOS_POLICY_SDP_SERVICE_ID UINT64_C(0x0000000000010000)
#define CS_QOS_POLICY_RDS_SERVICE_ID UINT64_C(0x0000000001060000)
#define CS_QOS_POLICY_RDS_PORT 0x48ca
#define CS_QOS_POLICY_ISER_SERVICE_ID UINT64_C(0x0000000001060000)
#define CS_QOS_POLICY_ISER_PORT 0x0cbc
#define CS_QOS_POLICY_IPOIB_PKEY 0x7fff

/* What a rule looks at. sdp, rds and iser rules are ServiceID rules, srp target-port-guid ones,
 * ipoib P_Key ones: the file's words only choose the ranges. */
enum cs_qos_match {
    CS_QOS_MATCH_SERVICE_ID,
    CS_QOS_MATCH_PKEY, /* ranges hold P_Keys without the membership bit */
    CS_QOS_MATCH_TARGET_GUID,
    CS_QOS_MATCH_SOURCE_GUID,
};

struct cs_qos_range {
    uint64_t lo, hi; /* lo <= hi */
};

struct cs_qos_rule {
    enum cs_qos_match match;
    uint8_t sl;
    unsigned line;         /* where the file has it */
    bool ipoib;            /* an ipoib rule: its partitions are checked (check_partitions) */
    uint32_t first, count; /* its ranges: ranges[first .. first + count) */
};

struct cs_qos_policy {
    uint8_t default_sl;
    struct cs_qos_rule *rules; /* in file order */
    uint32_t num_rules;
    struct cs_qos_range *ranges;
    uint32_t num_ranges;
};

/* What of a PathRecord request and its path a rule can match. */
struct cs_qos_path_query {
    bool has_service_id; /* the component mask has the ServiceID (both halves) */
    uint64_t service_id;
    bool has_pkey; /* the component mask has the P_Key */
    uint16_t pkey;
    uint64_t source_guid, target_guid; /* the path's ports' own GUIDs */
};

/* Parse the file at path (plain or gzip) / the text[0, len) named name in errors. 0 with *out
 * (free it with cs_qos_policy_free), or -1 with err "name:line:col: what is wrong" and *out NULL:
 * nothing is half-read. */
int cs_qos_policy_read(const char *path, struct cs_qos_policy **out, struct cs_error *err);
int cs_qos_policy_parse(const char *text, size_t len, const char *name, struct cs_qos_policy **out,
                        struct cs_error *err);
void cs_qos_policy_free(struct cs_qos_policy *p);

/* OpenSM's check of the ipoib rules, made at every reading of the file against the partitions
 * of the fabric (osm_qos_parser_y.y's __validate_pkeys, strict for IPoIB): each P_Key an ipoib
 * rule names must be a partition with two full members or more in set, else OpenSM refuses the
 * whole file and runs without a policy. 0, or -1 with err "name:line: ..." (the rule's line). */
int cs_qos_policy_check_partitions(const struct cs_qos_policy *p, const char *name,
                                   const struct cs_partition_set *set, struct cs_error *err);

/* The index of the first rule q matches, -1 for none (the default SL applies). */
int cs_qos_policy_match(const struct cs_qos_policy *p, const struct cs_qos_path_query *q);
/* The SL of q's path: the first matching rule's, else the default. */
uint8_t cs_qos_policy_sl(const struct cs_qos_policy *p, const struct cs_qos_path_query *q);

#endif
