/* A management client's port through libibumad (umad_client.h). */
#include "umad_client.h"

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/umad.h>

#include "cloudsm/clock.h"
#include "cloudsm/pma.h"
#include "cloudsm/sa.h"
#include "cloudsm/smp.h"

#define QP0 0
#define QP1 1
#define QP1_QKEY 0x80010000u
#define RMPP_VERSION 1
#define INITIAL_RECV_BYTES 2048
/* umad_get_mad() may sit past umad_size() (header padding, the old user_mad ABI): every buffer
 * keeps this much room beyond the MAD bytes it is meant for. */
#define SLACK 64

int umad_client_open(struct umad_client *c, const char *ca_name, int port_num, unsigned flags,
                     int timeout_ms, struct cs_error *err)
{
    memset(c, 0, sizeof *c);
    c->portid = c->agent_sa = c->agent_lid = c->agent_dr = c->agent_pma = -1;
    c->timeout_ms = timeout_ms;
    c->next_tid = 1;
    if (umad_init() < 0)
        return cs_fail(err, "libibumad: umad_init failed (is ib_umad loaded?)");
    umad_port_t port;
    if (umad_get_port(ca_name, port_num, &port) < 0) {
        if (ca_name)
            return cs_fail(err, "no InfiniBand port %s:%d", ca_name, port_num);
        return cs_fail(err, "no active local InfiniBand port (is ib_umad loaded?)");
    }
    snprintf(c->ca_name, sizeof c->ca_name, "%s", port.ca_name);
    c->port_num = port.portnum;
    c->port_guid = be64toh(port.port_guid);
    c->lid = (uint16_t)port.base_lid;
    c->lmc = (uint8_t)port.lmc;
    c->sm_lid = (uint16_t)port.sm_lid;
    c->sm_sl = (uint8_t)port.sm_sl;
    c->subnet_prefix = be64toh(port.gid_prefix);
    umad_release_port(&port);

    c->send_buf = calloc(1, umad_size() + CS_SA_MAD_SIZE + SLACK);
    c->recv_cap = INITIAL_RECV_BYTES;
    c->recv_buf = calloc(1, umad_size() + c->recv_cap + SLACK);
    if (!c->send_buf || !c->recv_buf) {
        umad_client_close(c);
        return cs_fail(err, "out of memory");
    }
    c->portid = umad_open_port(c->ca_name, c->port_num);
    if (c->portid < 0) {
        cs_fail(err, "cannot open %s port %d: %s (are you root?)", c->ca_name, c->port_num,
                strerror(-c->portid));
        umad_client_close(c);
        return -1;
    }
    /* Replies to ours arrive regardless of the method mask; the only requests a client takes
     * are the Reports of its event subscriptions (SubnAdmReport, method 0x06). */
    long reports[16 / sizeof(long)] = {0};
    reports[CS_SA_METHOD_REPORT / (8 * sizeof(long))] |=
        1L << (CS_SA_METHOD_REPORT % (8 * sizeof(long)));
    c->agent_sa = umad_register(c->portid, CS_SA_CLASS, CS_SA_CLASS_VERSION, RMPP_VERSION,
                                (flags & UMAD_CLIENT_REPORTS) ? reports : NULL);
    if (c->agent_sa < 0) {
        cs_fail(err, "cannot register a SubnAdm agent on %s port %d", c->ca_name, c->port_num);
        umad_client_close(c);
        return -1;
    }
    if (flags & UMAD_CLIENT_SMP) {
        c->agent_lid =
            umad_register(c->portid, CS_SMP_CLASS_LID_ROUTED, CS_SMP_CLASS_VERSION, 0, NULL);
        c->agent_dr =
            umad_register(c->portid, CS_SMP_CLASS_DIRECTED_ROUTE, CS_SMP_CLASS_VERSION, 0, NULL);
        if (c->agent_lid < 0 || c->agent_dr < 0) {
            cs_fail(err, "cannot register SMP agents on %s port %d", c->ca_name, c->port_num);
            umad_client_close(c);
            return -1;
        }
    }
    if (flags & UMAD_CLIENT_PMA) {
        c->agent_pma = umad_register(c->portid, CS_PMA_CLASS, CS_PMA_CLASS_VERSION, 0, NULL);
        if (c->agent_pma < 0) {
            cs_fail(err, "cannot register a PerfMgt agent on %s port %d", c->ca_name, c->port_num);
            umad_client_close(c);
            return -1;
        }
    }
    return 0;
}

