/* Registry of temporary output files, staging and signal cleanup (see temp_files.h). */
#define _POSIX_C_SOURCE 200809L

#include "temp_files.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

enum { TEMP_SLOTS = 64, TEMP_PATH_MAX = SETTINGS_PATH_MAX + 16 };

/* A slot is in use when its state is not SLOT_FREE; the signal handler reads only paths of
 * slots in use, and a path is written before its slot is marked used. */
enum { SLOT_FREE = 0, SLOT_OPEN = 1, SLOT_FINISHED = 2, SLOT_HELD = 3 };

static char temp_path_of[TEMP_SLOTS][TEMP_PATH_MAX];
static char final_path_of[TEMP_SLOTS][SETTINGS_PATH_MAX];
static volatile sig_atomic_t slot_state[TEMP_SLOTS];
static int staging;

static int find(const char *temp_path) {
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (slot_state[i] != SLOT_FREE && strcmp(temp_path_of[i], temp_path) == 0) return i;
    return -1;
}

int temp_files_add(const char *temp_path, const char *final_path, io_error *err) {
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (slot_state[i] == SLOT_FREE) {
            snprintf(temp_path_of[i], TEMP_PATH_MAX, "%s", temp_path);
            snprintf(final_path_of[i], SETTINGS_PATH_MAX, "%s", final_path);
            slot_state[i] = SLOT_OPEN;
            return IO_OK;
        }
    return io_fail(err, IO_ERR_INPUT, final_path, 0, NULL, "more than %d output files open at once",
                   TEMP_SLOTS);
}

void temp_files_forget(const char *temp_path) {
    const int i = find(temp_path);
    if (i >= 0) slot_state[i] = SLOT_FREE;
}

int temp_files_staging(void) {
    return staging;
}

void temp_files_stage_begin(void) {
    staging = 1;
}

void temp_files_hold(const char *temp_path) {
    const int i = find(temp_path);
    if (i >= 0) slot_state[i] = SLOT_HELD;
}

void temp_files_stage_done(const char *temp_path) {
    const int i = find(temp_path);
    if (i >= 0) slot_state[i] = SLOT_FINISHED;
}

int temp_files_stage_end(int keep, io_error *err) {
    int rc = IO_OK;
    staging = 0;
    for (int i = 0; i < TEMP_SLOTS; ++i) {
        if (slot_state[i] == SLOT_FREE || slot_state[i] == SLOT_HELD) continue;
        if (keep && rc == IO_OK && slot_state[i] == SLOT_FINISHED) {
            if (rename(temp_path_of[i], final_path_of[i]) != 0) {
                const int e = errno;
                rc = io_fail(err, IO_ERR_FILE, final_path_of[i], 0, NULL,
                             "cannot rename the finished file: %s", strerror(e));
                remove(temp_path_of[i]);
            }
        } else {
            remove(temp_path_of[i]);
        }
        slot_state[i] = SLOT_FREE;
    }
    return rc;
}

void temp_files_remove_all(void) {
    for (int i = 0; i < TEMP_SLOTS; ++i)
        if (slot_state[i] != SLOT_FREE) unlink(temp_path_of[i]);
}

/* The first signal cleans up, on whichever thread it lands; a signal that lands on another
 * thread meanwhile (Ctrl-C twice, a crash elsewhere) waits for that cleanup to end the
 * process instead of ending it at once with the default action. */
static volatile sig_atomic_t cleaning;

static void on_signal(int sig) {
    if (__atomic_exchange_n(&cleaning, 1, __ATOMIC_SEQ_CST)) {
        for (;;)
            pause();
    }
    temp_files_remove_all();
    /* The default action again, then the signal once more to end as it would (it stays
       pending, as every handled signal is blocked here, until the handler returns). */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

void temp_files_install_signal_cleanup(void) {
    static int installed;
    if (installed) return;
    installed = 1;
    /* SIGPIPE: the log piped into a reader that stopped (| head) ends the run as before, after
       the cleanup. */
    static const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV,
                                  SIGBUS, SIGFPE,  SIGILL, SIGABRT, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = 0;
    /* A second signal on this thread waits until the first one's cleanup is done. */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i)
        sigaddset(&sa.sa_mask, signals[i]);
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; ++i)
        sigaction(signals[i], &sa, NULL);
    /* A file-size limit (ulimit -f, a scheduler's) makes the write that passes it fail with
       EFBIG, reported as any failed write, instead of ending the process with no message. */
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    sigaction(SIGXFSZ, &ignore, NULL);
}
