/* cloudsmd's control socket: the protocol, the server mechanics and the client side.
 *
 * A unix stream socket (default STATE_DIR/cloudsmd.sock, mode 0600) that root, or the user the
 * SM runs as, talks to with `cloudsm sm ...`. One connection carries one request and one reply:
 *
 *     client:  reroute minhop --json\n         one line, at most CS_SM_REQUEST_MAX bytes
 *     server:  ok\n                            status line: "ok" or "error: MESSAGE"
 *              {"engine": "minhop", ...}\n     body (text for people, one JSON object with
 *              <close>                         --json), then the server closes
 *
 * A request is `COMMAND [ARG...] [--json]`, tokens separated by blanks, printable ASCII only.
 * The command table (cs_sm_commands) fixes each command's arguments and the parser checks them
 * (a routing engine cloudsm has, a log level), so that the daemon's handler only acts and the
 * client can refuse a bad command line before it connects. docs/sm/control.md is the manual.
 *
 * The server is meant for a single-threaded SM loop, which calls cs_sm_control_serve(c, 0, ...)
 * between its other work: that call never waits for a client. Accepted connections are
 * non-blocking and held in a table of at most CS_SM_CONTROL_MAX_CLIENTS; each call takes the
 * bytes that have arrived, serves every connection whose line is complete and drops those past
 * their request deadline. Connections beyond the table wait in the listening socket's backlog
 * (the kernel's queue, not the SM's) until a slot frees. So idle or slow clients cost the SM a
 * few system calls per call, never a wait. Replies do not wait for the client either: what its
 * socket does not take at once is queued on the connection (up to
 * CS_SM_CONTROL_REPLY_QUEUE_MAX) and sent by later calls; a client that takes nothing for
 * stall_timeout_ms loses its connection. The one wait left is a reply longer than the queue
 * that the client does not keep up with: the handler's write then waits for the client, at most
 * stall_timeout_ms without progress.
 */
#ifndef CLOUDSM_SM_CONTROL_H
#define CLOUDSM_SM_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cloudsm/error.h"
#include "cloudsm/sm.h"

#define CS_SM_CONTROL_SOCKET_NAME "cloudsmd.sock" /* in the state directory */
#define CS_SM_CONTROL_PATH_MAX 108                /* sizeof sockaddr_un.sun_path, NUL included */
#define CS_SM_REQUEST_MAX 4096                    /* a request line, its newline included */
#define CS_SM_REQUEST_MAX_ARGS 6
#define CS_SM_REQUEST_ARG_MAX 256    /* an argument, NUL included: a path, a GUID list */
#define CS_SM_SUBTREE_MAX 13         /* GUIDs in reroute's subtree= (that many fit one argument) */
#define CS_SM_REPLY_STATUS_MAX 1024  /* a status line, its newline included */
#define CS_SM_CONTROL_MAX_CLIENTS 32 /* connections held at once; more wait in the backlog */
#define CS_SM_CONTROL_BACKLOG 64     /* connections the kernel queues for us beyond those */
#define CS_SM_CONTROL_REPLY_QUEUE_MAX (1024 * 1024) /* reply bytes held for a slow client */

enum cs_sm_command {
    CS_SM_CMD_STATUS,     /* SM state, port, uptime, last sweep, fabric counts, engine */
    CS_SM_CMD_TOPOLOGY,   /* the fabric summary, like `cloudsm topo info` */
    CS_SM_CMD_LFTS,       /* the LFTs the SM holds, opensm-lfts.dump format */
    CS_SM_CMD_REROUTE,    /* ENGINE: route again with ENGINE now, program the differences */
    CS_SM_CMD_LOG_LEVEL,  /* LEVEL: error|warn|info|debug from now on */
    CS_SM_CMD_SWEEP,      /* a heavy sweep now; on|off: periodic light sweeps from now on */
    CS_SM_CMD_VM_LIST,    /* the VMs the SM runs */
    CS_SM_CMD_VM_CREATE,  /* NAME HYPERVISOR VGUID [vf=K]: a VM on a VF of a vSwitch hypervisor */
    CS_SM_CMD_VM_MIGRATE, /* NAME HYPERVISOR [vf=K] [method=M] [port255]: move it, live */
    CS_SM_CMD_VM_DESTROY, /* NAME */
    CS_SM_CMD_ADAPT,      /* [on|off|dry-run]: the adaptation loop's state; its mode from now on */
    /* OpenSM's console commands (include/cloudsm/sm_console.h) */
    CS_SM_CMD_PRIORITY,   /* [N]: the SM priority; N 0..15 from now on */
    CS_SM_CMD_RESWEEP,    /* light|heavy: a sweep now */
    CS_SM_CMD_QUERYLID,   /* LID: what the SM knows of the port with that LID */
    CS_SM_CMD_PORTSTATUS, /* [ca|switch|router]: ports by state, width, speed; the odd ones */
    CS_SM_CMD_LIDBALANCE, /* [GUID]: per switch, the CA LIDs routed out of each port */
    CS_SM_CMD_COUNT
};

