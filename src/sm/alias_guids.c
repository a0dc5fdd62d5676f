/* Alias GUIDs kept across sweeps (include/cloudsm/alias_guids.h).
 *
 * Two sorted arrays: the ports that have a table or assigned GUIDs, by port GUID, and every alias,
 * by its byte-swapped GUID (OpenSM's map order, which PathRecord answers iterate in). An alias
 * entry names its port by GUID, so that neither array points into the other and either can move.
 */
#include "cloudsm/alias_guids.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/fabric.h"
#include "cloudsm/key_index.h"
#include "cloudsm/sm.h"
#include "core/grow.h"
#include "route/osm_order.h"
#include "sm/phase.h"

#define BLOCK CS_ALIAS_GUIDS_PER_BLOCK
#define MAX_ENTRIES CS_ALIAS_MAX_ENTRIES

struct alias_port {
    uint64_t guid;
    unsigned capacity;  /* entries of the table; 0: no table */
    uint64_t *table;    /* capacity rounded up to whole blocks */
    uint64_t *assigned; /* [index] MAX_ENTRIES GUIDs the SM assigned; NULL: none yet */
    uint32_t pending;   /* blocks changed and not taken yet (capacity <= 255: 32 blocks) */
};

struct alias_entry {
    uint64_t key; /* cs_osm_map_key(alias GUID) */
    uint64_t port_guid;
    unsigned index;
};

struct cs_alias_guids {
    struct alias_port *ports; /* by guid */
    uint32_t num_ports, cap_ports;
    struct alias_entry *aliases; /* by key */
    uint32_t num_aliases, cap_aliases;
    uint32_t pending_ports;
    uint8_t assigned_byte;
    uint32_t count; /* of assigned GUIDs handed out; the next one is count + 1 */
};

struct cs_alias_guids *cs_alias_guids_create(struct cs_error *err)
{
    return cs_calloc_array(1, sizeof(struct cs_alias_guids), err);
}

static void port_free(struct alias_port *p)
{
    free(p->table);
    free(p->assigned);
}

void cs_alias_guids_destroy(struct cs_alias_guids *a)
{
    if (a == NULL)
        return;
    for (uint32_t i = 0; i < a->num_ports; i++)
        port_free(&a->ports[i]);
    free(a->ports);
    free(a->aliases);
    free(a);
}

void cs_alias_guids_set_assigned_byte(struct cs_alias_guids *a, uint8_t byte)
{
    a->assigned_byte = byte;
}

uint32_t cs_alias_guids_count(const struct cs_alias_guids *a)
{
    return a->num_aliases;
}

/* ---- Lookups ---- */

/* Where port guid is, or would be inserted. */
static uint32_t port_slot(const struct cs_alias_guids *a, uint64_t guid)
{
    return cs_lower_bound_u64(a->ports, a->num_ports, sizeof *a->ports,
                              offsetof(struct alias_port, guid), guid);
}

static struct alias_port *port_of(const struct cs_alias_guids *a, uint64_t guid)
{
    uint32_t i = port_slot(a, guid);
    return i < a->num_ports && a->ports[i].guid == guid ? &a->ports[i] : NULL;
}

static uint32_t alias_slot(const struct cs_alias_guids *a, uint64_t key)
{
    return cs_lower_bound_u64(a->aliases, a->num_aliases, sizeof *a->aliases,
                              offsetof(struct alias_entry, key), key);
}

static const struct alias_entry *alias_of(const struct cs_alias_guids *a, uint64_t guid)
{
    uint64_t key = cs_osm_map_key(guid);
    uint32_t i = alias_slot(a, key);
    return i < a->num_aliases && a->aliases[i].key == key ? &a->aliases[i] : NULL;
}

bool cs_alias_guids_find(const struct cs_alias_guids *a, uint64_t guid, uint64_t *port_guid,
                         unsigned *index)
{
    const struct alias_entry *e = guid ? alias_of(a, guid) : NULL;
    if (e == NULL)
        return false;
    *port_guid = e->port_guid;
    *index = e->index;
    return true;
}

