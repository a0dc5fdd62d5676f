/* How many CPUs the work may spread over (internal). */
#ifndef CLOUDSM_CORE_CPU_H
#define CLOUDSM_CORE_CPU_H

/* Online CPUs, at least 1. */
unsigned cs_cpu_count(void);

#endif
