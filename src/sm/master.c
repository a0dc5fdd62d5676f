/* The SM state machine (IBA 14.4.1): the election, STANDBY's polling, HANDOVER and the other
 * SMInfo controls. The rules and why the election needs the SMs that asked us are in
 * include/cloudsm/sm.h. */
#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "cloudsm/sm.h"
#include "core/grow.h"

#define ELECT_POLL_STEP_MS 50 /* between polls while an SM of higher precedence is undecided */

const char *cs_sm_state_name(uint8_t state)
{
    static const char *const names[] = {"not active", "discovering", "standby", "master"};
    return state < 4 ? names[state] : "unknown";
}

bool cs_sm_precedes(uint8_t priority, uint64_t guid, uint8_t other_priority, uint64_t other_guid)
{
    return priority != other_priority ? priority > other_priority : guid < other_guid;
}

static bool peer_precedes(const struct cs_sm_peer *a, const struct cs_sm_peer *b)
{
    return cs_sm_precedes(a->info.priority, a->info.guid, b->info.priority, b->info.guid);
}

struct cs_sm_decision cs_sm_decide(const struct cs_sm_identity *me, const struct cs_sm_peer *peers,
                                   unsigned num_peers)
{
    bool discovering = me->state != CS_SMP_SM_STATE_MASTER;
    int master = -1; /* the other master of highest precedence */
    int higher = -1; /* the SM of highest precedence above ours that is not master */
    for (unsigned i = 0; i < num_peers; i++) {
        const struct cs_sm_peer *p = &peers[i];
        uint8_t state = p->info.sm_state;
        if (p->info.guid == me->guid || state == CS_SMP_SM_STATE_NOT_ACTIVE ||
            state > CS_SMP_SM_STATE_MASTER)
            continue;
        bool above = cs_sm_precedes(p->info.priority, p->info.guid, me->priority, me->guid);
        if (state == CS_SMP_SM_STATE_MASTER) {
            if ((discovering || above) && (master < 0 || peer_precedes(p, &peers[master])))
                master = (int)i;
        } else if (above) {
            if (higher < 0 || peer_precedes(p, &peers[higher]))
                higher = (int)i;
        }
    }
    if (discovering) {
        if (master >= 0)
            return (struct cs_sm_decision){CS_SM_YIELD, master,
                                           "it is already master (an SM that finds a master does "
                                           "not claim)"};
        if (higher >= 0)
            return (struct cs_sm_decision){CS_SM_YIELD, higher,
                                           peers[higher].info.priority > me->priority
                                               ? "higher priority"
                                               : "same priority, lower port GUID"};
        return (struct cs_sm_decision){CS_SM_CLAIM, -1, "no other SM takes precedence"};
    }
    /* MASTER: the SM of highest precedence above ours gets mastership (OpenSM hands over to it
     * whatever its state but NOT-ACTIVE); one still discovering decides first. */
    int best = master;
    if (higher >= 0 && (best < 0 || peer_precedes(&peers[higher], &peers[best])))
        best = higher;
    if (best >= 0 && peers[best].info.sm_state == CS_SMP_SM_STATE_DISCOVERING)
        return (struct cs_sm_decision){CS_SM_WAIT, best,
                                       "an SM of higher precedence is still discovering"};
    if (best >= 0) {
        bool prio = peers[best].info.priority > me->priority;
        if (best == master)
            return (struct cs_sm_decision){CS_SM_HANDOVER, best,
                                           prio ? "two masters: higher priority"
                                                : "two masters: same priority, lower port GUID"};
        return (struct cs_sm_decision){CS_SM_HANDOVER, best,
                                       prio ? "a standby of higher priority"
                                            : "a standby of the same priority, lower port GUID"};
    }
    return (struct cs_sm_decision){CS_SM_CLAIM, -1, "no other master takes precedence"};
}

static bool same_path(const struct cs_dr_path *a, const struct cs_dr_path *b)
{
    return a->hops == b->hops && memcmp(a->port + 1, b->port + 1, a->hops) == 0;
}

/* The route back to a directed-route requester: its request's return path reversed
 * (ReturnPath[h] is the port the request entered hop h by, the last one ours). False when the
 * transport did not fill it in (a 0 port), or for a LID-routed request. */
