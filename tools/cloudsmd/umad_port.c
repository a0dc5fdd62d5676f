/* libibumad transport (umad_port.h). */
#include "umad_port.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "cloudsm/pma.h"

#define QP0 0
#define QP1_QKEY 0x80010000u
#define SA_CLASS 0x03
#define SA_CLASS_VERSION 2
#define RMPP_VERSION 1
#define UMAD_BUF_MAD_BYTES 2048

/* Methods we want to receive as requests on our agents: another SM's SMInfo Get/Set and traps.
 * Replies to our own requests arrive whatever the mask says. */
static void sm_method_mask(long mask[16 / sizeof(long)])
{
    memset(mask, 0, 16);
    const unsigned methods[] = {CS_SMP_METHOD_GET, CS_SMP_METHOD_SET, CS_SMP_METHOD_TRAP};
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        unsigned bits = 8 * sizeof(long);
        mask[methods[i] / bits] |= 1L << (methods[i] % bits);
    }
}

/* Find the CA and port to use: by GUID, or the first port whose physical link is up. */
static int find_port(uint64_t want_guid, char *ca_out, size_t ca_size, int *port_out,
                     uint64_t *guid_out, uint64_t *node_guid_out, struct cs_error *err)
{
    char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
    int n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
    if (n < 0)
        return cs_fail(err, "cannot list InfiniBand devices (is ib_umad loaded?)");
    for (int c = 0; c < n; c++) {
        umad_ca_t ca;
        if (umad_get_ca(names[c], &ca) < 0)
            continue;
        for (int p = 1; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
            const umad_port_t *port = ca.ports[p];
            if (port == NULL)
                continue;
            uint64_t guid = be64toh(port->port_guid);
            bool link_up = port->phys_state == 5; /* LinkUp */
            if ((want_guid != 0 && guid == want_guid) || (want_guid == 0 && link_up)) {
                snprintf(ca_out, ca_size, "%s", ca.ca_name);
                *port_out = p;
                *guid_out = guid;
                *node_guid_out = be64toh(ca.node_guid);
                umad_release_ca(&ca);
                return 0;
            }
        }
        umad_release_ca(&ca);
    }
    if (want_guid != 0)
        return cs_fail(err, "no local InfiniBand port has GUID 0x%016llx",
                       (unsigned long long)want_guid);
    return cs_fail(err, "no local InfiniBand port has a physical link (found %d device%s)", n,
                   n == 1 ? "" : "s");
}

int umad_sm_port_open(struct umad_sm_port *p, uint64_t port_guid, int timeout_ms,
                      struct cs_error *err)
{
    memset(p, 0, sizeof(*p));
    p->portid = p->agent_dr = p->agent_lid = p->agent_sa = p->agent_pma = p->issm_fd = -1;
    p->timeout_ms = timeout_ms;
    if (umad_init() < 0)
        return cs_fail(err, "libibumad: umad_init failed");
    if (find_port(port_guid, p->ca_name, sizeof(p->ca_name), &p->port_num, &p->port_guid,
                  &p->node_guid, err) < 0)
        return -1;
    /* umad_get_mad() may sit past umad_size() (header padding), and a reply may be larger than
     * an SMP (an RMPP segment from a confused agent): leave room for both. */
    p->buf = calloc(1, umad_size() + UMAD_BUF_MAD_BYTES);
    if (p->buf == NULL)
        return cs_fail(err, "out of memory");
    p->portid = umad_open_port(p->ca_name, p->port_num);
    if (p->portid < 0) {
        cs_fail(err, "cannot open %s port %d: %s (are you root?)", p->ca_name, p->port_num,
                strerror(-p->portid));
        umad_sm_port_close(p);
        return -1;
    }
    long mask[16 / sizeof(long)];
    sm_method_mask(mask);
    p->agent_dr =
        umad_register(p->portid, CS_SMP_CLASS_DIRECTED_ROUTE, CS_SMP_CLASS_VERSION, 0, mask);
    p->agent_lid = umad_register(p->portid, CS_SMP_CLASS_LID_ROUTED, CS_SMP_CLASS_VERSION, 0, mask);
    if (p->agent_dr < 0 || p->agent_lid < 0) {
        cs_fail(err, "cannot register SMP agents on %s port %d (is another SM running here?)",
                p->ca_name, p->port_num);
        umad_sm_port_close(p);
        return -1;
    }
    /* PerfMgt: only replies to the performance manager's Gets arrive here (no method mask). */
    p->agent_pma = umad_register(p->portid, CS_PMA_CLASS, CS_PMA_CLASS_VERSION, 0, NULL);
    if (p->agent_pma < 0) {
        cs_fail(err, "cannot register a PerfMgt agent on %s port %d", p->ca_name, p->port_num);
        umad_sm_port_close(p);
        return -1;
    }
    char issm[256];
    if (umad_get_issm_path(p->ca_name, p->port_num, issm, sizeof(issm)) < 0 ||
        (p->issm_fd = open(issm, O_RDWR)) < 0) {
        cs_fail(err, "cannot claim the SM role on %s port %d (%s): %s", p->ca_name, p->port_num,
                issm, strerror(errno));
        umad_sm_port_close(p);
        return -1;
    }
    return 0;
}

