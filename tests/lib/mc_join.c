/* mc_join: join and leave a multicast group the way an IPoIB or RDMA-CM host does, with
 * SubnAdmSet / SubnAdmDelete of an MCMemberRecord for this port's GID, and print the SA's answer.
 *
 *   mc_join join MGID [full|non|sendonly]     join (full member by default)
 *   mc_join create MGID [full|non|sendonly]   join, creating the group: Q_Key 0x0b1b, the
 *                                             first P_Key, TClass 0, SL 0, FlowLabel 0, with
 *                                             the create component mask (MGID :: asks the SA
 *                                             to make one)
 *   mc_join leave MGID [full|non|sendonly]    leave those join states
 *
 * One line comes out, the same for any SM, so that two SMs' answers can be compared with diff:
 *
 *     status 0x0000 method 0x81 mgid ff12:401b:ffff:0000:0000:0000:ffff:ffff mlid 0xc000 ...
 *
 * or "no reply" (nothing within a second). Exit status: 0 when a reply came, whatever its status;
 * 1 when none did or the port could not be opened; 2 on bad usage.
 * tests/integration/cloudsmd_mcast.sh runs the same joins against cloudsmd and OpenSM.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include "cloudsm/sa.h"
#include "sa_call.h"

#define TID 0x3c10a

static int usage(void)
{
    fprintf(stderr, "usage: mc_join join|create|leave MGID [full|non|sendonly]\n");
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 4)
        return usage();
    const char *verb = argv[1];
    bool create = strcmp(verb, "create") == 0;
    uint8_t method = strcmp(verb, "join") == 0 || create ? CS_SA_METHOD_SET
                     : strcmp(verb, "leave") == 0        ? CS_SA_METHOD_DELETE
                                                         : 0;
    struct cs_mcmember_record rec = {0};
    if (method == 0 || inet_pton(AF_INET6, argv[2], rec.mgid) != 1)
        return usage();
    uint8_t state = CS_MCAST_JOIN_FULL;
    if (argc == 4) {
        state = strcmp(argv[3], "full") == 0       ? CS_MCAST_JOIN_FULL
                : strcmp(argv[3], "non") == 0      ? CS_MCAST_JOIN_NON
                : strcmp(argv[3], "sendonly") == 0 ? CS_MCAST_JOIN_SEND_ONLY
                                                   : 0;
        if (state == 0)
            return usage();
    }
    struct umad_client c;
    if (sa_call_open("mc_join", &c))
        return 1;
    uint64_t prefix = c.subnet_prefix ? c.subnet_prefix : UINT64_C(0xfe80000000000000);
    for (int i = 0; i < 8; i++) {
        rec.port_gid[i] = (uint8_t)(prefix >> (56 - 8 * i));
        rec.port_gid[8 + i] = (uint8_t)(c.port_guid >> (56 - 8 * i));
    }
    rec.scope_state = (uint8_t)(CS_MCAST_SCOPE_LINK_LOCAL << 4 | state);
    uint64_t mask = CS_SA_MCR_MGID | CS_SA_MCR_PORT_GID | CS_SA_MCR_JOIN_STATE;
    if (create) {
        rec.qkey = CS_MCAST_IPOIB_QKEY;
        rec.pkey = 0xffff;
        mask |= CS_SA_MCR_QKEY | CS_SA_MCR_PKEY | CS_SA_MCR_TCLASS | CS_SA_MCR_SL |
                CS_SA_MCR_FLOW_LABEL;
    }
    uint8_t record[CS_SA_MCMEMBER_RECORD_SIZE], answer[CS_SA_MCMEMBER_RECORD_SIZE];
    cs_sa_mcmember_record_encode(&rec, record);
    struct cs_sa_header rh;
    if (sa_call("mc_join", &c, TID, method, CS_SA_ATTR_MCMEMBER_RECORD, mask, 0, record,
                sizeof record, &rh, answer))
        return 1;
    struct cs_mcmember_record r;
    cs_sa_mcmember_record_decode(answer, &r);
    printf("status 0x%04x method 0x%02x mgid", rh.status, rh.method);
    for (int i = 0; i < 16; i += 2)
        printf("%c%02x%02x", i ? ':' : ' ', r.mgid[i], r.mgid[i + 1]);
    printf(" mlid 0x%04x qkey 0x%08x pkey 0x%04x mtu 0x%02x rate 0x%02x life 0x%02x sl %u "
           "tclass %u flow %u hop %u scope_state 0x%02x\n",
           r.mlid, r.qkey, r.pkey, r.mtu, r.rate, r.packet_life, r.sl, r.tclass, r.flow_label,
           r.hop_limit, r.scope_state);
    return 0;
}
