/* Helpers shared by the cmocka tests (include after <cmocka.h>). */
#ifndef CLOUDSM_TESTLIB_H
#define CLOUDSM_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

#include "cloudsm/atomic_file.h"

/* A whole file as a NUL-terminated string (the test fails if it cannot be read). */
static inline char *slurp(const char *path)
{
    char *text;
    size_t len;
    struct cs_error err;
    if (cs_read_whole_file(path, &text, &len, &err) != 0)
        fail_msg("%s", err.msg);
    return text;
}

/* What a writer callback (the cs_atomic_write kind) writes, as a string; the test fails if the
 * writer does. */
static inline char *capture(int (*write_fn)(FILE *out, const void *ctx, struct cs_error *err),
                            const void *ctx)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    struct cs_error err = {""};
    int rc = write_fn(out, ctx, &err);
    fclose(out);
    if (rc != 0)
        fail_msg("write failed: %s", err.msg);
    return buf;
}

#endif
