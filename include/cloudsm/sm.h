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
 * Library code: no printing. Everything worth telling an operator goes through struct cs_log
 * (log.h); every phase returns its SMP counts so that cloudsmd can log them.
 */
#ifndef CLOUDSM_SM_H
#define CLOUDSM_SM_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/key_index.h"
#include "cloudsm/lft.h"
#include "cloudsm/lid.h"
#include "cloudsm/log.h"
#include "cloudsm/mcast.h"
#include "cloudsm/mft.h"
#include "cloudsm/qos.h"
#include "cloudsm/smp.h"
#include "cloudsm/smp_pipe.h"

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
    struct cs_smp_node_info *node_info; /* [n] as node n first answered (PartitionCap, Revision;
                                           port_guid/local_port_num of that arrival) */
    struct cs_dr_path *path;
    uint32_t sm_node;              /* node index of the SM's own node (a CA) */
    uint32_t sm_port;              /* port slot index of the SM port */
    bool sm_port_down;             /* the SM port was not up: the sweep is the SM's node alone */
    unsigned problems;             /* inconsistent answers, unreachable nodes: each was logged */
    struct cs_smp_pipe_stats smps; /* SMPs of this sweep */
    double ms;                     /* wall time of the sweep */
    bool *lid_withheld; /* [port slot] ports cs_sm_assign_lids leaves without a LID (idle VFs
                           under dynamic VM LIDs); NULL: none. Set by the caller, freed here */
    struct cs_key_index end_ports; /* end port GUID -> port slot (cs_sm_sweep_end_port_by_guid),
                                      built by cs_sm_discover */
    bool end_ports_indexed;
};

void cs_sm_sweep_init(struct cs_sm_sweep *s);
void cs_sm_sweep_free(struct cs_sm_sweep *s);

/* The port slot of the end port (cs_sm_end_port: a CA or router port the sweep reached, a
 * switch's port 0) with this port GUID, or CS_NONE: a binary search in the index cs_sm_discover
 * builds (a sweep made otherwise is scanned). */
uint32_t cs_sm_sweep_end_port_by_guid(const struct cs_sm_sweep *s, uint64_t guid);

/* Heavy sweep. Nodes that do not answer (after the pipe's retries) are left out and logged as
 * WARN with their DR path; answers that contradict each other (a GUID seen with two node types
 * or port counts, a port that reports two different peers, a CA reached through a port it says
 * is down) are logged and counted in problems, and the first consistent view wins. -1 only when
 * the SM's own node does not answer or on a transport failure. out must have been initialised
 * (cs_sm_sweep_init); what it held is freed first, and on -1 it is left empty. A node that
 * answered NodeInfo but not all of its follow-up reads stays in, with what it answered (and a
 * WARN). A CA port the sweep never arrived on has port GUID 0. Node order is breadth-first from
 * the SM port, ports ascending, whatever order the replies come in (src/sm/discover.c). */
int cs_sm_discover(struct cs_smp_pipe *pipe, const struct cs_log *log, struct cs_sm_sweep *out,
                   struct cs_error *err);

/* Whether fresh saw less than the fabric because of the SM's own link: its port was not up, or it
 * reached only the SM's node where previous reached more (the neighbour is silent). Such a sweep
 * must not replace previous: the nodes it misses are not gone, the SM just cannot see them. */
bool cs_sm_sweep_lost_fabric(const struct cs_sm_sweep *fresh, const struct cs_sm_sweep *previous);

/* The PortInfo of the SM's own port (s->sm_port), from the local agent: a directed-route Get
 * with hop count 0, which needs no link. 1 with *out filled, 0 when it did not answer (logged at
 * DEBUG), -1 on a transport failure. */
int cs_sm_own_port_info(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                        const struct cs_log *log, struct cs_smp_port_info *out,
                        struct cs_error *err);

/* The directed route that reaches port slot p itself (so that a PortInfo Set lands on that port):
 * a switch port through its switch, a CA port through the switch port it is cabled to (the SM's
 * own port with the empty path). False when the sweep has no route to it. */
bool cs_sm_port_path(const struct cs_sm_sweep *s, uint32_t p, struct cs_dr_path *path);

/* The highest LID every switch of the sweep can forward: min(LinearFDBCap - 1) over the switches
 * that answered SwitchInfo (LinearFDBCap is the number of LFT entries, LIDs 0..cap-1), and never
 * above CS_LID_UCAST_MAX. *limiting_node (may be NULL) is the switch that sets it, or CS_NONE. */
