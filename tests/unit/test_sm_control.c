/* cloudsmd's control socket (include/cloudsm/sm_control.h): request and status lines, and the
 * server and client run in this process (or a forked one) against a stub handler.
 *
 * `test_sm_control --serve PATH COUNT` is not a test: it serves COUNT requests on PATH with the
 * stub handler and exits, so that tests/cli/sm_control.sh can run `cloudsm sm ...` against the
 * real server without a fabric. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cloudsm/adapt_decision.h"
#include "cloudsm/clock.h"
#include "cloudsm/route.h"
#include "cloudsm/sm_control.h"
#include "cloudsm/vm_plan.h"
#include "sm_fixtures.h"
#include "testlib.h"

/* ---- the stub handler: what cloudsmd's handler does, in miniature ---- */

/* lfts with stub.big set writes big / 64 of these. */
#define BIG_LINE "0x0001 001 : (Channel Adapter portguid 0x0000000000000001: 'h1')\n"

struct stub {
    unsigned calls;
    struct cs_sm_request last;
    size_t big;        /* lfts writes this many bytes (0: a few lines) */
    bool saw_ferror;   /* the reply stream reported the client gone */
    size_t written;    /* bytes the handler managed to hand to the stream */
    uint64_t deferred; /* the ticket of the last reply the handler deferred */
};

static void put(struct stub *s, FILE *reply, const char *text)
{
    s->written += strlen(text);
    fputs(text, reply);
}

static int stub_handler(void *arg, const struct cs_sm_request *req, FILE *reply,
                        struct cs_error *err)
{
    struct stub *s = arg;
    s->calls++;
    s->last = *req;
    switch (req->command) {
    case CS_SM_CMD_STATUS:
        put(s, reply,
            req->json ? "{\n  \"state\": \"master\",\n  \"sweeps\": 3\n}\n"
                      : "state       master\nsweeps      3\n");
        return 0;
    case CS_SM_CMD_TOPOLOGY:
        put(s, reply, req->json ? "{\n  \"nodes\": 76\n}\n" : "nodes 76 (28 switches, 48 CAs)\n");
        return 0;
    case CS_SM_CMD_LFTS:
        if (!s->big) {
            put(s, reply,
                "Unicast lids [0x0-0x2] of switch DR path slid 0; dlid 0; 0,1 guid "
                "0x0000000000000010 (leaf):\n0x0001 001 : (Channel Adapter portguid "
                "0x0000000000000001: 'h1')\n");
            return 0;
        }
        for (size_t i = 0; i < s->big / 64 && !ferror(reply); i++)
            put(s, reply, BIG_LINE);
        s->saw_ferror = ferror(reply);
        return 0;
    case CS_SM_CMD_REROUTE:
        if (strcmp(req->argv[0], "updn") == 0) {
            /* Output before the failure must not reach the client. */
            put(s, reply, "half a reply\n");
            return cs_fail(err, "stub: updn is not suitable here");
        }
        put(s, reply, req->json ? "{\n  \"blocks_sent\": 12\n}\n" : "12 blocks sent\n");
        return 0;
    case CS_SM_CMD_LOG_LEVEL:
        fprintf(reply, "log level %s\n", req->argv[0]);
        return 0;
    case CS_SM_CMD_SWEEP:
        return 0; /* an empty body */
    case CS_SM_CMD_VM_LIST:
        put(s, reply, "0 VMs\n");
        return 0;
    case CS_SM_CMD_VM_CREATE:
    case CS_SM_CMD_VM_MIGRATE:
    case CS_SM_CMD_VM_DESTROY:
        put(s, reply, "dropped: a deferred reply is written later\n");
        s->deferred = req->ticket;
        return 1;
    case CS_SM_CMD_ADAPT:
        fprintf(reply, "mode %d\n", req->adapt_mode);
        return 0;
    case CS_SM_CMD_PRIORITY:
    case CS_SM_CMD_RESWEEP:
    case CS_SM_CMD_QUERYLID:
    case CS_SM_CMD_PORTSTATUS:
    case CS_SM_CMD_LIDBALANCE:
        put(s, reply, "console\n");
        return 0;
    case CS_SM_CMD_COUNT:
        break;
    }
    return cs_fail(err, "stub: no such command");
}

/* ---- helpers ---- */

static char dir[64];
static char sock_path[128];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/cs-control-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(sock_path, sizeof sock_path, "%s/%s", dir, CS_SM_CONTROL_SOCKET_NAME);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(sock_path);
    return rmdir(dir);
}

static void open_server(struct cs_sm_control *c)
{
    struct cs_error err = {""};
    if (cs_sm_control_open(c, sock_path, &err) != 0)
        fail_msg("%s", err.msg);
}

/* A client connected to the server's backlog (the server accepts it in serve). Blocking, with
 * a receive timeout so that a broken server fails the test instead of hanging it. */
