/* cloudsmd's log sink (log.h). */
#include "log.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cloudsm/clock.h"

static const char *const level_labels[] = {"ERROR", "WARN", "INFO", "DEBUG"};
/* sd-daemon(3)'s levels (syslog's): LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG. */
static const int journal_levels[] = {3, 4, 6, 7};

/* Whether standard error is the stream systemd connected to the journal: $JOURNAL_STREAM is
 * "DEVICE:INODE" of it, and a redirection of stderr by the service's own script would change
 * them. */
static bool stderr_is_journal(void)
{
    const char *js = getenv("JOURNAL_STREAM");
    unsigned long long dev, ino;
    struct stat st;
    if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
        return false;
    return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

void cloudsmd_log_use(struct cloudsmd_log *log, FILE *fp, enum cs_log_level level)
{
    log->fp = fp;
    log->owned = false;
    log->journal = fp == stderr && stderr_is_journal();
    log->level = level;
}

int cloudsmd_log_open(struct cloudsmd_log *log, const char *path, enum cs_log_level level,
                      struct cs_error *err)
{
    cloudsmd_log_use(log, stderr, level);
    if (!path || !*path)
        return 0;
    /* "e": the log must not leak into anything cloudsmd might execute. */
    FILE *fp = fopen(path, "ae");
    if (!fp)
        return cs_fail(err, "cannot open the log file %s: %s", path, strerror(errno));
    /* Line-buffered: every line reaches the file when it is complete, not when a 4 KiB buffer
     * fills, so that an operator's `tail -f` and a crashed daemon's file both show it. */
    setvbuf(fp, NULL, _IOLBF, 0);
    log->fp = fp;
    log->owned = true;
    log->journal = false;
    return 0;
}

int cloudsmd_log_reopen(struct cloudsmd_log *log, const char *path, struct cs_error *err)
{
    struct cloudsmd_log next;
    if (cloudsmd_log_open(&next, path, log->level, err) < 0)
        return -1;
    cloudsmd_log_close(log);
    *log = next;
    return 0;
}

void cloudsmd_log_close(struct cloudsmd_log *log)
{
    if (log->owned && log->fp)
        fclose(log->fp);
    log->fp = NULL;
    log->owned = false;
}

/* The start of a line in a file or on a terminal: UTC time to the millisecond, the level. */
static void write_stamp(FILE *fp, const char *label)
{
    struct timespec now;
    struct tm utc;
    char stamp[40];
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &utc);
    size_t n = strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &utc);
    snprintf(stamp + n, sizeof stamp - n, ".%03ldZ", now.tv_nsec / 1000000);
    fprintf(fp, "%s %-5s ", stamp, label);
}

void cloudsmd_log_message(struct cloudsmd_log *log, enum cs_log_level level, const char *msg)
{
    if (!log->fp || level > log->level)
        return;
    bool known = (unsigned)level < sizeof level_labels / sizeof level_labels[0];
    flockfile(log->fp);
    if (log->journal)
        fprintf(log->fp, "<%d>", known ? journal_levels[level] : 6);
    else
        write_stamp(log->fp, known ? level_labels[level] : "?");
    /* One message, one line: a line break inside it would start a line without time or level. */
    for (const char *p = msg; *p;) {
        size_t run = strcspn(p, "\r\n");
        fwrite(p, 1, run, log->fp);
        p += run;
        if (*p) {
            fputc(' ', log->fp);
            p++;
        }
    }
    fputc('\n', log->fp);
    funlockfile(log->fp);
}

void cloudsmd_logf(struct cloudsmd_log *log, enum cs_log_level level, const char *fmt, ...)
{
    if (!log->fp || level > log->level)
        return;
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cloudsmd_log_message(log, level, msg);
}

static void sink(void *arg, enum cs_log_level level, const char *msg)
{
    cloudsmd_log_message(arg, level, msg);
}

struct cs_log cloudsmd_log_sink(struct cloudsmd_log *log)
{
    struct cs_log s = {sink, log};
    return s;
}

void cloudsmd_log_config_warnings(struct cloudsmd_log *log, const char *config_path,
                                  const struct cs_sm_config_warnings *warnings)
{
    for (uint32_t i = 0; i < warnings->count; i++) {
        const struct cs_sm_config_warning *w = &warnings->items[i];
        cloudsmd_log_message(log, CS_LOG_WARN, w->msg);
    }
    uint32_t opensm = cs_sm_config_warnings_count(warnings, CS_SM_CONFIG_OPENSM_KEY);
    if (opensm)
        cloudsmd_logf(log, CS_LOG_INFO,
                      "config: %" PRIu32 " OpenSM options in %s are not used by cloudsm "
                      "(each warned above)",
                      opensm, config_path ? config_path : "the configuration");
}
