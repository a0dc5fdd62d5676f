/* CPU count (core/cpu.h). */
#define _POSIX_C_SOURCE 200809L
#include "core/cpu.h"

#include <unistd.h>

unsigned cs_cpu_count(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus > 0 ? (unsigned)cpus : 1;
}
