/* Environment variables read by the library. */
#include <stdlib.h>
#include <strings.h>

#include "src/internal.h"

int nd__env_flag(const char *name, int def) {
  const char *v = getenv(name);
  if (v == NULL || v[0] == '\0') return def;
  if (!strcasecmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off") ||
      !strcasecmp(v, "no"))
    return 0;
  return 1;
}
