/* OpenSM's QoS lists (qos_*_vlarb_*, qos_*_sl2vl; include/cloudsm/qos.h): the parsers never
 * crash; what they accept is written back to text that parses to the same list. The first byte
 * picks the parser. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/qos.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    struct cs_error err;
    char back[CS_QOS_VLARB_MAX * 8 + 1];
    if (data[0] & 1) {
        struct cs_qos_vlarb_list a, b;
        if (cs_qos_vlarb_parse(text, n, &a, &err) < 0)
            return 0;
        int len = cs_qos_vlarb_format(&a, back, sizeof back);
        if (len < 0 || (size_t)len >= sizeof back ||
            cs_qos_vlarb_parse(back, (size_t)len, &b, &err) < 0 || memcmp(&a, &b, sizeof a) != 0)
            abort();
        struct cs_qos_options cls, gen;
        cs_qos_options_unset(&cls);
        cs_qos_options_unset(&gen);
        cls.vlarb_low = a;
        struct cs_qos_class_config q;
        cs_qos_resolve(&cls, &gen, &q);
        for (unsigned i = 0; i < a.count; i++)
            if (q.vlarb_low[i / CS_VLARB_ENTRIES].vl[i % CS_VLARB_ENTRIES] != a.vl[i] ||
                q.vlarb_low[i / CS_VLARB_ENTRIES].weight[i % CS_VLARB_ENTRIES] != a.weight[i])
                abort();
    } else {
        struct cs_qos_sl2vl_list a, b;
        if (cs_qos_sl2vl_parse(text, n, &a, &err) < 0)
            return 0;
        int len = cs_qos_sl2vl_format(&a, back, sizeof back);
        if (len < 0 || (size_t)len >= sizeof back ||
            cs_qos_sl2vl_parse(back, (size_t)len, &b, &err) < 0 || memcmp(&a, &b, sizeof a) != 0)
            abort();
        for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++)
            if (a.vl[sl] > 15)
                abort();
    }
    return 0;
}
