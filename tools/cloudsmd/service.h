/* cloudsmd as a service: the background (-B, --daemon, as OpenSM's), the pid file, and the
 * systemd notification protocol (Type=notify), without libsystemd.
 *
 * --daemon: the process forks, the child starts a new session (setsid) and forks again, so that
 * the daemon is no session leader and never gets a controlling terminal. The first process stays
 * until the daemon says it is serving (cloudsmd_service_ready) and then exits 0; if the daemon
 * dies first (a bad file, no port, another master) it exits 1. Until then the daemon's standard
 * error is the caller's, so that a failure at start is seen where cloudsmd was started; at ready
 * its standard streams become /dev/null (the log should be a file: --log-file). The working
 * directory is kept: relative paths mean what they meant on the command line.
 *
 * Notifications: when $NOTIFY_SOCKET names a unix datagram socket (a path, or "@name" for the
 * abstract namespace), each state change is one datagram of "KEY=VALUE" lines, as
 * sd_notify(3) sends them: READY=1 when serving, STATUS=... with what the SM is doing,
 * RELOADING=1 and READY=1 around a SIGHUP's reload, STOPPING=1 at stop. Without the variable
 * nothing is sent. A notification that cannot be sent is not an error (systemd may be gone).
 */
#ifndef CLOUDSMD_SERVICE_H
#define CLOUDSMD_SERVICE_H

#include <stdbool.h>
#include <sys/types.h>

#include "cloudsm/error.h"

struct cloudsmd_service {
    int ready_fd; /* --daemon: the pipe to the waiting first process; -1 when none */
    char pid_file[4096];
    bool pid_file_ours; /* written by this process: removed at exit */
    pid_t pid;          /* who wrote it */
};

/* Detach into the background as above. Returns 0 in the daemon; the first process never
 * returns (it exits with the daemon's start status). -1 with err if fork or setsid fail. */
int cloudsmd_daemonize(struct cloudsmd_service *s, struct cs_error *err);

/* Write our pid to path (atomically: a temporary file renamed over it). */
int cloudsmd_pid_file_write(struct cloudsmd_service *s, const char *path, struct cs_error *err);
/* At exit: remove the pid file if it still holds our pid. */
void cloudsmd_pid_file_remove(struct cloudsmd_service *s);

/* Serving: READY=1 (and STATUS=status) to systemd, and with --daemon, let the first process
 * exit 0 and point our standard streams at /dev/null. */
void cloudsmd_service_ready(struct cloudsmd_service *s, const char *status);

/* One notification datagram ("READY=1\nSTATUS=...", a format); 1 sent, 0 no $NOTIFY_SOCKET,
 * -1 not sent. */
int cloudsmd_notify(const char *fmt, ...) CS_PRINTF(1, 2);

#endif
