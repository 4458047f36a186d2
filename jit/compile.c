/* NVRTC compilation for the kernel cache (see compile.h). */
#include "jit/compile.h"
#include "jit/sha256.h"

#include <nvrtc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef ND_CUDA_INCLUDE_DIR
#define ND_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

/* How much of the log the status message carries; the rest is in nd_jit_last_log(). */
#define ND__LOG_LINES 8
#define ND__LOG_CHARS 1200

static _Thread_local char *nd__jit_tl_log;

void nd__jit_set_last_log(const char *log) {
  free(nd__jit_tl_log);
  nd__jit_tl_log = NULL;
  if (log) {
    const size_t n = strlen(log) + 1;
    nd__jit_tl_log = (char *)malloc(n);
    if (nd__jit_tl_log) memcpy(nd__jit_tl_log, log, n);
  }
}

const char *nd_jit_last_log(void) { return nd__jit_tl_log ? nd__jit_tl_log : ""; }

/* ---- the CUDA include directory ----------------------------------------------------------
 * Found once, so that <cooperative_groups.h> and the CCCL headers it pulls in resolve on the
 * first compile without any trial and error (field report 3): CUDA_PATH, then CUDA_HOME, then
 * the toolkit the library was built with, then /usr/local/cuda. A candidate counts when it
 * holds cooperative_groups.h. */
static char nd__jit_inc[1024];
static char nd__jit_cccl[1100];
static pthread_once_t nd__jit_inc_once = PTHREAD_ONCE_INIT;

static int nd__is_file(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
}

static void nd__jit_find_include(void) {
  const char *roots[3] = {nd__config_text(ND__CFG_CUDA_PATH), nd__config_text(ND__CFG_CUDA_HOME), NULL};
  char cand[1024], probe[1100];
  for (int i = 0; i < 4; i++) {
    if (i < 2) {
      if (!roots[i]) continue;
      snprintf(cand, sizeof cand, "%s/include", roots[i]);
    } else {
      snprintf(cand, sizeof cand, "%s", i == 2 ? ND_CUDA_INCLUDE_DIR : "/usr/local/cuda/include");
    }
    snprintf(probe, sizeof probe, "%s/cooperative_groups.h", cand);
    if (!nd__is_file(probe)) continue;
    memcpy(nd__jit_inc, cand, sizeof nd__jit_inc);
    snprintf(probe, sizeof probe, "%s/cccl/cuda/std/type_traits", cand);
    if (nd__is_file(probe)) snprintf(nd__jit_cccl, sizeof nd__jit_cccl, "%s/cccl", cand);
    return;
  }
}

const char *nd__jit_cuda_include(void) {
  pthread_once(&nd__jit_inc_once, nd__jit_find_include);
  return nd__jit_inc;
}

/* ---- options ----------------------------------------------------------------------------- */

static nd_status nd__check_strings(const char *fn, const char *what, int n, const char *const *v) {
  if (n < 0) return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: options.n%s is %d", fn, what, n);
  if (n > 0 && v == NULL)
    return nd__error(ND_ERR_NULL_POINTER, "%s: options.%s is NULL but n%s is %d", fn, what, what, n);
  for (int i = 0; i < n; i++)
    if (v[i] == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: options.%s[%d] is NULL", fn, what, i);
  return ND_OK;
}

nd_status nd__jit_check_options(const char *fn, const nd_module_options *in, nd_module_options *out) {
  const nd_module_options def = ND_MODULE_OPTIONS_INIT;
  if (in == NULL) {
    *out = def;
    return ND_OK;
  }
  if (in->size != sizeof(nd_module_options) || in->version != ND_MODULE_OPTIONS_VERSION)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: options of size %zu version %d, expected size %zu "
                     "version %d (declare them with ND_MODULE_OPTIONS_INIT)", fn, in->size, in->version,
                     sizeof(nd_module_options), ND_MODULE_OPTIONS_VERSION);
  ND_TRY(nd__check_strings(fn, "options", in->noptions, in->options));
  ND_TRY(nd__check_strings(fn, "defines", in->ndefines, in->defines));
  ND_TRY(nd__check_strings(fn, "header_names", in->nheaders, in->header_names));
  ND_TRY(nd__check_strings(fn, "header_sources", in->nheaders, in->header_sources));
  ND_TRY(nd__check_strings(fn, "name_expressions", in->nname_expressions, in->name_expressions));
  for (int i = 0; i < in->noptions; i++) {
    const char *o = in->options[i];
    if (!strncmp(o, "-arch", 5) || !strncmp(o, "--gpu-architecture", 18) || !strncmp(o, "-gpu-architecture", 17))
      return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: options[%d] '%s': the architecture is the current "
                       "device's and cannot be chosen", fn, i, o);
  }
  *out = *in;
  return ND_OK;
}

