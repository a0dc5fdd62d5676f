/* VM state parser: never crashes; a failed parse leaves nothing; what it accepts is valid and
 * survives write -> parse unchanged. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/vm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_vm_state a, b;
    struct cs_error err;
    if (cs_vm_state_parse(&a, (const char *)data, size, "fuzz", &err) < 0) {
        if (a.count != 0 || a.vms)
            abort();
        return 0;
    }
    for (uint32_t i = 0; i < a.count; i++) {
        const struct cs_vm *vm = &a.vms[i];
        if (vm->vguid == 0 || vm->lid < 1 || vm->lid > CS_UNICAST_LIDS || vm->vf < 1 ||
            vm->vf > CS_VFS_MAX || vm->hypervisor == 0 || vm->name[0] == 0 ||
            cs_vm_state_find(&a, vm->name) != i)
            abort();
    }
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out || cs_vm_state_write(out, &a, &err) < 0)
        abort();
    fclose(out);
    if (cs_vm_state_parse(&b, text, len, "again", &err) < 0 || a.count != b.count ||
        a.lid_policy != b.lid_policy)
        abort();
    for (uint32_t i = 0; i < a.count; i++)
        if (strcmp(a.vms[i].name, b.vms[i].name) != 0 || a.vms[i].vguid != b.vms[i].vguid ||
            a.vms[i].lid != b.vms[i].lid || a.vms[i].hypervisor != b.vms[i].hypervisor ||
            a.vms[i].vf != b.vms[i].vf)
            abort();
    free(text);
    cs_vm_state_free(&a);
    cs_vm_state_free(&b);
    return 0;
}
