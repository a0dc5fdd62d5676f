/* The files a cloudsmd configuration names, loaded and checked together before the SM touches
 * the fabric (include/cloudsm/sm_files.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "cloudsm/sm_files.h"
#include "testlib.h"

static char dir[64];

static int setup(void **state)
{
    (void)state;
    strcpy(dir, "/tmp/cs-sm-files-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    return system(cmd);
}

/* DIR/name with text in it; the path into field (a cs_sm_config path). */
static void put_file(char *field, const char *name, const char *text)
{
    snprintf(field, CS_SM_CONFIG_PATH_MAX, "%s/%s", dir, name);
    FILE *f = fopen(field, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void load_ok(struct cs_sm_files *f, const struct cs_sm_config *c)
{
    struct cs_error err = {""};
    if (cs_sm_files_load(f, c, &err) != 0)
        fail_msg("%s", err.msg);
}

/* The error loading c gives, with f left empty. */
static const char *load_error(const struct cs_sm_config *c)
{
    static struct cs_error err;
    struct cs_sm_files f;
    if (cs_sm_files_load(&f, c, &err) == 0)
        fail_msg("loaded");
    assert_int_equal(f.partitions.count, 0);
    assert_false(f.read[CS_SM_FILE_PARTITIONS]);
    assert_int_equal(f.roots.count, 0);
    cs_sm_files_free(&f);
    return err.msg;
}

static void test_none_configured(void **state)
{
    (void)state;
    struct cs_sm_config c;
    cs_sm_config_defaults(&c);
    struct cs_sm_files f;
    load_ok(&f, &c);
    assert_int_equal(f.partitions.count, 1); /* Default */
    assert_false(f.partitions_missing);
    assert_int_equal(f.roots.count + f.cns.count, 0);
    for (int i = 0; i < CS_SM_FILE_COUNT; i++)
        assert_false(f.read[i]);
    cs_sm_files_free(&f);
}

static void test_load(void **state)
{
    (void)state;
    struct cs_sm_config c;
    cs_sm_config_defaults(&c);
    put_file(c.partition_config_file, "partitions.conf",
             "Default=0x7fff : ALL, SELF=full ;\nBlue=0x0100 : 0x0002c90000001001=full ;\n");
    put_file(c.root_guid_file, "roots", "0x0020000300000000 spine-0\n0x0020000300000001\n");
    put_file(c.cn_guid_file, "cns", "# none yet\n");
    put_file(c.node_order_file, "order", "# e, i, m\n0x400\n0x800\n0xc00\n");
    put_file(c.node_weights_file, "weights", "0x401 100\n0x801 7 # a storage node\n");
    put_file(c.vm_state_file, "vms",
             "lid_policy dynamic\nvm a vguid=0x2 lid=40 hypervisor=0x10 vf=1\n");
    struct cs_sm_files a, b;
    load_ok(&a, &c);
    /* The node order is the routing engines' input, read by their loader (route.h). */
    assert_true(a.route.has_node_order);
    assert_int_equal(a.route.node_order.count, 3);
    assert_true(a.route.node_order.guids[2] == 0xc00);
    struct cs_route_inputs in = {0};
    cs_route_loaded_inputs(&a.route, &in);
    assert_ptr_equal(in.node_order, &a.route.node_order);
    /* So are the node weights, next to the order in the same loaded set. */
    assert_true(a.route.has_weights);
    assert_int_equal(a.route.weights.count, 2);
    assert_int_equal(cs_node_weights_find(&a.route.weights, 0x801), 7);
    assert_int_equal(cs_node_weights_find(&a.route.weights, 0x999), CS_WEIGHT_DEFAULT);
    assert_ptr_equal(in.weights, &a.route.weights);
    /* And the VM state (vftree). */
    assert_true(a.route.has_vms);
    assert_int_equal(a.route.vms.count, 1);
    assert_int_equal(a.route.vms.lid_policy, CS_LID_DYNAMIC);
    assert_ptr_equal(in.vms, &a.route.vms);
    assert_int_equal(a.partitions.count, 2);
    assert_int_equal(a.roots.count, 2);
    assert_true(a.roots.guids[1] == UINT64_C(0x0020000300000001));
    assert_int_equal(a.cns.count, 0);

    /* Loaded again unchanged: nothing differs. A file rewritten: that one does. */
    load_ok(&b, &c);
    for (int i = 0; i < CS_SM_FILE_COUNT; i++)
        assert_false(cs_sm_files_differ(&a, &b, (enum cs_sm_file)i));
    cs_sm_files_free(&b);
    put_file(c.root_guid_file, "roots", "0x0020000300000000 spine-0\n");
    load_ok(&b, &c);
    assert_false(cs_sm_files_differ(&a, &b, CS_SM_FILE_PARTITIONS));
    assert_true(cs_sm_files_differ(&a, &b, CS_SM_FILE_ROOTS));
    assert_false(cs_sm_files_differ(&a, &b, CS_SM_FILE_CNS));
    cs_sm_files_free(&b);
    put_file(c.node_order_file, "order", "0x800\n0x400\n");
    load_ok(&b, &c);
    assert_true(cs_sm_files_differ(&a, &b, CS_SM_FILE_NODE_ORDER));
    assert_false(cs_sm_files_differ(&a, &b, CS_SM_FILE_CNS));
    assert_false(cs_sm_files_differ(&a, &b, CS_SM_FILE_NODE_WEIGHTS));
    cs_sm_files_free(&b);
    put_file(c.node_weights_file, "weights", "0x401 100\n0x801 8\n");
    load_ok(&b, &c);
    assert_true(cs_sm_files_differ(&a, &b, CS_SM_FILE_NODE_WEIGHTS));
    assert_true(b.route.has_node_order); /* the order still loads next to the weights */
    assert_false(cs_sm_files_differ(&a, &b, CS_SM_FILE_VM_STATE));
    cs_sm_files_free(&b);
    put_file(c.vm_state_file, "vms", "vm a vguid=0x2 lid=40 hypervisor=0x10 vf=2\n");
    load_ok(&b, &c);
    assert_true(cs_sm_files_differ(&a, &b, CS_SM_FILE_VM_STATE));
    assert_true(b.route.has_vms && b.route.has_weights);
    cs_sm_files_free(&b);
    /* A file no longer configured differs from one that was. */
    c.cn_guid_file[0] = '\0';
    load_ok(&b, &c);
    assert_true(cs_sm_files_differ(&a, &b, CS_SM_FILE_CNS));
    cs_sm_files_free(&b);
    cs_sm_files_free(&a);
    assert_string_equal(cs_sm_file_key(CS_SM_FILE_CNS), "cn_guid_file");
    assert_string_equal(cs_sm_file_key(CS_SM_FILE_NODE_ORDER), "node_order_file");
    assert_string_equal(cs_sm_file_key(CS_SM_FILE_NODE_WEIGHTS), "node_weights_file");
    assert_string_equal(cs_sm_file_key(CS_SM_FILE_VM_STATE), "vm_state_file");
}

/* A configured partitions.conf that does not exist means Default only, as in OpenSM. */
static void test_missing_partitions(void **state)
{
    (void)state;
    struct cs_sm_config c;
    cs_sm_config_defaults(&c);
    snprintf(c.partition_config_file, sizeof c.partition_config_file, "%s/nope.conf", dir);
    struct cs_sm_files f;
    load_ok(&f, &c);
    assert_true(f.partitions_missing);
    assert_int_equal(f.partitions.count, 1);
    assert_false(f.read[CS_SM_FILE_PARTITIONS]);
    cs_sm_files_free(&f);
}

/* Every bad file is an error that names file:line (or the key and why it cannot be read). */
static void test_bad_files(void **state)
{
    (void)state;
    struct cs_sm_config c;
    char want[CS_SM_CONFIG_PATH_MAX + 64];
    cs_sm_config_defaults(&c);
    put_file(c.partition_config_file, "partitions.conf",
             "Default=0x7fff : ALL, SELF=full ;\nBlue=0x0100 : nonsense=full ;\n");
    snprintf(want, sizeof want, "%s:2: ", c.partition_config_file);
    const char *msg = load_error(&c);
    if (strncmp(msg, want, strlen(want)) != 0)
        fail_msg("'%s' does not start with '%s'", msg, want);

    cs_sm_config_defaults(&c);
    put_file(c.root_guid_file, "roots", "0x0020000300000000\n0xnotaguid\n");
    snprintf(want, sizeof want, "%s:2: ", c.root_guid_file);
    msg = load_error(&c);
    if (strncmp(msg, want, strlen(want)) != 0)
        fail_msg("'%s' does not start with '%s'", msg, want);

    /* A good partitions.conf and a bad cn_guid_file: nothing is kept. */
    put_file(c.partition_config_file, "partitions.conf", "Default=0x7fff : ALL ;\n");
    c.root_guid_file[0] = '\0';
    put_file(c.cn_guid_file, "cns", "0x1\n0x1\n");
    snprintf(want, sizeof want, "%s:2: ", c.cn_guid_file);
    msg = load_error(&c);
    if (strncmp(msg, want, strlen(want)) != 0)
        fail_msg("'%s' does not start with '%s'", msg, want);

    /* A bad node_order_file stops the load as well. */
    cs_sm_config_defaults(&c);
    put_file(c.node_order_file, "order", "0x400\n# fine so far\nthis-is-no-guid\n");
    snprintf(want, sizeof want, "%s:3: ", c.node_order_file);
    msg = load_error(&c);
    if (strncmp(msg, want, strlen(want)) != 0)
        fail_msg("'%s' does not start with '%s'", msg, want);

    /* And a bad node_weights_file (a weight out of range). */
    cs_sm_config_defaults(&c);
    put_file(c.node_weights_file, "weights", "0x401 100\n0x801 0\n");
    snprintf(want, sizeof want, "%s:2: ", c.node_weights_file);
    msg = load_error(&c);
    if (strncmp(msg, want, strlen(want)) != 0)
        fail_msg("'%s' does not start with '%s'", msg, want);

    /* And a bad vm_state_file (a VF out of range). */
    cs_sm_config_defaults(&c);
    put_file(c.vm_state_file, "vms", "# VMs\nvm a vguid=0x2 lid=40 hypervisor=0x10 vf=200\n");
    snprintf(want, sizeof want, "%s:2: ", c.vm_state_file);
    msg = load_error(&c);
    if (strncmp(msg, want, strlen(want)) != 0)
        fail_msg("'%s' does not start with '%s'", msg, want);

    /* Not text: /dev/zero fails at its first line instead of filling memory. */
    cs_sm_config_defaults(&c);
    snprintf(c.partition_config_file, sizeof c.partition_config_file, "/dev/zero");
    msg = load_error(&c);
    assert_string_equal(msg, "/dev/zero:1: line longer than 65536 bytes");

    /* A root_guid_file that is not there is an error (only partitions.conf may be missing). */
    cs_sm_config_defaults(&c);
    snprintf(c.root_guid_file, sizeof c.root_guid_file, "%s/no-roots", dir);
    msg = load_error(&c);
    assert_true(strncmp(msg, "root_guid_file: ", 16) == 0);
    assert_non_null(strstr(msg, "no-roots"));
}

/* qos_policy_file: read with qos TRUE only (OpenSM parses it in its QoS setup alone); a missing
 * one is no policy, as in OpenSM; a bad one stops the load with its file:line:col, and nothing
 * else loaded is kept. */
static void test_qos_policy(void **state)
{
    (void)state;
    struct cs_sm_config c;
    cs_sm_config_defaults(&c);
    put_file(c.qos_policy_file, "qos-policy.conf",
             "qos-ulps\n  default : 3\n  ipoib : 4\nend-qos-ulps\n");
    struct cs_sm_files f;
    load_ok(&f, &c); /* qos FALSE: not read */
    assert_null(f.qos_policy);
    assert_false(f.read[CS_SM_FILE_QOS_POLICY]);
    cs_sm_files_free(&f);
    c.qos = true;
    load_ok(&f, &c);
    assert_non_null(f.qos_policy);
    assert_int_equal(f.qos_policy->default_sl, 3);
    assert_int_equal(f.qos_policy->num_rules, 1);
    assert_true(f.read[CS_SM_FILE_QOS_POLICY]);
    struct cs_sm_files g;
    load_ok(&g, &c);
    assert_false(cs_sm_files_differ(&f, &g, CS_SM_FILE_QOS_POLICY));
    cs_sm_files_free(&g);
    put_file(c.qos_policy_file, "qos-policy.conf", "qos-ulps\n  default : 5\nend-qos-ulps\n");
    load_ok(&g, &c);
    assert_true(cs_sm_files_differ(&f, &g, CS_SM_FILE_QOS_POLICY));
    cs_sm_files_free(&g);
    cs_sm_files_free(&f);

    snprintf(c.qos_policy_file, sizeof c.qos_policy_file, "%s/no-policy", dir);
    load_ok(&f, &c);
    assert_null(f.qos_policy);
    assert_true(f.qos_policy_missing);
    cs_sm_files_free(&f);

    put_file(c.partition_config_file, "partitions.conf", "Default=0x7fff : ALL ;\n");
    put_file(c.qos_policy_file, "qos-policy.conf", "qos-ulps\n  default : 3\n  ipoib : 16\n");
    char want[CS_SM_CONFIG_PATH_MAX + 64];
    snprintf(want, sizeof want, "%s:3:11: illegal SL value 16", c.qos_policy_file);
    const char *msg = load_error(&c);
    if (strncmp(msg, want, strlen(want)) != 0)
        fail_msg("'%s' does not start with '%s'", msg, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_none_configured, setup, teardown),
        cmocka_unit_test_setup_teardown(test_load, setup, teardown),
        cmocka_unit_test_setup_teardown(test_qos_policy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_partitions, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_files, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
