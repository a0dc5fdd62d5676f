/* cloudsmd's control socket: request lines, status lines, the server and the client
 * (include/cloudsm/sm_control.h). */
#include "cloudsm/sm_control.h"

#include "cloudsm/adapt_decision.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cloudsm/clock.h"
#include "cloudsm/route.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/vm.h"
#include "cloudsm/vm_plan.h"

_Static_assert(sizeof(((struct sockaddr_un *)0)->sun_path) == CS_SM_CONTROL_PATH_MAX,
               "CS_SM_CONTROL_PATH_MAX is sun_path's size");

const struct cs_sm_command_info cs_sm_commands[CS_SM_CMD_COUNT] = {
    [CS_SM_CMD_STATUS] = {"status", 0, 0, "status",
                          "SM state, port, uptime, last sweep, fabric counts, routing", false},
    [CS_SM_CMD_TOPOLOGY] = {"topology", 0, 0, "topology",
                            "the fabric the SM swept: nodes, switches, CAs, links", false},
    [CS_SM_CMD_LFTS] = {"lfts", 0, 0, "lfts",
                        "the forwarding tables the SM programmed (opensm-lfts.dump)", false},
    [CS_SM_CMD_REROUTE] = {"reroute", 1, 2, "reroute ENGINE [subtree=GUID,...] [order=PATH]",
                           "route again with ENGINE now (a sub-tree, a node order) and program "
                           "the blocks that differ",
                           true},
    [CS_SM_CMD_LOG_LEVEL] = {"log-level", 1, 0, "log-level LEVEL",
                             "log at LEVEL (error, warn, info, debug) from now on", true},
    [CS_SM_CMD_SWEEP] = {"sweep", 0, 1, "sweep [on|off]",
                         "a heavy sweep now; on|off: periodic light sweeps from now on", true},
    [CS_SM_CMD_VM_LIST] = {"vm-list", 0, 0, "vm-list",
                           "the VMs the SM runs: name, vGUID, LID, hypervisor, VF", false},
    [CS_SM_CMD_VM_CREATE] = {"vm-create", 3, 1, "vm-create NAME HYPERVISOR VGUID [vf=K]",
                             "a VM on a VF of a vSwitch hypervisor (its LID by the policy)", true},
    [CS_SM_CMD_VM_MIGRATE] = {"vm-migrate", 2, 3,
                              "vm-migrate NAME HYPERVISOR [vf=K] [method=ftreeminrc|itrc] "
                              "[port255]",
                              "move a VM, its LID and vGUID with it, in a few SMPs", true},
    [CS_SM_CMD_VM_DESTROY] = {"vm-destroy", 1, 0, "vm-destroy NAME",
                              "stop a VM: its VF lets its LID and vGUID go", true},
    [CS_SM_CMD_ADAPT] = {"adapt", 0, 1, "adapt [on|off|dry-run]",
                         "the adaptation loop: its mode, rules and decisions; on, off (the kill "
                         "switch) or dry-run from now on",
                         true},
    [CS_SM_CMD_PRIORITY] = {"priority", 0, 1, "priority [N]",
                            "the SM priority SMInfo answers with; N (0..15) from now on", true},
    [CS_SM_CMD_RESWEEP] = {"resweep", 1, 0, "resweep light|heavy",
                           "a light sweep (a heavy one if it finds a change) or a heavy sweep now",
                           true},
    [CS_SM_CMD_QUERYLID] = {"querylid", 1, 0, "querylid LID",
                            "the port with that LID: GUIDs, description, type, ports, neighbours",
                            false},
    [CS_SM_CMD_PORTSTATUS] = {"portstatus", 0, 1, "portstatus [ca|switch|router]",
                              "ports by state, width and speed, and the ones that look wrong",
                              false},
    [CS_SM_CMD_LIDBALANCE] = {"lidbalance", 0, 1, "lidbalance [SWITCH_GUID]",
                              "per switch, the CA LIDs routed out of each port, and the balance",
                              false},
};

/* ---- request and status lines ---- */

/* A token for an error message: printable already (the parser refuses anything else), but
 * possibly 4 KiB long. */
static const char *shown(const char *p, size_t len, char buf[48])
{
    if (len < 48) {
        memcpy(buf, p, len);
        buf[len] = '\0';
    } else {
        memcpy(buf, p, 40);
        memcpy(buf + 40, "...", 4);
    }
    return buf;
}

static bool token_is(const char *p, size_t len, const char *word)
{
    return strlen(word) == len && memcmp(p, word, len) == 0;
}

static const char *blank_end(const char *p, const char *end, bool blank)
{
    while (p < end && ((*p == ' ' || *p == '\t') == blank))
        p++;
    return p;
}

/* "status, topology, ...": for the messages that say what a request may be. */
#define COMMAND_NAMES_MAX 256
static const char *command_names(char names[COMMAND_NAMES_MAX])
{
    size_t used = 0;
    names[0] = '\0';
    for (int c = 0; c < CS_SM_CMD_COUNT && used < COMMAND_NAMES_MAX; c++)
        used += (size_t)snprintf(names + used, COMMAND_NAMES_MAX - used, "%s%s", c ? ", " : "",
                                 cs_sm_commands[c].name);
    return names;
}

static int find_command(const char *p, size_t len, struct cs_error *err)
{
    for (int c = 0; c < CS_SM_CMD_COUNT; c++)
        if (token_is(p, len, cs_sm_commands[c].name))
            return c;
    char names[COMMAND_NAMES_MAX], buf[48];
    return cs_fail(err, "unknown command '%s' (commands: %s)", shown(p, len, buf),
                   command_names(names));
}

/* A GUID argument: 0x hex or decimal, not 0. */
static int parse_guid(const char *text, const char *what, uint64_t *out, struct cs_error *err)
{
    char *end;
    errno = 0;
    unsigned long long v = text[0] == '-' || text[0] == '+' ? 0 : strtoull(text, &end, 0);
    if (!v || errno || *end)
        return cs_fail(err, "%s '%s' is not a GUID (0x hex or decimal, not 0)", what, text);
    *out = v;
    return 0;
}

