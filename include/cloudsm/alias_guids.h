/* Alias GUIDs: the additional port GUIDs of the IBA (1.2.1, GUIDInfo and GUIDInfoRecord) that
 * OpenSM calls alias GUIDs. A host whose HCA shares one port among its SR-IOV functions (the
 * ConnectX-3 model: one LID per port, one GID per virtual function) registers a GUID per function
 * with SubnAdmSet(GUIDInfoRecord) and removes it with SubnAdmDelete; the SM writes the port's
 * GUIDInfo table, and the SA resolves GIDs built on those GUIDs to the port.
 *
 * One struct cs_alias_guids lives as long as the SM: it is not part of the SA db, which is
 * rebuilt every sweep. The SA changes it when it answers a Set or a Delete (cs_sa_answer with
 * cs_sa_options.aliases; src/sa/sa_alias.c applies OpenSM 3.3.23's rules), the SM core writes the
 * blocks that changed into the ports (cs_sm_program_alias_guids), and after every sweep
 * cs_alias_guids_sync drops the tables of ports that are gone, as OpenSM's drop manager does.
 *
 * A port's table has PortInfo:GUIDCap entries, in blocks of 8 (the GUIDInfo attribute); entry 0
 * is the port GUID and cannot be set or deleted. A port has a table once a Set reached it (before
 * that the SA shows its GUID alone); a table of all zeros but entry 0 still counts, as in OpenSM,
 * where a Delete on a port without one is answered without looking at the block.
 *
 * GUIDs the SM assigned (a Set of GUID 0) are remembered by port GUID and index for the life of
 * the store, also while the port is away, so that a host that registers 0 again gets the same GUID
 * back (OpenSM's assigned_guids table). They are the OpenFabrics OUI 0x001405, the configured byte
 * (opensm.conf sm_assigned_guid) and a 32-bit count that starts at 1.
 *
 * Nothing goes to disk: OpenSM keeps alias GUIDs in memory unless told to dump its SA database
 * (sa_db_dump FALSE, sa_db_file unset by default), and hosts register again when the SM asks them
 * to (client reregistration) or when their port comes back.
 *
 * Order: OpenSM keeps every port GUID and every alias in one map keyed by the GUID in network byte
 * order, which a little-endian host walks in the order of the byte-swapped GUIDs; PathRecord
 * answers that iterate over ports follow it (cs_alias_guids_at gives the aliases in that order).
 * Lookups are binary searches; a Set or Delete moves the aliases after the changed one (a
 * memmove: 0.1-0.2 ms per entry with 200,000 aliases registered).
 */
#ifndef CLOUDSM_ALIAS_GUIDS_H
#define CLOUDSM_ALIAS_GUIDS_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/log.h"

#define CS_ALIAS_GUIDS_PER_BLOCK 8
#define CS_ALIAS_OUI UINT64_C(0x001405) /* OpenFabrics: the top 24 bits of an assigned GUID */
#define CS_ALIAS_ASSIGN_TRIES 1000      /* OpenSM's retries to find an unused assigned GUID */
#define CS_ALIAS_MAX_ENTRIES 256        /* a table's entries at most (GUIDCap is 8 bits) */

struct cs_alias_guids;
struct cs_sm_sweep;

struct cs_alias_guids *cs_alias_guids_create(struct cs_error *err);
void cs_alias_guids_destroy(struct cs_alias_guids *a);

/* The byte of the GUIDs the SM assigns from now on (sm_assigned_guid; 0 at creation). */
void cs_alias_guids_set_assigned_byte(struct cs_alias_guids *a, uint8_t byte);

/* Aliases registered now (entries 1.. of every table that are not 0). */
uint32_t cs_alias_guids_count(const struct cs_alias_guids *a);

/* The port guid is an alias of, and its index in that port's table. False if it is none. */
bool cs_alias_guids_find(const struct cs_alias_guids *a, uint64_t guid, uint64_t *port_guid,
                         unsigned *index);

/* Alias i (0 .. count - 1) in OpenSM's order (byte-swapped GUID ascending) and its port. */
void cs_alias_guids_at(const struct cs_alias_guids *a, uint32_t i, uint64_t *guid,
                       uint64_t *port_guid);

