/* Runtime version query. */
#include "src/internal.h"

#define ND__STR2(x) #x
#define ND__STR(x) ND__STR2(x)

unsigned nd_version(void) { return ND_VERSION_HEX; }

const char *nd_version_string(void) {
  return ND__STR(ND_VERSION_MAJOR) "." ND__STR(ND_VERSION_MINOR) "." ND__STR(ND_VERSION_PATCH);
}