void cs_alias_guids_at(const struct cs_alias_guids *a, uint32_t i, uint64_t *guid,
                       uint64_t *port_guid)
{
    *guid = cs_osm_map_key(a->aliases[i].key); /* the swap is its own inverse */
    *port_guid = a->aliases[i].port_guid;
}

unsigned cs_alias_guids_capacity(const struct cs_alias_guids *a, uint64_t port_guid)
{
    const struct alias_port *p = port_of(a, port_guid);
    return p ? p->capacity : 0;
}

bool cs_alias_guids_block(const struct cs_alias_guids *a, uint64_t port_guid, unsigned block,
                          uint64_t out[BLOCK])
{
    memset(out, 0, BLOCK * sizeof *out);
    const struct alias_port *p = port_of(a, port_guid);
    if (p == NULL || p->capacity == 0) {
        if (block == 0)
            out[0] = port_guid;
        return false;
    }
    for (unsigned i = 0; i < BLOCK; i++)
        if (block * BLOCK + i < p->capacity)
            out[i] = p->table[block * BLOCK + i];
    return true;
}

static int by_map_order(const void *x, const void *y)
{
    uint64_t a = cs_osm_map_key(*(const uint64_t *)x), b = cs_osm_map_key(*(const uint64_t *)y);
    return (a > b) - (a < b);
}

unsigned cs_alias_guids_port_order(const struct cs_alias_guids *a, uint64_t port_guid,
                                   uint64_t out[CS_ALIAS_MAX_ENTRIES])
{
    const struct alias_port *p = port_of(a, port_guid);
    unsigned n = 0;
    out[n++] = port_guid;
    for (unsigned i = 1; p != NULL && i < p->capacity; i++)
        if (p->table[i] != 0)
            out[n++] = p->table[i];
    if (n > 1)
        qsort(out, n, sizeof *out, by_map_order);
    return n;
}

/* ---- Changes ---- */

static unsigned blocks_of(unsigned entries)
{
    return (entries + BLOCK - 1) / BLOCK;
}

/* The record of port guid, made (without a table) if it has none. NULL on no memory. */
static struct alias_port *port_make(struct cs_alias_guids *a, uint64_t guid, struct cs_error *err)
{
    uint32_t i = port_slot(a, guid);
    if (i < a->num_ports && a->ports[i].guid == guid)
        return &a->ports[i];
    if (cs_grow((void **)&a->ports, &a->cap_ports, (uint64_t)a->num_ports + 1, sizeof *a->ports,
                err) < 0)
        return NULL;
    memmove(&a->ports[i + 1], &a->ports[i], (a->num_ports - i) * sizeof *a->ports);
    a->num_ports++;
    a->ports[i] = (struct alias_port){.guid = guid};
    return &a->ports[i];
}

int cs_alias_guids_open(struct cs_alias_guids *a, uint64_t port_guid, unsigned guid_cap,
                        struct cs_error *err)
{
    if (guid_cap == 0 || guid_cap >= MAX_ENTRIES)
        return cs_fail(err, "alias GUIDs: GUIDCap %u of port 0x%016" PRIx64 " is not 1..255",
                       guid_cap, port_guid);
    struct alias_port *p = port_make(a, port_guid, err);
    if (p == NULL)
        return -1;
    if (p->capacity != 0)
        return 0;
    p->table = cs_calloc_array((size_t)blocks_of(guid_cap) * BLOCK, sizeof *p->table, err);
    if (p->table == NULL)
        return -1;
    p->table[0] = port_guid;
    p->capacity = guid_cap;
    return 0;
}

static void mark(struct cs_alias_guids *a, struct alias_port *p, unsigned index)
{
    if (p->pending == 0)
        a->pending_ports++;
    p->pending |= UINT32_C(1) << (index / BLOCK);
}

