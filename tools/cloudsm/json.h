/* A small streaming JSON writer for --json output: keys in the order written, numbers printed
 * exactly (integers) or with %.6g (reals), strings escaped per RFC 8259. */
#ifndef CLOUDSM_CLI_JSON_H
#define CLOUDSM_CLI_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct json {
    FILE *out;
    int depth;
    bool need_comma[16];
};

void json_init(struct json *j, FILE *out);
void json_object_begin(struct json *j, const char *key); /* key NULL at top level / in arrays */
void json_object_end(struct json *j);
void json_array_begin(struct json *j, const char *key);
void json_array_end(struct json *j);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_double(struct json *j, const char *key, double v);
/* A real number to the last bit: the shortest form that reads back as the same double (times
 * since the epoch, stored rates), where %.6g would round. null if not finite. */
void json_double_exact(struct json *j, const char *key, double v);
void json_str(struct json *j, const char *key, const char *v);
/* A value that already is JSON (a stored document, or null), written as it is. */
void json_raw(struct json *j, const char *key, const char *json_text);
void json_bool(struct json *j, const char *key, bool v);
/* GUIDs as "0x%016x" strings: JSON numbers cannot hold 64 bits exactly in most readers. */
void json_guid(struct json *j, const char *key, uint64_t guid);
/* Ends the document with a newline. */
void json_finish(struct json *j);

#endif
