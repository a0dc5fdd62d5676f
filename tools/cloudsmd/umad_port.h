/* cloudsmd's transport: the SMP pipe (include/cloudsm/smp_pipe.h) over libibumad on QP0.
 *
 * The same code talks to a real HCA and, under LD_PRELOAD of ibsim's libumad2sim.so, to ibsim.
 * Only cloudsmd links libibumad; the library stays free of rdma-core.
 */
#ifndef CLOUDSMD_UMAD_PORT_H
#define CLOUDSMD_UMAD_PORT_H

#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/smp_pipe.h"

struct umad_sm_port {
    int portid;     /* libibumad port id */
    int agent_dr;   /* agent for directed-route SMPs (class 0x81) */
    int agent_lid;  /* agent for LID-routed SMPs (class 0x01) */
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

/* The transport for cs_smp_pipe_create; ctx is the port. */
struct cs_smp_transport umad_sm_port_transport(struct umad_sm_port *p);

#endif
