/* Helpers shared by the cmocka tests (include after <cmocka.h>). */
#ifndef CLOUDSM_TESTLIB_H
#define CLOUDSM_TESTLIB_H

#include <stdio.h>
#include <stdlib.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/fabric.h"

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

/* The node at the other end of port `port` of node n (CS_NONE if unconnected); the port must
 * exist. */
static inline uint32_t peer_node(const struct cs_fabric *f, uint32_t n, unsigned port)
{
    uint32_t p = cs_fabric_port(f, n, port);
    assert_int_not_equal(p, CS_NONE);
    uint32_t peer = f->ports[p].peer;
    return peer == CS_NONE ? CS_NONE : f->ports[peer].node;
}

/* The port number at the other end (0 if unconnected). */
static inline unsigned peer_port(const struct cs_fabric *f, uint32_t n, unsigned port)
{
    uint32_t peer = f->ports[cs_fabric_port(f, n, port)].peer;
    return peer == CS_NONE ? 0 : f->ports[peer].num;
}

#endif
