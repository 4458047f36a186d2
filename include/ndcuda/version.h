/* ndcuda version and ABI policy.
 *
 * ABI policy: within one major version, the shared library only adds symbols and appends
 * enum values (nd_status and nd_dtype values are never renumbered or reused); handles are
 * opaque, so their layout may change in any release. The SOVERSION is the major version.
 * Before 1.0 the minor version plays the role of the major one. */
#ifndef NDCUDA_VERSION_H
#define NDCUDA_VERSION_H

#include "ndcuda/export.h"

#define ND_VERSION_MAJOR 0
#define ND_VERSION_MINOR 1
#define ND_VERSION_PATCH 0

#define ND_VERSION_HEX ((ND_VERSION_MAJOR << 16) | (ND_VERSION_MINOR << 8) | ND_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/* The version of the library actually loaded, as ND_VERSION_HEX encodes it. Compare with
 * ND_VERSION_HEX to detect a header/library mismatch. Never fails; needs no device. */
ND_API unsigned nd_version(void);

/* The same as a "major.minor.patch" string with static storage. */
ND_API const char *nd_version_string(void);

#ifdef __cplusplus
}
#endif

#endif /* NDCUDA_VERSION_H */
