/* Checks of the calculation (host physics) tests: the common check macros (CHECK, CHECK_NEAR,
 * CHECK_REL, CHECK_DONE). */
#ifndef HOST_TEST_CHECK_H
#define HOST_TEST_CHECK_H

#include "../dg_check.h"

#endif /* HOST_TEST_CHECK_H */