/* The VM commands' arguments: NAME, GUIDs, then options. */
static int check_vm_arguments(struct cs_sm_request *req, struct cs_error *err)
{
    const struct cs_sm_command_info *info = &cs_sm_commands[req->command];
    struct cs_sm_vm_args *vm = &req->vm;
    vm->method = CS_PLAN_FTREEMINRC;
    if (req->command == CS_SM_CMD_VM_LIST)
        return 0;
    if (strlen(req->argv[0]) > CS_VM_NAME_MAX)
        return cs_fail(err, "a VM name is at most %d bytes ('%.40s...' is longer)", CS_VM_NAME_MAX,
                       req->argv[0]);
    if (info->args >= 2 && parse_guid(req->argv[1], "hypervisor", &vm->hypervisor, err) < 0)
        return -1;
    if (info->args >= 3 && parse_guid(req->argv[2], "vGUID", &vm->vguid, err) < 0)
        return -1;
    for (unsigned a = info->args; a < req->argc; a++) {
        const char *opt = req->argv[a];
        unsigned vf;
        char *end;
        if (strncmp(opt, "vf=", 3) == 0) {
            errno = 0;
            unsigned long v = isdigit((unsigned char)opt[3]) ? strtoul(opt + 3, &end, 10) : 0;
            vf = (unsigned)v;
            if (errno || !v || v > CS_VFS_MAX || *end)
                return cs_fail(err, "'%s': a VF is 1..%u", opt, CS_VFS_MAX);
            vm->vf = (uint8_t)vf;
        } else if (req->command == CS_SM_CMD_VM_MIGRATE && strncmp(opt, "method=", 7) == 0) {
            enum cs_plan_method m;
            if (cs_plan_method_parse(opt + 7, &m) < 0)
                return cs_fail(err, "'%s': the method is ftreeminrc or itrc", opt);
            vm->method = (uint8_t)m;
        } else if (req->command == CS_SM_CMD_VM_MIGRATE && strcmp(opt, "port255") == 0) {
            vm->port255 = true;
        } else {
            return cs_fail(err, "unknown option '%s': %s", opt, info->usage);
        }
    }
    return 0;
}

/* reroute's options: subtree=GUID[,GUID...] and order=PATH (absolute: the daemon's working
 * directory is not the client's). */
static int check_reroute_options(struct cs_sm_request *req, struct cs_error *err)
{
    const struct cs_sm_command_info *info = &cs_sm_commands[req->command];
    struct cs_sm_reroute_args *rr = &req->reroute;
    for (unsigned a = info->args; a < req->argc; a++) {
        char *opt = req->argv[a];
        if (strncmp(opt, "subtree=", 8) == 0 && rr->num_subtree == 0) {
            for (char *p = opt + 8;;) {
                char *comma = strchr(p, ',');
                char guid[CS_SM_REQUEST_ARG_MAX];
                size_t len = comma ? (size_t)(comma - p) : strlen(p);
                memcpy(guid, p, len);
                guid[len] = '\0';
                if (rr->num_subtree == CS_SM_SUBTREE_MAX)
                    return cs_fail(err, "'%s': at most %d GUIDs", opt, CS_SM_SUBTREE_MAX);
                if (parse_guid(guid, "subtree node", &rr->subtree[rr->num_subtree], err) < 0)
                    return -1;
                rr->num_subtree++;
                if (!comma)
                    break;
                p = comma + 1;
            }
        } else if (strncmp(opt, "order=", 6) == 0 && rr->order_arg == 0) {
            if (opt[6] != '/')
                return cs_fail(err, "'%s': the order file's path must be absolute", opt);
            rr->order_arg = (uint8_t)a;
        } else {
            return cs_fail(err, "unknown or repeated option '%s': %s", opt, info->usage);
        }
    }
    return 0;
}

/* A number in [min, max], decimal or 0x hex, the whole token. */
static bool parse_bounded(const char *text, unsigned long max, unsigned long *out)
{
    char *end;
    errno = 0;
    if (!isdigit((unsigned char)text[0]))
        return false;
    unsigned long v = strtoul(text, &end, 0);
    if (errno || *end || v > max)
        return false;
    *out = v;
    return true;
}

/* The OpenSM console commands' arguments (and sweep's on|off). */
static int check_console_arguments(struct cs_sm_request *req, struct cs_error *err)
{
    const char *arg = req->argc > 0 ? req->argv[0] : NULL;
    unsigned long v;
    switch (req->command) {
    case CS_SM_CMD_SWEEP:
        req->sweeping = !arg ? -1 : strcmp(arg, "on") == 0 ? 1 : strcmp(arg, "off") == 0 ? 0 : -2;
        if (req->sweeping == -2)
            return cs_fail(err, "'%s': sweep [on|off]", arg);
        return 0;
    case CS_SM_CMD_PRIORITY:
        req->priority = -1;
        if (arg && !parse_bounded(arg, 15, &v))
            return cs_fail(err, "priority '%s' is not 0..15", arg);
        if (arg)
            req->priority = (int)v;
        return 0;
    case CS_SM_CMD_RESWEEP:
        if (strcmp(arg, "light") != 0 && strcmp(arg, "heavy") != 0)
            return cs_fail(err, "'%s': resweep light|heavy", arg);
        req->heavy = strcmp(arg, "heavy") == 0;
        return 0;
    case CS_SM_CMD_QUERYLID:
        if (!parse_bounded(arg, 0xbfff, &v) || v == 0)
            return cs_fail(err, "'%s' is not a unicast LID (1..0xbfff)", arg);
        req->lid = (uint16_t)v;
        return 0;
    case CS_SM_CMD_PORTSTATUS:
        if (!arg)
            return 0;
        req->node_type = strcmp(arg, "ca") == 0       ? CS_NODE_CA
                         : strcmp(arg, "switch") == 0 ? CS_NODE_SWITCH
                         : strcmp(arg, "router") == 0 ? CS_NODE_ROUTER
                                                      : 0;
        if (!req->node_type)
            return cs_fail(err, "'%s': portstatus [ca|switch|router]", arg);
        return 0;
    case CS_SM_CMD_LIDBALANCE:
        return arg ? parse_guid(arg, "switch", &req->guid, err) : 0;
    default:
        return 0;
    }
}

