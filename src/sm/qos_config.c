/* OpenSM's QoS lists and their inheritance (include/cloudsm/qos.h). */
#include "cloudsm/qos.h"

#include <stdio.h>
#include <string.h>

/* OpenSM's built-in defaults (osm_subnet.h), as lists. */
static const char default_vlarb_high[] = "0:4,1:0,2:0,3:0,4:0,5:0,6:0,7:0,8:0,9:0,10:0,11:0,12:0,"
                                         "13:0,14:0";
static const char default_vlarb_low[] = "0:0,1:4,2:4,3:4,4:4,5:4,6:4,7:4,8:4,9:4,10:4,11:4,12:4,"
                                        "13:4,14:4";
static const uint8_t default_sl2vl[CS_SL2VL_ENTRIES] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                        8, 9, 10, 11, 12, 13, 14, 7};

void cs_qos_options_unset(struct cs_qos_options *o)
{
    memset(o, 0, sizeof *o);
    o->high_limit = CS_QOS_HIGH_LIMIT_UNSET;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* One number of a list: decimal or 0x hex, blanks around it allowed, at most max. Advances *p
 * past it; stops at the end or at a byte that is not part of the number. */
static int parse_number(const char **p, const char *end, unsigned max, const char *what,
                        unsigned *out, struct cs_error *err)
{
    const char *s = *p;
    while (s < end && is_blank(*s))
        s++;
    unsigned base = 10;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    const char *digits = s;
    unsigned long v = 0;
    for (; s < end; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            break;
        v = v * base + d;
        if (v > max)
            return cs_fail(err, "%s %.*s is larger than %u", what, (int)(s + 1 - digits), digits,
                           max);
    }
    if (s == digits)
        return cs_fail(err, "%s expected at '%.*s'", what, (int)(end - *p > 16 ? 16 : end - *p),
                       *p);
    while (s < end && is_blank(*s))
        s++;
    *p = s;
    *out = (unsigned)v;
    return 0;
}

/* After an entry: the end, or a comma and more. */
static int next_entry(const char **p, const char *end, unsigned entry, struct cs_error *err)
{
    if (*p == end)
        return 0;
    if (**p != ',')
        return cs_fail(err, "entry %u: ',' expected at '%.*s'", entry + 1,
                       (int)(end - *p > 16 ? 16 : end - *p), *p);
    (*p)++;
    return 1;
}

int cs_qos_vlarb_parse(const char *text, size_t n, struct cs_qos_vlarb_list *out,
                       struct cs_error *err)
{
    struct cs_qos_vlarb_list l = {.set = true};
    const char *p = text, *end = text + n;
    for (;;) {
        if (l.count == CS_QOS_VLARB_MAX)
            return cs_fail(err, "more than %d VL:weight pairs", CS_QOS_VLARB_MAX);
        unsigned vl, weight;
        if (parse_number(&p, end, 14, "VL (0..14)", &vl, err) < 0)
            return -1;
        if (p == end || *p != ':')
            return cs_fail(err, "entry %u: VL:weight expected", l.count + 1);
        p++;
        if (parse_number(&p, end, 255, "weight (0..255)", &weight, err) < 0)
            return -1;
        l.vl[l.count] = (uint8_t)vl;
        l.weight[l.count] = (uint8_t)weight;
        l.count++;
        int more = next_entry(&p, end, l.count - 1u, err);
        if (more < 0)
            return -1;
        if (!more)
            break;
    }
    *out = l;
    return 0;
}

int cs_qos_sl2vl_parse(const char *text, size_t n, struct cs_qos_sl2vl_list *out,
                       struct cs_error *err)
{
    struct cs_qos_sl2vl_list l = {.set = true};
    const char *p = text, *end = text + n;
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++) {
        unsigned vl;
        if (parse_number(&p, end, 15, "VL (0..15)", &vl, err) < 0)
            return -1;
        l.vl[sl] = (uint8_t)vl;
        int more = next_entry(&p, end, sl, err);
        if (more < 0)
            return -1;
        if (more && sl + 1 == CS_SL2VL_ENTRIES)
            return cs_fail(err, "more than 16 VLs given: one for each SL 0..15 expected");
        if (!more && sl + 1 < CS_SL2VL_ENTRIES)
            return cs_fail(err, "%u VLs given: one for each SL 0..15 expected", sl + 1);
    }
    *out = l;
    return 0;
}

