/* The OpenMP wait policy chosen before the runtime starts (delphi_gpu_start.h).
 *
 * This runs from the executable's .preinit_array: before the C library has set up the
 * environment (getenv does not work yet; the environment comes as an argument) and before any
 * shared library is initialised.  So it uses only system calls, its own parsing and one
 * allocation. */
#define _GNU_SOURCE
#include "delphi_gpu_start.h"

#include <stddef.h>
#include <stdlib.h> /* defines __GLIBC__ with the GNU C library */

#if defined(__linux__) && defined(__GLIBC__) && defined(__ELF__)
#include <fcntl.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Variables by which the environment has chosen already (the user's, or an earlier choice). */
static const char *const chosen_already[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME",
                                             DG_WAIT_CHOSEN_VARIABLE};
/* Variables an MPI launcher gives its ranks (Open MPI, MPICH/Hydra, PMIx). */
static const char *const mpi_rank[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                       "MPI_LOCALNRANKS"};

static char spin_text[96]; /* dg_wait_start_choice's answer, "" when none */

static int has_variable(char **envp, const char *name) {
    const size_t n = strlen(name);
    for (char **e = envp; *e; ++e)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=') return 1;
    return 0;
}

/* Appends text to buf (size bytes, kept terminated); returns the new length. */
static size_t append(char *buf, size_t size, size_t len, const char *text) {
    while (*text && len + 1 < size)
        buf[len++] = *text++;
    buf[len] = '\0';
    return len;
}

static size_t append_number(char *buf, size_t size, size_t len, long value) {
    char digits[24];
    int n = 0;
    if (value < 0) len = append(buf, size, len, "-"), value = -value;
    do
        digits[n++] = (char)('0' + value % 10), value /= 10;
    while (value > 0 && n < (int)sizeof digits);
    while (n > 0 && len + 1 < size)
        buf[len++] = digits[--n];
    buf[len] = '\0';
    return len;
}

/* "R L.LL" for running tasks R and a load of hundredths L; "-1 -1" when unknown (R < 0). */
static size_t append_seen(char *buf, size_t size, size_t len, long running, long hundredths) {
    if (running < 0) return append(buf, size, len, "-1 -1");
    len = append_number(buf, size, len, running);
    len = append(buf, size, len, " ");
    len = append_number(buf, size, len, hundredths / 100);
    len = append(buf, size, len, hundredths % 100 < 10 ? ".0" : ".");
    return append_number(buf, size, len, hundredths % 100);
}

/* /proc/loadavg: "1.23 0.50 0.40 R/T last-pid": the one-minute load in hundredths and the
   kernel's count of runnable tasks at this moment (this thread among them).  0 when unread. */
static int read_load(long *hundredths, long *running) {
    char text[128];
    const int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    const ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) return 0;
    text[got] = '\0';
    const char *p = text;
    long whole = 0, fraction = 0, scale = 100;
    if (*p < '0' || *p > '9') return 0;
    while (*p >= '0' && *p <= '9')
        whole = whole * 10 + (*p++ - '0');
    if (*p == '.')
        for (++p; *p >= '0' && *p <= '9'; ++p)
            if (scale > 1) scale /= 10, fraction += (*p - '0') * scale;
    *hundredths = whole * 100 + fraction;
    for (int fields = 0; fields < 3; ++fields) { /* past the three loads */
        while (*p && *p != ' ')
            ++p;
        while (*p == ' ')
            ++p;
    }
    if (*p < '0' || *p > '9') return 0;
    *running = 0;
    while (*p >= '0' && *p <= '9')
        *running = *running * 10 + (*p++ - '0');
    return *p == '/';
}

/* Whether /proc/self/exe is this program (not the dynamic loader that was asked to run it, as in
   `ld-linux-x86-64.so.2 ./program`, whose arguments then begin with the program). */
static int image_is_program(void) {
    char path[4096];
    const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
    if (n <= 0) return 0;
    path[n] = '\0';
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "ld-", 3) != 0 && strncmp(base, "ld.so", 5) != 0;
}

static void wait_start(int argc, char **argv, char **envp) {
    (void)argc;
    if (!envp || !argv) return;
    for (size_t i = 0; i < sizeof chosen_already / sizeof chosen_already[0]; ++i)
        if (has_variable(envp, chosen_already[i])) return;
    for (size_t i = 0; i < sizeof mpi_rank / sizeof mpi_rank[0]; ++i)
        if (has_variable(envp, mpi_rank[i])) return;
    long hundredths = 0, running = 0;
    int known = read_load(&hundredths, &running);
    if (known && running > 1 && hundredths < 100) {
        /* Another task runnable on a machine that was idle: it may be one that starts beside
           this program and soon waits (the other end of a pipe), so look again 2 ms later. */
        const struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
        known = read_load(&hundredths, &running);
    }
    if (!known) running = -1;
    /* Unreadable: as if busy (passive waiting is never far wrong). */
    const int busy = !known || running > 1 || hundredths >= 100;
    if (!busy) {
        append_seen(spin_text, sizeof spin_text, append(spin_text, sizeof spin_text, 0, "spin "),
                    running, hundredths);
        return;
    }
    static char passive[] = "OMP_WAIT_POLICY=passive";
    static char marker[sizeof DG_WAIT_CHOSEN_VARIABLE + 48];
    size_t len = append(marker, sizeof marker, 0, DG_WAIT_CHOSEN_VARIABLE "=passive ");
    append_seen(marker, sizeof marker, len, running, hundredths);
    size_t count = 0;
    while (envp[count])
        ++count;
    char **env = malloc((count + 3) * sizeof *env);
    if (env && image_is_program()) {
        memcpy(env, envp, count * sizeof *env);
        env[count] = passive, env[count + 1] = marker, env[count + 2] = NULL;
        execve("/proc/self/exe", argv, env);
    }
    free(env);
    len = append(spin_text, sizeof spin_text, 0, "spin ");
    len = append_seen(spin_text, sizeof spin_text, len, running, hundredths);
    append(spin_text, sizeof spin_text, len, " (could not execute again)");
}

/* The loader calls the functions of the executable's .preinit_array with (argc, argv, envp). */
__attribute__((section(".preinit_array"),
               used)) void (*const dg_wait_start_entry)(int, char **, char **) = wait_start;

const char *dg_wait_start_choice(void) {
    return spin_text[0] ? spin_text : NULL;
}

#else

const char *dg_wait_start_choice(void) {
    return NULL;
}

#endif
