/* OpenSM's QoS policy file, its qos-ulps section (include/cloudsm/qos_policy.h): the parser never
 * crashes; a policy it accepts has SLs 0..15, ranges in order, rules whose ranges are inside the
 * policy and whose lines are inside the input, and its lookup returns an SL the file gave; a
 * refusal leaves no policy and an error that names a line inside the input. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/qos_policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Lines of the input as the line source counts them: one more after a final newline is not a
 * line, but an error at the end of the input may name the last line. */
static unsigned count_lines(const uint8_t *data, size_t size)
{
    unsigned n = 1;
    for (size_t i = 0; i + 1 < size; i++)
        n += data[i] == '\n';
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char name[] = "fuzz.conf";
    struct cs_qos_policy *p = (struct cs_qos_policy *)&size; /* must be replaced */
    struct cs_error err = {""};
    unsigned lines = count_lines(data, size);
    if (cs_qos_policy_parse((const char *)data, size, name, &p, &err) < 0) {
        unsigned line = 0;
        if (p != NULL || strncmp(err.msg, "fuzz.conf:", 10) != 0 ||
            sscanf(err.msg + 10, "%u", &line) != 1 || line < 1 || line > lines)
            abort();
        return 0;
    }
    if (p == NULL || p->default_sl > 15)
        abort();
    for (uint32_t i = 0; i < p->num_rules; i++) {
        const struct cs_qos_rule *r = &p->rules[i];
        if (r->sl > 15 || r->count == 0 || r->first > p->num_ranges ||
            r->count > p->num_ranges - r->first || r->line < 1 || r->line > lines ||
            (i > 0 && r->line < p->rules[i - 1].line))
            abort();
        for (uint32_t k = r->first; k < r->first + r->count; k++) {
            const struct cs_qos_range *g = &p->ranges[k];
            if (g->lo > g->hi || (r->match == CS_QOS_MATCH_PKEY && g->hi > 0x7fff))
                abort();
            /* Each range's ends match the rule (or an earlier one), never a later rule. */
            struct cs_qos_path_query q = {.has_service_id = true,
                                          .service_id = g->lo,
                                          .has_pkey = true,
                                          .pkey = (uint16_t)g->hi,
                                          .source_guid = g->lo,
                                          .target_guid = g->hi};
            int m = cs_qos_policy_match(p, &q);
            if (m < 0 || (uint32_t)m > i)
                abort();
        }
    }
    struct cs_qos_path_query none = {0};
    uint8_t sl = cs_qos_policy_sl(p, &none);
    int m = cs_qos_policy_match(p, &none);
    if (sl != (m < 0 ? p->default_sl : p->rules[m].sl))
        abort();
    cs_qos_policy_free(p);
    return 0;
}