/* The arguments a command's table entry does not check by count: what they name must exist. */
static int check_arguments(struct cs_sm_request *req, struct cs_error *err)
{
    if (req->command >= CS_SM_CMD_VM_LIST && req->command <= CS_SM_CMD_VM_DESTROY)
        return check_vm_arguments(req, err);
    if (req->command == CS_SM_CMD_REROUTE && !cs_route_engine_find(req->argv[0])) {
        char names[128];
        cs_route_engine_names(names, sizeof names);
        return cs_fail(err, "unknown routing engine '%s' (cloudsm has: %s)", req->argv[0], names);
    }
    if (req->command == CS_SM_CMD_REROUTE)
        return check_reroute_options(req, err);
    if (req->command == CS_SM_CMD_ADAPT) {
        req->adapt_mode = req->argc > 0 ? cs_adapt_mode_parse(req->argv[0]) : -1;
        if (req->argc > 0 && req->adapt_mode < 0)
            return cs_fail(err, "unknown adaptation mode '%s' (on, off, dry-run)", req->argv[0]);
    }
    if (req->command >= CS_SM_CMD_PRIORITY || req->command == CS_SM_CMD_SWEEP)
        return check_console_arguments(req, err);
    if (req->command == CS_SM_CMD_LOG_LEVEL) {
        if (!cs_log_level_parse(req->argv[0], &req->log_level))
            return cs_fail(err, "unknown log level '%s' (error, warn, info, debug)", req->argv[0]);
        /* One spelling in the daemon's log and in a formatted request (and no trace of the
         * other in the buffer: a request is compared and copied as plain bytes). */
        memset(req->argv[0], 0, sizeof req->argv[0]);
        snprintf(req->argv[0], sizeof req->argv[0], "%s", cs_log_level_name(req->log_level));
    }
    return 0;
}

int cs_sm_request_parse(struct cs_sm_request *req, const char *line, size_t len,
                        struct cs_error *err)
{
    memset(req, 0, sizeof *req);
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (len >= CS_SM_REQUEST_MAX)
        return cs_fail(err, "request longer than %d bytes", CS_SM_REQUEST_MAX - 1);
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)line[i];
        if ((ch < 0x20 && ch != '\t') || ch > 0x7e)
            return cs_fail(err, "request holds byte 0x%02x at column %zu (only printable ASCII)",
                           ch, i + 1);
    }
    const char *end = line + len, *p = blank_end(line, end, true);
    if (p == end) {
        char names[COMMAND_NAMES_MAX];
        return cs_fail(err, "empty request (commands: %s)", command_names(names));
    }
    const char *tok_end = blank_end(p, end, false);
    int command = find_command(p, (size_t)(tok_end - p), err);
    if (command < 0)
        return -1;
    req->command = (enum cs_sm_command)command;
    const struct cs_sm_command_info *info = &cs_sm_commands[command];
    char buf[48];
    for (p = blank_end(tok_end, end, true); p < end; p = blank_end(tok_end, end, true)) {
        tok_end = blank_end(p, end, false);
        size_t tlen = (size_t)(tok_end - p);
        if (token_is(p, tlen, "--json")) {
            req->json = true;
            continue;
        }
        if (p[0] == '-' && tlen > 1)
            return cs_fail(err, "unknown option '%s' (the only option is --json)",
                           shown(p, tlen, buf));
        if (req->argc == info->args + info->options) {
            if (info->args + info->options == 0)
                return cs_fail(err, "%s takes no arguments ('%s' is one too many)", info->name,
                               shown(p, tlen, buf));
            return cs_fail(err, "too many arguments ('%s'): %s", shown(p, tlen, buf), info->usage);
        }
        if (tlen >= CS_SM_REQUEST_ARG_MAX)
            return cs_fail(err, "argument '%s' is longer than %d bytes", shown(p, tlen, buf),
                           CS_SM_REQUEST_ARG_MAX - 1);
        memcpy(req->argv[req->argc], p, tlen);
        req->argv[req->argc][tlen] = '\0';
        req->argc++;
    }
    if (req->argc < info->args)
        return cs_fail(err, "%s wants %u argument%s: %s", info->name, info->args,
                       info->args == 1 ? "" : "s", info->usage);
    return check_arguments(req, err);
}

int cs_sm_request_format(const struct cs_sm_request *req, char *buf, size_t size)
{
    size_t used = 0;
    const char *parts[CS_SM_REQUEST_MAX_ARGS + 3];
    unsigned n = 0;
    parts[n++] = cs_sm_commands[req->command].name;
    for (unsigned a = 0; a < req->argc && a < CS_SM_REQUEST_MAX_ARGS; a++)
        parts[n++] = req->argv[a];
    if (req->json)
        parts[n++] = "--json";
    for (unsigned i = 0; i < n; i++) {
        size_t len = strnlen(parts[i], CS_SM_REQUEST_ARG_MAX);
        if (used + (i > 0) + len + 2 > size)
            return -1;
        if (i > 0)
            buf[used++] = ' ';
        memcpy(buf + used, parts[i], len);
        used += len;
    }
    buf[used++] = '\n';
    buf[used] = '\0';
    return (int)used;
}

/* Control characters in a message would break the one-line framing (and a terminal): they
 * become blanks. Bytes above 0x7e stay (a node description may be UTF-8) unless ascii_only. */
static void copy_flat(char *dst, const char *src, size_t len, bool ascii_only)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)src[i];
        dst[i] = ch < 0x20 || ch == 0x7f ? ' ' : ch > 0x7f && ascii_only ? '?' : (char)ch;
    }
    dst[len] = '\0';
}

size_t cs_sm_reply_status_format(bool ok, const char *message, char *buf, size_t size)
{
    if (size > CS_SM_REPLY_STATUS_MAX + 1)
        size = CS_SM_REPLY_STATUS_MAX + 1; /* the line's bytes plus the NUL */
    static const char prefix[] = "error: ";
    if (size < sizeof prefix + 1) { /* no room for a line the client can read */
        if (size > 0)
            buf[0] = '\0';
        return 0;
    }
    if (ok) {
        memcpy(buf, "ok\n", 4);
        return 3;
    }
    size_t room = size - sizeof prefix - 1; /* prefix (its NUL counted), '\n', NUL */
    size_t len = strnlen(message ? message : "", room);
    memcpy(buf, prefix, sizeof prefix - 1);
    copy_flat(buf + sizeof prefix - 1, message ? message : "", len, false);
    len += sizeof prefix - 1;
    buf[len++] = '\n';
    buf[len] = '\0';
    return len;
}

