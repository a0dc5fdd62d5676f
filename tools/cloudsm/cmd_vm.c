/* cloudsm vm plan: create, destroy or migrate a VM offline (include/cloudsm/vm_plan.h). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/analyze.h"
#include "cloudsm/json.h"
#include "cloudsm/lft_io.h"
#include "cloudsm/topo_io.h"
#include "cloudsm/vm_plan.h"
#include "routed.h"

enum { EXIT_PROBLEMS = 3 };

static const char plan_help[] =
    "usage: cloudsm vm plan create|destroy|migrate TOPOLOGY LFTS VMS --vm NAME\n"
    "                       [--to GUID] [--vf K] [--vguid GUID] [--method itrc|ftreeminrc]\n"
    "                       [--port255] [-o LFTS_OUT] [--format osm|ibroute]\n"
    "                       [--state-out VMS_OUT] [--guid2lid FILE] [--check-transition]\n"
    "                       [--json]\n"
    "\n"
    "Plan one VM operation on a vSwitch fabric (hypervisors: switches with one uplink and VFs\n"
    "below, docs/vswitch.md): the LFT entries that change, on which switches, and the SMPs in\n"
    "the order they are sent. Nothing is sent; the new tables and VM state can be written.\n"
    "With lid_policy shared-port (for contrast: what SR-IOV hardware does) the hypervisors are\n"
    "HCAs (CA node GUIDs) whose VMs share the HCA's LID: no LFT changes, one vGUID SMP per HCA\n"
    "involved, and a migrated VM takes the destination HCA's LID (lid_changed).\n"
    "\n"
    "  create    the VM takes a VF (--to, --vf: the lowest free one if not given) and --vguid.\n"
    "            prepopulated: the VF's LID, no LFT change; dynamic: the lowest free LID,\n"
    "            copied from the hypervisor's PF entry on every physical switch\n"
    "  destroy   prepopulated: the VF keeps its LID; dynamic: the LID is freed, switch\n"
    "            entries are left (no LFT SMP), the vSwitch drops it\n"
    "  migrate   to hypervisor --to (VF --vf or the lowest free). prepopulated: the VM's\n"
    "            LID swaps entries with the destination VF's (1 or 2 blocks per switch);\n"
    "            dynamic: the VM's entry is copied from the destination PF's (1 block)\n"
    "\n"
    "TOPOLOGY is the fabric (ibnetdiscover form); LFTS an LFT dump of it; VMS the VM state\n"
    "(docs/formats/vms.md), whose lid_policy decides swap or copy. The LIDs in use are the\n"
    "dump's (the port GUID behind each LID, kept current by -o), or --guid2lid's; with\n"
    "dynamic LIDs a VF without a VM has none (a LID the inputs give it is dropped).\n"
    "\n"
    "  --vm NAME           the VM\n"
    "  --to GUID           destination hypervisor (its vSwitch's node GUID)\n"
    "  --vf K              destination VF (1-based)\n"
    "  --vguid GUID        create: the VM's virtual port GUID\n"
    "  --method M          itrc: every physical switch (Paper II's Algorithm 1); ftreeminrc:\n"
    "                      only the sub-trees the migration touches, switches on the active\n"
    "                      routes first (Paper V). Default itrc. A dynamic create is itrc.\n"
    "  --port255           first set the VM's LID to port 255 on every switch to update\n"
    "                      (one more SMP per switch), then the new entries\n"
    "  -o FILE             write the new LFTs (atomically); --format osm (default) or ibroute\n"
    "  --state-out FILE    write the new VM state (atomically)\n"
    "  --guid2lid FILE     the LIDs in use from OpenSM's guid2lid file\n"
    "  --check-transition  check each phase of the plan (invalidations, destination\n"
    "                      hypervisor, LFT blocks, source hypervisor) for credit loops with\n"
    "                      its old and new entries together, as lft check does, on the\n"
    "                      traffic of the VMs and other CAs; exit 3 if one is possible\n"
    "                      (nothing is written then)\n"
    "  --json              one JSON object: op, vm, method, lid_policy, lid, lid_changed,\n"
    "                      lid_before, switches_selected,\n"
    "                      switches_active, switches_updated, lft_smps, port255_smps,\n"
    "                      hypervisor_smps, total_smps, smps [...], transition {phases,\n"
    "                      lids_changing, credit_loop, loop_phase}\n"
    "\n"
    "exit status: 0 planned, 1 failed (bad input: file:line: what), 2 bad usage, 3 the\n"
    "transition check found a credit loop\n"
    "\n"
    "examples:\n"
    "  cloudsm vm plan migrate fabric.topo lfts.dump vms --vm web-1 --to 0x0010000000000200\n"
    "  cloudsm vm plan migrate fabric.topo lfts.dump vms --vm web-1 --to 0x0010000000000200 \\\n"
    "      --method ftreeminrc --port255 -o lfts.new --state-out vms.new --json\n"
    "  cloudsm vm plan create fabric.topo lfts.dump vms --vm db-2 --to 0x0010000000000100 \\\n"
    "      --vguid 0x0200000000000002\n"
    "  cloudsm vm plan destroy fabric.topo lfts.dump vms --vm db-2 --state-out vms\n";

/* A GUID: a 64-bit number other than 0. */
static bool parse_guid(const char *text, uint64_t *out)
{
    return cli_parse_u64(text, out) && *out != 0;
}

