/* LD_PRELOAD shim for the SA experiments: logs every SA request a process receives through
 * libibumad's umad_recv (an SM's SA requests: management class 0x03, a method without the
 * response bit), one line each, appended to $SA_LOG_FILE as it arrives:
 *
 *     1764213705.123456 slid 22 method 0x01 attr 0x0035
 *
 * (wall-clock seconds, the requester's LID, the method, the attribute: 0x0035 is PathRecord).
 * bench/migration_sa preloads it into cloudsmd to count each peer's PathRecord queries on the SM
 * side, apart from what the peers count themselves and from the SM's own statistics.
 */
#include <dlfcn.h>
#include <endian.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#define SA_CLASS 0x03

static int log_fd = -2; /* -2: not opened yet; -1: no log */

static void log_request(void *umad)
{
    if (log_fd == -2) {
        const char *path = getenv("SA_LOG_FILE");
        log_fd = path ? open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    }
    if (log_fd < 0)
        return;
    const uint8_t *mad = umad_get_mad(umad);
    if (mad[1] != SA_CLASS || (mad[3] & 0x80))
        return;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const ib_mad_addr_t *addr = umad_get_mad_addr(umad);
    char line[96];
    int n = snprintf(line, sizeof line, "%lld.%06ld slid %u method 0x%02x attr 0x%04x\n",
                     (long long)now.tv_sec, now.tv_nsec / 1000, (unsigned)be16toh(addr->lid),
                     mad[3], (unsigned)(mad[16] << 8 | mad[17]));
    if (n > 0 && write(log_fd, line, (size_t)n) != n)
        return; /* a line lost is a count short: the experiment compares and says so */
}

int umad_recv(int portid, void *umad, int *length, int timeout_ms)
{
    static int (*real_recv)(int, void *, int *, int);
    if (real_recv == NULL)
        real_recv = (int (*)(int, void *, int *, int))dlsym(RTLD_NEXT, "umad_recv");
    int rc = real_recv(portid, umad, length, timeout_ms);
    if (rc >= 0)
        log_request(umad);
    return rc;
}
