/* Topology I/O speed on the seeds' largest 3-level tree, XGFT(3;18,18,36;1,18,18) (11664 hosts,
 * 1620 switches). Prints the median of several runs for: generate, write (ibnetdiscover form,
 * to a file), read (parse the file back), and read + write. The anchor (ibsim parsing the same
 * file) is measured by bench/run in the same run, because it is a separate program.
 *
 * usage: bench_topo_io [RUNS] [FILE]   (FILE is left behind for bench/run's anchor)
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"
#include "cloudsm/fabric.h"
#include "cloudsm/topo_gen.h"
#include "cloudsm/topo_io.h"

int main(int argc, char **argv)
{
    int runs = argc > 1 ? atoi(argv[1]) : 7;
    const char *path = argc > 2 ? argv[2] : "/tmp/bench-xgft-11664.topo";
    if (runs < 1 || runs > 100)
        runs = 7;
    struct cs_error err;
    struct cs_pgft_spec spec;
    if (cs_pgft_parse(&spec, "3;18,18,36;1,18,18", false, &err) < 0)
        bench_die("bench_topo_io", "error", &err);

    double *gen = calloc((size_t)runs, sizeof *gen), *wr = calloc((size_t)runs, sizeof *wr);
    double *rd = calloc((size_t)runs, sizeof *rd), *both = calloc((size_t)runs, sizeof *both);
    uint32_t nodes = 0;
    for (int r = 0; r < runs; r++) {
        struct cs_fabric f, g;
        cs_fabric_init(&f);
        cs_fabric_init(&g);
        double t0 = bench_now_ms();
        if (cs_pgft_generate(&f, &spec, &err) < 0)
            bench_die("bench_topo_io", "error", &err);
        double t1 = bench_now_ms();
        if (cs_topo_write_file(path, &f, &err) < 0)
            bench_die("bench_topo_io", "error", &err);
        double t2 = bench_now_ms();
        if (cs_topo_read(&g, path, &err) < 0)
            bench_die("bench_topo_io", "error", &err);
        double t3 = bench_now_ms();
        if (!cs_fabric_equal(&f, &g, &err)) {
            fprintf(stderr, "bench_topo_io: round trip differs: %s\n", err.msg);
            return 1;
        }
        gen[r] = t1 - t0;
        wr[r] = t2 - t1;
        rd[r] = t3 - t2;
        both[r] = t3 - t1;
        nodes = g.num_nodes;
        cs_fabric_free(&f);
        cs_fabric_free(&g);
    }
    FILE *fp = fopen(path, "rb");
    long size = 0;
    if (fp) {
        fseek(fp, 0, SEEK_END);
        size = ftell(fp);
        fclose(fp);
    }
    printf("XGFT(3;18,18,36;1,18,18): %u nodes, file %.1f MB, median of %d runs\n", nodes,
           size / 1e6, runs);
    printf("  generate       %8.2f ms\n", bench_median(gen, runs));
    printf("  write          %8.2f ms\n", bench_median(wr, runs));
    printf("  read           %8.2f ms\n", bench_median(rd, runs));
    printf("  read + write   %8.2f ms   (aim: < 200 ms)\n", bench_median(both, runs));
    free(gen);
    free(wr);
    free(rd);
    free(both);
    return 0;
}
