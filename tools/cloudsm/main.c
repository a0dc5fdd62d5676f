/* cloudsm: one binary, git-style subcommands ("cloudsm topo gen ..."). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cloudsm/route.h"
#include "cloudsm/topo_gen.h"

#define CLOUDSM_VERSION "0.1.0"

static const struct cli_command *const groups[] = {
    cli_topo_commands,      cli_route_commands,   cli_lft_commands,     cli_analyze_commands,
    cli_delay_commands,     cli_sm_commands,      cli_weights_commands, cli_vm_commands,
    cli_pathcache_commands, cli_saflood_commands, cli_pma_commands,     cli_adapt_commands};

int cli_fail(const char *who, const struct cs_error *err)
{
    fprintf(stderr, "cloudsm %s: %s\n", who, err->msg);
    return EXIT_FAILED;
}

int cli_usage(const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "cloudsm %s: ", who);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see: cloudsm %s --help)\n", who);
    return EXIT_USAGE;
}

bool cli_parse_uint(const char *text, unsigned min, unsigned max, unsigned *out)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end || v < min || v > max)
        return false;
    *out = (unsigned)v;
    return true;
}

bool cli_parse_u64(const char *text, uint64_t *out)
{
    if (!text || !*text || *text == '-' || *text == '+')
        return false;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

bool cli_parse_seconds(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v) || v <= 0)
        return false;
    *out = v;
    return true;
}

double cli_wall_clock_s(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

int cli_check_output(const char *path, bool dir, struct cs_error *err)
{
    char parent[4096];
    const char *where = path;
    if (dir) {
        struct stat st;
        if (mkdir(path, 0755) < 0 && errno != EEXIST)
            return cs_fail(err, "%s: cannot create the directory: %s", path, strerror(errno));
        if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
            return cs_fail(err, "%s: not a directory", path);
    } else {
        const char *slash = strrchr(path, '/');
        if (!slash)
            where = ".";
        else if (slash == path)
            where = "/";
        else if ((size_t)(slash - path) < sizeof parent) {
            memcpy(parent, path, (size_t)(slash - path));
            parent[slash - path] = '\0';
            where = parent;
        }
    }
    if (access(where, W_OK | X_OK) < 0)
        return cs_fail(err, "%s: cannot write in %s: %s", path, where, strerror(errno));
    return 0;
}

bool cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            return false;
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return true;
    }
    return false;
}

void cli_print_help(FILE *out, const char *help)
{
    static const char table[] = "@ENGINES@\n", names[] = "@ENGINE_NAMES@",
                      preset_table[] = "@PRESETS@\n";
    for (const char *p = help; *p;) {
        const char *at = strchr(p, '@');
        if (!at) {
            fputs(p, out);
            break;
        }
        fwrite(p, 1, (size_t)(at - p), out);
        if (strncmp(at, table, sizeof table - 1) == 0) {
            for (const struct cs_route_engine *e = cs_route_engines; e->name; e++)
                fprintf(out, "  %-9s%s\n", e->name, e->summary);
            p = at + sizeof table - 1;
        } else if (strncmp(at, names, sizeof names - 1) == 0) {
            char list[128];
            fputs(cs_route_engine_names(list, sizeof list), out);
            p = at + sizeof names - 1;
        } else if (strncmp(at, preset_table, sizeof preset_table - 1) == 0) {
            size_t count;
            const struct cs_topo_preset *presets = cs_topo_presets(&count);
            for (size_t i = 0; i < count; i++)
                fprintf(out, "  %-22s %s\n", presets[i].name, presets[i].summary);
            p = at + sizeof preset_table - 1;
        } else {
            fputc('@', out);
            p = at + 1;
        }
    }
}

static void print_overview(FILE *out)
{
    fprintf(out, "usage: cloudsm <command> [<args>]\n"
                 "\n"
                 "cloudsm is a routing toolkit and subnet manager for InfiniBand fabrics that\n"
                 "carry HPC clouds. Commands:\n\n");
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        for (const struct cli_command *c = groups[g]; c->name; c++) {
            char name[32];
            snprintf(name, sizeof name, "%s%s%s", c->group, *c->name ? " " : "", c->name);
            fprintf(out, "  %-18s %s\n", name, c->summary);
        }
    fprintf(out, "\n  help [COMMAND]     this text, or a command's manual\n"
                 "  version            print the version\n"
                 "\n"
                 "`cloudsm COMMAND --help` explains a command with examples.\n"
                 "File formats: docs/formats/. Exit status: 0 ok, 1 failed, 2 bad usage.\n");
}

static void print_group(FILE *out, const struct cli_command *group)
{
    fprintf(out, "usage: cloudsm %s <subcommand> [<args>]\n\n", group->group);
    int width = 8;
    for (const struct cli_command *c = group; c->name; c++)
        if ((int)strlen(c->name) > width)
            width = (int)strlen(c->name);
    for (const struct cli_command *c = group; c->name; c++)
        fprintf(out, "  %-*s %s\n", width, c->name, c->summary);
    fprintf(out, "\n`cloudsm %s SUBCOMMAND --help` for details.\n", group->group);
}

static const struct cli_command *find_group(const char *name)
{
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
        if (strcmp(groups[g]->group, name) == 0)
            return groups[g];
    return NULL;
}

static const struct cli_command *find_command(const struct cli_command *group, const char *name)
{
    for (const struct cli_command *c = group; c->name; c++)
        if (strcmp(c->name, name) == 0)
            return c;
    return NULL;
}

/* A group whose table holds a command named "" is itself a command ("cloudsm route ..."). */
static const struct cli_command *group_command(const struct cli_command *group)
{
    return find_command(group, "");
}

