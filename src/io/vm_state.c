/* The VM state file (include/cloudsm/vm.h, docs/formats/vms.md). */
#include "cloudsm/vm.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/atomic_file.h"
#include "core/grow.h"
#include "io/text.h"

void cs_vm_state_init(struct cs_vm_state *s)
{
    memset(s, 0, sizeof *s);
    s->lid_policy = CS_LID_PREPOPULATED;
}

void cs_vm_state_free(struct cs_vm_state *s)
{
    free(s->vms);
    free(s->live_routes);
    cs_vm_state_init(s);
}

int cs_vm_state_copy(struct cs_vm_state *dst, const struct cs_vm_state *src, struct cs_error *err)
{
    cs_vm_state_init(dst);
    dst->lid_policy = src->lid_policy;
    if (cs_grow((void **)&dst->vms, &dst->capacity, src->count, sizeof *src->vms, err) < 0 ||
        cs_grow((void **)&dst->live_routes, &dst->live_routes_capacity, src->num_live_routes,
                sizeof *src->live_routes, err) < 0) {
        cs_vm_state_free(dst);
        return -1;
    }
    if (src->count)
        memcpy(dst->vms, src->vms, src->count * sizeof *src->vms);
    if (src->num_live_routes)
        memcpy(dst->live_routes, src->live_routes, src->num_live_routes * sizeof *src->live_routes);
    dst->count = src->count;
    dst->num_live_routes = src->num_live_routes;
    return 0;
}

/* Where lid is, or would go, in the sorted live_routes. */
static uint32_t live_route_slot(const struct cs_vm_state *s, uint16_t lid)
{
    uint32_t lo = 0, hi = s->num_live_routes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->live_routes[mid] < lid)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool cs_vm_state_route_is_live(const struct cs_vm_state *s, uint16_t lid)
{
    uint32_t i = live_route_slot(s, lid);
    return i < s->num_live_routes && s->live_routes[i] == lid;
}

int cs_vm_state_mark_route_live(struct cs_vm_state *s, uint16_t lid, struct cs_error *err)
{
    uint32_t i = live_route_slot(s, lid);
    if (i < s->num_live_routes && s->live_routes[i] == lid)
        return 0;
    if (cs_grow((void **)&s->live_routes, &s->live_routes_capacity,
                (uint64_t)s->num_live_routes + 1, sizeof *s->live_routes, err) < 0)
        return -1;
    memmove(s->live_routes + i + 1, s->live_routes + i,
            (s->num_live_routes - i) * sizeof *s->live_routes);
    s->live_routes[i] = lid;
    s->num_live_routes++;
    return 0;
}

void cs_vm_state_unmark_route_live(struct cs_vm_state *s, uint16_t lid)
{
    uint32_t i = live_route_slot(s, lid);
    if (i >= s->num_live_routes || s->live_routes[i] != lid)
        return;
    memmove(s->live_routes + i, s->live_routes + i + 1,
            (s->num_live_routes - i - 1) * sizeof *s->live_routes);
    s->num_live_routes--;
}

static bool name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
}

/* A field out of range, or "" if the VM is valid on its own. */
static const char *vm_field_problem(const struct cs_vm *vm)
{
    if (vm->name[0] == 0)
        return "a VM needs a name";
    for (const char *c = vm->name; *c; c++)
        if (!name_char(*c))
            return "a VM name is letters, digits, '.', '_' and '-'";
    if (vm->vguid == 0)
        return "vguid 0 is not a valid GUID";
    if (vm->lid < 1 || vm->lid > CS_UNICAST_LIDS)
        return "a VM's LID is a unicast LID, 1..49151";
    if (vm->hypervisor == 0)
        return "hypervisor 0 is not a valid node GUID";
    if (vm->vf < 1 || vm->vf > CS_VFS_MAX)
        return "vf is 1..126";
    return "";
}

/* The four keys a VM must not share with another: a comparison each (0: the same), and an order
 * for sorting by it (equal keys in array order, which is file order). */