uint16_t cs_sm_lid_limit(const struct cs_sm_sweep *s, uint32_t *limiting_node);

/* Give every port that needs a LID one, within 1..cs_sm_lid_limit:
 *   1. its guid2lid entry (guid2lid may be NULL);
 *   2. the LID it already holds when it is valid and free (an SM restart or another SM's
 *      assignment is not undone);
 *   3. the lowest free LIDs (lid.h's deterministic rule).
 * guid2lid entries of ports that are not in the sweep (absent: unplugged, switched off) are held:
 * no other port takes their LIDs while free LIDs remain, so that a port that comes back gets its
 * LID again. When the LIDs run out, held ones are handed out lowest first (each logged at WARN).
 * A stored or held LID beyond the limit (or a stored range that is not aligned, or taken) is
 * re-assigned, logged at WARN with the port GUID and the old and new LIDs. reassign: ignore the
 * LIDs ports hold and number everything else afresh (OpenSM's reassign_lids; the caller passes
 * no guid2lid then, or only the LIDs it must keep, as the SM does for its VMs).
 * Ports marked in s->lid_withheld get none (LID 0), whatever guid2lid or the port say.
 * Writes the LIDs into s->fabric. Returns the number of ports whose LID is new or changed
 * compared to what they hold, or -1. */
int cs_sm_assign_lids(struct cs_sm_sweep *s, const struct cs_guid2lid *guid2lid, bool reassign,
                      const struct cs_log *log, struct cs_error *err);

/* The guid2lid to keep after cs_sm_assign_lids: the LIDs of s->fabric's ports (fabric order),
 * then the entries of stored (may be NULL) whose ports are absent and whose LIDs are still
 * held (within cs_sm_lid_limit, not given to a port of the sweep). out is overwritten. */
int cs_sm_guid2lid_update(const struct cs_sm_sweep *s, const struct cs_guid2lid *stored,
                          struct cs_guid2lid *out, struct cs_error *err);

/* What the SM writes into the PortInfo of CA ports and switch port 0. */
struct cs_sm_port_settings {
    uint16_t sm_lid;
    uint64_t subnet_prefix;
    uint64_t m_key;
    uint16_t m_key_lease_period;
    /* Set ClientReregister on every port that supports it (CapabilityMask bit 25), whatever it
     * holds: its clients register again with the SA (multicast joins, services, event
     * subscriptions), which a new master does not know. OpenSM does it on its first sweep as
     * master (also after a takeover) unless no_clients_rereg. */
    bool client_reregister;
};

/* PortInfo Sets on the ports whose LID, SM LID, subnet prefix, LMC, M_Key or lease differ from
 * the settings and s->fabric's LIDs (and with client_reregister, on the ports that support it);
 * s->port_info is updated from the replies. Returns the number
 * of ports that refused or did not answer (each logged), or -1 on a transport failure. */
int cs_sm_set_lids(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                   const struct cs_sm_port_settings *settings, const struct cs_log *log,
                   struct cs_error *err);

/* PortInfo Sets, as cs_sm_set_lids sends them, on the listed port slots only and whether or
 * not they hold their LID already: a VF taking or giving up a LID (0). Ports whose PortInfo the
 * sweep never read count as failures. Returns the failures, or -1. */
int cs_sm_set_port_lids(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                        const struct cs_sm_port_settings *settings, const uint32_t *ports,
                        uint32_t count, const struct cs_log *log, struct cs_error *err);

/* Program the switches with want (a set made for s->fabric by cs_lfts_for_fabric): SwitchInfo
 * LinearFDBTop where it differs, then the LFT blocks that differ from what the switch holds.
 * held describes what the switches hold, block by block; a block whose dirty bit is set in held
 * is "unknown" (a new switch, a Set that failed). NULL means everything is unknown. An unknown
 * block at or below the switch's LinearFDBTop is read back once and compared; above it, it is
 * written without reading; a known block is written only if it differs. held, when given, must
 * be a set for the same switches in the same order and at least as many LIDs as want (else -1).
 * On return (0), the counts are filled and held says what the switches now hold. */
struct cs_sm_lft_counts {
    uint64_t blocks_read;
    uint64_t blocks_sent;
    uint64_t switch_info_sets;
    unsigned failures; /* SMPs refused or unanswered, each logged */
};
int cs_sm_program_lfts(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_lfts *want,
                       struct cs_lfts *held, const struct cs_log *log,
                       struct cs_sm_lft_counts *counts, struct cs_error *err);