void umad_client_close(struct umad_client *c)
{
    if (c->portid >= 0)
        umad_close_port(c->portid);
    c->portid = -1;
    free(c->send_buf);
    free(c->recv_buf);
    c->send_buf = c->recv_buf = NULL;
}

uint32_t umad_client_tid(struct umad_client *c)
{
    return c->next_tid++;
}

static int send_mad(struct umad_client *c, int agent, const uint8_t *mad, size_t len, uint16_t dlid,
                    int qp, uint8_t sl, uint32_t qkey, struct cs_error *err)
{
    if (len > CS_SA_MAD_SIZE)
        len = CS_SA_MAD_SIZE;
    memset(c->send_buf, 0, umad_size());
    memcpy(umad_get_mad(c->send_buf), mad, len);
    umad_set_addr(c->send_buf, dlid, qp, sl, (int)qkey);
    umad_set_pkey(c->send_buf, 0);
    /* A request carries the kernel timeout so that the kernel matches its reply to us. */
    int timeout = (mad[3] & 0x80) ? 0 : c->timeout_ms;
    if (umad_send(c->portid, agent, c->send_buf, (int)len, timeout, 0) < 0)
        return cs_fail(err, "umad_send on %s port %d failed: %s", c->ca_name, c->port_num,
                       strerror(errno));
    return 0;
}

int umad_client_send_sa(struct umad_client *c, const uint8_t *mad, size_t len, struct cs_error *err)
{
    if (c->sm_lid == 0)
        return cs_fail(err, "%s port %d knows no SM (PortInfo SMLID 0): is a subnet manager up?",
                       c->ca_name, c->port_num);
    if (send_mad(c, c->agent_sa, mad, len, c->sm_lid, QP1, c->sm_sl, QP1_QKEY, err) < 0)
        return -1;
    c->sa_sent++;
    return 0;
}

int umad_client_send_smp(struct umad_client *c, const uint8_t *mad, uint16_t dlid,
                         struct cs_error *err)
{
    bool dr = mad[1] == CS_SMP_CLASS_DIRECTED_ROUTE;
    int agent = dr ? c->agent_dr : c->agent_lid;
    if (agent < 0)
        return cs_fail(err, "no SMP agent on %s port %d", c->ca_name, c->port_num);
    return send_mad(c, agent, mad, CS_SMP_SIZE, dr ? CS_SMP_PERMISSIVE_LID : dlid, QP0, 0, 0, err);
}

int umad_client_send_pma(struct umad_client *c, const uint8_t *mad, uint16_t dlid,
                         struct cs_error *err)
{
    if (c->agent_pma < 0)
        return cs_fail(err, "no PerfMgt agent on %s port %d", c->ca_name, c->port_num);
    return send_mad(c, c->agent_pma, mad, CS_PMA_MAD_SIZE, dlid, QP1, 0, QP1_QKEY, err);
}

int umad_client_recv(struct umad_client *c, const uint8_t **mad, size_t *len, uint16_t *slid,
                     int timeout_ms, struct cs_error *err)
{
    for (;;) {
        int length = (int)c->recv_cap;
        int rc = umad_recv(c->portid, c->recv_buf, &length, timeout_ms);
        if (rc == -ENOSPC || (rc < 0 && errno == ENOSPC)) {
            /* A reassembled RMPP reply longer than the buffer: the kernel keeps it and says how
             * long it is; read it again into a buffer that holds it. */
            size_t want = (size_t)length > c->recv_cap ? (size_t)length : 2 * c->recv_cap;
            void *grown = realloc(c->recv_buf, umad_size() + want + SLACK);
            if (!grown)
                return cs_fail(err, "out of memory for a %zu-byte SA reply", want);
            c->recv_buf = grown;
            c->recv_cap = want;
            continue;
        }
        if (rc == -ETIMEDOUT || rc == -EWOULDBLOCK || rc == -EAGAIN || rc == -EINTR ||
            (rc < 0 && (errno == EINTR || errno == ETIMEDOUT)))
            return 0;
        if (rc < 0)
            return cs_fail(err, "umad_recv on %s port %d failed: %s", c->ca_name, c->port_num,
                           strerror(-rc));
        /* A request of ours the kernel gave up on: our own timers cover it. */
        if (umad_status(c->recv_buf) != 0) {
            timeout_ms = 0;
            continue;
        }
        const ib_user_mad_t *hdr = c->recv_buf;
        *mad = umad_get_mad(c->recv_buf);
        *len = (size_t)length;
        if (slid)
            *slid = be16toh(hdr->addr.lid);
        return 1;
    }
}

