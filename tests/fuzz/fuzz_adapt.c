/* IBAdapt rules reader: never crashes, never leaks; on failure returns nothing and a message
 * that starts with the input's name and a line:column; what it accepts lists, and steps once
 * over a small measured fabric (4 CA nodes, one switch, one poll) without error. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/adapt.h"
#include "cloudsm/fabric.h"
#include "cloudsm/metrics.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void small_metrics(struct cs_metrics *m)
{
    struct cs_error err;
    cs_metrics_init(m);
    for (uint64_t i = 0; i < 4; i++)
        if (cs_metrics_add_node(m, 0x11 + i, CS_NODE_CA, "ca", &err) < 0)
            abort();
    if (cs_metrics_add_node(m, 0x100, CS_NODE_SWITCH, "sw", &err) < 0)
        abort();
    for (uint32_t i = 0; i < 4; i++) {
        struct cs_metric_port p = {.node = i,
                                   .num = 1,
                                   .peer_num = (uint8_t)(i + 1),
                                   .lid = 1,
                                   .peer_node_guid = 0x100,
                                   .link_bytes_per_s = 1e9};
        if (cs_metrics_add_port(m, &p, &err) < 0)
            abort();
    }
    uint32_t members[] = {0, 2};
    if (cs_metrics_add_partition(m, "a", 1, members, 2, &err) < 0)
        abort();
    for (uint32_t i = 0; i < 4; i++) {
        struct cs_metric_sample s = {.time = 100, .interval = 10, .port = i};
        for (int k = 0; k < CS_METRIC_COUNT; k++)
            s.value[k] = 1e6 * (i + 1) + k;
        if (cs_metrics_add_sample(m, &s, &err) < 0)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_adapt_rules *r = (struct cs_adapt_rules *)1;
    struct cs_error err = {""};
    if (cs_adapt_parse((const char *)data, size, "fuzz", &r, &err) < 0) {
        if (r != NULL || strncmp(err.msg, "fuzz:", 5) != 0) {
            fprintf(stderr, "bad failure: %s\n", err.msg);
            abort();
        }
        return 0;
    }
    for (uint32_t i = 0; i < cs_adapt_rule_count(r); i++) {
        struct cs_adapt_rule_info info;
        cs_adapt_rule_get(r, i, &info);
        if (info.name == NULL || info.condition == NULL || info.num_actions == 0)
            abort();
    }
    struct cs_metrics m;
    small_metrics(&m);
    struct cs_adapt_state s;
    struct cs_adapt_firing *f;
    uint32_t n;
    if (cs_adapt_state_init(&s, r, &err) < 0 || cs_adapt_step(r, &s, &m, 100, &f, &n, &err) < 0)
        abort();
    for (uint32_t i = 0; i < n; i++)
        if (f[i].rule >= cs_adapt_rule_count(r) || s.rules[f[i].rule].status != CS_ADAPT_FIRED)
            abort();
    cs_adapt_firings_free(f, n);
    cs_adapt_state_free(&s);
    cs_metrics_free(&m);
    cs_adapt_rules_free(r);
    return 0;
}
