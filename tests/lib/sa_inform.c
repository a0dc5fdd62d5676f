/* sa_inform: subscribe to the SA's event reports as a host does (SubnAdmSet of an InformInfo),
 * and listen for the Reports that follow.
 *
 *   sa_inform set SUBSCRIBE [FIELD=VALUE...]
 *       one Set(InformInfo) and its answer. SUBSCRIBE is the Subscribe field (0, 1, or anything
 *       else to see it refused). Fields (numbers as strtoull reads them; defaults in brackets):
 *       gid=GID [::], lids=BEGIN-END [0xffff-0], generic=N [1], type=N [0xffff],
 *       trap=N [0xffff], qpn=N [1], resp=N [18], producer=N [0xffffff]
 *   sa_inform records GID
 *       Get(InformInfoRecord) of the subscriptions of the port with that GID: status 0 for one,
 *       0x0300 for none, 0x0400 for several (ibsim hands a client only the first MAD of a
 *       table, so counts are read this way)
 *   sa_inform listen SECONDS [noack] [FIELD=VALUE...]
 *       subscribe with those fields, then print every Report that arrives within SECONDS and
 *       answer it with a ReportResp (noack: do not, and see the SA send it again). The port
 *       claims IsSM while it listens: ibsim hands requests (a Report is one) only to a client
 *       that did. Not for a real port, where IsSM would announce a subnet manager.
 *
 * Every answer is one line, the same for any SM, so that two SMs' can be compared with diff:
 *
 *     status 0x0000 method 0x81 gid :: lids 0xffff-0x0000 generic 1 subscribe 1 type 0xffff ...
 *     report trap 64 generic 1 type 3 producer 0x000004 issuer_lid 1 gid fe80::2 issuer ...
 *
 * or "no reply". Exit status: 0 when the Set was answered, 1 when not or the port could not be
 * opened, 2 on bad usage. tests/integration/cloudsmd_inform.sh runs it against cloudsmd and
 * OpenSM.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/umad.h>

#include "cloudsm/informs.h"
#include "cloudsm/sm.h"
#include "cloudsm/smp.h"
#include "sa_call.h"

#define TID 0x1f0a1

static int usage(void)
{
    fprintf(stderr, "usage: sa_inform set SUBSCRIBE [FIELD=VALUE...]\n"
                    "       sa_inform records GID\n"
                    "       sa_inform listen SECONDS [noack] [FIELD=VALUE...]\n");
    return 2;
}

/* One FIELD=VALUE argument into ii; -1 if it is not one. */
static int parse_field(const char *arg, struct cs_inform_info *ii)
{
    const char *eq = strchr(arg, '=');
    if (eq == NULL)
        return -1;
    size_t name_len = (size_t)(eq - arg);
    const char *value = eq + 1;
    unsigned long long v, w;
    if (name_len == 3 && strncmp(arg, "gid", 3) == 0)
        return inet_pton(AF_INET6, value, ii->gid) == 1 ? 0 : -1;
    if (name_len == 4 && strncmp(arg, "lids", 4) == 0) {
        char begin[32];
        const char *dash = strchr(value, '-');
        if (dash == NULL || (size_t)(dash - value) >= sizeof begin)
            return -1;
        memcpy(begin, value, (size_t)(dash - value));
        begin[dash - value] = '\0';
        if (sa_call_parse_u64(begin, 0xffff, &v) < 0 || sa_call_parse_u64(dash + 1, 0xffff, &w) < 0)
            return -1;
        ii->lid_range_begin = (uint16_t)v;
        ii->lid_range_end = (uint16_t)w;
        return 0;
    }
    static const struct {
        const char *name;
        unsigned long long max;
    } numbers[] = {{"generic", 0xff}, {"type", 0xffff}, {"trap", 0xffff},
                   {"qpn", 0xffffff}, {"resp", 0x1f},   {"producer", 0xffffff}};
    for (size_t i = 0; i < sizeof numbers / sizeof numbers[0]; i++) {
        if (strlen(numbers[i].name) != name_len || strncmp(arg, numbers[i].name, name_len) != 0)
            continue;
        if (sa_call_parse_u64(value, numbers[i].max, &v) < 0)
            return -1;
        switch (i) {
        case 0:
            ii->is_generic = (uint8_t)v;
            break;
        case 1:
            ii->type = (uint16_t)v;
            break;
        case 2:
            ii->trap_number = (uint16_t)v;
            break;
        case 3:
            ii->qpn = (uint32_t)v;
            break;
        case 4:
            ii->resp_time = (uint8_t)v;
            break;
        default:
            ii->producer_type = (uint32_t)v;
            break;
        }
        return 0;
    }
    return -1;
}

