/* --backend auto for a single run (see backend_choice.h). */
#include "backend_choice.h"

#include <stdio.h>

/* The threads the rule counts: at least 1, at most APP_CPU_THREADS_COUNTED. */
static int counted_threads(int threads) {
    return threads < 1 ? 1 : threads > APP_CPU_THREADS_COUNTED ? APP_CPU_THREADS_COUNTED : threads;
}

long app_cpu_points_limit(int threads, int work) {
    return APP_CPU_POINTS_PER_THREAD * counted_threads(threads) / (work < 1 ? 1 : work);
}

int app_run_work(int two_run, int nonlinear, int binding, int focusing) {
    return (two_run ? 2 : 1) * (nonlinear ? 2 : 1) * (binding ? 3 : 1) * (focusing ? 2 : 1);
}

int app_cpu_sooner(int n, int threads, int work, char *why, size_t size) {
    if (size) why[0] = '\0';
    const long points = (long)n * n * n, limit = app_cpu_points_limit(threads, work);
    if (n <= 0 || points >= limit) return 0;
    char divided[48] = "";
    if (work > 1) snprintf(divided, sizeof divided, " / %d for the run's extra work", work);
    snprintf(why, size,
             "--backend auto: the CPU backend for this single run: its %d^3 grid (%ld points) "
             "is below %ld points (%ld per thread x %d threads%s), where a single run ends on "
             "the CPU sooner than CUDA starts; --backend cuda runs it on the GPU",
             n, points, limit, APP_CPU_POINTS_PER_THREAD, counted_threads(threads), divided);
    return 1;
}