int cs_sm_reply_status_parse(const char *line, size_t len, bool *ok, char *message, size_t size,
                             struct cs_error *err)
{
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (size > 0)
        message[0] = '\0';
    if (token_is(line, len, "ok")) {
        *ok = true;
        return 0;
    }
    static const char prefix[] = "error: ";
    if (len >= sizeof prefix - 1 && memcmp(line, prefix, sizeof prefix - 1) == 0) {
        *ok = false;
        size_t mlen = len - (sizeof prefix - 1);
        if (size > 0)
            copy_flat(message, line + sizeof prefix - 1, mlen < size ? mlen : size - 1, false);
        return 0;
    }
    char flat[48], buf[48]; /* whatever answered, shown as plain ASCII */
    size_t cut = len < 47 ? len : 47;
    copy_flat(flat, line, cut, true);
    return cs_fail(err, "not a cloudsmd reply: '%s'", shown(flat, cut, buf));
}

int cs_sm_control_path(const char *state_dir, char *buf, size_t size, struct cs_error *err)
{
    if (!state_dir || !state_dir[0])
        state_dir = ".";
    size_t dlen = strlen(state_dir);
    bool slash = state_dir[dlen - 1] == '/';
    int n = snprintf(buf, size, "%s%s%s", state_dir, slash ? "" : "/", CS_SM_CONTROL_SOCKET_NAME);
    if (n < 0 || (size_t)n >= size || n >= CS_SM_CONTROL_PATH_MAX)
        return cs_fail(err,
                       "control socket path %s%s%s is too long for a unix socket (at most %d "
                       "bytes)",
                       state_dir, slash ? "" : "/", CS_SM_CONTROL_SOCKET_NAME,
                       CS_SM_CONTROL_PATH_MAX - 1);
    return 0;
}

/* ---- I/O with deadlines, shared by server and client ---- */

/* Wait until fd is ready for events. 1 ready, 0 timed out, -1 error (errno). EINTR counts as
 * ready: the caller's next read or write decides. */
static int wait_for(int fd, short events, int timeout_ms)
{
    struct pollfd p = {.fd = fd, .events = events};
    int r = poll(&p, 1, timeout_ms);
    if (r < 0 && errno == EINTR)
        return 1;
    return r;
}

/* Send all of buf on a non-blocking socket; give up when the peer takes nothing for
 * stall_ms (-1: wait forever). MSG_NOSIGNAL: a peer that went away is an error, not SIGPIPE
 * for the whole daemon. */
static int send_all(int fd, const char *buf, size_t len, int stall_ms)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        int r = wait_for(fd, POLLOUT, stall_ms);
        if (r == 0)
            errno = ETIMEDOUT;
        if (r <= 0)
            return -1;
    }
    return 0;
}

/* ---- server ---- */

/* One accepted connection: first its request line comes in; then, if the client did not take
 * the whole reply while the handler wrote it, the rest goes out from out. */
struct cs_sm_control_conn {
    int fd; /* -1: a free slot */
    uint32_t uid;
    int32_t pid;
    double deadline_ms; /* reading: the whole line must be here by then (cs_clock_ms());
                           replying: the client must take some of the reply by then */
    size_t used;
    char line[CS_SM_REQUEST_MAX];
    bool waiting;             /* the handler deferred the reply (cs_sm_control_complete) */
    struct cs_sm_request req; /* waiting: the request, line: it formatted for the log */
    bool replying;            /* the handler is done; out[out_sent .. out_len) is still to send */
    const char *command;      /* replying: the command's name, for the log */
    char *out;                /* the reply's bytes the client's socket did not take yet */
    size_t out_sent, out_len, out_cap;
};

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

static int fill_address(struct sockaddr_un *addr, const char *path, struct cs_error *err)
{
    size_t len = strlen(path);
    if (len == 0)
        return cs_fail(err, "no control socket path");
    if (len >= sizeof addr->sun_path)
        return cs_fail(err,
                       "control socket path %s is too long for a unix socket (at most %zu "
                       "bytes)",
                       path, sizeof addr->sun_path - 1);
    memset(addr, 0, sizeof *addr);
    addr->sun_family = AF_UNIX;
    memcpy(addr->sun_path, path, len + 1);
    return 0;
}

/* What is at path now: nothing, or a socket left by an earlier run (removed), is fine; a live
 * socket or anything else is not ours to replace. */
