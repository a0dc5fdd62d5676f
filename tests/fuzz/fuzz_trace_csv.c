/* Native trace CSV reader on arbitrary bytes: never crash; what it accepts is written and read
 * back to the same trace. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A step index or "steps=" of many digits makes a legal but huge trace (up to 2^28 samples):
 * valid, but it would only measure memset speed. Four digits keep every input fast. */
static bool has_long_number(const uint8_t *data, size_t size)
{
    size_t run = 0;
    for (size_t i = 0; i < size; i++) {
        run = data[i] >= '0' && data[i] <= '9' ? run + 1 : 0;
        if (run > 4)
            return true;
    }
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (has_long_number(data, size))
        return 0;
    struct cs_trace t, back;
    struct cs_error err;
    if (cs_trace_parse_csv(&t, (const char *)data, size, "fuzz", &err) != 0)
        return 0;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) {
        cs_trace_free(&t);
        return 0;
    }
    if (cs_trace_write_csv(out, &t, &err) != 0)
        abort();
    fclose(out);
    if (cs_trace_parse_csv(&back, buf, len, "written", &err) != 0)
        abort();
    if (back.num_vms != t.num_vms || back.steps != t.steps || back.step_seconds != t.step_seconds)
        abort();
    for (uint32_t v = 0; v < t.num_vms; v++)
        if (strcmp(back.vms[v].name, t.vms[v].name) != 0 || back.vms[v].vcores != t.vms[v].vcores)
            abort();
    for (size_t i = 0; i < (size_t)t.num_vms * t.steps; i++) {
        float a = t.demand[i], b = back.demand[i];
        if (isnan(a) != isnan(b) || (!isnan(a) && memcmp(&a, &b, sizeof a) != 0))
            abort();
    }
    cs_trace_free(&back);
    cs_trace_free(&t);
    free(buf);
    return 0;
}
