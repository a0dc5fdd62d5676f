/* cloudsm delay: workload delay of a trace on one host, and consolidation experiments
 * (delay.h, docs/delay.md). */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cloudsm/atomic_file.h"
#include "cloudsm/delay.h"
#include "cloudsm/json.h"
#include "cloudsm/trace.h"
#include "plot.h"

#define TRACE_INPUT_HELP                                                                           \
    "TRACE is a native CSV trace (docs/formats/trace.md), a PlanetLab/CoMon directory (one\n"      \
    "file per VM, 5-minute integer percentages), or the word `synthetic` for the seeded\n"         \
    "UiO-like data set (405 VMs, 1030 vCores, 13 days of minutes; --seed S). Traces are\n"         \
    "cleaned first (gaps of up to 5 steps filled, VMs with longer gaps dropped; a note on\n"       \
    "stderr says what was dropped).\n"

static const char eval_help[] =
    "usage: cloudsm delay eval TRACE --cores C [options]\n"
    "\n"
    "Put all VMs of a trace together on one host of C cores (capacity C*100%) and compute\n"
    "the workload delay: backlog q(t) = max(q(t-1) + d(t) - C*100, 0), current delay q/C\n"
    "(minutes the host needs to clear the backlog), total delay = sum of current delays.\n"
    "\n" TRACE_INPUT_HELP "\n"
    "options:\n"
    "  --cores C        cores of the host (required)\n"
    "  --unit U         drain (default: q / capacity) or core (backlog as core-minutes, q/100)\n"
    "  --seed S         seed of the synthetic trace (default 1)\n"
    "  --series FILE    per-step CSV: t,demand_pct,served_pct,queue_pct,delay_min\n"
    "  --json           keys total_delay, max_delay, delayed_fraction, filling (fraction,\n"
    "                   from demand, may exceed 1), mean_delay_when_delayed, steps, vms\n"
    "\n"
    "examples:\n"
    "  cloudsm delay eval synthetic --cores 64\n"
    "  cloudsm delay eval trace.csv --cores 12 --json\n";

static const char experiment_help[] =
    "usage: cloudsm delay experiment TRACE [options]\n"
    "\n"
    "Consolidate the VMs of a trace into hosts (bins) and measure the delay per bin, as in\n"
    "Tasoulas et al. (NCA 2017). VMs are taken by decreasing average demand over the training\n"
    "window. utilization policy: a VM fits a bin if the summed averages stay within\n"
    "threshold * capacity. delay policy: a VM fits if the bin's total delay over the training\n"
    "window, computed at capacity threshold * C*100, stays within the accepted delay; a VM\n"
    "that opens a bin stays even if alone it exceeds it. Delays are always reported at the\n"
    "full capacity.\n"
    "\n"
    "modes: lodo (default; Figs. 6-7, Tables I-II): every day in turn is the test day, the\n"
    "other days the training window; accepted delay is per day. whole (Figs. 4-5): pack and\n"
    "evaluate on the whole trace; accepted delay is the total over the trace.\n"
    "\n" TRACE_INPUT_HELP "\n"
    "options:\n"
    "  --mode M           lodo or whole\n"
    "  --policy P         util (default) or delay\n"
    "  --cores LIST       cores per bin (default 12,16,32)\n"
    "  --thresholds LIST  bin-filling thresholds in percent (default: util lodo 30,40,...,100;\n"
    "                     otherwise 70,80,90,100)\n"
    "  --accepted LIST    accepted delays in minutes (delay policy; default lodo 1,10,100,1000,\n"
    "                     whole 1000)\n"
    "  --fit F            first (default, the procedure the paper describes) or best\n"
    "  --unit U           drain (default) or core, see `cloudsm delay eval --help`\n"
    "  --threads N        worker threads (default: one per CPU); results do not depend on it\n"
    "  --seed S           seed of the synthetic trace (default 1)\n"
    "  --csv FILE         one line per bin: mode,policy,fold,cores,threshold_pct,accepted_min,\n"
    "                     bin,vms,bins_in_packing,filling_pct,total_delay_min,delayed_pct,\n"
    "                     mean_delay_when_delayed_min,max_delay_min\n"
    "  --plot PREFIX      one SVG per threshold (and accepted delay): bin filling vs total\n"
    "                     delay, log scale, one marker per core count, mean and median lines;\n"
    "                     written to PREFIX-t<pct>[-a<min>].svg\n"
    "  --sla              SLA view: per threshold (and accepted delay) the share of bins whose\n"
    "                     delay per day stayed within the accepted value, lone-VM bins apart\n"
    "  --json             the table rows (and SLA view) as JSON\n"
    "\n"
    "The table has the columns of Tables I (util) and II (delay) of the paper, bins pooled\n"
    "over core counts and folds.\n"
    "\n"
    "examples:\n"
    "  cloudsm delay experiment synthetic                        # Table I\n"
    "  cloudsm delay experiment synthetic --policy delay --sla   # Table II + SLA\n"
    "  cloudsm delay experiment synthetic --mode whole --thresholds 70,80,90,100 --csv b.csv\n";

