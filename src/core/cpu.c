/* CPU count (core/cpu.h). */
#define _POSIX_C_SOURCE 200809L
#include "core/cpu.h"

#include <unistd.h>

unsigned cs_cpu_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1;
}

unsigned cs_threads_for(unsigned asked, uint64_t work, uint64_t min_work_per_thread,
                        unsigned max_threads, uint32_t items)
{
    unsigned threads = asked;
    if (!threads) {
        threads = cs_cpu_count();
        uint64_t useful = work / min_work_per_thread;
        if (useful < threads)
            threads = useful ? (unsigned)useful : 1;
    }
    if (threads > max_threads)
        threads = max_threads;
    if (threads > items)
        threads = items ? items : 1;
    return threads;
}
