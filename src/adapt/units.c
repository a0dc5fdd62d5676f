/* Units and the writing of values (units.h, cs_adapt_type_name, cs_adapt_value_format). Rates
 * are bytes per second: decimal prefixes (KB/s = 1000 B/s) and binary ones (KiB/s = 1024 B/s). */
#include "adapt/units.h"

#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const struct adapt_unit units[] = {
    {"ms", 1e-3, CS_ADAPT_DURATION},        {"s", 1, CS_ADAPT_DURATION},
    {"m", 60, CS_ADAPT_DURATION},           {"h", 3600, CS_ADAPT_DURATION},
    {"d", 86400, CS_ADAPT_DURATION},        {"B/s", 1, CS_ADAPT_RATE},
    {"KB/s", 1e3, CS_ADAPT_RATE},           {"MB/s", 1e6, CS_ADAPT_RATE},
    {"GB/s", 1e9, CS_ADAPT_RATE},           {"TB/s", 1e12, CS_ADAPT_RATE},
    {"KiB/s", 1024.0, CS_ADAPT_RATE},       {"MiB/s", 1048576.0, CS_ADAPT_RATE},
    {"GiB/s", 1073741824.0, CS_ADAPT_RATE}, {"TiB/s", 1099511627776.0, CS_ADAPT_RATE},
    {"%", 0.01, CS_ADAPT_NUMBER},           {"/s", 1, CS_ADAPT_COUNT_RATE},
};

static const char *const sizes[] = {"B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"};

static const char *const type_names[CS_ADAPT_TYPE_COUNT] = {
    [CS_ADAPT_NUMBER] = "number",
    [CS_ADAPT_DURATION] = "duration",
    [CS_ADAPT_RATE] = "rate",
    [CS_ADAPT_COUNT_RATE] = "count rate",
    [CS_ADAPT_BOOL] = "bool",
    [CS_ADAPT_STRING] = "string",
    [CS_ADAPT_NODE_LIST] = "node list",
    [CS_ADAPT_WEIGHTS] = "weights",
    [CS_ADAPT_PARAM] = "parameter name",
    [CS_ADAPT_ANY] = "the parameter's type",
};

const char *cs_adapt_type_name(enum cs_adapt_type t)
{
    return (unsigned)t < CS_ADAPT_TYPE_COUNT ? type_names[t] : "?";
}

const struct adapt_unit *adapt_unit_find(const char *text, size_t len)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].word) == len && memcmp(units[i].word, text, len) == 0)
            return &units[i];
    return NULL;
}

bool adapt_unit_is_size(const char *text, size_t len)
{
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (strlen(sizes[i]) == len && memcmp(sizes[i], text, len) == 0)
            return true;
    return false;
}

bool adapt_unit_is_word(const char *name)
{
    return adapt_unit_find(name, strlen(name)) != NULL || adapt_unit_is_size(name, strlen(name));
}

/* Index of the largest unit of type t (decimal or binary ones) that |v| reaches; the smallest
 * if none does. Units of one type come in ascending order in the table. */
static size_t display_unit(double v, enum cs_adapt_type t, bool binary)
{
    size_t best = SIZE_MAX;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        const struct adapt_unit *u = &units[i];
        if (u->type != t || (strchr(u->word, 'i') != NULL) != binary)
            continue;
        if (best == SIZE_MAX || fabs(v) >= u->scale)
            best = i;
    }
    return best;
}

/* A duration: the largest unit it is a whole number of (90s, 5m, 2h), milliseconds below a
 * second; exact (digits 17): seconds. */
static void format_duration(double v, int digits, char *buf, size_t size)
{
    if (digits >= 17 || v == 0) {
        snprintf(buf, size, "%.*gs", digits, v);
        return;
    }
    size_t i = display_unit(v, CS_ADAPT_DURATION, false);
    while (units[i].scale > 1 && fmod(v, units[i].scale) != 0)
        i--;
    snprintf(buf, size, "%.*g%s", digits, v / units[i].scale, units[i].word);
}

static void format_string(const char *s, char *buf, size_t size)
{
    size_t n = 0;
    if (size < 3) {
        if (size > 0)
            buf[0] = '\0';
        return;
    }
    buf[n++] = '"';
    for (; *s && n + 4 < size; s++) {
        char c = *s;
        if (c == '"' || c == '\\' || c == '\n' || c == '\t') {
            buf[n++] = '\\';
            c = c == '\n' ? 'n' : c == '\t' ? 't' : c;
        }
        buf[n++] = c;
    }
    buf[n++] = '"';
    buf[n] = '\0';
}

char *cs_adapt_value_format(const struct cs_adapt_value *v, int digits, char *buf, size_t size)
{
    if (size == 0)
        return buf;
    buf[0] = '\0';
    switch (v->type) {
    case CS_ADAPT_NUMBER:
        snprintf(buf, size, "%.*g", digits, v->number);
        break;
    case CS_ADAPT_DURATION:
        format_duration(v->number, digits, buf, size);
        break;
    case CS_ADAPT_RATE: {
        /* exact: bytes per second, the first rate unit */
        const struct adapt_unit *u = digits >= 17
                                         ? adapt_unit_find("B/s", 3)
                                         : &units[display_unit(v->number, CS_ADAPT_RATE, false)];
        snprintf(buf, size, "%.*g %s", digits, v->number / u->scale, u->word);
        break;
    }
    case CS_ADAPT_COUNT_RATE:
        snprintf(buf, size, "%.*g/s", digits, v->number);
        break;
    case CS_ADAPT_BOOL:
        snprintf(buf, size, "%s", v->number != 0 ? "true" : "false");
        break;
    case CS_ADAPT_STRING:
        format_string(v->text ? v->text : "", buf, size);
        break;
    case CS_ADAPT_PARAM:
        snprintf(buf, size, "%s", v->text ? v->text : "");
        break;
    case CS_ADAPT_WEIGHTS: {
        char window[64];
        format_duration(v->number, digits, window, sizeof window);
        snprintf(buf, size, "learned(over %s)", window);
        break;
    }
    case CS_ADAPT_NODE_LIST: {
        size_t used = (size_t)snprintf(buf, size, "[");
        for (uint32_t i = 0; i < v->num_guids && used < size; i++)
            used += (size_t)snprintf(buf + used, size - used, "%s0x%016" PRIx64, i ? ", " : "",
                                     v->guids[i]);
        if (used < size)
            snprintf(buf + used, size - used, "]");
        break;
    }
    default:
        snprintf(buf, size, "?");
    }
    return buf;
}
