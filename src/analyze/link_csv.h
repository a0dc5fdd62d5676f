/* Per-link CSV lines (internal): every per-link table (lft check, analyze --static, analyze
 * --links) starts its lines with the same five columns, written here. */
#ifndef CLOUDSM_ANALYZE_LINK_CSV_H
#define CLOUDSM_ANALYZE_LINK_CSV_H

#include "cloudsm/analyze.h"
#include "io/outbuf.h"

/* The header's first columns. */
#define CS_LINK_CSV_ENDS "from_guid,from_port,to_guid,to_port,class"

/* "0x<from node GUID>,<port>,0x<to node GUID>,<port>,<class>" for link l (no newline). */
void cs_link_csv_ends(struct cs_outbuf *o, const struct cs_tracer *t, uint32_t l);

#endif
