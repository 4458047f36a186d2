/* Status names, descriptions and the thread-local error message. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "src/api_scope.h"
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

/* The public function the calling thread is in, when it delegates to other functions (see
 * ND__API_SCOPE in internal.h); NULL outside such a scope. */
static _Thread_local const char *nd__api_name;

const char *nd__api_enter(const char *fn) {
  const char *prev = nd__api_name;
  if (prev == NULL) nd__api_name = fn;
  return prev;
}

void nd__api_leave(const char **prev) { nd__api_name = *prev; }

/* Length of the function name that starts msg ("nd_amin" in "nd_amin: ..."), or 0 when msg
 * does not start with an ndcuda name followed by ':'. */
static size_t nd__leading_name(const char *msg) {
  if (strncmp(msg, "nd_", 3) != 0) return 0;
  size_t n = 3;
  while ((msg[n] >= 'a' && msg[n] <= 'z') || (msg[n] >= 'A' && msg[n] <= 'Z') ||
         (msg[n] >= '0' && msg[n] <= '9') || msg[n] == '_')
    n++;
  return msg[n] == ':' ? n : 0;
}

/* Inside a public function's scope, a message raised by a helper or by another public
 * function it calls names the function the caller called: "nd_amin: ..." raised while
 * nd_histogram computes its range reads "nd_histogram: ...". */
static void nd__rename_to_api(void) {
  const char *api = nd__api_name;
  if (api == NULL) return;
  size_t n = nd__leading_name(nd__errbuf), m = strlen(api);
  if (n == 0 || (n == m && strncmp(nd__errbuf, api, n) == 0)) return;
  char tmp[ND__ERRBUF + 256];
  snprintf(tmp, sizeof tmp, "%s%s", api, nd__errbuf + n);
  memcpy(nd__errbuf, tmp, sizeof nd__errbuf);
  nd__errbuf[ND__ERRBUF - 1] = 0;
}

nd_status nd__error(nd_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(nd__errbuf, sizeof nd__errbuf, fmt, ap);
  va_end(ap);
  nd__rename_to_api();
  return status;
}

nd_status nd__error_context(nd_status status, const char *prefix) {
  /* Already named by prefix (a scoped public function renamed it): nothing to add. */
  size_t n = nd__leading_name(nd__errbuf);
  if (n != 0 && n == strlen(prefix) && strncmp(nd__errbuf, prefix, n) == 0) return status;
  /* Inside a public function's scope the message already names the function the caller
   * called; a delegate's prefix ("nd_linalg_cholesky_ex" under nd_linalg_cholesky) would only
   * stand in front of it. */
  if (n != 0 && nd__api_name != NULL && n == strlen(nd__api_name) && strncmp(nd__errbuf, nd__api_name, n) == 0)
    return status;
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