static void alias_delete(struct cs_alias_guids *a, uint64_t guid)
{
    uint64_t key = cs_osm_map_key(guid);
    uint32_t i = alias_slot(a, key);
    if (i < a->num_aliases && a->aliases[i].key == key) {
        memmove(&a->aliases[i], &a->aliases[i + 1], (a->num_aliases - i - 1) * sizeof *a->aliases);
        a->num_aliases--;
    }
}

int cs_alias_guids_put(struct cs_alias_guids *a, uint64_t port_guid, unsigned index, uint64_t guid,
                       struct cs_error *err)
{
    struct alias_port *p = port_of(a, port_guid);
    if (p == NULL || p->capacity == 0 || index == 0 || index >= p->capacity)
        return cs_fail(err, "alias GUIDs: port 0x%016" PRIx64 " has no entry %u", port_guid, index);
    uint64_t key = cs_osm_map_key(guid);
    uint32_t at = alias_slot(a, key);
    if (guid == 0 || (at < a->num_aliases && a->aliases[at].key == key))
        return cs_fail(err, "alias GUIDs: 0x%016" PRIx64 " is 0 or registered already", guid);
    if (cs_grow((void **)&a->aliases, &a->cap_aliases, (uint64_t)a->num_aliases + 1,
                sizeof *a->aliases, err) < 0)
        return -1;
    uint64_t old = p->table[index];
    memmove(&a->aliases[at + 1], &a->aliases[at], (a->num_aliases - at) * sizeof *a->aliases);
    a->aliases[at] = (struct alias_entry){key, port_guid, index};
    a->num_aliases++;
    if (old != 0)
        alias_delete(a, old);
    p->table[index] = guid;
    mark(a, p, index);
    return 0;
}

bool cs_alias_guids_remove(struct cs_alias_guids *a, uint64_t port_guid, unsigned index)
{
    struct alias_port *p = port_of(a, port_guid);
    if (p == NULL || index == 0 || index >= p->capacity || p->table[index] == 0)
        return false;
    alias_delete(a, p->table[index]);
    p->table[index] = 0;
    mark(a, p, index);
    return true;
}

uint64_t cs_alias_guids_assigned(const struct cs_alias_guids *a, uint64_t port_guid, unsigned index)
{
    const struct alias_port *p = port_of(a, port_guid);
    return p && p->assigned && index < MAX_ENTRIES ? p->assigned[index] : 0;
}

int cs_alias_guids_assign(struct cs_alias_guids *a, uint64_t port_guid, unsigned guid_cap,
                          unsigned index, bool (*taken)(void *arg, uint64_t guid), void *arg,
                          uint64_t *guid, struct cs_error *err)
{
    if (index >= guid_cap || index >= MAX_ENTRIES)
        return cs_fail(err, "alias GUIDs: index %u beyond GUIDCap %u", index, guid_cap);
    for (unsigned tries = 0; tries < CS_ALIAS_ASSIGN_TRIES; tries++) {
        if (a->count == UINT32_MAX)
            return cs_fail(err, "alias GUIDs: every assigned GUID is used up");
        uint64_t g = CS_ALIAS_OUI << 40 | (uint64_t)a->assigned_byte << 32 | ++a->count;
        if (alias_of(a, g) != NULL || (taken && taken(arg, g)))
            continue;
        struct alias_port *p = port_make(a, port_guid, err);
        if (p == NULL)
            return -1;
        if (p->assigned == NULL) {
            p->assigned = cs_calloc_array(MAX_ENTRIES, sizeof *p->assigned, err);
            if (p->assigned == NULL)
                return -1;
        }
        p->assigned[index] = g;
        *guid = g;
        return 1;
    }
    return 0;
}

/* ---- The SM's side ---- */

bool cs_alias_guids_pending(const struct cs_alias_guids *a)
{
    return a->pending_ports != 0;
}