#define VM_KEY(key, expr)                                                                          \
    static int key##_key(const struct cs_vm *a, const struct cs_vm *b)                             \
    {                                                                                              \
        return (expr);                                                                             \
    }                                                                                              \
    static int key##_order(const void *pa, const void *pb)                                         \
    {                                                                                              \
        const struct cs_vm *a = *(const struct cs_vm *const *)pa;                                  \
        const struct cs_vm *b = *(const struct cs_vm *const *)pb;                                  \
        int c = key##_key(a, b);                                                                   \
        return c ? c : (a > b) - (a < b);                                                          \
    }
VM_KEY(name, strcmp(a->name, b->name))
VM_KEY(vguid, (a->vguid > b->vguid) - (a->vguid < b->vguid))
VM_KEY(lid, (a->lid > b->lid) - (a->lid < b->lid))
VM_KEY(place, a->hypervisor != b->hypervisor
                  ? (a->hypervisor > b->hypervisor) - (a->hypervisor < b->hypervisor)
                  : (a->vf > b->vf) - (a->vf < b->vf))

static const struct vm_key {
    int (*key)(const struct cs_vm *, const struct cs_vm *);
    int (*order)(const void *, const void *);
    const char *what;
    bool one_per_hca; /* shared-port: the VMs of one HCA share it */
} vm_keys[] = {{name_key, name_order, "name", false},
               {vguid_key, vguid_order, "vguid", false},
               {lid_key, lid_order, "LID", true},
               {place_key, place_order, "place (hypervisor and VF)", false}};
#define VM_KEYS (sizeof vm_keys / sizeof vm_keys[0])

/* Whether a and b must not share key k: equal keys, unless the key is one the VMs of an HCA share
 * in shared-port mode and both run on the same one. In a sort by the key, two VMs with equal keys
 * on different HCAs always leave such a pair side by side. */
static bool clashes(unsigned k, const struct cs_vm *a, const struct cs_vm *b, enum cs_lid_policy p)
{
    return vm_keys[k].key(a, b) == 0 &&
           !(vm_keys[k].one_per_hca && p == CS_LID_SHARED_PORT && a->hypervisor == b->hypervisor);
}

/* Which of two VMs' keys clash, or NULL. */
static const char *clash(const struct cs_vm *a, const struct cs_vm *b, enum cs_lid_policy p)
{
    for (unsigned k = 0; k < VM_KEYS; k++)
        if (clashes(k, a, b, p))
            return vm_keys[k].what;
    return NULL;
}

static int append(struct cs_vm_state *s, const struct cs_vm *vm, struct cs_error *err)
{
    if (cs_grow((void **)&s->vms, &s->capacity, (uint64_t)s->count + 1, sizeof *s->vms, err) < 0)
        return -1;
    s->vms[s->count++] = *vm;
    return 0;
}

int cs_vm_state_add(struct cs_vm_state *s, const struct cs_vm *vm, struct cs_error *err)
{
    const char *problem = vm_field_problem(vm);
    if (*problem)
        return cs_fail(err, "VM '%s': %s", vm->name, problem);
    for (uint32_t i = 0; i < s->count; i++) {
        const char *what = clash(&s->vms[i], vm, s->lid_policy);
        if (what)
            return cs_fail(err, "VM '%s' has the same %s as VM '%s'", vm->name, what,
                           s->vms[i].name);
    }
    return append(s, vm, err);
}

uint32_t cs_vm_state_find(const struct cs_vm_state *s, const char *name)
{
    for (uint32_t i = 0; i < s->count; i++)
        if (strcmp(s->vms[i].name, name) == 0)
            return i;
    return CS_NONE;
}

void cs_vm_state_remove(struct cs_vm_state *s, uint32_t i)
{
    if (i >= s->count)
        return;
    memmove(&s->vms[i], &s->vms[i + 1], (size_t)(s->count - i - 1) * sizeof *s->vms);
    s->count--;
}

/* ---- Reading ------------------------------------------------------------------------------ */

/* Uniqueness over a whole file (which may hold tens of thousands of VMs), sorting by each key in
 * turn; the later line of two is named, with the earlier one. */