static int clear_path(const struct sockaddr_un *addr, struct cs_error *err)
{
    const char *path = addr->sun_path;
    struct stat st;
    if (lstat(path, &st) < 0)
        return errno == ENOENT ? 0 : cs_fail(err, "%s: %s", path, strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        return cs_fail(err, "%s exists and is not a socket: not replacing it", path);
    /* Non-blocking: a live server with a full backlog answers EAGAIN instead of blocking us. */
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (probe < 0)
        return cs_fail_errno(err, "socket");
    int rc = connect(probe, (const struct sockaddr *)addr, sizeof *addr);
    int saved = errno;
    close(probe);
    if (rc == 0 || saved == EAGAIN || saved == EINPROGRESS)
        return cs_fail(err, "%s: another process is listening on it (another cloudsmd?)", path);
    if (saved != ECONNREFUSED)
        return cs_fail(err, "%s: cannot tell whether it is in use: %s", path, strerror(saved));
    if (unlink(path) < 0 && errno != ENOENT)
        return cs_fail(err, "cannot remove the stale socket %s: %s", path, strerror(errno));
    return 0;
}

int cs_sm_control_open(struct cs_sm_control *c, const char *path, struct cs_error *err)
{
    memset(c, 0, sizeof *c);
    c->fd = -1;
    c->request_timeout_ms = 1000;
    c->stall_timeout_ms = 2000;
    c->max_clients = CS_SM_CONTROL_MAX_CLIENTS;
    struct sockaddr_un addr;
    if (fill_address(&addr, path, err) < 0 || clear_path(&addr, err) < 0)
        return -1;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return cs_fail_errno(err, "socket");
    /* bind() creates the file with 0777 less the umask: 0177 makes it 0600 from its first
     * moment (no one else may connect, and a client that finds the file sees its final mode);
     * the chmod below keeps it 0600 should bind ever ignore the umask. */
    mode_t old_mask = umask(0177);
    int rc = bind(fd, (const struct sockaddr *)&addr, sizeof addr);
    int saved = errno;
    umask(old_mask);
    if (rc < 0) {
        close(fd);
        return cs_fail(err, "cannot create the control socket %s: %s", path, strerror(saved));
    }
    struct stat st;
    if (chmod(path, 0600) < 0 || lstat(path, &st) < 0 || listen(fd, CS_SM_CONTROL_BACKLOG) < 0) {
        saved = errno;
        unlink(path);
        close(fd);
        return cs_fail(err, "cannot set up the control socket %s: %s", path, strerror(saved));
    }
    c->conns = calloc(CS_SM_CONTROL_MAX_CLIENTS, sizeof *c->conns);
    if (!c->conns) {
        unlink(path);
        close(fd);
        return cs_fail(err, "out of memory for the control socket's connections");
    }
    for (unsigned i = 0; i < CS_SM_CONTROL_MAX_CLIENTS; i++)
        c->conns[i].fd = -1;
    c->fd = fd;
    memcpy(c->path, addr.sun_path, sizeof c->path);
    c->dev = (uint64_t)st.st_dev;
    c->ino = (uint64_t)st.st_ino;
    return 0;
}

int cs_sm_control_fd(const struct cs_sm_control *c)
{
    return c->fd;
}

void cs_sm_control_close(struct cs_sm_control *c)
{
    if (c->conns)
        for (unsigned i = 0; i < CS_SM_CONTROL_MAX_CLIENTS; i++) {
            close_fd(&c->conns[i].fd);
            free(c->conns[i].out);
        }
    free(c->conns);
    c->conns = NULL;
    c->open = 0;
    if (c->fd < 0)
        return;
    close_fd(&c->fd);
    /* A newer cloudsmd may have replaced the file since: remove it only if it is still ours. */
    struct stat st;
    if (lstat(c->path, &st) == 0 && S_ISSOCK(st.st_mode) && (uint64_t)st.st_dev == c->dev &&
        (uint64_t)st.st_ino == c->ino)
        unlink(c->path);
}

/* One connection's reply: the FILE the handler writes to sends through here. */
struct reply_sink {
    const struct cs_sm_control *c;
    int fd;
    struct cs_sm_control_conn *conn; /* its slot, whose out queues what the socket does not
                                        take; NULL for a peer refused before it got one */
    bool status_sent;
    bool discard; /* the handler failed before anything was sent: drop what it wrote */
    bool failed;  /* the client left or stopped reading */
    int failed_errno;
};

/* Append to the connection's queue; false when it cannot grow (out of memory). */
static bool queue_reply(struct cs_sm_control_conn *conn, const char *buf, size_t len)
{
    if (conn->out_sent > 0) { /* what was sent makes room at the front */
        memmove(conn->out, conn->out + conn->out_sent, conn->out_len - conn->out_sent);
        conn->out_len -= conn->out_sent;
        conn->out_sent = 0;
    }
    if (conn->out_len + len > conn->out_cap) {
        size_t cap = conn->out_cap ? conn->out_cap : 64 * 1024;
        while (cap < conn->out_len + len)
            cap *= 2;
        char *grown = realloc(conn->out, cap);
        if (!grown)
            return false;
        conn->out = grown;
        conn->out_cap = cap;
    }
    memcpy(conn->out + conn->out_len, buf, len);
    conn->out_len += len;
    return true;
}

/* Send reply bytes without waiting for the client: what its socket does not take now waits in
 * the connection's queue, which later cs_sm_control_serve calls send. Only when the queue would
 * outgrow CS_SM_CONTROL_REPLY_QUEUE_MAX (a long reply the client does not keep up with) does
 * this wait, at most stall_timeout_ms without progress. */
static int sink_send(struct reply_sink *s, const char *buf, size_t len)
{
    struct cs_sm_control_conn *conn = s->conn;
    int stall_ms = s->c->stall_timeout_ms;
    if (!conn)
        return send_all(s->fd, buf, len, stall_ms);
    size_t queued = conn->out_len - conn->out_sent;
    if (queued == 0) { /* nothing before it: the socket may take it now */
        ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        if (n > 0) {
            buf += n;
            len -= (size_t)n;
        }
        if (len == 0)
            return 0;
    }
    if (queued + len > CS_SM_CONTROL_REPLY_QUEUE_MAX) {
        if (queued > 0 && send_all(s->fd, conn->out + conn->out_sent, queued, stall_ms) < 0)
            return -1;
        conn->out_sent = conn->out_len = 0;
        if (len > CS_SM_CONTROL_REPLY_QUEUE_MAX)
            return send_all(s->fd, buf, len, stall_ms);
        return sink_send(s, buf, len); /* the queue is empty now */
    }
    return queue_reply(conn, buf, len) ? 0 : send_all(s->fd, buf, len, stall_ms);
}

static int send_status(struct reply_sink *s, bool ok, const char *message)
{
    char line[CS_SM_REPLY_STATUS_MAX + 1];
    size_t len = cs_sm_reply_status_format(ok, message, line, sizeof line);
    s->status_sent = true;
    if (sink_send(s, line, len) < 0) {
        s->failed = true;
        s->failed_errno = errno;
        return -1;
    }
    return 0;
}

/* fopencookie's write: the first bytes that leave the handler's buffer commit the reply as
 * "ok". Returns 0 (with errno) on failure, as fopencookie wants. */
static ssize_t reply_write(void *cookie, const char *buf, size_t size)
{
    struct reply_sink *s = cookie;
    if (s->discard)
        return (ssize_t)size;
    if (!s->failed && !s->status_sent)
        send_status(s, true, NULL);
    if (!s->failed && sink_send(s, buf, size) < 0) {
        s->failed = true;
        s->failed_errno = errno;
    }
    if (s->failed) {
        errno = s->failed_errno;
        return 0;
    }
    return (ssize_t)size;
}

static const char *why_cut(int error)
{
    return error == ETIMEDOUT ? "the client stopped reading" : strerror(error);
}

/* Run handler for req and send its reply; returns 1 when the handler deferred it (nothing
 * is sent then), else 0. */
static int run_handler(struct cs_sm_control *c, struct reply_sink *sink,
                       const struct cs_sm_request *req, const char *shown_req,
                       cs_sm_control_handler handler, void *arg)
{
    char *buffer = malloc(CS_SM_CONTROL_REPLY_BUFFER);
    FILE *reply =
        buffer ? fopencookie(sink, "w", (cookie_io_functions_t){.write = reply_write}) : NULL;
    if (!reply) {
        free(buffer);
        send_status(sink, false, "cloudsmd is out of memory");
        return 0;
    }
    setvbuf(reply, buffer, _IOFBF, CS_SM_CONTROL_REPLY_BUFFER);
    struct cs_error herr = {""};
    int rc = handler(arg, req, reply, &herr);
    if (rc == 1 && !sink->status_sent) { /* deferred: what it wrote is dropped */
        sink->discard = true;
        fclose(reply);
        free(buffer);
        return 1;
    }
    if (rc < 0 && !herr.msg[0])
        snprintf(herr.msg, sizeof herr.msg, "%s failed", cs_sm_commands[req->command].name);
    if (rc < 0 && !sink->status_sent) {
        sink->discard = true;
        fclose(reply);
        send_status(sink, false, herr.msg);
        cs_logf(&c->log, CS_LOG_INFO, "control: %s: %s", shown_req, herr.msg);
    } else {
        fflush(reply);
        if (!sink->status_sent)
            send_status(sink, true, NULL); /* an empty body */
        fclose(reply);
        if (rc < 0)
            cs_logf(&c->log, CS_LOG_WARN,
                    "control: %s failed after its reply began (the client saw ok): %s", shown_req,
                    herr.msg);
    }
    free(buffer);
    if (sink->failed) {
        if (sink->conn) /* nothing more goes to this client */
            sink->conn->out_sent = sink->conn->out_len = 0;
        c->dropped++;
        cs_logf(&c->log, CS_LOG_INFO, "control: reply to %s cut off: %s", shown_req,
                why_cut(sink->failed_errno));
    }
    return 0;
}

/* ---- the connection table ---- */

static void conn_close(struct cs_sm_control *c, struct cs_sm_control_conn *conn)
{
    close_fd(&conn->fd);
    free(conn->out);
    conn->out = NULL;
    conn->out_sent = conn->out_len = conn->out_cap = 0;
    conn->used = 0;
    conn->replying = false;
    conn->waiting = false;
    c->open--;
}

/* A request that cannot be served: counted, logged, answered with its error line. */
static void refuse_request(struct cs_sm_control *c, struct cs_sm_control_conn *conn,
                           const char *why)
{
    c->bad++;
    cs_logf(&c->log, CS_LOG_INFO, "control: bad request from uid %u pid %d: %s",
            (unsigned)conn->uid, (int)conn->pid, why);
    struct reply_sink sink = {.c = c, .fd = conn->fd, .conn = conn};
    send_status(&sink, false, why);
}

static int reply_rest(struct cs_sm_control *c, struct cs_sm_control_conn *conn);

/* The whole line is here (len bytes, its newline included if it had one): parse and serve. */
static void serve_line(struct cs_sm_control *c, struct cs_sm_control_conn *conn, size_t len,
                       cs_sm_control_handler handler, void *arg)
{
    struct cs_sm_request req;
    struct cs_error why;
    if (cs_sm_request_parse(&req, conn->line, len, &why) < 0) {
        refuse_request(c, conn, why.msg);
        return;
    }
    req.peer_uid = conn->uid;
    req.peer_pid = conn->pid;
    char shown_req[CS_SM_REQUEST_MAX];
    int n = cs_sm_request_format(&req, shown_req, sizeof shown_req);
    if (n > 0)
        shown_req[n - 1] = '\0'; /* no newline in the log */
    c->served++;
    cs_logf(&c->log, cs_sm_commands[req.command].changes_state ? CS_LOG_INFO : CS_LOG_DEBUG,
            "control: '%s' from uid %u pid %d", shown_req, (unsigned)conn->uid, (int)conn->pid);
    req.ticket = ++c->tickets;
    struct reply_sink sink = {.c = c, .fd = conn->fd, .conn = conn};
    conn->command = cs_sm_commands[req.command].name;
    if (run_handler(c, &sink, &req, shown_req, handler, arg) == 1) {
        conn->waiting = true;
        conn->req = req;
        memcpy(conn->line, shown_req, strlen(shown_req) + 1);
    }
}

int cs_sm_control_complete(struct cs_sm_control *c, uint64_t ticket, cs_sm_control_handler handler,
                           void *arg)
{
    for (unsigned i = 0; c->conns && i < CS_SM_CONTROL_MAX_CLIENTS; i++) {
        struct cs_sm_control_conn *conn = &c->conns[i];
        if (conn->fd < 0 || !conn->waiting || conn->req.ticket != ticket)
            continue;
        conn->waiting = false;
        struct reply_sink sink = {.c = c, .fd = conn->fd, .conn = conn};
        if (run_handler(c, &sink, &conn->req, conn->line, handler, arg) == 1)
            send_status(&sink, false, "the reply was deferred twice");
        reply_rest(c, conn);
        return 1;
    }
    return 0; /* the client is gone */
}

/* The part of a reply the client's socket has not taken yet: send what it takes now. Returns 1
 * when the connection is done with (all sent, or the client left or took nothing for
 * stall_timeout_ms) and closed, 0 while some of the reply still waits. */
static int reply_rest(struct cs_sm_control *c, struct cs_sm_control_conn *conn)
{
    if (!conn->replying) {
        conn->replying = true;
        conn->deadline_ms = cs_clock_ms() + c->stall_timeout_ms;
    }
    while (conn->out_sent < conn->out_len) {
        ssize_t n = send(conn->fd, conn->out + conn->out_sent, conn->out_len - conn->out_sent,
                         MSG_NOSIGNAL | MSG_DONTWAIT);
        if (n > 0) {
            conn->out_sent += (size_t)n;
            conn->deadline_ms = cs_clock_ms() + c->stall_timeout_ms;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        bool would_block = n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
        if (would_block && cs_clock_ms() < conn->deadline_ms)
            return 0;
        c->dropped++;
        cs_logf(&c->log, CS_LOG_INFO, "control: reply to %s cut off: %s",
                conn->command ? conn->command : "a request",
                why_cut(would_block ? ETIMEDOUT : errno));
        break;
    }
    conn_close(c, conn);
    return 1;
}

/* Take what the connection has sent, without waiting, and serve its line when it is whole.
 * Returns 1 when the connection is done with (served, refused, past its deadline or gone) and
 * closed, 0 while its line or the rest of its reply is still on the way. */
static int pump(struct cs_sm_control *c, struct cs_sm_control_conn *conn,
                cs_sm_control_handler handler, void *arg)
{
    if (conn->waiting)
        return 0; /* on the SM, not on the client */
    if (conn->replying)
        return reply_rest(c, conn);
    char why[CS_ERROR_MAX];
    for (;;) {
        ssize_t n =
            recv(conn->fd, conn->line + conn->used, CS_SM_REQUEST_MAX - conn->used, MSG_DONTWAIT);
        if (n > 0) {
            const char *nl = memchr(conn->line + conn->used, '\n', (size_t)n);
            conn->used += (size_t)n;
            if (nl) {
                serve_line(c, conn, (size_t)(nl - conn->line) + 1, handler, arg);
                break;
            }
            if (conn->used == CS_SM_REQUEST_MAX) {
                snprintf(why, sizeof why, "request longer than %d bytes", CS_SM_REQUEST_MAX - 1);
                refuse_request(c, conn, why);
                break;
            }
            continue;
        }
        if (n == 0) { /* end of input ends the line too (printf status | socat ...) */
            if (conn->used > 0)
                serve_line(c, conn, conn->used, handler, arg);
            else
                cs_logf(&c->log, CS_LOG_DEBUG, "control: uid %u pid %d closed without a request",
                        (unsigned)conn->uid, (int)conn->pid);
            break;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (cs_clock_ms() < conn->deadline_ms)
                return 0;
            snprintf(why, sizeof why, "no request line within %d ms", c->request_timeout_ms);
        } else {
            snprintf(why, sizeof why, "reading the request: %s", strerror(errno));
        }
        refuse_request(c, conn, why);
        break;
    }
    return conn->waiting ? 0 : reply_rest(c, conn);
}

static int pump_all(struct cs_sm_control *c, cs_sm_control_handler handler, void *arg)
{
    int finished = 0;
    for (unsigned i = 0; i < CS_SM_CONTROL_MAX_CLIENTS; i++)
        if (c->conns[i].fd >= 0)
            finished += pump(c, &c->conns[i], handler, arg);
    return finished;
}

/* Who connected: root and the SM's own user get a slot; anyone else is answered and closed.
 * Returns 1 when the connection was refused (and closed), 0 when it holds a slot now. */
static int admit(struct cs_sm_control *c, int fd)
{
    struct reply_sink sink = {.c = c, .fd = fd};
    struct ucred cred;
    socklen_t cred_len = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &cred_len) < 0) {
        c->refused++;
        cs_logf(&c->log, CS_LOG_WARN, "control: cannot tell who connected: %s", strerror(errno));
        send_status(&sink, false, "cloudsmd cannot tell who you are");
        close(fd);
        return 1;
    }
    /* The socket's 0600 already keeps others out; this holds even if someone loosens it. */
    uid_t me = geteuid();
    if (cred.uid != 0 && cred.uid != me) {
        c->refused++;
        cs_logf(&c->log, CS_LOG_WARN, "control: refused uid %u (pid %d)", (unsigned)cred.uid,
                (int)cred.pid);
        char msg[128];
        snprintf(msg, sizeof msg,
                 "permission denied: only root and uid %u may use the control socket",
                 (unsigned)me);
        send_status(&sink, false, msg);
        close(fd);
        return 1;
    }
    struct cs_sm_control_conn *conn = c->conns;
    while (conn->fd >= 0)
        conn++; /* there is a free slot: the caller accepts only then */
    conn->fd = fd;
    conn->uid = (uint32_t)cred.uid;
    conn->pid = (int32_t)cred.pid;
    conn->used = 0;
    conn->deadline_ms = cs_clock_ms() + c->request_timeout_ms;
    c->open++;
    return 0;
}

