#include "plot.h"

#include <math.h>

#define WIDTH 720
#define HEIGHT 420
#define LEFT 70
#define RIGHT 20
#define TOP 40
#define BOTTOM 60

static void escape(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '&':
            fputs("&amp;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        default:
            fputc(*s, out);
        }
    }
}

/* A "nice" tick step (1, 2 or 5 times a power of ten) giving about `ticks` intervals. */
static double tick_step(double range, int ticks)
{
    if (range <= 0)
        return 1;
    double raw = range / ticks;
    double magnitude = pow(10, floor(log10(raw)));
    double norm = raw / magnitude;
    double nice = norm < 1.5 ? 1 : norm < 3 ? 2 : norm < 7 ? 5 : 10;
    return nice * magnitude;
}

/* Axis labels and the end of the document, the same for every plot. */
static int finish(FILE *out, double plot_w, double plot_h, const char *x_label, const char *y_label)
{
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", LEFT + (int)plot_w / 2,
            HEIGHT - 15);
    escape(out, x_label);
    fprintf(out,
            "</text>\n<text x=\"16\" y=\"%d\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 16 %d)\">",
            TOP + (int)plot_h / 2, TOP + (int)plot_h / 2);
    escape(out, y_label);
    fputs("</text>\n</svg>\n", out);
    return ferror(out) ? -1 : 0;
}

int plot_histogram_svg(FILE *out, const struct plot_histogram *h)
{
    uint64_t top = 1;
    for (uint32_t i = 0; i < h->bins; i++)
        if (h->counts[i] > top)
            top = h->counts[i];
    double y_step = tick_step((double)top, 5);
    double y_max = ceil((double)top / y_step) * y_step;
    double x_max = h->x_min + h->bin_width * h->bins;
    double plot_w = WIDTH - LEFT - RIGHT, plot_h = HEIGHT - TOP - BOTTOM;
    double bar_w = h->bins ? plot_w / h->bins : plot_w;

    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">",
            WIDTH, HEIGHT, WIDTH / 2);
    escape(out, h->title);
    fputs("</text>\n", out);
    for (uint32_t i = 0; i < h->bins; i++) {
        if (!h->counts[i])
            continue;
        double bh = plot_h * (double)h->counts[i] / y_max;
        fprintf(out,
                "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"#4477aa\" "
                "stroke=\"white\" stroke-width=\"0.5\"><title>[%g, %g): %llu</title></rect>\n",
                LEFT + i * bar_w, TOP + plot_h - bh, bar_w, bh, h->x_min + i * h->bin_width,
                h->x_min + (i + 1) * h->bin_width, (unsigned long long)h->counts[i]);
    }
    /* Axes, ticks and labels. */
    fprintf(out, "<path d=\"M%d %d V%d H%d\" stroke=\"black\" fill=\"none\"/>\n", LEFT, TOP,
            TOP + (int)plot_h, WIDTH - RIGHT);
    for (double y = 0; y <= y_max + y_step / 2; y += y_step) {
        double py = TOP + plot_h - plot_h * y / y_max;
        fprintf(out,
                "<path d=\"M%d %.2f h-5\" stroke=\"black\"/><text x=\"%d\" y=\"%.2f\" "
                "text-anchor=\"end\">%g</text>\n",
                LEFT, py, LEFT - 8, py + 4, y);
    }
    double x_step = tick_step(x_max - h->x_min, 10);
    for (double x = ceil(h->x_min / x_step) * x_step; x <= x_max + x_step / 1000; x += x_step) {
        double px = LEFT + plot_w * (x - h->x_min) / (x_max - h->x_min);
        fprintf(out,
                "<path d=\"M%.2f %d v5\" stroke=\"black\"/><text x=\"%.2f\" y=\"%d\" "
                "text-anchor=\"middle\">%g</text>\n",
                px, TOP + (int)plot_h, px, TOP + (int)plot_h + 18, x);
    }
    return finish(out, plot_w, plot_h, h->x_label, h->y_label);
}

static const char *const series_colours[] = {"#4477aa", "#ee6677", "#228833", "#ccbb44"};

static void marker(FILE *out, uint32_t series, double x, double y)
{
    const char *c = series_colours[series % 4];
    switch (series % 4) {
    case 0:
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"none\" stroke=\"%s\"/>\n", x,
                y, c);
        break;
    case 1:
        fprintf(out,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"6\" height=\"6\" fill=\"none\" "
                "stroke=\"%s\"/>\n",
                x - 3, y - 3, c);
        break;
    case 2:
        fprintf(out, "<path d=\"M%.1f %.1f l3.5 6 h-7 z\" fill=\"none\" stroke=\"%s\"/>\n", x,
                y - 3.5, c);
        break;
    default:
        fprintf(out, "<path d=\"M%.1f %.1f l4 4 l-4 4 l-4 -4 z\" fill=\"none\" stroke=\"%s\"/>\n",
                x, y - 4, c);
    }
}

