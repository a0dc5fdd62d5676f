/* PlanetLab/CoMon directory reader on arbitrary bytes: the input, cut at each 0xff byte, becomes
 * the files of one directory (vm0, vm1, ...; at most 8). Never crash; what it accepts has one VM
 * per file, every VM as long as the longest file, and each sample repeated 300 / 60 = 5 times. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cloudsm/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_FILES 8

static char dir[64];

static void clear_dir(void)
{
    char path[96];
    for (int i = 0; i < MAX_FILES; i++) {
        snprintf(path, sizeof path, "%s/vm%d", dir, i);
        unlink(path);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (dir[0] == '\0') {
        strcpy(dir, "/tmp/cs-fuzz-planetlab-XXXXXX");
        if (!mkdtemp(dir))
            abort();
    }
    clear_dir();
    int files = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && files < MAX_FILES; i++) {
        if (i < size && data[i] != 0xff)
            continue;
        char path[96];
        snprintf(path, sizeof path, "%s/vm%d", dir, files++);
        FILE *f = fopen(path, "wb");
        if (!f)
            abort();
        if (i > start && fwrite(data + start, 1, i - start, f) != i - start)
            abort();
        fclose(f);
        start = i + 1;
    }
    struct cs_trace t;
    struct cs_error err;
    if (cs_trace_read_planetlab(&t, dir, NULL, &err) == 0) {
        if (t.num_vms != (uint32_t)files || t.steps % 5 != 0)
            abort();
        cs_trace_free(&t);
    }
    return 0;
}
