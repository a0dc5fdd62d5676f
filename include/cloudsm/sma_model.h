/* An in-process fabric of subnet management agents (SMAs): every node of a cs_fabric answers
 * SMPs the way ibsim 0.10 answers them, without ibsim, sockets or threads.
 *
 * What it is for: unit tests of the SM core (discovery, LID assignment, LFT programming, port
 * activation) with exact SMP counts and injected faults, and dry runs or benchmarks of the SM
 * core on fabrics of any size (cs_sma_model_transport plugs the model into a cs_smp_pipe in
 * place of libibumad). It is deterministic: the same fabric, calls and seed give the same
 * replies in the same order.
 *
 * The SM sits on one port of one node (the "SM port"; a CA port, or port 0 of a switch).
 * Directed-route SMPs walk their initial path from there: hop 0 is the SM's own node, and at a
 * CA path[1] must be the SM port (a CA sends only through the port the SMP was handed to); at
 * each switch the next path byte is the output port; the return path records the input port at
 * each hop. An SMP gets no reply (it is lost, as on a real fabric) when the path leaves through
 * an unlinked port or a port whose physical state is not LinkUp, asks a CA to forward, names a
 * port that does not exist, or reaches or crosses a node made unresponsive. LID-routed SMPs follow
 * the model's LFTs from the SM port (a switch forwards only LIDs up to its LinearFDBTop, and
 * every hop after the SM's own link must be LinkUp and ACTIVE at both ends, which is what makes a
 * LID usable only once its port is ACTIVE), and the reply goes back the same way to the SM
 * port's LID.
 *
 * State at creation (ibsim's): no LIDs; linked ports INIT and LinkUp; unlinked ports DOWN and
 * Polling; switch port 0 ACTIVE; SwitchInfo LinearFDBCap 49152, LinearFDBTop 0, PortStateChange
 * set on switches with a linked port; every LFT entry 255; P_Key tables hold 0xffff in entry 0
 * and are 64 entries on CA ports (NodeInfo PartitionCap 64), 8 on switch port 0 (a switch's
 * PartitionCap) and 64 on switch external ports (SwitchInfo PartitionEnforcementCap), and switches
 * report neither Inbound- nor OutboundEnforcementCap;
 * VLCap VL0-7 with OperationalVLs equal to it. Node and port GUIDs, descriptions, vendor and
 * device ids, enhanced port 0 and link widths/speeds come from the fabric.
 *
 * Attributes (anything else: status 0x0c, unsupported attribute; a method other than Get/Set:
 * 0x08):
 *   NodeInfo         Get. PortGUID and LocalPortNum are those of the port the SMP arrived on
 *                    (a switch answers its port 0 GUID). Set: 0x08, data still filled.
 *   NodeDescription  Get. Set: 0x08.
 *   SwitchInfo       Get, Set of LinearFDBTop, LifeTimeValue and PortStateChange (write 1 to
 *                    clear); a LinearFDBTop at or above LinearFDBCap: 0x1c. On a CA: 0x0c.
 *   PortInfo         Get, Set (modifier = port number; on a CA port 0 means the arrival port).
 *                    A Set on a CA port other than the arrival port: 0x1c. A Set stores LID,
 *                    MasterSMLID, LMC, subnet prefix, M_Key, M_Key protect bits and lease period,
 *                    HOQLife, a non-zero PortPhysicalState and a non-zero OperationalVLs
 *                    (OperationalVLs above the VLCap written in the same Set: 0x1c), and on a
 *                    switch's external port PartitionEnforcementInbound/Outbound where the
 *                    switch has the capability (ibsim's have neither: the bits read 0). PortState:
 *                    1 (DOWN) on a linked port puts both ends to INIT and sets the peer switch's
 *                    PortStateChange; 3 (ARMED) or 4 (ACTIVE) needs |peer state - new| <= 1 and
 *                    |state - new| == 1, else 0x1c; anything above 4, or above 1 on an unlinked
 *                    port, is 0x1c. Unlike ibsim, a rejected Set changes nothing.
 *                    LocalPortNum reads 0 on a switch and the port's own number on a CA (ibsim).
 *   LinearFwdTable   Get, Set of one 64-entry block (modifier 0..767 whose first LID is below
 *                    LinearFDBCap, else 0x1c, as ibsim). On a CA: 0x0c.
 *   P_KeyTable       Get, Set of a 32-entry block of the port's table (switch: port = modifier
 *                    bits 16..23; block beyond the table or port beyond the switch: 0x1c). A
 *                    Set of a table's last, partial block stores what fits; a Get reads 0 past
 *                    the table's end (ibsim).
 *   SL2VLMappingTable Get, Set of one table: on a switch the one of input port (modifier bits
 *                    8..15) to output port (bits 0..7), any of ports 0..n (beyond: 0x1c); on a
 *                    CA the arrival port's, whatever the modifier (ibsim). Before any Set every
 *                    table reads SL s -> VL s for SL 0..14 and SL 15 -> VL 7 (ibsim's).
 *   GUIDInfo         Get, Set of one block of 8 GUIDs (modifier = block) of the port's table of
 *                    PortInfo:GUIDCap entries: a switch's (port 0), or the arrival port of a CA.
 *                    A block at or beyond GUIDCap: 0x1c. Entry 0 is the port GUID and keeps it;
 *                    entries of the last block beyond GUIDCap are not stored. GUIDCap is 1 on CA
 *                    ports and switch port 0 unless cs_sma_model_set_guid_cap says otherwise
 *                    (ibsim's CAs report 32). Unlike ibsim, which answers a Get with entry 0 only
 *                    and refuses every Set (0x08), the model keeps what is set, as the IBA has
 *                    it, so that tests see what an SM programs.
 *   SMInfo           Only where cs_sma_model_set_sm put an SM that answers (on a CA the port
 *                    the SMP arrived on, on a switch port 0): Get returns the SMInfo given
 *                    there (or, after cs_sma_model_set_sm_next's count of Gets, the next one);
 *                    Set: 0x08 (no handover). Elsewhere: 0x0c, as ibsim (no SM in it).
 * M_Keys are stored but not enforced.
 *
 * Faults for tests: unlink a cable, make a node unresponsive, and drop each request and each
 * reply with a seeded probability. The replies of cs_sma_model_transport can also be delivered
 * in a seeded random order instead of in send order.
 */