static bool route_back(const struct cs_smp *mad, struct cs_dr_path *back)
{
    unsigned hops = mad->hop_count;
    if (mad->mgmt_class != CS_SMP_CLASS_DIRECTED_ROUTE || hops == 0 || hops >= CS_SMP_PATH_SIZE)
        return false;
    *back = (struct cs_dr_path){.hops = (uint8_t)hops};
    bool filled = true;
    for (unsigned h = 1; h <= hops; h++) {
        back->port[h] = mad->return_path[hops + 1 - h];
        filled &= back->port[h] != 0;
    }
    return filled;
}

/* The state a control moves us to from `state`, or -1 when IBA's table (as OpenSM 3.3.23 applies
 * it) has no such transition. HANDOVER to a master and ACKNOWLEDGE change nothing but are legal. */
static int control_target(uint8_t state, uint8_t control)
{
    switch (control) {
    case CS_SMP_SM_HANDOVER:
        if (state == CS_SMP_SM_STATE_STANDBY || state == CS_SMP_SM_STATE_DISCOVERING ||
            state == CS_SMP_SM_STATE_MASTER)
            return CS_SMP_SM_STATE_MASTER;
        return -1;
    case CS_SMP_SM_ACKNOWLEDGE:
        return state == CS_SMP_SM_STATE_STANDBY || state == CS_SMP_SM_STATE_MASTER ? state : -1;
    case CS_SMP_SM_DISABLE:
        return state == CS_SMP_SM_STATE_STANDBY ? CS_SMP_SM_STATE_NOT_ACTIVE : -1;
    case CS_SMP_SM_STANDBY:
        return state == CS_SMP_SM_STATE_NOT_ACTIVE ? CS_SMP_SM_STATE_STANDBY : -1;
    case CS_SMP_SM_DISCOVER:
        return state == CS_SMP_SM_STATE_STANDBY || state == CS_SMP_SM_STATE_MASTER
                   ? CS_SMP_SM_STATE_DISCOVERING
                   : -1;
    default:
        return -1;
    }
}

int cs_sm_answer_sminfo(void *arg, const struct cs_smp *mad, struct cs_smp *answer)
{
    struct cs_sm_identity *me = arg;
    if (mad->attr_id != CS_SMP_ATTR_SM_INFO ||
        (mad->method != CS_SMP_METHOD_GET && mad->method != CS_SMP_METHOD_SET))
        return 0;
    /* Note a directed-route asker: the route back to it can be polled. */
    struct cs_dr_path back;
    bool routed = route_back(mad, &back);
    if (routed && mad->method == CS_SMP_METHOD_GET && me->num_askers < CS_SM_ASKERS_MAX) {
        bool known = false;
        for (unsigned i = 0; i < me->num_askers && !known; i++)
            known = same_path(&me->askers[i], &back);
        if (!known)
            me->askers[me->num_askers++] = back;
    }
    /* A response is the request turned around: same transaction id and paths, GetResp, and in a
     * directed-route SMP the direction bit set. */
    *answer = *mad;
    answer->method = CS_SMP_METHOD_GET_RESP;
    answer->status = mad->mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE ? CS_SMP_STATUS_DIRECTION : 0;
    /* The SM_Key is a secret only where an M_Key protects the SM port: an asker that cannot
     * present that M_Key reads 0 (IBA 14.4.1, M_Key authentication; OpenSM 3.3.23 answers the
     * same way, and ignores an SM whose key differs from its own). */
    bool authenticated = me->m_key == 0 || mad->m_key == me->m_key;
    struct cs_smp_sm_info info = {
        .guid = me->guid,
        .sm_key = authenticated ? me->sm_key : 0,
        .act_count = me->pipe ? (uint32_t)cs_smp_pipe_stats(me->pipe).sent : 0,
        .priority = me->priority,
        .sm_state = me->state,
    };
    if (mad->method == CS_SMP_METHOD_SET) {
        /* A control: legal from a master (ACKNOWLEDGE: from the standby that took over) and for
         * our state; answered with our SMInfo as it was, then the state changes. */
        struct cs_smp_sm_info from;
        cs_smp_sm_info_decode(mad->data, &from);
        uint8_t control = (uint8_t)mad->attr_mod;
        uint8_t sender =
            control == CS_SMP_SM_ACKNOWLEDGE ? CS_SMP_SM_STATE_STANDBY : CS_SMP_SM_STATE_MASTER;
        int target = mad->attr_mod <= CS_SMP_SM_DISCOVER && from.sm_state == sender
                         ? control_target(me->state, control)
                         : -1;
        if (target < 0) {
            answer->status |= CS_SMP_STATUS_INVALID_FIELD;
        } else {
            me->control_prior = me->state;
            me->state = (uint8_t)target;
            me->control = control;
            me->control_from = from.guid;
            me->control_path = routed ? back : (struct cs_dr_path){0};
            if (control == CS_SMP_SM_STANDBY && routed) {
                me->master_guid = from.guid;
                me->master_path = back;
            }
        }
    }
    cs_smp_sm_info_encode(&info, answer->data);
    return 1;
}