bool cs_alias_guids_take(struct cs_alias_guids *a, uint64_t *port_guid, unsigned *block,
                         uint64_t guids[BLOCK])
{
    for (uint32_t i = 0; i < a->num_ports && a->pending_ports; i++) {
        struct alias_port *p = &a->ports[i];
        if (p->pending == 0)
            continue;
        unsigned b = (unsigned)__builtin_ctz(p->pending);
        p->pending &= p->pending - 1;
        if (p->pending == 0)
            a->pending_ports--;
        *port_guid = p->guid;
        *block = b;
        cs_alias_guids_block(a, p->guid, b, guids);
        return true;
    }
    return false;
}

/* Drop entries index.. of port p's table (all of its aliases with from = 1). */
static uint32_t drop_entries(struct cs_alias_guids *a, struct alias_port *p, unsigned from)
{
    uint32_t dropped = 0;
    for (unsigned i = from; i < p->capacity; i++)
        if (p->table[i] != 0) {
            alias_delete(a, p->table[i]);
            p->table[i] = 0;
            dropped++;
        }
    return dropped;
}

static void table_drop(struct cs_alias_guids *a, struct alias_port *p)
{
    if (p->pending != 0)
        a->pending_ports--;
    p->pending = 0;
    free(p->table);
    p->table = NULL;
    p->capacity = 0;
}

uint32_t cs_alias_guids_sync(struct cs_alias_guids *a, const struct cs_sm_sweep *s,
                             const struct cs_log *log)
{
    uint32_t dropped = 0;
    for (uint32_t i = 0; i < a->num_ports; i++) {
        struct alias_port *p = &a->ports[i];
        if (p->capacity == 0)
            continue;
        uint32_t slot = cs_sm_sweep_end_port_by_guid(s, p->guid);
        uint32_t n = 0;
        if (slot == CS_NONE) {
            n = drop_entries(a, p, 1);
            table_drop(a, p);
            cs_logf(log, CS_LOG_INFO, "alias GUIDs: port 0x%016" PRIx64 " is gone: %u dropped",
                    p->guid, n);
        } else if (s->port_info_valid[slot] && s->port_info[slot].guid_cap < p->capacity) {
            unsigned cap = s->port_info[slot].guid_cap;
            n = drop_entries(a, p, cap ? cap : 1);
            if (cap == 0) {
                table_drop(a, p);
            } else {
                bool was_pending = p->pending != 0;
                p->capacity = cap;
                p->pending &= (uint32_t)((UINT64_C(1) << blocks_of(cap)) - 1);
                if (was_pending && p->pending == 0)
                    a->pending_ports--;
            }
            cs_logf(log, CS_LOG_INFO,
                    "alias GUIDs: port 0x%016" PRIx64 " has GUIDCap %u now: %u dropped", p->guid,
                    cap, n);
        }
        dropped += n;
    }
    /* An alias that a port of this sweep has as its own GUID: the port wins. */
    for (uint32_t i = 0; i < a->num_aliases;) {
        uint64_t guid = cs_osm_map_key(a->aliases[i].key);
        if (cs_sm_sweep_end_port_by_guid(s, guid) == CS_NONE) {
            i++;
            continue;
        }
        struct alias_port *p = port_of(a, a->aliases[i].port_guid);
        cs_logf(log, CS_LOG_INFO,
                "alias GUIDs: 0x%016" PRIx64 " of port 0x%016" PRIx64
                " is a port's own GUID now: dropped",
                guid, p->guid);
        cs_alias_guids_remove(a, p->guid, a->aliases[i].index);
        dropped++;
    }
    /* Ports with neither a table nor assigned GUIDs need no record. */
    uint32_t kept = 0;
    for (uint32_t i = 0; i < a->num_ports; i++) {
        if (a->ports[i].capacity == 0 && a->ports[i].assigned == NULL) {
            port_free(&a->ports[i]);
            continue;
        }
        a->ports[kept++] = a->ports[i];
    }
    a->num_ports = kept;
    return dropped;
}
