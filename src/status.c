/* Status names, descriptions and the thread-local error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/internal.h"

#define ND__ERRBUF 2048

static _Thread_local char nd__errbuf[ND__ERRBUF];

const char *nd_status_name(nd_status status) {
  switch (status) {
#define ND_STATUS_NAME_(name, value, text) \
  case ND_##name:                          \
    return #name;
    ND_STATUS_MAP(ND_STATUS_NAME_)
#undef ND_STATUS_NAME_
  }
  return "UNKNOWN";
}

const char *nd_status_string(nd_status status) {
  switch (status) {
#define ND_STATUS_TEXT_(name, value, text) \
  case ND_##name:                          \
    return text;
    ND_STATUS_MAP(ND_STATUS_TEXT_)
#undef ND_STATUS_TEXT_
  }
  return "unknown status";
}

const char *nd_last_error(void) { return nd__errbuf; }

void nd_clear_error(void) { nd__errbuf[0] = '\0'; }

nd_status nd__error(nd_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(nd__errbuf, sizeof nd__errbuf, fmt, ap);
  va_end(ap);
  return status;
}

nd_status nd__error_context(nd_status status, const char *prefix) {
  char tmp[ND__ERRBUF + 256];
  snprintf(tmp, sizeof tmp, "%s: %s", prefix, nd__errbuf);
  memcpy(nd__errbuf, tmp, sizeof nd__errbuf);
  nd__errbuf[ND__ERRBUF - 1] = 0;
  return status;
}

char *nd__format_shape(char *buf, size_t cap, int ndim, const int64_t *shape) {
  size_t len = 0;
  if (cap == 0) return buf;
  buf[0] = '\0';
#define ND__APPEND(...)                                                      \
  do {                                                                       \
    int n_ = snprintf(buf + len, len < cap ? cap - len : 0, __VA_ARGS__);    \
    if (n_ > 0) len += (size_t)n_;                                           \
    if (len >= cap) return buf;                                              \
  } while (0)
  ND__APPEND("(");
  for (int i = 0; i < ndim; i++) ND__APPEND(i ? ", %lld" : "%lld", (long long)shape[i]);
  ND__APPEND(ndim == 1 ? ",)" : ")");
#undef ND__APPEND
  return buf;
}
