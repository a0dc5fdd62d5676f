/* cloudsmd's OpenSM console commands (console.h). */
#include "cloudsmd/console.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/clock.h"
#include "cloudsm/json.h"
#include "cloudsm/sm_console.h"
#include "cloudsm/smp.h"

bool cloudsmd_console_handles(const struct cs_sm_request *req)
{
    return req->command >= CS_SM_CMD_PRIORITY ||
           (req->command == CS_SM_CMD_SWEEP && req->sweeping >= 0);
}

static int priority(struct cs_sm_core *core, struct cloudsmd_log *log,
                    const struct cs_sm_request *req, FILE *out)
{
    unsigned old = core->me.priority;
    if (req->priority >= 0) {
        cs_sm_core_set_priority(core, (uint8_t)req->priority);
        cloudsmd_logf(log, CS_LOG_INFO, "SM priority %u from now on (control socket; was %u)",
                      (unsigned)req->priority, old);
    }
    if (req->json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_u64(&j, "priority", core->me.priority);
        if (req->priority >= 0)
            cs_json_u64(&j, "old", old);
        cs_json_object_end(&j);
        cs_json_finish(&j);
    } else if (req->priority >= 0) {
        fprintf(out, "SM priority %u -> %u\n", old, core->me.priority);
    } else {
        fprintf(out, "SM priority %u\n", core->me.priority);
    }
    return 0;
}

static int sweeping(struct cs_sm_core *core, struct cloudsmd_log *log,
                    const struct cs_sm_request *req, FILE *out)
{
    bool was_on = !core->sweeping_off;
    core->sweeping_off = req->sweeping == 0;
    if (was_on != (req->sweeping == 1))
        cloudsmd_logf(log, CS_LOG_INFO, "periodic light sweeps %s (control socket)",
                      req->sweeping ? "on" : "off");
    /* Sweeps come back on their period from now, not at once for all the time they were off. */
    if (req->sweeping && !was_on)
        core->next_light_ms = cs_clock_ms() + core->cfg.sweep_interval * 1000.0;
    if (req->json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_bool(&j, "sweeping", !core->sweeping_off);
        cs_json_bool(&j, "was", was_on);
        cs_json_u64(&j, "light_sweeps", core->light_sweeps);
        cs_json_u64(&j, "sweep_interval_s", core->cfg.sweep_interval);
        cs_json_object_end(&j);
        cs_json_finish(&j);
    } else {
        fprintf(out, "periodic light sweeps %s (were %s), sweep_interval %u s%s\n",
                core->sweeping_off ? "off" : "on", was_on ? "on" : "off", core->cfg.sweep_interval,
                core->sweeping_off ? "; traps and resweep still sweep" : "");
    }
    return 0;
}

static int resweep(struct cs_sm_core *core, struct cloudsmd_log *log,
                   const struct cs_sm_request *req, FILE *out, struct cs_error *err)
{
    unsigned before = core->sweeps;
    core->last_light_changed = 0;
    int rc = cs_sm_core_resweep(core, req->heavy, err);
    if (rc < 0 && core->sweep.fabric.num_nodes == 0)
        return -1;
    if (rc < 0) /* the SM serves on with its last view; say what went wrong */
        cloudsmd_logf(log, CS_LOG_ERROR, "resweep: %s", err->msg);
    bool heavy_ran = core->sweeps != before;
    if (req->json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "resweep", req->heavy ? "heavy" : "light");
        if (!req->heavy)
            cs_json_u64(&j, "switches_changed", (uint64_t)core->last_light_changed);
        cs_json_bool(&j, "heavy_sweep", heavy_ran);
        cs_json_u64(&j, "light_sweeps", core->light_sweeps);
        cs_json_u64(&j, "heavy_sweeps", core->sweeps);
        cs_json_u64(&j, "nodes", core->sweep.fabric.num_nodes);
        cs_json_u64(&j, "failures", heavy_ran ? (uint64_t)core->last_sweep_failures : 0);
        cs_json_str(&j, "state", cs_sm_state_name(core->me.state));
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return 0;
    }
    if (!req->heavy)
        fprintf(out, "light sweep: %d switch%s changed or silent%s\n", core->last_light_changed,
                core->last_light_changed == 1 ? "" : "es",
                heavy_ran ? "; heavy sweep followed" : "; no heavy sweep");
    if (heavy_ran)
        fprintf(out, "heavy sweep %u: %u nodes, %.1f ms, %llu SMPs, %d failure%s\n", core->sweeps,
                core->sweep.fabric.num_nodes, core->last_sweep_took_ms,
                (unsigned long long)core->last_sweep_smps, core->last_sweep_failures,
                core->last_sweep_failures == 1 ? "" : "s");
    return 0;
}