static int check_unique(const struct cs_vm_state *s, const char *name, struct cs_error *err)
{
    const struct cs_vm **sorted = cs_calloc_array(s->count + 1, sizeof *sorted, err);
    if (!sorted)
        return -1;
    int rc = 0;
    for (unsigned k = 0; k < VM_KEYS && rc == 0; k++) {
        for (uint32_t i = 0; i < s->count; i++)
            sorted[i] = &s->vms[i];
        qsort(sorted, s->count, sizeof *sorted, vm_keys[k].order);
        for (uint32_t i = 1; i < s->count && rc == 0; i++)
            if (clashes(k, sorted[i - 1], sorted[i], s->lid_policy))
                rc = cs_fail_at(err, name, sorted[i]->line,
                                "VM '%s' has the same %s as VM '%s' (line %u)", sorted[i]->name,
                                vm_keys[k].what, sorted[i - 1]->name, sorted[i - 1]->line);
    }
    free(sorted);
    return rc;
}

/* The next blank-separated token (empty at the end of the line or at a '#'). */
static struct cs_span next_token(struct cs_span *line)
{
    cs_span_skip_space(line);
    struct cs_span t = {line->p, line->p};
    if (!cs_span_empty(line) && *line->p == '#')
        return t;
    while (t.end < line->end && !cs_is_blank(*t.end))
        t.end++;
    line->p = t.end;
    return t;
}

static bool token_is(const struct cs_span *t, const char *word)
{
    size_t n = strlen(word);
    return (size_t)(t->end - t->p) == n && memcmp(t->p, word, n) == 0;
}

/* A whole token as a number: "lid=5x" is not 5. */
static bool token_u64(struct cs_span value, int base, uint64_t max, uint64_t *out)
{
    return cs_span_u64(&value, base, out) && cs_span_empty(&value) && *out <= max;
}

static int parse_vm(struct cs_vm_state *s, struct cs_lines *in, struct cs_span *line)
{
    struct cs_vm vm = {.line = in->number};
    struct cs_span name = next_token(line);
    if (cs_span_empty(&name) || (size_t)(name.end - name.p) > CS_VM_NAME_MAX)
        return cs_fail_at(
            in->err, in->name, in->number,
            "expected a VM name (1 to %d letters, digits, '.', '_', '-') after \"vm\"",
            CS_VM_NAME_MAX);
    cs_span_copy(&name, vm.name, sizeof vm.name);
    static const char *const keys[] = {"vguid", "lid", "hypervisor", "vf"};
    bool seen[4] = {false, false, false, false};
    for (struct cs_span t = next_token(line); !cs_span_empty(&t); t = next_token(line)) {
        const char *eq = memchr(t.p, '=', (size_t)(t.end - t.p));
        unsigned k = 0;
        while (
            eq && k < 4 &&
            !(strlen(keys[k]) == (size_t)(eq - t.p) && memcmp(t.p, keys[k], strlen(keys[k])) == 0))
            k++;
        if (!eq || k == 4)
            return cs_fail_at(in->err, in->name, in->number,
                              "VM '%s': \"%s\" is not vguid=, lid=, hypervisor= or vf=", vm.name,
                              cs_quote_span(&t).text);
        if (seen[k])
            return cs_fail_at(in->err, in->name, in->number, "VM '%s': %s given twice", vm.name,
                              keys[k]);
        seen[k] = true;
        struct cs_span value = {eq + 1, t.end};
        uint64_t v = 0;
        bool ok = k == 0   ? token_u64(value, 0, UINT64_MAX, &v)
                  : k == 1 ? token_u64(value, 0, CS_UNICAST_LIDS, &v)
                  : k == 2 ? token_u64(value, 0, UINT64_MAX, &v)
                           : token_u64(value, 10, CS_VFS_MAX, &v);
        if (!ok)
            return cs_fail_at(in->err, in->name, in->number, "VM '%s': %s=\"%s\" is not %s",
                              vm.name, keys[k], cs_quote_span(&value).text,
                              k == 1   ? "a unicast LID (1..49151)"
                              : k == 3 ? "a VF number (1..126)"
                                       : "a GUID (0x hex or decimal)");
        if (k == 0)
            vm.vguid = v;
        else if (k == 1)
            vm.lid = (uint16_t)v;
        else if (k == 2)
            vm.hypervisor = v;
        else
            vm.vf = (uint8_t)v;
    }
    for (unsigned k = 0; k < 4; k++)
        if (!seen[k])
            return cs_fail_at(in->err, in->name, in->number, "VM '%s': %s= is missing", vm.name,
                              keys[k]);
    const char *problem = vm_field_problem(&vm);
    if (*problem)
        return cs_fail_at(in->err, in->name, in->number, "VM '%s': %s", vm.name, problem);
    return append(s, &vm, in->err);
}

