#include "cloudsm/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int cs_fail(struct cs_error *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int cs_fail_at(struct cs_error *err, const char *name, unsigned line, const char *fmt, ...)
{
    if (err) {
        int n = snprintf(err->msg, sizeof err->msg, "%s:%u: ", name ? name : "<input>", line);
        if (n < 0 || (size_t)n >= sizeof err->msg)
            return -1;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg + n, sizeof err->msg - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

int cs_fail_errno(struct cs_error *err, const char *what)
{
    return cs_fail(err, "%s: %s", what, strerror(errno));
}