/* ---- targets ----------------------------------------------------------------------------- */

/* The architecture NVRTC will emit for a device of compute capability arch: *cubin 1 when it
 * can emit sm_<arch>, else 0 and the newest virtual architecture at or below. */
static int nd__jit_target(int arch, int *cubin) {
  int n = 0;
  *cubin = 1;
  if (nvrtcGetNumSupportedArchs(&n) != NVRTC_SUCCESS || n <= 0 || n > 256) return arch;
  int a[256];
  if (nvrtcGetSupportedArchs(a) != NVRTC_SUCCESS) return arch;
  int best = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] == arch) return arch;
    if (a[i] < arch && a[i] > best) best = a[i];
  }
  *cubin = 0;
  return best ? best : arch;
}

static unsigned char nd__jit_helper_sha[32];
static pthread_once_t nd__jit_helper_once = PTHREAD_ONCE_INIT;
static void nd__jit_helper_digest(void) {
  nd__sha256(nd__jit_helper_header, strlen(nd__jit_helper_header), nd__jit_helper_sha);
}

nd_status nd__jit_material(const nd__jit_source *s, nd__jit_key *k) {
  const nd_module_options *o = s->opts;
  int major = 0, minor = 0, cubin = 1;
  nvrtcVersion(&major, &minor);
  const int target = nd__jit_target(s->arch, &cubin);
  nd__jit_key_u64(k, 'F', ND__JIT_FORMAT_VERSION);
  nd__jit_key_u64(k, 'V', (uint64_t)ND_VERSION_HEX);
  nd__jit_key_u64(k, 'N', (uint64_t)(major * 1000 + minor));
  nd__jit_key_u64(k, 'A', (uint64_t)s->arch);
  nd__jit_key_u64(k, 'T', (uint64_t)(target * 2 + cubin));
  nd__jit_key_str(k, 'I', nd__jit_cuda_include());
  /* The helper header by its digest: the same coverage, and a memory hit does not copy and
   * compare its few kilobytes on every lookup. */
  pthread_once(&nd__jit_helper_once, nd__jit_helper_digest);
  nd__jit_key_bytes(k, 'H', nd__jit_helper_sha, sizeof nd__jit_helper_sha);
  nd__jit_key_str(k, 'S', s->source);
  nd__jit_key_u64(k, 'h', (uint64_t)o->nheaders);
  for (int i = 0; i < o->nheaders; i++) {
    nd__jit_key_str(k, 'n', o->header_names[i]);
    nd__jit_key_str(k, 'c', o->header_sources[i]);
  }
  nd__jit_key_u64(k, 'o', (uint64_t)o->noptions);
  for (int i = 0; i < o->noptions; i++) nd__jit_key_str(k, 'O', o->options[i]);
  nd__jit_key_u64(k, 'd', (uint64_t)o->ndefines);
  for (int i = 0; i < o->ndefines; i++) nd__jit_key_str(k, 'D', o->defines[i]);
  nd__jit_key_u64(k, 'e', (uint64_t)o->nname_expressions);
  for (int i = 0; i < o->nname_expressions; i++) nd__jit_key_str(k, 'E', o->name_expressions[i]);
  nd__jit_key_u64(k, 'C', (uint64_t)(o->cooperative != 0));
  if (k->failed) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory for the cache key of '%s'", s->fn, s->what);
  return ND_OK;
}

/* ---- compile ----------------------------------------------------------------------------- */

static char *nd__dupstr(const char *s) {
  const size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* The first lines of a log, for the status message. */
static void nd__log_head(const char *log, char *out, size_t cap) {
  size_t n = 0;
  int lines = 0;
  while (log[n] && n < cap - 1 && n < ND__LOG_CHARS) {
    if (log[n] == '\n' && ++lines == ND__LOG_LINES) break;
    n++;
  }
  memcpy(out, log, n);
  out[n] = '\0';
  while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == ' ')) out[--n] = '\0';
}

