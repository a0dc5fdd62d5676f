/* The line and token scanner every reader uses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "io/text.h"

static void test_lines(void **state)
{
    (void)state;
    const char text[] = "one\r\ntwo\n\nlast";
    struct cs_lines l;
    struct cs_span s;
    struct cs_error err;
    char buf[16];
    cs_lines_init(&l, text, sizeof text - 1, "t", &err);
    assert_int_equal(cs_lines_next(&l, &s), 1);
    cs_span_copy(&s, buf, sizeof buf);
    assert_string_equal(buf, "one"); /* CR dropped */
    assert_int_equal(cs_lines_next(&l, &s), 1);
    assert_int_equal(l.number, 2);
    assert_int_equal(cs_lines_next(&l, &s), 1);
    assert_true(cs_span_empty(&s));
    assert_int_equal(cs_lines_next(&l, &s), 1);
    cs_span_copy(&s, buf, sizeof buf);
    assert_string_equal(buf, "last"); /* no final newline */
    assert_int_equal(l.number, 4);
    assert_int_equal(cs_lines_next(&l, &s), 0);
}

/* A temporary file holding len bytes, gzip-compressed if gzip; the path is in path. */
static void write_temp(char path[64], const char *bytes, size_t len, bool gzip)
{
    strcpy(path, "/tmp/cs-text-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    if (gzip) {
        gzFile gz = gzdopen(fd, "wb");
        assert_non_null(gz);
        assert_int_equal(gzwrite(gz, bytes, (unsigned)len), (int)len);
        assert_int_equal(gzclose(gz), Z_OK);
    } else {
        assert_int_equal(write(fd, bytes, len), (ssize_t)len);
        close(fd);
    }
}

/* Every line of a source, joined with '\n', in a heap string; -1 if the source failed. */
static int collect(struct cs_lines *l, char **out)
{
    size_t cap = 1 << 20, used = 0;
    char *all = malloc(cap);
    assert_non_null(all);
    struct cs_span s;
    int got;
    while ((got = cs_lines_next(l, &s)) > 0) {
        size_t n = (size_t)(s.end - s.p);
        assert_true(used + n + 2 < cap);
        memcpy(all + used, s.p, n);
        used += n;
        all[used++] = '\n';
    }
    all[used] = '\0';
    *out = all;
    return got;
}

/* The file source (plain and gzip) gives the lines the memory source gives, across buffer
 * refills: many lines, some long, one that ends without a newline. */
static void test_file_equals_memory(void **state)
{
    (void)state;
    size_t cap = 600000, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (unsigned i = 0; len + 3000 < cap; i++) {
        size_t width = i % 97 == 0 ? 2500 : i % 13;
        for (size_t k = 0; k < width; k++)
            text[len++] = (char)('a' + (i + k) % 26);
        text[len++] = i % 7 == 0 ? '\r' : 'x';
        text[len++] = '\n';
    }
    memcpy(text + len, "tail", 4);
    len += 4;

    struct cs_error err;
    struct cs_lines mem;
    char *expected;
    cs_lines_init(&mem, text, len, "mem", &err);
    assert_int_equal(collect(&mem, &expected), 0);
    for (int gzip = 0; gzip < 2; gzip++) {
        char path[64];
        write_temp(path, text, len, gzip);
        struct cs_lines file;
        assert_int_equal(cs_lines_open(&file, path, &err), 0);
        char *got;
        assert_int_equal(collect(&file, &got), 0);
        assert_int_equal(file.number, mem.number);
        assert_string_equal(got, expected);
        cs_lines_close(&file);
        free(got);
        unlink(path);
    }
    free(expected);
    free(text);
}

/* A line of CS_LINE_MAX bytes is read; one byte more is an error at its line, from memory and
 * from a file, so that input which never ends a line cannot grow memory. */
static void test_long_line(void **state)
{
    (void)state;
    size_t len = CS_LINE_MAX + 8;
    char *text = malloc(len);
    assert_non_null(text);
    memcpy(text, "ok\n", 3);
    memset(text + 3, 'y', len - 3);
    struct cs_error err;
    struct cs_lines l;
    struct cs_span s;
    char *all;

    cs_lines_init(&l, text, 3 + CS_LINE_MAX, "exact", &err);
    assert_int_equal(collect(&l, &all), 0);
    assert_int_equal(l.number, 2);
    free(all);

    cs_lines_init(&l, text, 4 + CS_LINE_MAX, "mem", &err);
    assert_int_equal(cs_lines_next(&l, &s), 1);
    assert_int_equal(cs_lines_next(&l, &s), -1);
    assert_string_equal(err.msg, "mem:2: line longer than 65536 bytes");
    assert_int_equal(cs_lines_next(&l, &s), -1); /* stays failed */

    char path[64];
    write_temp(path, text, len, false);
    assert_int_equal(cs_lines_open(&l, path, &err), 0);
    assert_int_equal(collect(&l, &all), -1);
    char expected[128];
    snprintf(expected, sizeof expected, "%s:2: line longer than 65536 bytes", path);
    assert_string_equal(err.msg, expected);
    cs_lines_close(&l);
    free(all);
    unlink(path);
    free(text);
}

/* /dev/zero never ends: its first line is refused (as binary) after at most one buffer. */
static void test_dev_zero(void **state)
{
    (void)state;
    struct cs_error err;
    struct cs_lines l;
    struct cs_span s;
    assert_int_equal(cs_lines_open(&l, "/dev/zero", &err), 0);
    assert_int_equal(cs_lines_next(&l, &s), -1);
    assert_string_equal(err.msg, "/dev/zero:1: line longer than 65536 bytes");
    cs_lines_close(&l);
}