int plot_scatter_svg(FILE *out, const struct plot_scatter *s)
{
    double x_lo = INFINITY, x_hi = -INFINITY, y_hi = -INFINITY, y_lo = INFINITY;
    double floor_v = s->log_y ? (s->y_floor > 0 ? s->y_floor : 0.01) : 0;
    for (uint32_t k = 0; k < s->num_series; k++)
        for (uint32_t i = 0; i < s->series[k].count; i++) {
            double x = s->series[k].x[i], y = s->series[k].y[i];
            if (s->log_y && y < floor_v)
                y = floor_v;
            x_lo = fmin(x_lo, x);
            x_hi = fmax(x_hi, x);
            y_lo = fmin(y_lo, y);
            y_hi = fmax(y_hi, y);
        }
    if (!(x_lo <= x_hi)) {
        x_lo = 0;
        x_hi = 1;
        y_lo = s->log_y ? floor_v : 0;
        y_hi = s->log_y ? floor_v * 10 : 1;
    }
    double x_step = tick_step(x_hi - x_lo > 0 ? x_hi - x_lo : 1, 10);
    x_lo = floor(x_lo / x_step) * x_step;
    x_hi = ceil(x_hi / x_step) * x_step;
    if (x_hi <= x_lo)
        x_hi = x_lo + x_step;
    double ya, yb; /* axis range in plotted units (log10 or linear) */
    if (s->log_y) {
        ya = floor(log10(floor_v));
        yb = ceil(log10(y_hi));
        if (yb <= ya)
            yb = ya + 1;
    } else {
        double step = tick_step(y_hi - fmin(0, y_lo), 5);
        ya = floor(fmin(0, y_lo) / step) * step;
        yb = ceil(y_hi / step) * step;
        if (yb <= ya)
            yb = ya + 1;
    }
    double plot_w = WIDTH - LEFT - RIGHT, plot_h = HEIGHT - TOP - BOTTOM;
#define PX(x) (LEFT + plot_w * ((x)-x_lo) / (x_hi - x_lo))
#define PY(v) (TOP + plot_h - plot_h * ((v)-ya) / (yb - ya))
#define YV(y) (s->log_y ? log10((y) < floor_v ? floor_v : (y)) : (y))
    fprintf(out,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
            "font-family=\"sans-serif\" font-size=\"12\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
            "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" font-size=\"15\">",
            WIDTH, HEIGHT, WIDTH / 2);
    escape(out, s->title);
    fputs("</text>\n", out);
    for (uint32_t k = 0; k < s->num_series; k++)
        for (uint32_t i = 0; i < s->series[k].count; i++)
            marker(out, k, PX(s->series[k].x[i]), PY(YV(s->series[k].y[i])));
    for (uint32_t i = 0; i < s->num_v_lines; i++)
        fprintf(out, "<path d=\"M%.2f %d V%d\" stroke=\"#555\" stroke-width=\"0.8\"/>\n",
                PX(s->v_lines[i]), TOP, TOP + (int)plot_h);
    for (uint32_t i = 0; i < s->num_h_lines; i++)
        fprintf(out,
                "<path d=\"M%d %.2f H%d\" stroke=\"#555\" stroke-width=\"0.8\" "
                "stroke-dasharray=\"5 4\"/>\n",
                LEFT, PY(YV(s->h_lines[i])), WIDTH - RIGHT);
    fprintf(out, "<path d=\"M%d %d V%d H%d\" stroke=\"black\" fill=\"none\"/>\n", LEFT, TOP,
            TOP + (int)plot_h, WIDTH - RIGHT);
    if (s->log_y) {
        for (double e = ya; e <= yb + 0.5; e += 1) {
            double py = PY(e);
            fprintf(out,
                    "<path d=\"M%d %.2f h-5\" stroke=\"black\"/><text x=\"%d\" y=\"%.2f\" "
                    "text-anchor=\"end\">%s%g</text>\n",
                    LEFT, py, LEFT - 8, py + 4, e == ya ? "&lt;=" : "", pow(10, e));
        }
    } else {
        double step = tick_step(yb - ya, 5);
        for (double y = ya; y <= yb + step / 1000; y += step)
            fprintf(out,
                    "<path d=\"M%d %.2f h-5\" stroke=\"black\"/><text x=\"%d\" y=\"%.2f\" "
                    "text-anchor=\"end\">%g</text>\n",
                    LEFT, PY(y), LEFT - 8, PY(y) + 4, y);
    }
    for (double x = x_lo; x <= x_hi + x_step / 1000; x += x_step)
        fprintf(out,
                "<path d=\"M%.2f %d v5\" stroke=\"black\"/><text x=\"%.2f\" y=\"%d\" "
                "text-anchor=\"middle\">%g</text>\n",
                PX(x), TOP + (int)plot_h, PX(x), TOP + (int)plot_h + 18, x);
    /* Legend, top left inside the plot. */
    for (uint32_t k = 0; k < s->num_series; k++) {
        double ly = TOP + 12 + 16 * k;
        marker(out, k, LEFT + 14, ly);
        fprintf(out, "<text x=\"%d\" y=\"%.1f\">", LEFT + 24, ly + 4);
        escape(out, s->series[k].label ? s->series[k].label : "");
        fputs("</text>\n", out);
    }
#undef PX
#undef PY
#undef YV
    return finish(out, plot_w, plot_h, s->x_label, s->y_label);
}
