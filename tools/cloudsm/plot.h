/* Histograms as self-contained SVG (no gnuplot needed): bars, axes with ticks, title. */
#ifndef CLOUDSM_CLI_PLOT_H
#define CLOUDSM_CLI_PLOT_H

#include <stdint.h>
#include <stdio.h>

struct plot_histogram {
    const char *title;
    const char *x_label;
    const char *y_label;
    double x_min; /* left edge of the first bin */
    double bin_width;
    const uint64_t *counts;
    uint32_t bins;
};

/* Returns 0, or -1 if writing failed. */
int plot_histogram_svg(FILE *out, const struct plot_histogram *h);

/* Scatter plot, one marker shape and colour per series (circle, square, triangle, diamond, then
 * repeating), linear x, log10 y when log_y: values <= y_floor are drawn on the floor line
 * (labelled "<= floor"), so zero delays stay visible. Optional dashed horizontal and solid
 * vertical reference lines (e.g. means and medians). */
struct plot_series {
    const char *label;
    const double *x, *y;
    uint32_t count;
};

struct plot_scatter {
    const char *title;
    const char *x_label;
    const char *y_label;
    const struct plot_series *series;
    uint32_t num_series;
    int log_y;
    double y_floor; /* log_y only: smallest value shown, > 0 */
    const double *v_lines;
    uint32_t num_v_lines;
    const double *h_lines;
    uint32_t num_h_lines;
};

int plot_scatter_svg(FILE *out, const struct plot_scatter *s);

#endif