/* Topology, LFTs and the LIDs in use: guid2lid's, else the dump's (the topology's own LIDs are
 * dropped: after a migration the dump is what is current). */
static int load_fabric(struct cs_fabric *f, struct cs_lfts *t, const char *topology,
                       const char *lfts, const char *guid2lid, struct cs_error *err)
{
    cs_fabric_init(f);
    memset(t, 0, sizeof *t);
    if (cs_topo_read(f, topology, err) < 0 || cs_lfts_read(t, lfts, err) < 0)
        return -1;
    for (uint32_t p = 0; p < f->num_port_slots; p++)
        f->ports[p].lid = 0;
    if (guid2lid)
        return apply_guid2lid_file(f, guid2lid, err);
    return cs_lids_from_lfts(f, t, err) < 0 ? -1 : 0;
}

static const char *table_desc(const struct cs_lfts *t, uint32_t table)
{
    return t->switches[table].desc;
}

static void print_text(const struct cs_fabric *f, const struct cs_lfts *t,
                       const struct cs_plan *plan, const char *op, const char *vm,
                       enum cs_plan_method method, enum cs_lid_policy policy,
                       const struct cs_plan_transition *check)
{
    printf("vm plan %s %s: %s LIDs, %s\n", op, vm, cs_lid_policy_name(policy),
           cs_plan_method_name(method));
    if (plan->vm_lid_before && plan->vm_lid_after && plan->vm_lid_before != plan->vm_lid_after)
        printf("VM LID        %u -> %u: changed (its peers' path records are stale)\n",
               plan->vm_lid_before, plan->vm_lid_after);
    printf("switches      %u selected, %u on active routes, %u updated\n", plan->switches_selected,
           plan->switches_active, plan->switches_updated);
    printf("smps          %" PRIu64 " total: %" PRIu64 " lft, %" PRIu64 " port255, %" PRIu64
           " hypervisor\n",
           cs_plan_total_smps(plan), plan->lft_smps, plan->port255_smps, plan->hypervisor_smps);
    for (uint32_t i = 0; i < plan->count; i++) {
        const struct cs_plan_smp *smp = &plan->smps[i];
        printf("%5u  %-11s ", i + 1, cs_plan_smp_kind_name((enum cs_plan_smp_kind)smp->kind));
        if (smp->table != CS_NONE) {
            printf("switch 0x%016" PRIx64 " '%s' block %u (LIDs %u-%u): LID %u, %u entr%s%s\n",
                   t->switches[smp->table].guid, table_desc(t, smp->table), smp->block,
                   smp->block * CS_LFT_BLOCK, smp->block * CS_LFT_BLOCK + CS_LFT_BLOCK - 1,
                   smp->lid, smp->entries, smp->entries == 1 ? "y" : "ies",
                   smp->active_route ? ", active route" : "");
        } else {
            const struct cs_node *node = &f->nodes[smp->node];
            printf("hypervisor 0x%016" PRIx64 " '%s' VF %u", node->guid, node->desc, smp->vf);
            if (smp->kind == CS_PLAN_SMP_VGUID_SET || smp->kind == CS_PLAN_SMP_VGUID_UNSET)
                printf(" vGUID 0x%016" PRIx64 "\n", smp->vguid);
            else
                printf(" LID %u\n", smp->lid);
        }
    }
    if (check && check->loop_phase != CS_NONE)
        printf("transition    %u phases: CREDIT LOOP possible in phase %u (its old and new "
               "entries together)\n",
               check->phases, check->loop_phase + 1);
    else if (check)
        printf("transition    %u phases, %u changing LID%s: no credit loop\n", check->phases,
               check->lids_changing, check->lids_changing == 1 ? "" : "s");
}

