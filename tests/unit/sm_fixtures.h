/* Shared by the SM core's unit tests: small generated fabrics, the ft2x2 test fabric with an SMA
 * model, and a log callback that keeps what the core logged. Header-only: each test is one file. */
#ifndef CLOUDSM_TEST_SM_FIXTURES_H
#define CLOUDSM_TEST_SM_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sm.h"
#include "cloudsm/sma_model.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/topo_io.h"

/* PGFT(3; 2,2,3; 1,2,2; 1,2,1): 12 single-port hosts (nodes 0..11), 6 leaves (12..17), 6
 * level-2 switches (18..23), 4 roots (24..27), every switch with 6 ports; two parallel cables
 * between each leaf and each of its parents. Links: 12 host + 6*2*2 leaf-up + 6*2 level-2-up
 * = 48. */
static inline void gen_pgft(struct cs_fabric *f)
{
    struct cs_pgft_spec s = {.levels = 3, .m = {2, 2, 3}, .w = {1, 2, 2}, .p = {1, 2, 1}};
    struct cs_error err;
    cs_fabric_init(f);
    if (cs_pgft_generate(f, &s, &err) != 0)
        fail_msg("%s", err.msg);
}

/* k-ary-n-tree: k^n hosts first (nodes 0..k^n-1), then n*k^(n-1) switches of 2k ports. */
static inline void gen_kary(struct cs_fabric *f, unsigned k, unsigned n)
{
    struct cs_pgft_spec s;
    struct cs_error err;
    cs_fabric_init(f);
    if (cs_pgft_kary(&s, k, n, &err) != 0 || cs_pgft_generate(f, &s, &err) != 0)
        fail_msg("%s", err.msg);
}

/* Everything the core logged, one message per line; warnings counts WARN and ERROR. */
struct log_capture {
    char *text;
    size_t len;
    unsigned warnings;
};

static inline void capture_log(void *arg, enum cs_log_level level, const char *msg)
{
    struct log_capture *c = arg;
    size_t add = strlen(msg) + 1;
    c->text = realloc(c->text, c->len + add + 1);
    assert_non_null(c->text);
    memcpy(c->text + c->len, msg, add - 1);
    c->text[c->len + add - 1] = '\n';
    c->len += add;
    c->text[c->len] = '\0';
    if (level <= CS_LOG_WARN)
        c->warnings++;
}

/* The node with this GUID in the model's fabric; the test fails if there is none. */
/* tests/data/lft/ft2x2.net read into f, and an SMA model of it with the SM on the node whose
 * GUID is sm_node (a switch of the file); the test fails if either cannot be made. */
static inline struct cs_sma_model *fx_model_ft2x2(struct cs_fabric *f, uint64_t sm_node)
{
    struct cs_error err = {""};
    cs_fabric_init(f);
    if (cs_topo_read(f, CLOUDSM_TEST_DATA "/lft/ft2x2.net", &err) != 0)
        fail_msg("%s", err.msg);
    uint32_t sm = CS_NONE;
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == sm_node)
            sm = n;
    assert_true(sm != CS_NONE);
    struct cs_sma_model *m = cs_sma_model_create(f, sm, 0, &err);
    assert_non_null(m);
    return m;
}

static inline uint32_t fx_node(const struct cs_sma_model *m, uint64_t guid)
{
    const struct cs_fabric *f = cs_sma_model_fabric(m);
    for (uint32_t n = 0; n < f->num_nodes; n++)
        if (f->nodes[n].guid == guid)
            return n;
    fail_msg("no node 0x%016llx", (unsigned long long)guid);
    return CS_NONE;
}

/* Port slot of port num of the node with this GUID in the model's fabric. */
static inline uint32_t fx_port(const struct cs_sma_model *m, uint64_t node_guid, unsigned num)
{
    return cs_sma_model_fabric(m)->nodes[fx_node(m, node_guid)].first_port + num;
}

/* How many times needle occurs in the log (0 when nothing was logged). */
static inline unsigned log_count(const struct log_capture *c, const char *needle)
{
    unsigned n = 0;
    for (const char *at = c->text; at != NULL && (at = strstr(at, needle)) != NULL; at++)
        n++;
    return n;
}

/* What the SM-core tests run on (test_perfmgr, test_sm_core_adapt, test_sm_core_standby): a
 * k-ary-n-tree with the SMA model and the SM on host 0 (port 1), a pipe with this window (5 ms
 * timeouts, one retry), the log kept in lc, and a fresh /tmp/cloudsm-test-NAME.XXXXXX state
 * directory in dir. Each test's rig starts with one of these. */
struct core_model {
    struct cs_fabric f;
    struct cs_sma_model *m;
    struct cs_smp_pipe *pipe;
    char dir[64];
    struct log_capture lc;
    struct cs_log log;
};

static inline void core_model_open(struct core_model *cm, unsigned k, unsigned n, unsigned window,
                                   const char *name)
{
    struct cs_error err = {""};
    gen_kary(&cm->f, k, n);
    cm->m = cs_sma_model_create(&cm->f, 0, 1, &err);
    assert_non_null(cm->m);
    struct cs_smp_transport t = cs_sma_model_transport(cm->m);
    struct cs_smp_pipe_options po = {.window = window, .timeout_ms = 5, .retries = 1};
    cm->pipe = cs_smp_pipe_create(&t, &po, &err);
    assert_non_null(cm->pipe);
    cm->log = (struct cs_log){.fn = capture_log, .arg = &cm->lc};
    snprintf(cm->dir, sizeof cm->dir, "/tmp/cloudsm-test-%s.XXXXXX", name);
    assert_non_null(mkdtemp(cm->dir));
}

/* Everything core_model_open made, its state directory with all that was written in it. */
static inline void core_model_close(struct core_model *cm)
{
    cs_smp_pipe_destroy(cm->pipe);
    cs_sma_model_destroy(cm->m);
    cs_fabric_free(&cm->f);
    char cmd[96];
    snprintf(cmd, sizeof cmd, "rm -rf %s", cm->dir);
    assert_int_equal(system(cmd), 0);
    free(cm->lc.text);
    cm->lc.text = NULL;
}

/* The port GUID of the SM's port (host 0, port 1). */
static inline uint64_t core_model_sm_guid(const struct core_model *cm)
{
    return cm->f.ports[cm->f.nodes[0].first_port + 1].guid;
}

#endif