static int connect_client(void)
{
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, sock_path);
    if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
        fail_msg("connect %s: %s", sock_path, strerror(errno));
    struct timeval tv = {.tv_sec = 5};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static void send_text(int fd, const char *text, size_t len)
{
    assert_int_equal(send(fd, text, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* Everything the server sent until it closed (a reset after the data counts as the end). */
static char *read_all(int fd, size_t *len_out)
{
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    for (;;) {
        if (len + 4096 > cap)
            buf = realloc(buf, cap *= 2);
        ssize_t n = recv(fd, buf + len, cap - len - 1, 0);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    if (len_out)
        *len_out = len;
    close(fd);
    return buf;
}

/* One request through a fresh server: the whole reply text. */
static char *exchange(struct cs_sm_control *c, struct stub *s, const char *request, size_t len)
{
    int fd = connect_client();
    send_text(fd, request, len);
    if (len == 0 || request[len - 1] != '\n')
        shutdown(fd, SHUT_WR); /* the end of input ends the line */
    struct cs_error err;
    assert_int_equal(cs_sm_control_serve(c, 1000, stub_handler, s, &err), 1);
    return read_all(fd, NULL);
}

static void expect_parse_error(const char *line, size_t len, const char *needle)
{
    struct cs_sm_request req;
    struct cs_error err = {""};
    if (cs_sm_request_parse(&req, line, len, &err) == 0)
        fail_msg("'%.*s' parsed", (int)len, line);
    if (!strstr(err.msg, needle))
        fail_msg("'%.*s': '%s' does not say '%s'", (int)len, line, err.msg, needle);
}

static struct cs_sm_request parse_ok(const char *line)
{
    struct cs_sm_request req;
    struct cs_error err = {""};
    if (cs_sm_request_parse(&req, line, strlen(line), &err) != 0)
        fail_msg("'%s': %s", line, err.msg);
    return req;
}

/* ---- protocol ---- */

static void test_parse(void **state)
{
    (void)state;
    struct cs_sm_request r = parse_ok("status\n");
    assert_int_equal(r.command, CS_SM_CMD_STATUS);
    assert_false(r.json);
    assert_int_equal(r.argc, 0);
    r = parse_ok("  reroute\tminhop   --json \r\n");
    assert_int_equal(r.command, CS_SM_CMD_REROUTE);
    assert_true(r.json);
    assert_int_equal(r.argc, 1);
    assert_string_equal(r.argv[0], "minhop");
    r = parse_ok("reroute --json ftree"); /* --json anywhere after the command, no newline */
    assert_string_equal(r.argv[0], "ftree");
    assert_true(r.json);
    r = parse_ok("log-level WARNING");
    assert_int_equal(r.command, CS_SM_CMD_LOG_LEVEL);
    assert_int_equal(r.log_level, CS_LOG_WARN);
    assert_string_equal(r.argv[0], "warn"); /* one spelling */
    assert_int_equal(parse_ok("topology").command, CS_SM_CMD_TOPOLOGY);
    assert_int_equal(parse_ok("lfts").command, CS_SM_CMD_LFTS);
    assert_int_equal(parse_ok("sweep --json").command, CS_SM_CMD_SWEEP);
    r = parse_ok("adapt");
    assert_int_equal(r.command, CS_SM_CMD_ADAPT);
    assert_int_equal(r.adapt_mode, -1);
    assert_int_equal(parse_ok("adapt off").adapt_mode, CS_ADAPT_MODE_OFF);
    assert_int_equal(parse_ok("adapt dry-run --json").adapt_mode, CS_ADAPT_MODE_DRY_RUN);
    /* The longest line that fits: 4095 bytes and the newline. */
    char line[CS_SM_REQUEST_MAX + 2];
    memset(line, ' ', sizeof line);
    memcpy(line, "status", 6);
    line[CS_SM_REQUEST_MAX - 1] = '\n';
    struct cs_error err;
    assert_int_equal(cs_sm_request_parse(&r, line, CS_SM_REQUEST_MAX, &err), 0);
}

static void test_parse_errors(void **state)
{
    (void)state;
    expect_parse_error("", 0, "empty request");
    expect_parse_error(" \t \n", 4, "empty request");
    expect_parse_error("stat\n", 5,
                       "unknown command 'stat' (commands: status, topology, lfts, "
                       "reroute, log-level, sweep, vm-list, vm-create, vm-migrate, vm-destroy, "
                       "adapt, priority, resweep, querylid, portstatus, lidbalance)");
    expect_parse_error("STATUS", 6, "unknown command 'STATUS'");
    expect_parse_error("--json status", 13, "unknown command '--json'");
    expect_parse_error("status extra", 12, "status takes no arguments ('extra' is one too many)");
    expect_parse_error("reroute", 7, "reroute wants 1 argument: reroute ENGINE");
    expect_parse_error("reroute ftree minhop", 20,
                       "unknown or repeated option 'minhop': reroute ENGINE");
    /* The names come from the one engine registry. */
    char names[256], want[320];
    snprintf(want, sizeof want, "unknown routing engine 'dfsssp' (cloudsm has: %s)",
             cs_route_engine_names(names, sizeof names));
    expect_parse_error("reroute dfsssp", 14, want);
    expect_parse_error("log-level loud", 14, "unknown log level 'loud'");
    expect_parse_error("adapt maybe", 11, "unknown adaptation mode 'maybe' (on, off, dry-run)");
    expect_parse_error("adapt on off", 12, "too many arguments ('off'): adapt [on|off|dry-run]");
    expect_parse_error("status --verbose", 16, "unknown option '--verbose' (the only option is");
    expect_parse_error("status\x01", 7, "byte 0x01 at column 7");
    expect_parse_error("sta\0tus", 7, "byte 0x00 at column 4");
    expect_parse_error("status \xff", 8, "byte 0xff");
    expect_parse_error("status\n\n", 8, "byte 0x0a"); /* one line only */
    char arg[400] = "reroute ";
    memset(arg + 8, 'a', 300);
    arg[308] = '\0';
    expect_parse_error(arg, strlen(arg), "is longer than 255 bytes");
    static char big[CS_SM_REQUEST_MAX + 10];
    memset(big, ' ', sizeof big);
    memcpy(big, "status", 6);
    expect_parse_error(big, CS_SM_REQUEST_MAX, "request longer than 4095 bytes");
    /* A long bad token is cut in the message, which stays one short line. */
    memset(big, 'x', sizeof big);
    struct cs_sm_request r;
    struct cs_error err;
    assert_int_equal(cs_sm_request_parse(&r, big, 3000, &err), -1);
    assert_non_null(strstr(err.msg, "xxx...'"));
    assert_true(strlen(err.msg) < 300);
}

static void test_format(void **state)
{
    (void)state;
    const char *lines[] = {"status",
                           "topology --json",
                           "lfts",
                           "reroute updn",
                           "sweep",
                           "log-level debug --json",
                           "reroute minhop --json",
                           "sweep off",
                           "priority 7 --json",
                           "resweep light",
                           "querylid 12",
                           "portstatus switch",
                           "lidbalance 0x0002c90000000001"};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        struct cs_sm_request a = parse_ok(lines[i]), b;
        char buf[CS_SM_REQUEST_MAX], want[128];
        int n = cs_sm_request_format(&a, buf, sizeof buf);
        snprintf(want, sizeof want, "%s\n", lines[i]);
        assert_string_equal(buf, want);
        assert_int_equal(n, (int)strlen(want));
        struct cs_error err;
        assert_int_equal(cs_sm_request_parse(&b, buf, (size_t)n, &err), 0);
        assert_memory_equal(&a, &b, sizeof a);
    }
    struct cs_sm_request r = parse_ok("reroute minhop");
    char small[15]; /* "reroute minhop\n" needs 16 with its NUL */
    assert_int_equal(cs_sm_request_format(&r, small, sizeof small), -1);
    char fits[16];
    assert_int_equal(cs_sm_request_format(&r, fits, sizeof fits), 15);
}

static void test_status_lines(void **state)
{
    (void)state;
    char buf[CS_SM_REPLY_STATUS_MAX + 64], msg[CS_ERROR_MAX];
    bool ok = false;
    struct cs_error err = {""};
    assert_int_equal(cs_sm_reply_status_format(true, NULL, buf, sizeof buf), 3);
    assert_string_equal(buf, "ok\n");
    cs_sm_reply_status_format(false, "bad\nthing\r", buf, sizeof buf);
    assert_string_equal(buf, "error: bad thing \n");
    assert_int_equal(cs_sm_reply_status_parse(buf, strlen(buf), &ok, msg, sizeof msg, &err), 0);
    assert_false(ok);
    assert_string_equal(msg, "bad thing ");
    assert_int_equal(cs_sm_reply_status_parse("ok", 2, &ok, msg, sizeof msg, &err), 0);
    assert_true(ok);
    /* A message longer than a status line is cut, and the line still ends with its newline. */
    char long_msg[3000];
    memset(long_msg, 'm', sizeof long_msg - 1);
    long_msg[sizeof long_msg - 1] = '\0';
    size_t len = cs_sm_reply_status_format(false, long_msg, buf, sizeof buf);
    assert_int_equal(len, CS_SM_REPLY_STATUS_MAX);
    assert_int_equal(buf[len - 1], '\n');
    assert_int_equal(cs_sm_reply_status_format(false, "x", buf, 8), 0); /* no room */
    const char *bad[] = {"", "okay", "OK", "error", "error:x", "ok then", "HTTP/1.1 200 OK"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(
            cs_sm_reply_status_parse(bad[i], strlen(bad[i]), &ok, msg, sizeof msg, &err), -1);
        assert_non_null(strstr(err.msg, "not a cloudsmd reply"));
    }
}

static void test_path(void **state)
{
    (void)state;
    char buf[CS_SM_CONTROL_PATH_MAX];
    struct cs_error err = {""};
    assert_int_equal(cs_sm_control_path("/var/lib/cloudsm", buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "/var/lib/cloudsm/cloudsmd.sock");
    assert_int_equal(cs_sm_control_path("state/", buf, sizeof buf, &err), 0);
    assert_string_equal(buf, "state/cloudsmd.sock");
    char deep[120];
    memset(deep, 'd', sizeof deep - 1);
    deep[sizeof deep - 1] = '\0';
    assert_int_equal(cs_sm_control_path(deep, buf, sizeof buf, &err), -1);
    assert_non_null(strstr(err.msg, "too long for a unix socket (at most 107 bytes)"));
}

/* ---- server ---- */

static void test_open_makes_0600_socket(void **state)
{
    (void)state;
    mode_t old = umask(002); /* a permissive umask must not leak into the socket's mode */
    struct cs_sm_control c;
    open_server(&c);
    assert_int_equal(umask(old), 002); /* open put it back */
    struct stat st;
    assert_int_equal(lstat(sock_path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 07777, 0600);
    assert_int_equal(st.st_uid, geteuid());
    assert_true(cs_sm_control_fd(&c) >= 0);
    cs_sm_control_close(&c);
    assert_int_equal(lstat(sock_path, &st), -1); /* close removes it */
    assert_int_equal(c.fd, -1);
    cs_sm_control_close(&c); /* twice is harmless */
}

static void test_serve_requests(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {0};
    struct log_capture log = {0};
    open_server(&c);
    c.log = (struct cs_log){capture_log, &log};

    char *reply = exchange(&c, &s, "status --json\n", 14);
    assert_string_equal(reply, "ok\n{\n  \"state\": \"master\",\n  \"sweeps\": 3\n}\n");
    free(reply);
    assert_int_equal(s.calls, 1);
    assert_true(s.last.json);
    assert_int_equal(s.last.peer_uid, getuid());
    assert_int_equal(s.last.peer_pid, getpid());

    reply = exchange(&c, &s, "reroute minhop\n", 15);
    assert_string_equal(reply, "ok\n12 blocks sent\n");
    free(reply);
    assert_string_equal(s.last.argv[0], "minhop");

    /* A handler that fails: the client gets only the error, not what it wrote before. */
    reply = exchange(&c, &s, "reroute updn\n", 13);
    assert_string_equal(reply, "error: stub: updn is not suitable here\n");
    free(reply);

    reply = exchange(&c, &s, "sweep\n", 6); /* an empty body */
    assert_string_equal(reply, "ok\n");
    free(reply);

    reply = exchange(&c, &s, "log-level DEBUG", 15); /* no newline: shut down instead */
    assert_string_equal(reply, "ok\nlog level debug\n");
    free(reply);
    assert_int_equal(s.last.log_level, CS_LOG_DEBUG);

    assert_int_equal(s.calls, 5);
    assert_int_equal(c.served, 5);
    assert_int_equal(c.bad + c.refused + c.dropped, 0);
    /* Commands that change the SM are logged at INFO with who asked; failures too. */
    char who[96];
    snprintf(who, sizeof who, "control: 'reroute minhop' from uid %u pid %d", (unsigned)getuid(),
             (int)getpid());
    assert_int_equal(log_count(&log, who), 1);
    assert_int_equal(log_count(&log, "control: reroute updn: stub: updn is not suitable here"), 1);
    free(log.text);
    cs_sm_control_close(&c);
}

/* The VM commands: arguments in order, then options; GUIDs, VFs and methods checked here, so
 * that the daemon only acts. */
/* reroute's options: a sub-tree by GUIDs, a node order by absolute path; each refused with what
 * is wrong. */
static void test_parse_reroute(void **state)
{
    (void)state;
    struct cs_sm_request req =
        parse_ok("reroute noftree subtree=0x10,17 order=/var/o.guids --json");
    assert_int_equal(req.command, CS_SM_CMD_REROUTE);
    assert_string_equal(req.argv[0], "noftree");
    assert_int_equal(req.reroute.num_subtree, 2);
    assert_int_equal(req.reroute.subtree[0], 0x10);
    assert_int_equal(req.reroute.subtree[1], 17);
    assert_int_equal(req.reroute.order_arg, 2);
    assert_string_equal(req.argv[req.reroute.order_arg] + 6, "/var/o.guids");
    assert_true(req.json);
    req = parse_ok("reroute slimupdate");
    assert_int_equal(req.reroute.num_subtree, 0);
    assert_int_equal(req.reroute.order_arg, 0);
    char line[CS_SM_REQUEST_MAX];
    req = parse_ok("reroute ftree order=/o subtree=0x1");
    int len = cs_sm_request_format(&req, line, sizeof line);
    assert_true(len > 0);
    assert_string_equal(line, "reroute ftree order=/o subtree=0x1\n");

    expect_parse_error("reroute ftree order=o.guids", 27, "path must be absolute");
    expect_parse_error("reroute ftree subtree=0x1,zz", 28, "subtree node 'zz' is not a GUID");
    expect_parse_error("reroute ftree subtree=0x1,", 26, "subtree node '' is not a GUID");
    expect_parse_error("reroute ftree depth=2", 21, "unknown or repeated option 'depth=2'");
    expect_parse_error("reroute ftree order=/a order=/b", 31, "unknown or repeated option");
    char many[CS_SM_REQUEST_MAX] = "reroute ftree subtree=1";
    for (int i = 2; i <= CS_SM_SUBTREE_MAX + 1; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), ",%d", i);
    expect_parse_error(many, strlen(many), "at most 13 GUIDs");
}

/* OpenSM's console commands: their arguments parsed, and refused with the usage. */
static void test_parse_console(void **state)
{
    (void)state;
    struct cs_sm_request r = parse_ok("priority");
    assert_int_equal(r.command, CS_SM_CMD_PRIORITY);
    assert_int_equal(r.priority, -1); /* show */
    assert_int_equal(parse_ok("priority 15").priority, 15);
    assert_int_equal(parse_ok("priority 0x0").priority, 0);
    expect_parse_error("priority 16", 11, "priority '16' is not 0..15");
    expect_parse_error("priority -1", 11, "unknown option '-1'");
    expect_parse_error("priority high", 13, "priority 'high' is not 0..15");
    assert_int_equal(parse_ok("sweep").sweeping, -1); /* a heavy sweep now, as before */
    assert_int_equal(parse_ok("sweep on").sweeping, 1);
    assert_int_equal(parse_ok("sweep off --json").sweeping, 0);
    expect_parse_error("sweep maybe", 11, "'maybe': sweep [on|off]");
    assert_false(parse_ok("resweep light").heavy);
    assert_true(parse_ok("resweep heavy").heavy);
    expect_parse_error("resweep", 7, "resweep wants 1 argument: resweep light|heavy");
    expect_parse_error("resweep medium", 14, "'medium': resweep light|heavy");
    assert_int_equal(parse_ok("querylid 0x1f").lid, 31);
    assert_int_equal(parse_ok("querylid 49151").lid, 0xbfff);
    expect_parse_error("querylid 0", 10, "'0' is not a unicast LID (1..0xbfff)");
    expect_parse_error("querylid 0xc000", 15, "not a unicast LID");
    expect_parse_error("querylid 5x", 11, "not a unicast LID");
    assert_int_equal(parse_ok("portstatus").node_type, 0);
    assert_int_equal(parse_ok("portstatus ca").node_type, CS_NODE_CA);
    assert_int_equal(parse_ok("portstatus router").node_type, CS_NODE_ROUTER);
    expect_parse_error("portstatus hca", 14, "'hca': portstatus [ca|switch|router]");
    assert_true(parse_ok("lidbalance").guid == 0);
    assert_true(parse_ok("lidbalance 0x0002c90000000001").guid == UINT64_C(0x0002c90000000001));
    expect_parse_error("lidbalance zz", 13, "switch 'zz' is not a GUID");
    expect_parse_error("lidbalance 0x1 0x2", 18, "too many arguments ('0x2')");
}

static void test_parse_vm(void **state)
{
    (void)state;
    struct cs_sm_request r = parse_ok("vm-create web-1 0x0010000000000100 0x0200000000000001\n");
    assert_int_equal(r.command, CS_SM_CMD_VM_CREATE);
    assert_string_equal(r.argv[0], "web-1");
    assert_int_equal(r.vm.hypervisor, 0x0010000000000100);
    assert_int_equal(r.vm.vguid, 0x0200000000000001);
    assert_int_equal(r.vm.vf, 0);
    assert_int_equal(r.vm.method, CS_PLAN_FTREEMINRC);
    r = parse_ok("vm-migrate web-1 4096 vf=3 method=itrc port255 --json");
    assert_int_equal(r.command, CS_SM_CMD_VM_MIGRATE);
    assert_int_equal(r.vm.hypervisor, 4096);
    assert_int_equal(r.vm.vf, 3);
    assert_int_equal(r.vm.method, CS_PLAN_ITRC);
    assert_true(r.vm.port255);
    assert_true(r.json);
    /* The formatted request parses back to the same one. */
    char line[CS_SM_REQUEST_MAX];
    int n = cs_sm_request_format(&r, line, sizeof line);
    assert_true(n > 0);
    struct cs_sm_request back = parse_ok(line);
    assert_int_equal(back.vm.vf, 3);
    assert_true(back.vm.port255);
    r = parse_ok("vm-destroy db.2");
    assert_int_equal(r.command, CS_SM_CMD_VM_DESTROY);
    r = parse_ok("vm-list");
    assert_int_equal(r.command, CS_SM_CMD_VM_LIST);

    expect_parse_error("vm-create a 0x10", 16, "vm-create wants 3 arguments");
    expect_parse_error("vm-create a 0x10 0 ", 19, "vGUID '0' is not a GUID");
    expect_parse_error("vm-migrate a zz", 15, "hypervisor 'zz' is not a GUID");
    expect_parse_error("vm-migrate a 0x10 vf=0", 22, "'vf=0': a VF is 1..126");
    expect_parse_error("vm-migrate a 0x10 vf=127", 24, "'vf=127': a VF is 1..126");
    expect_parse_error("vm-migrate a 0x10 method=fast", 29, "the method is ftreeminrc or itrc");
    expect_parse_error("vm-create a 0x10 0x2 port255", 28, "unknown option 'port255'");
    expect_parse_error("vm-destroy a b", 14, "too many arguments ('b')");
    expect_parse_error("vm-migrate a 0x10 vf=1 vf=2 port255 method=itrc", 47, "too many arguments");
    char longname[80] = "vm-destroy ";
    memset(longname + 11, 'v', 63);
    assert_int_equal(parse_ok(longname).command, CS_SM_CMD_VM_DESTROY); /* 63: the longest */
    strcat(longname, "v");
    expect_parse_error(longname, strlen(longname), "a VM name is at most 63 bytes");
}

/* A deferred reply: the handler returns 1 and writes nothing that reaches the client; the
 * connection waits outside the request deadline until cs_sm_control_complete writes the reply;
 * a ticket nobody waits for is refused. */
static int late_reply(void *arg, const struct cs_sm_request *req, FILE *reply, struct cs_error *err)
{
    (void)err;
    fprintf(reply, "done %s %s\n", (const char *)arg, req->argv[0]);
    return 0;
}

static void test_deferred_reply(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {0};
    open_server(&c);
    c.request_timeout_ms = 50;
    int fd = connect_client();
    send_text(fd, "vm-migrate web-1 0x10\n", 22);
    struct cs_error err;
    assert_int_equal(cs_sm_control_serve(&c, 200, stub_handler, &s, &err), 0);
    assert_int_not_equal(s.deferred, 0);
    assert_int_equal(c.open, 1);
    /* Past the request deadline: still waiting, not cut off. */
    usleep(120 * 1000);
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 0);
    assert_int_equal(c.open, 1);
    assert_int_equal(cs_sm_control_complete(&c, s.deferred + 1, late_reply, "x"), 0);
    assert_int_equal(cs_sm_control_complete(&c, s.deferred, late_reply, "migrated"), 1);
    char *reply = read_all(fd, NULL);
    assert_string_equal(reply, "ok\ndone migrated web-1\n");
    free(reply);
    assert_int_equal(c.open, 0);
    assert_int_equal(cs_sm_control_complete(&c, s.deferred, late_reply, "again"), 0);
    cs_sm_control_close(&c);
}

static void test_bad_requests(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {0};
    open_server(&c);

    char *reply = exchange(&c, &s, "hello\n", 6);
    assert_string_equal(
        reply, "error: unknown command 'hello' (commands: status, topology, "
               "lfts, reroute, log-level, sweep, vm-list, vm-create, vm-migrate, vm-destroy, "
               "adapt, priority, resweep, querylid, portstatus, lidbalance)\n");
    free(reply);
    reply = exchange(&c, &s, "GET / HTTP/1.1\r\n", 16);
    assert_true(strncmp(reply, "error: unknown command 'GET'", 28) == 0);
    free(reply);
    reply = exchange(&c, &s, "status\x1b[2J\n", 11);
    assert_string_equal(reply, "error: request holds byte 0x1b at column 7 (only printable "
                               "ASCII)\n");
    free(reply);

    /* A line longer than 4 KiB: refused after 4 KiB, whatever follows. */
    static char big[3 * CS_SM_REQUEST_MAX];
    memset(big, 'a', sizeof big);
    int fd = connect_client();
    send_text(fd, big, sizeof big);
    struct cs_error err;
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    reply = read_all(fd, NULL);
    assert_string_equal(reply, "error: request longer than 4095 bytes\n");
    free(reply);

    assert_int_equal(s.calls, 0);
    assert_int_equal(c.bad, 4);
    assert_int_equal(c.served, 0);
    cs_sm_control_close(&c);
}

/* A client that connects and says nothing costs the SM its request deadline, no more. */
static void test_silent_client(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {0};
    open_server(&c);
    c.request_timeout_ms = 200;
    int fd = connect_client();
    struct cs_error err;
    double t0 = cs_clock_ms();
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    double took = cs_clock_ms() - t0;
    assert_true(took >= 190);
    assert_true(took < 1000);
    char *reply = read_all(fd, NULL);
    assert_string_equal(reply, "error: no request line within 200 ms\n");
    free(reply);
    assert_int_equal(c.bad, 1);

    /* Half a line, then nothing: the same. */
    fd = connect_client();
    send_text(fd, "stat", 4);
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    reply = read_all(fd, NULL);
    assert_string_equal(reply, "error: no request line within 200 ms\n");
    free(reply);

    /* A client that closes without a word is no request at all (e.g. a liveness probe). */
    fd = connect_client();
    close(fd);
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    assert_int_equal(c.bad, 2);
    assert_int_equal(s.calls, 0);

    /* Nobody there: serve waits its timeout and says 0. */
    t0 = cs_clock_ms();
    assert_int_equal(cs_sm_control_serve(&c, 50, stub_handler, &s, &err), 0);
    assert_true(cs_clock_ms() - t0 >= 45);
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 0);
    cs_sm_control_close(&c);
}

/* A client that stops reading a reply longer than the queue (8 MiB): the handler's write waits
 * for it at most the stall limit, then the client loses the reply and the handler sees
 * ferror. */
static void test_stalled_reader(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {.big = 8 << 20};
    open_server(&c);
    c.stall_timeout_ms = 200;
    int fd = connect_client();
    send_text(fd, "lfts\n", 5);
    struct cs_error err;
    double t0 = cs_clock_ms();
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    assert_true(cs_clock_ms() - t0 < 2000);
    assert_true(s.saw_ferror); /* the handler could see it and stop */
    assert_true(s.written < s.big);
    assert_int_equal(c.dropped, 1);
    size_t len;
    char *reply = read_all(fd, &len);
    assert_true(strncmp(reply, "ok\n0x0001 001 : ", 16) == 0);
    assert_true(len < s.big);
    free(reply);
    cs_sm_control_close(&c);
}

/* A reply the client does not read at once is queued and sent by later calls: the SM does not
 * wait for the client. One that takes nothing for the stall limit is dropped by a later call,
 * again without a wait. */
static void test_reply_queue(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {.big = 512 << 10}; /* past the socket's buffer, within the queue */
    open_server(&c);
    c.stall_timeout_ms = 200;
    struct cs_error err;
    int reader = connect_client(), sleeper = connect_client();
    send_text(reader, "lfts\n", 5);
    send_text(sleeper, "lfts\n", 5);
    double t0 = cs_clock_ms();
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 0);
    double took = cs_clock_ms() - t0;
    if (took > 100)
        fail_msg("two 512 KiB replies to clients that did not read held serve for %.1f ms", took);
    assert_int_equal(s.calls, 2);
    assert_false(s.saw_ferror);
    assert_int_equal(c.open, 2); /* both still sending */

    /* The reader takes its reply while the SM goes on with non-waiting calls. */
    size_t want = 3 + (512 << 10) / 64 * strlen(BIG_LINE), got = 0;
    char buf[65536];
    int finished = 0;
    for (int turn = 0; turn < 100000 && !finished; turn++) {
        ssize_t n = recv(reader, buf, sizeof buf, MSG_DONTWAIT);
        if (n > 0) {
            if (got == 0)
                assert_true(strncmp(buf, "ok\n0x0001 001 : ", 16) == 0);
            got += (size_t)n;
        } else if (n == 0) {
            break;
        }
        finished = cs_sm_control_serve(&c, 0, stub_handler, &s, &err);
    }
    assert_int_equal(finished, 1); /* the reader's connection, all sent */
    size_t len;
    free(read_all(reader, &len));
    assert_int_equal(got + len, want);

    /* The sleeper took nothing: dropped after the stall limit, by a call that does not wait. */
    assert_int_equal(c.open, 1);
    assert_int_equal(c.dropped, 0);
    poll(NULL, 0, 250);
    t0 = cs_clock_ms();
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 1);
    assert_true(cs_clock_ms() - t0 < 50);
    assert_int_equal(c.open, 0);
    assert_int_equal(c.dropped, 1);
    char *reply = read_all(sleeper, &len);
    assert_true(strncmp(reply, "ok\n0x0001 001 : ", 16) == 0);
    assert_true(len < want);
    free(reply);
    cs_sm_control_close(&c);
}

