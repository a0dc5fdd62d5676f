/* Output files appear whole or not at all. */
#define _POSIX_C_SOURCE 200809L
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloudsm/atomic_file.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/cs-atomic-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[sizeof dir + sizeof e->d_name + 2];
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    return rmdir(dir);
}

static int count_entries(void)
{
    int n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)))
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

static int write_hello(FILE *out, const void *ctx, struct cs_error *err)
{
    (void)err;
    return fputs((const char *)ctx, out) < 0 ? -1 : 0;
}

static int write_then_fail(FILE *out, const void *ctx, struct cs_error *err)
{
    fputs((const char *)ctx, out);
    return cs_fail(err, "writer gave up");
}

static void test_commit_replaces(void **state)
{
    (void)state;
    char path[128], *text;
    size_t len;
    struct cs_error err;
    snprintf(path, sizeof path, "%s/out.txt", dir);
    assert_int_equal(cs_atomic_write(path, write_hello, "first\n", &err), 0);
    assert_int_equal(cs_atomic_write(path, write_hello, "second\n", &err), 0);
    assert_int_equal(cs_read_whole_file(path, &text, &len, &err), 0);
    assert_string_equal(text, "second\n");
    assert_int_equal(len, 7);
    free(text);
    assert_int_equal(count_entries(), 1); /* no temporary left behind */
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true((st.st_mode & 0044) != 0 || (st.st_mode & 0600) == 0600);
}

static void test_failed_writer_keeps_old(void **state)
{
    (void)state;
    char path[128], *text;
    size_t len;
    struct cs_error err;
    snprintf(path, sizeof path, "%s/keep.txt", dir);
    assert_int_equal(cs_atomic_write(path, write_hello, "old\n", &err), 0);
    assert_int_equal(cs_atomic_write(path, write_then_fail, "half", &err), -1);
    assert_string_equal(err.msg, "writer gave up");
    assert_int_equal(cs_read_whole_file(path, &text, &len, &err), 0);
    assert_string_equal(text, "old\n");
    free(text);
    assert_int_equal(count_entries(), 2); /* out.txt from the previous test and keep.txt */
}

static void test_bad_paths(void **state)
{
    (void)state;
    struct cs_error err;
    char *text;
    size_t len;
    assert_int_equal(cs_atomic_write("/nonexistent-dir/x", write_hello, "x", &err), -1);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/x"));
    assert_int_equal(cs_read_whole_file("/nonexistent-file", &text, &len, &err), -1);
    assert_non_null(strstr(err.msg, "No such file"));
    assert_int_equal(cs_read_whole_file(dir, &text, &len, &err), -1);
    assert_non_null(strstr(err.msg, "directory"));
}

static void test_device_written_in_place(void **state)
{
    (void)state;
    struct cs_error err;
    struct stat before, after;
    assert_int_equal(stat("/dev/null", &before), 0);
    assert_int_equal(cs_atomic_write("/dev/null", write_hello, "discarded\n", &err), 0);
    assert_int_equal(stat("/dev/null", &after), 0);
    assert_true(S_ISCHR(after.st_mode)); /* still the device, not a file */
    assert_true(before.st_rdev == after.st_rdev);
    assert_int_equal(cs_atomic_write(dir, write_hello, "x", &err), -1); /* a directory */
    assert_non_null(strstr(err.msg, "is a directory"));
}

static void test_read_from_pipe(void **state)
{
    (void)state;
    /* /dev/stdin style inputs have no size: the reader must grow its buffer. */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    char big[100000];
    memset(big, 'a', sizeof big);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        ssize_t left = sizeof big;
        const char *p = big;
        while (left > 0) {
            ssize_t n = write(fds[1], p, (size_t)left);
            if (n <= 0)
                _exit(1);
            p += n;
            left -= n;
        }
        _exit(0);
    }
    close(fds[1]);
    char path[64];
    snprintf(path, sizeof path, "/dev/fd/%d", fds[0]);
    char *text;
    size_t len;
    struct cs_error err;
    assert_int_equal(cs_read_whole_file(path, &text, &len, &err), 0);
    assert_int_equal(len, sizeof big);
    assert_int_equal(text[len], '\0');
    free(text);
    close(fds[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_commit_replaces), cmocka_unit_test(test_failed_writer_keeps_old),
        cmocka_unit_test(test_bad_paths),       cmocka_unit_test(test_device_written_in_place),
        cmocka_unit_test(test_read_from_pipe),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