/* One SMInfo Get of a poll: to an IsSM port of the sweep (port set) or to an asker. */
struct probe {
    const struct cs_sm_sweep *s;
    const struct cs_log *log;
    uint32_t port;           /* port slot, or CS_NONE for an asker */
    enum cs_log_level level; /* of an answer */
    struct cs_sm_peer peer;
    bool answered;
};

static int sminfo_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                       const struct cs_smp *reply, struct cs_error *err)
{
    (void)req;
    (void)err;
    struct probe *pr = arg;
    const struct cs_fabric *f = &pr->s->fabric;
    const char *desc = pr->port == CS_NONE ? "(asked us)" : f->nodes[f->ports[pr->port].node].desc;
    char path[4 * CS_SMP_PATH_SIZE];
    cs_dr_path_format(&pr->peer.path, path, sizeof path);
    if (result != CS_SMP_OK) {
        /* IsSM without an answering SM (its SM died, or is too busy): nothing to yield to now;
         * the next poll asks again. */
        cs_logf(pr->log, CS_LOG_DEBUG, "SM at DR path %s \"%s\" %s SMInfo", path, desc,
                result == CS_SMP_TIMEOUT ? "does not answer" : "refuses");
        return 0;
    }
    cs_smp_sm_info_decode(reply->data, &pr->peer.info);
    pr->answered = true;
    cs_logf(pr->log, pr->level, "SM on port 0x%016llx \"%s\": state %s, priority %u, DR path %s",
            (unsigned long long)pr->peer.info.guid, desc, cs_sm_state_name(pr->peer.info.sm_state),
            pr->peer.info.priority, path);
    return 0;
}