static int load_trace(const char *who, const char *path, uint64_t seed, struct cs_trace *t)
{
    struct cs_error err;
    struct stat st;
    int rc;
    if (strcmp(path, "synthetic") == 0) {
        struct cs_synthetic_options o;
        cs_synthetic_defaults(&o);
        o.seed = seed;
        rc = cs_trace_synthetic(t, &o, &err);
    } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        struct cs_planetlab_options o = {0, 0};
        rc = cs_trace_read_planetlab(t, path, &o, &err);
    } else {
        rc = cs_trace_read_csv(t, path, &err);
    }
    if (rc < 0)
        return cli_fail(who, &err);
    struct cs_trace_clean_report rep;
    if (cs_trace_clean(t, NULL, &rep, &err) < 0) {
        cs_trace_free(t);
        return cli_fail(who, &err);
    }
    if (rep.vms_kept < rep.vms_in || rep.filled)
        fprintf(stderr,
                "cloudsm %s: cleaning kept %u of %u VMs (%llu of %llu vCores), filled %llu "
                "samples\n",
                who, rep.vms_kept, rep.vms_in, (unsigned long long)rep.vcores_kept,
                (unsigned long long)rep.vcores_in, (unsigned long long)rep.filled);
    cs_trace_clean_report_free(&rep);
    if (t->num_vms == 0) {
        cs_trace_free(t);
        struct cs_error e2;
        cs_fail(&e2, "%s: no VM left after cleaning", path);
        return cli_fail(who, &e2);
    }
    return EXIT_OK;
}

static bool parse_unit(const char *s, enum cs_delay_unit *u)
{
    if (strcmp(s, "drain") == 0)
        *u = CS_DELAY_DRAIN_TIME;
    else if (strcmp(s, "core") == 0)
        *u = CS_DELAY_CORE_TIME;
    else
        return false;
    return true;
}

struct series_ctx {
    const double *demand;
    uint32_t steps;
    double capacity, step_minutes;
    enum cs_delay_unit unit;
};

static int write_series(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct series_ctx *s = ctx;
    double *q = malloc(s->steps * sizeof *q), *served = malloc(s->steps * sizeof *served),
           *cur = malloc(s->steps * sizeof *cur);
    if (!q || !served || !cur) {
        free(q);
        free(served);
        free(cur);
        return cs_fail(err, "out of memory");
    }
    cs_delay_series(s->demand, s->steps, s->capacity, s->unit, s->step_minutes, q, served, cur);
    fputs("t,demand_pct,served_pct,queue_pct,delay_min\n", out);
    for (uint32_t t = 0; t < s->steps; t++)
        fprintf(out, "%u,%.6g,%.6g,%.6g,%.6g\n", t, s->demand[t], served[t], q[t], cur[t]);
    free(q);
    free(served);
    free(cur);
    return ferror(out) ? cs_fail(err, "write error") : 0;
}

