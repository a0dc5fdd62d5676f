/* The line and token scanner every reader uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "io/text.h"

static void test_lines(void **state)
{
    (void)state;
    const char text[] = "one\r\ntwo\n\nlast";
    struct cs_lines l;
    struct cs_span s;
    char buf[16];
    cs_lines_init(&l, text, sizeof text - 1);
    assert_true(cs_lines_next(&l, &s));
    cs_span_copy(&s, buf, sizeof buf);
    assert_string_equal(buf, "one"); /* CR dropped */
    assert_true(cs_lines_next(&l, &s));
    assert_int_equal(l.number, 2);
    assert_true(cs_lines_next(&l, &s));
    assert_true(cs_span_empty(&s));
    assert_true(cs_lines_next(&l, &s));
    cs_span_copy(&s, buf, sizeof buf);
    assert_string_equal(buf, "last"); /* no final newline */
    assert_int_equal(l.number, 4);
    assert_false(cs_lines_next(&l, &s));
}

static void test_numbers(void **state)
{
    (void)state;
    uint64_t v;
    struct cs_span s = {"0x1fZ", NULL};
    s.end = s.p + 5;
    assert_true(cs_span_u64(&s, 0, &v));
    assert_int_equal(v, 0x1f);
    assert_int_equal(*s.p, 'Z');

    const char *dec = "1234 ";
    s = (struct cs_span){dec, dec + 5};
    assert_true(cs_span_u64(&s, 0, &v));
    assert_int_equal(v, 1234);

    const char *hex = "ffffffffffffffff";
    s = (struct cs_span){hex, hex + 16};
    assert_true(cs_span_u64(&s, 16, &v));
    assert_true(v == UINT64_MAX);

    const char *over = "10000000000000000";
    s = (struct cs_span){over, over + 17};
    assert_false(cs_span_u64(&s, 16, &v)); /* 65 bits */

    const char *none = "0x";
    s = (struct cs_span){none, none + 2};
    assert_true(cs_span_u64(&s, 0, &v)); /* "0" then 'x' left over, like strtoull */
    assert_int_equal(v, 0);
    assert_int_equal(*s.p, 'x');

    const char *empty = "xyz";
    s = (struct cs_span){empty, empty + 3};
    assert_false(cs_span_u64(&s, 10, &v));
    assert_ptr_equal(s.p, empty); /* nothing consumed on failure */

    /* The span end is respected even when digits follow in memory. */
    const char *cut = "12345";
    s = (struct cs_span){cut, cut + 2};
    assert_true(cs_span_u64(&s, 10, &v));
    assert_int_equal(v, 12);
}

static void test_quoted_and_find(void **state)
{
    (void)state;
    const char *line = "Switch 4 \"S-00\" # \"desc\" lid 3";
    struct cs_span s = {line, line + strlen(line)};
    assert_true(cs_span_eat(&s, "Switch"));
    cs_span_skip_space(&s);
    uint64_t v;
    assert_true(cs_span_u64(&s, 10, &v));
    cs_span_skip_space(&s);
    struct cs_span in;
    assert_true(cs_span_quoted(&s, &in));
    assert_int_equal(in.end - in.p, 4);
    assert_memory_equal(in.p, "S-00", 4);
    const char *hit = cs_span_find(&s, "lid ");
    assert_non_null(hit);
    assert_string_equal(hit, "lid 3");
    assert_null(cs_span_find(&s, "lmc"));
    const char *open = "\"unterminated";
    s = (struct cs_span){open, open + strlen(open)};
    assert_false(cs_span_quoted(&s, &in));
    /* A needle that would straddle the span's end is not found. */
    const char *tail = "abc lid";
    s = (struct cs_span){tail, tail + 5};
    assert_null(cs_span_find(&s, "lid"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_quoted_and_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