/* Read back every block held does not know (dirty) at or below its switch's LinearFDBTop into
 * held (a block above it holds nothing valid and stays unknown; a read that fails too). Fills
 * counts->blocks_read and failures. */
int cs_sm_read_lfts(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, struct cs_lfts *held,
                    const struct cs_log *log, struct cs_sm_lft_counts *counts,
                    struct cs_error *err);

/* One LFT block to write: switch `table` of the set, its block `block`, with content (64
 * entries), or want's block when content is NULL. */
struct cs_sm_lft_write {
    uint32_t table;
    uint16_t block;
    const uint8_t *content;
};

/* Write exactly the listed blocks (no read-back, no LinearFDBTop: a live reconfiguration of
 * tables cs_sm_program_lfts has programmed) and record in held what each switch now holds (a
 * failed write leaves its block unknown). counts->blocks_sent and failures are filled. */
int cs_sm_write_lft_blocks(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                           const struct cs_lfts *want, struct cs_lfts *held,
                           const struct cs_sm_lft_write *writes, uint32_t count,
                           const struct cs_log *log, struct cs_sm_lft_counts *counts,
                           struct cs_error *err);

/* OpenSM 3.3.23's default head-of-queue lifetimes (PortInfo HOQLife exponents). */
#define CS_SM_HOQ_LIFE 18      /* head_of_queue_lifetime: switch ports between switches */
#define CS_SM_LEAF_HOQ_LIFE 16 /* leaf_head_of_queue_lifetime: switch ports facing CAs */

/* Bring every linked port that is INIT to ARMED, then every ARMED one to ACTIVE (IBA 7.2: a port
 * goes ARMED -> ACTIVE only after its neighbour left INIT, so the two steps are two rounds).
 * Switch ports get their head-of-queue lifetime with these Sets.
 * *activated = ports now ACTIVE that were not. Returns the failures (logged) or -1. */
int cs_sm_activate(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s, const struct cs_log *log,
                   unsigned *activated, struct cs_error *err);

/* What the switches of a new sweep hold, carried over from the tables held for an earlier one:
 * out is shaped like want (same switches, same order, same capacity); each switch's row is
 * copied by GUID from old and marked known, blocks old did not cover and switches old did not
 * have are marked unknown (dirty). */
int cs_sm_carry_held(const struct cs_lfts *old, const struct cs_lfts *want, struct cs_lfts *out,
                     struct cs_error *err);

/* Light sweep: SwitchInfo Get of every switch. A switch whose PortStateChange is set (a port of
 * it went up or down) or that no longer answers means the fabric changed; the flags seen are
 * cleared (SwitchInfo Set with the bit written as 1) so that the next change raises them again.
 * Returns how many switches reported a change or stopped answering, or -1. */
int cs_sm_light_sweep(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                      const struct cs_log *log, struct cs_error *err);

/* ---- The SM state machine (src/sm/master.c) -------------------------------------------------
 *
 * IBA 1.2.1 14.4.1: an SM is DISCOVERING, STANDBY, MASTER or NOT-ACTIVE.
 *
 *   precedence   the higher priority wins; on equal priority the lower port GUID
 *   DISCOVERING  after the sweep, ask every other SM for its SMInfo. Another MASTER, or a
 *                DISCOVERING or STANDBY SM of higher precedence, wins: go STANDBY and poll it
 *   MASTER       a MASTER or STANDBY of higher precedence gets mastership: SubnSet(SMInfo)
 *                HANDOVER to it, and once it answers, go STANDBY and poll it; a DISCOVERING SM
 *                of higher precedence has not decided yet: wait for it
 *   STANDBY      program nothing; every sminfo_polling_timeout ms SubnGet(SMInfo) to the master
 *                polled; after polling_retry_number polls in a row without an answer from it
 *                as MASTER (or as a STANDBY of higher precedence, which is where OpenSM polls
 *                after a handover it started), go DISCOVERING and sweep. A master of lower
 *                precedence than ours gets a Trap 144 (SM priority changed) so that its next
 *                sweep finds us and hands over
 *
 * SubnSet(SMInfo) from another SM, by AttributeModifier (the sender's SMInfo in the data must be
 * MASTER, and STANDBY for ACKNOWLEDGE, as OpenSM 3.3.23 checks it):
 *
 *   HANDOVER     STANDBY or DISCOVERING: become MASTER (the loop sweeps and acknowledges);
 *                MASTER: sweep again
 *   ACKNOWLEDGE  STANDBY, MASTER: noted
 *   DISABLE      STANDBY: become NOT-ACTIVE (answer SMInfo, poll nobody)
 *   STANDBY      NOT-ACTIVE: become STANDBY, polling the sender
 *   DISCOVER     STANDBY, MASTER: become DISCOVERING (the loop sweeps)
 *
 * anything else is refused (status: invalid field) and changes nothing.
 *
 * "Every other SM" is every port the sweep saw advertising IsSM, plus every SM that asked us for
 * our SMInfo (directed route; polled back along the reverse of the route its request took): an SM
 * that started while our sweep passed its port is not IsSM in our sweep, but it sweeps after
 * opening its port, so it sees ours and asks us: of two SMs that start together, each polls the
 * other (unless SMPs are lost). An SM that does not answer is logged and left out of this
 * decision, not forever (the next poll asks again).
 */

