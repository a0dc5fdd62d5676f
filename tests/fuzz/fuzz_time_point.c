/* Time parser (--since/--until): never crashes, what it accepts is finite, and an accepted time
 * printed in ISO 8601 parses back to the same millisecond. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/time_point.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 256)
        return 0;
    char text[257];
    memcpy(text, data, size);
    text[size] = '\0';
    const double now = 1795737600.0;
    double t = NAN, again = NAN;
    struct cs_error err;
    if (cs_time_point_parse(text, now, &t, &err) < 0) {
        if (!isnan(t) || !err.msg[0])
            abort(); /* nothing written, and a reason given */
        return 0;
    }
    if (!isfinite(t))
        abort();
    if (t < 0 || llround(t * 1000) >= INT64_C(253402300800000))
        return 0; /* printed as a number, not ISO (the year 10000 and on) */
    char iso[CS_TIME_POINT_MAX];
    cs_time_point_format(t, iso, sizeof iso);
    if (cs_time_point_parse(iso, now, &again, &err) < 0 ||
        llround(again * 1000) != llround(t * 1000))
        abort();
    return 0;
}