int cs_sm_poll_sms(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s, struct cs_sm_identity *me,
                   const struct cs_log *log, struct cs_sm_peer **peers, struct cs_error *err)
{
    *peers = NULL;
    const struct cs_fabric *f = &s->fabric;
    /* A master polls on every sweep: its answers are routine. */
    enum cs_log_level level = me->state == CS_SMP_SM_STATE_MASTER ? CS_LOG_DEBUG : CS_LOG_INFO;
    unsigned candidates = me->num_askers;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        if (p != s->sm_port && s->port_info_valid[p] &&
            (s->port_info[p].capability_mask & CS_SMP_PORT_CAP_IS_SM))
            candidates++;
    if (candidates == 0)
        return 0;
    struct probe *probes = cs_calloc_array(candidates, sizeof(*probes), err);
    if (probes == NULL)
        return -1;
    unsigned k = 0;
    for (uint32_t p = 0; p < f->num_port_slots; p++) {
        if (p == s->sm_port || !s->port_info_valid[p] ||
            !(s->port_info[p].capability_mask & CS_SMP_PORT_CAP_IS_SM))
            continue;
        probes[k] = (struct probe){.s = s, .log = log, .port = p, .level = level};
        if (cs_sm_port_path(s, p, &probes[k].peer.path))
            k++;
    }
    /* An asker whose route is that of an IsSM port is asked once; asker_probe[i] says where.
     * Copied: answering SMInfo while this poll runs may add askers. */
    unsigned num_askers = me->num_askers;
    unsigned asker_probe[CS_SM_ASKERS_MAX];
    for (unsigned i = 0; i < num_askers; i++) {
        unsigned j = 0;
        while (j < k && !same_path(&probes[j].peer.path, &me->askers[i]))
            j++;
        if (j == k)
            probes[k++] = (struct probe){
                .s = s, .log = log, .port = CS_NONE, .level = level, .peer.path = me->askers[i]};
        asker_probe[i] = j;
    }
    int rc = 0;
    for (unsigned i = 0; i < k && rc == 0; i++) {
        struct cs_smp smp;
        rc = cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0,
                                  probes[i].peer.path.port, probes[i].peer.path.hops, 0, err);
        if (rc == 0)
            rc =
                cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, sminfo_done, &probes[i], err);
    }
    if (rc == 0)
        rc = cs_smp_pipe_run(pipe, err);
    if (rc < 0) {
        free(probes);
        return -1;
    }
    /* An asker that no longer answers is forgotten (it asks again if it comes back); the ones
     * added during the poll stay. */
    unsigned kept = 0;
    for (unsigned i = 0; i < me->num_askers; i++)
        if (i >= num_askers || probes[asker_probe[i]].answered)
            me->askers[kept++] = me->askers[i];
    me->num_askers = kept;
    /* One entry per SM (by GUID): an SM may answer on more than one route. */
    struct cs_sm_peer *out = cs_calloc_array(k, sizeof(*out), err);
    unsigned n = 0;
    for (unsigned i = 0; i < k && out != NULL; i++) {
        bool seen = !probes[i].answered;
        for (unsigned j = 0; j < n && !seen; j++)
            seen = out[j].info.guid == probes[i].peer.info.guid;
        if (!seen)
            out[n++] = probes[i].peer;
    }
    free(probes);
    if (out == NULL)
        return -1;
    me->num_known = 0;
    for (unsigned i = 0; i < n && me->num_known < CS_SM_ASKERS_MAX; i++)
        me->known[me->num_known++] = out[i].info;
    if (n == 0)
        free(out);
    else
        *peers = out;
    return (int)n;
}

static void log_peer(const struct cs_log *log, enum cs_log_level level, const char *what,
                     const struct cs_sm_peer *p, const char *why)
{
    char path[4 * CS_SMP_PATH_SIZE];
    cs_logf(log, level, "%s: port GUID 0x%016llx, priority %u, %s, DR path %s: %s", what,
            (unsigned long long)p->info.guid, p->info.priority, cs_sm_state_name(p->info.sm_state),
            cs_dr_path_format(&p->path, path, sizeof path), why);
}

/* Go STANDBY polling peer. */
static void stand_by(struct cs_sm_identity *me, const struct cs_sm_peer *peer)
{
    me->state = CS_SMP_SM_STATE_STANDBY;
    me->master_guid = peer->info.guid;
    me->master_path = peer->path;
}

/* A control's answer: status and SMInfo. */
struct control_reply {
    const struct cs_log *log;
    const char *name;
    struct cs_smp_sm_info info;
    bool ok;
};

static const char *control_name(uint8_t control)
{
    static const char *const names[] = {"?",       "HANDOVER", "ACKNOWLEDGE",
                                        "DISABLE", "STANDBY",  "DISCOVER"};
    return control <= CS_SMP_SM_DISCOVER ? names[control] : "?";
}

static int control_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                        const struct cs_smp *reply, struct cs_error *err)
{
    (void)req;
    (void)err;
    struct control_reply *cr = arg;
    if (result == CS_SMP_OK) {
        cs_smp_sm_info_decode(reply->data, &cr->info);
        cr->ok = true;
    } else {
        cs_logf(cr->log, CS_LOG_WARN, "SMInfo %s: %s", cr->name,
                result == CS_SMP_TIMEOUT ? "no answer" : "refused");
    }
    return 0;
}