/* Our SMInfo, as we answer other SMs' SubnGet(SMInfo), and the SMs that asked for it. */
#define CS_SM_ASKERS_MAX 16
struct cs_sm_identity {
    uint64_t guid; /* the SM port GUID */
    uint64_t sm_key;
    uint64_t m_key; /* the M_Key the SM sets on its ports: askers must present it to read sm_key */
    uint8_t priority;
    uint8_t state;                  /* CS_SMP_SM_STATE_* */
    const struct cs_smp_pipe *pipe; /* ActCount = SMPs sent so far */
    /* STANDBY: the SM polled (the master, or the SM of higher precedence we yielded to). */
    uint64_t master_guid;
    struct cs_dr_path master_path;
    /* The last SubnSet(SMInfo) that changed our state (CS_SMP_SM_*; 0: none since the loop
     * last looked), and its sender: cs_sm_answer_sminfo sets them, the serving loop acts. */
    uint8_t control;
    uint8_t control_prior; /* our state when it arrived */
    uint64_t control_from;
    struct cs_dr_path control_path; /* the route back to the sender (directed route), if any */
    /* Directed routes to the SMs that asked (filled by cs_sm_answer_sminfo, distinct; one that
     * no longer answers a poll is dropped by cs_sm_poll_sms). */
    struct cs_dr_path askers[CS_SM_ASKERS_MAX];
    unsigned num_askers;
    /* The other SMs that answered the last poll (cs_sm_poll_sms), distinct GUIDs, as they
     * answered (the first CS_SM_ASKERS_MAX): what the SA's SMInfoRecords show besides us. */
    struct cs_smp_sm_info known[CS_SM_ASKERS_MAX];
    unsigned num_known;
};

/* A cs_smp_unsolicited_fn (arg = struct cs_sm_identity *): answers SMInfo Gets (and notes who
 * asked, directed route) and SMInfo Sets (the controls above: the state changes at once, the
 * answer carries our SMInfo as it was, as OpenSM's), ignores the rest. */
int cs_sm_answer_sminfo(void *arg, const struct cs_smp *mad, struct cs_smp *answer);

/* True when an SM with (priority, guid) takes precedence over one with (other_priority,
 * other_guid). */
bool cs_sm_precedes(uint8_t priority, uint64_t guid, uint8_t other_priority, uint64_t other_guid);

/* "not active", "discovering", "standby", "master" (CS_SMP_SM_STATE_*), or "unknown". */
const char *cs_sm_state_name(uint8_t state);

/* Another SM, as it answered SMInfo. */
struct cs_sm_peer {
    struct cs_smp_sm_info info;
    struct cs_dr_path path; /* the route it answered on */
};

enum cs_sm_verdict {
    CS_SM_CLAIM,    /* become (or stay) master */
    CS_SM_WAIT,     /* we are master, but an SM of higher precedence is still discovering */
    CS_SM_YIELD,    /* discovering: another SM wins; go STANDBY and poll it */
    CS_SM_HANDOVER, /* master: a MASTER or STANDBY of higher precedence gets mastership */
};

struct cs_sm_decision {
    enum cs_sm_verdict verdict;
    int peer;        /* index of the winner (YIELD) or of the undecided SM (WAIT); -1 for CLAIM */
    const char *why; /* the rule that decided, for the log */
};

/* The rule above for our identity (me->state DISCOVERING or MASTER) and the answers of the other
 * SMs. Pure: no SMPs, no state changes. Answers carrying our own GUID and NOT_ACTIVE SMs are
 * ignored. When several SMs win, the one of highest precedence is named. */