static int eval_main(int argc, char **argv)
{
    const char *who = "delay eval";
    unsigned cores = 0;
    bool as_json = false;
    enum cs_delay_unit unit = CS_DELAY_DRAIN_TIME;
    uint64_t seed = 1;
    const char *series = NULL;
    static const struct option options[] = {
        {"cores", required_argument, NULL, 'c'}, {"unit", required_argument, NULL, 'u'},
        {"seed", required_argument, NULL, 's'},  {"series", required_argument, NULL, 'S'},
        {"json", no_argument, NULL, 'j'},        {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'c':
            if (!cli_parse_uint(optarg, 1, 1000000, &cores))
                return cli_usage(who, "--cores wants 1 or more, not '%s'", optarg);
            break;
        case 'u':
            if (!parse_unit(optarg, &unit))
                return cli_usage(who, "--unit wants drain or core, not '%s'", optarg);
            break;
        case 's':
            if (!cli_parse_u64(optarg, &seed))
                return cli_usage(who, "--seed wants a number, not '%s'", optarg);
            break;
        case 'S':
            series = optarg;
            break;
        case 'j':
            as_json = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage(who, "want exactly one TRACE");
    if (!cores)
        return cli_usage(who, "--cores is required");
    struct cs_trace t;
    int rc = load_trace(who, argv[optind], seed, &t);
    if (rc)
        return rc;
    struct cs_error err;
    double *sum = calloc(t.steps ? t.steps : 1, sizeof *sum);
    if (!sum) {
        cs_trace_free(&t);
        cs_fail(&err, "out of memory");
        return cli_fail(who, &err);
    }
    for (uint32_t vm = 0; vm < t.num_vms; vm++) {
        const float *d = cs_trace_vm_demand(&t, vm);
        for (uint32_t s = 0; s < t.steps; s++)
            sum[s] += d[s];
    }
    struct cs_demand dm = cs_demand_of_trace(&t);
    struct cs_delay_stats st;
    cs_delay_eval(sum, t.steps, cores * 100.0, unit, dm.step_minutes, &st);
    struct series_ctx sctx = {sum, t.steps, cores * 100.0, dm.step_minutes, unit};
    if (series && cs_atomic_write(series, write_series, &sctx, &err) < 0) {
        rc = cli_fail(who, &err);
    } else if (as_json) {
        struct cs_json j;
        cs_json_init(&j, stdout);
        cs_json_object_begin(&j, NULL);
        cs_json_u64(&j, "vms", t.num_vms);
        cs_json_u64(&j, "steps", t.steps);
        cs_json_u64(&j, "cores", cores);
        cs_json_str(&j, "unit", unit == CS_DELAY_CORE_TIME ? "core" : "drain");
        cs_json_double(&j, "total_delay", st.total_delay);
        cs_json_double(&j, "max_delay", st.max_delay);
        cs_json_double(&j, "delayed_fraction", st.delayed_fraction);
        cs_json_double(&j, "mean_delay_when_delayed", st.mean_when_delayed);
        cs_json_double(&j, "filling", st.filling);
        cs_json_object_end(&j);
        cs_json_finish(&j);
    } else {
        printf("%u VMs, %u steps of %g min, one host of %u cores (%s time)\n", t.num_vms, t.steps,
               dm.step_minutes, cores, unit == CS_DELAY_CORE_TIME ? "core" : "drain");
        printf("total delay          %.2f min\n", st.total_delay);
        printf("max delay            %.2f min\n", st.max_delay);
        printf("delayed steps        %.2f%%\n", st.delayed_fraction * 100);
        printf("mean delay (delayed) %.2f min\n", st.mean_when_delayed);
        printf("bin filling          %.2f%%\n", st.filling * 100);
    }
    free(sum);
    cs_trace_free(&t);
    return rc;
}

/* "a,b,c" -> doubles; false on a bad list. */
static bool parse_list(const char *s, double *out, uint32_t max, uint32_t *n)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        char *end;
        double v = strtod(p, &end);
        if (end == p || !(v >= 0) || !isfinite(v) || *n == max)
            return false;
        out[(*n)++] = v;
        if (*end == ',')
            end++;
        else if (*end)
            return false;
        p = end;
    }
    return *n > 0;
}

struct exp_ctx {
    const struct cs_experiment_result *r;
    const char *mode, *policy;
};

