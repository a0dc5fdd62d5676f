# GUIDs of `cloudsm topo gen --vswitch` fabrics (docs/topology-generators.md), for the scripts
# that drive live VMs: hyp I is hypervisor I's node GUID (its vSwitch, what `--to` names),
# vf_guid I K the port GUID of its VF K.
hyp() { printf '0x%016x' $((0x0010000000000000 + ($1 << 8))); }
vf_guid() { printf '0x%016x' $((0x0030000000000001 + ($1 << 16) + ($2 << 8))); }
