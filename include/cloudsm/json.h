/* A small streaming JSON writer: the tools' --json output and the SM's audit records in the
 * monitoring store. Keys in the order written, numbers printed exactly (integers) or with %.6g
 * (reals), strings escaped per RFC 8259. */
#ifndef CLOUDSM_JSON_H
#define CLOUDSM_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct cs_json {
    FILE *out;
    int depth;
    bool need_comma[16];
};

void cs_json_init(struct cs_json *j, FILE *out);
void cs_json_object_begin(struct cs_json *j,
                          const char *key); /* key NULL at top level / in arrays */
void cs_json_object_end(struct cs_json *j);
void cs_json_array_begin(struct cs_json *j, const char *key);
void cs_json_array_end(struct cs_json *j);
void cs_json_u64(struct cs_json *j, const char *key, uint64_t v);
void cs_json_double(struct cs_json *j, const char *key, double v);
/* A real number to the last bit: the shortest form that reads back as the same double (times
 * since the epoch, stored rates), where %.6g would round. null if not finite. */
void cs_json_double_exact(struct cs_json *j, const char *key, double v);
void cs_json_str(struct cs_json *j, const char *key, const char *v);
/* A value that already is JSON (a stored document, or null), written as it is. */
void cs_json_raw(struct cs_json *j, const char *key, const char *json_text);
void cs_json_bool(struct cs_json *j, const char *key, bool v);
/* GUIDs as "0x%016x" strings: JSON numbers cannot hold 64 bits exactly in most readers. */
void cs_json_guid(struct cs_json *j, const char *key, uint64_t guid);
/* Ends the document with a newline. */
void cs_json_finish(struct cs_json *j);

#endif
