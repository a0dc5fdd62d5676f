/* Output files that appear whole or not at all.
 *
 * cs_atomic_open creates a temporary file next to the target (same directory, so rename(2) is
 * atomic); cs_atomic_commit flushes, fsyncs and renames it over the target; cs_atomic_abort
 * removes it. A reader of the target therefore sees the old file or the complete new one, never
 * a half-written one, even if the writer is killed. A target that exists and is not a regular
 * file (/dev/null, /dev/stdout, a FIFO) is written directly: there is nothing to replace.
 */
#ifndef CLOUDSM_ATOMIC_FILE_H
#define CLOUDSM_ATOMIC_FILE_H

#include <stdio.h>

#include "cloudsm/error.h"

struct cs_atomic_file {
    FILE *fp;
    char *target;
    char *tmp;
};

int cs_atomic_open(struct cs_atomic_file *af, const char *path, struct cs_error *err);
int cs_atomic_commit(struct cs_atomic_file *af, struct cs_error *err);
void cs_atomic_abort(struct cs_atomic_file *af);

/* Write a file atomically through a callback that writes to a FILE*. */
int cs_atomic_write(const char *path,
                    int (*write_fn)(FILE *out, const void *ctx, struct cs_error *err),
                    const void *ctx, struct cs_error *err);

/* Read a whole file into a NUL-terminated heap buffer. */
int cs_read_whole_file(const char *path, char **text, size_t *len, struct cs_error *err);

#endif