/* A client that leaves before its reply: no SIGPIPE for the daemon, the reply is dropped. */
static void test_client_gone(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {.big = 1 << 20};
    open_server(&c);
    int fd = connect_client();
    send_text(fd, "lfts\n", 5);
    close(fd);
    struct cs_error err;
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    assert_int_equal(s.calls, 1);
    assert_true(s.saw_ferror);
    assert_int_equal(c.dropped, 1);
    cs_sm_control_close(&c);
}

/* The answer waiting on fd, if any, within wait_ms: the text, or NULL when nothing came. */
static char *reply_if_any(int fd, int wait_ms)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, wait_ms) != 1)
        return NULL;
    return read_all(fd, NULL);
}

/* Idle connections (connected, silent) do not delay anyone: a request that arrives behind
 * twenty of them is served in the same non-waiting call, and they stay until their deadline,
 * when each gets its error line. Before the table (issue 12), serve read one connection after
 * another, each for up to request_timeout_ms: this request waited 20 x 200 ms. */
static void test_idle_clients(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {0};
    open_server(&c);
    c.request_timeout_ms = 200;
    enum { IDLE = 20 };
    int idle[IDLE];
    for (int i = 0; i < IDLE; i++)
        idle[i] = connect_client();
    int fd = connect_client();
    send_text(fd, "status\n", 7);
    struct cs_error err;
    double t0 = cs_clock_ms();
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 1);
    double took = cs_clock_ms() - t0;
    /* The old server took IDLE x 200 ms here; the bound leaves room for a loaded machine. */
    if (took > 250)
        fail_msg("serving one request behind %d idle clients took %.1f ms", IDLE, took);
    char *reply = read_all(fd, NULL);
    assert_string_equal(reply, "ok\nstate       master\nsweeps      3\n");
    free(reply);
    assert_int_equal(c.open, IDLE);
    /* Calls that find nothing new cost no wait either. */
    t0 = cs_clock_ms();
    for (int i = 0; i < 100; i++)
        assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 0);
    assert_true(cs_clock_ms() - t0 < 250);
    /* A line that trickles in byte by byte is put together across calls. */
    int slow = connect_client();
    for (const char *p = "topology\n"; *p; p++) {
        send_text(slow, p, 1);
        int n = cs_sm_control_serve(&c, 0, stub_handler, &s, &err);
        assert_int_equal(n, p[1] ? 0 : 1);
    }
    reply = read_all(slow, NULL);
    assert_string_equal(reply, "ok\nnodes 76 (28 switches, 48 CAs)\n");
    free(reply);
    /* At their deadline: dropped, every one with its error line. A wait returns once a pass
     * finished something; on a loaded machine the deadlines (a few microseconds apart) can fall
     * into more than one pass, so wait until all are gone, within a bound. */
    t0 = cs_clock_ms();
    int dropped = 0;
    while (dropped < IDLE && cs_clock_ms() - t0 < 1000) {
        int n = cs_sm_control_serve(&c, 1000, stub_handler, &s, &err);
        assert_true(n >= 0);
        dropped += n;
    }
    took = cs_clock_ms() - t0;
    assert_int_equal(dropped, IDLE);
    assert_true(took < 500);
    for (int i = 0; i < IDLE; i++) {
        reply = read_all(idle[i], NULL);
        assert_string_equal(reply, "error: no request line within 200 ms\n");
        free(reply);
    }
    assert_int_equal(c.open, 0);
    assert_int_equal(c.bad, IDLE);
    assert_int_equal(c.served, 2);
    cs_sm_control_close(&c);
}

