/* Fuzz the SM core with a fabric that answers anything: every reply's content comes from the
 * fuzzer (node types, port counts, port numbers, GUIDs, states, statuses, LFT blocks), only its
 * transaction id is taken from a request in flight so that the reply is matched. The heavy
 * sweep, LID assignment, routing and programming must neither crash nor leak nor loop; whatever
 * they conclude from nonsense is fine.
 *
 * Input: a sequence of 67-byte records, one per reply: a selector byte (which request in flight
 * it answers; 0xff = drop the oldest request silently), the status (2 bytes, big-endian) and the
 * 64-byte attribute data. Everything else in the reply is the request's, as a real agent's
 * reply would be (so a record is small and a whole small-fabric bring-up fits the fuzzer's
 * 8 KiB input limit). */
#include <stdint.h>
#include <string.h>

#include "cloudsm/route.h"
#include "cloudsm/sm.h"

#define MAX_INFLIGHT 64
#define RECORD (1 + 2 + CS_SMP_DATA_SIZE)

struct fuzz_fabric {
    const uint8_t *data;
    size_t size, pos;
    struct cs_smp inflight[MAX_INFLIGHT];
    unsigned count;
};

static int fuzz_send(void *ctx, const uint8_t mad[CS_SMP_SIZE], uint16_t dlid, struct cs_error *err)
{
    (void)dlid;
    (void)err;
    struct fuzz_fabric *ff = ctx;
    if (mad[3] & 0x80)
        return 0; /* our answer to someone */
    if (ff->count == MAX_INFLIGHT) {
        memmove(ff->inflight, ff->inflight + 1, (MAX_INFLIGHT - 1) * sizeof(ff->inflight[0]));
        ff->count--;
    }
    cs_smp_decode(mad, &ff->inflight[ff->count++]);
    return 0;
}

static int fuzz_recv(void *ctx, uint8_t mad[CS_SMP_SIZE], uint16_t *slid, int timeout_ms,
                     struct cs_error *err)
{
    (void)timeout_ms;
    (void)err;
    struct fuzz_fabric *ff = ctx;
    *slid = 1;
    while (ff->count > 0 && ff->pos + RECORD <= ff->size) {
        const uint8_t *rec = ff->data + ff->pos;
        ff->pos += RECORD;
        uint8_t selector = rec[0];
        unsigned i = selector == 0xff ? 0 : selector % ff->count;
        struct cs_smp req = ff->inflight[i];
        memmove(ff->inflight + i, ff->inflight + i + 1,
                (ff->count - i - 1) * sizeof(ff->inflight[0]));
        ff->count--;
        if (selector == 0xff)
            continue; /* lost: the pipe's timeout takes over */
        struct cs_smp reply = req;
        reply.method = CS_SMP_METHOD_GET_RESP;
        reply.status = (uint16_t)(rec[1] << 8 | rec[2]);
        memcpy(reply.data, rec + 3, CS_SMP_DATA_SIZE);
        cs_smp_encode(&reply, mad);
        return 1;
    }
    ff->count = 0; /* out of input: nothing more will ever answer */
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_fabric ff = {.data = data, .size = size};
    struct cs_smp_transport tr = {.ctx = &ff, .send = fuzz_send, .recv = fuzz_recv};
    /* 1 ms timeouts and no retries: the input is finite, and every wait is real time. */
    struct cs_smp_pipe_options opt = {.window = 16, .timeout_ms = 1, .retries = 0};
    struct cs_error err;
    struct cs_smp_pipe *pipe = cs_smp_pipe_create(&tr, &opt, &err);
    if (pipe == NULL)
        return 0;
    struct cs_sm_sweep sweep;
    cs_sm_sweep_init(&sweep);
    struct cs_log quiet = {0};
    if (cs_sm_discover(pipe, &quiet, &sweep, &err) == 0 &&
        cs_sm_assign_lids(&sweep, NULL, false, &quiet, &err) >= 0) {
        struct cs_sm_port_settings settings = {
            .sm_lid = sweep.fabric.ports[sweep.sm_port].lid,
            .subnet_prefix = 0xfe80000000000000ull,
        };
        cs_sm_set_lids(pipe, &sweep, &settings, &quiet, &err);
        struct cs_lfts lfts;
        struct cs_route_stats stats;
        struct cs_route_options ropt = {0};
        if (cs_route("minhop", &sweep.fabric, &ropt, &lfts, &stats, &err) == 0) {
            struct cs_sm_lft_counts counts;
            cs_sm_program_lfts(pipe, &sweep, &lfts, NULL, &quiet, &counts, &err);
            unsigned activated;
            cs_sm_activate(pipe, &sweep, &quiet, &activated, &err);
            cs_lfts_free(&lfts);
        }
    }
    cs_sm_sweep_free(&sweep);
    cs_smp_pipe_destroy(pipe);
    return 0;
}
