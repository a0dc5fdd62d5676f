/* Peer addresses and peer list files, for the SA clients (`cloudsm pathcache`).
 *
 * A peer address names the port a client wants to reach, in one of three forms:
 *
 *     fe80::200:0:0:1       a GID (IPv6 form): subnet prefix and port GUID, or a VM's vGUID
 *     0x0010000000000101    a port GUID (0x and up to 16 hex digits); the client makes the GID
 *                           with its own port's subnet prefix
 *     lid:12  or  12        a LID, 1 to 49151 (the GID is learned from the first PathRecord)
 *
 * A peer list file holds one peer a line, as /etc/hosts holds addresses: the address, blanks,
 * then the peer's name. The name is what stays when the address changes: a client that reads
 * the file again (pathcache on SIGHUP) reaches each name at its new address, as IPoIB's ARP
 * tells RDS the new GID behind an IP address. Blank lines and `#` comments are skipped.
 *
 *     # the VM the peers keep a connection to, by its GID (subnet prefix + vGUID)
 *     fe80::200:0:0:1      vm-1
 *     0x0010000000000101   db
 *     lid:12               lb
 *
 * A name is 1 to CS_PEER_NAME_MAX - 1 printable characters without blanks or '#', and appears
 * once; two names may share an address. Errors are "name:line: what".
 */
#ifndef CLOUDSM_PEER_LIST_H
#define CLOUDSM_PEER_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"

enum cs_peer_kind { CS_PEER_GID, CS_PEER_GUID, CS_PEER_LID };

struct cs_peer_address {
    enum cs_peer_kind kind;
    uint8_t gid[16]; /* CS_PEER_GID */
    uint64_t guid;   /* CS_PEER_GUID: not 0 */
    uint16_t lid;    /* CS_PEER_LID: 1..0xbfff */
};

/* Longest address and name, with their NUL. */
#define CS_PEER_TEXT_MAX 64
#define CS_PEER_NAME_MAX 64
/* Most peers a list holds. */
#define CS_PEER_LIST_MAX 65536

/* One address (NUL-terminated text). On an error, err says what is wrong with it without
 * naming it ("a LID is 1 to 49151"), so that the caller can say where it came from. */
int cs_peer_address_parse(const char *text, struct cs_peer_address *a, struct cs_error *err);

/* Whether two addresses name the same port in the same form. */
bool cs_peer_address_equal(const struct cs_peer_address *a, const struct cs_peer_address *b);

struct cs_peer {
    char name[CS_PEER_NAME_MAX];
    char text[CS_PEER_TEXT_MAX]; /* the address as the file wrote it */
    struct cs_peer_address address;
    unsigned line;
};

struct cs_peer_list {
    struct cs_peer *peers; /* in file order */
    uint32_t count;
    uint32_t capacity;
};

void cs_peer_list_free(struct cs_peer_list *l);
/* Parse into an empty list (a failure leaves it empty). */
int cs_peer_list_parse(struct cs_peer_list *l, const char *text, size_t len, const char *name,
                       struct cs_error *err);
int cs_peer_list_read(struct cs_peer_list *l, const char *path, struct cs_error *err);
/* "ADDRESS NAME" lines, the addresses as they were written. */
int cs_peer_list_write(FILE *out, const struct cs_peer_list *l, struct cs_error *err);
/* A list read again (`next`) against the one in use (`cur`): the same names, in any order, each
 * at its address now. at[i] receives the index in next of cur's peer i. A name that only one of
 * the two lists has is an error naming it (and its line in next), O(n log n). */
int cs_peer_list_match(const struct cs_peer_list *cur, const struct cs_peer_list *next,
                       const char *next_name, uint32_t *at, struct cs_error *err);

#endif
