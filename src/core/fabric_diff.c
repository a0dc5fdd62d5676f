#include "cloudsm/fabric_diff.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void note(struct cs_fabric_diff *d, uint32_t *counter, const char *fmt, ...) CS_PRINTF(3, 4);

static void note(struct cs_fabric_diff *d, uint32_t *counter, const char *fmt, ...)
{
    (*counter)++;
    d->differences++;
    if (d->num_examples >= CS_FABRIC_DIFF_EXAMPLES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->examples[d->num_examples++], sizeof d->examples[0], fmt, ap);
    va_end(ap);
}

/* Where a port's cable leads, as (node GUID, port number); (0, 0) when unconnected. */
static void peer_of(const struct cs_fabric *f, uint32_t port, uint64_t *guid, unsigned *num)
{
    uint32_t peer = f->ports[port].peer;
    *guid = peer == CS_NONE ? 0 : f->nodes[f->ports[peer].node].guid;
    *num = peer == CS_NONE ? 0 : f->ports[peer].num;
}

static void compare_ports(const struct cs_fabric *a, const struct cs_fabric *b, uint32_t na,
                          uint32_t nb, const struct cs_fabric_diff_options *opt,
                          struct cs_fabric_diff *d)
{
    const struct cs_node *node = &a->nodes[na];
    unsigned ports =
        node->num_ports < b->nodes[nb].num_ports ? node->num_ports : b->nodes[nb].num_ports;
    for (unsigned p = 0; p <= ports; p++) {
        const struct cs_port *pa = &a->ports[a->nodes[na].first_port + p];
        const struct cs_port *pb = &b->ports[b->nodes[nb].first_port + p];
        if (pa->guid != pb->guid)
            note(d, &d->ports_changed,
                 "0x%016" PRIx64 "[%u]: port GUID 0x%016" PRIx64 " vs 0x%016" PRIx64, node->guid, p,
                 pa->guid, pb->guid);
        if (opt && opt->lids && (pa->lid != pb->lid || pa->lmc != pb->lmc))
            note(d, &d->ports_changed, "0x%016" PRIx64 "[%u]: LID %u vs %u", node->guid, p, pa->lid,
                 pb->lid);
        if (opt && opt->rates && (pa->width != pb->width || pa->speed != pb->speed))
            note(d, &d->ports_changed, "0x%016" PRIx64 "[%u]: rate %ux%s vs %ux%s", node->guid, p,
                 pa->width, cs_link_speed_name((enum cs_link_speed)pa->speed), pb->width,
                 cs_link_speed_name((enum cs_link_speed)pb->speed));
        uint64_t ga, gb;
        unsigned qa, qb;
        peer_of(a, a->nodes[na].first_port + p, &ga, &qa);
        peer_of(b, b->nodes[nb].first_port + p, &gb, &qb);
        if (ga != gb || qa != qb)
            note(d, &d->ports_relinked,
                 "0x%016" PRIx64 "[%u]: cabled to 0x%016" PRIx64 "[%u] vs 0x%016" PRIx64 "[%u]",
                 node->guid, p, ga, qa, gb, qb);
    }
}

int cs_fabric_diff(const struct cs_fabric *a, const struct cs_fabric *b,
                   const struct cs_fabric_diff_options *opt, struct cs_fabric_diff *d,
                   struct cs_error *err)
{
    memset(d, 0, sizeof *d);
    struct cs_key_index ia, ib;
    if (cs_key_index_nodes(&ia, a, err) < 0)
        return -1;
    if (cs_key_index_nodes(&ib, b, err) < 0) {
        cs_key_index_free(&ia);
        return -1;
    }
    for (uint32_t na = 0; na < a->num_nodes; na++) {
        const struct cs_node *x = &a->nodes[na];
        uint32_t nb = cs_key_index_find(&ib, x->guid);
        if (nb == CS_NONE) {
            note(d, &d->nodes_only_a, "0x%016" PRIx64 " '%s': only in the first", x->guid, x->desc);
            continue;
        }
        const struct cs_node *y = &b->nodes[nb];
        if (x->type != y->type || x->num_ports != y->num_ports)
            note(d, &d->nodes_changed, "0x%016" PRIx64 ": %s with %u ports vs %s with %u ports",
                 x->guid, cs_node_type_long_name((enum cs_node_type)x->type), x->num_ports,
                 cs_node_type_long_name((enum cs_node_type)y->type), y->num_ports);
        if (x->sysimg_guid != y->sysimg_guid)
            note(d, &d->nodes_changed,
                 "0x%016" PRIx64 ": system image GUID 0x%016" PRIx64 " vs 0x%016" PRIx64, x->guid,
                 x->sysimg_guid, y->sysimg_guid);
        if (strcmp(x->desc, y->desc) != 0)
            note(d, &d->nodes_changed, "0x%016" PRIx64 ": description '%s' vs '%s'", x->guid,
                 x->desc, y->desc);
        compare_ports(a, b, na, nb, opt, d);
    }
    for (uint32_t nb = 0; nb < b->num_nodes; nb++)
        if (cs_key_index_find(&ia, b->nodes[nb].guid) == CS_NONE)
            note(d, &d->nodes_only_b, "0x%016" PRIx64 " '%s': only in the second",
                 b->nodes[nb].guid, b->nodes[nb].desc);
    cs_key_index_free(&ia);
    cs_key_index_free(&ib);
    return 0;
}
