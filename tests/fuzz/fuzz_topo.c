/* Fuzz the topology reader, and check the writer against it: whatever the reader accepts must
 * be writable, read back to an equal fabric, and write again to the same bytes. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/topo_io.h"

static char *write_to_memory(const struct cs_fabric *f, size_t *len)
{
    char *buf = NULL;
    FILE *m = open_memstream(&buf, len);
    struct cs_error err;
    if (!m)
        abort();
    if (cs_topo_write(m, f, &err) < 0) {
        fprintf(stderr, "a parsed fabric could not be written: %s\n", err.msg);
        abort();
    }
    if (fclose(m) != 0)
        abort();
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_fabric first, again;
    struct cs_error err;
    cs_fabric_init(&first);
    if (cs_topo_parse(&first, (const char *)data, size, "fuzz", &err) < 0) {
        if (first.num_nodes != 0 || first.nodes || first.ports)
            abort(); /* a failed parse must leave the fabric empty */
        if (strncmp(err.msg, "fuzz:", 5) != 0)
            abort(); /* and say where */
        return 0;
    }
    size_t len1, len2;
    char *text1 = write_to_memory(&first, &len1);
    cs_fabric_init(&again);
    if (cs_topo_parse(&again, text1, len1, "rewritten", &err) < 0) {
        fprintf(stderr, "our own output does not parse: %s\n", err.msg);
        abort();
    }
    if (!cs_fabric_equal(&first, &again, &err)) {
        fprintf(stderr, "round trip differs: %s\n", err.msg);
        abort();
    }
    char *text2 = write_to_memory(&again, &len2);
    if (len1 != len2 || memcmp(text1, text2, len1) != 0)
        abort();
    free(text1);
    free(text2);
    cs_fabric_free(&again);
    cs_fabric_free(&first);
    return 0;
}