#ifndef CLOUDSM_SMA_MODEL_H
#define CLOUDSM_SMA_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/pma.h"
#include "cloudsm/smp.h"
#include "cloudsm/smp_pipe.h"

#define CS_SMA_MODEL_PKEY_ENTRIES 64       /* P_Key table size of CA ports (PartitionCap) */
#define CS_SMA_MODEL_SWITCH_PKEY_ENTRIES 8 /* of switch port 0 (a switch's PartitionCap) */

struct cs_sma_model;

/* A model of fabric f (copied: later changes to f do not show) with the SM on port sm_port of
 * node sm_node: a CA port 1..num_ports, or 0 on a switch. NULL with err on a bad SM port or no
 * memory. */
struct cs_sma_model *cs_sma_model_create(const struct cs_fabric *f, uint32_t sm_node,
                                         unsigned sm_port, struct cs_error *err);
void cs_sma_model_destroy(struct cs_sma_model *m);

/* The model's fabric: the copy it was made from, with unlinked cables removed. Port and node
 * indices are the ones of the fabric given to cs_sma_model_create. */
const struct cs_fabric *cs_sma_model_fabric(const struct cs_sma_model *m);

/* Answer one request MAD sent from the SM port (dlid: CS_SMP_PERMISSIVE_LID for directed route,
 * else the destination LID). Returns 1 with the GetResp in reply and the responder's LID in
 * *reply_slid (CS_SMP_PERMISSIVE_LID for a directed-route reply), or 0 if no reply comes back
 * (lost on the way, dropped, not a request an SMA answers, or no memory for an LFT block or a
 * P_Key table: the transport's send reports that one as a failure). */
int cs_sma_model_process(struct cs_sma_model *m, const uint8_t request[CS_SMP_SIZE], uint16_t dlid,
                         uint8_t reply[CS_SMP_SIZE], uint16_t *reply_slid);

/* A transport for cs_smp_pipe_create: send answers at once into a queue inside the model, recv
 * takes the next reply from it and returns 0 at once when it is empty (nothing will come later).
 * The transport brings its own clock (now_us), which advances by recv's timeout only when recv
 * finds the queue empty: a lost SMP costs the pipe one timeout of model time and no wall time,
 * and an answered one is never judged late, however slowly the test runs. The model must outlive
 * every pipe made on it. */
struct cs_smp_transport cs_sma_model_transport(struct cs_sma_model *m);
/* Move the transport's clock on by us (time passing between polls of a test). */
void cs_sma_model_advance_clock(struct cs_sma_model *m, uint64_t us);
/* From now on recv hands out the queued replies in a seeded random order (seed 0: send order
 * again), to check that a caller does not depend on reply order. */
void cs_sma_model_shuffle_replies(struct cs_sma_model *m, uint64_t seed);

/* Faults. */
/* Pull the cable at port index `port` (either end): both ends go DOWN/Polling, and switches at
 * either end get PortStateChange. Fails if the port is not linked. */
int cs_sma_model_unlink(struct cs_sma_model *m, uint32_t port, struct cs_error *err);
/* An unresponsive node neither answers nor forwards SMPs (a hung or dead SMA). */
void cs_sma_model_set_unresponsive(struct cs_sma_model *m, uint32_t node, bool unresponsive);
/* Lose each request, and each reply, with this probability (0 to 1), drawn from a generator
 * seeded with seed. A request lost after it was applied (its reply lost) still took effect. */
