/* Checks of the calculation layer's inputs (parameters, atoms); messages name field and value. */
#ifndef DG_CALC_CHECKS_H
#define DG_CALC_CHECKS_H

#include <stddef.h>

#include "delphi_gpu/delphi_gpu_calc.h"

/* Every field of params; returns a dg_status with the message. */
int calc_check_params(const dg_calc_params *params, char *msg, size_t size);

#endif /* DG_CALC_CHECKS_H */