int umad_client_refresh(struct umad_client *c, bool *sm_changed, struct cs_error *err)
{
    struct cs_smp smp;
    uint8_t wire[CS_SMP_SIZE];
    uint32_t tid = umad_client_tid(c);
    if (cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_PORT_INFO, 0, NULL, 0, tid, err) <
        0)
        return -1;
    cs_smp_encode(&smp, wire);
    if (umad_client_send_smp(c, wire, CS_SMP_PERMISSIVE_LID, err) < 0)
        return -1;
    double until = cs_clock_ms() + c->timeout_ms;
    for (;;) {
        double left = until - cs_clock_ms();
        if (left <= 0)
            return cs_fail(err, "%s port %d: no answer to a PortInfo Get of our own port",
                           c->ca_name, c->port_num);
        const uint8_t *mad;
        size_t len;
        int got = umad_client_recv(c, &mad, &len, NULL, (int)left + 1, err);
        if (got < 0)
            return -1;
        if (got == 0 || len < CS_SMP_SIZE || mad[1] != CS_SMP_CLASS_DIRECTED_ROUTE)
            continue; /* anything else that arrives meanwhile is late or not ours to keep */
        struct cs_smp reply;
        cs_smp_decode(mad, &reply);
        if ((uint32_t)reply.transaction_id != tid)
            continue;
        if (reply.status & 0x7fff)
            return cs_fail(err, "%s port %d: PortInfo Get answered status 0x%04x", c->ca_name,
                           c->port_num, reply.status);
        struct cs_smp_port_info pi;
        cs_smp_port_info_decode(reply.data, &pi);
        if (sm_changed)
            *sm_changed = pi.master_sm_lid != c->sm_lid;
        c->lid = pi.lid;
        c->lmc = pi.lmc;
        c->sm_lid = pi.master_sm_lid;
        c->sm_sl = pi.master_sm_sl;
        c->subnet_prefix = pi.subnet_prefix;
        return 0;
    }
}

static int transport_send(void *ctx, const uint8_t *mad, size_t len, struct cs_error *err)
{
    return umad_client_send_sa(ctx, mad, len, err);
}

static int transport_recv(void *ctx, const uint8_t **mad, size_t *len, int timeout_ms,
                          struct cs_error *err)
{
    return umad_client_recv(ctx, mad, len, NULL, timeout_ms, err);
}

struct cs_gmp_transport umad_client_sa_transport(struct umad_client *c)
{
    return (struct cs_gmp_transport){
        .ctx = c, .send = transport_send, .recv = transport_recv, .now_us = NULL};
}

int umad_client_ask_sa(struct umad_client *c, const uint8_t *request, int timeout_ms,
                       const uint8_t **reply, size_t *reply_len, struct cs_error *err)
{
    struct cs_sa_header want;
    cs_sa_header_decode(request, &want);
    if (umad_client_send_sa(c, request, CS_SA_MAD_SIZE, err) < 0)
        return -1;
    double end = cs_clock_ms() + timeout_ms;
    for (double now = cs_clock_ms(); now < end; now = cs_clock_ms()) {
        int got = umad_client_recv(c, reply, reply_len, NULL, (int)(end - now) + 1, err);
        if (got < 0)
            return -1;
        struct cs_sa_header h;
        if (got == 1 && *reply_len >= CS_SA_HEADER_SIZE) {
            cs_sa_header_decode(*reply, &h);
            if ((h.method & CS_SA_METHOD_RESPONSE) &&
                (uint32_t)h.transaction_id == (uint32_t)want.transaction_id)
                return 1;
        }
    }
    return 0;
}
