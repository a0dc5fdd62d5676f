/* The files a cloudsmd configuration names (partition_config_file, root_guid_file,
 * cn_guid_file, node_order_file, node_weights_file, vm_state_file, adapt_rules_file, and
 * qos_policy_file with qos TRUE), read and parsed together.
 *
 * cloudsmd loads them before it opens its port, so that a bad file stops it with the file's
 * `name:line: what is wrong` and not one SMP sent; and again on SIGHUP, where a bad file keeps
 * the running set. Each file's fingerprint is kept, so that a reload can tell which files
 * changed. Files are streamed (memory bounded by what they define) and may be gzip-compressed.
 */
#ifndef CLOUDSM_SM_FILES_H
#define CLOUDSM_SM_FILES_H

#include <stdbool.h>
#include <stddef.h>

#include "cloudsm/adapt.h"
#include "cloudsm/error.h"
#include "cloudsm/guid_list.h"
#include "cloudsm/partitions.h"
#include "cloudsm/qos_policy.h"
#include "cloudsm/route.h"
#include "cloudsm/sm_config.h"

enum cs_sm_file {
    CS_SM_FILE_PARTITIONS,   /* partition_config_file */
    CS_SM_FILE_ROOTS,        /* root_guid_file */
    CS_SM_FILE_CNS,          /* cn_guid_file */
    CS_SM_FILE_NODE_ORDER,   /* node_order_file */
    CS_SM_FILE_NODE_WEIGHTS, /* node_weights_file */
    CS_SM_FILE_VM_STATE,     /* vm_state_file */
    CS_SM_FILE_ADAPT_RULES,  /* adapt_rules_file */
    CS_SM_FILE_QOS_POLICY,   /* qos_policy_file */
    CS_SM_FILE_COUNT
};

struct cs_sm_files {
    /* partition_config_file: Default only (ALL=full) when none is configured, or when the one
     * configured does not exist (OpenSM does the same); partitions_missing says which. */
    struct cs_partitions partitions;
    bool partitions_missing;
    struct cs_guid_list roots, cns;     /* empty when not configured */
    struct cs_route_loaded route;       /* the routing engines' inputs (route.h) */
    struct cs_adapt_rules *adapt_rules; /* IBAdapt rules (adapt.h); NULL: none */
    /* qos_policy_file, read only with qos TRUE (OpenSM reads it in its QoS setup alone); NULL:
     * none (not configured, qos FALSE, or the file does not exist: qos_policy_missing, as
     * OpenSM, which runs without a policy then). */
    struct cs_qos_policy *qos_policy;
    bool qos_policy_missing;
    bool read[CS_SM_FILE_COUNT];            /* the file was read (configured and present) */
    uint64_t fingerprint[CS_SM_FILE_COUNT]; /* of its lines, when read */
};

/* Read and parse every file c names into f (initialised here). On failure f is empty (free
 * it or not) and err is the file's "name:line: ..." or "KEY: cannot read ...". */
int cs_sm_files_load(struct cs_sm_files *f, const struct cs_sm_config *c, struct cs_error *err);
void cs_sm_files_free(struct cs_sm_files *f);

/* Whether file differs between a and b: read in one and not the other, or other lines. */
bool cs_sm_files_differ(const struct cs_sm_files *a, const struct cs_sm_files *b,
                        enum cs_sm_file file);

/* The SM wrote file itself (at path, the one it was read from): take its new fingerprint, so
 * that a reload does not see the SM's own write as a change. */
int cs_sm_files_note_written(struct cs_sm_files *f, enum cs_sm_file file, const char *path,
                             struct cs_error *err);

/* The configuration key that names file: "partition_config_file", ... */
const char *cs_sm_file_key(enum cs_sm_file file);

#endif
