/* The service store (include/cloudsm/services.h): an array, newest registration first, each
 * record with the time its lease ends. Lookups are linear: a subnet has few services (OpenSM keeps
 * them in a list and walks it for every request too). */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/services.h"
#include "core/grow.h"

struct entry {
    struct cs_sa_service_record record;
    double ends_ms; /* when the lease ends; unused for an infinite lease */
};

struct cs_services {
    struct entry *entries;
    uint32_t count, cap;
};

struct cs_services *cs_services_create(struct cs_error *err)
{
    return cs_calloc_array(1, sizeof(struct cs_services), err);
}

void cs_services_destroy(struct cs_services *s)
{
    if (!s)
        return;
    free(s->entries);
    free(s);
}

static bool expired(const struct entry *e, double now_ms)
{
    return e->record.lease != CS_SA_SERVICE_LEASE_INFINITE && e->ends_ms <= now_ms;
}

void cs_services_expire(struct cs_services *s, double now_ms)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->count; i++)
        if (!expired(&s->entries[i], now_ms))
            s->entries[kept++] = s->entries[i];
    s->count = kept;
}

/* OpenSM's RID: ServiceID, ServiceGID, ServiceP_Key. */
static uint32_t find(const struct cs_services *s, const struct cs_sa_service_record *r)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const struct cs_sa_service_record *x = &s->entries[i].record;
        if (x->id == r->id && x->pkey == r->pkey && memcmp(x->gid, r->gid, sizeof x->gid) == 0)
            return i;
    }
    return UINT32_MAX;
}

int cs_services_set(struct cs_services *s, const struct cs_sa_service_record *r, double now_ms,
                    struct cs_error *err)
{
    cs_services_expire(s, now_ms);
    uint32_t i = find(s, r);
    if (i == UINT32_MAX) { /* a new one goes first, as OpenSM inserts at its list's head */
        if (cs_grow((void **)&s->entries, &s->cap, s->count + 1, sizeof *s->entries, err) < 0)
            return -1;
        memmove(&s->entries[1], &s->entries[0], s->count * sizeof *s->entries);
        s->count++;
        i = 0;
    }
    s->entries[i].record = *r;
    s->entries[i].ends_ms = now_ms + (double)r->lease * 1000.0;
    return 0;
}

int cs_services_delete(struct cs_services *s, const struct cs_sa_service_record *r, double now_ms,
                       struct cs_sa_service_record *removed)
{
    cs_services_expire(s, now_ms);
    uint32_t i = find(s, r);
    if (i == UINT32_MAX)
        return 0;
    if (removed)
        *removed = s->entries[i].record;
    memmove(&s->entries[i], &s->entries[i + 1], (s->count - i - 1) * sizeof *s->entries);
    s->count--;
    return 1;
}

uint32_t cs_services_count(const struct cs_services *s)
{
    return s->count;
}

const struct cs_sa_service_record *cs_services_at(const struct cs_services *s, uint32_t i)
{
    return &s->entries[i].record;
}
