/* Instantiate a template body once per element type: define DG_TEMPLATE as the template's file
 * name (a string) and include this header.  The template sees REAL (float or double),
 * SFX(name) (name##_f or name##_d) and IS_DOUBLE (0 or 1).  Deliberately no include guard. */
#ifndef DG_TEMPLATE
#error "define DG_TEMPLATE before including for_each_precision.h"
#endif

#define REAL      float
#define SFX(name) name##_f
#define IS_DOUBLE 0
#include DG_TEMPLATE
#undef REAL
#undef SFX
#undef IS_DOUBLE

#define REAL      double
#define SFX(name) name##_d
#define IS_DOUBLE 1
#include DG_TEMPLATE
#undef REAL
#undef SFX
#undef IS_DOUBLE

#undef DG_TEMPLATE
