/* What the SA test clients (sa_alias, sa_service, mc_join, sa_inform) share: their number
 * arguments, and one request from this host's first port with its reply, printed the same way by
 * all of them when none comes. Header-only; each client is one program. */
#ifndef CLOUDSM_TEST_SA_CALL_H
#define CLOUDSM_TEST_SA_CALL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sa.h"
#include "umad_client.h"

#define SA_CALL_TIMEOUT_MS 1000

/* A whole argument as strtoull(.., 0) reads it, at most max; -1 if it is not one. */
static inline int sa_call_parse_u64(const char *text, unsigned long long max,
                                    unsigned long long *out)
{
    char *end;
    *out = strtoull(text, &end, 0);
    return *text != '\0' && *end == '\0' && *out <= max ? 0 : -1;
}

/* Open this host's first port; 1 with the error on stderr as "who: ...". */
static inline int sa_call_open(const char *who, struct umad_client *c)
{
    struct cs_error err;
    if (umad_client_open(c, NULL, 0, 0, SA_CALL_TIMEOUT_MS, &err) < 0) {
        fprintf(stderr, "%s: %s\n", who, err.msg);
        return 1;
    }
    return 0;
}

/* Send method/attr/mask with SM_Key sm_key and record[0..size) through c, and wait up to
 * SA_CALL_TIMEOUT_MS: 0 with the reply's header in *reply and its first record in out[0..size)
 * (zero where the reply is shorter); 1 after printing "no reply" (nothing came, or the port
 * failed: the error on stderr). sa_call_open_port keeps c open, sa_call closes it. */
static inline int sa_call_open_port(const char *who, struct umad_client *c, uint32_t tid,
                                    uint8_t method, uint16_t attr, uint64_t mask, uint64_t sm_key,
                                    const uint8_t *record, size_t size, struct cs_sa_header *reply,
                                    uint8_t *out)
{
    uint8_t request[CS_SA_MAD_SIZE];
    struct cs_sa_header h = {.method = method,
                             .transaction_id = tid,
                             .attr_id = attr,
                             .sm_key = sm_key,
                             .component_mask = mask};
    cs_sa_mad_encode(&h, record, size, request);
    const uint8_t *got;
    size_t len;
    struct cs_error err;
    int rc = umad_client_ask_sa(c, request, SA_CALL_TIMEOUT_MS, &got, &len, &err);
    if (rc <= 0) {
        if (rc < 0)
            fprintf(stderr, "%s: %s\n", who, err.msg);
        printf("no reply\n");
        return 1;
    }
    cs_sa_header_decode(got, reply);
    size_t body = len > CS_SA_HEADER_SIZE ? len - CS_SA_HEADER_SIZE : 0;
    memset(out, 0, size);
    memcpy(out, got + CS_SA_HEADER_SIZE, body < size ? body : size);
    return 0;
}

static inline int sa_call(const char *who, struct umad_client *c, uint32_t tid, uint8_t method,
                          uint16_t attr, uint64_t mask, uint64_t sm_key, const uint8_t *record,
                          size_t size, struct cs_sa_header *reply, uint8_t *out)
{
    int rc = sa_call_open_port(who, c, tid, method, attr, mask, sm_key, record, size, reply, out);
    umad_client_close(c);
    return rc;
}

#endif