/* Accept waiting connections while there are free slots; the rest wait in the backlog. Returns
 * the connections refused at once (closed), or -1 if the listening socket failed. */
static int accept_waiting(struct cs_sm_control *c, struct cs_error *err)
{
    int refused = 0;
    while (c->open < c->max_clients) {
        int fd = accept4(c->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            if (errno == ECONNABORTED || errno == EPROTO)
                continue; /* that client is gone; others may wait */
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                /* Out of resources is the daemon's trouble, not the socket's: try later. */
                cs_logf(&c->log, CS_LOG_WARN, "control: cannot accept a client: %s",
                        strerror(errno));
                break;
            }
            return cs_fail(err, "accepting on the control socket %s: %s", c->path, strerror(errno));
        }
        refused += admit(c, fd);
    }
    return refused;
}

/* How long poll may sleep: until the caller's end, or the first connection's deadline. */
static int wait_ms(const struct cs_sm_control *c, int timeout_ms, double end_ms)
{
    double now = cs_clock_ms(), until = timeout_ms < 0 ? -1 : end_ms;
    for (unsigned i = 0; i < CS_SM_CONTROL_MAX_CLIENTS; i++)
        if (c->conns[i].fd >= 0 && !c->conns[i].waiting &&
            (until < 0 || c->conns[i].deadline_ms < until))
            until = c->conns[i].deadline_ms;
    if (until < 0)
        return -1;
    return until <= now ? 0 : (int)(until - now) + 1;
}