/* ---- querylid ---- */

static void json_port(struct cs_json *j, const struct cs_sm_sweep *s, const struct cs_port_view *v)
{
    const struct cs_fabric *f = &s->fabric;
    cs_json_object_begin(j, NULL);
    cs_json_u64(j, "port", v->num);
    cs_json_bool(j, "known", v->known);
    if (v->known) {
        cs_json_str(j, "state", cs_port_state_name(v->state));
        cs_json_str(j, "phys_state", cs_port_phys_state_name(v->phys));
        cs_json_u64(j, "width", v->width);
        cs_json_str(j, "speed", cs_link_speed_name((enum cs_link_speed)v->speed));
    }
    if (v->peer != CS_NONE) {
        const struct cs_port *peer = &f->ports[v->peer];
        const struct cs_node *pn = &f->nodes[peer->node];
        cs_json_object_begin(j, "neighbour");
        cs_json_guid(j, "node_guid", pn->guid);
        cs_json_u64(j, "port", peer->num);
        cs_json_str(j, "type", cs_node_type_long_name((enum cs_node_type)pn->type));
        cs_json_str(j, "description", pn->desc);
        cs_json_object_end(j);
    }
    cs_json_object_end(j);
}

static void text_port(FILE *out, const struct cs_sm_sweep *s, const struct cs_port_view *v)
{
    const struct cs_fabric *f = &s->fabric;
    fprintf(out, "   Port %-3u            : ", v->num);
    if (!v->known)
        fprintf(out, "not read by the sweep");
    else if (v->state == CS_SMP_PORT_STATE_DOWN)
        fprintf(out, "%s %s", cs_port_state_name(v->state), cs_port_phys_state_name(v->phys));
    else
        fprintf(out, "%s %s %uX %s", cs_port_state_name(v->state), cs_port_phys_state_name(v->phys),
                v->width, cs_link_speed_name((enum cs_link_speed)v->speed));
    if (v->peer != CS_NONE) {
        const struct cs_port *peer = &f->ports[v->peer];
        const struct cs_node *pn = &f->nodes[peer->node];
        fprintf(out, " -> 0x%016" PRIx64 " port %u (%s)", pn->guid, peer->num, pn->desc);
    }
    fputc('\n', out);
}

static int querylid(struct cs_sm_core *core, const struct cs_sm_request *req, FILE *out,
                    struct cs_error *err)
{
    const struct cs_sm_sweep *s = &core->sweep;
    uint32_t p = cs_sweep_port_by_lid(s, req->lid);
    if (p == CS_NONE)
        return cs_fail(err, "no port has LID %u", req->lid);
    const struct cs_fabric *f = &s->fabric;
    const struct cs_port *port = &f->ports[p];
    const struct cs_node *node = &f->nodes[port->node];
    if (req->json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_u64(&j, "lid", req->lid);
        cs_json_u64(&j, "base_lid", port->lid);
        cs_json_u64(&j, "lmc", port->lmc);
        cs_json_guid(&j, "port_guid", port->guid);
        cs_json_u64(&j, "port", port->num);
        cs_json_guid(&j, "node_guid", node->guid);
        cs_json_str(&j, "description", node->desc);
        cs_json_str(&j, "type", cs_node_type_long_name((enum cs_node_type)node->type));
        cs_json_u64(&j, "num_ports", node->num_ports);
        cs_json_array_begin(&j, "ports");
        for (unsigned num = 1; num <= node->num_ports; num++) {
            struct cs_port_view v;
            cs_port_view(s, node->first_port + num, &v);
            json_port(&j, s, &v);
        }
        cs_json_array_end(&j);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return 0;
    }
    /* OpenSM's console layout, with the ports' state and neighbours for its port health. */
    fprintf(out, "Query results for LID %u\n", req->lid);
    fprintf(out,
            "   GUID                : 0x%016" PRIx64 "\n"
            "   Node GUID           : 0x%016" PRIx64 "\n"
            "   Node Desc           : %s\n"
            "   Node Type           : %s\n"
            "   Num Ports           : %u\n",
            port->guid, node->guid, node->desc,
            cs_node_type_long_name((enum cs_node_type)node->type), node->num_ports);
    for (unsigned num = 1; num <= node->num_ports; num++) {
        struct cs_port_view v;
        cs_port_view(s, node->first_port + num, &v);
        text_port(out, s, &v);
    }
    return 0;
}

/* ---- portstatus ---- */

