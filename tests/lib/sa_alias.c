/* sa_alias: register and remove alias GUIDs (IBA: additional port GUIDs) the way an SR-IOV host
 * driver does, with SubnAdmSet / SubnAdmDelete of a GUIDInfoRecord, and print the SA's answer.
 *
 *   sa_alias set LID BLOCK INDEX=GUID...   add or replace these entries of the block (GUID 0:
 *                                          the SM assigns one)
 *   sa_alias delete LID BLOCK INDEX...     remove these entries
 *   sa_alias get LID BLOCK                 SubnAdmGet of the block, to read it back
 *
 *   --mask MASK  send this component mask instead of LID | BlockNum | the entries named (to
 *                leave out a required component, say)
 *
 * INDEX is 0..7 within the block (GUIDInfoRecord components GUID0..GUID7). One line comes out,
 * the same for any SM, so that two SMs' answers can be compared with diff:
 *
 *     status 0x0000 method 0x81 lid 2 block 0 guids 0x0010000000000101 0x0014050000000001 0x0 ...
 *
 * or "no reply" (nothing within a second). Exit status: 0 when a reply came, whatever its status;
 * 1 when none did or the port could not be opened; 2 on bad usage.
 * tests/integration/cloudsmd_sa_alias.sh runs the same sequence against cloudsmd and OpenSM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sa.h"
#include "sa_call.h"

#define MASK_LID (1u << 0)
#define MASK_BLOCK (1u << 1)
#define MASK_GUID(i) (1u << (4 + (i)))
#define TID 0x5a1a5u

static int usage(void)
{
    fprintf(stderr, "usage: sa_alias [--mask MASK] set LID BLOCK INDEX=GUID...\n"
                    "       sa_alias [--mask MASK] delete LID BLOCK INDEX...\n"
                    "       sa_alias get LID BLOCK\n");
    return 2;
}

int main(int argc, char **argv)
{
    int arg = 1;
    unsigned long long mask_override = 0;
    int have_mask = 0;
    if (arg + 1 < argc && strcmp(argv[arg], "--mask") == 0) {
        if (sa_call_parse_u64(argv[arg + 1], UINT64_MAX, &mask_override) < 0)
            return usage();
        have_mask = 1;
        arg += 2;
    }
    if (argc - arg < 3)
        return usage();
    const char *verb = argv[arg];
    uint8_t method = strcmp(verb, "set") == 0      ? CS_SA_METHOD_SET
                     : strcmp(verb, "delete") == 0 ? CS_SA_METHOD_DELETE
                     : strcmp(verb, "get") == 0    ? CS_SA_METHOD_GET
                                                   : 0;
    unsigned long long lid, block;
    if (method == 0 || sa_call_parse_u64(argv[arg + 1], 0xffff, &lid) < 0 ||
        sa_call_parse_u64(argv[arg + 2], 0xff, &block) < 0)
        return usage();
    struct cs_sa_guid_info_record rec = {.lid = (uint16_t)lid, .block = (uint8_t)block};
    uint64_t mask = MASK_LID | MASK_BLOCK;
    for (int i = arg + 3; i < argc; i++) {
        unsigned long long index, guid = 0;
        char *eq = strchr(argv[i], '=');
        if (eq != NULL)
            *eq = '\0';
        if (method == CS_SA_METHOD_GET || sa_call_parse_u64(argv[i], 7, &index) < 0 ||
            (method == CS_SA_METHOD_SET) != (eq != NULL) ||
            (eq != NULL && sa_call_parse_u64(eq + 1, UINT64_MAX, &guid) < 0))
            return usage();
        rec.guids.guid[index] = guid;
        mask |= MASK_GUID(index);
    }
    if (have_mask)
        mask = mask_override;

    struct umad_client c;
    uint8_t record[CS_SA_GUID_INFO_RECORD_SIZE], answer[CS_SA_GUID_INFO_RECORD_SIZE];
    cs_sa_guid_info_record_encode(&rec, record);
    struct cs_sa_header rh;
    if (sa_call_open("sa_alias", &c) ||
        sa_call("sa_alias", &c, TID, method, CS_SA_ATTR_GUID_INFO_RECORD, mask, 0, record,
                sizeof record, &rh, answer))
        return 1;
    struct cs_sa_guid_info_record r;
    cs_sa_guid_info_record_decode(answer, &r);
    printf("status 0x%04x method 0x%02x lid %u block %u guids", rh.status, rh.method, r.lid,
           r.block);
    for (int i = 0; i < 8; i++)
        printf(" 0x%llx", (unsigned long long)r.guids.guid[i]);
    printf("\n");
    return 0;
}