/* At most max_clients connections are held; the next waits in the backlog, unanswered and not
 * refused, and is served as soon as a slot frees. */
static void test_connection_limit(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {0};
    open_server(&c);
    c.max_clients = 3;
    int held[3];
    for (int i = 0; i < 3; i++)
        held[i] = connect_client();
    int waiting = connect_client();
    send_text(waiting, "status\n", 7);
    struct cs_error err;
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 0);
    assert_int_equal(c.open, 3);
    assert_null(reply_if_any(waiting, 50));
    assert_int_equal(s.calls, 0);
    /* One of the three sends its request: its slot goes to the waiting one in the same call. */
    send_text(held[1], "sweep\n", 6);
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 2);
    char *reply = read_all(held[1], NULL);
    assert_string_equal(reply, "ok\n");
    free(reply);
    reply = read_all(waiting, NULL);
    assert_string_equal(reply, "ok\nstate       master\nsweeps      3\n");
    free(reply);
    /* A client that leaves frees its slot too. */
    close(held[0]);
    int next = connect_client();
    send_text(next, "topology\n", 9);
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 2);
    reply = read_all(next, NULL);
    assert_string_equal(reply, "ok\nnodes 76 (28 switches, 48 CAs)\n");
    free(reply);
    assert_int_equal(c.open, 1);
    close(held[2]);
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 1);
    assert_int_equal(c.open, 0);
    cs_sm_control_close(&c);
}