/* OpenSM's words for a lane's rate. */
static const char *speed_text(enum cs_link_speed speed)
{
    switch (speed) {
    case CS_SPEED_SDR:
        return "2.5 Gbps";
    case CS_SPEED_DDR:
        return "5.0 Gbps";
    case CS_SPEED_QDR:
        return "10.0 Gbps";
    case CS_SPEED_FDR10:
        return "10.0 Gbps (FDR10)";
    case CS_SPEED_FDR:
        return "14.0625 Gbps";
    case CS_SPEED_EDR:
        return "25.78125 Gbps";
    case CS_SPEED_HDR:
        return "53.125 Gbps";
    case CS_SPEED_NDR:
        return "106.25 Gbps";
    case CS_SPEED_XDR:
        return "212.5 Gbps";
    case CS_SPEED_UNKNOWN:
        break;
    }
    return "?";
}

static const char *const state_keys[5] = {NULL, "down", "init", "armed", "active"};

static int portstatus(struct cs_sm_core *core, const struct cs_sm_request *req, FILE *out,
                      struct cs_error *err)
{
    const struct cs_sm_sweep *s = &core->sweep;
    const struct cs_fabric *f = &s->fabric;
    struct cs_port_status st;
    double t0 = cs_clock_ms();
    if (cs_port_status(s, req->node_type, &st, err) < 0)
        return -1;
    double took_us = (cs_clock_ms() - t0) * 1000.0;
    const char *scope =
        req->node_type ? cs_node_type_long_name((enum cs_node_type)req->node_type) : "ALL";
    if (req->json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "node_type", scope);
        cs_json_u64(&j, "nodes", st.nodes);
        cs_json_u64(&j, "ports", st.ports);
        for (int i = 1; i < 5; i++)
            cs_json_u64(&j, state_keys[i], st.by_state[i]);
        cs_json_object_begin(&j, "width");
        for (int w = 0; w < CS_PORT_WIDTHS; w++) {
            char key[8];
            snprintf(key, sizeof key, "%uX", cs_port_width_lanes[w]);
            cs_json_u64(&j, key, st.by_width[w]);
        }
        cs_json_object_end(&j);
        cs_json_object_begin(&j, "speed");
        for (int sp = CS_SPEED_SDR; sp <= CS_SPEED_XDR; sp++)
            cs_json_u64(&j, cs_link_speed_name((enum cs_link_speed)sp), st.by_speed[sp]);
        cs_json_object_end(&j);
        cs_json_array_begin(&j, "issues");
        for (uint32_t i = 0; i < st.count; i++) {
            const struct cs_port_issue_entry *e = &st.list[i];
            cs_json_object_begin(&j, NULL);
            cs_json_str(&j, "issue", cs_port_issue_name((enum cs_port_issue)e->issue));
            cs_json_guid(&j, "node_guid", f->nodes[e->node].guid);
            cs_json_u64(&j, "port", e->port);
            cs_json_str(&j, "description", f->nodes[e->node].desc);
            cs_json_object_end(&j);
        }
        cs_json_array_end(&j);
        cs_json_object_end(&j);
        cs_json_finish(&j);
        cs_port_status_free(&st);
        return 0;
    }
    /* OpenSM's console layout, line for line; lines for counts of 0 are left out, as there. */
    fprintf(out, "\"%s\" port status:\n", scope);
    fprintf(out, "   %" PRIu64 " port(s) scanned on %" PRIu64 " nodes in %.0f us\n", st.ports,
            st.nodes, took_us);
    for (int i = 1; i < 5; i++)
        if (st.by_state[i])
            fprintf(out, "   %" PRIu64 " %s\n", st.by_state[i], state_keys[i]);
    static const int width_order[CS_PORT_WIDTHS] = {0, 2, 3, 4, 1}; /* 1X 4X 8X 12X, then 2X */
    for (int i = 0; i < CS_PORT_WIDTHS; i++) {
        int w = width_order[i];
        if (st.by_width[w])
            fprintf(out, "   %" PRIu64 " at %uX\n", st.by_width[w], cs_port_width_lanes[w]);
    }
    for (int sp = CS_SPEED_SDR; sp <= CS_SPEED_XDR; sp++)
        if (st.by_speed[sp])
            fprintf(out, "   %" PRIu64 " at %s\n", st.by_speed[sp],
                    speed_text((enum cs_link_speed)sp));
    if (st.count)
        fprintf(out, "\nPossible issues:\n");
    for (int issue = 0; issue < CS_PORT_ISSUE_COUNT; issue++) {
        if (!st.issues[issue])
            continue;
        fprintf(out, "   %" PRIu64 " %s\n", st.issues[issue],
                cs_port_issue_name((enum cs_port_issue)issue));
        for (uint32_t i = 0; i < st.count; i++)
            if (st.list[i].issue == issue)
                fprintf(out, "      0x%016" PRIx64 " %u (%s)\n", f->nodes[st.list[i].node].guid,
                        st.list[i].port, f->nodes[st.list[i].node].desc);
    }
    fputc('\n', out);
    cs_port_status_free(&st);
    return 0;
}