/* Fingerprints: the same lines give the same value (plain, gzip, CRLF endings), other lines
 * another; a file that is not text fails as reading it would. */
static void test_fingerprint(void **state)
{
    (void)state;
    const char text[] = "Default=0x7fff : ALL ;\nBlue=0x1 : 0x2=full ;\n";
    const char crlf[] = "Default=0x7fff : ALL ;\r\nBlue=0x1 : 0x2=full ;\r\n";
    const char other[] = "Default=0x7fff : ALL ;\nBlue=0x1 : 0x3=full ;\n";
    char a[64], b[64], c[64], d[64];
    write_temp(a, text, sizeof text - 1, false);
    write_temp(b, text, sizeof text - 1, true);
    write_temp(c, crlf, sizeof crlf - 1, false);
    write_temp(d, other, sizeof other - 1, false);
    uint64_t fa, fb, fc, fd;
    struct cs_error err;
    assert_int_equal(cs_text_fingerprint(a, &fa, &err), 0);
    assert_int_equal(cs_text_fingerprint(b, &fb, &err), 0);
    assert_int_equal(cs_text_fingerprint(c, &fc, &err), 0);
    assert_int_equal(cs_text_fingerprint(d, &fd, &err), 0);
    assert_true(fa == fb && fa == fc);
    assert_true(fa != fd);
    assert_int_equal(cs_text_fingerprint("/dev/zero", &fd, &err), -1);
    assert_string_equal(err.msg, "/dev/zero:1: line longer than 65536 bytes");
    unlink(a);
    unlink(b);
    unlink(c);
    unlink(d);
}

static void test_nul_byte(void **state)
{
    (void)state;
    const char text[] = "fine\nbad\0byte\n";
    struct cs_error err;
    struct cs_lines l;
    struct cs_span s;
    cs_lines_init(&l, text, sizeof text - 1, "n", &err);
    assert_int_equal(cs_lines_next(&l, &s), 1);
    assert_int_equal(cs_lines_next(&l, &s), -1);
    assert_string_equal(err.msg, "n:2: NUL byte: binary data, not text");
}

/* A gzip file cut short is an error, not a shorter file. */
static void test_truncated_gzip(void **state)
{
    (void)state;
    char text[20000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = i % 50 == 49 ? '\n' : (char)('a' + (i * 7919) % 26);
    char path[64];
    write_temp(path, text, sizeof text, true);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(truncate(path, st.st_size / 2), 0);
    struct cs_error err;
    struct cs_lines l;
    char *all;
    assert_int_equal(cs_lines_open(&l, path, &err), 0);
    assert_int_equal(collect(&l, &all), -1);
    assert_non_null(strstr(err.msg, "truncated or damaged gzip file"));
    cs_lines_close(&l);
    free(all);
    unlink(path);
}

static void test_open_errors(void **state)
{
    (void)state;
    struct cs_error err;
    struct cs_lines l;
    assert_int_equal(cs_lines_open(&l, "/nonexistent/file", &err), -1);
    assert_string_equal(err.msg, "/nonexistent/file: No such file or directory");
    assert_int_equal(cs_lines_open(&l, "/tmp", &err), -1);
    assert_string_equal(err.msg, "/tmp: is a directory");
}

static void test_escape(void **state)
{
    (void)state;
    char out[32];
    assert_string_equal(cs_text_escape("a\x1b[2J\"\\\n\xff", 9, out, sizeof out),
                        "a\\x1b[2J\\\"\\\\\\n\\xff");
    /* Cut with "..." so that the result and its NUL fit. */
    assert_string_equal(cs_text_escape("0123456789", 10, out, 8), "0123...");
    assert_string_equal(cs_text_escape("0123456", 7, out, 8), "0123456");
    assert_string_equal(cs_text_escape("\x01\x02\x03", 3, out, 8), "\\x01...");
}

static const char *describe(const char *text)
{
    static char buf[160];
    struct cs_error err;
    struct cs_lines l;
    struct cs_span s;
    cs_lines_init(&l, text, strlen(text), "d", &err);
    while (cs_lines_next(&l, &s) > 0)
        ;
    cs_lines_describe(&l, buf, sizeof buf);
    return buf;
}

static void test_describe(void **state)
{
    (void)state;
    assert_string_equal(describe(""), "an empty file");
    assert_string_equal(describe("\n  \n# c\n"), "only blank lines and comments");
    assert_string_equal(describe("{ CA Ports:01 SystemGUID:0002c90300000001 "
                                 "NodeGUID:0002c90300000001 PortGUID:0002c90300000002 }\n"),
                        "an OpenSM subnet list (opensm-subnet.lst)");
    assert_string_equal(describe("Unicast lids [0-1] of switch Lid 1 guid 0x1 ('x'):\n"),
                        "an LFT dump");
    assert_string_equal(describe("#\nSwitch\t4 \"S-1\"\n"), "a topology");
    assert_string_equal(describe("0x0002c90300000002 0x0001 0x0001\n"), "an OpenSM guid2lid file");
    assert_string_equal(describe("hello world\n"), "text starting \"hello world\"");
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
        cmocka_unit_test(test_lines),           cmocka_unit_test(test_file_equals_memory),
        cmocka_unit_test(test_long_line),       cmocka_unit_test(test_dev_zero),
        cmocka_unit_test(test_nul_byte),        cmocka_unit_test(test_truncated_gzip),
        cmocka_unit_test(test_open_errors),     cmocka_unit_test(test_escape),
        cmocka_unit_test(test_describe),        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_quoted_and_find), cmocka_unit_test(test_fingerprint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