/* An empty line and a line that does not end within CS_SM_REQUEST_MAX bytes are answered with
 * their error lines (docs/sm/control.md) while the client waits, without closing its side. */
static void test_empty_and_oversize(void **state)
{
    (void)state;
    struct cs_sm_control c;
    struct stub s = {0};
    open_server(&c);
    struct cs_error err;
    int fd = connect_client();
    send_text(fd, "\n", 1);
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    char *reply = read_all(fd, NULL);
    assert_string_equal(reply, "error: empty request (commands: status, topology, lfts, reroute, "
                               "log-level, sweep, vm-list, vm-create, vm-migrate, vm-destroy, "
                               "adapt, priority, resweep, querylid, portstatus, lidbalance)\n");
    free(reply);

    static char line[CS_SM_REQUEST_MAX + 1];
    memset(line, 'x', sizeof line);
    fd = connect_client();
    send_text(fd, line, CS_SM_REQUEST_MAX); /* 4096 bytes, no newline */
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    reply = read_all(fd, NULL);
    assert_string_equal(reply, "error: request longer than 4095 bytes\n");
    free(reply);

    /* 4095 bytes and the newline: a whole line, read as one (an unknown command). */
    line[CS_SM_REQUEST_MAX - 1] = '\n';
    fd = connect_client();
    send_text(fd, line, CS_SM_REQUEST_MAX);
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 1);
    reply = read_all(fd, NULL);
    assert_true(strncmp(reply, "error: unknown command 'xxxx", 28) == 0);
    free(reply);
    assert_int_equal(c.bad, 3);
    assert_int_equal(s.calls, 0);
    cs_sm_control_close(&c);
}

