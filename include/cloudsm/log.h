/* Where library code reports what happened: the subnet manager's phases, and routing engines'
 * warnings (a node in an order file that is not in the fabric, a policy that could not be
 * kept). Library code never prints; the tool that owns the terminal or syslog supplies fn.
 */
#ifndef CLOUDSM_LOG_H
#define CLOUDSM_LOG_H

#include "cloudsm/error.h"

enum cs_log_level {
    CS_LOG_ERROR = 0,
    CS_LOG_WARN,
    CS_LOG_INFO,
    CS_LOG_DEBUG,
};

/* fn may be NULL (silent); so may a `const struct cs_log *` argument. */
struct cs_log {
    void (*fn)(void *arg, enum cs_log_level level, const char *msg);
    void *arg;
};

/* printf-style: formats one line (cut at 511 bytes) and hands it to log->fn. */
void cs_logf(const struct cs_log *log, enum cs_log_level level, const char *fmt, ...)
    CS_PRINTF(3, 4);

#endif
