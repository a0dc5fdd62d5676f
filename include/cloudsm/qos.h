/* Quality of service: OpenSM's qos* keys of opensm.conf and what they resolve to per port class.
 *
 * OpenSM 3.3.23 (osm_qos.c) programs, with `qos TRUE`, four classes of ports from the same five
 * keys each: CA ports (qos_ca_*), router ports (qos_rtr_*), switch port 0 where it is enhanced
 * (qos_sw0_*) and switch external ports (qos_swe_*). A class key that is not set takes the
 * general key (qos_*), and a general key that is not set OpenSM's built-in default:
 *
 *     max_vls     15                        (0 = not set; read, but programs nothing)
 *     high_limit  0                         (-1 = not set): PortInfo VLHighLimit
 *     vlarb_high  0:4,1:0,2:0,...,14:0      VLArbitration high-priority table, VL:weight pairs
 *     vlarb_low   0:0,1:4,2:4,...,14:4      low-priority table
 *     sl2vl       0,1,2,...,14,7            the VL of SL 0..15 (15 = drop)
 *
 * A VLArbitration list holds up to 64 VL:weight pairs (VL 0..14, weight 0..255), decimal or 0x
 * hex, separated by commas; entries past the list are VL 0 weight 0. An SL2VL list holds 16 VLs
 * (0..15). OpenSM warns about a malformed list and programs what strtoul makes of it; cloudsm
 * refuses it (the file's line is named).
 */
#ifndef CLOUDSM_QOS_H
#define CLOUDSM_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cloudsm/error.h"
#include "cloudsm/smp.h"

#define CS_QOS_VLARB_MAX 64 /* two VLArbitration blocks */
#define CS_QOS_DEFAULT_MAX_VLS 15
#define CS_QOS_DEFAULT_HIGH_LIMIT 0
#define CS_QOS_HIGH_LIMIT_UNSET (-1)

/* One VLArbitration list as configured; set = false: not given (the class inherits). */
struct cs_qos_vlarb_list {
    bool set;
    uint8_t count;
    uint8_t vl[CS_QOS_VLARB_MAX];
    uint8_t weight[CS_QOS_VLARB_MAX];
};

struct cs_qos_sl2vl_list {
    bool set;
    uint8_t vl[CS_SL2VL_ENTRIES];
};

/* One set of the five keys, as given in the file. */
struct cs_qos_options {
    unsigned max_vls; /* 0 = not set */
    int high_limit;   /* CS_QOS_HIGH_LIMIT_UNSET = not set */
    struct cs_qos_vlarb_list vlarb_high, vlarb_low;
    struct cs_qos_sl2vl_list sl2vl;
};

/* The port classes, in the order of OpenSM's key prefixes. */
enum cs_qos_class { CS_QOS_CA, CS_QOS_RTR, CS_QOS_SW0, CS_QOS_SWE, CS_QOS_CLASSES };

/* What a class programs: every value resolved, the VLArbitration lists as the blocks the SMPs
 * carry (block 0: entries 0..31, block 1: 32..63). */
struct cs_qos_class_config {
    uint8_t max_vls;
    uint8_t high_limit;
    struct cs_smp_vlarb vlarb_low[2], vlarb_high[2];
    struct cs_smp_sl2vl sl2vl;
};

/* Every class resolved: what the SM programs with qos TRUE. */
struct cs_qos_config {
    struct cs_qos_class_config cls[CS_QOS_CLASSES];
};

/* All unset: what cs_sm_config_defaults gives each set. */
void cs_qos_options_unset(struct cs_qos_options *o);

/* Parse a list value (n bytes at text, no NUL needed). -1 with err saying what is wrong. */
int cs_qos_vlarb_parse(const char *text, size_t n, struct cs_qos_vlarb_list *out,
                       struct cs_error *err);
int cs_qos_sl2vl_parse(const char *text, size_t n, struct cs_qos_sl2vl_list *out,
                       struct cs_error *err);
/* The list as the file writes it ("VL:W,VL:W" / "V,V,..."); "(null)" when not set. snprintf's
 * result. */
int cs_qos_vlarb_format(const struct cs_qos_vlarb_list *l, char *buf, size_t size);
int cs_qos_sl2vl_format(const struct cs_qos_sl2vl_list *l, char *buf, size_t size);

/* The class's values: class options, else general, else OpenSM's defaults. */
void cs_qos_resolve(const struct cs_qos_options *cls, const struct cs_qos_options *general,
                    struct cs_qos_class_config *out);
/* Each class of classes[] (by enum cs_qos_class) resolved against general. */
void cs_qos_resolve_all(const struct cs_qos_options *general,
                        const struct cs_qos_options classes[CS_QOS_CLASSES],
                        struct cs_qos_config *out);

#endif