int cs_sm_control_serve(struct cs_sm_control *c, int timeout_ms, cs_sm_control_handler handler,
                        void *arg, struct cs_error *err)
{
    if (c->fd < 0 || !c->conns)
        return cs_fail(err, "the control socket is not open");
    if (c->max_clients == 0 || c->max_clients > CS_SM_CONTROL_MAX_CLIENTS)
        c->max_clients = CS_SM_CONTROL_MAX_CLIENTS;
    double end_ms = cs_clock_ms() + (timeout_ms > 0 ? timeout_ms : 0);
    int finished = 0;
    for (;;) {
        struct pollfd fds[CS_SM_CONTROL_MAX_CLIENTS + 1];
        nfds_t count = 0;
        /* A full table leaves the listening socket out: its backlog is the queue. */
        if (c->open < c->max_clients)
            fds[count++] = (struct pollfd){.fd = c->fd, .events = POLLIN};
        for (unsigned i = 0; i < CS_SM_CONTROL_MAX_CLIENTS; i++)
            if (c->conns[i].fd >= 0 && !c->conns[i].waiting)
                fds[count++] = (struct pollfd){.fd = c->conns[i].fd,
                                               .events = c->conns[i].replying ? POLLOUT : POLLIN};
        int r = poll(fds, count, timeout_ms == 0 ? 0 : wait_ms(c, timeout_ms, end_ms));
        if (r < 0 && errno != EINTR)
            return cs_fail(err, "waiting on the control socket %s: %s", c->path, strerror(errno));
        if (r < 0)
            return finished; /* a signal: let the caller look at it */
        /* The held connections first, so that a slot one of them frees takes a waiting
         * connection now; then the new ones, whose lines may be there already. */
        finished += pump_all(c, handler, arg);
        unsigned held = c->open;
        int refused = accept_waiting(c, err);
        if (refused < 0)
            return -1;
        finished += refused;
        if (c->open > held)
            finished += pump_all(c, handler, arg);
        if (finished > 0 || timeout_ms == 0 || (timeout_ms > 0 && cs_clock_ms() >= end_ms))
            return finished;
    }
}