static int write_bins_csv(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct exp_ctx *c = ctx;
    fputs("mode,policy,fold,cores,threshold_pct,accepted_min,bin,vms,bins_in_packing,"
          "filling_pct,total_delay_min,delayed_pct,mean_delay_when_delayed_min,max_delay_min\n",
          out);
    for (size_t i = 0; i < c->r->num_bins; i++) {
        const struct cs_bin_result *b = &c->r->bins[i];
        fprintf(out, "%s,%s,%u,%u,%g,%g,%u,%u,%u,%.4f,%.4f,%.4f,%.4f,%.4f\n", c->mode, c->policy,
                b->fold, b->cores, b->threshold * 100, b->accepted, b->bin, b->vms,
                b->bins_in_packing, b->stats.filling * 100, b->stats.total_delay,
                b->stats.delayed_fraction * 100, b->stats.mean_when_delayed, b->stats.max_delay);
    }
    return ferror(out) ? cs_fail(err, "write error") : 0;
}

struct plot_ctx {
    const struct cs_experiment_result *r;
    const uint32_t *cores;
    uint32_t num_cores;
    double threshold, accepted;
    const struct cs_table_row *row;
    const char *title;
};

static bool same_value(double a, double b)
{
    return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b) + 1);
}

static int write_plot(FILE *out, const void *ctx, struct cs_error *err)
{
    const struct plot_ctx *c = ctx;
    size_t n = c->r->num_bins;
    double *x = calloc(n ? n : 1, sizeof *x), *y = calloc(n ? n : 1, sizeof *y);
    struct plot_series series[16];
    char labels[16][32];
    if (!x || !y) {
        free(x);
        free(y);
        return cs_fail(err, "out of memory");
    }
    size_t used = 0;
    uint32_t ns = 0;
    for (uint32_t k = 0; k < c->num_cores && ns < 16; k++) {
        series[ns].x = x + used;
        series[ns].y = y + used;
        series[ns].count = 0;
        snprintf(labels[ns], sizeof labels[ns], "%u cores", c->cores[k]);
        series[ns].label = labels[ns];
        for (size_t i = 0; i < n; i++) {
            const struct cs_bin_result *b = &c->r->bins[i];
            if (b->cores != c->cores[k] || !same_value(b->threshold, c->threshold) ||
                (c->accepted >= 0 && !same_value(b->accepted, c->accepted)))
                continue;
            x[used] = b->stats.filling * 100;
            y[used] = b->stats.total_delay;
            used++;
            series[ns].count++;
        }
        ns++;
    }
    double v[2] = {c->row->avg_filling * 100, c->row->med_filling * 100};
    double h[2] = {c->row->avg_delay, c->row->med_delay};
    struct plot_scatter s = {c->title,
                             "bin filling on the test window (%)",
                             "total delay per bin (min, log scale)",
                             series,
                             ns,
                             1,
                             0.01,
                             v,
                             2,
                             h,
                             2};
    int rc = plot_scatter_svg(out, &s);
    free(x);
    free(y);
    return rc ? cs_fail(err, "write error") : 0;
}

static void print_table_header(bool by_delay)
{
    if (by_delay)
        printf("| Accepted total delay (mins) ");
    printf("| Bin filling threshold (pct) | Avg total delay per bin (mins) | Med total delay per "
           "bin (mins) | Max total bin delay in bins (mins) | Avg bin filling (pct) | Med bin "
           "filling (pct) | Max bin filling (pct) | Avg workload delayed in bins (pct) | %s |\n",
           by_delay ? "Avg delay when delay > 0 (mins)"
                    : "Avg delay experienced by workload when delay > 0 (mins)");
    printf("|%s---|---|---|---|---|---|---|---|---|\n", by_delay ? "---|" : "");
}

static void print_table_row(const struct cs_table_row *r, bool by_delay)
{
    if (by_delay)
        printf("| %g ", r->accepted);
    printf("| %g%% | %.2f | %.2f | %.2f | %.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f |\n",
           r->threshold * 100, r->avg_delay, r->med_delay, r->max_delay, r->avg_filling * 100,
           r->med_filling * 100, r->max_filling * 100, r->avg_delayed_fraction * 100,
           r->avg_delay_when_delayed);
}

