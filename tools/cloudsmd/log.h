/* cloudsmd's log: the sink behind struct cs_log (include/cloudsm/sm.h).
 *
 * One line per message, UTC time to the millisecond, level, text:
 *
 *     2026-11-22T05:31:02.123Z INFO  discover: 6804 nodes, 12 problems
 *
 * to standard error or to a file (appended to, line-buffered so that `tail -f` and a crash both
 * see every line). Messages less severe than the chosen level are dropped. A line break inside
 * a message is written as a blank, so that one message stays one line.
 *
 * Under systemd, when standard error is the journal's stream ($JOURNAL_STREAM holds its device
 * and inode), a line to standard error is instead the level as sd-daemon(3) spells it and the
 * message, `<6>discover: ...`: journald keeps the level as the entry's priority and stamps the
 * time itself.
 */
#ifndef CLOUDSMD_LOG_H
#define CLOUDSMD_LOG_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "cloudsm/error.h"
#include "cloudsm/sm.h"
#include "cloudsm/sm_config.h"
#include "cloudsm/smp_pipe.h"

struct cloudsmd_log {
    FILE *fp;
    bool owned;   /* fp is our file (closed by cloudsmd_log_close), not stderr */
    bool journal; /* fp is stderr and stderr is the journal: sd-daemon level prefixes */
    enum cs_log_level level;
};

/* path NULL or "": standard error. A file is created if needed (mode 0644 less the umask) and
 * appended to. */
int cloudsmd_log_open(struct cloudsmd_log *log, const char *path, enum cs_log_level level,
                      struct cs_error *err);
/* SIGHUP and SIGUSR1 (logrotate): open path afresh (a log rotated away is created again; "" =
 * standard error) and only then close the old file, so that a failure keeps the log where it was.
 */
int cloudsmd_log_reopen(struct cloudsmd_log *log, const char *path, struct cs_error *err);
void cloudsmd_log_close(struct cloudsmd_log *log);

/* Log to an already open stream (tests; a caller that owns fp). */
void cloudsmd_log_use(struct cloudsmd_log *log, FILE *fp, enum cs_log_level level);

/* What the SM core logs through. */
struct cs_log cloudsmd_log_sink(struct cloudsmd_log *log);

void cloudsmd_log_message(struct cloudsmd_log *log, enum cs_log_level level, const char *msg);
void cloudsmd_logf(struct cloudsmd_log *log, enum cs_log_level level, const char *fmt, ...)
    CS_PRINTF(3, 4);

/* The warnings of the configuration file: unknown keys and notes at WARN, one line each; OpenSM
 * keys cloudsm does not use (a stock opensm.conf has about 140) at WARN too, each with its
 * file:line (an operator moving from OpenSM sees every setting that has no effect), and one
 * INFO line that counts them. */
void cloudsmd_log_config_warnings(struct cloudsmd_log *log, const char *config_path,
                                  const struct cs_sm_config_warnings *warnings);

#endif
