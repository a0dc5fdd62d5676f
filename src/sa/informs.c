/* Event subscriptions (include/cloudsm/informs.h): the InformInfo and Notice formats, the
 * subscription store (an array, newest first: a subnet has few subscribers, and OpenSM walks its
 * list for every notice too) and the outbox of Reports. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/informs.h"
#include "cloudsm/smp.h"
#include "core/grow.h"

struct cs_inform_info cs_inform_info_all(void)
{
    return (struct cs_inform_info){
        .lid_range_begin = CS_INFORM_ALL_LIDS,
        .is_generic = 1,
        .subscribe = 1,
        .type = CS_INFORM_ANY_16,
        .trap_number = CS_INFORM_ANY_16,
        .qpn = 1,
        .resp_time = 18,
        .producer_type = CS_INFORM_ANY_PRODUCER,
    };
}

void cs_inform_info_encode(const struct cs_inform_info *in, uint8_t out[CS_INFORM_INFO_SIZE])
{
    memset(out, 0, CS_INFORM_INFO_SIZE);
    memcpy(out, in->gid, 16);
    cs_bits_set(out, 128, 16, in->lid_range_begin);
    cs_bits_set(out, 144, 16, in->lid_range_end);
    out[22] = in->is_generic;
    out[23] = in->subscribe;
    cs_bits_set(out, 192, 16, in->type);
    cs_bits_set(out, 208, 16, in->trap_number);
    cs_bits_set(out, 224, 24, in->qpn & 0xffffff);
    cs_bits_set(out, 251, 5, in->resp_time & 0x1f);
    cs_bits_set(out, 264, 24, in->producer_type & 0xffffff);
}

void cs_inform_info_decode(const uint8_t in[CS_INFORM_INFO_SIZE], struct cs_inform_info *out)
{
    memcpy(out->gid, in, 16);
    out->lid_range_begin = (uint16_t)cs_bits_get(in, 128, 16);
    out->lid_range_end = (uint16_t)cs_bits_get(in, 144, 16);
    out->is_generic = in[22];
    out->subscribe = in[23];
    out->type = (uint16_t)cs_bits_get(in, 192, 16);
    out->trap_number = (uint16_t)cs_bits_get(in, 208, 16);
    out->qpn = (uint32_t)cs_bits_get(in, 224, 24);
    out->resp_time = (uint8_t)cs_bits_get(in, 251, 5);
    out->producer_type = (uint32_t)cs_bits_get(in, 264, 24);
}

void cs_notice_encode(const struct cs_notice *in, uint8_t out[CS_NOTICE_SIZE])
{
    memset(out, 0, CS_NOTICE_SIZE);
    out[0] = (uint8_t)((in->is_generic ? 0x80 : 0) | (in->type & 0x7f));
    cs_bits_set(out, 8, 24, in->producer_type & 0xffffff);
    cs_bits_set(out, 32, 16, in->trap_number);
    cs_bits_set(out, 48, 16, in->issuer_lid);
    cs_bits_set(out, 64, 1, in->toggle);
    cs_bits_set(out, 65, 15, in->count & 0x7fff);
    memcpy(out + 10, in->details, CS_NOTICE_DETAILS_SIZE);
    memcpy(out + 64, in->issuer_gid, 16);
}

void cs_notice_decode(const uint8_t in[CS_NOTICE_SIZE], struct cs_notice *out)
{
    out->is_generic = (in[0] & 0x80) != 0;
    out->type = in[0] & 0x7f;
    out->producer_type = (uint32_t)cs_bits_get(in, 8, 24);
    out->trap_number = (uint16_t)cs_bits_get(in, 32, 16);
    out->issuer_lid = (uint16_t)cs_bits_get(in, 48, 16);
    out->toggle = cs_bits_get(in, 64, 1) != 0;
    out->count = (uint16_t)cs_bits_get(in, 65, 15);
    memcpy(out->details, in + 10, CS_NOTICE_DETAILS_SIZE);
    memcpy(out->issuer_gid, in + 64, 16);
}

void cs_notice_from_sm(uint16_t trap, uint16_t sm_lid, uint64_t subnet_prefix, uint64_t sm_guid,
                       const uint8_t gid[16], struct cs_notice *out)
{
    memset(out, 0, sizeof *out);
    out->is_generic = true;
    out->type = CS_NOTICE_TYPE_SUBNET_MANAGEMENT;
    out->producer_type = CS_NOTICE_PRODUCER_CLASS_MANAGER;
    out->trap_number = trap;
    out->issuer_lid = sm_lid;
    memcpy(out->details + CS_NOTICE_DETAILS_GID_OFFSET, gid, 16);
    /* The SM initiates these traps: it is their issuer (IBA 13.4.8.2). */
    cs_bits_set(out->issuer_gid, 0, 64, subnet_prefix);
    cs_bits_set(out->issuer_gid, 64, 64, sm_guid);
}

