#define _POSIX_C_SOURCE 200809L
#include "cloudsm/atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int cs_atomic_open(struct cs_atomic_file *af, const char *path, struct cs_error *err)
{
    memset(af, 0, sizeof *af);
    /* /dev/null, /dev/stdout, a FIFO: there is nothing to replace, and a temporary file next to
     * them (in /dev) renamed over them would replace the device itself. Write straight in. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode))
            return cs_fail(err, "%s: is a directory", path);
        af->fp = fopen(path, "w");
        if (!af->fp)
            return cs_fail(err, "%s: %s", path, strerror(errno));
        af->target = strdup(path);
        if (!af->target) {
            fclose(af->fp);
            af->fp = NULL;
            return cs_fail(err, "%s: out of memory", path);
        }
        return 0;
    }
    size_t len = strlen(path);
    af->target = malloc(len + 1);
    af->tmp = malloc(len + sizeof ".tmp.XXXXXX");
    if (!af->target || !af->tmp) {
        cs_atomic_abort(af);
        return cs_fail(err, "%s: out of memory", path);
    }
    memcpy(af->target, path, len + 1);
    memcpy(af->tmp, path, len);
    memcpy(af->tmp + len, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(af->tmp);
    if (fd < 0) {
        int saved = errno;
        free(af->tmp);
        af->tmp = NULL;
        cs_atomic_abort(af);
        errno = saved;
        return cs_fail(err, "%s: cannot create: %s", path, strerror(saved));
    }
    /* mkstemp makes 0600; an output file should look like any other the user creates. */
    mode_t mask = umask(0);
    umask(mask);
    fchmod(fd, 0666 & ~mask);
    af->fp = fdopen(fd, "w");
    if (!af->fp) {
        int saved = errno;
        close(fd);
        cs_atomic_abort(af);
        return cs_fail(err, "%s: %s", path, strerror(saved));
    }
    return 0;
}

int cs_atomic_commit(struct cs_atomic_file *af, struct cs_error *err)
{
    int failed = 0;
    char reason[128] = "";
    if (fflush(af->fp) != 0 || ferror(af->fp)) {
        failed = 1;
        snprintf(reason, sizeof reason, "write failed: %s", strerror(errno));
    } else if (af->tmp && fsync(fileno(af->fp)) != 0 && errno != EINVAL) {
        failed = 1;
        snprintf(reason, sizeof reason, "fsync failed: %s", strerror(errno));
    }
    if (fclose(af->fp) != 0 && !failed) {
        failed = 1;
        snprintf(reason, sizeof reason, "close failed: %s", strerror(errno));
    }
    af->fp = NULL;
    if (!failed && af->tmp && rename(af->tmp, af->target) != 0) {
        failed = 1;
        snprintf(reason, sizeof reason, "rename failed: %s", strerror(errno));
    }
    if (failed) {
        cs_fail(err, "%s: %s", af->target, reason);
        cs_atomic_abort(af);
        return -1;
    }
    free(af->tmp);
    free(af->target);
    memset(af, 0, sizeof *af);
    return 0;
}

void cs_atomic_abort(struct cs_atomic_file *af)
{
    if (af->fp)
        fclose(af->fp);
    if (af->tmp)
        unlink(af->tmp);
    free(af->tmp);
    free(af->target);
    memset(af, 0, sizeof *af);
}

int cs_atomic_write(const char *path,
                    int (*write_fn)(FILE *out, const void *ctx, struct cs_error *err),
                    const void *ctx, struct cs_error *err)
{
    struct cs_atomic_file af;
    if (cs_atomic_open(&af, path, err) < 0)
        return -1;
    if (write_fn(af.fp, ctx, err) < 0) {
        cs_atomic_abort(&af);
        return -1;
    }
    return cs_atomic_commit(&af, err);
}

int cs_read_whole_file(const char *path, char **text, size_t *len, struct cs_error *err)
{
    *text = NULL;
    *len = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return cs_fail(err, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        return cs_fail(err, "%s: %s", path, strerror(saved));
    }
    if (S_ISDIR(st.st_mode)) {
        close(fd);
        return cs_fail(err, "%s: is a directory", path);
    }
    /* Regular files are read in one go; pipes and /dev/stdin grow the buffer as needed. */
    size_t cap = S_ISREG(st.st_mode) ? (size_t)st.st_size + 1 : 65536;
    char *buf = malloc(cap);
    size_t used = 0;
    for (;;) {
        if (!buf) {
            close(fd);
            return cs_fail(err, "%s: out of memory", path);
        }
        if (used + 1 >= cap) {
            char *bigger = realloc(buf, cap * 2);
            if (!bigger)
                free(buf);
            buf = bigger;
            cap *= 2;
            continue;
        }
        ssize_t n = read(fd, buf + used, cap - used - 1);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            free(buf);
            close(fd);
            return cs_fail(err, "%s: %s", path, strerror(saved));
        }
        if (n == 0)
            break;
        used += (size_t)n;
    }
    close(fd);
    buf[used] = '\0';
    *text = buf;
    *len = used;
    return 0;
}
