/* How many CPUs the work may spread over (internal). */
#ifndef CLOUDSM_CORE_CPU_H
#define CLOUDSM_CORE_CPU_H

#include <stdint.h>

/* Online CPUs, at least 1. */
unsigned cs_cpu_count(void);

/* Threads for `items` pieces of `work` in all: asked (0: one per online CPU), no more than the
 * work keeps busy at min_work_per_thread each (only when none was asked for), than max_threads,
 * or than items; at least 1. */
unsigned cs_threads_for(unsigned asked, uint64_t work, uint64_t min_work_per_thread,
                        unsigned max_threads, uint32_t items);

#endif
