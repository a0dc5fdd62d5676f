/* CPU demand traces: free, native CSV read/write, PlanetLab/CoMon directories, the synthetic
 * UiO-like generator and the cleaning filter. Formats and modelling choices are documented in
 * docs/formats/trace.md, after Paper VI (docs/references.md).
 */
#include "cloudsm/trace.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cloudsm/atomic_file.h"
#include "cloudsm/key_index.h"
#include "cloudsm/rng.h"
#include "core/grow.h"
#include "io/outbuf.h"
#include "io/text.h"

#define CSV_HEADER "vm,vcores,t,cpu_pct"
#define CSV_DIRECTIVE "# cloudsm-trace"
/* Largest vCore count accepted: far above any VM, small enough that 100 * vcores is exact. */
#define MAX_VCORES 100000u

void cs_trace_free(struct cs_trace *t)
{
    free(t->vms);
    free(t->demand);
    memset(t, 0, sizeof *t);
}

/* Allocate vms and demand (all NaN) for num_vms x steps. */
static int trace_alloc(struct cs_trace *t, uint32_t num_vms, uint32_t steps, uint32_t step_seconds,
                       struct cs_error *err)
{
    memset(t, 0, sizeof *t);
    uint64_t samples = (uint64_t)num_vms * steps;
    if (samples > CS_TRACE_MAX_SAMPLES)
        return cs_fail(err, "trace of %u VMs x %u steps exceeds %" PRIu64 " samples", num_vms,
                       steps, CS_TRACE_MAX_SAMPLES);
    t->vms = cs_calloc_array(num_vms, sizeof *t->vms, err);
    t->demand = t->vms ? cs_calloc_array((size_t)samples, sizeof *t->demand, err) : NULL;
    if (!t->demand) {
        cs_trace_free(t);
        return -1;
    }
    for (uint64_t i = 0; i < samples; i++)
        t->demand[i] = NAN;
    t->num_vms = num_vms;
    t->steps = steps;
    t->step_seconds = step_seconds;
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Native CSV reader                                                                            */

static uint64_t name_hash(const struct cs_span *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325); /* FNV-1a */
    for (const char *p = s->p; p < s->end; p++)
        h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
    return h;
}

/* The field up to the next comma (or the end), comma consumed; false if `need_comma` and none. */
static bool next_field(struct cs_span *line, struct cs_span *field, bool need_comma)
{
    const char *comma = memchr(line->p, ',', (size_t)(line->end - line->p));
    field->p = line->p;
    field->end = comma ? comma : line->end;
    line->p = comma ? comma + 1 : line->end;
    return comma != NULL || !need_comma;
}