struct cs_sm_command_info {
    const char *name;    /* as sent: "log-level" */
    unsigned args;       /* this many arguments, in order */
    unsigned options;    /* then at most this many options: KEY=VALUE or a flag word */
    const char *usage;   /* "log-level LEVEL" */
    const char *summary; /* one line */
    bool changes_state;  /* logged at INFO when served; queries at DEBUG */
};

/* Indexed by enum cs_sm_command. */
extern const struct cs_sm_command_info cs_sm_commands[CS_SM_CMD_COUNT];

/* A VM command's arguments and options, parsed (the VM name stays argv[0]). */
struct cs_sm_vm_args {
    uint64_t hypervisor; /* vm-create, vm-migrate: the destination vSwitch's node GUID */
    uint64_t vguid;      /* vm-create */
    uint8_t vf;          /* vf=K, 1..126; 0: the lowest free VF */
    uint8_t method;      /* method=ftreeminrc (default) or itrc: enum cs_plan_method */
    bool port255;        /* port255: invalidate first */
};

/* reroute's options, parsed (the engine stays argv[0]). */
struct cs_sm_reroute_args {
    uint64_t subtree[CS_SM_SUBTREE_MAX]; /* subtree=GUID,GUID,...: port or node GUIDs */
    uint32_t num_subtree;
    uint8_t order_arg; /* order=PATH (absolute): argv[order_arg] + 6; 0: none */
};

/* A parsed request. Plain data: copy it freely. */
struct cs_sm_request {
    enum cs_sm_command command;
    bool json;     /* --json: the reply body is one JSON object */
    unsigned argc; /* cs_sm_commands[command].args, and the options given */
    char argv[CS_SM_REQUEST_MAX_ARGS][CS_SM_REQUEST_ARG_MAX];
    enum cs_log_level log_level;       /* CS_SM_CMD_LOG_LEVEL: argv[0] parsed */
    int adapt_mode;                    /* CS_SM_CMD_ADAPT: enum cs_adapt_mode, -1 for none */
    struct cs_sm_vm_args vm;           /* CS_SM_CMD_VM_*: the arguments parsed */
    struct cs_sm_reroute_args reroute; /* CS_SM_CMD_REROUTE: its options parsed */
    int priority;                      /* CS_SM_CMD_PRIORITY: 0..15 to set, -1 to show */
    int sweeping;                      /* CS_SM_CMD_SWEEP: 1 on, 0 off, -1 a heavy sweep now */
    bool heavy;                        /* CS_SM_CMD_RESWEEP */
    uint16_t lid;                      /* CS_SM_CMD_QUERYLID: 1..0xbfff */
    uint8_t node_type;                 /* CS_SM_CMD_PORTSTATUS: enum cs_node_type, 0 = every node */
    uint64_t guid; /* CS_SM_CMD_LIDBALANCE: one switch's node GUID, 0 = every switch */
    /* Who asked (filled by the server from SO_PEERCRED; 0 when parsed elsewhere). */
    uint32_t peer_uid;
    int32_t peer_pid;
    uint64_t ticket; /* the server's handle for a reply the handler defers (unique per server) */
};

/* Parse one request line: len bytes, with or without its "\n" (or "\r\n"). Fails with a
 * message fit for the client ("unknown command 'x' (commands: ...)", "reroute wants 1
 * argument: reroute ENGINE", "unknown routing engine 'x' (cloudsm has: ...)"). A NUL, a control
 * character other than a tab, or a byte above 0x7e is refused. */
int cs_sm_request_parse(struct cs_sm_request *req, const char *line, size_t len,
                        struct cs_error *err);

/* The request as one line, "\n" included: cs_sm_request_parse reads it back to the same
 * request. Returns the length, or -1 if size is too small. */
int cs_sm_request_format(const struct cs_sm_request *req, char *buf, size_t size);

/* A status line, "\n" included: "ok" or "error: MESSAGE" with the message's control characters
 * made blanks and cut to fit CS_SM_REPLY_STATUS_MAX. Returns the length. */
size_t cs_sm_reply_status_format(bool ok, const char *message, char *buf, size_t size);

/* Read a status line (with or without its "\n"). *ok, and for "error: " the message into
 * message (control characters made blanks). Fails on anything else: "not a cloudsmd reply". */
int cs_sm_reply_status_parse(const char *line, size_t len, bool *ok, char *message, size_t size,
                             struct cs_error *err);

/* STATE_DIR/cloudsmd.sock into buf; fails if it does not fit a socket address. */
int cs_sm_control_path(const char *state_dir, char *buf, size_t size, struct cs_error *err);

/* ---- server ---- */

struct cs_sm_control_conn; /* one held connection (sm_control.c) */

/* Called once per valid request from an allowed peer. Write the body to reply (text, or one
 * JSON object when req->json) and return 0; or return -1 with err set, and the client gets
 * "error: MESSAGE" instead of the body. The status line goes out with the first bytes of the
 * body that leave the stream's buffer (CS_SM_CONTROL_REPLY_BUFFER), or when the handler
 * returns; so decide success before writing more than that. A handler that fails after that
 * leaves the client an "ok" and a short body (the server logs it). ferror(reply) turns true
 * when the client has gone or stopped reading: a long dump may stop early then. Do not close
 * reply. */