struct cs_sm_decision cs_sm_decide(const struct cs_sm_identity *me, const struct cs_sm_peer *peers,
                                   unsigned num_peers);

/* SubnGet(SMInfo) to every other SM (see above; an asker on the route of an IsSM port is asked
 * once). *peers (freed by the caller, NULL when none) gets one entry per SM that answered,
 * distinct GUIDs; each answer is logged (INFO, DEBUG when we are master: a master polls on every
 * sweep), each SM that did not answer or refused too (DEBUG). Returns the number of entries, or -1
 * on a transport failure. */
int cs_sm_poll_sms(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s, struct cs_sm_identity *me,
                   const struct cs_log *log, struct cs_sm_peer **peers, struct cs_error *err);

/* The election, polling with cs_sm_poll_sms and deciding with cs_sm_decide. DISCOVERING: poll;
 * on CLAIM, me->state becomes MASTER and the MASTER step follows at once (it closes the window in
 * which two SMs both saw the other still discovering). MASTER: poll; while an SM of higher
 * precedence is still discovering, answer SMInfo for up to wait_ms (in 50 ms steps between
 * polls) and poll again; past that, or with wait_ms 0, stay master (logged). On YIELD the winner
 * is logged (WARN: GUID, priority, state, DR path and the rule), copied to *winner (may be NULL)
 * and me->state becomes STANDBY polling it (master_guid, master_path). On HANDOVER the SM is
 * sent SubnSet(SMInfo) HANDOVER (cs_sm_send_control); once it answers, likewise STANDBY polling
 * it; if it refuses or does not answer we stay master (logged). Returns 1 (we are master), 0
 * (not master), -1 on a transport failure. */
int cs_sm_elect(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s, struct cs_sm_identity *me,
                const struct cs_log *log, int wait_ms, struct cs_sm_peer *winner,
                struct cs_error *err);

/* SubnSet(SMInfo) with AttributeModifier control (CS_SMP_SM_*) to the SM at path, carrying our
 * SMInfo (SM_Key only to a master, as OpenSM). 1 when it answered with status 0 (*answer, may
 * be NULL, gets its SMInfo), 0 when it refused or did not answer (logged), -1 on a transport
 * failure. */
int cs_sm_send_control(struct cs_smp_pipe *pipe, const struct cs_sm_identity *me,
                       const struct cs_dr_path *path, uint8_t target_state, uint8_t control,
                       const struct cs_log *log, struct cs_smp_sm_info *answer,
                       struct cs_error *err);

/* STANDBY: one SubnGet(SMInfo) to me->master_path. 1 when the master polled is alive (it answers
 * as MASTER, or as a STANDBY of higher precedence than ours), 0 when not (no answer, another
 * GUID, another state); *seen (may be NULL) gets what it answered. -1 on a transport failure. */
int cs_sm_poll_master(struct cs_smp_pipe *pipe, const struct cs_sm_identity *me,
                      const struct cs_log *log, struct cs_smp_sm_info *seen, struct cs_error *err);

/* Trap 144 (local changes: SM priority), LID-routed from our LID to the master's, as OpenSM's
 * standby sends it to a master of lower precedence: the master sweeps, finds us and hands over.
 * 1 when it answered TrapRepress, 0 when not (logged at DEBUG), -1 on a transport failure. */
int cs_sm_send_trap144(struct cs_smp_pipe *pipe, uint16_t our_lid, uint16_t master_lid,
                       uint32_t capability_mask, const struct cs_log *log, struct cs_error *err);

/* ---- Partitions: P_Key tables and partition enforcement (src/sm/pkeys.c) ----------------------
 *
 * What OpenSM 3.3.23's P_Key manager (osm_pkey_mgr.c, keep_pkey_indexes TRUE) programs, in three
 * steps that cloudsmd runs on a heavy sweep after the LIDs:
 *
 *   cs_sm_read_pkeys     the table sizes (NodeInfo PartitionCap of every CA and switch, SwitchInfo
 *                        PartitionEnforcementCap from the sweep) and every block the SM programs
 *   cs_sm_pkey_tables    what each of those ports must hold: a P_Key already in a port's table
 *                        keeps its index; Default goes to index 0 (or the indx0 partition's P_Key);
 *                        new ones follow; what does not fit is dropped and logged
 *   cs_sm_program_pkeys  the blocks that differ, then the PortInfo enforcement bits of the switch
 *                        ports facing CAs where they differ
 *
 * Ports with a table: CA and router ports the sweep reached over a cable, switch port 0, and
 * switch ports cabled to such a CA port (when the switch's PartitionEnforcementCap is not 0):
 * those get the CA's P_Keys, packed, so that the switch drops what the CA may not send or
 * receive. docs/sm/cloudsmd.md ("Partitions") has the rules and the OpenSM runs behind them. */

