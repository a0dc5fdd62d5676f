/* The SM core's logging helper and DR path text (include/cloudsm/sm.h). */
#include <stdarg.h>
#include <stdio.h>

#include "cloudsm/sm.h"

#define SM_LOG_LINE_MAX 512

void cs_sm_logf(const struct cs_sm_log *log, enum cs_sm_log_level level, const char *fmt, ...)
{
    if (log == NULL || log->fn == NULL)
        return; /* silent: do not even format */
    char line[SM_LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log->fn(log->arg, level, line);
}

const char *cs_dr_path_format(const struct cs_dr_path *path, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    /* "0" is the SM's own node, as smpquery -D and ibnetdiscover write it. */
    size_t used = (size_t)snprintf(buf, size, "0");
    for (unsigned hop = 1; hop <= path->hops && hop < CS_SMP_PATH_SIZE && used < size; hop++)
        used += (size_t)snprintf(buf + used, size - used, ",%u", path->port[hop]);
    return buf;
}
