/* QoS in the SM core (include/cloudsm/sm.h, "QoS"): with qos TRUE the SL2VL tables come from the
 * port classes' templates whatever the routing engine's SLs, and the VLArbitration tables and
 * VLHighLimit are programmed; with qos FALSE nothing here runs. */
#include "sm/core_internal.h"

#include <stdlib.h>

#include "cloudsm/mcast.h"
#include "cloudsm/sm.h"

int cs_sm_core_program_qos(struct cs_sm_core *c, struct cs_error *err)
{
    struct cs_qos_config q;
    cs_qos_resolve_all(&c->cfg.qos_general, c->cfg.qos_class, &q);
    /* The engine's partition SLs (pftree) travel on the VLs the templates give them. */
    const struct cs_partitions *parts = &c->files.partitions;
    for (uint32_t i = 0; c->routed.partition_sl && i < c->routed.num_partitions && i < parts->count;
         i++)
        if (c->routed.partition_sl[i] != 0)
            cs_logf(&c->log, CS_LOG_INFO, "qos: partition %s (0x%04x) on SL %u",
                    parts->partitions[i].name, parts->partitions[i].pkey,
                    c->routed.partition_sl[i]);
    struct cs_sm_sl2vl_counts sc;
    if (cs_sm_program_sl2vl_qos(c->pipe, &c->sweep, &q, &c->log, &sc, &c->sl2vl_held, err) < 0)
        return -1;
    struct cs_sm_vlarb_counts vc;
    if (cs_sm_program_vlarb(c->pipe, &c->sweep, &q, &c->log, &vc, err) < 0)
        return -1;
    cs_logf(&c->log, CS_LOG_INFO,
            "qos: sl2vl from the templates, %llu tables read back, %llu tables sent; vlarb: "
            "%llu blocks read back, %llu blocks sent; %llu VLHighLimit sets",
            (unsigned long long)sc.tables_read, (unsigned long long)sc.tables_sent,
            (unsigned long long)vc.blocks_read, (unsigned long long)vc.blocks_sent,
            (unsigned long long)vc.port_info_sets);
    return (int)(sc.failures + vc.failures);
}

int cs_sm_core_qos_partition_sl(struct cs_sm_core *c, const uint8_t **sl, uint32_t *count,
                                struct cs_error *err)
{
    const struct cs_partitions *parts = &c->files.partitions;
    uint8_t *sls = realloc(c->qos_sl, parts->count ? parts->count : 1);
    if (sls == NULL)
        return cs_fail(err, "out of memory for %u partition SLs", parts->count);
    c->qos_sl = sls;
    for (uint32_t i = 0; i < parts->count; i++) {
        int flag = cs_partition_flag_sl(&parts->partitions[i]);
        bool routed = c->routed.partition_sl && i < c->routed.num_partitions;
        sls[i] = flag >= 0 ? (uint8_t)flag : routed ? c->routed.partition_sl[i] : 0;
    }
    *sl = sls;
    *count = parts->count;
    return 0;
}