int cs_qos_vlarb_format(const struct cs_qos_vlarb_list *l, char *buf, size_t size)
{
    if (!l->set)
        return snprintf(buf, size, "(null)");
    size_t used = 0;
    int total = 0;
    if (size)
        buf[0] = '\0';
    for (unsigned i = 0; i < l->count; i++) {
        int w = snprintf(buf + used, used < size ? size - used : 0, "%s%u:%u", i ? "," : "",
                         l->vl[i], l->weight[i]);
        total += w;
        used = used + (size_t)w < size ? used + (size_t)w : size;
    }
    return total;
}

int cs_qos_sl2vl_format(const struct cs_qos_sl2vl_list *l, char *buf, size_t size)
{
    if (!l->set)
        return snprintf(buf, size, "(null)");
    size_t used = 0;
    int total = 0;
    if (size)
        buf[0] = '\0';
    for (unsigned sl = 0; sl < CS_SL2VL_ENTRIES; sl++) {
        int w =
            snprintf(buf + used, used < size ? size - used : 0, "%s%u", sl ? "," : "", l->vl[sl]);
        total += w;
        used = used + (size_t)w < size ? used + (size_t)w : size;
    }
    return total;
}

static void vlarb_blocks(const struct cs_qos_vlarb_list *l, struct cs_smp_vlarb blocks[2])
{
    memset(blocks, 0, 2 * sizeof *blocks);
    for (unsigned i = 0; i < l->count; i++) {
        blocks[i / CS_VLARB_ENTRIES].vl[i % CS_VLARB_ENTRIES] = l->vl[i];
        blocks[i / CS_VLARB_ENTRIES].weight[i % CS_VLARB_ENTRIES] = l->weight[i];
    }
}

/* The list of the class, else the general one, else the built-in default. */
static void resolve_vlarb(const struct cs_qos_vlarb_list *cls, const struct cs_qos_vlarb_list *gen,
                          const char *dflt, struct cs_smp_vlarb blocks[2])
{
    struct cs_qos_vlarb_list builtin;
    const struct cs_qos_vlarb_list *l = cls->set ? cls : gen;
    if (!l->set) {
        struct cs_error ignored;
        if (cs_qos_vlarb_parse(dflt, strlen(dflt), &builtin, &ignored) < 0)
            builtin.count = 0; /* not reached: the defaults parse */
        l = &builtin;
    }
    vlarb_blocks(l, blocks);
}

void cs_qos_resolve(const struct cs_qos_options *cls, const struct cs_qos_options *general,
                    struct cs_qos_class_config *out)
{
    memset(out, 0, sizeof *out);
    out->max_vls = (uint8_t)(cls->max_vls       ? cls->max_vls
                             : general->max_vls ? general->max_vls
                                                : CS_QOS_DEFAULT_MAX_VLS);
    out->high_limit = (uint8_t)(cls->high_limit >= 0       ? cls->high_limit
                                : general->high_limit >= 0 ? general->high_limit
                                                           : CS_QOS_DEFAULT_HIGH_LIMIT);
    resolve_vlarb(&cls->vlarb_high, &general->vlarb_high, default_vlarb_high, out->vlarb_high);
    resolve_vlarb(&cls->vlarb_low, &general->vlarb_low, default_vlarb_low, out->vlarb_low);
    const struct cs_qos_sl2vl_list *sl2vl = cls->sl2vl.set ? &cls->sl2vl : &general->sl2vl;
    memcpy(out->sl2vl.vl, sl2vl->set ? sl2vl->vl : default_sl2vl, sizeof out->sl2vl.vl);
}

void cs_qos_resolve_all(const struct cs_qos_options *general,
                        const struct cs_qos_options classes[CS_QOS_CLASSES],
                        struct cs_qos_config *out)
{
    for (unsigned k = 0; k < CS_QOS_CLASSES; k++)
        cs_qos_resolve(&classes[k], general, &out->cls[k]);
}
