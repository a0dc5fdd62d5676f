/* What an operator asks a running SM about its fabric: the reports behind the control socket's
 * portstatus, querylid and lidbalance (docs/sm/control.md), OpenSM's console commands of the
 * same names over cloudsm's view. Each reads a heavy sweep (and the LFTs the SM holds) and
 * sends nothing; cloudsmd prints them as text or JSON.
 *
 *   portstatus  ports by state, width and speed, as OpenSM's console `portstatus` counts them:
 *               every external port whose PortInfo the sweep read (switch ports 1..N, the CA
 *               ports the sweep arrived on), and the ports that look wrong (disabled; a width or
 *               speed below what both ends enable, or not among the enabled ones)
 *   querylid    the end port that holds a LID: its node (GUIDs, description, type, ports) and
 *               for each of its ports the state, width, speed and the neighbour
 *   lidbalance  for each switch, how many CA and router LIDs its LFT sends out of each port, and
 *               whether the ports towards other switches carry about as many each (max - min
 *               <= 1); OpenSM's console calls this report `switchbalance`
 */
#ifndef CLOUDSM_SM_CONSOLE_H
#define CLOUDSM_SM_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/fabric.h"
#include "cloudsm/lft.h"
#include "cloudsm/sm.h"

/* ---- portstatus ---- */

enum cs_port_issue {
    CS_PORT_DISABLED,        /* PortPhysicalState Disabled */
    CS_PORT_UNENABLED_WIDTH, /* the active width is none of the enabled ones */
    CS_PORT_REDUCED_WIDTH,   /* a wider width is enabled than the one active */
    CS_PORT_UNKNOWN_WIDTH,   /* no active width the SM knows */
    CS_PORT_UNENABLED_SPEED,
    CS_PORT_REDUCED_SPEED,
    CS_PORT_UNKNOWN_SPEED,
    CS_PORT_ISSUE_COUNT
};
/* "disabled", "unenabled width", ... (OpenSM's words). */
const char *cs_port_issue_name(enum cs_port_issue issue);

struct cs_port_issue_entry {
    uint8_t issue; /* enum cs_port_issue */
    uint8_t port;
    uint32_t node; /* in the sweep's fabric */
};

#define CS_PORT_WIDTHS 5 /* 1X, 2X, 4X, 8X, 12X */
struct cs_port_status {
    uint8_t node_type; /* the nodes counted: enum cs_node_type, 0 = all */
    uint64_t nodes, ports;
    uint64_t by_state[5];                /* PortState: [1] down, [2] init, [3] armed, [4] active */
    uint64_t by_width[CS_PORT_WIDTHS];   /* ports not down, by active width (1X, 2X, 4X, 8X, 12X) */
    uint64_t by_speed[CS_SPEED_XDR + 1]; /* ports not down, by enum cs_link_speed */
    uint64_t issues[CS_PORT_ISSUE_COUNT];
    struct cs_port_issue_entry *list; /* every issue, nodes in fabric order */
    uint32_t count, capacity;
};
/* The lanes of by_width[i]. */
extern const uint8_t cs_port_width_lanes[CS_PORT_WIDTHS];

int cs_port_status(const struct cs_sm_sweep *s, uint8_t node_type, struct cs_port_status *out,
                   struct cs_error *err);
void cs_port_status_free(struct cs_port_status *st);

/* ---- querylid ---- */

/* The end port slot (CA or router port, switch port 0) that holds lid, or CS_NONE. */
uint32_t cs_sweep_port_by_lid(const struct cs_sm_sweep *s, uint16_t lid);

/* One port as querylid shows it. */
struct cs_port_view {
    uint8_t num;
    bool known;    /* the sweep read its PortInfo; the rest is zero if not */
    uint8_t state; /* CS_SMP_PORT_STATE_* */
    uint8_t phys;  /* PortPhysicalState: 1 sleep, 2 polling, 3 disabled, 4 training, 5 up */
    uint8_t width; /* lanes, 0 unknown */
    uint8_t speed; /* enum cs_link_speed */
    uint32_t peer; /* port slot at the other end of the cable, CS_NONE */
};
void cs_port_view(const struct cs_sm_sweep *s, uint32_t port, struct cs_port_view *out);
/* "DOWN", "INIT", "ARMED", "ACTIVE" (smpquery's words); "?" else. */
const char *cs_port_state_name(uint8_t state);
/* "Sleep", "Polling", "Disabled", "PortConfigurationTraining", "LinkUp", "LinkErrorRecovery",
 * "PhyTest" (smpquery's); "?" else. */
const char *cs_port_phys_state_name(uint8_t phys);

/* ---- lidbalance ---- */

struct cs_lid_balance_port {
    uint8_t port;
    bool to_switch; /* an active link to another switch: counted for the balance */
    uint32_t lids;  /* CA and router LIDs routed out of it */
};
struct cs_lid_balance {
    uint32_t node;     /* the switch, in the sweep's fabric */
    uint32_t min, max; /* over the ports to_switch (0, 0 when it has none) */
    bool unbalanced;   /* max - min > 1 */
    struct cs_lid_balance_port ports[CS_MAX_PORTS];
    uint8_t num_ports; /* entries of ports: 1..NumPorts */
};
/* The balance of the switch that is entry sw of lfts (made for s->fabric). */
void cs_lid_balance(const struct cs_sm_sweep *s, const struct cs_lfts *lfts, uint32_t sw,
                    struct cs_lid_balance *out);

#endif
