/* Error reporting shared by every library call.
 *
 * Library code never prints and never exits. A call that fails returns -1 and leaves one line in a
 * caller-provided struct cs_error. Readers put `file:line: ` in front of the message so that a
 * user sees where the input is wrong; other calls say what went wrong and with which object.
 */
#ifndef CLOUDSM_ERROR_H
#define CLOUDSM_ERROR_H

#include <stddef.h>

#define CS_ERROR_MAX 512

struct cs_error {
    char msg[CS_ERROR_MAX];
};

#if defined(__GNUC__)
#define CS_PRINTF(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define CS_PRINTF(fmt_index, first_arg)
#endif

/* Fill err (if not NULL) with the formatted message; always returns -1 so that callers can write
 * `return cs_fail(err, "...")`. */
int cs_fail(struct cs_error *err, const char *fmt, ...) CS_PRINTF(2, 3);

/* The same, prefixed with "name:line: ". Used by every reader. */
int cs_fail_at(struct cs_error *err, const char *name, unsigned line, const char *fmt, ...)
    CS_PRINTF(4, 5);

/* Fill err with "what: strerror(errno)" for a failed system call; returns -1. */
int cs_fail_errno(struct cs_error *err, const char *what);

#endif