/* "live_routes LID ...": each LID a unicast LID, listed once in the file. */
static int parse_live_routes(struct cs_vm_state *s, struct cs_lines *in, struct cs_span *line)
{
    for (struct cs_span word = next_token(line); !cs_span_empty(&word); word = next_token(line)) {
        char text[16];
        unsigned long lid = 0;
        if ((size_t)(word.end - word.p) < sizeof text) {
            cs_span_copy(&word, text, sizeof text);
            if (isdigit((unsigned char)text[0])) {
                char *end;
                errno = 0;
                lid = strtoul(text, &end, 0);
                if (errno || *end)
                    lid = 0;
            }
        }
        if (lid == 0 || lid > CS_UNICAST_LIDS)
            return cs_fail_at(in->err, in->name, in->number,
                              "live_routes: \"%s\" is not a unicast LID (1..%u)",
                              cs_quote_span(&word).text, CS_UNICAST_LIDS);
        if (cs_vm_state_route_is_live(s, (uint16_t)lid))
            return cs_fail_at(in->err, in->name, in->number, "live_routes: LID %lu is listed twice",
                              lid);
        if (cs_vm_state_mark_route_live(s, (uint16_t)lid, in->err) < 0)
            return -1;
    }
    return 0;
}

static int parse_source(struct cs_vm_state *s, struct cs_lines *in)
{
    struct cs_span line;
    int rc = 0, got;
    bool policy_seen = false;
    while (rc == 0 && (got = cs_lines_next(in, &line)) > 0) {
        struct cs_span word = next_token(&line);
        if (cs_span_empty(&word))
            continue;
        if (token_is(&word, "vm")) {
            rc = parse_vm(s, in, &line);
        } else if (token_is(&word, "live_routes")) {
            rc = parse_live_routes(s, in, &line);
        } else if (token_is(&word, "lid_policy")) {
            struct cs_span value = next_token(&line);
            char text[16];
            cs_span_copy(&value, text, sizeof text);
            if (policy_seen || s->count > 0)
                rc = cs_fail_at(in->err, in->name, in->number,
                                "lid_policy comes once, before the VMs");
            else if ((size_t)(value.end - value.p) >= sizeof text ||
                     cs_lid_policy_parse(text, &s->lid_policy) < 0)
                rc = cs_fail_at(in->err, in->name, in->number,
                                "lid_policy is prepopulated, dynamic or shared-port, not \"%s\"",
                                cs_quote_span(&value).text);
            policy_seen = true;
            struct cs_span rest = next_token(&line);
            if (rc == 0 && !cs_span_empty(&rest))
                rc =
                    cs_fail_at(in->err, in->name, in->number,
                               "unexpected \"%s\" after the lid_policy", cs_quote_span(&rest).text);
        } else {
            char found[160];
            cs_lines_describe(in, found, sizeof found);
            rc = cs_fail_at(in->err, in->name, in->number,
                            "expected \"vm NAME vguid=... lid=... hypervisor=... vf=...\", "
                            "\"lid_policy prepopulated|dynamic|shared-port\" or \"live_routes "
                            "LID...\" (a VM state file); found %s",
                            found);
        }
    }
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0)
        rc = check_unique(s, in->name, in->err);
    if (rc < 0)
        cs_vm_state_free(s);
    return rc;
}

int cs_vm_state_parse(struct cs_vm_state *s, const char *text, size_t len, const char *name,
                      struct cs_error *err)
{
    cs_vm_state_init(s);
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return parse_source(s, &in);
}

int cs_vm_state_read(struct cs_vm_state *s, const char *path, struct cs_error *err)
{
    cs_vm_state_init(s);
    struct cs_lines in;
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = parse_source(s, &in);
    cs_lines_close(&in);
    return rc;
}

/* ---- Against a fabric --------------------------------------------------------------------- */

static int fail_vm(struct cs_error *err, const char *name, const struct cs_vm *vm, const char *fmt,
                   ...) CS_PRINTF(4, 5);