void cs_sma_model_set_drop(struct cs_sma_model *m, double probability, uint64_t seed);

/* Another SM, for master election tests: port `port` (a CA port, or port 0 of a switch) advertises
 * IsSM in its PortInfo CapabilityMask from now on, and answers SMInfo Gets with *info; an SMInfo
 * Set (a control: HANDOVER, DISABLE, STANDBY, DISCOVER, ACKNOWLEDGE) is answered with its SMInfo
 * as it was, and its state becomes the one the control names (ACKNOWLEDGE: unchanged). info NULL:
 * IsSM without an SM that answers (SMInfo stays 0x0c), as on a port whose SM died. Fails on a
 * port index out of range or an external switch port. */
int cs_sma_model_set_sm(struct cs_sma_model *m, uint32_t port, const struct cs_smp_sm_info *info,
                        struct cs_error *err);

/* The SMInfo the SM on port `port` answers now and the AttributeModifier of the last SMInfo Set
 * it took (0: none; last_control may be NULL). -1 on a port that does not advertise IsSM. */
int cs_sma_model_get_sm(const struct cs_sma_model *m, uint32_t port, struct cs_smp_sm_info *info,
                        uint8_t *last_control);

/* The SM on port `port` (put there by cs_sma_model_set_sm) changes its state on its own, as a
 * competing SM does between two of our polls: after `gets` more SMInfo requests (Gets, and Sets:
 * controls) answered as now (with its SMInfo, or 0x0c if it did not answer), it answers with
 * *next; next NULL: it stops
 * answering (0x0c: its process ended, IsSM left set). A later cs_sma_model_set_sm cancels the
 * change. Fails on a port that does not advertise IsSM. */
int cs_sma_model_set_sm_next(struct cs_sma_model *m, uint32_t port, unsigned gets,
                             const struct cs_smp_sm_info *next, struct cs_error *err);

/* Partition capabilities of a node, for tests of full P_Key tables and of enforcement. */
struct cs_sma_model_partition_caps {
    uint16_t partition_cap;   /* NodeInfo PartitionCap: the table of CA ports, of switch port 0 */
    uint16_t enforcement_cap; /* switch: SwitchInfo PartitionEnforcementCap, the table of its
                                 external ports */
    bool inbound, outbound;   /* switch: Inbound/OutboundEnforcementCap; a PortInfo Set stores
                                 PartitionEnforcementInbound/Outbound of an external port only
                                 where the switch has the capability */
};
/* Give node `node` these capabilities; its P_Key tables go back to the default (0xffff in entry
 * 0). The switch fields are ignored on a CA. Fails on a node index out of range. */
int cs_sma_model_set_partition_caps(struct cs_sma_model *m, uint32_t node,
                                    const struct cs_sma_model_partition_caps *caps,
                                    struct cs_error *err);

/* Node `node` answers SL2VLMappingTable with 0x0c from now on (unsupported: an agent without VL
 * support), or again normally. Fails on a node index out of range. */
int cs_sma_model_set_sl2vl_unsupported(struct cs_sma_model *m, uint32_t node, bool unsupported,
                                       struct cs_error *err);

/* PortInfo:VLArbitrationLowCap and HighCap of port `port` (ibsim's are 8 and 8), which bound its
 * VLArbitration tables. Fails on a port index out of range. */
int cs_sma_model_set_vlarb_caps(struct cs_sma_model *m, uint32_t port, uint8_t low_cap,
                                uint8_t high_cap, struct cs_error *err);

/* PortInfo:GUIDCap of port `port` (a CA port, or port 0 of a switch), which sizes its GUIDInfo
 * table; the table goes back to the port GUID alone. Fails on another port. */
int cs_sma_model_set_guid_cap(struct cs_sma_model *m, uint32_t port, uint8_t guid_cap,
                              struct cs_error *err);

/* Give switch `node` a LinearFDBCap of cap entries (1..49152): LFT blocks from LID cap on and a
 * LinearFDBTop of cap or more are refused from now on. Fails on a node that is not a switch. */
int cs_sma_model_set_linear_fdb_cap(struct cs_sma_model *m, uint32_t node, uint16_t cap,
                                    struct cs_error *err);

/* Performance management agents: every node answers PerfMgt Gets (class 0x04), LID-routed to
 * any of its LIDs as LID-routed SMPs travel, for PortCounters and PortCountersExtended of the
 * port PortSelect names (1..NumPorts; anything else 0x1c; another attribute 0x0c, another method
 * 0x08). The counters are whatever the test puts here; they start at 0. */