struct cs_partitions;
struct cs_partition_set;

/* OpenSM's part_enforce: the enforcement a switch port facing a CA gets. */
enum cs_sm_part_enforce {
    CS_SM_PART_ENFORCE_BOTH = 0, /* inbound and outbound (OpenSM's default) */
    CS_SM_PART_ENFORCE_IN,
    CS_SM_PART_ENFORCE_OUT,
    CS_SM_PART_ENFORCE_OFF, /* no enforcement, and no tables on switch ports */
};

/* Bits of cs_sm_pkey_tables.enforce: PortInfo PartitionEnforcementInbound / Outbound. */
#define CS_SM_ENFORCE_INBOUND 1u
#define CS_SM_ENFORCE_OUTBOUND 2u
#define CS_SM_ENFORCE_KEEP 0xffu /* the SM leaves the port's bits alone */

struct cs_sm_pkey_options {
    const struct cs_partitions *config; /* the file the set came from: its indx0 flags; or NULL */
    bool allow_both_pkeys;              /* OpenSM's allow_both_pkeys (-W) */
    uint8_t part_enforce;               /* enum cs_sm_part_enforce */
};

/* P_Key tables of s->fabric's ports, by port slot. The same struct says what the ports hold
 * (held: filled by cs_sm_read_pkeys, kept up to date by cs_sm_program_pkeys) and what they must
 * hold (want: made by cs_sm_pkey_tables). */
struct cs_sm_pkey_tables {
    uint32_t num_ports; /* s->fabric.num_port_slots */
    uint16_t *capacity; /* [p] entries in the port's table; 0: the SM does not program it */
    uint64_t *first;    /* [p] where the table starts in pkeys */
    uint16_t *pkeys;    /* every table, rounded up to whole blocks of CS_PKEYS_PER_BLOCK entries;
                           entries at or beyond the capacity are 0 */
    uint64_t num_pkeys;
    bool *known;      /* [p] held: the contents are what the port holds (false: not read, or a
                         Set failed); want: true wherever capacity is */
    uint8_t *enforce; /* [p] want: CS_SM_ENFORCE_* bits of a switch port, or CS_SM_ENFORCE_KEEP */
};

void cs_sm_pkey_tables_init(struct cs_sm_pkey_tables *t);
void cs_sm_pkey_tables_free(struct cs_sm_pkey_tables *t);

/* Port slot p's table (capacity[p] entries, rounded up to blocks). */
static inline uint16_t *cs_sm_pkey_table(const struct cs_sm_pkey_tables *t, uint32_t p)
{
    return t->pkeys + t->first[p];
}

struct cs_sm_pkey_counts {
    uint64_t node_info_gets; /* PartitionCap reads */
    uint64_t blocks_read;
    uint64_t blocks_sent;
    uint64_t port_info_sets; /* enforcement bits */
    unsigned failures;       /* SMPs refused or unanswered, each logged */
};

/* Read what the ports that have a table hold (switch ports facing CAs whatever part_enforce
 * will say) into held (initialised; what it held is freed first). A node that does not answer
 * NodeInfo gets no tables; a block that does not answer leaves its port unknown.
 * Returns the failures (logged; also in counts), or -1 on a transport failure. */
int cs_sm_read_pkeys(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                     struct cs_sm_pkey_tables *held, const struct cs_log *log,
                     struct cs_sm_pkey_counts *counts, struct cs_error *err);

/* The tables the ports must hold (want, initialised; freed first) for set, a partition set
 * resolved against s->fabric. held (from cs_sm_read_pkeys, for the same fabric) gives the table
 * sizes and the indices to keep; a port held does not know is taken to hold the IBA default
 * (0xffff at index 0). opt may be NULL (no indx0, no allow_both_pkeys, enforcement both).
 * Returns the number of P_Keys that did not fit their port's table (each logged at WARN), or -1. */
