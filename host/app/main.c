/* delphi-gpu: a DelPhi-style Poisson-Boltzmann calculation (host/app/CLI.md). */
#include <stdio.h>

#include "batch.h"

int main(int argc, char **argv) {
    return batch_execute(argc, argv, stdout);
}
