/* The subnet manager core: what cloudsmd does to a live fabric, over an SMP pipe.
 *
 *   cs_sm_discover    heavy sweep: directed-route BFS from the SM port into a cs_fabric plus
 *                     the PortInfo/SwitchInfo each node answered (struct cs_sm_sweep)
 *   cs_sm_assign_lids LIDs from the persistent guid2lid, then deterministic new ones
 *   cs_sm_set_lids    PortInfo Sets (LID, SM LID, subnet prefix, LMC 0, M_Key lease) on CA
 *                     ports and switch port 0 that do not hold them yet
 *   cs_sm_program_lfts SwitchInfo LinearFDBTop and the LFT blocks that differ from what each
 *                     switch holds (read back once, then tracked by the caller)
 *   cs_sm_activate    every linked port INIT -> ARMED, then -> ACTIVE
 *
 * Library code: no printing. Everything worth telling an operator goes through struct cs_sm_log;
 * every phase returns its SMP counts so that cloudsmd can log them.
 */
#ifndef CLOUDSM_SM_H
#define CLOUDSM_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/lid.h"
#include "cloudsm/smp.h"
#include "cloudsm/smp_pipe.h"

enum cs_sm_log_level {
    CS_SM_LOG_ERROR = 0,
    CS_SM_LOG_WARN,
    CS_SM_LOG_INFO,
    CS_SM_LOG_DEBUG,
};

/* Where the core reports what happened. fn may be NULL (silent). */
struct cs_sm_log {
    void (*fn)(void *arg, enum cs_sm_log_level level, const char *msg);
    void *arg;
};

/* printf-style helper for the core's own files. */
void cs_sm_logf(const struct cs_sm_log *log, enum cs_sm_log_level level, const char *fmt, ...)
    CS_PRINTF(3, 4);

/* A directed route from the SM port: path[1..hops] are output ports (path[0] unused). */
struct cs_dr_path {
    uint8_t hops;
    uint8_t port[CS_SMP_PATH_SIZE];
};

/* Format "0,1,3,7" (as ibnetdiscover/smpquery -D write a DR path) into buf. */
const char *cs_dr_path_format(const struct cs_dr_path *path, char *buf, size_t size);

/* The result of a heavy sweep. fabric is the same model the offline tools use (GUIDs, links,
 * widths/speeds, descriptions; LIDs as the ports currently hold them are in port_info, not in
 * fabric, which starts without LIDs). The arrays run parallel to the fabric:
 *   port_info[p] / port_info_valid[p]  for every port slot p that was read (switch ports 0..n,
 *                                      CA ports the sweep arrived on)
 *   switch_info[n]                     for every switch node n (zeroed for others)
 *   path[n]                            the directed route the sweep reached node n by */
struct cs_sm_sweep {
    struct cs_fabric fabric;
    struct cs_smp_port_info *port_info;
    bool *port_info_valid;
    struct cs_smp_switch_info *switch_info;
    struct cs_dr_path *path;
    uint32_t sm_node;              /* node index of the SM's own node (a CA) */
    uint32_t sm_port;              /* port slot index of the SM port */
    unsigned problems;             /* inconsistent answers, unreachable nodes: each was logged */
    struct cs_smp_pipe_stats smps; /* SMPs of this sweep */
    double ms;                     /* wall time of the sweep */
};

void cs_sm_sweep_init(struct cs_sm_sweep *s);
void cs_sm_sweep_free(struct cs_sm_sweep *s);

/* Heavy sweep. Nodes that do not answer (after the pipe's retries) are left out and logged as
 * WARN with their DR path; answers that contradict each other (a GUID seen with two node types
 * or port counts, a port that reports two different peers, a CA reached through a port it says
 * is down) are logged and counted in problems, and the first consistent view wins. -1 only when
 * the SM's own node does not answer or on a transport failure. out must have been initialised
 * (cs_sm_sweep_init); what it held is freed first, and on -1 it is left empty. A node that
 * answered NodeInfo but not all of its follow-up reads stays in, with what it answered (and a
 * WARN). A CA port the sweep never arrived on has port GUID 0. Node order is breadth-first from
 * the SM port, ports ascending, whatever order the replies come in (src/sm/discover.c). */