typedef int (*cs_sm_control_handler)(void *arg, const struct cs_sm_request *req, FILE *reply,
                                     struct cs_error *err);
/* A handler may also return 1 without writing: the reply is deferred (work the SM does later,
 * such as a VM migration queued behind others). The connection then waits, outside the request
 * deadline and the poll set, until cs_sm_control_complete(c, req->ticket, ...) runs a second
 * handler that writes the reply as above. */

#define CS_SM_CONTROL_REPLY_BUFFER (64 * 1024)

struct cs_sm_control {
    int fd; /* listening socket; -1 when closed */
    char path[CS_SM_CONTROL_PATH_MAX];
    uint64_t dev, ino; /* the socket file this server made: close removes only that one */
    /* Settings: cs_sm_control_open sets the defaults; change them after open. */
    int request_timeout_ms; /* the whole request line must arrive within this from the
                               accept (1000) */
    int stall_timeout_ms;   /* a client that takes none of its reply this long loses the
                               connection (2000) */
    unsigned max_clients;   /* connections held at once, 1..CS_SM_CONTROL_MAX_CLIENTS (32) */
    struct cs_log log;      /* refusals, bad requests, commands; silent by default */
    struct cs_sm_control_conn *conns; /* the table: CS_SM_CONTROL_MAX_CLIENTS slots */
    unsigned open; /* connections held now: waiting for their line or sending a reply */
    /* Counters since open. */
    uint64_t served;  /* requests given to the handler */
    uint64_t refused; /* peers that are neither root nor the SM's user */
    uint64_t bad;     /* requests that did not parse, came too late, too long or empty */
    uint64_t dropped; /* replies cut off: the client left or stopped reading */
    uint64_t tickets; /* requests served, numbering them */
};

/* Create the listening socket at path (at most CS_SM_CONTROL_PATH_MAX - 1 bytes), mode 0600,
 * non-blocking. A socket file left by an earlier run is replaced; a path that is anything else
 * is refused, and so is a socket another process still listens on (a second cloudsmd). The
 * file is created under umask 0177, so it is 0600 from its first moment and no one else can
 * connect at any moment; umask is process-wide, so call this while no other thread creates
 * files. */
int cs_sm_control_open(struct cs_sm_control *c, const char *path, struct cs_error *err);

/* The listening socket (readable when a client is waiting to be accepted). */
int cs_sm_control_fd(const struct cs_sm_control *c);

/* Accept waiting connections into free slots (checking the peer: others are answered and
 * closed at once), take the bytes each held connection has sent, and for every complete line
 * call handler and send the reply (the part the client's socket does not take goes out in later
 * calls), then close; drop a connection past its request deadline with "error: no request line
 * within N ms", or whose client takes no reply for stall_timeout_ms. With timeout_ms 0 that is
 * one pass that waits for nothing; otherwise passes repeat, sleeping in poll() between them, until
 * at least one connection is finished or timeout_ms has passed (-1: no limit). Returns the
 * connections finished (answered in full, refused, dropped, or closed by the client), 0 also when a
 * signal interrupted the wait, or -1 if the listening socket failed. A client's mistakes are not
 * errors here: they are answered with an "error: " line, logged and counted. */
int cs_sm_control_serve(struct cs_sm_control *c, int timeout_ms, cs_sm_control_handler handler,
                        void *arg, struct cs_error *err);

/* The deferred reply of the request with this ticket: handler writes it (its return as for any
 * handler; 1 again is answered as an error). Returns 1 when sent (or queued for the client),
 * 0 when no connection waits for that ticket (the client left and its slot was reused, or the
 * ticket is unknown). */
int cs_sm_control_complete(struct cs_sm_control *c, uint64_t ticket, cs_sm_control_handler handler,
                           void *arg);

/* Close the socket and remove its file (if it is still the one open made). Safe to call twice
 * and on a zeroed struct with fd = -1. */
void cs_sm_control_close(struct cs_sm_control *c);

/* ---- client ---- */

struct cs_sm_control_client {
    int fd;
    int timeout_ms;                  /* per wait; -1 = forever */
    bool ok;                         /* the status line said "ok" */
    char message[CS_ERROR_MAX];      /* the daemon's message when !ok */
    char pending[CS_SM_REQUEST_MAX]; /* body bytes that came with the status line */
    size_t pending_len;
};

/* Connect to path, send req, read the status line. 0 with cl->ok and cl->message set (the body
 * follows: cs_sm_control_client_body), or -1 when there is no reply: err says why, with a hint
 * ("cannot connect to PATH: no such file (is cloudsmd running?)"). timeout_ms bounds each wait
 * for the daemon (-1: none). Close cl in both cases. */
int cs_sm_control_call(struct cs_sm_control_client *cl, const char *path,
                       const struct cs_sm_request *req, int timeout_ms, struct cs_error *err);

/* Copy the rest of the reply to out until the daemon closes. */
int cs_sm_control_client_body(struct cs_sm_control_client *cl, FILE *out, struct cs_error *err);

void cs_sm_control_client_close(struct cs_sm_control_client *cl);

#endif