static void test_path_checks(void **state)
{
    (void)state;
    struct cs_sm_control c, other;
    struct cs_error err = {""};

    /* A socket left by a run that died: replaced, and the new one answers. */
    int stale = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, sock_path);
    assert_int_equal(bind(stale, (struct sockaddr *)&addr, sizeof addr), 0);
    close(stale);
    struct stat st;
    assert_int_equal(lstat(sock_path, &st), 0);
    open_server(&c);
    struct stub s = {0};
    char *reply = exchange(&c, &s, "sweep\n", 6);
    assert_string_equal(reply, "ok\n");
    free(reply);

    /* A socket someone listens on: a second server refuses it and the first keeps it. */
    assert_int_equal(cs_sm_control_open(&other, sock_path, &err), -1);
    assert_non_null(strstr(err.msg, "another process is listening on it (another cloudsmd?)"));
    /* Its probe was a connection that said nothing: taken quietly, not a bad request. */
    int fd = connect_client();
    send_text(fd, "sweep\n", 6);
    assert_int_equal(cs_sm_control_serve(&c, 1000, stub_handler, &s, &err), 2);
    reply = read_all(fd, NULL);
    assert_string_equal(reply, "ok\n");
    free(reply);
    assert_int_equal(c.bad, 0);
    assert_int_equal(s.calls, 2);

    /* The file was replaced behind the server's back: close leaves the new file alone. */
    unlink(sock_path);
    FILE *f = fopen(sock_path, "w");
    fputs("not a socket\n", f);
    fclose(f);
    cs_sm_control_close(&c);
    assert_int_equal(lstat(sock_path, &st), 0);

    /* Not a socket: refused, untouched. */
    assert_int_equal(cs_sm_control_open(&c, sock_path, &err), -1);
    assert_non_null(strstr(err.msg, "exists and is not a socket: not replacing it"));
    assert_int_equal(c.fd, -1);
    char *text = slurp(sock_path);
    assert_string_equal(text, "not a socket\n");
    free(text);
    unlink(sock_path);

    assert_int_equal(mkdir(sock_path, 0700), 0);
    assert_int_equal(cs_sm_control_open(&c, sock_path, &err), -1);
    assert_non_null(strstr(err.msg, "is not a socket"));
    rmdir(sock_path);

    char long_path[200];
    memset(long_path, 'p', sizeof long_path - 1);
    long_path[sizeof long_path - 1] = '\0';
    assert_int_equal(cs_sm_control_open(&c, long_path, &err), -1);
    assert_non_null(strstr(err.msg, "too long for a unix socket"));
    char missing[160];
    snprintf(missing, sizeof missing, "%s/no-such-dir/x.sock", dir);
    assert_int_equal(cs_sm_control_open(&c, missing, &err), -1);
    assert_non_null(strstr(err.msg, "No such file"));
}