static bool field_u32(struct cs_span f, uint32_t *out)
{
    uint64_t v;
    cs_span_skip_space(&f);
    cs_span_trim_right(&f);
    if (cs_span_empty(&f) || *f.p < '0' || *f.p > '9' || !cs_span_u64(&f, 10, &v) ||
        !cs_span_empty(&f) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* A demand value: empty or nan = missing (NaN); otherwise a finite decimal number. */
static bool field_value(struct cs_span f, float *out)
{
    cs_span_skip_space(&f);
    cs_span_trim_right(&f);
    size_t n = (size_t)(f.end - f.p);
    if (n == 0 ||
        (n == 3 && (f.p[0] | 0x20) == 'n' && (f.p[1] | 0x20) == 'a' && (f.p[2] | 0x20) == 'n')) {
        *out = NAN;
        return true;
    }
    /* Fast path: plain integers (PlanetLab, the common case) are exact as floats below 2^24. */
    if (n <= 7) {
        uint32_t v = 0;
        size_t i = 0;
        while (i < n && f.p[i] >= '0' && f.p[i] <= '9')
            v = v * 10 + (uint32_t)(f.p[i++] - '0');
        if (i == n) {
            *out = (float)v;
            return true;
        }
    }
    char buf[64];
    if (n >= sizeof buf)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = f.p[i];
        if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
            return false; /* also keeps strtof from accepting hex, inf or nan(...) */
        buf[i] = c;
    }
    buf[n] = '\0';
    char *stop;
    errno = 0;
    float v = strtof(buf, &stop);
    if (stop != buf + n || !isfinite(v))
        return false;
    *out = v;
    return true;
}

struct csv_row {
    struct cs_span name;
    uint32_t vcores, t;
    struct cs_span value;
};

static int parse_row(struct cs_span s, struct csv_row *r, const char *name, unsigned line,
                     struct cs_error *err)
{
    struct cs_span vcores, t;
    if (!next_field(&s, &r->name, true) || !next_field(&s, &vcores, true) ||
        !next_field(&s, &t, true))
        return cs_fail_at(err, name, line, "expected 4 fields \"" CSV_HEADER "\"");
    if (memchr(s.p, ',', (size_t)(s.end - s.p)))
        return cs_fail_at(err, name, line, "more than 4 fields");
    r->value = s;
    cs_span_skip_space(&r->name);
    cs_span_trim_right(&r->name);
    size_t n = (size_t)(r->name.end - r->name.p);
    if (n == 0)
        return cs_fail_at(err, name, line, "empty VM name");
    if (n > CS_TRACE_NAME_MAX)
        return cs_fail_at(err, name, line, "VM name longer than %d characters", CS_TRACE_NAME_MAX);
    for (const char *p = r->name.p; p < r->name.end; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            return cs_fail_at(err, name, line, "control character in the VM name");
    if (!field_u32(vcores, &r->vcores) || r->vcores == 0 || r->vcores > MAX_VCORES)
        return cs_fail_at(err, name, line, "vcores must be an integer 1..%u", MAX_VCORES);
    if (!field_u32(t, &r->t) || r->t >= CS_TRACE_MAX_SAMPLES)
        return cs_fail_at(err, name, line, "t must be a step index 0..%" PRIu64,
                          CS_TRACE_MAX_SAMPLES - 1);
    return 0;
}

/* "# cloudsm-trace step_seconds=S steps=N": both keys optional. */
static int parse_directive(struct cs_span s, uint32_t *step_seconds, uint32_t *steps,
                           const char *name, unsigned line, struct cs_error *err)
{
    s.p += strlen(CSV_DIRECTIVE);
    for (;;) {
        cs_span_skip_space(&s);
        if (cs_span_empty(&s))
            return 0;
        uint64_t v;
        uint32_t *target = cs_span_eat(&s, "step_seconds=") ? step_seconds
                           : cs_span_eat(&s, "steps=")      ? steps
                                                            : NULL;
        if (!target || !cs_span_u64(&s, 10, &v) || (!cs_span_empty(&s) && !cs_is_blank(*s.p)))
            return cs_fail_at(err, name, line,
                              "expected \"" CSV_DIRECTIVE " step_seconds=S steps=N\"");
        if (v == 0 || v > (target == steps ? CS_TRACE_MAX_SAMPLES : UINT32_MAX))
            return cs_fail_at(err, name, line, "%s out of range",
                              target == steps ? "steps" : "step_seconds");
        *target = (uint32_t)v;
    }
}

/* Data lines (after the header) are all others that are not blank or '#' comments. */
static bool is_data_line(struct cs_span *s)
{
    cs_span_trim_right(s);
    struct cs_span probe = *s;
    cs_span_skip_space(&probe);
    return !cs_span_empty(&probe) && *probe.p != '#';
}

/* One VM's samples while the file is read: demand by t (NaN until given), and which t were
 * given, so that a second row for the same (vm, t) is caught even when its value is NaN. */
struct csv_series {
    float *demand;
    uint8_t *seen; /* one bit per t */
    uint32_t capacity;
};

/* The CSV is read in one streamed pass: VMs are numbered by first appearance (found again
 * through a hash table of their names) and each keeps its own series, grown as t grows. Memory
 * is the trace being built, never the text. */
struct csv_reader {
    struct cs_lines *in;
    struct cs_error *err;
    struct cs_trace_vm *vms;
    uint32_t vms_capacity;
    struct csv_series *series;
    uint32_t series_capacity;
    uint32_t num_vms;
    uint32_t *slots; /* open addressing: VM index + 1, 0 = free; a power of two */
    uint32_t num_slots;
    uint32_t steps_seen;   /* largest t + 1 */
    uint32_t steps;        /* from the directive, 0 if none */
    uint32_t step_seconds; /* from the directive, 60 if none */
    uint32_t previous;     /* VM of the last row: rows of one VM usually come together */
};

static bool vm_is(const struct cs_trace_vm *v, const struct cs_span *name)
{
    size_t n = (size_t)(name->end - name->p);
    return strlen(v->name) == n && memcmp(v->name, name->p, n) == 0;
}

/* The slot of name in the table: the one holding it, or the free one where it would go. */
static uint32_t *find_slot(const struct csv_reader *r, uint32_t *slots, uint32_t num_slots,
                           const struct cs_span *name)
{
    uint32_t mask = num_slots - 1;
    for (uint32_t i = (uint32_t)name_hash(name) & mask;; i = (i + 1) & mask)
        if (!slots[i] || vm_is(&r->vms[slots[i] - 1], name))
            return &slots[i];
}

/* Double the table (kept at most half full). */
static int grow_slots(struct csv_reader *r)
{
    uint32_t num_slots = r->num_slots ? r->num_slots * 2 : 64;
    uint32_t *slots = cs_calloc_array(num_slots, sizeof *slots, r->err);
    if (!slots)
        return -1;
    for (uint32_t vm = 0; vm < r->num_vms; vm++) {
        const char *name = r->vms[vm].name;
        struct cs_span s = {name, name + strlen(name)};
        *find_slot(r, slots, num_slots, &s) = vm + 1;
    }
    free(r->slots);
    r->slots = slots;
    r->num_slots = num_slots;
    return 0;
}

/* The VM of a row, added at its first row. */
static int vm_of_row(struct csv_reader *r, const struct csv_row *row, uint32_t *vm)
{
    if (r->previous < r->num_vms && vm_is(&r->vms[r->previous], &row->name)) {
        *vm = r->previous;
        return 0;
    }
    if ((uint64_t)(r->num_vms + 1) * 2 > r->num_slots && grow_slots(r) < 0)
        return -1;
    uint32_t *slot = find_slot(r, r->slots, r->num_slots, &row->name);
    if (!*slot) {
        if (cs_grow((void **)&r->vms, &r->vms_capacity, (uint64_t)r->num_vms + 1, sizeof *r->vms,
                    r->err) < 0 ||
            cs_grow_zeroed((void **)&r->series, &r->series_capacity, (uint64_t)r->num_vms + 1,
                           sizeof *r->series, r->err) < 0)
            return -1;
        struct cs_trace_vm *v = &r->vms[r->num_vms];
        cs_span_copy(&row->name, v->name, sizeof v->name);
        v->vcores = row->vcores;
        *slot = ++r->num_vms;
    }
    *vm = r->previous = *slot - 1;
    return 0;
}

/* Room for sample t in a series: doubled, new demand NaN, new bits clear. */
static int series_reserve(struct csv_series *s, uint32_t t, struct cs_error *err)
{
    if (t < s->capacity)
        return 0;
    uint64_t capacity = s->capacity ? (uint64_t)s->capacity * 2 : 16;
    if (capacity < (uint64_t)t + 1)
        capacity = (uint64_t)t + 1;
    if (capacity > CS_TRACE_MAX_SAMPLES)
        capacity = CS_TRACE_MAX_SAMPLES;
    float *demand = realloc(s->demand, (size_t)capacity * sizeof *demand);
    if (!demand)
        return cs_fail(err, "out of memory for %" PRIu64 " samples", capacity);
    s->demand = demand;
    size_t old_bytes = ((size_t)s->capacity + 7) / 8, bytes = ((size_t)capacity + 7) / 8;
    uint8_t *seen = realloc(s->seen, bytes);
    if (!seen)
        return cs_fail(err, "out of memory for %" PRIu64 " samples", capacity);
    /* Bits of the last old byte beyond the old capacity were never set. */
    memset(seen + old_bytes, 0, bytes - old_bytes);
    s->seen = seen;
    for (uint64_t i = s->capacity; i < capacity; i++)
        demand[i] = NAN;
    s->capacity = (uint32_t)capacity;
    return 0;
}

/* Directives and the header, up to and including the header line. */
static int read_csv_header(struct csv_reader *r)
{
    struct cs_lines *in = r->in;
    struct cs_span s;
    int got;
    while ((got = cs_lines_next(in, &s)) > 0) {
        cs_span_trim_right(&s);
        cs_span_skip_space(&s);
        if (cs_span_starts_with(&s, CSV_DIRECTIVE)) {
            if (parse_directive(s, &r->step_seconds, &r->steps, in->name, in->number, r->err) < 0)
                return -1;
        } else if (cs_span_empty(&s) || *s.p == '#') {
            continue;
        } else if (s.end - s.p == (ptrdiff_t)strlen(CSV_HEADER) && cs_span_eat(&s, CSV_HEADER)) {
            return 0;
        } else {
            return cs_fail_at(r->err, in->name, in->number,
                              "expected the header \"" CSV_HEADER "\"");
        }
    }
    if (got < 0)
        return -1;
    return cs_fail_at(r->err, in->name, in->number + 1, "missing the header \"" CSV_HEADER "\"");
}

static int read_csv_row(struct csv_reader *r, struct cs_span s)
{
    const char *name = r->in->name;
    unsigned line = r->in->number;
    struct csv_row row;
    uint32_t vm;
    if (parse_row(s, &row, name, line, r->err) < 0 || vm_of_row(r, &row, &vm) < 0)
        return -1;
    struct cs_trace_vm *v = &r->vms[vm];
    if (row.vcores != v->vcores)
        return cs_fail_at(r->err, name, line, "VM %s has %u vcores here but %u on an earlier row",
                          cs_quote(v->name, strlen(v->name)).text, row.vcores, v->vcores);
    if (r->steps && row.t >= r->steps)
        return cs_fail_at(r->err, name, line, "t = %u is not below steps = %u", row.t, r->steps);
    uint32_t steps = r->steps ? r->steps : (row.t >= r->steps_seen ? row.t + 1 : r->steps_seen);
    if ((uint64_t)r->num_vms * steps > CS_TRACE_MAX_SAMPLES)
        return cs_fail_at(r->err, name, line,
                          "trace of %u VMs x %u steps exceeds %" PRIu64 " samples", r->num_vms,
                          steps, CS_TRACE_MAX_SAMPLES);
    struct csv_series *series = &r->series[vm];
    if (series_reserve(series, row.t, r->err) < 0)
        return -1;
    if (series->seen[row.t / 8] & (1u << (row.t % 8)))
        return cs_fail_at(r->err, name, line, "second sample for VM %s at t = %u",
                          cs_quote(v->name, strlen(v->name)).text, row.t);
    series->seen[row.t / 8] |= (uint8_t)(1u << (row.t % 8));
    if (!field_value(row.value, &series->demand[row.t]))
        return cs_fail_at(r->err, name, line, "cpu_pct must be a finite number, empty or nan");
    if (row.t >= r->steps_seen)
        r->steps_seen = row.t + 1;
    return 0;
}

/* The trace from what was read: every series copied into one num_vms x steps array. */
static int build_trace(struct csv_reader *r, struct cs_trace *t)
{
    uint32_t steps = r->steps ? r->steps : r->steps_seen;
    if (trace_alloc(t, r->num_vms, steps, r->step_seconds, r->err) < 0)
        return -1;
    for (uint32_t vm = 0; vm < r->num_vms; vm++) {
        t->vms[vm] = r->vms[vm];
        const struct csv_series *s = &r->series[vm];
        uint32_t given = s->capacity < steps ? s->capacity : steps;
        if (given)
            memcpy(&t->demand[(size_t)vm * steps], s->demand, given * sizeof *s->demand);
    }
    return 0;
}

static int read_csv(struct cs_trace *t, struct cs_lines *in, struct cs_error *err)
{
    memset(t, 0, sizeof *t);
    struct csv_reader r = {.in = in, .err = err, .step_seconds = 60, .previous = UINT32_MAX};
    int rc = read_csv_header(&r);
    struct cs_span s;
    int got = 0;
    while (rc == 0 && (got = cs_lines_next(in, &s)) > 0)
        if (is_data_line(&s))
            rc = read_csv_row(&r, s);
    if (rc == 0 && got < 0)
        rc = -1;
    if (rc == 0)
        rc = build_trace(&r, t);
    for (uint32_t vm = 0; vm < r.num_vms; vm++) {
        free(r.series[vm].demand);
        free(r.series[vm].seen);
    }
    free(r.series);
    free(r.vms);
    free(r.slots);
    return rc;
}

int cs_trace_parse_csv(struct cs_trace *t, const char *text, size_t len, const char *name,
                       struct cs_error *err)
{
    struct cs_lines in;
    cs_lines_init(&in, text, len, name, err);
    return read_csv(t, &in, err);
}

int cs_trace_read_csv(struct cs_trace *t, const char *path, struct cs_error *err)
{
    struct cs_lines in;
    memset(t, 0, sizeof *t);
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    int rc = read_csv(t, &in, err);
    cs_lines_close(&in);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Native CSV writer                                                                            */

/* Fewest significant digits that read back to the same float (at most 9 are ever needed). */
static void put_value(struct cs_outbuf *o, float v)
{
    if (isnan(v))
        return;
    if (v == floorf(v) && fabsf(v) < 1e7f) {
        if (signbit(v)) /* also -0, so that it reads back bit for bit */
            cs_outbuf_char(o, '-');
        cs_outbuf_dec(o, (uint64_t)fabsf(v));
        return;
    }
    char buf[32];
    /* Fast path for two decimals (the synthetic generator's and most tools' resolution),
     * formatted by hand; strtof confirms that it reads back exactly. */
    double hundredths = rint(fabs((double)v) * 100.0);
    if (hundredths < 1e9) {
        uint32_t k = (uint32_t)hundredths, cents = k % 100;
        int n = snprintf(buf, sizeof buf, "%s%u.%02u", signbit(v) ? "-" : "", k / 100, cents);
        if (cents % 10 == 0)
            buf[--n] = '\0'; /* "12.50" -> "12.5" (whole numbers took the path above) */
        if (strtof(buf, NULL) == v) {
            cs_outbuf_mem(o, buf, (size_t)n);
            return;
        }
    }
    for (int digits = 1; digits <= 9; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, (double)v);
        if (strtof(buf, NULL) == v)
            break;
    }
    cs_outbuf_str(o, buf);
}

int cs_trace_write_csv(FILE *out, const struct cs_trace *t, struct cs_error *err)
{
    struct cs_outbuf o;
    if (cs_outbuf_init(&o, out, err) < 0)
        return -1;
    /* steps=0 is not a valid directive: an empty trace reads back empty without it. */
    cs_outbuf_printf(&o, CSV_DIRECTIVE " step_seconds=%u", t->step_seconds);
    if (t->steps > 0)
        cs_outbuf_printf(&o, " steps=%u", t->steps);
    cs_outbuf_str(&o, "\n" CSV_HEADER "\n");
    for (uint32_t vm = 0; vm < t->num_vms; vm++) {
        const float *d = cs_trace_vm_demand(t, vm);
        /* "name,vcores," is the same on every row of the VM. */
        char prefix[CS_TRACE_NAME_MAX + 16];
        int n = snprintf(prefix, sizeof prefix, "%s,%u,", t->vms[vm].name, t->vms[vm].vcores);
        for (uint32_t s = 0; s < t->steps; s++) {
            cs_outbuf_mem(&o, prefix, (size_t)n);
            cs_outbuf_dec(&o, s);
            cs_outbuf_char(&o, ',');
            put_value(&o, d[s]);
            cs_outbuf_char(&o, '\n');
        }
    }
    return cs_outbuf_finish(&o, "writing the trace", err);
}

static int write_csv_cb(FILE *out, const void *ctx, struct cs_error *err)
{
    return cs_trace_write_csv(out, ctx, err);
}

int cs_trace_write_csv_file(const char *path, const struct cs_trace *t, struct cs_error *err)
{
    return cs_atomic_write(path, write_csv_cb, t, err);
}

/* ------------------------------------------------------------------------------------------ */
/* PlanetLab / CoMon directory                                                                  */

#define PLANETLAB_STEP_SECONDS 300u

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One file: integer percent per line; samples appended to *values (grown), count in *n. */
static int read_planetlab_file(const char *path, float **values, uint32_t *capacity, uint32_t *n,
                               struct cs_error *err)
{
    struct cs_lines in;
    struct cs_span s;
    if (cs_lines_open(&in, path, err) < 0)
        return -1;
    *n = 0;
    int rc = 0, got;
    while ((got = cs_lines_next(&in, &s)) > 0) {
        cs_span_skip_space(&s);
        cs_span_trim_right(&s);
        bool negative = cs_span_eat_char(&s, '-');
        uint64_t v;
        if (cs_span_empty(&s) || *s.p < '0' || *s.p > '9' || !cs_span_u64(&s, 10, &v) ||
            !cs_span_empty(&s) || v > 1000000) {
            rc = cs_fail_at(err, path, in.number, "expected an integer CPU percentage");
            break;
        }
        if (cs_grow((void **)values, capacity, (uint64_t)*n + 1, sizeof **values, err) < 0) {
            rc = -1;
            break;
        }
        (*values)[(*n)++] = negative ? -(float)v : (float)v;
    }
    if (got < 0)
        rc = -1;
    cs_lines_close(&in);
    return rc;
}

int cs_trace_read_planetlab(struct cs_trace *t, const char *dir,
                            const struct cs_planetlab_options *opt, struct cs_error *err)
{
    memset(t, 0, sizeof *t);
    uint32_t vcores = opt && opt->vcores ? opt->vcores : 1;
    uint32_t step_seconds = opt && opt->step_seconds ? opt->step_seconds : 60;
    if (PLANETLAB_STEP_SECONDS % step_seconds != 0)
        return cs_fail(err, "step of %u s does not divide the PlanetLab step of 300 s",
                       step_seconds);
    if (vcores > MAX_VCORES)
        return cs_fail(err, "vcores must be 1..%u", MAX_VCORES);
    uint32_t repeat = PLANETLAB_STEP_SECONDS / step_seconds;

    DIR *d = opendir(dir);
    if (!d)
        return cs_fail(err, "%s: %s", dir, strerror(errno));
    char **names = NULL, *path = NULL;
    uint32_t count = 0, names_capacity = 0;
    float **series = NULL; /* per file, then its length */
    uint32_t *lengths = NULL;
    int rc = -1;
    struct dirent *e;
    size_t dir_len = strlen(dir);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (strlen(e->d_name) > CS_TRACE_NAME_MAX) {
            cs_fail(err, "%s/%s: file name longer than %d characters", dir, e->d_name,
                    CS_TRACE_NAME_MAX);
            goto out;
        }
        if (cs_grow((void **)&names, &names_capacity, (uint64_t)count + 1, sizeof *names, err) < 0)
            goto out;
        names[count] = strdup(e->d_name);
        if (!names[count]) {
            cs_fail(err, "out of memory");
            goto out;
        }
        count++;
    }
    if (count > 0)
        qsort(names, count, sizeof *names, compare_names);
    series = cs_calloc_array(count, sizeof *series, err);
    lengths = cs_calloc_array(count, sizeof *lengths, err);
    path = malloc(dir_len + CS_TRACE_NAME_MAX + 2);
    if (!series || !lengths || !path) {
        if (!path)
            cs_fail(err, "out of memory");
        goto out;
    }
    uint32_t longest = 0;
    for (uint32_t i = 0; i < count; i++) {
        snprintf(path, dir_len + CS_TRACE_NAME_MAX + 2, "%s/%s", dir, names[i]);
        struct stat st;
        if (stat(path, &st) != 0) {
            cs_fail_errno(err, path);
            goto out;
        }
        if (!S_ISREG(st.st_mode)) {
            cs_fail(err, "%s: not a regular file", path);
            goto out;
        }
        uint32_t capacity = 0;
        if (read_planetlab_file(path, &series[i], &capacity, &lengths[i], err) < 0)
            goto out;
        if (lengths[i] > longest)
            longest = lengths[i];
    }
    if ((uint64_t)longest * repeat > UINT32_MAX) {
        cs_fail(err, "%s: series too long", dir);
        goto out;
    }
    if (trace_alloc(t, count, longest * repeat, step_seconds, err) < 0)
        goto out;
    for (uint32_t i = 0; i < count; i++) {
        memcpy(t->vms[i].name, names[i], strlen(names[i]) + 1);
        t->vms[i].vcores = vcores;
        float *dst = cs_trace_vm_demand(t, i);
        /* Each 5-minute average holds for every step inside its period: repetition keeps the
         * mean of every period and adds no invented detail. */
        for (uint32_t k = 0; k < lengths[i]; k++)
            for (uint32_t r = 0; r < repeat; r++)
                dst[(size_t)k * repeat + r] = series[i][k];
    }
    rc = 0;
out:
    closedir(d);
    for (uint32_t i = 0; i < count; i++) {
        free(names[i]);
        if (series)
            free(series[i]);
    }
    free(names);
    free(series);
    free(lengths);
    free(path);
    return rc;
}

/* ------------------------------------------------------------------------------------------ */
/* Synthetic UiO-like data set                                                                  */

void cs_synthetic_defaults(struct cs_synthetic_options *o)
{
    o->vms = 405;           /* spec §2, seed line 7046 */
    o->total_vcores = 1030; /* seed line 7047 */
    o->days = 13;           /* seed lines 7092, 7039-7040 */
    o->steps_per_day = 1440;
    o->seed = 1;
    o->heavy_fraction = 0.05; /* "a few VMs are heavily utilized", line 7059-7060 */
    /* Bin counts of Fig. 4 (lines 7246-7253) put the aggregate mean at about 5000-5900%. */
    o->mean_vcore_pct = 5400.0 / 1030.0;
}

static double uniform(struct cs_rng *r)
{
    return (double)(cs_rng_next(r) >> 11) * 0x1.0p-53;
}

/* Sizes for the VMs: the default mix 164/149/56/22/14 of 1/2/4/8/12 vCores (spec F11: "majority
 * one or two, a few four, eight or twelve", seed lines 7047-7049) scaled to opt->vms; then one
 * vCore at a time is added to or removed from VMs, cyclically, until the total is met. */
static void assign_vcores(struct cs_trace *t, uint32_t total, struct cs_rng *rng)
{
    static const uint32_t size[] = {1, 2, 4, 8, 12};
    static const uint32_t mix[] = {164, 149, 56, 22, 14}; /* sums to 405 VMs, 1030 vCores */
    uint32_t n = t->num_vms, at = 0;
    uint64_t done = 0;
    for (uint32_t k = 0; k < 5; k++) {
        done += mix[k];
        uint32_t upto = (uint32_t)(done * n / 405);
        for (; at < upto; at++)
            t->vms[at].vcores = size[k];
    }
    for (; at < n; at++)
        t->vms[at].vcores = 1;
    /* Shuffle so that sizes are not sorted by VM name (Fisher-Yates). */
    for (uint32_t i = n; i > 1; i--) {
        uint32_t j = cs_rng_below(rng, i);
        uint32_t tmp = t->vms[i - 1].vcores;
        t->vms[i - 1].vcores = t->vms[j].vcores;
        t->vms[j].vcores = tmp;
    }
    uint64_t sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += t->vms[i].vcores;
    for (uint32_t i = 0; sum != total; i = (i + 1) % n) {
        if (sum < total && t->vms[i].vcores < 12) {
            t->vms[i].vcores++;
            sum++;
        } else if (sum > total && t->vms[i].vcores > 1) {
            t->vms[i].vcores--;
            sum--;
        }
    }
}

int cs_trace_synthetic(struct cs_trace *t, const struct cs_synthetic_options *opt,
                       struct cs_error *err)
{
    struct cs_synthetic_options o;
    if (opt)
        o = *opt;
    else
        cs_synthetic_defaults(&o);
    memset(t, 0, sizeof *t);
    if (o.vms == 0 || o.days == 0 || o.steps_per_day == 0)
        return cs_fail(err, "synthetic trace needs at least one VM, day and step");
    if (o.total_vcores < o.vms || o.total_vcores > 12ull * o.vms)
        return cs_fail(err, "%u vCores cannot be spread over %u VMs of 1..12 vCores",
                       o.total_vcores, o.vms);
    if (!(o.mean_vcore_pct >= 0 && o.mean_vcore_pct <= 100))
        return cs_fail(err, "mean demand per vCore must be in [0, 100] percent");
    if (!(o.heavy_fraction >= 0 && o.heavy_fraction <= 1))
        return cs_fail(err, "heavy fraction must be in [0, 1]");
    if ((uint64_t)o.days * o.steps_per_day > UINT32_MAX)
        return cs_fail(err, "too many steps");
    uint32_t steps = o.days * o.steps_per_day;
    if (trace_alloc(t, o.vms, steps, 86400 / o.steps_per_day ? 86400 / o.steps_per_day : 1, err) <
        0)
        return -1;
    struct cs_rng rng;
    cs_rng_seed(&rng, o.seed);
    for (uint32_t i = 0; i < o.vms; i++)
        snprintf(t->vms[i].name, sizeof t->vms[i].name, "vm%03u", i);
    assign_vcores(t, o.total_vcores, &rng);

    uint32_t heavy = (uint32_t)(o.heavy_fraction * o.vms + 0.5);
    /* Steps per 5-minute configuration-management period (seed lines 7054-7057). */
    uint32_t period = o.steps_per_day >= 288 ? o.steps_per_day / 288 : 1;
    for (uint32_t vm = 0; vm < o.vms; vm++) {
        float *d = cs_trace_vm_demand(t, vm);
        double cap = 100.0 * t->vms[vm].vcores;
        /* The first `heavy` VMs after a shuffle would need another pass; a per-VM draw with
         * exact count uses selection sampling (Knuth's algorithm S). */
        bool is_heavy = heavy > 0 && uniform(&rng) * (o.vms - vm) < heavy;
        if (is_heavy)
            heavy--;
        /* Idle VMs: a small background per vCore; heavy VMs: 25-70% of every vCore. */
        double level = is_heavy ? (0.25 + 0.45 * uniform(&rng)) * cap
                                : (0.5 + 2.0 * uniform(&rng)) * t->vms[vm].vcores;
        double burst = 15.0 + 30.0 * uniform(&rng); /* one busy core share of the daemon run */
        for (uint32_t s = 0; s < steps; s++) {
            /* Day starts at 10:25 (line 7039); office-hours swing peaking at 14:00. */
            double minute_of_day = fmod(625.0 + (double)s * 1440.0 / o.steps_per_day, 1440.0);
            double diurnal = 1.0 + 0.3 * cos(2.0 * M_PI * (minute_of_day - 840.0) / 1440.0);
            double noise = 0.5 + uniform(&rng); /* mean 1 */
            double v = level * diurnal * noise;
            /* The daemon runs on every VM in the same step of each period: the aggregate shows
             * the "sinusoidal-like" 5-minute pattern of Fig. 1(b). It misses 10% of runs. */
            if (s % period == 0 && uniform(&rng) < 0.9)
                v += burst * (0.5 + uniform(&rng));
            if (v > cap)
                v = cap;
            d[s] = (float)v;
        }
    }
    /* Which VMs turn out heavy, and how big they are, moves the aggregate by +-10% between
     * seeds; one common scale factor pins it without changing any VM's shape. */
    double sum = 0;
    for (size_t i = 0; i < (size_t)o.vms * steps; i++)
        sum += t->demand[i];
    double target = o.mean_vcore_pct * o.total_vcores * steps;
    double scale = target > 0 && sum > 0 ? target / sum : 1.0;
    for (uint32_t vm = 0; vm < o.vms; vm++) {
        float *d = cs_trace_vm_demand(t, vm);
        double cap = 100.0 * t->vms[vm].vcores;
        for (uint32_t s = 0; s < steps; s++) {
            double v = fmin(d[s] * scale, cap);
            d[s] = (float)(round(v * 100.0) / 100.0); /* 0.01% resolution, like the source */
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Cleaning                                                                                     */

void cs_trace_clean_defaults(struct cs_trace_clean_options *o)
{
    o->max_fill_steps = 5;
}

const char *cs_trace_verdict_name(enum cs_trace_verdict v)
{
    switch (v) {
    case CS_TRACE_KEPT:
        return "kept";
    case CS_TRACE_DROPPED_GAP:
        return "dropped-gap";
    case CS_TRACE_DROPPED_EMPTY:
        return "dropped-empty";
    }
    return "?";
}

void cs_trace_clean_report_free(struct cs_trace_clean_report *r)
{
    free(r->vms);
    memset(r, 0, sizeof *r);
}

static bool bad_sample(float v, double cap)
{
    return isnan(v) || v < 0 || v > cap;
}

int cs_trace_clean(struct cs_trace *t, const struct cs_trace_clean_options *opt,
                   struct cs_trace_clean_report *r, struct cs_error *err)
{
    struct cs_trace_clean_options o;
    if (opt)
        o = *opt;
    else
        cs_trace_clean_defaults(&o);
    memset(r, 0, sizeof *r);
    r->vms = cs_calloc_array(t->num_vms, sizeof *r->vms, err);
    if (!r->vms)
        return -1;
    r->vms_in = t->num_vms;
    uint32_t kept = 0;
    for (uint32_t vm = 0; vm < t->num_vms; vm++) {
        struct cs_trace_clean_vm *c = &r->vms[vm];
        memcpy(c->name, t->vms[vm].name, sizeof c->name);
        c->vcores = t->vms[vm].vcores;
        r->vcores_in += c->vcores;
        double cap = 100.0 * c->vcores;
        float *d = cs_trace_vm_demand(t, vm);
        uint32_t run = 0, good = 0;
        for (uint32_t s = 0; s < t->steps; s++) {
            float v = d[s];
            if (!bad_sample(v, cap)) {
                good++;
                run = 0;
                continue;
            }
            if (isnan(v))
                c->missing++;
            else if (v < 0)
                c->negative++;
            else
                c->over_capacity++;
            if (++run > c->longest_bad_run)
                c->longest_bad_run = run;
        }
        r->missing += c->missing;
        r->negative += c->negative;
        r->over_capacity += c->over_capacity;
        if (good == 0 && t->steps > 0) {
            c->verdict = CS_TRACE_DROPPED_EMPTY;
            r->dropped_empty++;
            continue;
        }
        if (c->longest_bad_run > o.max_fill_steps) {
            c->verdict = CS_TRACE_DROPPED_GAP;
            r->dropped_gap++;
            continue;
        }
        /* Hold the last good value; a leading run takes the first good value. */
        float last = NAN;
        for (uint32_t s = 0; s < t->steps && isnan(last); s++)
            if (!bad_sample(d[s], cap))
                last = d[s];
        for (uint32_t s = 0; s < t->steps; s++) {
            if (bad_sample(d[s], cap)) {
                d[s] = last;
                c->filled++;
            } else {
                last = d[s];
            }
        }
        r->filled += c->filled;
        r->vcores_kept += c->vcores;
        if (kept != vm) {
            t->vms[kept] = t->vms[vm];
            memmove(cs_trace_vm_demand(t, kept), d, (size_t)t->steps * sizeof *d);
        }
        kept++;
    }
    r->vms_kept = kept;
    t->num_vms = kept;
    return 0;
}
