/* SA requests from a test or benchmark client over libibumad (shared by bench/sa_flood and
 * tests/lib/sa_alias): open the first local port, find the SA at the SM LID its PortInfo names,
 * build a request MAD, send it and wait for the reply with its transaction id.
 *
 * A client of these talks libibumad directly, so it runs on hardware and under umad2sim alike;
 * under umad2sim (ibsim) a reply is at most one 256-byte MAD (the first of an RMPP transfer).
 * Errors go to standard error with the program's name: these are tools, not library code.
 */
#ifndef CLOUDSM_TESTS_SA_UMAD_H
#define CLOUDSM_TESTS_SA_UMAD_H

#include <stddef.h>
#include <stdint.h>

#define SA_UMAD_CLASS 0x03
#define SA_UMAD_CLASS_VERSION 2
#define SA_UMAD_MAD_SIZE 256
#define SA_UMAD_DATA 56 /* MAD header 24 + RMPP 12 + SA header 20: where the record starts */
#define SA_UMAD_QP1_QKEY 0x80010000u
#define SA_UMAD_TIMEOUT_MS 1000
#define SA_UMAD_RECV_MAX 2048 /* the reply bytes a receive takes */

struct sa_umad {
    int portid;
    int agent;
    unsigned sm_lid;
    uint8_t *send_buf; /* umad buffers: header + MAD */
    uint8_t *recv_buf;
    size_t buf_size;
    int recv_len; /* bytes of the last reply sa_umad_ask received */
};

/* Big-endian fields of a MAD. */
void sa_put16(uint8_t *p, uint16_t v);
uint16_t sa_get16(const uint8_t *p);
void sa_put64(uint8_t *p, uint64_t v);
uint64_t sa_get64(const uint8_t *p);
double sa_now_us(void);

/* Open the first local port and register an SA agent on it; prog names the caller in errors.
 * Returns 0, or -1 after saying why (no port, no SM known to the port). */
int sa_umad_open(struct sa_umad *c, const char *prog);
void sa_umad_close(struct sa_umad *c);

/* The send buffer's MAD, zeroed, with the common and SA headers of a request: base version 1,
 * class 0x03 version 2, method, attribute id and component mask. */
uint8_t *sa_umad_request(struct sa_umad *c, uint8_t method, uint16_t attr_id, uint64_t comp_mask);
/* The reply that sa_umad_ask received last. */
const uint8_t *sa_umad_reply(const struct sa_umad *c);

/* Send the request in the send buffer with transaction id tid (to the SM LID, QP1) and wait up
 * to SA_UMAD_TIMEOUT_MS for the reply carrying it. Returns the reply's status (0..0xffff), or -1
 * when none came. */
int sa_umad_ask(struct sa_umad *c, uint32_t tid);

#endif
