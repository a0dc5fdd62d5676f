/* The line source every reader streams through (src/io/text.h), differentially: the same bytes
 * read from memory, from a plain file and from a gzip file give the same lines, the same line
 * numbers and the same verdict (the end, or the same error after the file name).
 *
 * The first input byte repeats the rest up to 64 times, so that inputs cross the file source's
 * buffer refills (128 KiB) and its line limit (CS_LINE_MAX) although libFuzzer's inputs are small.
 * Files are memfds opened through /proc/self/fd, so nothing touches the disk. Text that starts
 * with gzip's magic bytes is left out: as a file it is read as gzip, by design. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "io/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A memfd holding bytes (gzip-compressed when compress): its /proc path into path. */
static int make_file(const char *bytes, size_t len, bool compress, char *path, size_t size)
{
    int fd = memfd_create(compress ? "fuzz.gz" : "fuzz", 0);
    if (fd < 0)
        return -1;
    snprintf(path, size, "/proc/self/fd/%d", fd);
    if (compress) {
        gzFile gz = gzdopen(dup(fd), "wb1");
        if (gz == NULL || (len > 0 && gzwrite(gz, bytes, (unsigned)len) != (int)len) ||
            gzclose(gz) != Z_OK)
            abort();
    } else if (len > 0 && write(fd, bytes, len) != (ssize_t)len) {
        abort();
    }
    return fd;
}

/* The error message without its leading "name" (each source names its input differently). */
static const char *after_name(const struct cs_error *err, const char *name)
{
    size_t n = strlen(name);
    return strncmp(err->msg, name, n) == 0 ? err->msg + n : err->msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t repeat = 1 + data[0] % 64, chunk = size - 1;
    size_t len = repeat * chunk;
    char *text = malloc(len ? len : 1);
    if (text == NULL)
        return 0;
    for (size_t r = 0; r < repeat; r++)
        memcpy(text + r * chunk, data + 1, chunk);
    if (len >= 2 && (uint8_t)text[0] == 0x1f && (uint8_t)text[1] == 0x8b) {
        free(text); /* gzip's magic: a file that starts so is read as gzip, by design */
        return 0;
    }

    char plain_path[64], gz_path[64];
    int plain_fd = make_file(text, len, false, plain_path, sizeof plain_path);
    int gz_fd = make_file(text, len, true, gz_path, sizeof gz_path);
    if (plain_fd < 0 || gz_fd < 0)
        abort();

    struct cs_error mem_err = {""}, plain_err = {""}, gz_err = {""};
    struct cs_lines mem, plain, gz;
    cs_lines_init(&mem, text, len, "memory", &mem_err);
    if (cs_lines_open(&plain, plain_path, &plain_err) < 0 ||
        cs_lines_open(&gz, gz_path, &gz_err) < 0)
        abort();
    for (;;) {
        struct cs_span a, b, c;
        int ra = cs_lines_next(&mem, &a), rb = cs_lines_next(&plain, &b),
            rc = cs_lines_next(&gz, &c);
        if (ra != rb || ra != rc)
            abort();
        if (ra <= 0)
            break;
        size_t n = (size_t)(a.end - a.p);
        if ((size_t)(b.end - b.p) != n || (size_t)(c.end - c.p) != n || memcmp(a.p, b.p, n) != 0 ||
            memcmp(a.p, c.p, n) != 0 || mem.number != plain.number || mem.number != gz.number)
            abort();
        if (n > CS_LINE_MAX)
            abort();
    }
    if (mem.failed != plain.failed || mem.failed != gz.failed)
        abort();
    if (mem.failed &&
        (strcmp(after_name(&mem_err, "memory"), after_name(&plain_err, plain_path)) != 0 ||
         strcmp(after_name(&mem_err, "memory"), after_name(&gz_err, gz_path)) != 0))
        abort();
    cs_lines_close(&mem);
    cs_lines_close(&plain);
    cs_lines_close(&gz);
    close(plain_fd);
    close(gz_fd);
    free(text);
    return 0;
}