const uint8_t *cs_notice_source_gid(const struct cs_notice *n)
{
    bool sm_trap =
        n->trap_number >= CS_TRAP_GID_IN_SERVICE && n->trap_number <= CS_TRAP_MGID_DESTROYED;
    return sm_trap ? n->details + CS_NOTICE_DETAILS_GID_OFFSET : n->issuer_gid;
}

/* ---- The store ---- */

struct cs_informs {
    struct cs_subscription *subs;
    uint32_t count, cap;
    struct cs_report *outbox;
    uint32_t pending, outbox_cap;
    uint64_t dropped;
};

struct cs_informs *cs_informs_create(struct cs_error *err)
{
    return cs_calloc_array(1, sizeof(struct cs_informs), err);
}

void cs_informs_destroy(struct cs_informs *s)
{
    if (!s)
        return;
    free(s->subs);
    free(s->outbox);
    free(s);
}

uint32_t cs_informs_count(const struct cs_informs *s)
{
    return s->count;
}

const struct cs_subscription *cs_informs_at(const struct cs_informs *s, uint32_t i)
{
    return &s->subs[i];
}

/* The LID and QP a Report goes to. OpenSM compares the whole address, P_Key index and SL too;
 * Reports go out on P_Key index 0 and SL 0 here whatever they were, and ibsim's umad2sim leaves
 * a received MAD's P_Key index unset (whatever its buffer held): with it, the same subscriber
 * would now and then be two. */
static bool same_address(const struct cs_sa_address *a, const struct cs_sa_address *b)
{
    return a->lid == b->lid && a->qpn == b->qpn;
}

static bool gid_is_zero(const uint8_t gid[16])
{
    static const uint8_t zero[16];
    return memcmp(gid, zero, 16) == 0;
}

/* OpenSM's match_inf_rec: Subscribe, the subscriber and the reserved bits are not compared. */
static bool same_subscription(const struct cs_subscription *a, const struct cs_subscription *b)
{
    const struct cs_inform_info *x = &a->info, *y = &b->info;
    if (!same_address(&a->to, &b->to))
        return false;
    if (!gid_is_zero(y->gid)) {
        if (memcmp(x->gid, y->gid, 16) != 0)
            return false;
    } else if (x->lid_range_begin != y->lid_range_begin || x->lid_range_end != y->lid_range_end) {
        return false;
    }
    return x->type == y->type && x->is_generic == y->is_generic &&
           x->trap_number == y->trap_number && x->qpn == y->qpn && x->resp_time == y->resp_time &&
           x->producer_type == y->producer_type;
}

uint32_t cs_informs_find(const struct cs_informs *s, const struct cs_subscription *like)
{
    for (uint32_t i = 0; i < s->count; i++)
        if (same_subscription(&s->subs[i], like))
            return i;
    return UINT32_MAX;
}

int cs_informs_add(struct cs_informs *s, const struct cs_subscription *sub, struct cs_error *err)
{
    if (cs_grow((void **)&s->subs, &s->cap, (uint64_t)s->count + 1, sizeof *s->subs, err) < 0)
        return -1;
    memmove(&s->subs[1], &s->subs[0], s->count * sizeof *s->subs);
    s->subs[0] = *sub;
    s->count++;
    return 0;
}

void cs_informs_replace(struct cs_informs *s, uint32_t i, const struct cs_subscription *sub)
{
    s->subs[i] = *sub;
}

void cs_informs_remove(struct cs_informs *s, uint32_t i)
{
    memmove(&s->subs[i], &s->subs[i + 1], (s->count - i - 1) * sizeof *s->subs);
    s->count--;
}

uint32_t cs_informs_drop_subscriber(struct cs_informs *s, uint64_t port_guid)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->count; i++)
        if (s->subs[i].subscriber_guid != port_guid)
            s->subs[kept++] = s->subs[i];
    uint32_t dropped = s->count - kept;
    s->count = kept;
    return dropped;
}

int cs_informs_queue_report(struct cs_informs *s, const struct cs_report *r, struct cs_error *err)
{
    if (s->pending >= CS_INFORMS_OUTBOX_MAX) {
        s->dropped++;
        return 0;
    }
    if (cs_grow((void **)&s->outbox, &s->outbox_cap, (uint64_t)s->pending + 1, sizeof *s->outbox,
                err) < 0)
        return -1;
    s->outbox[s->pending++] = *r;
    return 0;
}

uint32_t cs_informs_pending(const struct cs_informs *s)
{
    return s->pending;
}

uint32_t cs_informs_take_reports(struct cs_informs *s, struct cs_report *out, uint32_t max)
{
    uint32_t n = s->pending < max ? s->pending : max;
    if (n == 0)
        return 0;
    memcpy(out, s->outbox, n * sizeof *out);
    memmove(s->outbox, s->outbox + n, (s->pending - n) * sizeof *s->outbox);
    s->pending -= n;
    return n;
}

uint64_t cs_informs_take_dropped(struct cs_informs *s)
{
    uint64_t dropped = s->dropped;
    s->dropped = 0;
    return dropped;
}