void umad_sm_port_leave(struct umad_sm_port *p)
{
    p->portid = -1; /* left open: see umad_port.h */
    umad_sm_port_close(p);
}

void umad_sm_port_close(struct umad_sm_port *p)
{
    if (p->issm_fd >= 0)
        close(p->issm_fd);
    if (p->portid >= 0)
        umad_close_port(p->portid);
    free(p->buf);
    free(p->sa_buf);
    p->buf = p->sa_buf = NULL;
    p->portid = p->issm_fd = -1;
}

int umad_sm_port_serve_sa(struct umad_sm_port *p, umad_gmp_handler handler, void *arg,
                          struct cs_error *err)
{
    /* SA methods a client sends: Get, Set, GetTable, GetTraceTable, GetMulti, Delete. */
    long mask[16 / sizeof(long)];
    memset(mask, 0, sizeof(mask));
    const unsigned methods[] = {0x01, 0x02, 0x12, 0x13, 0x14, 0x15};
    for (size_t i = 0; i < sizeof(methods) / sizeof(methods[0]); i++) {
        unsigned bits = 8 * sizeof(long);
        mask[methods[i] / bits] |= 1L << (methods[i] % bits);
    }
    p->agent_sa = umad_register(p->portid, SA_CLASS, SA_CLASS_VERSION, RMPP_VERSION, mask);
    if (p->agent_sa < 0)
        return cs_fail(err, "cannot register the SA class on %s port %d", p->ca_name, p->port_num);
    p->sa_answer = handler;
    p->sa_arg = arg;
    return 0;
}

/* Answer one SA request right away: SA queries must not wait behind a sweep's SMPs. */
static void answer_sa(struct umad_sm_port *p, const uint8_t *mad, size_t len)
{
    const ib_user_mad_t *hdr = p->buf;
    struct cs_sa_address from = {
        .lid = be16toh(hdr->addr.lid),
        .qpn = be32toh(hdr->addr.qpn),
        .sl = hdr->addr.sl,
        .pkey_index = hdr->addr.pkey_index,
    };
    p->sa_requests++;
    size_t reply_len = 0;
    const uint8_t *reply = p->sa_answer(p->sa_arg, mad, len, &from, &reply_len);
    if (reply == NULL || reply_len == 0)
        return;
    size_t need = umad_size() + reply_len + 64;
    if (need > p->sa_buf_size) {
        void *grown = realloc(p->sa_buf, need);
        if (grown == NULL)
            return; /* no memory for this reply: the client retries */
        p->sa_buf = grown;
        p->sa_buf_size = need;
    }
    memset(p->sa_buf, 0, umad_size());
    memcpy(umad_get_mad(p->sa_buf), reply, reply_len);
    umad_set_addr(p->sa_buf, from.lid, (int)from.qpn, from.sl, QP1_QKEY);
    umad_set_pkey(p->sa_buf, from.pkey_index);
    if (umad_send(p->portid, p->agent_sa, p->sa_buf, (int)reply_len, 0, 0) == 0)
        p->sa_replies++;
}

