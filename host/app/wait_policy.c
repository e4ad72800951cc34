/* The program's OpenMP wait policy (wait_policy.h). */
#define _POSIX_C_SOURCE 200809L
#include "wait_policy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Set by the program when it made the choice: "passive R L" or "spin R L", with the runnable
 * tasks R and the one-minute load L it saw. */
#define CHOSEN_MARKER "DELPHI_GPU_WAIT_POLICY_CHOSEN"

static const char *const user_choices[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME"};
/* Variables an MPI launcher gives its ranks (Open MPI, MPICH/Hydra, PMIx). */
static const char *const mpi_ranks[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK",
                                        "MPI_LOCALNRANKS"};

void app_choose_wait_policy(char **argv) {
    if (getenv(CHOSEN_MARKER)) return; /* the image executed again, or a child of one */
    for (size_t i = 0; i < sizeof user_choices / sizeof user_choices[0]; ++i)
        if (getenv(user_choices[i])) return;
    for (size_t i = 0; i < sizeof mpi_ranks / sizeof mpi_ranks[0]; ++i)
        if (getenv(mpi_ranks[i])) return;
    /* The kernel's count of runnable tasks at this moment (this process among them) and the
       one-minute load; unreadable: as if busy (the choice that is never far wrong). */
    int running = 0, total = 0;
    double load = 0.0;
    FILE *f = fopen("/proc/loadavg", "r");
    const int known = f && fscanf(f, "%lf %*f %*f %d/%d", &load, &running, &total) == 3;
    if (f) fclose(f);
    const int busy = !known || running > 1 || load >= 1.0;
    char marker[96];
    snprintf(marker, sizeof marker, "%s %d %.2f", busy ? "passive" : "spin", known ? running : -1,
             known ? load : -1.0);
    if (setenv(CHOSEN_MARKER, marker, 1) != 0 || !busy) return;
    if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
    execv("/proc/self/exe", argv);
    /* Not executed again (no /proc): the runtime keeps the policy it started with. */
    unsetenv("OMP_WAIT_POLICY");
    snprintf(marker, sizeof marker, "spin %d %.2f (could not execute again)", running, load);
    setenv(CHOSEN_MARKER, marker, 1);
}

const char *app_wait_policy_description(char *buf, unsigned long size) {
    const char *chosen = getenv(CHOSEN_MARKER);
    if (chosen) {
        char how[16] = "";
        int running = -1;
        double load = -1.0;
        if (sscanf(chosen, "%15s %d %lf", how, &running, &load) < 1) return NULL;
        const int passive = strcmp(how, "passive") == 0;
        if (running < 0)
            snprintf(buf, size, "%s (the program's choice; the machine's load unknown)",
                     passive ? "passive" : "spinning");
        else
            snprintf(buf, size,
                     "%s (the program's choice: %d runnable task%s, load %.2f; "
                     "OMP_WAIT_POLICY=active or passive decides)",
                     passive ? "passive" : "spinning", running, running == 1 ? "" : "s", load);
        return buf;
    }
    for (size_t i = 0; i < sizeof user_choices / sizeof user_choices[0]; ++i) {
        const char *v = getenv(user_choices[i]);
        if (v) {
            snprintf(buf, size, "%s=%s (the environment's)", user_choices[i], v);
            return buf;
        }
    }
    return NULL;
}
