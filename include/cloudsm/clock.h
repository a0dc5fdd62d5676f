/* The one clock for durations: monotonic milliseconds (never jumps with the wall clock). */
#ifndef CLOUDSM_CLOCK_H
#define CLOUDSM_CLOCK_H

double cs_clock_ms(void);

#endif