int cs_sm_discover(struct cs_smp_pipe *pipe, const struct cs_sm_log *log, struct cs_sm_sweep *out,
                   struct cs_error *err);

/* The directed route that reaches port slot p itself (so that a PortInfo Set lands on that port):
 * a switch port through its switch, a CA port through the switch port it is cabled to (the SM's
 * own port with the empty path). False when the sweep has no route to it. */
bool cs_sm_port_path(const struct cs_sm_sweep *s, uint32_t p, struct cs_dr_path *path);

/* Give every port that needs a LID one: from guid2lid (may be NULL) first, then the LID the port
 * already holds when it is valid and free (an SM restart or another SM's assignment is not undone),
 * then the lowest free ones (lid.h's deterministic rule). Writes the LIDs into s->fabric. Returns
 * the number of ports whose LID is new or changed compared to what they hold, or -1. */
int cs_sm_assign_lids(struct cs_sm_sweep *s, const struct cs_guid2lid *guid2lid,
                      const struct cs_sm_log *log, struct cs_error *err);

/* What the SM writes into the PortInfo of CA ports and switch port 0. */
struct cs_sm_port_settings {
    uint16_t sm_lid;
    uint64_t subnet_prefix;
    uint64_t m_key;
    uint16_t m_key_lease_period;
};

/* PortInfo Sets on the ports whose LID, SM LID, subnet prefix, LMC, M_Key or lease differ from
 * the settings and s->fabric's LIDs; s->port_info is updated from the replies. Returns the number
 * of ports that refused or did not answer (each logged), or -1 on a transport failure. */
int cs_sm_set_lids(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                   const struct cs_sm_port_settings *settings, const struct cs_sm_log *log,
                   struct cs_error *err);

/* Program the switches with want (a set made for s->fabric by cs_lfts_for_fabric): SwitchInfo
 * LinearFDBTop where it differs, then the LFT blocks that differ from what the switch holds.
 * held describes what the switches hold: NULL means "unknown", and then each block a switch
 * holds (at or below its LinearFDBTop) is read back once and compared; blocks above it are
 * written without reading. held, when given, must be a set for the same switches in the same
 * order and at least as many LIDs as want (else -1: a fabric that changed shape needs a read-back).
 * On return (0), the counts are filled and held has been updated to what the switches now hold. */
struct cs_sm_lft_counts {
    uint64_t blocks_read;
    uint64_t blocks_sent;
    uint64_t switch_info_sets;
    unsigned failures; /* SMPs refused or unanswered, each logged */
};
int cs_sm_program_lfts(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_lfts *want,
                       struct cs_lfts *held, const struct cs_sm_log *log,
                       struct cs_sm_lft_counts *counts, struct cs_error *err);

/* Bring every linked port that is INIT to ARMED, then every ARMED one to ACTIVE (IBA 7.2: a port
 * goes ARMED -> ACTIVE only after its neighbour left INIT, so the two steps are two rounds).
 * *activated = ports now ACTIVE that were not. Returns the failures (logged) or -1. */
int cs_sm_activate(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_sm_log *log,
                   unsigned *activated, struct cs_error *err);

/* Master SM. Ask every other port that advertises IsSM for its SMInfo. Returns 1 (logged, with
 * its GUID and path) when one of them is already MASTER, 0 otherwise, -1 on a transport failure. */
int cs_sm_find_master(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                      const struct cs_sm_log *log, uint64_t *master_guid, struct cs_error *err);

/* Our SMInfo, as we answer other SMs' SubnGet(SMInfo). */
struct cs_sm_identity {
    uint64_t guid; /* the SM port GUID */
    uint64_t sm_key;
    uint64_t m_key; /* the M_Key the SM sets on its ports: askers must present it to read sm_key */
    uint8_t priority;
    uint8_t state;                  /* CS_SMP_SM_STATE_* */
    const struct cs_smp_pipe *pipe; /* ActCount = SMPs sent so far */
};
/* A cs_smp_unsolicited_fn (arg = struct cs_sm_identity *): answers SMInfo Gets, ignores the rest.
 */
int cs_sm_answer_sminfo(void *arg, const struct cs_smp *mad, struct cs_smp *answer);

#endif