static int experiment_main(int argc, char **argv)
{
    const char *who = "delay experiment";
    double cores_d[16], thresholds[32], accepted[32];
    uint32_t num_cores = 0, num_th = 0, num_acc = 0;
    bool lodo = true, by_delay = false, sla = false, as_json = false;
    enum cs_pack_fit fit = CS_FIT_FIRST;
    enum cs_delay_unit unit = CS_DELAY_DRAIN_TIME;
    unsigned threads = 0;
    uint64_t seed = 1;
    const char *csv = NULL, *plot = NULL;
    static const struct option options[] = {
        {"mode", required_argument, NULL, 'm'},     {"policy", required_argument, NULL, 'p'},
        {"cores", required_argument, NULL, 'c'},    {"thresholds", required_argument, NULL, 'T'},
        {"accepted", required_argument, NULL, 'a'}, {"fit", required_argument, NULL, 'f'},
        {"unit", required_argument, NULL, 'u'},     {"threads", required_argument, NULL, 't'},
        {"seed", required_argument, NULL, 's'},     {"csv", required_argument, NULL, 'C'},
        {"plot", required_argument, NULL, 'G'},     {"sla", no_argument, NULL, 'L'},
        {"json", no_argument, NULL, 'j'},           {NULL, 0, NULL, 0},
    };
    int opt;
    while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
        switch (opt) {
        case 'm':
            if (strcmp(optarg, "lodo") && strcmp(optarg, "whole"))
                return cli_usage(who, "--mode wants lodo or whole, not '%s'", optarg);
            lodo = strcmp(optarg, "lodo") == 0;
            break;
        case 'p':
            if (strcmp(optarg, "util") && strcmp(optarg, "delay"))
                return cli_usage(who, "--policy wants util or delay, not '%s'", optarg);
            by_delay = strcmp(optarg, "delay") == 0;
            break;
        case 'c':
            if (!parse_list(optarg, cores_d, 16, &num_cores))
                return cli_usage(who, "--cores wants a list like 12,16,32, not '%s'", optarg);
            for (uint32_t i = 0; i < num_cores; i++)
                if (cores_d[i] < 1 || cores_d[i] != floor(cores_d[i]) || cores_d[i] > 1e6)
                    return cli_usage(who, "--cores wants whole numbers >= 1, not '%s'", optarg);
            break;
        case 'T':
            if (!parse_list(optarg, thresholds, 32, &num_th))
                return cli_usage(who, "--thresholds wants percentages like 70,80, not '%s'",
                                 optarg);
            for (uint32_t i = 0; i < num_th; i++)
                if (thresholds[i] <= 0)
                    return cli_usage(who, "--thresholds must be positive");
            break;
        case 'a':
            if (!parse_list(optarg, accepted, 32, &num_acc))
                return cli_usage(who, "--accepted wants minutes like 1,10,100, not '%s'", optarg);
            break;
        case 'f':
            if (strcmp(optarg, "first") && strcmp(optarg, "best"))
                return cli_usage(who, "--fit wants first or best, not '%s'", optarg);
            fit = strcmp(optarg, "best") == 0 ? CS_FIT_BEST : CS_FIT_FIRST;
            break;
        case 'u':
            if (!parse_unit(optarg, &unit))
                return cli_usage(who, "--unit wants drain or core, not '%s'", optarg);
            break;
        case 't':
            if (!cli_parse_uint(optarg, 1, 64, &threads))
                return cli_usage(who, "--threads wants 1 to 64, not '%s'", optarg);
            break;
        case 's':
            if (!cli_parse_u64(optarg, &seed))
                return cli_usage(who, "--seed wants a number, not '%s'", optarg);
            break;
        case 'C':
            csv = optarg;
            break;
        case 'G':
            plot = optarg;
            break;
        case 'L':
            sla = true;
            break;
        case 'j':
            as_json = true;
            break;
        default:
            return cli_usage(who, "unknown option");
        }
    }
    if (optind + 1 != argc)
        return cli_usage(who, "want exactly one TRACE");
    if (sla && !by_delay)
        return cli_usage(who, "--sla needs --policy delay (the accepted delay is the SLA)");
    if (!num_cores) {
        cores_d[0] = 12, cores_d[1] = 16, cores_d[2] = 32;
        num_cores = 3;
    }
    if (!num_th) {
        if (lodo && !by_delay)
            for (num_th = 0; num_th < 8; num_th++)
                thresholds[num_th] = 30 + 10 * num_th;
        else
            for (num_th = 0; num_th < 4; num_th++)
                thresholds[num_th] = 70 + 10 * num_th;
    }
    if (by_delay && !num_acc) {
        if (lodo) {
            accepted[0] = 1, accepted[1] = 10, accepted[2] = 100, accepted[3] = 1000;
            num_acc = 4;
        } else {
            accepted[0] = 1000;
            num_acc = 1;
        }
    }
    if (!threads) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n < 1 ? 1 : n > 64 ? 64 : (unsigned)n;
    }
    uint32_t cores[16];
    double fractions[32];
    for (uint32_t i = 0; i < num_cores; i++)
        cores[i] = (uint32_t)cores_d[i];
    for (uint32_t i = 0; i < num_th; i++)
        fractions[i] = thresholds[i] / 100;

    struct cs_trace t;
    int rc = load_trace(who, argv[optind], seed, &t);
    if (rc)
        return rc;
    struct cs_demand d = cs_demand_of_trace(&t);
    struct cs_experiment e = {by_delay ? CS_PACK_DELAY : CS_PACK_UTIL,
                              fit,
                              unit,
                              lodo,
                              0,
                              cores,
                              num_cores,
                              fractions,
                              num_th,
                              by_delay ? accepted : NULL,
                              by_delay ? num_acc : 0,
                              threads};
    struct cs_experiment_result r;
    struct cs_error err;
    const char *mode = lodo ? "lodo" : "whole", *policy = by_delay ? "delay" : "util";
    if (cs_experiment_run(&d, &e, &r, &err) < 0) {
        cs_trace_free(&t);
        return cli_fail(who, &err);
    }
    struct exp_ctx ectx = {&r, mode, policy};
    if (csv && cs_atomic_write(csv, write_bins_csv, &ectx, &err) < 0)
        goto failed;

    uint32_t rows_n = num_th * (by_delay ? num_acc : 1);
    struct cs_table_row *rows = calloc(rows_n, sizeof *rows);
    struct cs_sla_summary *slas = calloc(rows_n, sizeof *slas);
    if (!rows || !slas) {
        free(rows);
        free(slas);
        cs_fail(&err, "out of memory");
        goto failed;
    }
    /* Rows in the order of the paper's tables: accepted delay, then threshold. */
    uint32_t ri = 0;
    for (uint32_t a = 0; a < (by_delay ? num_acc : 1); a++)
        for (uint32_t h = 0; h < num_th; h++, ri++) {
            double acc = by_delay ? accepted[a] : -1;
            if (cs_experiment_table_row(&r, fractions[h], acc, &rows[ri], &err) < 0) {
                free(rows);
                free(slas);
                goto failed;
            }
            rows[ri].accepted = by_delay ? accepted[a] : 0;
            if (sla) {
                /* whole mode: the accepted total over the trace, as a mean per day */
                double per_day = lodo ? accepted[a] : accepted[a] / r.window_days;
                cs_experiment_sla(&r, fractions[h], accepted[a], per_day, &slas[ri]);
            }
            if (plot) {
                char path[4096], title[128];
                if (by_delay) {
                    snprintf(path, sizeof path, "%s-t%g-a%g.svg", plot, thresholds[h], accepted[a]);
                    snprintf(title, sizeof title,
                             "%s, delay packing: threshold %g%%, accepted %g min", mode,
                             thresholds[h], accepted[a]);
                } else {
                    snprintf(path, sizeof path, "%s-t%g.svg", plot, thresholds[h]);
                    snprintf(title, sizeof title, "%s, utilization packing: threshold %g%%", mode,
                             thresholds[h]);
                }
                struct plot_ctx pc = {&r, cores, num_cores, fractions[h], acc, &rows[ri], title};
                if (cs_atomic_write(path, write_plot, &pc, &err) < 0) {
                    free(rows);
                    free(slas);
                    goto failed;
                }
            }
        }
    if (as_json) {
        struct cs_json j;
        cs_json_init(&j, stdout);
        cs_json_object_begin(&j, NULL);
        cs_json_str(&j, "mode", mode);
        cs_json_str(&j, "policy", policy);
        cs_json_str(&j, "fit", fit == CS_FIT_BEST ? "best" : "first");
        cs_json_str(&j, "unit", unit == CS_DELAY_CORE_TIME ? "core" : "drain");
        cs_json_u64(&j, "vms", t.num_vms);
        cs_json_u64(&j, "folds", r.folds);
        cs_json_u64(&j, "bins", r.num_bins);
        cs_json_array_begin(&j, "rows");
        for (uint32_t i = 0; i < rows_n; i++) {
            const struct cs_table_row *w = &rows[i];
            cs_json_object_begin(&j, NULL);
            if (by_delay)
                cs_json_double(&j, "accepted_delay", w->accepted);
            cs_json_double(&j, "threshold_pct", w->threshold * 100);
            cs_json_u64(&j, "bins", w->bins);
            cs_json_double(&j, "avg_delay", w->avg_delay);
            cs_json_double(&j, "med_delay", w->med_delay);
            cs_json_double(&j, "max_delay", w->max_delay);
            cs_json_double(&j, "avg_filling_pct", w->avg_filling * 100);
            cs_json_double(&j, "med_filling_pct", w->med_filling * 100);
            cs_json_double(&j, "max_filling_pct", w->max_filling * 100);
            cs_json_double(&j, "avg_delayed_pct", w->avg_delayed_fraction * 100);
            cs_json_double(&j, "avg_delay_when_delayed", w->avg_delay_when_delayed);
            if (sla) {
                cs_json_object_begin(&j, "sla");
                cs_json_u64(&j, "bins", slas[i].bins);
                cs_json_u64(&j, "compliant", slas[i].compliant);
                cs_json_double(&j, "compliance_rate", slas[i].compliance_rate);
                cs_json_u64(&j, "lone_vm_bins", slas[i].lone_vm_bins);
                cs_json_u64(&j, "lone_vm_violations", slas[i].lone_vm_violations);
                cs_json_double(&j, "mean_overshoot", slas[i].mean_overshoot);
                cs_json_double(&j, "max_overshoot", slas[i].max_overshoot);
                cs_json_object_end(&j);
            }
            cs_json_object_end(&j);
        }
        cs_json_array_end(&j);
        cs_json_object_end(&j);
        cs_json_finish(&j);
    } else {
        printf("%s, %s packing (%s fit), %u VMs, %u fold%s, %zu bins\n\n", mode, policy,
               fit == CS_FIT_BEST ? "best" : "first", t.num_vms, r.folds, r.folds == 1 ? "" : "s",
               r.num_bins);
        print_table_header(by_delay);
        for (uint32_t i = 0; i < rows_n; i++)
            print_table_row(&rows[i], by_delay);
        if (sla) {
            printf("\nSLA (delay per bin per day within the accepted value)\n");
            printf("| Accepted (mins/day) | Threshold (pct) | Bins | Compliant | Compliance | "
                   "Lone-VM bins | Lone-VM violations | Mean overshoot (mins) | Max overshoot "
                   "(mins) |\n|---|---|---|---|---|---|---|---|---|\n");
            for (uint32_t i = 0; i < rows_n; i++)
                printf("| %g | %g%% | %zu | %zu | %.2f%% | %zu | %zu | %.2f | %.2f |\n",
                       lodo ? rows[i].accepted : rows[i].accepted / r.window_days,
                       rows[i].threshold * 100, slas[i].bins, slas[i].compliant,
                       slas[i].compliance_rate * 100, slas[i].lone_vm_bins,
                       slas[i].lone_vm_violations, slas[i].mean_overshoot, slas[i].max_overshoot);
        }
    }
    free(rows);
    free(slas);
    goto done;
failed:
    rc = cli_fail(who, &err);
done:
    cs_experiment_result_free(&r);
    cs_trace_free(&t);
    return rc;
}

const struct cli_command cli_delay_commands[] = {
    {"delay", "eval", "workload delay of all VMs of a trace on one host", eval_help, eval_main},
    {"delay", "experiment", "consolidation experiments: Tables I/II, per-bin CSV, plots, SLA",
     experiment_help, experiment_main},
    {"delay", NULL, NULL, NULL, NULL},
};
