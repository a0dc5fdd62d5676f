/* Units (internal to src/adapt): the suffixes that make a number a duration, a rate, a count
 * rate or a fraction, and the base each scales to. */
#ifndef CLOUDSM_ADAPT_UNITS_H
#define CLOUDSM_ADAPT_UNITS_H

#include <stdbool.h>
#include <stddef.h>

#include "cloudsm/adapt.h"

struct adapt_unit {
    const char *word;        /* "ms", "GB/s", "%", "/s" */
    double scale;            /* to seconds, bytes/s, a fraction, per second */
    enum cs_adapt_type type; /* duration, rate, number, count rate */
};

/* The unit written as len bytes of text, or NULL. */
const struct adapt_unit *adapt_unit_find(const char *text, size_t len);
/* Whether text names an amount of data ("GB", "KiB"): a rate with its "/s" forgotten. */
bool adapt_unit_is_size(const char *text, size_t len);
/* Whether a name is a unit's word ("s", "m", ...): parameters may not take one, since a number
 * before it would read as a literal with that unit. */
bool adapt_unit_is_word(const char *name);

#endif