struct cs_sma_model_pma {
    struct cs_pma_port_counters counters;
    struct cs_pma_port_counters_ext extended;
};
/* The counters of port index `port`, to read and change; NULL out of range. */
struct cs_sma_model_pma *cs_sma_model_pma(struct cs_sma_model *m, uint32_t port);
/* Node `node` refuses PortCountersExtended (0x0c, an agent without the 64-bit counters), or
 * answers it again. Fails on a node index out of range. */
int cs_sma_model_set_pma_extended(struct cs_sma_model *m, uint32_t node, bool supported,
                                  struct cs_error *err);

/* What arrived, for tests that count SMPs. */
struct cs_sma_model_stats {
    uint64_t requests;     /* MADs handed to the model */
    uint64_t pma_requests; /* of them, PerfMgt requests (not in cs_sma_model_count) */
    uint64_t answered;     /* replies produced */
    uint64_t lost;         /* requests or replies that found no way (path, unresponsive node) */
    uint64_t dropped;      /* requests or replies lost to the drop probability */
    uint64_t rejected; /* not a request an SMA answers (bad header, a response, a trap repress) */
};
struct cs_sma_model_stats cs_sma_model_stats(const struct cs_sma_model *m);
/* Requests handed to the model with this attribute and method (Get or Set; any other method
 * counts under 0), answered or not. */
uint64_t cs_sma_model_count(const struct cs_sma_model *m, uint16_t attr_id, uint8_t method);
void cs_sma_model_reset_counts(struct cs_sma_model *m);

/* State, for assertions (port: a port index of the fabric, node: a node index). */
void cs_sma_model_port_info(const struct cs_sma_model *m, uint32_t port,
                            struct cs_smp_port_info *out);
uint8_t cs_sma_model_port_state(const struct cs_sma_model *m, uint32_t port);
uint16_t cs_sma_model_port_lid(const struct cs_sma_model *m, uint32_t port);
/* SwitchInfo as a Get would return it; zeroed for a node that is not a switch. */
void cs_sma_model_switch_info(const struct cs_sma_model *m, uint32_t node,
                              struct cs_smp_switch_info *out);
/* LFT entry of a switch (255 for a LID never written, or a node that is not a switch). */
uint8_t cs_sma_model_lft_entry(const struct cs_sma_model *m, uint32_t node, uint32_t lid);
uint16_t cs_sma_model_lft_top(const struct cs_sma_model *m, uint32_t node);
/* Port `port` answers this CapabilityMask (e.g. with CS_SMP_PORT_CAP_CLIENT_REREG, which
 * ibsim's ports lack). Fails on a port index out of range. */
int cs_sma_model_set_capability_mask(struct cs_sma_model *m, uint32_t port, uint32_t mask,
                                     struct cs_error *err);
/* PortInfo Sets with ClientReregister that port `port` took (it supports it). */
unsigned cs_sma_model_client_reregisters(const struct cs_sma_model *m, uint32_t port);
/* The port mask of MLID mlid at position `position` (ports 16 * position ..) of a switch's MFT
 * (0 if never written, out of range, or not a switch). */
/* SA Reports (event subscriptions): the CA ports' SA clients take the SubnAdmReports the SM sends
 * them and acknowledge each with ReportResp (not when set silent). reports: how many reached
 * port, the last one's data (its Notice, CS_SMP_SIZE - 56 bytes) into last (may be NULL). */
unsigned cs_sma_model_reports(const struct cs_sma_model *m, uint32_t port, uint8_t *last);
void cs_sma_model_set_report_silent(struct cs_sma_model *m, uint32_t port, bool silent);
uint16_t cs_sma_model_mft_entry(const struct cs_sma_model *m, uint32_t node, uint16_t mlid,
                                unsigned position);
/* The VL that SL sl maps to in the SL2VL table of port slot `port` towards output port number out
 * (a switch's input port; out 0 on a CA); 0 out of range. */
uint8_t cs_sma_model_sl2vl(const struct cs_sma_model *m, uint32_t port, unsigned out, unsigned sl);
/* VLArbitration block `block` (0..3: low 0-31, low 32-63, high 0-31, high 32-63) of port slot
 * `port` as a Get reads it (entries past the cap 0); -1 (out zeroed) where the port has no such
 * block. */
int cs_sma_model_vlarb(const struct cs_sma_model *m, uint32_t port, unsigned block,
                       struct cs_smp_vlarb *out);
/* Entry `index` of the GUIDInfo table of a port (0 past GUIDCap). */
uint64_t cs_sma_model_guid(const struct cs_sma_model *m, uint32_t port, unsigned index);
/* Entry `index` of the P_Key table of a port (0 past the end of its table). */
uint16_t cs_sma_model_pkey(const struct cs_sma_model *m, uint32_t port, unsigned index);

#endif
