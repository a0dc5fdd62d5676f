/* The action registry (cs_adapt_actions): every action a rule's `then` can name, with its named
 * arguments. The checker types calls against it, `cloudsm adapt actions` prints it, and a unit
 * test holds docs/adapt/language.md's table to it. */
#include <string.h>

#include "cloudsm/adapt.h"

const struct cs_adapt_action_def cs_adapt_actions[] = {
    {"reroute",
     "re-route the fabric (or a sub-tree) with a routing engine",
     {{"engine", CS_ADAPT_STRING, true, "a routing engine of the registry (cloudsm route --help)"},
      {"weights", CS_ADAPT_WEIGHTS, false,
       "learned(over D): node weights from the nodes' receive rates over D"},
      {"subtree", CS_ADAPT_NODE_LIST, false,
       "top(node.METRIC, N): re-route only the sub-tree of these nodes (engines that can)"},
      {"order", CS_ADAPT_STRING, false, "a node-order file (port GUIDs, most important first)"}}},
    {"set_policy",
     "change a partition's isolation policy",
     {{"partition", CS_ADAPT_STRING, true, "the partition's name"},
      {"isolation", CS_ADAPT_STRING, true, "phy, vlane or def (as partitions.conf writes it)"}}},
    {"migrate",
     "migrate a VM",
     {{"vm", CS_ADAPT_STRING, true, "the VM's name"},
      {"to", CS_ADAPT_STRING, true, "the hypervisor to move it to"}}},
    {"set",
     "give a parameter a new value",
     {{"param", CS_ADAPT_PARAM, true, "the parameter, by name"},
      {"value", CS_ADAPT_ANY, true, "its new value, of the parameter's type"}}},
    {"log",
     "write a message to the adaptation log",
     {{"message", CS_ADAPT_STRING, true, "the text"}}},
    {NULL, NULL, {{NULL, 0, false, NULL}}},
};

const struct cs_adapt_action_def *cs_adapt_action_find(const char *name)
{
    for (const struct cs_adapt_action_def *a = cs_adapt_actions; a->name; a++)
        if (strcmp(a->name, name) == 0)
            return a;
    return NULL;
}