/* Only root and the SM's own user get in: 0600 keeps other users from connecting at all, and
 * the peer check holds even if someone loosens the mode. Needs root (to become another user). */
static void test_other_user(void **state)
{
    (void)state;
    if (geteuid() != 0)
        skip();
    assert_int_equal(chmod(dir, 0711), 0); /* others may reach the socket; its mode decides */
    struct cs_sm_control c;
    struct stub s = {0};
    open_server(&c);
    int tried[2], go[2];
    assert_int_equal(pipe(tried), 0);
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* The child: nobody. Exit status: 10 + what went wrong, 0 all as expected. */
        close(tried[0]);
        close(go[1]);
        if (setgid(65534) != 0 || setuid(65534) != 0)
            _exit(10);
        struct sockaddr_un addr = {.sun_family = AF_UNIX};
        strcpy(addr.sun_path, sock_path);
        int fd = socket(AF_UNIX, SOCK_STREAM, 0);
        int rc = connect(fd, (struct sockaddr *)&addr, sizeof addr);
        int saved = errno;
        close(fd);
        if (write(tried[1], "t", 1) != 1 || rc == 0 || saved != EACCES)
            _exit(11);
        char byte;
        if (read(go[0], &byte, 1) != 1) /* the parent has made the socket 0666 */
            _exit(12);
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
            _exit(13);
        send(fd, "reroute minhop\n", 15, MSG_NOSIGNAL);
        char buf[256] = "";
        size_t len = 0;
        ssize_t n;
        while (len < sizeof buf - 1 && (n = recv(fd, buf + len, sizeof buf - 1 - len, 0)) > 0)
            len += (size_t)n;
        buf[len] = '\0';
        _exit(strcmp(buf, "error: permission denied: only root and uid 0 may use the control "
                          "socket\n") == 0
                  ? 0
                  : 14);
    }
    close(tried[1]);
    close(go[0]);
    char byte;
    assert_int_equal(read(tried[0], &byte, 1), 1);
    struct cs_error err;
    assert_int_equal(cs_sm_control_serve(&c, 0, stub_handler, &s, &err), 0); /* nothing queued */
    assert_int_equal(chmod(sock_path, 0666), 0);
    assert_int_equal(write(go[1], "g", 1), 1);
    assert_int_equal(cs_sm_control_serve(&c, 5000, stub_handler, &s, &err), 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    close(tried[0]);
    close(go[1]);
    assert_int_equal(s.calls, 0);
    assert_int_equal(c.refused, 1);
    cs_sm_control_close(&c);
}

/* ---- client ---- */

