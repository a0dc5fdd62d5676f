/* The library's logging helper (include/cloudsm/log.h). */
#include "cloudsm/log.h"

#include <stdarg.h>
#include <stdio.h>

#define LOG_LINE_MAX 512

void cs_logf(const struct cs_log *log, enum cs_log_level level, const char *fmt, ...)
{
    if (log == NULL || log->fn == NULL)
        return; /* silent: do not even format */
    char line[LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log->fn(log->arg, level, line);
}
