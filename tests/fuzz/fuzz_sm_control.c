/* The control socket's request and status lines (include/cloudsm/sm_control.h): never crash; a
 * request that parses has its command's arguments and at most its options, and formats to one
 * line that parses back to the same request; a status line that parses formats to one bounded
 * line that parses back to the same status; every error is one printable line (it becomes a
 * client's status line). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sm_control.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_message(const char *msg)
{
    size_t len = strlen(msg);
    if (len == 0)
        abort();
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)msg[i] < 0x20 || (unsigned char)msg[i] > 0x7e)
            abort();
}

static void check_request(const char *text, size_t size)
{
    struct cs_sm_request a, b;
    struct cs_error err = {""};
    if (cs_sm_request_parse(&a, text, size, &err) < 0) {
        check_message(err.msg);
        return;
    }
    if (a.command >= CS_SM_CMD_COUNT || a.argc < cs_sm_commands[a.command].args ||
        a.argc > cs_sm_commands[a.command].args + cs_sm_commands[a.command].options)
        abort();
    char line[CS_SM_REQUEST_MAX];
    int n = cs_sm_request_format(&a, line, sizeof line);
    if (n <= 0 || line[n - 1] != '\n' || memchr(line, '\n', (size_t)n - 1))
        abort();
    if (cs_sm_request_parse(&b, line, (size_t)n, &err) < 0 || memcmp(&a, &b, sizeof a) != 0)
        abort();
}

static void check_status(const char *text, size_t size)
{
    bool ok = false, ok2 = false;
    char msg[CS_ERROR_MAX], msg2[CS_ERROR_MAX];
    struct cs_error err = {""};
    if (cs_sm_reply_status_parse(text, size, &ok, msg, sizeof msg, &err) < 0) {
        check_message(err.msg);
        return;
    }
    char line[CS_SM_REPLY_STATUS_MAX + 1];
    size_t n = cs_sm_reply_status_format(ok, msg, line, sizeof line);
    if (n == 0 || n > CS_SM_REPLY_STATUS_MAX || line[n - 1] != '\n' || memchr(line, '\n', n - 1))
        abort();
    if (cs_sm_reply_status_parse(line, n, &ok2, msg2, sizeof msg2, &err) < 0 || ok2 != ok ||
        strcmp(msg, msg2) != 0)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_request((const char *)data, size);
    check_status((const char *)data, size);
    return 0;
}