/* port_guid and its aliases, in OpenSM's order (byte-swapped GUID ascending): how many. */
unsigned cs_alias_guids_port_order(const struct cs_alias_guids *a, uint64_t port_guid,
                                   uint64_t out[CS_ALIAS_MAX_ENTRIES]);

/* Entries of port_guid's table: GUIDCap when the table was opened, 0 when it has none. */
unsigned cs_alias_guids_capacity(const struct cs_alias_guids *a, uint64_t port_guid);

/* Block `block` of port_guid's table into out. False when the port has no table: out is then
 * what the port holds without one, its GUID in entry 0 of block 0 and zeros elsewhere. Entries
 * beyond the table's capacity read 0. */
bool cs_alias_guids_block(const struct cs_alias_guids *a, uint64_t port_guid, unsigned block,
                          uint64_t out[CS_ALIAS_GUIDS_PER_BLOCK]);

/* ---- Changes (the SA's Set and Delete apply OpenSM's rules with these) ---- */

/* Give port_guid a table of guid_cap entries (1..255; entry 0 = port_guid) if it has none.
 * -1 with err when out of memory. */
int cs_alias_guids_open(struct cs_alias_guids *a, uint64_t port_guid, unsigned guid_cap,
                        struct cs_error *err);

/* Put guid (not 0, not an alias yet) at index (1 .. capacity - 1) of port_guid's table, in place
 * of what was there, and mark the block for programming. -1 with err on no table, an index out
 * of the table, a GUID already registered, or no memory. */
int cs_alias_guids_put(struct cs_alias_guids *a, uint64_t port_guid, unsigned index, uint64_t guid,
                       struct cs_error *err);

/* Clear index (1 .. capacity - 1) of port_guid's table and mark the block for programming; false
 * when there was nothing there (or no table). */
bool cs_alias_guids_remove(struct cs_alias_guids *a, uint64_t port_guid, unsigned index);

/* The GUID the SM assigned at (port_guid, index) before, 0 if none. */
uint64_t cs_alias_guids_assigned(const struct cs_alias_guids *a, uint64_t port_guid,
                                 unsigned index);

/* A new assigned GUID for (port_guid, index of a table of guid_cap entries): the next count, tried
 * up to CS_ALIAS_ASSIGN_TRIES times until taken(arg, guid) is false (taken says whether a port or
 * an alias has it); remembered for (port_guid, index). Returns 1 with *guid, 0 when every try was
 * taken (nothing remembered), -1 when the count is exhausted (2^32 - 1 GUIDs) or out of memory
 * (err says which). */
int cs_alias_guids_assign(struct cs_alias_guids *a, uint64_t port_guid, unsigned guid_cap,
                          unsigned index, bool (*taken)(void *arg, uint64_t guid), void *arg,
                          uint64_t *guid, struct cs_error *err);

/* ---- The SM's side ---- */

/* Whether a block changed since it was last taken. */
bool cs_alias_guids_pending(const struct cs_alias_guids *a);

/* Take one changed block (the lowest port GUID first, then the lowest block) to program:
 * its port, block number and the 8 GUIDs it holds now. False when none is left. */
bool cs_alias_guids_take(struct cs_alias_guids *a, uint64_t *port_guid, unsigned *block,
                         uint64_t guids[CS_ALIAS_GUIDS_PER_BLOCK]);

/* After a sweep: the tables of ports the sweep did not find as end ports (CA and router ports
 * it reached, switch port 0) are dropped with their aliases (OpenSM: "When a port is dropped, any
 * alias GUID registrations are removed"); a table whose port now reports another GUIDCap keeps
 * only the entries that still fit; an alias that is now a port's own GUID is dropped (the port
 * wins). Each drop is logged at INFO (one line per port). Returns the number of aliases dropped.
 * The GUIDs the SM assigned are kept. */
uint32_t cs_alias_guids_sync(struct cs_alias_guids *a, const struct cs_sm_sweep *s,
                             const struct cs_log *log);

#endif