int cs_sm_send_control(struct cs_smp_pipe *pipe, const struct cs_sm_identity *me,
                       const struct cs_dr_path *path, uint8_t target_state, uint8_t control,
                       const struct cs_log *log, struct cs_smp_sm_info *answer,
                       struct cs_error *err)
{
    struct cs_smp smp;
    if (cs_smp_init_directed(&smp, CS_SMP_METHOD_SET, CS_SMP_ATTR_SM_INFO, control, path->port,
                             path->hops, 0, err) < 0)
        return -1;
    /* Our SMInfo: the receiver checks our state (MASTER for a control, STANDBY for an
     * acknowledgement); the SM_Key goes only to a master, as OpenSM sends it. */
    struct cs_smp_sm_info info = {
        .guid = me->guid,
        .sm_key = target_state == CS_SMP_SM_STATE_MASTER ? me->sm_key : 0,
        .act_count = me->pipe ? (uint32_t)cs_smp_pipe_stats(me->pipe).sent : 0,
        .priority = me->priority,
        .sm_state = control == CS_SMP_SM_ACKNOWLEDGE ? CS_SMP_SM_STATE_STANDBY : me->state,
    };
    cs_smp_sm_info_encode(&info, smp.data);
    smp.m_key = me->m_key;
    struct control_reply cr = {.log = log, .name = control_name(control)};
    if (cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, control_done, &cr, err) < 0 ||
        cs_smp_pipe_run(pipe, err) < 0)
        return -1;
    if (cr.ok && answer != NULL)
        *answer = cr.info;
    return cr.ok ? 1 : 0;
}

/* The answer to one SMInfo Get of the standby's poll. */
struct master_poll {
    struct cs_smp_sm_info info;
    bool answered;
};

static int master_poll_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                            const struct cs_smp *reply, struct cs_error *err)
{
    (void)req;
    (void)err;
    struct master_poll *mp = arg;
    if (result == CS_SMP_OK) {
        cs_smp_sm_info_decode(reply->data, &mp->info);
        mp->answered = true;
    }
    return 0;
}

int cs_sm_poll_master(struct cs_smp_pipe *pipe, const struct cs_sm_identity *me,
                      const struct cs_log *log, struct cs_smp_sm_info *seen, struct cs_error *err)
{
    struct cs_smp smp;
    if (cs_smp_init_directed(&smp, CS_SMP_METHOD_GET, CS_SMP_ATTR_SM_INFO, 0, me->master_path.port,
                             me->master_path.hops, 0, err) < 0)
        return -1;
    smp.m_key = me->m_key;
    struct master_poll mp = {0};
    if (cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, master_poll_done, &mp, err) < 0 ||
        cs_smp_pipe_run(pipe, err) < 0)
        return -1;
    if (seen != NULL)
        *seen = mp.info;
    char path[4 * CS_SMP_PATH_SIZE];
    cs_dr_path_format(&me->master_path, path, sizeof path);
    if (!mp.answered) {
        cs_logf(log, CS_LOG_DEBUG, "standby: the master at DR path %s does not answer", path);
        return 0;
    }
    bool alive = mp.info.guid == me->master_guid &&
                 (mp.info.sm_state == CS_SMP_SM_STATE_MASTER ||
                  (mp.info.sm_state == CS_SMP_SM_STATE_STANDBY &&
                   cs_sm_precedes(mp.info.priority, mp.info.guid, me->priority, me->guid)));
    cs_logf(log, CS_LOG_DEBUG, "standby: SM 0x%016llx at DR path %s: %s, priority %u%s",
            (unsigned long long)mp.info.guid, path, cs_sm_state_name(mp.info.sm_state),
            mp.info.priority, alive ? "" : " (not the master polled)");
    return alive ? 1 : 0;
}

static int trap_done(void *arg, enum cs_smp_result result, const struct cs_smp *req,
                     const struct cs_smp *reply, struct cs_error *err)
{
    (void)req;
    (void)reply;
    (void)err;
    *(bool *)arg = result == CS_SMP_OK;
    return 0;
}

/* Notice (IBA 14.2.5.1 / 13.4.8.2) data offsets of a generic trap 144. */
#define NOTICE_TYPE_INFO 4
#define TRAP_SM_LOCAL_CHANGES 144
#define TRAP144_OTHER_LOCAL_CHANGES 0x01
#define TRAP144_SM_PRIORITY_CHANGE 0x0008

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

