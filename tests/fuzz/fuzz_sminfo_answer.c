/* Our answer to SMInfo Gets and Sets from the wire (cs_sm_answer_sminfo), on arbitrary bytes: the
 * input is cut into 256-byte MADs, each decoded as an SMP and handed to one identity in turn, as
 * the pipe hands other SMs' requests. Aborts when an SMInfo Get or Set is not answered with our
 * SMInfo as it was, anything else is answered, a Set moves the state where sm.h's table of
 * controls does not (or a refused one moves it at all), or the askers noted break their rules (at
 * most CS_SM_ASKERS_MAX, distinct, every route within an SMP and without a port 0; Sets add
 * none). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cloudsm/sm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The state a control accepted in state `from` leads to (sm.h), or -1 if it is refused. */
static int controlled(uint32_t control, uint8_t from)
{
    switch (control) {
    case CS_SMP_SM_HANDOVER:
        return from == CS_SMP_SM_STATE_STANDBY || from == CS_SMP_SM_STATE_DISCOVERING ||
                       from == CS_SMP_SM_STATE_MASTER
                   ? CS_SMP_SM_STATE_MASTER
                   : -1;
    case CS_SMP_SM_ACKNOWLEDGE:
        return from == CS_SMP_SM_STATE_STANDBY || from == CS_SMP_SM_STATE_MASTER ? from : -1;
    case CS_SMP_SM_DISABLE:
        return from == CS_SMP_SM_STATE_STANDBY ? CS_SMP_SM_STATE_NOT_ACTIVE : -1;
    case CS_SMP_SM_STANDBY:
        return from == CS_SMP_SM_STATE_NOT_ACTIVE ? CS_SMP_SM_STATE_STANDBY : -1;
    case CS_SMP_SM_DISCOVER:
        return from == CS_SMP_SM_STATE_STANDBY || from == CS_SMP_SM_STATE_MASTER
                   ? CS_SMP_SM_STATE_DISCOVERING
                   : -1;
    default:
        return -1;
    }
}

static void check_askers(const struct cs_sm_identity *me)
{
    if (me->num_askers > CS_SM_ASKERS_MAX)
        abort();
    for (unsigned i = 0; i < me->num_askers; i++) {
        const struct cs_dr_path *a = &me->askers[i];
        if (a->hops == 0 || a->hops >= CS_SMP_PATH_SIZE)
            abort();
        for (unsigned h = 1; h <= a->hops; h++)
            if (a->port[h] == 0)
                abort();
        for (unsigned j = 0; j < i; j++)
            if (me->askers[j].hops == a->hops &&
                memcmp(me->askers[j].port + 1, a->port + 1, a->hops) == 0)
                abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cs_sm_identity me = {
        .guid = 0x0002c90300001234,
        .sm_key = 0x5ec2e7,
        .m_key = size % 2 ? 0x1111 : 0,
        .priority = 7,
        .state = CS_SMP_SM_STATE_MASTER,
    };
    for (size_t at = 0; at < size; at += CS_SMP_SIZE) {
        uint8_t wire[CS_SMP_SIZE] = {0};
        size_t len = size - at < CS_SMP_SIZE ? size - at : CS_SMP_SIZE;
        memcpy(wire, data + at, len);
        struct cs_smp mad, answer;
        cs_smp_decode(wire, &mad);
        unsigned before = me.num_askers;
        uint8_t state_before = me.state;
        int answered = cs_sm_answer_sminfo(&me, &mad, &answer);
        bool sminfo = mad.attr_id == CS_SMP_ATTR_SM_INFO;
        bool get = sminfo && mad.method == CS_SMP_METHOD_GET;
        bool set = sminfo && mad.method == CS_SMP_METHOD_SET;
        if (answered != (get || set ? 1 : 0))
            abort();
        if (!get && !set) {
            if (me.num_askers != before || me.state != state_before)
                abort();
            continue;
        }
        if (set) {
            /* The status without the direction bit a directed-route answer carries. */
            bool refused = (answer.status & ~CS_SMP_STATUS_DIRECTION) != 0;
            int want = controlled(mad.attr_mod, state_before);
            if (me.num_askers != before || me.state > CS_SMP_SM_STATE_MASTER ||
                (refused && me.state != state_before) ||
                (!refused && (want < 0 || me.state != want)))
                abort();
            /* Accepted or refused: the answer is our SMInfo as it was. */
            struct cs_smp_sm_info was;
            cs_smp_sm_info_decode(answer.data, &was);
            if (answer.method != CS_SMP_METHOD_GET_RESP ||
                answer.transaction_id != mad.transaction_id || was.guid != me.guid ||
                was.sm_state != state_before)
                abort();
            continue;
        }
        struct cs_smp_sm_info info;
        cs_smp_sm_info_decode(answer.data, &info);
        if (answer.method != CS_SMP_METHOD_GET_RESP ||
            answer.transaction_id != mad.transaction_id || info.guid != me.guid ||
            info.priority != me.priority || info.sm_state != me.state)
            abort();
        if (info.sm_key != (me.m_key == 0 || mad.m_key == me.m_key ? me.sm_key : 0))
            abort();
        if (me.num_askers > before + 1)
            abort();
        check_askers(&me);
    }
    return 0;
}
