/* cloudsm vm create|migrate|destroy|list: VM operations on the running cloudsmd, through its
 * control socket (the options of `cloudsm vm plan`, the socket options of `cloudsm sm`). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cloudsm/sm_control.h"

#define VM_LIVE_INTRO                                                                              \
    "The running cloudsmd plans the operation as `cloudsm vm plan` does, on the fabric, tables\n"  \
    "and VM state it holds, writes the new VM state (STATE_DIR/vms, or vm_state_file),\n"          \
    "and sends the SMPs: port-255 invalidations if asked, the destination\n"                       \
    "hypervisor's (its VF takes the LID: a PortInfo Set, and the vSwitch's LFT block), the\n"      \
    "physical switches' LFT blocks, the source hypervisor's. The answer comes when they are\n"     \
    "sent, with the SMPs by kind and the time. Operations that arrive together run together,\n"    \
    "in parallel where their sub-trees are disjoint. docs/sm/vms.md.\n"

const char cli_vm_create_help[] =
    "usage: cloudsm vm create --vm NAME --to HYPERVISOR --vguid GUID [--vf K] [options]\n"
    "\n"
    "Start a VM on a VF of hypervisor HYPERVISOR (its vSwitch's node GUID), the lowest free\n"
    "VF unless --vf. Prepopulated LIDs: it takes the VF's LID (no LFT change); dynamic: the\n"
    "lowest free LID, copied from the hypervisor's PF entry on every physical switch.\n"
    "\n" VM_LIVE_INTRO "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "example:\n"
    "  cloudsm vm create --vm web-1 --to 0x0010000000000100 --vguid 0x0200000000000001\n";

const char cli_vm_migrate_help[] =
    "usage: cloudsm vm migrate --vm NAME --to HYPERVISOR [--vf K] [--method M] [--port255]\n"
    "                          [options]\n"
    "\n"
    "Move a running VM to hypervisor HYPERVISOR (VF --vf, or the lowest free one) with its LID\n"
    "and vGUID: prepopulated LIDs swap LFT entries with the destination VF's LID (1 or 2 blocks\n"
    "per switch), dynamic ones copy the destination PF's entry (1 block).\n"
    "\n"
    "  --method M   ftreeminrc (default): the sub-trees the migration touches, the switches on\n"
    "               the active routes first (a move within a leaf: the leaf only); itrc: every\n"
    "               physical switch whose entries change\n"
    "  --port255    first drop the VM's LID (port 255) on every switch to update, then the new\n"
    "               entries: no credit loop while old and new tables mix (one more SMP per\n"
    "               switch)\n"
    "\n" VM_LIVE_INTRO "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "examples:\n"
    "  cloudsm vm migrate --vm web-1 --to 0x0010000000000200\n"
    "  cloudsm vm migrate --vm web-1 --to 0x0010000000000200 --method itrc --port255 --json\n";

const char cli_vm_destroy_help[] =
    "usage: cloudsm vm destroy --vm NAME [options]\n"
    "\n"
    "Stop a VM: its VF lets the vGUID go; prepopulated LIDs stay with the VF, a dynamic LID is\n"
    "freed (the VF gives it up; switch entries are left, the vSwitch drops it).\n"
    "\n" VM_LIVE_INTRO "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "example:\n"
    "  cloudsm vm destroy --vm web-1\n";

const char cli_vm_list_help[] =
    "usage: cloudsm vm list [options]\n"
    "\n"
    "The VMs the running cloudsmd holds: name, vGUID, LID, hypervisor, VF; the LID policy and\n"
    "how many operations it has done. The text form is the VM state file's own format.\n"
    "\n" CLI_CONTROL_OPTIONS_HELP "\n"
    "example:\n"
    "  cloudsm vm list --json | jq '.vms[] | select(.lid > 100)'\n";

int cli_vm_live(int argc, char **argv)
{
    const char *who = argv[0];
    int command = cli_control_command(who, "vm-");
    struct cli_control o = CLI_CONTROL_DEFAULTS;
    const char *vm = NULL, *to = NULL, *vguid = NULL, *vf = NULL, *method = NULL;
    bool port255 = false;
    static const struct option options[] = {
        CLI_CONTROL_LONG_OPTIONS,
        {"vm", required_argument, NULL, 'n'},
        {"to", required_argument, NULL, 't'},
        {"vguid", required_argument, NULL, 'g'},
        {"vf", required_argument, NULL, 'v'},
        {"method", required_argument, NULL, 'm'},
        {"port255", no_argument, NULL, 'p'},
        {NULL, 0, NULL, 0},
    };
    int opt, rc = EXIT_OK;
    while ((opt = cli_control_getopt(argc, argv, options, &o, who, &rc)) >= 0) {
        switch (opt) {
        case 'n':
            vm = optarg;
            break;
        case 't':
            to = optarg;
            break;
        case 'g':
            vguid = optarg;
            break;
        case 'v':
            vf = optarg;
            break;
        case 'm':
            method = optarg;
            break;
        case 'p':
            port255 = true;
            break;
        }
    }
    if (opt == CLI_CONTROL_BAD)
        return rc;
    if (optind < argc)
        return cli_usage(who, "unexpected argument '%s'", argv[optind]);
    if ((rc = cli_control_check(&o, who)) != EXIT_OK)
        return rc;
    bool creates = command == CS_SM_CMD_VM_CREATE, moves = command == CS_SM_CMD_VM_MIGRATE;
    if (command != CS_SM_CMD_VM_LIST && !vm)
        return cli_usage(who, "which VM? (--vm NAME)");
    if ((creates || moves) && !to)
        return cli_usage(who, "where to? (--to HYPERVISOR, its vSwitch's node GUID)");
    if (creates && !vguid)
        return cli_usage(who, "a new VM needs --vguid GUID");
    if ((to && !creates && !moves) || (vguid && !creates) || (vf && !creates && !moves))
        return cli_usage(who, "--to, --vf and --vguid are for create (and --to, --vf migrate)");
    if ((method || port255) && !moves)
        return cli_usage(who, "--method and --port255 are for migrate");
    /* The request's tokens: NAME HYPERVISOR [VGUID] [vf=K] [method=M] [port255]. */
    char vf_opt[32], method_opt[32];
    char *tokens[CS_SM_REQUEST_MAX_ARGS];
    int n = 0;
    if (vm)
        tokens[n++] = (char *)vm;
    if (to)
        tokens[n++] = (char *)to;
    if (vguid)
        tokens[n++] = (char *)vguid;
    if (vf) {
        snprintf(vf_opt, sizeof vf_opt, "vf=%.20s", vf);
        tokens[n++] = vf_opt;
    }
    if (method) {
        snprintf(method_opt, sizeof method_opt, "method=%.20s", method);
        tokens[n++] = method_opt;
    }
    if (port255)
        tokens[n++] = "port255";
    struct cs_sm_request req;
    if ((rc = cli_control_build(who, command, n, tokens, o.json, &req)) != EXIT_OK)
        return rc;
    return cli_control_request(who, &o, &req);
}
