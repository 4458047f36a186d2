/* Host conversions shared by creation functions and tests. */
#ifndef ND_CONVERT_H
#define ND_CONVERT_H

#include <stdint.h>

#include "src/internal.h"

#ifdef __cplusplus
extern "C" {
#endif

/* IEEE binary16 from double with round-to-nearest-even (no double rounding), and back. */
uint16_t nd__double_to_half(double x);
double nd__half_to_double(uint16_t h);

#ifdef __cplusplus
}
#endif

#endif /* ND_CONVERT_H */