static void print_json(const struct cs_fabric *f, const struct cs_lfts *t,
                       const struct cs_plan *plan, const char *op, const char *vm,
                       enum cs_plan_method method, enum cs_lid_policy policy,
                       const struct cs_plan_transition *check)
{
    /* The VM's LID after the plan; a destroyed VM's, the one it had. */
    uint16_t lid = plan->vm_lid_after ? plan->vm_lid_after : plan->vm_lid_before;
    struct cs_json j;
    cs_json_init(&j, stdout);
    cs_json_object_begin(&j, NULL);
    cs_json_str(&j, "op", op);
    cs_json_str(&j, "vm", vm);
    cs_json_str(&j, "method", cs_plan_method_name(method));
    cs_json_str(&j, "lid_policy", cs_lid_policy_name(policy));
    cs_json_u64(&j, "lid", lid);
    cs_json_bool(&j, "lid_changed",
                 plan->vm_lid_before && plan->vm_lid_after &&
                     plan->vm_lid_before != plan->vm_lid_after);
    cs_json_u64(&j, "lid_before", plan->vm_lid_before);
    cs_json_u64(&j, "switches_selected", plan->switches_selected);
    cs_json_u64(&j, "switches_active", plan->switches_active);
    cs_json_u64(&j, "switches_updated", plan->switches_updated);
    cs_json_u64(&j, "lft_smps", plan->lft_smps);
    cs_json_u64(&j, "port255_smps", plan->port255_smps);
    cs_json_u64(&j, "hypervisor_smps", plan->hypervisor_smps);
    cs_json_u64(&j, "total_smps", cs_plan_total_smps(plan));
    cs_json_array_begin(&j, "smps");
    for (uint32_t i = 0; i < plan->count; i++) {
        const struct cs_plan_smp *smp = &plan->smps[i];
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "kind", cs_plan_smp_kind_name((enum cs_plan_smp_kind)smp->kind));
        if (smp->table != CS_NONE) {
            cs_json_guid(&j, "switch", t->switches[smp->table].guid);
            cs_json_str(&j, "desc", table_desc(t, smp->table));
            cs_json_u64(&j, "block", smp->block);
            cs_json_u64(&j, "lid", smp->lid);
            cs_json_u64(&j, "entries", smp->entries);
            cs_json_bool(&j, "active_route", smp->active_route);
        } else {
            const struct cs_node *node = &f->nodes[smp->node];
            cs_json_guid(&j, "hypervisor", node->guid);
            cs_json_str(&j, "desc", node->desc);
            cs_json_u64(&j, "vf", smp->vf);
            if (smp->kind == CS_PLAN_SMP_VGUID_SET || smp->kind == CS_PLAN_SMP_VGUID_UNSET)
                cs_json_guid(&j, "vguid", smp->vguid);
            else
                cs_json_u64(&j, "lid", smp->lid);
        }
        cs_json_object_end(&j);
    }
    cs_json_array_end(&j);
    if (check) {
        cs_json_object_begin(&j, "transition");
        cs_json_u64(&j, "phases", check->phases);
        cs_json_u64(&j, "lids_changing", check->lids_changing);
        cs_json_bool(&j, "credit_loop", check->loop_phase != CS_NONE);
        if (check->loop_phase != CS_NONE)
            cs_json_u64(&j, "loop_phase", check->loop_phase + 1);
        cs_json_object_end(&j);
    }
    cs_json_object_end(&j);
    cs_json_finish(&j);
}

