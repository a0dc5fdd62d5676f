/* PerfMgt counters (src/sm/pma.c, include/cloudsm/pma.h): replies built byte by byte from the
 * layout IBA 16.1.3.5 gives (not by the encoder), decoded field by field; every check a reply
 * must pass; the request; and the difference of two readings (saturated counters, resets). The
 * decoder agrees with perfquery on ibsim too (tests/integration/pma_perfquery.sh). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/pma.h"

static void put(uint8_t *p, unsigned bytes, uint64_t v)
{
    for (unsigned i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

/* A GetResp header for attr (class 0x04, version 1, status 0). */
static void reply_header(uint8_t mad[CS_PMA_MAD_SIZE], uint16_t attr)
{
    memset(mad, 0, CS_PMA_MAD_SIZE);
    mad[0] = 1;
    mad[1] = CS_PMA_CLASS;
    mad[2] = 1;
    mad[3] = 0x81;
    put(mad + 8, 8, 0x1122334455667788);
    put(mad + 16, 2, attr);
}

/* Every field a distinct value, at the byte offsets of the standard's table. */
static void test_port_counters_layout(void **state)
{
    (void)state;
    uint8_t mad[CS_PMA_MAD_SIZE];
    reply_header(mad, CS_PMA_ATTR_PORT_COUNTERS);
    uint8_t *a = mad + 64;
    a[1] = 3;                   /* PortSelect */
    put(a + 2, 2, 0xfffe);      /* CounterSelect */
    put(a + 4, 2, 0x1234);      /* SymbolErrorCounter */
    a[6] = 0x56;                /* LinkErrorRecoveryCounter */
    a[7] = 0x78;                /* LinkDownedCounter */
    put(a + 8, 2, 0x0102);      /* PortRcvErrors */
    put(a + 10, 2, 0x0304);     /* PortRcvRemotePhysicalErrors */
    put(a + 12, 2, 0x0506);     /* PortRcvSwitchRelayErrors */
    put(a + 14, 2, 0x0708);     /* PortXmitDiscards */
    a[16] = 0x09;               /* PortXmitConstraintErrors */
    a[17] = 0x0a;               /* PortRcvConstraintErrors */
    a[18] = 0xff;               /* CounterSelect2: not a counter, must not leak into one */
    a[19] = 0xc5;               /* LocalLinkIntegrityErrors 0xc | ExcessiveBufferOverrunErrors 5 */
    put(a + 20, 2, 0xeeee);     /* QP1Dropped: not read */
    put(a + 22, 2, 0x0b0c);     /* VL15Dropped */
    put(a + 24, 4, 0xfffffffe); /* PortXmitData */
    put(a + 28, 4, 0x11111111); /* PortRcvData */
    put(a + 32, 4, 0x22222222); /* PortXmitPkts */
    put(a + 36, 4, 0x33333333); /* PortRcvPkts */
    put(a + 40, 4, 0x44444444); /* PortXmitWait */
    struct cs_pma_port_counters pc;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pma_decode_port_counters(mad, sizeof mad, &pc, &err), 0);
    assert_int_equal(pc.port_select, 3);
    assert_int_equal(pc.counter_select, 0xfffe);
    assert_int_equal(pc.symbol_errors, 0x1234);
    assert_int_equal(pc.link_error_recovery, 0x56);
    assert_int_equal(pc.link_downed, 0x78);
    assert_int_equal(pc.rcv_errors, 0x0102);
    assert_int_equal(pc.rcv_remote_physical_errors, 0x0304);
    assert_int_equal(pc.rcv_switch_relay_errors, 0x0506);
    assert_int_equal(pc.xmit_discards, 0x0708);
    assert_int_equal(pc.xmit_constraint_errors, 0x09);
    assert_int_equal(pc.rcv_constraint_errors, 0x0a);
    assert_int_equal(pc.local_link_integrity_errors, 0xc);
    assert_int_equal(pc.excessive_buffer_overruns, 5);
    assert_int_equal(pc.vl15_dropped, 0x0b0c);
    assert_int_equal(pc.xmit_data, 0xfffffffe);
    assert_int_equal(pc.rcv_data, 0x11111111);
    assert_int_equal(pc.xmit_pkts, 0x22222222);
    assert_int_equal(pc.rcv_pkts, 0x33333333);
    assert_int_equal(pc.xmit_wait, 0x44444444);

    /* The encoder writes the same bytes back (the reserved and unread ones aside). */
    uint8_t again[CS_PMA_MAD_SIZE];
    reply_header(again, CS_PMA_ATTR_PORT_COUNTERS);
    cs_pma_encode_port_counters(&pc, again);
    a[18] = 0;
    put(a + 20, 2, 0);
    assert_memory_equal(again, mad, sizeof mad);
}

