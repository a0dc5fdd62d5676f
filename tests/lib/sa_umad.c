/* SA requests over libibumad for test and benchmark clients (sa_umad.h). */
#include "sa_umad.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/umad.h>

void sa_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

uint16_t sa_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

void sa_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (56 - 8 * i));
}

uint64_t sa_get64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | p[i];
    return v;
}

double sa_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int sa_umad_open(struct sa_umad *c, const char *prog)
{
    memset(c, 0, sizeof *c);
    c->portid = c->agent = -1;
    if (umad_init() < 0) {
        fprintf(stderr, "%s: umad_init failed\n", prog);
        return -1;
    }
    umad_port_t port;
    if (umad_get_port(NULL, 0, &port) < 0) {
        fprintf(stderr, "%s: no local port\n", prog);
        return -1;
    }
    c->sm_lid = port.sm_lid;
    c->portid = umad_open_port(port.ca_name, port.portnum);
    umad_release_port(&port);
    if (c->portid >= 0)
        c->agent = umad_register(c->portid, SA_UMAD_CLASS, SA_UMAD_CLASS_VERSION, 0, NULL);
    if (c->portid < 0 || c->agent < 0 || c->sm_lid == 0) {
        fprintf(stderr, "%s: cannot open the port or find the SM (SM LID %u)\n", prog, c->sm_lid);
        sa_umad_close(c);
        return -1;
    }
    c->buf_size = (size_t)umad_size() + SA_UMAD_RECV_MAX;
    c->send_buf = calloc(1, c->buf_size);
    c->recv_buf = calloc(1, c->buf_size);
    if (c->send_buf == NULL || c->recv_buf == NULL) {
        fprintf(stderr, "%s: out of memory\n", prog);
        sa_umad_close(c);
        return -1;
    }
    return 0;
}

void sa_umad_close(struct sa_umad *c)
{
    if (c->portid >= 0)
        umad_close_port(c->portid);
    free(c->send_buf);
    free(c->recv_buf);
    c->send_buf = c->recv_buf = NULL;
    c->portid = c->agent = -1;
}

uint8_t *sa_umad_request(struct sa_umad *c, uint8_t method, uint16_t attr_id, uint64_t comp_mask)
{
    memset(c->send_buf, 0, c->buf_size);
    uint8_t *mad = umad_get_mad(c->send_buf);
    mad[0] = 1;
    mad[1] = SA_UMAD_CLASS;
    mad[2] = SA_UMAD_CLASS_VERSION;
    mad[3] = method;
    sa_put16(mad + 16, attr_id);
    sa_put64(mad + 48, comp_mask);
    return mad;
}

const uint8_t *sa_umad_reply(const struct sa_umad *c)
{
    return umad_get_mad(c->recv_buf);
}

int sa_umad_ask(struct sa_umad *c, uint32_t tid)
{
    umad_set_addr(c->send_buf, (int)c->sm_lid, 1, 0, (int)SA_UMAD_QP1_QKEY);
    sa_put64((uint8_t *)umad_get_mad(c->send_buf) + 8, tid);
    if (umad_send(c->portid, c->agent, c->send_buf, SA_UMAD_MAD_SIZE, 0, 0) < 0)
        return -1;
    double until = sa_now_us() + SA_UMAD_TIMEOUT_MS * 1000.0;
    while (sa_now_us() < until) {
        int len = SA_UMAD_RECV_MAX;
        if (umad_recv(c->portid, c->recv_buf, &len, 50) < 0 || umad_status(c->recv_buf) != 0)
            continue;
        const uint8_t *mad = sa_umad_reply(c);
        if ((uint32_t)sa_get64(mad + 8) == tid) {
            c->recv_len = len;
            return sa_get16(mad + 4);
        }
    }
    return -1;
}