nd_status nd__jit_nvrtc_compile(const nd__jit_source *s, nd__jit_binary **out, char **log) {
  const nd_module_options *o = s->opts;
  nd_status st = ND_OK;
  nvrtcProgram prog = NULL;
  char **argv = NULL;
  const char **hdr_src = NULL, **hdr_name = NULL;
  char *text = NULL;
  nd__jit_binary *b = NULL;
  const int nh = o->nheaders + 1;
  const int nargs = o->noptions + o->ndefines + 3;
  int argc = 0;
  *out = NULL;
  *log = NULL;

  hdr_src = (const char **)calloc((size_t)nh, sizeof(char *));
  hdr_name = (const char **)calloc((size_t)nh, sizeof(char *));
  argv = (char **)calloc((size_t)nargs, sizeof(char *));
  if (!hdr_src || !hdr_name || !argv) goto oom;
  hdr_name[0] = "ndcuda_jit.h";
  hdr_src[0] = nd__jit_helper_header;
  for (int i = 0; i < o->nheaders; i++) {
    hdr_name[1 + i] = o->header_names[i];
    hdr_src[1 + i] = o->header_sources[i];
  }
  int cubin = 1;
  const int target = nd__jit_target(s->arch, &cubin);
  char arch[64];
  snprintf(arch, sizeof arch, "-arch=%s_%d", cubin ? "sm" : "compute", target);
  if (!(argv[argc++] = nd__dupstr(arch))) goto oom;
  const char *inc = nd__jit_cuda_include();
  if (inc[0]) {
    char buf[1200];
    snprintf(buf, sizeof buf, "-I%s", inc);
    if (!(argv[argc++] = nd__dupstr(buf))) goto oom;
    if (nd__jit_cccl[0]) {
      snprintf(buf, sizeof buf, "-I%s", nd__jit_cccl);
      if (!(argv[argc++] = nd__dupstr(buf))) goto oom;
    }
  }
  for (int i = 0; i < o->ndefines; i++) {
    const size_t n = strlen(o->defines[i]) + 3;
    if (!(argv[argc] = (char *)malloc(n))) goto oom;
    snprintf(argv[argc++], n, "-D%s", o->defines[i]);
  }
  for (int i = 0; i < o->noptions; i++)
    if (!(argv[argc++] = nd__dupstr(o->options[i]))) goto oom;

  char pname[300];
  snprintf(pname, sizeof pname, "%s.cu", s->what);
  if ((st = ND_NVRTC(nvrtcCreateProgram(&prog, s->source, pname, nh, hdr_src, hdr_name))) != ND_OK) goto fail;
  for (int i = 0; i < o->nname_expressions; i++)
    if ((st = ND_NVRTC(nvrtcAddNameExpression(prog, o->name_expressions[i]))) != ND_OK) goto fail;
  const nvrtcResult cr = nvrtcCompileProgram(prog, argc, (const char *const *)argv);
  size_t lsize = 0;
  if (nvrtcGetProgramLogSize(prog, &lsize) == NVRTC_SUCCESS && lsize > 0) {
    if (!(*log = (char *)malloc(lsize))) goto oom;
    if (nvrtcGetProgramLog(prog, *log) != NVRTC_SUCCESS) (*log)[0] = '\0';
  }
  if (cr != NVRTC_SUCCESS) {
    char head[ND__LOG_CHARS + 1];
    nd__log_head(*log ? *log : "", head, sizeof head);
    st = nd__error(cr == NVRTC_ERROR_COMPILATION || cr == NVRTC_ERROR_INVALID_OPTION ? ND_ERR_COMPILE : ND_ERR_NVRTC,
                   "%s: compiling '%s' for %s failed (%s):\n%s", s->fn, s->what, arch + 6,
                   nvrtcGetErrorString(cr), head);
    goto fail;
  }
  size_t size = 0;
  if (cubin)
    st = ND_NVRTC(nvrtcGetCUBINSize(prog, &size));
  else
    st = ND_NVRTC(nvrtcGetPTXSize(prog, &size));
  if (st != ND_OK) goto fail;
  if (!(b = nd__jit_binary_new(o->nname_expressions, size))) goto oom;
  if (cubin)
    st = ND_NVRTC(nvrtcGetCUBIN(prog, (char *)b->payload));
  else
    st = ND_NVRTC(nvrtcGetPTX(prog, (char *)b->payload));
  if (st != ND_OK) goto fail;
  b->arch = (uint32_t)s->arch;
  b->flags = (o->cooperative ? ND__JIT_COOPERATIVE : 0u) | (cubin ? 0u : ND__JIT_PTX);
  for (int i = 0; i < o->nname_expressions; i++) {
    const char *lowered = NULL;
    if ((st = ND_NVRTC(nvrtcGetLoweredName(prog, o->name_expressions[i], &lowered))) != ND_OK) goto fail;
    if (!(b->names[i] = nd__dupstr(o->name_expressions[i])) || !(b->lowered[i] = nd__dupstr(lowered))) goto oom;
  }
  if (!(b->log = nd__dupstr(*log ? *log : ""))) goto oom;
  *out = b;
  b = NULL;
  goto done;
oom:
  st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory compiling '%s'", s->fn, s->what);
fail:
  if (st == ND_OK) st = ND_ERR_INTERNAL;
done:
  if (prog) nvrtcDestroyProgram(&prog);
  for (int i = 0; i < argc; i++) free(argv[i]);
  free(argv);
  free(hdr_src);
  free(hdr_name);
  free(text);
  nd__jit_binary_free(b);
  if (st != ND_OK && st != ND_ERR_COMPILE) {
    free(*log);
    *log = NULL;
  }
  return st;
}
