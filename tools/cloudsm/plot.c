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
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", LEFT + (int)plot_w / 2,
            HEIGHT - 15);
    escape(out, h->x_label);
    fprintf(out,
            "</text>\n<text x=\"16\" y=\"%d\" text-anchor=\"middle\" "
            "transform=\"rotate(-90 16 %d)\">",
            TOP + (int)plot_h / 2, TOP + (int)plot_h / 2);
    escape(out, h->y_label);
    fputs("</text>\n</svg>\n", out);
    return ferror(out) ? -1 : 0;
}