static int fail_vm(struct cs_error *err, const char *name, const struct cs_vm *vm, const char *fmt,
                   ...)
{
    char what[CS_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (name && vm->line)
        return cs_fail_at(err, name, vm->line, "VM '%s': %s", vm->name, what);
    return cs_fail(err, "VM '%s': %s", vm->name, what);
}

/* Shared port: each VM's hypervisor is an HCA of the fabric and the VM has its LID. */
static int check_shared_port(const struct cs_vm_state *s, const struct cs_fabric *f,
                             const char *name, struct cs_error *err)
{
    struct cs_key_index nodes;
    cs_key_index_init(&nodes);
    int rc = cs_key_index_nodes(&nodes, f, err);
    for (uint32_t i = 0; rc == 0 && i < s->count; i++) {
        const struct cs_vm *vm = &s->vms[i];
        uint32_t port = cs_shared_port_of(f, &nodes, vm->hypervisor);
        if (port == CS_NONE)
            rc = fail_vm(err, name, vm,
                         "hypervisor 0x%016" PRIx64 " is not a cabled CA (HCA) of the fabric "
                         "(shared-port: the HCA's node GUID)",
                         vm->hypervisor);
        else if (f->ports[port].lid != vm->lid)
            rc = fail_vm(err, name, vm,
                         "LID %u, but its HCA 0x%016" PRIx64 " has LID %u (shared-port: a VM "
                         "has its HCA's)",
                         vm->lid, vm->hypervisor, f->ports[port].lid);
    }
    cs_key_index_free(&nodes);
    return rc;
}

int cs_vm_state_check(const struct cs_vm_state *s, const struct cs_fabric *f,
                      const struct cs_hypervisors *h, const char *name, struct cs_error *err)
{
    if (s->lid_policy == CS_LID_SHARED_PORT)
        return check_shared_port(s, f, name, err);
    for (uint32_t i = 0; i < s->count; i++) {
        const struct cs_vm *vm = &s->vms[i];
        uint32_t hv = cs_hypervisor_by_guid(h, f, vm->hypervisor);
        if (hv == CS_NONE)
            return fail_vm(err, name, vm,
                           "hypervisor 0x%016" PRIx64 " is not a vSwitch of the fabric",
                           vm->hypervisor);
        uint32_t port = cs_hypervisor_vf_port(h, hv, vm->vf);
        if (port == CS_NONE)
            return fail_vm(err, name, vm, "hypervisor 0x%016" PRIx64 " has %u VFs, not VF %u",
                           vm->hypervisor, h->items[hv].num_vfs, vm->vf);
        if (s->lid_policy == CS_LID_PREPOPULATED && f->ports[port].lid != vm->lid)
            return fail_vm(err, name, vm,
                           "LID %u, but its VF %u on hypervisor 0x%016" PRIx64
                           " has LID %u (prepopulated LIDs: a VM has its VF's)",
                           vm->lid, vm->vf, vm->hypervisor, f->ports[port].lid);
    }
    return 0;
}

/* ---- Writing ------------------------------------------------------------------------------ */

int cs_vm_state_write(FILE *out, const struct cs_vm_state *s, struct cs_error *err)
{
    fprintf(out, "# cloudsm VM state\nlid_policy %s\n", cs_lid_policy_name(s->lid_policy));
    for (uint32_t i = 0; i < s->count; i++) {
        const struct cs_vm *vm = &s->vms[i];
        fprintf(out, "vm %s vguid=0x%016" PRIx64 " lid=%u hypervisor=0x%016" PRIx64 " vf=%u\n",
                vm->name, vm->vguid, vm->lid, vm->hypervisor, vm->vf);
    }
    for (uint32_t i = 0; i < s->num_live_routes; i++)
        fprintf(out, "%s%u%s", i % 16 ? " " : "live_routes ", s->live_routes[i],
                i % 16 == 15 || i + 1 == s->num_live_routes ? "\n" : "");
    if (fflush(out) != 0 || ferror(out))
        return cs_fail(err, "writing the VM state failed: %s", strerror(errno));
    return 0;
}

static int write_callback(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_vm_state_write(out, ctx, err);
}

int cs_vm_state_write_file(const char *path, const struct cs_vm_state *s, struct cs_error *err)
{
    return cs_atomic_write(path, write_callback, s, err);
}
