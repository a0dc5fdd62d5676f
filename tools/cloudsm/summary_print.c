/* The fabric summary, text or JSON (summary_print.h). */
#include "summary_print.h"

#include "cloudsm/json.h"

void summary_print(FILE *out, const char *name, const struct cs_fabric_summary *s, unsigned lmc,
                   bool as_json)
{
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, out);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "topology", name);
        cs_json_u64(&j, "switches", s->switches);
        cs_json_u64(&j, "cas", s->cas);
        cs_json_u64(&j, "routers", s->routers);
        cs_json_u64(&j, "hosts", s->hosts);
        cs_json_u64(&j, "links", s->links);
        cs_json_u64(&j, "switch_links", s->switch_links);
        cs_json_u64(&j, "levels", s->levels);
        cs_json_u64(&j, "leaves", s->leaves);
        cs_json_object_begin(&j, "hosts_per_leaf");
        cs_json_u64(&j, "min", s->hosts_per_leaf_min);
        cs_json_u64(&j, "max", s->hosts_per_leaf_max);
        cs_json_object_end(&j);
        cs_json_u64(&j, "unreachable_switches", s->unreachable_switches);
        cs_json_u64(&j, "lmc", lmc);
        cs_json_u64(&j, "lids", s->lids);
        cs_json_u64(&j, "lft_blocks_min", s->lft_blocks_min);
        cs_json_u64(&j, "max_lid", s->max_lid);
        if (s->vswitch.hypervisors) {
            cs_json_object_begin(&j, "vswitch");
            cs_json_u64(&j, "hypervisors", s->vswitch.hypervisors);
            cs_json_u64(&j, "vfs", s->vswitch.vfs);
            cs_json_u64(&j, "vfs_per_hypervisor_min", s->vswitch.vfs_min);
            cs_json_u64(&j, "vfs_per_hypervisor_max", s->vswitch.vfs_max);
            cs_json_u64(&j, "physical_switches", s->vswitch.physical_switches);
            cs_json_u64(&j, "lids_prepopulated", s->vswitch.lids_prepopulated);
            cs_json_u64(&j, "lids_dynamic_boot", s->vswitch.lids_dynamic_boot);
            cs_json_u64(&j, "max_hypervisors", s->vswitch.max_hypervisors);
            cs_json_u64(&j, "max_vms", s->vswitch.max_vms);
            cs_json_u64(&j, "shared_port_max_hypervisors", s->vswitch.shared_port_max_hypervisors);
            cs_json_u64(&j, "shared_port_max_vms", s->vswitch.shared_port_max_vms);
            cs_json_object_end(&j);
        }
        cs_json_object_end(&j);
        cs_json_finish(&j);
        return;
    }
    fprintf(out, "topology        %s\n", name);
    fprintf(out, "switches        %u in %u level%s (%u leaves", s->switches, s->levels,
            s->levels == 1 ? "" : "s", s->leaves);
    if (s->unreachable_switches)
        fprintf(out, ", %u unreachable from any leaf", s->unreachable_switches);
    fprintf(out, ")\n");
    fprintf(out, "CAs             %u on %u host%s", s->cas, s->hosts, s->hosts == 1 ? "" : "s");
    if (s->routers)
        fprintf(out, ", %u router%s", s->routers, s->routers == 1 ? "" : "s");
    fprintf(out, "\n");
    fprintf(out, "links           %u (%u switch-to-switch)\n", s->links, s->switch_links);
    if (s->leaves)
        fprintf(out, "hosts per leaf  %u..%u\n", s->hosts_per_leaf_min, s->hosts_per_leaf_max);
    fprintf(out, "LIDs needed     %u (LMC %u); LFT >= %u blocks of 64 per switch\n", s->lids, lmc,
            s->lft_blocks_min);
    if (s->max_lid)
        fprintf(out, "LIDs assigned   up to %u\n", s->max_lid);
    if (!s->vswitch.hypervisors)
        return;
    fprintf(out, "hypervisors     %u vSwitches on %u physical switches, %u VFs (",
            s->vswitch.hypervisors, s->vswitch.physical_switches, s->vswitch.vfs);
    if (s->vswitch.vfs_min == s->vswitch.vfs_max)
        fprintf(out, "%u each)\n", s->vswitch.vfs_max);
    else
        fprintf(out, "%u..%u each)\n", s->vswitch.vfs_min, s->vswitch.vfs_max);
    fprintf(out,
            "VM LIDs         prepopulated: %llu LIDs; dynamic: %llu at boot + 1 per running VM; "
            "shared-port: %llu (VMs share their HCA's)\n",
            (unsigned long long)s->vswitch.lids_prepopulated,
            (unsigned long long)s->vswitch.lids_dynamic_boot,
            (unsigned long long)s->vswitch.lids_dynamic_boot);
    fprintf(out,
            "subnet limit    prepopulated, %u VFs each, beside these switches: %llu hypervisors, "
            "%llu VMs (49151 unicast LIDs); shared-port: %llu hypervisors, %llu VMs\n",
            s->vswitch.vfs_max, (unsigned long long)s->vswitch.max_hypervisors,
            (unsigned long long)s->vswitch.max_vms,
            (unsigned long long)s->vswitch.shared_port_max_hypervisors,
            (unsigned long long)s->vswitch.shared_port_max_vms);
}
