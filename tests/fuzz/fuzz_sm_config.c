/* cloudsmd's configuration parser: never crashes; what it accepts survives write -> parse
 * unchanged, and the written file is all keys cloudsm knows (no warnings on the way back). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "cloudsm/sm_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* Static: the configuration holds four PATH_MAX buffers, too much for each call's stack. */
    static struct cs_sm_config a, b;
    struct cs_sm_config_warnings warnings = {0}, again = {0};
    struct cs_error err;
    int rc = cs_sm_config_parse(&a, (const char *)data, size, "fuzz", &warnings, &err);
    cs_sm_config_warnings_free(&warnings);
    if (rc < 0)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    /* A parsed configuration is always writable: no '#', line break or "(null)" survives the
     * parser in a string. */
    if (cs_sm_config_write(out, &a, &err) < 0)
        abort();
    fclose(out);
    if (cs_sm_config_parse(&b, text, len, "again", &again, &err) < 0 ||
        !cs_sm_config_equal(&a, &b) || again.count != 0)
        abort();
    free(text);
    cs_sm_config_warnings_free(&again);
    return 0;
}