static void test_port_counters_ext_layout(void **state)
{
    (void)state;
    uint8_t mad[CS_PMA_MAD_SIZE];
    reply_header(mad, CS_PMA_ATTR_PORT_COUNTERS_EXT);
    uint8_t *a = mad + 64;
    a[1] = 7;
    put(a + 2, 2, 0x00ff);
    put(a + 4, 4, 0xdeadbeef); /* reserved: not read */
    for (unsigned i = 0; i < 8; i++)
        put(a + 8 + 8 * i, 8, UINT64_C(0x0100000000000000) * (i + 1) + i);
    struct cs_pma_port_counters_ext x;
    struct cs_error err = {{0}};
    assert_int_equal(cs_pma_decode_port_counters_ext(mad, sizeof mad, &x, &err), 0);
    assert_int_equal(x.port_select, 7);
    assert_int_equal(x.counter_select, 0x00ff);
    const uint64_t got[] = {
        x.xmit_data,         x.rcv_data,         x.xmit_pkts,           x.rcv_pkts,
        x.unicast_xmit_pkts, x.unicast_rcv_pkts, x.multicast_xmit_pkts, x.multicast_rcv_pkts};
    for (unsigned i = 0; i < 8; i++)
        assert_true(got[i] == UINT64_C(0x0100000000000000) * (i + 1) + i);
}

/* Each check names what does not fit, and nothing is decoded. */
static void test_reply_checks(void **state)
{
    (void)state;
    uint8_t mad[CS_PMA_MAD_SIZE];
    struct cs_pma_port_counters pc;
    struct cs_error err = {{0}};
    reply_header(mad, CS_PMA_ATTR_PORT_COUNTERS);
    mad[64 + 5] = 9;
    assert_int_equal(cs_pma_decode_port_counters(mad, 64 + 43, &pc, &err), -1);
    assert_non_null(strstr(err.msg, "107 bytes, too short for a PortCounters reply"));
    assert_int_equal(pc.symbol_errors, 0);
    assert_int_equal(cs_pma_decode_port_counters(mad, 64 + 44, &pc, &err), 0);
    assert_int_equal(pc.symbol_errors, 9);
    mad[1] = 0x03;
    assert_int_equal(cs_pma_decode_port_counters(mad, sizeof mad, &pc, &err), -1);
    assert_non_null(strstr(err.msg, "management class 0x03, not PerfMgt"));
    mad[1] = CS_PMA_CLASS;
    mad[3] = 0x01;
    assert_int_equal(cs_pma_decode_port_counters(mad, sizeof mad, &pc, &err), -1);
    assert_non_null(strstr(err.msg, "method 0x01, not GetResp"));
    mad[3] = 0x81;
    put(mad + 4, 2, 0x001c);
    assert_int_equal(cs_pma_decode_port_counters(mad, sizeof mad, &pc, &err), -1);
    assert_non_null(strstr(err.msg, "status 0x001c"));
    put(mad + 4, 2, 0);
    struct cs_pma_port_counters_ext x;
    assert_int_equal(cs_pma_decode_port_counters_ext(mad, sizeof mad, &x, &err), -1);
    assert_non_null(strstr(err.msg, "attribute 0x0012, not PortCountersExtended"));
}

/* A Get of PortCounters for port 5: PerfMgt class 1, method Get, the attribute, PortSelect. */
static void test_request(void **state)
{
    (void)state;
    uint8_t mad[CS_PMA_MAD_SIZE];
    memset(mad, 0xaa, sizeof mad);
    cs_pma_get_request(mad, CS_PMA_ATTR_PORT_COUNTERS, 5, 0x42);
    assert_int_equal(mad[0], 1);
    assert_int_equal(mad[1], CS_PMA_CLASS);
    assert_int_equal(mad[2], 1);
    assert_int_equal(mad[3], 0x01);
    assert_int_equal(mad[15], 0x42);
    assert_int_equal(mad[16], 0x00);
    assert_int_equal(mad[17], 0x12);
    assert_int_equal(mad[64 + 1], 5);
    for (unsigned i = 64 + 2; i < CS_PMA_MAD_SIZE; i++)
        assert_int_equal(mad[i], 0);
}

/* Saturating counters stop at their largest value; a counter that went down was reset. */
static void test_delta(void **state)
{
    (void)state;
    uint64_t d;
    assert_int_equal(cs_pma_delta(100, 250, 32, &d), CS_PMA_COUNTED);
    assert_int_equal(d, 150);
    assert_int_equal(cs_pma_delta(100, UINT32_MAX, 32, &d), CS_PMA_SATURATED);
    assert_int_equal(d, UINT32_MAX - 100);
    assert_int_equal(cs_pma_delta(10, 0xffff, 16, &d), CS_PMA_SATURATED);
    assert_int_equal(cs_pma_delta(10, 0xfffe, 16, &d), CS_PMA_COUNTED);
    assert_int_equal(cs_pma_delta(500, 20, 32, &d), CS_PMA_RESET);
    assert_int_equal(d, 20);
    assert_int_equal(cs_pma_delta(0, UINT64_MAX, 64, &d), CS_PMA_COUNTED);
    assert_true(d == UINT64_MAX);
    assert_int_equal(cs_pma_delta(UINT64_MAX, 3, 64, &d), CS_PMA_RESET);
    assert_int_equal(d, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_port_counters_layout),
        cmocka_unit_test(test_port_counters_ext_layout),
        cmocka_unit_test(test_reply_checks),
        cmocka_unit_test(test_request),
        cmocka_unit_test(test_delta),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
