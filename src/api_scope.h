/* The public function a message names (src/status.c). Not installed.
 *
 * ND__API_SCOPE(fn) at the top of a public function that delegates to helpers or to other
 * public functions makes every message raised until it returns name fn: a message starting
 * "nd_other:" is rewritten to start "fn:". The outermost scope wins, so a public function
 * called by another reports as the one the user called. The scope ends when the enclosing
 * block exits (GCC/Clang cleanup attribute), on every return path. Host code only; kept out of
 * internal.h, which the device code includes too. */
#ifndef ND_API_SCOPE_H
#define ND_API_SCOPE_H

#ifdef __cplusplus
extern "C" {
#endif

const char *nd__api_enter(const char *fn);
void nd__api_leave(const char **prev);

#if defined(__GNUC__)
#define ND__API_SCOPE(fn) \
  const char *nd__api_prev_ __attribute__((cleanup(nd__api_leave), unused)) = nd__api_enter(fn)
#else
#error "ND__API_SCOPE needs the cleanup attribute (GCC or Clang)"
#endif

#ifdef __cplusplus
}
#endif

#endif /* ND_API_SCOPE_H */