int cs_sm_pkey_tables(const struct cs_sm_sweep *s, const struct cs_partition_set *set,
                      const struct cs_sm_pkey_options *opt, const struct cs_sm_pkey_tables *held,
                      struct cs_sm_pkey_tables *want, const struct cs_log *log,
                      struct cs_error *err);

/* P_KeyTable Sets of the blocks where want differs from held (or held does not know the port),
 * then PortInfo Sets of the switch ports whose enforcement bits differ from want (from
 * s->port_info, which the replies update). A port's enforcement is switched on only once its
 * table is known to be right. held (same fabric as want) is updated to what the ports now hold:
 * with an unchanged fabric and configuration a second call sends nothing. Returns 0 with counts
 * filled (failures logged and counted), or -1 on a transport failure or tables of another shape. */
int cs_sm_program_pkeys(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                        const struct cs_sm_pkey_tables *want, struct cs_sm_pkey_tables *held,
                        const struct cs_log *log, struct cs_sm_pkey_counts *counts,
                        struct cs_error *err);

/* ---- Alias GUIDs: GUIDInfo (src/sm/guid_info.c) ------------------------------------------------
 *
 * The GUIDInfo tables of ports whose alias GUIDs (alias_guids.h) the SA changed: one Set per
 * changed block, with the block as the store holds it, sent once (as OpenSM). */

struct cs_alias_guids;

struct cs_sm_alias_counts {
    uint64_t blocks_sent;
    uint64_t skipped;   /* changed blocks of ports this sweep does not have */
    uint64_t differing; /* blocks an agent answered with other GUIDs than it was sent (logged) */
    unsigned failures;  /* Sets refused or unanswered (logged), and ports without a route */
};

/* Send the blocks changed since the last call (cs_alias_guids_take) to their ports in s. Nothing
 * to send costs nothing: call it after every SA request, or every turn of the main loop. Returns
 * 0 with counts filled (failures logged at WARN and counted; the store keeps the SA's view), or
 * -1 on a transport failure. */
int cs_sm_program_alias_guids(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                              struct cs_alias_guids *aliases, const struct cs_log *log,
                              struct cs_sm_alias_counts *counts, struct cs_error *err);

/* ---- SL to VL mapping (src/sm/sl2vl.c) ---------------------------------------------------------
 *
 * Once a routing engine gives partitions SLs of their own (struct cs_route_result), their traffic
 * must travel on VLs of its own: one rule for the whole subnet, SL s -> VL s on a link with more
 * than s data VLs, VL 0 on a link with fewer (the fewer of its two ends' OperationalVLs: 1, 2, 4,
 * 8 or 15 data VLs). Tables (SL2VLMappingTable, IBA 14.2.5.8): every CA or router port the sweep
 * reached over a cable (its own table), and on every switch the table of each input port (0 and
 * the linked ports) to each linked output port (modifier: input port << 8 | output port); the
 * output port's link decides. Each call reads every table back and writes only those that
 * differ: on a fabric that already holds the rule a call sends no Set. */

/* The VL of SL sl on a link with link_vls data VLs. */
uint8_t cs_sm_sl2vl_vl(unsigned link_vls, unsigned sl);

/* The tables as the SM last read and programmed them (the SA's SL2VLTableRecords): one entry
 * per table the SM knows, ordered by output port slot, then input port. A CA or router port's own
 * table has input port 0. */
struct cs_sm_sl2vl_entry {
    uint32_t out_port; /* port slot */
    uint8_t in_port;   /* port number on the same node; 0 for a CA or router port */
    struct cs_smp_sl2vl table;
};
struct cs_sm_sl2vl_tables {
    struct cs_sm_sl2vl_entry *entries;
    uint32_t count;
    uint32_t num_ports; /* the fabric's port slots when they were read */
};
void cs_sm_sl2vl_tables_init(struct cs_sm_sl2vl_tables *t);
void cs_sm_sl2vl_tables_free(struct cs_sm_sl2vl_tables *t);

struct cs_sm_sl2vl_counts {
    uint64_t tables_read;
    uint64_t tables_sent;
    uint32_t short_ports; /* ports whose link has fewer data VLs than num_sls (logged at WARN) */
    unsigned failures;    /* SMPs refused or unanswered, each logged */
};

/* Read every table and Set those that differ from the rule (a table whose read failed is written
 * too). num_sls: the SLs in use (0..num_sls-1), for the warning about links that cannot carry
 * them apart. held (may be NULL; initialised, what it held is freed first) gets every table the
 * ports answered, as they hold it after the Sets. Returns 0 with counts filled, or -1 on a
 * transport failure. */