/* A forked server: serves `count` requests on the socket and exits. */
static pid_t fork_server(struct cs_sm_control *c, unsigned count, size_t big)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct stub s = {.big = big};
        struct cs_error err;
        unsigned done = 0;
        while (done < count) {
            int n = cs_sm_control_serve(c, 10000, stub_handler, &s, &err);
            if (n <= 0)
                _exit(1);
            done += (unsigned)n;
        }
        _exit(0);
    }
    return pid;
}

static void expect_child_ok(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The body as a string. */
static char *client_body(struct cs_sm_control_client *cl)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct cs_error err = {""};
    if (cs_sm_control_client_body(cl, out, &err) != 0)
        fail_msg("%s", err.msg);
    fclose(out);
    return text;
}

static void test_client(void **state)
{
    (void)state;
    struct cs_sm_control c;
    open_server(&c);
    pid_t pid = fork_server(&c, 3, 3 << 20);
    struct cs_sm_control_client cl;
    struct cs_error err = {""};

    if (cs_sm_control_call(&cl, sock_path, &(struct cs_sm_request){.command = CS_SM_CMD_STATUS},
                           5000, &err) != 0)
        fail_msg("%s", err.msg);
    assert_true(cl.ok);
    char *body = client_body(&cl);
    assert_string_equal(body, "state       master\nsweeps      3\n");
    free(body);
    cs_sm_control_client_close(&cl);

    struct cs_sm_request req = parse_ok("reroute updn --json");
    assert_int_equal(cs_sm_control_call(&cl, sock_path, &req, 5000, &err), 0);
    assert_false(cl.ok);
    assert_string_equal(cl.message, "stub: updn is not suitable here");
    body = client_body(&cl);
    assert_string_equal(body, "");
    free(body);
    cs_sm_control_client_close(&cl);

    /* A long body arrives whole (3 MiB through a socket buffer far smaller). */
    req = parse_ok("lfts");
    assert_int_equal(cs_sm_control_call(&cl, sock_path, &req, 5000, &err), 0);
    assert_true(cl.ok);
    body = client_body(&cl);
    assert_int_equal(strlen(body), (3 << 20) / 64 * strlen(BIG_LINE));
    free(body);
    cs_sm_control_client_close(&cl);
    expect_child_ok(pid);
    cs_sm_control_close(&c);
}

static void test_client_errors(void **state)
{
    (void)state;
    struct cs_sm_control_client cl;
    struct cs_error err = {""};
    struct cs_sm_request req = parse_ok("status");

    assert_int_equal(cs_sm_control_call(&cl, sock_path, &req, 1000, &err), -1);
    char want[256];
    snprintf(want, sizeof want, "cannot connect to %s: no such file (is cloudsmd running?)",
             sock_path);
    assert_string_equal(err.msg, want);
    cs_sm_control_client_close(&cl);

    /* A stale socket: nobody listens. */
    int stale = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    strcpy(addr.sun_path, sock_path);
    assert_int_equal(bind(stale, (struct sockaddr *)&addr, sizeof addr), 0);
    close(stale);
    assert_int_equal(cs_sm_control_call(&cl, sock_path, &req, 1000, &err), -1);
    assert_non_null(strstr(err.msg, "connection refused (is cloudsmd running?"));
    cs_sm_control_client_close(&cl);

    /* A daemon that takes the connection but never answers: the client's deadline. */
    struct cs_sm_control c;
    open_server(&c);
    double t0 = cs_clock_ms();
    assert_int_equal(cs_sm_control_call(&cl, sock_path, &req, 200, &err), -1);
    assert_true(cs_clock_ms() - t0 >= 190);
    assert_string_equal(err.msg, "no reply from cloudsmd within 200 ms");
    cs_sm_control_client_close(&cl);

    /* Something that is not cloudsmd on the socket (a fresh one: the old backlog holds the
     * connection that timed out). */
    cs_sm_control_close(&c);
    open_server(&c);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct pollfd p = {.fd = c.fd, .events = POLLIN};
        poll(&p, 1, 5000);
        int conn = accept(c.fd, NULL, NULL);
        const char *http = "HTTP/1.1 400 Bad Request\r\n\r\n";
        send(conn, http, strlen(http), MSG_NOSIGNAL);
        _exit(0);
    }
    assert_int_equal(cs_sm_control_call(&cl, sock_path, &req, 5000, &err), -1);
    assert_non_null(strstr(err.msg, "not a cloudsmd reply: 'HTTP/1.1 400 Bad Request"));
    cs_sm_control_client_close(&cl);
    expect_child_ok(pid);
    cs_sm_control_close(&c);
}

/* ---- stub server for tests/cli/sm_control.sh ---- */

static int serve_for_cli(const char *path, unsigned count)
{
    struct cs_sm_control c;
    struct cs_error err;
    if (cs_sm_control_open(&c, path, &err) != 0) {
        fprintf(stderr, "test_sm_control --serve: %s\n", err.msg);
        return 1;
    }
    struct stub s = {0};
    unsigned done = 0;
    while (done < count) {
        int n = cs_sm_control_serve(&c, 30000, stub_handler, &s, &err);
        if (n <= 0) {
            fprintf(stderr, "test_sm_control --serve: %s\n",
                    n < 0 ? err.msg : "no client within 30 s");
            cs_sm_control_close(&c);
            return 1;
        }
        done += (unsigned)n;
    }
    cs_sm_control_close(&c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--serve") == 0)
        return serve_for_cli(argv[2], (unsigned)atoi(argv[3]));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_reroute),
        cmocka_unit_test(test_parse_vm),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_status_lines),
        cmocka_unit_test(test_path),
        cmocka_unit_test_setup_teardown(test_open_makes_0600_socket, setup, teardown),
        cmocka_unit_test_setup_teardown(test_serve_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_requests, setup, teardown),
        cmocka_unit_test_setup_teardown(test_deferred_reply, setup, teardown),
        cmocka_unit_test_setup_teardown(test_silent_client, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stalled_reader, setup, teardown),
        cmocka_unit_test_setup_teardown(test_reply_queue, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client_gone, setup, teardown),
        cmocka_unit_test_setup_teardown(test_idle_clients, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_and_oversize, setup, teardown),
        cmocka_unit_test_setup_teardown(test_path_checks, setup, teardown),
        cmocka_unit_test_setup_teardown(test_other_user, setup, teardown),
        cmocka_unit_test_setup_teardown(test_client, setup, teardown),
        cmocka_unit_test(test_parse_console),
        cmocka_unit_test_setup_teardown(test_client_errors, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
