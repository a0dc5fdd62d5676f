/* cloudsmd as a service: --daemon, the pid file, systemd notifications (service.h). */
#include "cloudsmd/service.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cloudsm/atomic_file.h"

/* The first process: wait for the daemon's word ('R' = serving) or for the pipe to close (it
 * died, or failed before serving), and exit with the start's status. */
static _Noreturn void wait_for_daemon(int fd, pid_t child)
{
    char c = 0;
    ssize_t n;
    do
        n = read(fd, &c, 1);
    while (n < 0 && errno == EINTR);
    waitpid(child, NULL, 0); /* the intermediate process, gone at once */
    _exit(n == 1 && c == 'R' ? EXIT_SUCCESS : EXIT_FAILURE);
}

int cloudsmd_daemonize(struct cloudsmd_service *s, struct cs_error *err)
{
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) < 0)
        return cs_fail(err, "--daemon: pipe: %s", strerror(errno));
    fflush(NULL); /* nothing buffered is written twice */
    pid_t child = fork();
    if (child < 0)
        return cs_fail(err, "--daemon: fork: %s", strerror(errno));
    if (child > 0) {
        close(fds[1]);
        wait_for_daemon(fds[0], child);
    }
    close(fds[0]);
    if (setsid() < 0)
        return cs_fail(err, "--daemon: setsid: %s", strerror(errno));
    /* The session leader leaves: its child can never acquire a controlling terminal. */
    pid_t daemon = fork();
    if (daemon < 0)
        return cs_fail(err, "--daemon: fork: %s", strerror(errno));
    if (daemon > 0)
        _exit(EXIT_SUCCESS);
    s->ready_fd = fds[1];
    return 0;
}

int cloudsmd_pid_file_write(struct cloudsmd_service *s, const char *path, struct cs_error *err)
{
    if (strlen(path) >= sizeof s->pid_file)
        return cs_fail(err, "--pid-file: the path is too long");
    struct cs_atomic_file af;
    if (cs_atomic_open(&af, path, err) < 0)
        return -1;
    s->pid = getpid();
    fprintf(af.fp, "%ld\n", (long)s->pid);
    if (cs_atomic_commit(&af, err) < 0)
        return -1;
    snprintf(s->pid_file, sizeof s->pid_file, "%s", path);
    s->pid_file_ours = true;
    return 0;
}

void cloudsmd_pid_file_remove(struct cloudsmd_service *s)
{
    if (!s->pid_file_ours)
        return;
    /* Only our own: a second cloudsmd may have written its pid over ours meanwhile. */
    FILE *fp = fopen(s->pid_file, "re");
    long pid = 0;
    if (fp) {
        if (fscanf(fp, "%ld", &pid) != 1)
            pid = 0;
        fclose(fp);
    }
    if (pid == (long)s->pid)
        unlink(s->pid_file);
    s->pid_file_ours = false;
}

int cloudsmd_notify(const char *fmt, ...)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (!path || !*path)
        return 0;
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    size_t len = strlen(path);
    if ((path[0] != '/' && path[0] != '@') || len >= sizeof addr.sun_path)
        return -1;
    memcpy(addr.sun_path, path, len);
    if (path[0] == '@') /* the abstract namespace: a leading NUL, no terminating one */
        addr.sun_path[0] = '\0';
    socklen_t alen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len + (path[0] == '/'));
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof msg)
        return -1;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    ssize_t sent = sendto(fd, msg, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&addr, alen);
    close(fd);
    return sent == n ? 1 : -1;
}

void cloudsmd_service_ready(struct cloudsmd_service *s, const char *status)
{
    cloudsmd_notify("READY=1\nSTATUS=%s", status);
    if (s->ready_fd < 0)
        return;
    /* Standard streams to /dev/null before the first process exits: a terminal that closes,
     * or a pipe whose reader leaves, must not reach the daemon. */
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        fflush(NULL);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
    ssize_t n;
    do
        n = write(s->ready_fd, "R", 1);
    while (n < 0 && errno == EINTR);
    close(s->ready_fd);
    s->ready_fd = -1;
}
