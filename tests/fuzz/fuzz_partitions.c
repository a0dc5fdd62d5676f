/* partitions.conf reader: never crashes; what it accepts survives write -> parse unchanged, and
 * resolves on a small fabric (every member a port of that fabric, sorted, no duplicates). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/partitions.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_same(const struct cs_partitions *a, const struct cs_partitions *b)
{
    if (a->count != b->count || a->from_file != b->from_file || a->policy != b->policy ||
        a->policy_set != b->policy_set)
        abort();
    for (uint32_t i = 0; i < a->count; i++) {
        const struct cs_partition *x = &a->partitions[i], *y = &b->partitions[i];
        if (strcmp(x->name, y->name) || x->pkey != y->pkey || (x->line != 0) != (y->line != 0) ||
            x->ipoib != y->ipoib || x->indx0 != y->indx0 || x->isolation != y->isolation ||
            x->isolation_set != y->isolation_set ||
            (x->group_flags == NULL) != (y->group_flags == NULL) ||
            (x->group_flags && strcmp(x->group_flags, y->group_flags)) ||
            x->num_members != y->num_members || x->num_mgroups != y->num_mgroups)
            abort();
        for (uint32_t k = 0; k < x->num_members; k++)
            if (x->members[k].set != y->members[k].set ||
                x->members[k].guid != y->members[k].guid ||
                x->members[k].membership != y->members[k].membership)
                abort();
        for (uint32_t k = 0; k < x->num_mgroups; k++) {
            const struct cs_partition_mgroup *g = &x->mgroups[k], *h = &y->mgroups[k];
            if (memcmp(g->mgid, h->mgid, 16) || (g->flags == NULL) != (h->flags == NULL) ||
                (g->flags && strcmp(g->flags, h->flags)))
                abort();
        }
    }
}

/* Two switches and two single-port CAs; GUIDs 1..6 so that fuzzed GUIDs hit them. */
static void small_fabric(struct cs_fabric *f)
{
    struct cs_error err;
    cs_fabric_init(f);
    uint32_t s1 = cs_fabric_add_node(f, CS_NODE_SWITCH, 1, 4, "s1", &err);
    uint32_t s2 = cs_fabric_add_node(f, CS_NODE_SWITCH, 2, 4, "s2", &err);
    uint32_t c1 = cs_fabric_add_node(f, CS_NODE_CA, 3, 1, "c1", &err);
    uint32_t c2 = cs_fabric_add_node(f, CS_NODE_CA, 5, 1, "c2", &err);
    if (s1 == CS_NONE || s2 == CS_NONE || c1 == CS_NONE || c2 == CS_NONE ||
        cs_fabric_connect(f, cs_fabric_port(f, s1, 1), cs_fabric_port(f, s2, 1), &err) ||
        cs_fabric_connect(f, cs_fabric_port(f, s1, 2), cs_fabric_port(f, c1, 1), &err) ||
        cs_fabric_connect(f, cs_fabric_port(f, s2, 2), cs_fabric_port(f, c2, 1), &err))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_partitions a, b;
    struct cs_error err;
    if (cs_partitions_parse(&a, (const char *)data, size, "fuzz", &err) < 0)
        return 0;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    if (!out || cs_partitions_write(out, &a, &err) < 0)
        abort();
    fclose(out);
    if (cs_partitions_parse(&b, text, len, "again", &err) < 0) {
        fprintf(stderr, "%s\n---\n%s\n", err.msg, text);
        abort();
    }
    check_same(&a, &b);

    struct cs_fabric f;
    small_fabric(&f);
    struct cs_partition_resolve_options opt = {.sm_port_guid = 1, .allow_both_pkeys = size & 1};
    struct cs_partition_set s;
    if (cs_partitions_resolve(&a, &f, &opt, &s, &err) < 0)
        abort();
    for (uint32_t i = 0; i < s.count; i++) {
        const struct cs_resolved_partition *p = &s.partitions[i];
        if (!p->count || p->first + p->count > s.num_ports)
            abort();
        for (uint32_t k = p->first; k < p->first + p->count; k++)
            if (s.ports[k].port >= f.num_port_slots || !s.ports[k].membership ||
                (k > p->first && s.ports[k].port <= s.ports[k - 1].port))
                abort();
    }
    cs_partition_set_free(&s);
    cs_fabric_free(&f);
    free(text);
    cs_partitions_free(&a);
    cs_partitions_free(&b);
    return 0;
}
