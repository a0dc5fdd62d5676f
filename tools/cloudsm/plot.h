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

#endif
