/* The writers' buffered output: exact number formatting, and I/O errors reported, not lost. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cloudsm/topo_gen.h"
#include "cloudsm/topo_io.h"
#include "io/outbuf.h"

static void test_formatting(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    struct cs_outbuf o;
    struct cs_error err;
    assert_int_equal(cs_outbuf_init(&o, mem, &err), 0);
    cs_outbuf_dec(&o, 0);
    cs_outbuf_char(&o, ' ');
    cs_outbuf_dec(&o, UINT64_MAX);
    cs_outbuf_char(&o, ' ');
    cs_outbuf_hex(&o, 0, 0);
    cs_outbuf_char(&o, ' ');
    cs_outbuf_hex(&o, 0x2c9, 16);
    cs_outbuf_char(&o, ' ');
    cs_outbuf_hex(&o, UINT64_MAX, 4);
    cs_outbuf_printf(&o, " %s=%03u", "port", 7u);
    assert_int_equal(cs_outbuf_finish(&o, "test", &err), 0);
    fclose(mem);
    char expected[128];
    snprintf(expected, sizeof expected, "0 %llu 0 00000000000002c9 ffffffffffffffff port=007",
             (unsigned long long)UINT64_MAX);
    assert_string_equal(text, expected);
    free(text);
}

static void test_large_output_in_order(void **state)
{
    (void)state;
    /* More than one buffer's worth, in pieces larger than a chunk: nothing lost or reordered. */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    struct cs_outbuf o;
    struct cs_error err;
    assert_int_equal(cs_outbuf_init(&o, mem, &err), 0);
    static char piece[5000];
    uint64_t expect_sum = 0;
    for (int i = 0; i < 600; i++) {
        memset(piece, 'a' + i % 26, sizeof piece);
        cs_outbuf_mem(&o, piece, sizeof piece);
        expect_sum += (uint64_t)('a' + i % 26) * sizeof piece;
    }
    assert_int_equal(cs_outbuf_finish(&o, "test", &err), 0);
    fclose(mem);
    assert_int_equal(len, 600 * sizeof piece);
    uint64_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum += (unsigned char)text[i];
    assert_true(sum == expect_sum);
    assert_int_equal(text[5000 * 27], 'b'); /* piece 27 */
    free(text);
}

static void test_full_device_is_an_error(void **state)
{
    (void)state;
    FILE *full = fopen("/dev/full", "w"); /* every write fails with ENOSPC */
    assert_non_null(full);
    struct cs_fabric f;
    struct cs_pgft_spec spec;
    struct cs_error err = {""};
    cs_fabric_init(&f);
    assert_int_equal(cs_pgft_kary(&spec, 8, 3, &err), 0);
    assert_int_equal(cs_pgft_generate(&f, &spec, &err), 0);
    assert_int_equal(cs_topo_write(full, &f, &err), -1);
    assert_non_null(strstr(err.msg, "writing the topology failed: No space left on device"));
    fclose(full);
    cs_fabric_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formatting),
        cmocka_unit_test(test_large_output_in_order),
        cmocka_unit_test(test_full_device_is_an_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
