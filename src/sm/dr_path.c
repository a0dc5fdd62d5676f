/* DR path text (include/cloudsm/sm.h). */
#include <stdio.h>

#include "cloudsm/sm.h"

const char *cs_dr_path_format(const struct cs_dr_path *path, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    /* "0" is the SM's own node, as smpquery -D and ibnetdiscover write it. */
    size_t used = (size_t)snprintf(buf, size, "0");
    for (unsigned hop = 1; hop <= path->hops && hop < CS_SMP_PATH_SIZE && used < size; hop++)
        used += (size_t)snprintf(buf + used, size - used, ",%u", path->port[hop]);
    return buf;
}
