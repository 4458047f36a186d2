/* NVRTC compilation of user source to a CUBIN (or PTX), and the key material of a compile.
 *
 * The binary targets one exact architecture: sm_<arch> as a CUBIN when this NVRTC can emit it,
 * else PTX for the newest virtual architecture it supports at or below the device's, which the
 * driver compiles at load time. Plain host code (NVRTC runs without a GPU), so the host suite
 * compiles for a fixed architecture. */
#ifndef ND_JIT_COMPILE_H
#define ND_JIT_COMPILE_H

#include "jit/cache.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One compile request. Every pointer is borrowed. */
typedef struct nd__jit_source {
  const char *fn;     /* the public function, for messages */
  const char *what;   /* the module or kernel name, for messages */
  const char *source;
  const nd_module_options *opts; /* validated; never NULL */
  int arch;           /* compute capability as major * 10 + minor */
} nd__jit_source;

/* Checks an options struct (size, version, NULL entries, a forbidden architecture option);
 * NULL gives the defaults in *out. */
nd_status nd__jit_check_options(const char *fn, const nd_module_options *in, nd_module_options *out);

/* The key material of a request: source, the library's helper header, each user header's
 * name and content, the options in order, the defines, the name expressions, the cooperative
 * flag, the target, the CUDA include directory, the NVRTC, ndcuda and cache format versions. */
nd_status nd__jit_material(const nd__jit_source *s, nd__jit_key *k);

/* Compiles. On failure: ND_ERR_COMPILE (message names s->what with the first lines of the
 * log; *log gets the whole log, malloc'd), ND_ERR_NVRTC, ND_ERR_OUT_OF_MEMORY. On success the
 * binary's log is the compiler's (possibly empty, never NULL). */
nd_status nd__jit_nvrtc_compile(const nd__jit_source *s, nd__jit_binary **out, char **log);

/* The library's device helper header ("ndcuda_jit.h") as user source sees it. */
extern const char nd__jit_helper_header[];

/* The CUDA include directory handed to NVRTC ("" when none was found). */
const char *nd__jit_cuda_include(void);

/* The calling thread's whole log of its last failed compile (nd_jit_last_log). */
void nd__jit_set_last_log(const char *log);

#ifdef __cplusplus
}
#endif

#endif /* ND_JIT_COMPILE_H */
