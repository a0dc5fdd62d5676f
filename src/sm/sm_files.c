/* The files a cloudsmd configuration names (include/cloudsm/sm_files.h). */
#include "cloudsm/sm_files.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cloudsm/atomic_file.h"

static const char *const file_keys[CS_SM_FILE_COUNT] = {
    [CS_SM_FILE_PARTITIONS] = "partition_config_file",
    [CS_SM_FILE_ROOTS] = "root_guid_file",
    [CS_SM_FILE_CNS] = "cn_guid_file",
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
    for (int i = 0; i < CS_SM_FILE_COUNT; i++)
        free(f->text[i]);
    memset(f, 0, sizeof *f);
}

/* The file's bytes into f->text[file]; "KEY: cannot read ..." on failure. */
static int read_file(struct cs_sm_files *f, enum cs_sm_file file, const char *path,
                     struct cs_error *err)
{
    struct cs_error why;
    if (cs_read_whole_file(path, &f->text[file], &f->len[file], &why) < 0)
        return cs_fail(err, "%s: %s", file_keys[file], why.msg);
    return 0;
}

static int load(struct cs_sm_files *f, const struct cs_sm_config *c, struct cs_error *err)
{
    const char *path = c->partition_config_file;
    struct stat st;
    f->partitions_missing = path[0] && stat(path, &st) < 0 && errno == ENOENT;
    if (!path[0] || f->partitions_missing) {
        if (cs_partitions_init(&f->partitions, err) < 0)
            return -1;
    } else if (read_file(f, CS_SM_FILE_PARTITIONS, path, err) < 0 ||
               cs_partitions_parse(&f->partitions, f->text[CS_SM_FILE_PARTITIONS],
                                   f->len[CS_SM_FILE_PARTITIONS], path, err) < 0) {
        return -1;
    }
    if (c->root_guid_file[0] &&
        (read_file(f, CS_SM_FILE_ROOTS, c->root_guid_file, err) < 0 ||
         cs_guid_list_parse(&f->roots, f->text[CS_SM_FILE_ROOTS], f->len[CS_SM_FILE_ROOTS],
                            c->root_guid_file, err) < 0))
        return -1;
    if (c->cn_guid_file[0] &&
        (read_file(f, CS_SM_FILE_CNS, c->cn_guid_file, err) < 0 ||
         cs_guid_list_parse(&f->cns, f->text[CS_SM_FILE_CNS], f->len[CS_SM_FILE_CNS],
                            c->cn_guid_file, err) < 0))
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

bool cs_sm_files_differ(const struct cs_sm_files *a, const struct cs_sm_files *b,
                        enum cs_sm_file file)
{
    const char *ta = a->text[file], *tb = b->text[file];
    if (!ta || !tb)
        return ta != tb;
    return a->len[file] != b->len[file] || memcmp(ta, tb, a->len[file]) != 0;
}