int cs_sm_send_trap144(struct cs_smp_pipe *pipe, uint16_t our_lid, uint16_t master_lid,
                       uint32_t capability_mask, const struct cs_log *log, struct cs_error *err)
{
    struct cs_smp smp;
    cs_smp_init_lid_routed(&smp, CS_SMP_METHOD_TRAP, CS_SMP_ATTR_NOTICE, 0, 0);
    uint8_t *d = smp.data;
    d[0] = 0x80 | NOTICE_TYPE_INFO;           /* IsGeneric, Type */
    d[3] = CS_SMP_NODE_TYPE_CA;               /* ProducerType (24 bits) */
    put16(d + 4, TRAP_SM_LOCAL_CHANGES);      /* TrapNumber */
    put16(d + 6, our_lid);                    /* IssuerLID */
    put16(d + 12, our_lid);                   /* DataDetails: LIDADDR */
    d[15] = TRAP144_OTHER_LOCAL_CHANGES;      /* OtherLocalChanges */
    d[16] = (uint8_t)(capability_mask >> 24); /* CapabilityMask */
    d[17] = (uint8_t)(capability_mask >> 16);
    d[18] = (uint8_t)(capability_mask >> 8);
    d[19] = (uint8_t)capability_mask;
    put16(d + 22, TRAP144_SM_PRIORITY_CHANGE); /* ChangeFlags */
    bool repressed = false;
    if (cs_smp_pipe_submit(pipe, &smp, master_lid, trap_done, &repressed, err) < 0 ||
        cs_smp_pipe_run(pipe, err) < 0)
        return -1;
    cs_logf(log, CS_LOG_DEBUG, "standby: trap 144 (SM priority) to LID %u: %s", master_lid,
            repressed ? "repressed" : "no TrapRepress");
    return repressed ? 1 : 0;
}

int cs_sm_elect(struct cs_smp_pipe *pipe, const struct cs_sm_sweep *s, struct cs_sm_identity *me,
                const struct cs_log *log, int wait_ms, struct cs_sm_peer *winner,
                struct cs_error *err)
{
    double deadline = cs_clock_ms() + wait_ms;
    for (;;) {
        struct cs_sm_peer *peers;
        int n = cs_sm_poll_sms(pipe, s, me, log, &peers, err);
        if (n < 0)
            return -1;
        struct cs_sm_decision d = cs_sm_decide(me, peers, (unsigned)n);
        struct cs_sm_peer other = d.peer >= 0 ? peers[d.peer] : (struct cs_sm_peer){0};
        free(peers);
        if (d.verdict == CS_SM_YIELD) {
            log_peer(log, CS_LOG_WARN, "another SM wins", &other, d.why);
            if (winner != NULL)
                *winner = other;
            stand_by(me, &other);
            return 0;
        }
        if (d.verdict == CS_SM_HANDOVER) {
            log_peer(log, CS_LOG_WARN, "handing mastership over", &other, d.why);
            int sent = cs_sm_send_control(pipe, me, &other.path, other.info.sm_state,
                                          CS_SMP_SM_HANDOVER, log, NULL, err);
            if (sent < 0)
                return -1;
            if (sent == 0 || me->state != CS_SMP_SM_STATE_MASTER) {
                /* Refused or lost (it asks again at our next sweep), or a control arrived
                 * meanwhile and moved us: stay as we are. */
                cs_logf(log, CS_LOG_WARN, "handover not taken: staying %s",
                        cs_sm_state_name(me->state));
                return me->state == CS_SMP_SM_STATE_MASTER;
            }
            if (winner != NULL)
                *winner = other;
            stand_by(me, &other);
            return 0;
        }
        if (d.verdict == CS_SM_CLAIM && me->state != CS_SMP_SM_STATE_MASTER) {
            /* Claimed: answer MASTER from now on, and look once more before acting as one. */
            cs_logf(log, CS_LOG_INFO, "master: %s (%d other SM%s answered)", d.why, n,
                    n == 1 ? "" : "s");
            me->state = CS_SMP_SM_STATE_MASTER;
            continue;
        }
        if (d.verdict == CS_SM_CLAIM)
            return 1;
        if (cs_clock_ms() >= deadline) {
            log_peer(log, wait_ms > 0 ? CS_LOG_WARN : CS_LOG_INFO, "staying master", &other,
                     wait_ms > 0 ? "still discovering after the wait; it will find us master"
                                 : "still discovering; it will find us master");
            return 1;
        }
        if (cs_smp_pipe_idle(pipe, ELECT_POLL_STEP_MS, err) < 0)
            return -1;
    }
}