/* The plan's phases, each with its old and new entries together (cs_plan_check_transition). */
static int check_transition(const struct cs_fabric *f, const struct cs_hypervisors *h,
                            const struct cs_switch_tree *tr, const struct cs_lfts *new_set,
                            const char *old_path, const struct cs_plan *plan,
                            const struct cs_vm_state *s, struct cs_plan_transition *tx,
                            struct cs_error *err)
{
    struct cs_lfts old_set;
    if (cs_lfts_read(&old_set, old_path, err) < 0)
        return -1;
    int rc = cs_plan_check_transition(f, h, tr, &old_set, new_set, plan, s, tx, err);
    cs_lfts_free(&old_set);
    return rc;
}

static int vm_plan(int argc, char **argv)
{
    const char *who = argv[0];
    const char *vm = NULL, *out = NULL, *state_out = NULL, *guid2lid = NULL;
    struct cs_vm_request req = {0};
    enum cs_plan_method method = CS_PLAN_ITRC;
    bool port255 = false, as_json = false, check = false;
    int format = CS_LFT_FORMAT_OSM;
    unsigned value;
    static const struct option options[] = {
        {"vm", required_argument, NULL, 'n'},       {"to", required_argument, NULL, 't'},
        {"vf", required_argument, NULL, 'v'},       {"vguid", required_argument, NULL, 'g'},
        {"method", required_argument, NULL, 'm'},   {"port255", no_argument, NULL, 'p'},
        {"format", required_argument, NULL, 'f'},   {"state-out", required_argument, NULL, 's'},
        {"guid2lid", required_argument, NULL, 'l'}, {"check-transition", no_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},           {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "o:", options, NULL)) != -1) {
        switch (opt) {
        case 'n':
            vm = optarg;
            break;
        case 't':
            if (!parse_guid(optarg, &req.hypervisor))
                return cli_usage(who, "--to wants a node GUID, not '%s'", optarg);
            break;
        case 'v':
            if (!cli_parse_uint(optarg, 1, CS_VFS_MAX, &value))
                return cli_usage(who, "--vf wants 1 to %u, not '%s'", CS_VFS_MAX, optarg);
            req.vf = (uint8_t)value;
            break;
        case 'g':
            if (!parse_guid(optarg, &req.vguid))
                return cli_usage(who, "--vguid wants a GUID (not 0), not '%s'", optarg);
            break;
        case 'm':
            if (cs_plan_method_parse(optarg, &method) < 0)
                return cli_usage(who, "--method wants itrc or ftreeminrc, not '%s'", optarg);
            break;
        case 'p':
            port255 = true;
            break;
        case 'o':
            out = optarg;
            break;
        case 'f':
            format = cs_lft_format_parse(optarg);
            if (format < 0)
                return cli_usage(who, "--format wants osm or ibroute, not '%s'", optarg);
            break;
        case 's':
            state_out = optarg;
            break;
        case 'l':
            guid2lid = optarg;
            break;
        case 'c':
            check = true;
            break;
        case 'j':
            as_json = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (argc - optind != 4)
        return cli_usage(who, "wants an operation and three files: create|destroy|migrate "
                              "TOPOLOGY LFTS VMS");
    const char *op = argv[optind];
    enum cs_vm_op parsed;
    if (cs_vm_op_parse(op, &parsed) < 0)
        return cli_usage(who, "the operation is create, destroy or migrate, not '%s'", op);
    req.op = (uint8_t)parsed;
    if (!vm)
        return cli_usage(who, "--vm NAME names the VM");
    if (req.op != CS_VM_DESTROY && !req.hypervisor)
        return cli_usage(who, "%s wants --to GUID (the hypervisor)", op);
    if (req.op == CS_VM_CREATE && !req.vguid)
        return cli_usage(who, "create wants --vguid GUID");
    req.name = vm;
    const char *topology = argv[optind + 1], *lfts = argv[optind + 2], *vms = argv[optind + 3];

    struct cs_error err;
    struct cs_fabric fabric;
    struct cs_lfts tables;
    struct cs_vm_state state;
    struct cs_hypervisors hyps = {0};
    struct cs_switch_tree tree = {0};
    struct cs_plan plan;
    struct cs_plan_transition transition = {0};
    cs_plan_init(&plan);
    cs_vm_state_init(&state);
    int rc = EXIT_FAILED;
    struct cs_vm_plan_options popt = {.method = (uint8_t)method, .port255 = port255};
    if (load_fabric(&fabric, &tables, topology, lfts, guid2lid, &err) < 0 ||
        cs_vm_state_read(&state, vms, &err) < 0 || cs_hypervisors_find(&fabric, &hyps, &err) < 0) {
        rc = cli_fail(who, &err);
        goto done;
    }
    if (state.lid_policy == CS_LID_DYNAMIC)
        cs_vm_plan_drop_idle_vf_lids(&fabric, &hyps, &state, &tables);
    if (cs_vm_state_check(&state, &fabric, &hyps, vms, &err) < 0 ||
        cs_switch_tree_init(&tree, &fabric, &hyps, &tables, &err) < 0 ||
        cs_vm_plan_run(&fabric, &hyps, &tree, &tables, &state, &req, &popt, &plan, &err) < 0 ||
        (check && check_transition(&fabric, &hyps, &tree, &tables, lfts, &plan, &state, &transition,
                                   &err) < 0)) {
        rc = cli_fail(who, &err);
        goto done;
    }
    if (check && transition.loop_phase != CS_NONE) {
        rc = EXIT_PROBLEMS;
    } else if ((out && cs_lfts_write_file(out, &tables, (enum cs_lft_format)format, &err) < 0) ||
               (state_out && cs_vm_state_write_file(state_out, &state, &err) < 0)) {
        rc = cli_fail(who, &err);
        goto done;
    } else {
        rc = EXIT_OK;
    }
    if (as_json)
        print_json(&fabric, &tables, &plan, op, vm, method, state.lid_policy,
                   check ? &transition : NULL);
    else
        print_text(&fabric, &tables, &plan, op, vm, method, state.lid_policy,
                   check ? &transition : NULL);
done:
    cs_plan_free(&plan);
    cs_switch_tree_free(&tree);
    cs_hypervisors_free(&hyps);
    cs_vm_state_free(&state);
    cs_lfts_free(&tables);
    cs_fabric_free(&fabric);
    return rc;
}

const struct cli_command cli_vm_commands[] = {
    {"vm", "plan", "plan a VM create, destroy or migration: LFT and hypervisor SMPs", plan_help,
     vm_plan},
    {"vm", "sim", "the migration simulator: ItRC vs FTreeMinRC, bisect vs vftree (Paper V)",
     cli_vm_sim_help, cli_vm_sim},
    {"vm", "create", "start a VM on the running cloudsmd (a few SMPs)", cli_vm_create_help,
     cli_vm_live},
    {"vm", "migrate", "move a VM live, its LID and vGUID with it (a few SMPs)", cli_vm_migrate_help,
     cli_vm_live},
    {"vm", "destroy", "stop a VM on the running cloudsmd", cli_vm_destroy_help, cli_vm_live},
    {"vm", "list", "the VMs the running cloudsmd holds", cli_vm_list_help, cli_vm_live},
    {"vm", NULL, NULL, NULL, NULL},
};
