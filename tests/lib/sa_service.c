/* sa_service: register and remove a service the way an application does, with SubnAdmSet /
 * SubnAdmDelete of a ServiceRecord (IBA 15.2.5.14), and print the SA's answer.
 *
 *   sa_service set ID GID [FIELD=VALUE...]      register (or replace) the service
 *   sa_service delete ID GID [FIELD=VALUE...]   remove it
 *   sa_service get ID GID [FIELD=VALUE...]      SubnAdmGet of the service, to read it back
 *
 * FIELDs: name (up to 64 bytes), lease (seconds; without it the component is left out of the
 * mask, which means an infinite lease), pkey, key (the ServiceKey's last 8 bytes), data8 (the
 * first ServiceData8 byte). ID and GID (and every FIELD given) go into the component mask;
 * --mask MASK sends this mask instead, --smkey KEY this SM_Key (0 by default: an untrusted
 * request). One line comes out, the same for any SM, so that two SMs' answers can be compared:
 *
 *     status 0x0000 method 0x81 id 0x10 gid fe80::10:0:0:101 pkey 0xffff lease 60 name "a"
 *
 * or "no reply" (nothing within a second). Exit status: 0 when a reply came, whatever its status;
 * 1 when none did or the port could not be opened; 2 on bad usage.
 * tests/integration/cloudsmd_sa_services.sh runs the same sequence against cloudsmd and OpenSM.
 * A test helper like sa_alias (the GUIDInfoRecord client next to it): registering services is an
 * application's job, not an operator's, so the cloudsm CLI has no command for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sa.h"
#include "cloudsm/sa_client.h"
#include "sa_call.h"

#define TID 0x5e41cu

static int usage(void)
{
    fprintf(stderr, "usage: sa_service [--mask MASK] [--smkey KEY] set|delete|get ID GID "
                    "[name=N] [lease=S] [pkey=P] [key=K] [data8=B]\n");
    return 2;
}

/* One FIELD=VALUE into the record and the mask; -1 if it is not one. */
static int field(const char *arg, struct cs_sa_service_record *r, uint64_t *mask)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL)
        return -1;
    size_t n = (size_t)(eq - arg);
    const char *v = eq + 1;
    unsigned long long x;
    if (n == 4 && strncmp(arg, "name", n) == 0 && strlen(v) <= sizeof r->name) {
        memcpy(r->name, v, strlen(v));
        *mask |= CS_SA_SR_NAME;
    } else if (n == 5 && strncmp(arg, "lease", n) == 0 &&
               sa_call_parse_u64(v, UINT32_MAX, &x) == 0) {
        r->lease = (uint32_t)x;
        *mask |= CS_SA_SR_LEASE;
    } else if (n == 4 && strncmp(arg, "pkey", n) == 0 && sa_call_parse_u64(v, 0xffff, &x) == 0) {
        r->pkey = (uint16_t)x;
        *mask |= CS_SA_SR_PKEY;
    } else if (n == 3 && strncmp(arg, "key", n) == 0 && sa_call_parse_u64(v, UINT64_MAX, &x) == 0) {
        cs_bits_set(r->key, 64, 64, x);
        *mask |= CS_SA_SR_KEY;
    } else if (n == 5 && strncmp(arg, "data8", n) == 0 && sa_call_parse_u64(v, 0xff, &x) == 0) {
        r->data8[0] = (uint8_t)x;
        *mask |= CS_SA_SR_DATA8(0);
    } else {
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int arg = 1;
    unsigned long long mask_override = 0, sm_key = 0;
    int have_mask = 0;
    while (arg + 1 < argc && argv[arg][0] == '-') {
        if (strcmp(argv[arg], "--mask") == 0 &&
            sa_call_parse_u64(argv[arg + 1], UINT64_MAX, &mask_override) == 0)
            have_mask = 1;
        else if (strcmp(argv[arg], "--smkey") != 0 ||
                 sa_call_parse_u64(argv[arg + 1], UINT64_MAX, &sm_key) < 0)
            return usage();
        arg += 2;
    }
    if (argc - arg < 3)
        return usage();
    uint8_t method = strcmp(argv[arg], "set") == 0      ? CS_SA_METHOD_SET
                     : strcmp(argv[arg], "delete") == 0 ? CS_SA_METHOD_DELETE
                     : strcmp(argv[arg], "get") == 0    ? CS_SA_METHOD_GET
                                                        : 0;
    struct cs_sa_service_record rec = {0};
    unsigned long long id;
    struct cs_error err;
    if (method == 0 || sa_call_parse_u64(argv[arg + 1], UINT64_MAX, &id) < 0 ||
        cs_gid_parse(argv[arg + 2], rec.gid, &err) < 0)
        return usage();
    rec.id = id;
    uint64_t mask = CS_SA_SR_ID | CS_SA_SR_GID;
    for (int i = arg + 3; i < argc; i++)
        if (field(argv[i], &rec, &mask) < 0)
            return usage();
    if (have_mask)
        mask = mask_override;

    struct umad_client c;
    uint8_t record[CS_SA_SERVICE_RECORD_SIZE], answer[CS_SA_SERVICE_RECORD_SIZE];
    cs_sa_service_record_encode(&rec, record);
    struct cs_sa_header rh;
    if (sa_call_open("sa_service", &c) ||
        sa_call("sa_service", &c, TID, method, CS_SA_ATTR_SERVICE_RECORD, mask, sm_key, record,
                sizeof record, &rh, answer))
        return 1;
    struct cs_sa_service_record r;
    cs_sa_service_record_decode(answer, &r);
    char gid[64], name[CS_SA_SERVICE_NAME_SIZE + 1] = {0};
    memcpy(name, r.name, sizeof r.name);
    printf("status 0x%04x method 0x%02x id 0x%llx gid %s pkey 0x%04x lease %u key 0x%llx name "
           "\"%s\"\n",
           rh.status, rh.method, (unsigned long long)r.id, cs_gid_format(r.gid, gid), r.pkey,
           r.lease, (unsigned long long)cs_bits_get(r.key, 64, 64), name);
    return 0;
}