/* ---- client ---- */

static int connect_failed(const char *path, int error, struct cs_error *err)
{
    switch (error) {
    case ENOENT:
        return cs_fail(err, "cannot connect to %s: no such file (is cloudsmd running?)", path);
    case ECONNREFUSED:
        return cs_fail(err,
                       "cannot connect to %s: connection refused (is cloudsmd running? the "
                       "socket may be left from an earlier run)",
                       path);
    case EACCES:
    case EPERM:
        return cs_fail(err,
                       "cannot connect to %s: permission denied (the control socket is for "
                       "root and the user cloudsmd runs as)",
                       path);
    case ETIMEDOUT:
        return cs_fail(err, "cannot connect to %s: cloudsmd did not take the connection (busy?)",
                       path);
    default:
        return cs_fail(err, "cannot connect to %s: %s", path, strerror(error));
    }
}

/* A non-blocking connect to a unix socket either completes at once or, with the daemon's
 * backlog full, says EAGAIN: then try again until the timeout. */
static int connect_within(int fd, const struct sockaddr_un *addr, int timeout_ms)
{
    double deadline = cs_clock_ms() + timeout_ms;
    for (;;) {
        if (connect(fd, (const struct sockaddr *)addr, sizeof *addr) == 0)
            return 0;
        if (errno != EAGAIN && errno != EINTR)
            return -1;
        if (timeout_ms >= 0 && cs_clock_ms() >= deadline) {
            errno = ETIMEDOUT;
            return -1;
        }
        poll(NULL, 0, 10);
    }
}

/* recv with a deadline per wait. >0 bytes, 0 end of reply, -1 error (errno; ETIMEDOUT). */
static ssize_t recv_within(int fd, char *buf, size_t size, int timeout_ms)
{
    for (;;) {
        ssize_t n = recv(fd, buf, size, MSG_DONTWAIT);
        if (n >= 0)
            return n;
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        int r = wait_for(fd, POLLIN, timeout_ms);
        if (r == 0)
            errno = ETIMEDOUT;
        if (r <= 0)
            return -1;
    }
}

static int reply_failed(const struct cs_sm_control_client *cl, int error, struct cs_error *err)
{
    if (error == ETIMEDOUT)
        return cs_fail(err, "no reply from cloudsmd within %d ms", cl->timeout_ms);
    return cs_fail(err, "reading the reply from cloudsmd: %s", strerror(error));
}

int cs_sm_control_call(struct cs_sm_control_client *cl, const char *path,
                       const struct cs_sm_request *req, int timeout_ms, struct cs_error *err)
{
    memset(cl, 0, sizeof *cl);
    cl->fd = -1;
    cl->timeout_ms = timeout_ms;
    char line[CS_SM_REQUEST_MAX];
    int len = cs_sm_request_format(req, line, sizeof line);
    struct sockaddr_un addr;
    if (len < 0)
        return cs_fail(err, "request longer than %d bytes", CS_SM_REQUEST_MAX - 1);
    if (fill_address(&addr, path, err) < 0)
        return -1;
    cl->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (cl->fd < 0)
        return cs_fail_errno(err, "socket");
    if (connect_within(cl->fd, &addr, timeout_ms) < 0)
        return connect_failed(path, errno, err);
    /* A daemon that refuses us answers and closes without reading: its status line is the
     * news then, not our broken pipe. */
    if (send_all(cl->fd, line, (size_t)len, timeout_ms) < 0 && errno != EPIPE &&
        errno != ECONNRESET)
        return errno == ETIMEDOUT
                   ? cs_fail(err, "cloudsmd took no request within %d ms", timeout_ms)
                   : cs_fail(err, "sending the request to cloudsmd: %s", strerror(errno));
    /* The status line, and whatever part of the body came with it. */
    char buf[CS_SM_REQUEST_MAX];
    size_t used = 0;
    const char *nl = NULL;
    while (!nl) {
        ssize_t n = recv_within(cl->fd, buf + used, sizeof buf - used, timeout_ms);
        if (n < 0)
            return reply_failed(cl, errno, err);
        if (n == 0)
            return cs_fail(err, "cloudsmd closed the connection without a reply");
        nl = memchr(buf + used, '\n', (size_t)n);
        used += (size_t)n;
        if (!nl && used >= CS_SM_REPLY_STATUS_MAX)
            return cs_fail(err, "not a cloudsmd reply: no status line in the first %d bytes",
                           CS_SM_REPLY_STATUS_MAX);
    }
    size_t status_len = (size_t)(nl - buf) + 1;
    if (cs_sm_reply_status_parse(buf, status_len, &cl->ok, cl->message, sizeof cl->message, err) <
        0)
        return -1;
    cl->pending_len = used - status_len;
    memcpy(cl->pending, buf + status_len, cl->pending_len);
    return 0;
}

int cs_sm_control_client_body(struct cs_sm_control_client *cl, FILE *out, struct cs_error *err)
{
    char buf[16384];
    size_t len = cl->pending_len;
    memcpy(buf, cl->pending, len);
    cl->pending_len = 0;
    for (;;) {
        if (len > 0 && fwrite(buf, 1, len, out) != len)
            return cs_fail(err, "writing the reply: %s", strerror(errno));
        if (cl->fd < 0)
            break;
        ssize_t n = recv_within(cl->fd, buf, sizeof buf, cl->timeout_ms);
        if (n < 0)
            return reply_failed(cl, errno, err);
        if (n == 0)
            break;
        len = (size_t)n;
    }
    if (fflush(out) != 0)
        return cs_fail(err, "writing the reply: %s", strerror(errno));
    return 0;
}

void cs_sm_control_client_close(struct cs_sm_control_client *cl)
{
    close_fd(&cl->fd);
}