/* `cloudsm help [GROUP [NAME]]` */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stdout);
        return EXIT_OK;
    }
    const struct cli_command *group = find_group(argv[1]);
    if (!group) {
        fprintf(stderr, "cloudsm help: no command '%s'\n", argv[1]);
        return EXIT_USAGE;
    }
    if (argc < 3) {
        const struct cli_command *own = group_command(group);
        if (own)
            cli_print_help(stdout, own->help);
        else
            print_group(stdout, group);
        return EXIT_OK;
    }
    const struct cli_command *c = find_command(group, argv[2]);
    if (!c) {
        fprintf(stderr, "cloudsm help: no command '%s %s'\n", argv[1], argv[2]);
        return EXIT_USAGE;
    }
    cli_print_help(stdout, c->help);
    return EXIT_OK;
}

static int run(const struct cli_command *c, int argc, char **argv)
{
    /* The command sees argv[0] = "GROUP NAME" (or "GROUP"), then its own arguments. */
    char who[64];
    snprintf(who, sizeof who, "%s%s%s", c->group, *c->name ? " " : "", c->name);
    argv[0] = who;
    if (cli_wants_help(argc, argv)) {
        cli_print_help(stdout, c->help);
        return EXIT_OK;
    }
    optind = 1;
    return c->run(argc, argv);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        print_overview(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0)
        return help(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("cloudsm %s\n", CLOUDSM_VERSION);
        return EXIT_OK;
    }
    const struct cli_command *group = find_group(cmd);
    if (!group) {
        fprintf(stderr, "cloudsm: '%s' is not a command (see: cloudsm help)\n", cmd);
        return EXIT_USAGE;
    }
    const struct cli_command *own = group_command(group);
    if (own)
        return run(own, argc - 1, argv + 1);
    if (argc < 3 || strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0) {
        print_group(argc < 3 ? stderr : stdout, group);
        return argc < 3 ? EXIT_USAGE : EXIT_OK;
    }
    const struct cli_command *c = find_command(group, argv[2]);
    if (!c) {
        fprintf(stderr, "cloudsm %s: '%s' is not a subcommand (see: cloudsm %s --help)\n", cmd,
                argv[2], cmd);
        return EXIT_USAGE;
    }
    return run(c, argc - 2, argv + 2);
}