int cs_sm_program_sl2vl(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s, unsigned num_sls,
                        const struct cs_log *log, struct cs_sm_sl2vl_counts *counts,
                        struct cs_sm_sl2vl_tables *held, struct cs_error *err);

/* With QoS (qos TRUE): the tables above from the sl2vl template of each output port's class
 * (include/cloudsm/qos.h; a switch's tables: qos_swe_, a CA's: qos_ca_, a router's: qos_rtr_),
 * each VL but 15 cut to the VLs the output port operates (VL & (2^(OperationalVLs-1) - 1), as
 * OpenSM). The same tables, read back and written where they differ; held as above. */
int cs_sm_program_sl2vl_qos(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                            const struct cs_qos_config *q, const struct cs_log *log,
                            struct cs_sm_sl2vl_counts *counts, struct cs_sm_sl2vl_tables *held,
                            struct cs_error *err);

/* ---- QoS: VL arbitration (src/sm/vlarb.c) ----------------------------------------------------
 *
 * With qos TRUE, as OpenSM 3.3.23's osm_qos.c: every linked switch external port, switch port 0
 * where it is enhanced, and every CA and router port the sweep reached over a cable gets its
 * class's VLArbitration tables (attribute 0x0018, modifier block << 16 | port: 1 low 0-31, 2 low
 * 32-63, 3 high 0-31, 4 high 32-63; port 0 on a CA or router), only the blocks within the port's
 * VLArbitrationLowCap/HighCap and only the entries within them, each VL cut to the VLs the port
 * operates; and its class's PortInfo VLHighLimit. Blocks are
 * read back and written where they differ; VLHighLimit is compared with the sweep's PortInfo. */

/* The class of port slot `slot`: switch port 0 CS_QOS_SW0, other switch ports CS_QOS_SWE,
 * router ports CS_QOS_RTR, the rest CS_QOS_CA. */
enum cs_qos_class cs_sm_qos_class(const struct cs_fabric *f, uint32_t slot);
/* The VLs a port with this OperationalVLs code operates, as a mask (OpenSM's): 0, 1, 3, 7, 15. */
uint8_t cs_sm_qos_vl_mask(uint8_t operational_vls);

struct cs_sm_vlarb_counts {
    uint64_t blocks_read;
    uint64_t blocks_sent;
    uint64_t port_info_sets; /* VLHighLimit */
    unsigned failures;       /* SMPs refused or unanswered, each logged */
};

/* Returns 0 with counts filled, or -1 on a transport failure. The PortInfo answers to the
 * VLHighLimit Sets go into s. */
int cs_sm_program_vlarb(struct cs_smp_pipe *pipe, struct cs_sm_sweep *s,
                        const struct cs_qos_config *q, const struct cs_log *log,
                        struct cs_sm_vlarb_counts *counts, struct cs_error *err);

/* ---- Multicast (src/sm/mft_program.c) ---- */

/* Build the spanning trees (mft.h, with router, made for s's fabric; members found by port GUID,
 * cs_sm_sweep_end_port_by_guid) into want: of every group
 * (dirty NULL; want made afresh for s's fabric by cs_mfts_init), or of the num_dirty MLIDs listed
 * (their entries cleared first: an MLID without a group keeps none; the others stay). Then write
 * the MFT blocks (per position) of switches with a MulticastFDBCap that differ from held, within
 * the blocks of the MLIDs listed (all without a list): (block, position) pairs held does not know
 * are read back first. held (cs_mfts_init for s's fabric; kept between calls, made afresh after a
 * heavy sweep) then holds what the switches hold. Failures are logged and counted. */
struct cs_sm_mft_counts {
    uint64_t blocks_read, blocks_sent;
    uint32_t trees; /* groups built with two or more member ports reached */
    unsigned failures;
};
int cs_sm_program_mfts(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s,
                       const struct cs_mcast_groups *g, struct cs_mcast_router *router,
                       const uint16_t *dirty, uint32_t num_dirty, struct cs_mfts *want,
                       struct cs_mfts *held, const struct cs_log *log,
                       struct cs_sm_mft_counts *counts, struct cs_error *err);
/* [node] the switches of s with a MulticastFDBCap (what cs_mcast_router_create takes); malloc'd. */
bool *cs_sm_multicast_capable(const struct cs_sm_sweep *s, struct cs_error *err);

#endif
