/* A management client's port through libibumad: what `cloudsm pathcache`, `cloudsm saflood` and
 * bench/sa_flood use to talk to the SA (and, for pathcache, to probe peers with SMPs).
 *
 * It opens a local port (by CA name and port number, or libibumad's default: the first active
 * port), registers a SubnAdm agent (class 0x03, version 2, RMPP version 1, so that the kernel
 * reassembles long GetTableResps) and, when asked, agents for LID-routed and directed-route SMPs.
 * SA requests go to the SM LID and SM SL the port's PortInfo names, on QP1 with the GSI Q_Key;
 * umad_client_refresh reads that PortInfo again, live, with a directed-route Get to the local port
 * (hop count 0): under ibsim's umad2sim the sysfs copy libibumad reads is made once at start-up
 * and never changes, so an SM change shows only that way.
 *
 * Every request is handed to the kernel with a timeout (and no retries): the kernel then matches
 * the reply to its agent, and reports a request nobody answered with a non-zero status, which
 * recv skips (the caller's own timers decide). The same code runs on an HCA and, with
 * LD_PRELOAD=libumad2sim.so, on ibsim (one simulated host per process: SIM_HOST picks it).
 *
 * Tool code: prints nothing, reports errors through struct cs_error.
 */
#ifndef CLOUDSM_UMAD_CLIENT_H
#define CLOUDSM_UMAD_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sa_client.h"

#define UMAD_CLIENT_SMP 1u     /* also register SMP agents (probes, the local PortInfo) */
#define UMAD_CLIENT_PMA 2u     /* also register a PerfMgt agent (port counters) */
#define UMAD_CLIENT_REPORTS 4u /* take the SA's Reports (event subscriptions) */

struct umad_client {
    int portid;
    int agent_sa;  /* SubnAdm, QP1 */
    int agent_lid; /* LID-routed SMPs, QP0; -1 without UMAD_CLIENT_SMP */
    int agent_dr;  /* directed-route SMPs, QP0; -1 without UMAD_CLIENT_SMP */
    int agent_pma; /* PerfMgt, QP1; -1 without UMAD_CLIENT_PMA */
    char ca_name[64];
    int port_num;
    uint64_t port_guid;
    /* From the port's PortInfo (umad_client_refresh keeps them current). */
    uint16_t lid;
    uint8_t lmc;
    uint16_t sm_lid;
    uint8_t sm_sl;
    uint64_t subnet_prefix;
    int timeout_ms; /* handed to the kernel with each request */
    uint32_t next_tid;
    void *send_buf;
    void *recv_buf;
    size_t recv_cap;  /* bytes of MAD recv_buf holds, grown for long RMPP replies */
    uint64_t sa_sent; /* SA MADs sent */
};

/* Open ca_name's port port_num (NULL/0: libibumad's default). timeout_ms: the kernel's per request
 * (the longest the caller waits for any reply). */
int umad_client_open(struct umad_client *c, const char *ca_name, int port_num, unsigned flags,
                     int timeout_ms, struct cs_error *err);
void umad_client_close(struct umad_client *c);

/* Read the local PortInfo again (needs UMAD_CLIENT_SMP): LID, LMC, SM LID and SL, prefix.
 * *sm_changed (may be NULL) says whether the SM LID differs from before. */
int umad_client_refresh(struct umad_client *c, bool *sm_changed, struct cs_error *err);

/* Send one request MAD (256 bytes) to the SA. */
int umad_client_send_sa(struct umad_client *c, const uint8_t *mad, size_t len,
                        struct cs_error *err);
/* Send one SMP request (256 bytes): LID-routed to dlid, or directed route (class 0x81, dlid
 * 0xffff). Needs UMAD_CLIENT_SMP. */
int umad_client_send_smp(struct umad_client *c, const uint8_t *mad, uint16_t dlid,
                         struct cs_error *err);
/* Send one PerfMgt request (CS_PMA_MAD_SIZE bytes) to the agent at dlid. Needs
 * UMAD_CLIENT_PMA. */
int umad_client_send_pma(struct umad_client *c, const uint8_t *mad, uint16_t dlid,
                         struct cs_error *err);
/* Wait up to timeout_ms for a MAD on any of our agents: 1 with *mad (valid until the next call),
 * its length and the sender's LID, 0 if none came, -1 on a failure. A signal ends the wait early
 * (0). */
int umad_client_recv(struct umad_client *c, const uint8_t **mad, size_t *len, uint16_t *slid,
                     int timeout_ms, struct cs_error *err);

/* Send one SA request (CS_SA_MAD_SIZE bytes) and wait up to timeout_ms for the response with
 * the low 32 bits of its transaction id: 1 with *reply (valid until the next receive), 0 when
 * none came, -1 on a port failure. Other MADs that arrive meanwhile are dropped. */
int umad_client_ask_sa(struct umad_client *c, const uint8_t *request, int timeout_ms,
                       const uint8_t **reply, size_t *reply_len, struct cs_error *err);

/* The port as the SA client's transport (cs_sa_client_create): send to the SA, recv any MAD. */
struct cs_gmp_transport umad_client_sa_transport(struct umad_client *c);

/* A transaction id for an SMP of ours: the low 32 bits count up (bits 32..47 are the agent's). */
uint32_t umad_client_tid(struct umad_client *c);

#endif
