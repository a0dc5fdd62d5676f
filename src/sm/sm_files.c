/* The files a cloudsmd configuration names (include/cloudsm/sm_files.h). */
#include "cloudsm/sm_files.h"

#include "cloudsm/adapt.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/text.h"

static const char *const file_keys[CS_SM_FILE_COUNT] = {
    [CS_SM_FILE_PARTITIONS] = "partition_config_file",
    [CS_SM_FILE_ROOTS] = "root_guid_file",
    [CS_SM_FILE_CNS] = "cn_guid_file",
    [CS_SM_FILE_NODE_ORDER] = "node_order_file",
    [CS_SM_FILE_NODE_WEIGHTS] = "node_weights_file",
    [CS_SM_FILE_VM_STATE] = "vm_state_file",
    [CS_SM_FILE_ADAPT_RULES] = "adapt_rules_file",
    [CS_SM_FILE_QOS_POLICY] = "qos_policy_file",
};

const char *cs_sm_file_key(enum cs_sm_file file)
{
    return (unsigned)file < CS_SM_FILE_COUNT ? file_keys[file] : "?";
}

void cs_sm_files_free(struct cs_sm_files *f)
{
    cs_partitions_free(&f->partitions);
    cs_guid_list_free(&f->roots);
    cs_guid_list_free(&f->cns);
    cs_route_loaded_free(&f->route);
    cs_adapt_rules_free(f->adapt_rules);
    cs_qos_policy_free(f->qos_policy);
    memset(f, 0, sizeof *f);
}

/* The file's fingerprint, then its contents through read (a streaming reader). A file that
 * cannot be opened is "KEY: why"; a bad one is the reader's "path:line: what". */
static int read_file(struct cs_sm_files *f, enum cs_sm_file file, const char *path, void *out,
                     int (*read)(void *out, const char *path, struct cs_error *err),
                     struct cs_error *err)
{
    struct cs_error why;
    if (cs_text_fingerprint(path, &f->fingerprint[file], &why) < 0) {
        /* A bad line ("path:N: ...") names its place already; a file that cannot be read is
         * named by the key that points at it. */
        size_t n = strlen(path);
        if (strncmp(why.msg, path, n) == 0 && why.msg[n] == ':' &&
            isdigit((unsigned char)why.msg[n + 1]))
            return cs_fail(err, "%s", why.msg);
        return cs_fail(err, "%s: %s", file_keys[file], why.msg);
    }
    f->read[file] = true;
    return read(out, path, err);
}

static int read_partitions(void *out, const char *path, struct cs_error *err)
{
    return cs_partitions_read(out, path, err);
}

static int read_guid_list(void *out, const char *path, struct cs_error *err)
{
    return cs_guid_list_read(out, path, err);
}

/* The routing engines' files go through their one loader (route.h). */
static int read_node_order(void *out, const char *path, struct cs_error *err)
{
    return cs_route_files_load(&(struct cs_route_files){.node_order_file = path}, out, err);
}

static int read_node_weights(void *out, const char *path, struct cs_error *err)
{
    return cs_route_files_load(&(struct cs_route_files){.node_weights_file = path}, out, err);
}

static int read_vm_state(void *out, const char *path, struct cs_error *err)
{
    return cs_route_files_load(&(struct cs_route_files){.vm_state_file = path}, out, err);
}

static int read_adapt_rules(void *out, const char *path, struct cs_error *err)
{
    return cs_adapt_read(path, out, err);
}

static int read_qos_policy(void *out, const char *path, struct cs_error *err)
{
    return cs_qos_policy_read(path, out, err);
}

static int load(struct cs_sm_files *f, const struct cs_sm_config *c, struct cs_error *err)
{
    const char *path = c->partition_config_file;
    struct stat st;
    f->partitions_missing = path[0] && stat(path, &st) < 0 && errno == ENOENT;
    if (!path[0] || f->partitions_missing) {
        if (cs_partitions_init(&f->partitions, err) < 0)
            return -1;
    } else if (read_file(f, CS_SM_FILE_PARTITIONS, path, &f->partitions, read_partitions, err) <
               0) {
        return -1;
    }
    if (c->root_guid_file[0] &&
        read_file(f, CS_SM_FILE_ROOTS, c->root_guid_file, &f->roots, read_guid_list, err) < 0)
        return -1;
    if (c->cn_guid_file[0] &&
        read_file(f, CS_SM_FILE_CNS, c->cn_guid_file, &f->cns, read_guid_list, err) < 0)
        return -1;
    if (c->node_order_file[0] && read_file(f, CS_SM_FILE_NODE_ORDER, c->node_order_file, &f->route,
                                           read_node_order, err) < 0)
        return -1;
    if (c->node_weights_file[0] && read_file(f, CS_SM_FILE_NODE_WEIGHTS, c->node_weights_file,
                                             &f->route, read_node_weights, err) < 0)
        return -1;
    /* The VMs: the file configured (it must exist), or the one the SM keeps in its state
     * directory (none yet: no VMs). */
    char vms[CS_SM_CONFIG_PATH_MAX + 8];
    cs_sm_config_vm_state_path(c, vms, sizeof vms);
    if ((c->vm_state_file[0] || stat(vms, &st) == 0) &&
        read_file(f, CS_SM_FILE_VM_STATE, vms, &f->route, read_vm_state, err) < 0)
        return -1;
    if (c->adapt_rules_file[0] && read_file(f, CS_SM_FILE_ADAPT_RULES, c->adapt_rules_file,
                                            &f->adapt_rules, read_adapt_rules, err) < 0)
        return -1;
    path = c->qos_policy_file;
    f->qos_policy_missing = c->qos && path[0] && stat(path, &st) < 0 && errno == ENOENT;
    if (c->qos && path[0] && !f->qos_policy_missing &&
        read_file(f, CS_SM_FILE_QOS_POLICY, path, &f->qos_policy, read_qos_policy, err) < 0)
        return -1;
    return 0;
}

int cs_sm_files_load(struct cs_sm_files *f, const struct cs_sm_config *c, struct cs_error *err)
{
    memset(f, 0, sizeof *f);
    if (load(f, c, err) == 0)
        return 0;
    cs_sm_files_free(f);
    return -1;
}

int cs_sm_files_note_written(struct cs_sm_files *f, enum cs_sm_file file, const char *path,
                             struct cs_error *err)
{
    if (cs_text_fingerprint(path, &f->fingerprint[file], err) < 0)
        return -1;
    f->read[file] = true;
    return 0;
}

bool cs_sm_files_differ(const struct cs_sm_files *a, const struct cs_sm_files *b,
                        enum cs_sm_file file)
{
    if (!a->read[file] || !b->read[file])
        return a->read[file] != b->read[file];
    return a->fingerprint[file] != b->fingerprint[file];
}
