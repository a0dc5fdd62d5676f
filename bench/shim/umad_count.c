/* LD_PRELOAD shim for benchmarks: counts the MADs a process hands to libibumad's umad_send, by
 * management class, and appends one line to $UMAD_COUNT_FILE at exit:
 *
 *     smps 104733 lid_routed 0 directed 104733 other 0
 *
 * OpenSM and cloudsmd both call umad_send through the shared libibumad, so the same shim counts
 * both the same way, without trusting either program's own statistics.
 */
#include <dlfcn.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/umad.h>

static atomic_ulong lid_routed, directed, other;

int umad_send(int portid, int agentid, void *umad, int length, int timeout_ms, int retries)
{
    static int (*real_send)(int, int, void *, int, int, int);
    if (real_send == NULL)
        real_send = (int (*)(int, int, void *, int, int, int))dlsym(RTLD_NEXT, "umad_send");
    const uint8_t *mad = umad_get_mad(umad);
    if (mad[1] == 0x01)
        atomic_fetch_add(&lid_routed, 1);
    else if (mad[1] == 0x81)
        atomic_fetch_add(&directed, 1);
    else
        atomic_fetch_add(&other, 1);
    return real_send(portid, agentid, umad, length, timeout_ms, retries);
}

__attribute__((destructor)) static void report(void)
{
    const char *path = getenv("UMAD_COUNT_FILE");
    if (path == NULL)
        return;
    FILE *f = fopen(path, "a");
    if (f == NULL)
        return;
    unsigned long l = atomic_load(&lid_routed), d = atomic_load(&directed);
    fprintf(f, "smps %lu lid_routed %lu directed %lu other %lu\n", l + d, l, d,
            atomic_load(&other));
    fclose(f);
}