static void print_gid(const char *label, const uint8_t gid[16])
{
    char text[INET6_ADDRSTRLEN];
    printf(" %s %s", label, inet_ntop(AF_INET6, gid, text, sizeof text));
}

static void print_answer(const struct cs_sa_header *h, const uint8_t record[CS_INFORM_INFO_SIZE])
{
    struct cs_inform_info ii;
    cs_inform_info_decode(record, &ii);
    printf("status 0x%04x method 0x%02x", h->status, h->method);
    print_gid("gid", ii.gid);
    printf(" lids 0x%04x-0x%04x generic %u subscribe %u type 0x%04x trap %u qpn 0x%06x resp %u "
           "producer 0x%06x\n",
           ii.lid_range_begin, ii.lid_range_end, ii.is_generic, ii.subscribe, ii.type,
           ii.trap_number, ii.qpn, ii.resp_time, ii.producer_type);
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A port that claims IsSM is asked for its SMInfo by every SM that sweeps: it answers as an SM
 * that is not active, so that no SM waits for it (OpenSM under umad2sim would wait forever). */
static int answer_sminfo(struct umad_client *c, struct cs_sm_identity *me, const uint8_t *mad,
                         uint16_t slid)
{
    struct cs_smp request, answer;
    cs_smp_decode(mad, &request);
    if (cs_sm_answer_sminfo(me, &request, &answer) != 1)
        return 0;
    uint8_t wire[CS_SMP_SIZE];
    cs_smp_encode(&answer, wire);
    struct cs_error err;
    bool dr = answer.mgmt_class == CS_SMP_CLASS_DIRECTED_ROUTE;
    if (umad_client_send_smp(c, wire, dr ? CS_SMP_PERMISSIVE_LID : slid, &err) < 0) {
        fprintf(stderr, "sa_inform: %s\n", err.msg);
        return -1;
    }
    return 0;
}

/* Print the Reports that come within seconds, answering each unless noack; repeats (the same
 * transaction id: the SA sending again) are printed as such. */
static int listen_reports(struct umad_client *c, double seconds, bool noack)
{
    struct cs_sm_identity me = {.guid = c->port_guid, .state = CS_SMP_SM_STATE_NOT_ACTIVE};
    double until = now_s() + seconds;
    uint64_t last_tid = 0;
    bool any = false;
    for (double left; (left = until - now_s()) > 0;) {
        const uint8_t *mad;
        size_t len;
        struct cs_error err;
        uint16_t slid = 0;
        int got = umad_client_recv(c, &mad, &len, &slid, (int)(left * 1000) + 1, &err);
        if (got < 0) {
            fprintf(stderr, "sa_inform: %s\n", err.msg);
            return 1;
        }
        if (got == 1 && len >= CS_SMP_SIZE &&
            (mad[1] == CS_SMP_CLASS_LID_ROUTED || mad[1] == CS_SMP_CLASS_DIRECTED_ROUTE)) {
            if (answer_sminfo(c, &me, mad, slid) < 0)
                return 1;
            continue;
        }
        if (got == 0 || len < CS_SA_HEADER_SIZE + CS_NOTICE_SIZE || mad[1] != CS_SA_CLASS)
            continue;
        struct cs_sa_header h;
        cs_sa_header_decode(mad, &h);
        if (h.method != CS_SA_METHOD_REPORT || h.attr_id != CS_SA_ATTR_NOTICE)
            continue;
        struct cs_notice n;
        cs_notice_decode(mad + CS_SA_HEADER_SIZE, &n);
        bool repeat = any && h.transaction_id == last_tid;
        any = true;
        last_tid = h.transaction_id;
        printf("%s trap %u generic %u type %u producer 0x%06x issuer_lid %u",
               repeat ? "repeat" : "report", n.trap_number, n.is_generic, n.type, n.producer_type,
               n.issuer_lid);
        print_gid("gid", n.details + CS_NOTICE_DETAILS_GID_OFFSET);
        print_gid("issuer", n.issuer_gid);
        printf("\n");
        fflush(stdout);
        if (noack)
            continue;
        /* ReportResp (IBA 13.4.9): the Report back, with the response method. */
        uint8_t resp[CS_SA_MAD_SIZE];
        memcpy(resp, mad, CS_SA_MAD_SIZE);
        h.method = CS_SA_METHOD_REPORT_RESP;
        cs_sa_header_encode(&h, resp);
        if (umad_client_send_sa(c, resp, CS_SA_MAD_SIZE, &err) < 0) {
            fprintf(stderr, "sa_inform: %s\n", err.msg);
            return 1;
        }
    }
    return 0;
}

/* Get(InformInfoRecord) by SubscriberGID: its status, and the first record's subscription. */
static int records(const char *gid_text)
{
    uint8_t record[CS_SA_INFORM_INFO_RECORD_SIZE] = {0}, answer[CS_SA_INFORM_INFO_RECORD_SIZE];
    if (inet_pton(AF_INET6, gid_text, record) != 1)
        return usage();
    struct umad_client c;
    if (sa_call_open("sa_inform", &c))
        return 1;
    struct cs_sa_header rh;
    if (sa_call("sa_inform", &c, TID, CS_SA_METHOD_GET, CS_SA_ATTR_INFORM_INFO_RECORD,
                CS_SA_IIR_SUBSCRIBER_GID, 0, record, sizeof record, &rh, answer))
        return 1;
    print_answer(&rh, answer + 24);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "records") == 0)
        return records(argv[2]);
    if (argc < 3)
        return usage();
    bool listen = strcmp(argv[1], "listen") == 0;
    if (!listen && strcmp(argv[1], "set") != 0)
        return usage();
    unsigned long long first;
    if (sa_call_parse_u64(argv[2], listen ? 3600 : 0xff, &first) < 0)
        return usage();
    struct cs_inform_info ii = cs_inform_info_all();
    ii.subscribe = listen ? 1 : (uint8_t)first;
    bool noack = false;
    for (int i = 3; i < argc; i++) {
        if (listen && strcmp(argv[i], "noack") == 0)
            noack = true;
        else if (parse_field(argv[i], &ii) < 0)
            return usage();
    }
    struct umad_client c;
    struct cs_error err;
    /* Listening under ibsim, the SMs' SMInfo Gets (the port claims IsSM) arrive too: umad2sim
     * needs an agent for every class that can arrive. */
    unsigned flags = UMAD_CLIENT_REPORTS | (listen ? UMAD_CLIENT_SMP : 0);
    if (umad_client_open(&c, NULL, 0, flags, SA_CALL_TIMEOUT_MS, &err) < 0) {
        fprintf(stderr, "sa_inform: %s\n", err.msg);
        return 1;
    }
    uint8_t record[CS_INFORM_INFO_SIZE], answer[CS_INFORM_INFO_SIZE];
    cs_inform_info_encode(&ii, record);
    struct cs_sa_header rh;
    int rc = sa_call_open_port("sa_inform", &c, TID, CS_SA_METHOD_SET, CS_SA_ATTR_INFORM_INFO, 0, 0,
                               record, sizeof record, &rh, answer);
    int issm_fd = -1;
    if (rc == 0) {
        print_answer(&rh, answer);
        fflush(stdout);
    }
    /* IsSM only now: the SMs' SMInfo Gets that it brings must find us listening, not waiting
     * for the Set's answer (which drops everything else). */
    char issm[256];
    if (rc == 0 && listen &&
        (umad_get_issm_path(c.ca_name, c.port_num, issm, sizeof issm) < 0 ||
         (issm_fd = open(issm, O_RDWR)) < 0)) {
        fprintf(stderr, "sa_inform: cannot claim IsSM on %s port %d\n", c.ca_name, c.port_num);
        rc = 1;
    }
    if (rc == 0 && listen)
        rc = listen_reports(&c, (double)first, noack);
    if (issm_fd >= 0)
        close(issm_fd);
    umad_client_close(&c);
    return rc;
}