/* ---- lidbalance ---- */

static const struct cs_lfts *sort_lfts; /* qsort has no argument: the set being sorted */

static int by_guid(const void *a, const void *b)
{
    uint64_t ga = sort_lfts->switches[*(const uint32_t *)a].guid;
    uint64_t gb = sort_lfts->switches[*(const uint32_t *)b].guid;
    return ga < gb ? -1 : ga > gb;
}

static void print_balance(FILE *out, struct cs_json *j, const struct cs_sm_sweep *s,
                          const struct cs_lid_balance *b)
{
    const struct cs_node *node = &s->fabric.nodes[b->node];
    if (j) {
        cs_json_object_begin(j, NULL);
        cs_json_guid(j, "node_guid", node->guid);
        cs_json_str(j, "description", node->desc);
        cs_json_u64(j, "lid", s->fabric.ports[node->first_port].lid);
        cs_json_bool(j, "balanced", !b->unbalanced);
        cs_json_u64(j, "min", b->min);
        cs_json_u64(j, "max", b->max);
        cs_json_array_begin(j, "ports");
        for (unsigned i = 0; i < b->num_ports; i++) {
            cs_json_object_begin(j, NULL);
            cs_json_u64(j, "port", b->ports[i].port);
            cs_json_u64(j, "lids", b->ports[i].lids);
            cs_json_bool(j, "to_switch", b->ports[i].to_switch);
            cs_json_object_end(j);
        }
        cs_json_array_end(j);
        cs_json_object_end(j);
        return;
    }
    /* OpenSM's `switchbalance verbose`: the ports towards other switches. */
    fprintf(out, "%sSwitch: 0x%016" PRIx64 " (%s)\n", b->unbalanced ? "Unbalanced " : "",
            node->guid, node->desc);
    for (unsigned i = 0; i < b->num_ports; i++)
        if (b->ports[i].to_switch)
            fprintf(out, "Port %u: %u\n", b->ports[i].port, b->ports[i].lids);
}

static int lidbalance(struct cs_sm_core *core, const struct cs_sm_request *req, FILE *out,
                      struct cs_error *err)
{
    const struct cs_lfts *t = &core->lfts;
    const struct cs_sm_sweep *s = &core->sweep;
    uint32_t *order = malloc(((size_t)t->num_switches + 1) * sizeof *order);
    if (!order)
        return cs_fail(err, "out of memory");
    uint32_t n = 0;
    for (uint32_t sw = 0; sw < t->num_switches; sw++)
        if (t->switches[sw].node < s->fabric.num_nodes &&
            (!req->guid || t->switches[sw].guid == req->guid))
            order[n++] = sw;
    if (req->guid && n == 0) {
        free(order);
        return cs_fail(err, "no switch with node GUID 0x%016" PRIx64 " in the SM's tables",
                       req->guid);
    }
    sort_lfts = t;
    qsort(order, n, sizeof *order, by_guid);
    struct cs_json j;
    if (req->json) {
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_array_begin(&j, "switches");
    }
    uint32_t unbalanced = 0;
    for (uint32_t i = 0; i < n; i++) {
        struct cs_lid_balance b;
        cs_lid_balance(s, t, order[i], &b);
        unbalanced += b.unbalanced;
        print_balance(out, req->json ? &j : NULL, s, &b);
    }
    if (req->json) {
        cs_json_array_end(&j);
        cs_json_u64(&j, "unbalanced", unbalanced);
        cs_json_object_end(&j);
        cs_json_finish(&j);
    }
    free(order);
    return 0;
}

int cloudsmd_console_serve(struct cs_sm_core *core, struct cloudsmd_log *log,
                           const struct cs_sm_request *req, FILE *out, struct cs_error *err)
{
    switch (req->command) {
    case CS_SM_CMD_PRIORITY:
        return priority(core, log, req, out);
    case CS_SM_CMD_SWEEP:
        return sweeping(core, log, req, out);
    case CS_SM_CMD_RESWEEP:
        return resweep(core, log, req, out, err);
    case CS_SM_CMD_QUERYLID:
        return querylid(core, req, out, err);
    case CS_SM_CMD_PORTSTATUS:
        return portstatus(core, req, out, err);
    case CS_SM_CMD_LIDBALANCE:
        return lidbalance(core, req, out, err);
    default:
        return cs_fail(err, "not a console command");
    }
}
