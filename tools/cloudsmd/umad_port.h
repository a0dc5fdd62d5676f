/* cloudsmd's transport: the SMP pipe (include/cloudsm/smp_pipe.h) over libibumad: SMPs on QP0,
 * the performance manager's PerfMgt GMPs and the SA's Reports to subscribers on QP1.
 *
 * The same code talks to a real HCA and, under LD_PRELOAD of ibsim's libumad2sim.so, to ibsim.
 * Only cloudsmd links libibumad; the library stays free of rdma-core.
 */
#ifndef CLOUDSMD_UMAD_PORT_H
#define CLOUDSMD_UMAD_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/sa.h"
#include "cloudsm/smp_pipe.h"

/* Answers one GMP (an SA request) from `from` (the answer goes back there, IBA 13.5.1: to the
 * requester's LID and QP, with the QP1 Q_Key): returns the response (owned by the handler, valid
 * until the next call) and its length, or NULL to send nothing. */
typedef const uint8_t *(*umad_gmp_handler)(void *arg, const uint8_t *mad, size_t len,
                                           const struct cs_sa_address *from, size_t *reply_len);

struct umad_sm_port {
    int portid;    /* libibumad port id */
    int agent_dr;  /* agent for directed-route SMPs (class 0x81) */
    int agent_lid; /* agent for LID-routed SMPs (class 0x01) */
    int agent_sa;  /* agent for SA requests (class 0x03, QP1, kernel RMPP); -1 until enabled */
    int agent_pma; /* agent for the performance manager's PerfMgt Gets (class 0x04, QP1) */
    umad_gmp_handler sa_answer;
    void *sa_arg;
    uint64_t sa_requests, sa_replies;
    void *sa_buf; /* umad buffer for SA replies, grown to the largest one */
    size_t sa_buf_size;
    int issm_fd;    /* open while we are the SM: the kernel sets PortInfo:CapabilityMask.IsSM */
    int timeout_ms; /* handed to the kernel with every request, which then reports misses */
    char ca_name[32];
    int port_num;
    uint64_t port_guid;
    uint64_t node_guid;
    void *buf; /* one umad buffer: header + 256-byte MAD */
};

/* Open the port whose GUID is port_guid, or the first port with a physical link when port_guid
 * is 0; register both SMP agents (requests from other SMs arrive on them too) and claim IsSM.
 * timeout_ms is the pipe's per-attempt timeout. */
int umad_sm_port_open(struct umad_sm_port *p, uint64_t port_guid, int timeout_ms,
                      struct cs_error *err);
void umad_sm_port_close(struct umad_sm_port *p);
/* What a process about to end does with its port: IsSM released and the buffers freed, the MAD
 * file descriptor left to the kernel, which closes it at exit. Under ibsim's libumad2sim a close
 * frees state that its reader thread may be using at that very moment (a crash at exit, seen in
 * the tests); a real port loses nothing by it. */
void umad_sm_port_leave(struct umad_sm_port *p);

/* Serve the SA on this port: register the SA class on QP1 (kernel RMPP segments long replies)
 * and hand every request that arrives to handler, from inside the transport's recv. */
int umad_sm_port_serve_sa(struct umad_sm_port *p, umad_gmp_handler handler, void *arg,
                          struct cs_error *err);

/* The transport for cs_smp_pipe_create; ctx is the port. */
struct cs_smp_transport umad_sm_port_transport(struct umad_sm_port *p);

#endif
