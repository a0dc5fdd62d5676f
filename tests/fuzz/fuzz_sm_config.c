/* cloudsmd's configuration parser: never crashes; what it accepts survives write -> parse
 * unchanged, and the written file is all keys cloudsm knows (no warnings on the way back).
 * SIGHUP's diff agrees: nothing differs after the round trip, and copying every key that
 * differs from the defaults onto the defaults gives the parsed configuration back. */
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
    struct cs_sm_config_change changes[CS_SM_CONFIG_KEYS_MAX];
    if (cs_sm_config_diff(&a, &b, changes) != 0)
        abort();
    cs_sm_config_defaults(&b);
    unsigned n = cs_sm_config_diff(&b, &a, changes);
    for (unsigned i = 0; i < n; i++) {
        char value[CS_SM_CONFIG_PATH_MAX + 16];
        if (cs_sm_config_copy_key(&b, &a, changes[i].key) < 0 ||
            cs_sm_config_format_value(&a, changes[i].key, value, sizeof value) < 0)
            abort();
    }
    if (!cs_sm_config_equal(&a, &b) || cs_sm_config_diff(&a, &b, changes) != 0)
        abort();
    free(text);
    cs_sm_config_warnings_free(&again);
    return 0;
}