static int umad_transport_send(void *ctx, const uint8_t mad[CS_SMP_SIZE], uint16_t dlid,
                               struct cs_error *err)
{
    struct umad_sm_port *p = ctx;
    memcpy(umad_get_mad(p->buf), mad, CS_SMP_SIZE);
    int agent;
    if (mad[1] == CS_PMA_CLASS || mad[1] == SA_CLASS) {
        /* A GMP (a PerfMgt Get, an SA Report to a subscriber): QP1 of the node, with the QP1
         * Q_Key. Reports go to QP1 whatever QP the subscription came from: every libibumad
         * client sends from QP1, and the kernel hands the Report to its SA agent there. */
        umad_set_addr(p->buf, dlid, 1, 0, QP1_QKEY);
        agent = mad[1] == CS_PMA_CLASS ? p->agent_pma : p->agent_sa;
        if (agent < 0)
            return cs_fail(err, "no SA agent on %s port %d to send a Report with", p->ca_name,
                           p->port_num);
    } else {
        umad_set_addr(p->buf, dlid, QP0, 0, 0);
        agent = mad[1] == CS_SMP_CLASS_DIRECTED_ROUTE ? p->agent_dr : p->agent_lid;
    }
    /* A request carries the kernel timeout so that the kernel matches its reply; a response we
     * send expects nothing back. Retries are the pipe's, never the kernel's. */
    int timeout = (mad[3] & 0x80) ? 0 : p->timeout_ms;
    if (umad_send(p->portid, agent, p->buf, CS_SMP_SIZE, timeout, 0) < 0)
        return cs_fail(err, "umad_send on %s port %d failed", p->ca_name, p->port_num);
    return 0;
}

static int umad_transport_recv(void *ctx, uint8_t mad[CS_SMP_SIZE], uint16_t *slid, int timeout_ms,
                               struct cs_error *err)
{
    struct umad_sm_port *p = ctx;
    for (;;) {
        int len = UMAD_BUF_MAD_BYTES - 64;
        int rc = umad_recv(p->portid, p->buf, &len, timeout_ms);
        /* A signal (SIGHUP, SIGTERM) ends the wait early: nothing came, the loop looks at it. */
        if (rc == -ETIMEDOUT || rc == -EWOULDBLOCK || rc == -EAGAIN || rc == -EINTR ||
            (rc < 0 && errno == EINTR))
            return 0;
        if (rc < 0)
            return cs_fail(err, "umad_recv on %s port %d failed: %s", p->ca_name, p->port_num,
                           strerror(-rc));
        /* The kernel hands back a request of ours that went unanswered with status ETIMEDOUT;
         * the pipe's own timer covers it, so it is not a MAD to deliver. */
        if (umad_status(p->buf) != 0) {
            timeout_ms = 0;
            continue;
        }
        const uint8_t *got = umad_get_mad(p->buf);
        /* SA requests are answered here; a response (a subscriber's ReportResp) is the pipe's. */
        if (got[1] == SA_CLASS && !(got[3] & 0x80)) {
            if (p->sa_answer != NULL && len > 0)
                answer_sa(p, got, (size_t)len);
            return 0; /* nothing for the SMP pipe; it calls again with what is left of its wait */
        }
        memcpy(mad, got, CS_SMP_SIZE);
        const ib_user_mad_t *hdr = p->buf;
        *slid = be16toh(hdr->addr.lid);
        return 1;
    }
}

struct cs_smp_transport umad_sm_port_transport(struct umad_sm_port *p)
{
    return (struct cs_smp_transport){
        .ctx = p, .send = umad_transport_send, .recv = umad_transport_recv, .now_us = NULL};
}
