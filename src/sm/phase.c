/* Shared by the SM core's programming phases (src/sm/phase.h). */
#include "sm/phase.h"

#include <string.h>

int cs_sm_submit_dr(struct cs_smp_pipe *pipe, uint8_t method, uint16_t attr, uint32_t mod,
                    const struct cs_dr_path *path, const uint8_t *data, cs_smp_done_fn done,
                    void *arg, struct cs_error *err)
{
    struct cs_smp smp;
    if (cs_smp_init_directed(&smp, method, attr, mod, path->port, path->hops, 0, err) < 0)
        return -1;
    if (data != NULL)
        memcpy(smp.data, data, CS_SMP_DATA_SIZE);
    return cs_smp_pipe_submit(pipe, &smp, CS_SMP_PERMISSIVE_LID, done, arg, err);
}

static const char *attr_name(uint16_t attr)
{
    switch (attr) {
    case CS_SMP_ATTR_NODE_INFO:
        return "NodeInfo";
    case CS_SMP_ATTR_PORT_INFO:
        return "PortInfo";
    case CS_SMP_ATTR_SWITCH_INFO:
        return "SwitchInfo";
    case CS_SMP_ATTR_PKEY_TABLE:
        return "P_KeyTable";
    case CS_SMP_ATTR_LINEAR_FT:
        return "LinearForwardingTable";
    case CS_SMP_ATTR_SL2VL_TABLE:
        return "SL2VLMappingTable";
    case CS_SMP_ATTR_VL_ARBITRATION:
        return "VLArbitrationTable";
    case CS_SMP_ATTR_GUID_INFO:
        return "GUIDInfo";
    default:
        return "SMP";
    }
}

bool cs_sm_smp_failed(const struct cs_sm_sweep *s, const struct cs_log *log, uint32_t node,
                      enum cs_smp_result result, const struct cs_smp *req,
                      const struct cs_smp *reply)
{
    if (result == CS_SMP_OK)
        return false;
    char pathbuf[4 * CS_SMP_PATH_SIZE];
    struct cs_dr_path path = {.hops = req->hop_count};
    memcpy(path.port, req->initial_path, sizeof(path.port));
    const struct cs_node *n = &s->fabric.nodes[node];
    const char *how = result == CS_SMP_TIMEOUT ? "no answer" : "refused";
    cs_logf(log, CS_LOG_WARN, "%s %s(%u) to 0x%016llx \"%s\" (DR path %s): %s (status 0x%04x)",
            req->method == CS_SMP_METHOD_SET ? "Set" : "Get", attr_name(req->attr_id),
            req->attr_mod, (unsigned long long)n->guid, n->desc,
            cs_dr_path_format(&path, pathbuf, sizeof(pathbuf)), how,
            reply ? reply->status & CS_SMP_STATUS_CODE_MASK : 0);
    return true;
}

bool cs_sm_end_port(const struct cs_sm_sweep *s, uint32_t slot)
{
    const struct cs_port *port = &s->fabric.ports[slot];
    if (port->guid == 0)
        return false;
    if (cs_node_is_switch(&s->fabric.nodes[port->node]))
        return port->num == 0 && s->port_info_valid[slot];
    return port->num != 0;
}
