/* Generated reduction kernels (nd_reduction_kernel_*), as CuPy's ReductionKernel.
 *
 * Each element of the (broadcast) inputs is mapped with map_expr to the reduce type, values
 * are combined with reduce_expr (of a and b), and post_map_expr turns the result a into the
 * output y. The loop has two index spaces, both collapsed like the elementwise ones: the kept
 * axes (one output element each) and the reduced axes.
 *
 * Geometry: a warp per work item (output element o, split s): its lanes stride through the
 * s-th chunk of the reduced index space, each keeping a partial value, then the warp combines
 * its 32 partials through shared memory. When there are few outputs for the device (fewer
 * than 64 warps' worth per multiprocessor) the reduced space of each output is split over
 * several warps, whose partials go to a temporary array that a second kernel (a warp per
 * output) combines and post-maps; otherwise one kernel does all. Without an identity, each
 * partial carries a "has a value" flag, so an empty chunk never enters the combine; an empty
 * reduction without identity is an error, as NumPy's. The reduced-space offsets come from a
 * running index when the reduced space collapses to one dimension (the common case), else by
 * peeling dimensions, in 64-bit arithmetic. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/gen.h"
#include "src/api_scope.h"
#include "src/array.h"
#include "streams/hazard.h"

#define ND__RD_MAXP 12
#define ND__RD_MAXIN 8

typedef struct nd__rd_instance {
  struct nd__rd_instance *next;
  char sig[256];
  nd_module *module;
  nd_kernel *main, *final;
  atomic_int per_sm; /* resident 256-thread blocks of main per multiprocessor (0: not asked yet) */
} nd__rd_instance;

struct nd_reduction_kernel {
  char name[64];
  int nin;
  nd__ew_param p[ND__RD_MAXP]; /* inputs, then the one output */
  char rtype[64];              /* reduce type: dtype name, placeholder, or "" (the output's) */
  char *map, *reduce, *post, *identity, *preamble;
  nd_module_options opts;
  char **opt_copy;
  int nopt_copy;
  pthread_mutex_t mu;
  nd__rd_instance *instances;
};

void nd_reduction_kernel_release(nd_reduction_kernel *k) {
  if (k == NULL) return;
  for (nd__rd_instance *x = k->instances, *n; x; x = n) {
    n = x->next;
    nd_kernel_release(x->main);
    nd_kernel_release(x->final);
    nd_module_release(x->module);
    free(x);
  }
  for (int i = 0; i < k->nopt_copy; i++) free(k->opt_copy[i]);
  free(k->opt_copy);
  free(k->map);
  free(k->reduce);
  free(k->post);
  free(k->identity);
  free(k->preamble);
  pthread_mutex_destroy(&k->mu);
  free(k);
}

nd_status nd_reduction_kernel_create(const char *in_params, const char *out_params, const char *map_expr,
                                     const char *reduce_expr, const char *post_map_expr, const char *identity,
                                     const char *reduce_type, const char *name, const char *preamble,
                                     const nd_module_options *opts, nd_reduction_kernel **out) {
  const char *fn = "nd_reduction_kernel_create";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, in_params);
  ND_CHECK_NULL(fn, out_params);
  ND_CHECK_NULL(fn, map_expr);
  ND_CHECK_NULL(fn, reduce_expr);
  ND_CHECK_NULL(fn, name);
  ND_CHECK_NULL(fn, out);
  if (strlen(name) >= 48 || !name[0])
    return nd__error(ND_ERR_VALUE, "%s: kernel name '%s' is empty or longer than 47 characters", fn, name);
  for (const char *c = name; *c; c++)
    if (!(*c == '_' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
      return nd__error(ND_ERR_VALUE, "%s: kernel name '%s' is not an identifier", fn, name);
  nd_module_options o;
  ND_TRY(nd__jit_check_options(fn, opts, &o));
  nd_reduction_kernel *k = (nd_reduction_kernel *)calloc(1, sizeof *k);
  if (!k) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  pthread_mutex_init(&k->mu, NULL);
  snprintf(k->name, sizeof k->name, "%s", name);
  int nout = 0;
  /* a and b are the operands of reduce_expr and post_map_expr's a */
  nd_status st = nd__ew_parse(fn, k->name, k->p, 0, ND__RD_MAXP - 1, in_params, 0, 1, &k->nin);
  if (st == ND_OK) st = nd__ew_parse(fn, k->name, k->p, k->nin, ND__RD_MAXP, out_params, 1, 1, &nout);
  if (st == ND_OK && nout != 1)
    st = nd__error(ND_ERR_VALUE, "%s: kernel '%s' has %d output parameters (a reduction has one)", fn, name, nout);
  if (st == ND_OK && k->nin > ND__RD_MAXIN)
    st = nd__error(ND_ERR_VALUE, "%s: kernel '%s' has %d inputs (at most %d)", fn, name, k->nin, ND__RD_MAXIN);
  for (int j = 0; st == ND_OK && j <= k->nin; j++)
    if (k->p[j].raw) st = nd__error(ND_ERR_VALUE, "%s: kernel '%s': raw parameters are not supported in reductions", fn, name);
  if (st == ND_OK && reduce_type && reduce_type[0]) {
    if (strlen(reduce_type) >= sizeof k->rtype)
      st = nd__error(ND_ERR_VALUE, "%s: kernel '%s': reduce type '%s' is too long", fn, name, reduce_type);
    else
      snprintf(k->rtype, sizeof k->rtype, "%s", reduce_type);
  }
  if (st == ND_OK) {
    k->map = nd__sdup(map_expr);
    k->reduce = nd__sdup(reduce_expr);
    k->post = nd__sdup(post_map_expr && post_map_expr[0] ? post_map_expr : "y = a");
    k->identity = identity && identity[0] ? nd__sdup(identity) : NULL;
    k->preamble = nd__sdup(preamble ? preamble : "");
    const int n = 2 * o.nheaders + o.noptions + o.ndefines;
    k->opt_copy = (char **)calloc((size_t)n + 1, sizeof(char *));
    if (!k->map || !k->reduce || !k->post || !k->preamble || !k->opt_copy || (identity && identity[0] && !k->identity))
      st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    char **c = k->opt_copy;
    for (int i = 0; st == ND_OK && i < o.noptions; i++) c[k->nopt_copy++] = nd__sdup(o.options[i]);
    for (int i = 0; st == ND_OK && i < o.ndefines; i++) c[k->nopt_copy++] = nd__sdup(o.defines[i]);
    for (int i = 0; st == ND_OK && i < o.nheaders; i++) c[k->nopt_copy++] = nd__sdup(o.header_names[i]);
    for (int i = 0; st == ND_OK && i < o.nheaders; i++) c[k->nopt_copy++] = nd__sdup(o.header_sources[i]);
    for (int i = 0; st == ND_OK && i < k->nopt_copy; i++)
      if (!c[i]) st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    k->opts = o;
    if (k->opt_copy) {
      k->opts.options = (const char *const *)c;
      k->opts.defines = (const char *const *)c + o.noptions;
      k->opts.header_names = (const char *const *)c + o.noptions + o.ndefines;
      k->opts.header_sources = (const char *const *)c + o.noptions + o.ndefines + o.nheaders;
    }
    k->opts.name = k->name;
  }
  if (st != ND_OK) {
    nd_reduction_kernel_release(k);
    return st;
  }
  *out = k;
  return ND_OK;
}

/* ---- source ------------------------------------------------------------------------------ */

typedef struct nd__rd_bind {
  nd_dtype ptype[ND__RD_MAXP], atype[ND__RD_MAXP];
  int scalar[ND__RD_MAXP];
  nd_dtype rtype;
} nd__rd_bind;

static char *nd__rd_source(const nd_reduction_kernel *k, const nd__rd_bind *b) {
  nd__sbuf s = {NULL, 0, 0, 0};
  const int nin = k->nin, np = nin + 1;
  int half = b->rtype == ND_FLOAT16, narr = 0;
  for (int j = 0; j < np; j++) half |= b->ptype[j] == ND_FLOAT16 || b->atype[j] == ND_FLOAT16;
  for (int j = 0; j < nin; j++) narr += !b->scalar[j];
  const int nrows = narr > 0 ? narr : 1;
  const char *rt = nd__ew_ctype[b->rtype];
  size_t maxsize = 1;
  for (int j = 0; j < nin; j++)
    if (!b->scalar[j] && nd_dtype_itemsize(b->atype[j]) > maxsize) maxsize = nd_dtype_itemsize(b->atype[j]);
  const int V = (int)(16 / maxsize);
  if (half) nd__sp(&s, "#define ND_JIT_FLOAT16\n");
  nd__sp(&s, "#include \"ndcuda_jit.h\"\n%s\n", k->preamble);
  /* kept-space strides: one row per array input, then the output; reduced-space strides: one
   * row per array input */
  nd__sp(&s, "struct nd_rd_geom { int ondim, rndim; long long oshape[32], rshape[32]; long long ostr[%d][32]; "
         "long long rstr[%d][32]; };\n", narr + 1, nrows);
  nd__sp(&s, "typedef %s nd_rt;\n", rt);
  nd__sp(&s, "template <class T, int N> struct __align__(16) nd_ew_vec { T v[N]; };\n");
  /* placeholder typedefs at file scope, so map, reduce and post see them */
  for (int j = 0; j < np; j++) {
    if (k->p[j].fixed != (nd_dtype)-1) continue;
    int seen = 0;
    for (int i = 0; i < j; i++) seen |= !strcmp(k->p[i].type, k->p[j].type);
    if (!seen) nd__sp(&s, "typedef %s %s;\n", nd__ew_ctype[b->ptype[j]], k->p[j].type);
  }
  nd__sp(&s, "__device__ __forceinline__ nd_rt nd_rd_combine(const nd_rt a, const nd_rt b) { return (%s); }\n", k->reduce);
  /* the identity, or nothing */
  const int ident = k->identity != NULL;
  nd__sbuf params = {NULL, 0, 0, 0};
  for (int j = 0; j < nin; j++) {
    if (b->scalar[j])
      nd__sp(&params, "const %s p_%s, ", nd__ew_ctype[b->ptype[j]], k->p[j].name);
    else
      nd__sp(&params, "const %s *p_%s, ", nd__ew_ctype[b->atype[j]], k->p[j].name);
  }
  nd__sp(&params, "%s *p_%s, ", nd__ew_ctype[b->atype[nin]], k->p[nin].name);
  const char *P = params.p ? params.p : "";
  if (params.failed) s.failed = 1;
  const char *yn = k->p[nin].name, *yt = nd__ew_ctype[b->atype[nin]], *ypt = nd__ew_ctype[b->ptype[nin]];

  /* main kernel */
  nd__sp(&s, "extern \"C\" __global__ void __launch_bounds__(256) nd_rd_main(%snd_rt *partial, bool *pflag, "
         "const nd_rd_geom g, long long nout, long long nred, long long nsplit, int rvec) {\n", P);
  nd__sp(&s, "  __shared__ nd_rt sh[256]; __shared__ bool shf[256];\n"
         "  const int lane = threadIdx.x & 31;\n"
         "  const long long nwarps = (long long)gridDim.x * (blockDim.x >> 5);\n"
         "  const long long chunk = rvec ? ((nred + nsplit - 1) / nsplit + %d - 1) / %d * %d : (nred + nsplit - 1) / nsplit;\n",
         32 * V, 32 * V, 32 * V);
  nd__sp(&s, "  for (long long w = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); w < nout * nsplit; "
         "w += nwarps) {\n    const long long o = w / nsplit, sp = w - o * nsplit;\n");
  nd__sp(&s, "    long long ob[%d]; long long q = o;\n#pragma unroll\n    for (int x = 0; x < %d; x++) ob[x] = 0;\n"
         "    for (int d = g.ondim - 1; d >= 0; --d) { const long long qq = q / g.oshape[d], m = q - qq * g.oshape[d];\n"
         "#pragma unroll\n      for (int x = 0; x < %d; x++) ob[x] += m * g.ostr[x][d];\n      q = qq; }\n",
         narr + 1, narr + 1, narr + 1);
  nd__sp(&s, "    const long long r0 = sp * chunk, r1 = r0 + chunk < nred ? r0 + chunk : nred;\n");
  if (ident)
    nd__sp(&s, "    nd_rt acc = (nd_rt)(%s); bool have = true;\n", k->identity);
  else
    nd__sp(&s, "    nd_rt acc; bool have = false;\n");
  /* The contiguous path (rvec: one reduced dimension, every array input contiguous along it):
   * each lane loads 16 bytes of each input at a time, when the bases are 16-byte aligned. */
  nd__sp(&s, "    long long rs = r0;\n    if (rvec");
  {
    int x = 0;
    for (int j = 0; j < nin; j++)
      if (!b->scalar[j]) nd__sp(&s, " && ((((unsigned long long)p_%s) + ob[%d]) & 15) == 0", k->p[j].name, x++);
  }
  nd__sp(&s, ") {\n      const long long rv_end = r1 > r0 ? r0 + (r1 - r0) / %d * %d : r0;\n"
         "#pragma unroll 2\n      for (long long r = r0 + (long long)lane * %d; r < rv_end; r += %d) {\n", V, V, V, 32 * V);
  {
    int x = 0;
    for (int j = 0; j < nin; j++) {
      if (b->scalar[j]) continue;
      const char *at = nd__ew_ctype[b->atype[j]];
      nd__sp(&s, "        const nd_ew_vec<%s, %d> r_%s = *(const nd_ew_vec<%s, %d> *)((const char *)p_%s + ob[%d] + r * (long long)sizeof(%s));\n",
             at, V, k->p[j].name, at, V, k->p[j].name, x++, at);
    }
  }
  nd__sp(&s, "#pragma unroll\n        for (int u = 0; u < %d; u++) {\n", V);
  for (int j = 0; j < nin; j++) {
    const char *pt = nd__ew_ctype[b->ptype[j]];
    if (b->scalar[j])
      nd__sp(&s, "          const %s %s = p_%s;\n", pt, k->p[j].name, k->p[j].name);
    else
      nd__sp(&s, "          const %s %s = (%s)r_%s.v[u];\n", pt, k->p[j].name, pt, k->p[j].name);
  }
  nd__sp(&s, "          const nd_rt v = (nd_rt)(%s);\n          if (have) acc = nd_rd_combine(acc, v); else { acc = v; have = true; }\n"
         "        }\n      }\n      rs = rv_end;\n    }\n", k->map);
  /* the general path, and the tail of the contiguous one; unrolled, so that several loads of a
   * lane are in flight at once */
  nd__sp(&s, "#pragma unroll 4\n    for (long long r = rs + lane; r < r1; r += 32) {\n      long long ro[%d];\n"
         "      if (g.rndim == 1) {\n#pragma unroll\n        for (int x = 0; x < %d; x++) ro[x] = r * g.rstr[x][0];\n"
         "      } else {\n        long long t = r;\n#pragma unroll\n        for (int x = 0; x < %d; x++) ro[x] = 0;\n"
         "        for (int d = g.rndim - 1; d >= 0; --d) { const long long tt = t / g.rshape[d], m = t - tt * g.rshape[d];\n"
         "#pragma unroll\n          for (int x = 0; x < %d; x++) ro[x] += m * g.rstr[x][d];\n          t = tt; }\n      }\n",
         nrows, nrows, nrows, nrows);
  int a = 0;
  for (int j = 0; j < nin; j++) {
    const char *pt = nd__ew_ctype[b->ptype[j]], *at = nd__ew_ctype[b->atype[j]];
    if (b->scalar[j]) {
      nd__sp(&s, "      const %s %s = p_%s;\n", pt, k->p[j].name, k->p[j].name);
    } else {
      nd__sp(&s, "      const %s %s = (%s)*(const %s *)((const char *)p_%s + ob[%d] + ro[%d]);\n", pt, k->p[j].name, pt,
             at, k->p[j].name, a, a);
      a++;
    }
  }
  nd__sp(&s, "      const nd_rt v = (nd_rt)(%s);\n      if (have) acc = nd_rd_combine(acc, v); else { acc = v; have = true; }\n"
         "    }\n", k->map);
  nd__sp(&s, "    sh[threadIdx.x] = acc; shf[threadIdx.x] = have; __syncwarp();\n"
         "#pragma unroll\n    for (int off = 16; off > 0; off >>= 1) {\n"
         "      if (lane < off && shf[threadIdx.x + off]) {\n"
         "        sh[threadIdx.x] = shf[threadIdx.x] ? nd_rd_combine(sh[threadIdx.x], sh[threadIdx.x + off]) : sh[threadIdx.x + off];\n"
         "        shf[threadIdx.x] = true;\n      }\n      __syncwarp();\n    }\n");
  nd__sp(&s, "    if (lane == 0) {\n      if (nsplit == 1) {\n        const nd_rt a = sh[threadIdx.x]; (void)a;\n"
         "        %s %s;\n        { %s; }\n        *(%s *)((char *)p_%s + ob[%d]) = (%s)%s;\n"
         "      } else {\n        partial[w] = sh[threadIdx.x]; pflag[w] = shf[threadIdx.x];\n      }\n    }\n    __syncwarp();\n  }\n}\n",
         ypt, yn, k->post, yt, yn, narr, yt, yn);

  /* final kernel: a warp per output over its nsplit partials */
  nd__sp(&s, "extern \"C\" __global__ void __launch_bounds__(256) nd_rd_final(const nd_rt *partial, const bool *pflag, "
         "%s *p_%s, const nd_rd_geom g, long long nout, long long nsplit) {\n", yt, yn);
  nd__sp(&s, "  __shared__ nd_rt sh[256]; __shared__ bool shf[256];\n  const int lane = threadIdx.x & 31;\n"
         "  const long long nwarps = (long long)gridDim.x * (blockDim.x >> 5);\n");
  nd__sp(&s, "  for (long long o = (long long)blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5); o < nout; o += nwarps) {\n"
         "    long long yo = 0, q = o;\n"
         "    for (int d = g.ondim - 1; d >= 0; --d) { const long long qq = q / g.oshape[d]; yo += (q - qq * g.oshape[d]) * g.ostr[%d][d]; q = qq; }\n",
         narr);
  if (ident)
    nd__sp(&s, "    nd_rt acc = (nd_rt)(%s); bool have = true;\n", k->identity);
  else
    nd__sp(&s, "    nd_rt acc; bool have = false;\n");
  nd__sp(&s, "    for (long long t = lane; t < nsplit; t += 32) {\n      if (!pflag[o * nsplit + t]) continue;\n"
         "      const nd_rt v = partial[o * nsplit + t];\n      if (have) acc = nd_rd_combine(acc, v); else { acc = v; have = true; }\n    }\n");
  nd__sp(&s, "    sh[threadIdx.x] = acc; shf[threadIdx.x] = have; __syncwarp();\n"
         "#pragma unroll\n    for (int off = 16; off > 0; off >>= 1) {\n"
         "      if (lane < off && shf[threadIdx.x + off]) {\n"
         "        sh[threadIdx.x] = shf[threadIdx.x] ? nd_rd_combine(sh[threadIdx.x], sh[threadIdx.x + off]) : sh[threadIdx.x + off];\n"
         "        shf[threadIdx.x] = true;\n      }\n      __syncwarp();\n    }\n");
  nd__sp(&s, "    if (lane == 0) {\n      const nd_rt a = sh[threadIdx.x]; (void)a;\n      %s %s;\n      { %s; }\n"
         "      *(%s *)((char *)p_%s + yo) = (%s)%s;\n    }\n    __syncwarp();\n  }\n}\n",
         ypt, yn, k->post, yt, yn, yt, yn);
  free(params.p);
  if (s.failed) {
    free(s.p);
    return NULL;
  }
  return s.p;
}

char *nd__rd_source_for(const nd_reduction_kernel *k, const nd_dtype *ptype, const nd_dtype *atype,
                        const int *scalar, nd_dtype rtype) {
  nd__rd_bind b;
  memset(&b, 0, sizeof b);
  for (int j = 0; j <= k->nin; j++) {
    b.ptype[j] = ptype[j];
    b.atype[j] = atype[j];
    b.scalar[j] = scalar[j];
  }
  b.rtype = rtype;
  return nd__rd_source(k, &b);
}

static nd_status nd__rd_instance_get(const char *fn, nd_reduction_kernel *k, const nd__rd_bind *b,
                                     nd__rd_instance **out) {
  char sig[256];
  size_t n = 0;
  for (int j = 0; j <= k->nin && n < sizeof sig; j++)
    n += (size_t)snprintf(sig + n, sizeof sig - n, "%d:%d:%d,", (int)b->ptype[j], (int)b->atype[j], b->scalar[j]);
  if (n < sizeof sig) snprintf(sig + n, sizeof sig - n, "r%d", (int)b->rtype);
  pthread_mutex_lock(&k->mu);
  for (nd__rd_instance *x = k->instances; x; x = x->next)
    if (!strcmp(x->sig, sig)) {
      pthread_mutex_unlock(&k->mu);
      *out = x;
      return ND_OK;
    }
  pthread_mutex_unlock(&k->mu);
  char *src = nd__rd_source(k, b);
  nd__rd_instance *x = src ? (nd__rd_instance *)calloc(1, sizeof *x) : NULL;
  if (!x) {
    free(src);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory generating '%s'", fn, k->name);
  }
  snprintf(x->sig, sizeof x->sig, "%s", sig);
  nd_status st = nd__jit_module_get(fn, k->name, src, &k->opts, &x->module);
  free(src);
  if (st == ND_OK) st = nd_module_get_kernel(x->module, "nd_rd_main", &x->main);
  if (st == ND_OK) st = nd_module_get_kernel(x->module, "nd_rd_final", &x->final);
  if (st != ND_OK) {
    nd_kernel_release(x->main);
    nd_module_release(x->module);
    free(x);
    return st;
  }
  pthread_mutex_lock(&k->mu);
  for (nd__rd_instance *y = k->instances; y; y = y->next)
    if (!strcmp(y->sig, sig)) {
      pthread_mutex_unlock(&k->mu);
      nd_kernel_release(x->main);
      nd_kernel_release(x->final);
      nd_module_release(x->module);
      free(x);
      *out = y;
      return ND_OK;
    }
  x->next = k->instances;
  k->instances = x;
  pthread_mutex_unlock(&k->mu);
  *out = x;
  return ND_OK;
}

/* ---- the call ---------------------------------------------------------------------------- */

static nd_dtype nd__rd_lookup(const nd_reduction_kernel *k, const nd__rd_bind *b, const char *type) {
  nd_dtype d;
  if (nd_dtype_from_name(type, &d) == ND_OK) return d;
  for (int j = 0; j <= k->nin; j++)
    if (!strcmp(k->p[j].type, type) && b->ptype[j] != (nd_dtype)-1) return b->ptype[j];
  return (nd_dtype)-1;
}

nd_status nd_reduction_kernel_call(nd_reduction_kernel *k, int nin, const nd_operand *in, int naxes,
                                   const int64_t *axes, int keepdims, nd_array *out, nd_array **result) {
  const char *fn = "nd_reduction_kernel_call";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, k);
  ND_CHECK_RESULT(fn, out, result);
  if (nin > 0 && in == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'in' is NULL", fn);
  if (nin != k->nin)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s' takes %d inputs, %d given", fn, k->name, k->nin, nin);
  const int np = nin + 1;
  const nd_array *arr[ND__RD_MAXP];
  nd__rd_bind b;
  memset(&b, 0, sizeof b);
  for (int j = 0; j < np; j++) b.ptype[j] = b.atype[j] = (nd_dtype)-1;
  int nd = 0, have_array = 0;
  for (int j = 0; j < nin; j++) {
    arr[j] = NULL;
    if (in[j].kind == ND_OPERAND_ARRAY && in[j].array) {
      arr[j] = in[j].array;
      b.atype[j] = arr[j]->dtype;
      if (arr[j]->ndim > nd) nd = arr[j]->ndim;
      have_array = 1;
    } else if (in[j].kind == ND_OPERAND_SCALAR) {
      b.scalar[j] = 1;
    } else {
      return nd__error(ND_ERR_NULL_POINTER, "%s: kernel '%s': input '%s' has no value", fn, k->name, k->p[j].name);
    }
  }
  if (!have_array) return nd__error(ND_ERR_VALUE, "%s: kernel '%s': no array input to reduce", fn, k->name);
  arr[nin] = out;
  if (out) b.atype[nin] = out->dtype;
  /* placeholders: arrays, then scalars, then the output */
  for (int pass = 0; pass < 3; pass++)
    for (int j = 0; j < np; j++) {
      if (k->p[j].fixed != (nd_dtype)-1) continue;
      nd_dtype d;
      if (pass == 0 && j < nin && arr[j])
        d = arr[j]->dtype;
      else if (pass == 1 && j < nin && b.scalar[j])
        d = nd_dtype_is_weak(in[j].scalar.dtype) ? nd__weak_default(in[j].scalar.dtype) : in[j].scalar.dtype;
      else if (pass == 2 && j == nin && out)
        d = out->dtype;
      else
        continue;
      const nd_dtype bound = nd__rd_lookup(k, &b, k->p[j].type);
      if (bound == (nd_dtype)-1) {
        for (int i = 0; i < np; i++)
          if (!strcmp(k->p[i].type, k->p[j].type)) b.ptype[i] = d;
      } else if (bound != d && pass == 0) {
        return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': type placeholder %s is bound to %s but '%s' is %s", fn,
                         k->name, k->p[j].type, nd_dtype_name(bound), k->p[j].name, nd_dtype_name(d));
      }
    }
  for (int j = 0; j < np; j++) {
    if (k->p[j].fixed != (nd_dtype)-1) b.ptype[j] = k->p[j].fixed;
    if (b.ptype[j] == (nd_dtype)-1)
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': the type %s of '%s' cannot be resolved from the arguments", fn,
                       k->name, k->p[j].type, k->p[j].name);
    if (b.atype[j] == (nd_dtype)-1) b.atype[j] = b.ptype[j];
    if (j < nin && arr[j] && !nd_can_cast(b.atype[j], b.ptype[j], ND_CASTING_SAFE))
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': input '%s' is %s, which does not cast safely to %s", fn,
                       k->name, k->p[j].name, nd_dtype_name(b.atype[j]), nd_dtype_name(b.ptype[j]));
  }
  if (out && !nd_can_cast(b.ptype[nin], out->dtype, ND_CASTING_SAME_KIND))
    return nd__error(ND_ERR_CASTING, "%s: kernel '%s': output is %s, which %s does not cast to under 'same_kind'", fn,
                     k->name, nd_dtype_name(out->dtype), nd_dtype_name(b.ptype[nin]));
  b.rtype = k->rtype[0] ? nd__rd_lookup(k, &b, k->rtype) : b.ptype[nin];
  if (b.rtype == (nd_dtype)-1)
    return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': reduce type '%s' is neither a dtype nor a bound placeholder", fn,
                     k->name, k->rtype);
  /* broadcast shape */
  int64_t shape[ND_MAXDIMS];
  for (int d = 0; d < nd; d++) shape[d] = 1;
  for (int j = 0; j < nin; j++) {
    if (!arr[j]) continue;
    const int off = nd - arr[j]->ndim;
    for (int d = 0; d < arr[j]->ndim; d++) {
      const int64_t x = arr[j]->shape[d];
      if (shape[off + d] == 1)
        shape[off + d] = x;
      else if (x != 1 && x != shape[off + d]) {
        char s1[ND__SHAPE_STR], s2[ND__SHAPE_STR];
        return nd__error(ND_ERR_SHAPE, "%s: kernel '%s': input '%s' of shape %s does not broadcast to %s", fn,
                         k->name, k->p[j].name, nd__format_shape(s1, sizeof s1, arr[j]->ndim, arr[j]->shape),
                         nd__format_shape(s2, sizeof s2, nd, shape));
      }
    }
  }
  /* axes */
  int red[ND_MAXDIMS];
  memset(red, 0, sizeof red);
  if (axes == NULL) {
    for (int d = 0; d < nd; d++) red[d] = 1;
  } else {
    for (int i = 0; i < naxes; i++) {
      int64_t ax = axes[i];
      if (ax < -nd || ax >= nd)
        return nd__error(ND_ERR_AXIS, "%s: kernel '%s': axis %lld is out of bounds for an array of dimension %d", fn,
                         k->name, (long long)axes[i], nd);
      if (ax < 0) ax += nd;
      if (red[ax]) return nd__error(ND_ERR_AXIS, "%s: kernel '%s': axis %lld is repeated", fn, k->name, (long long)axes[i]);
      red[ax] = 1;
    }
  }
  int ond = 0, rnd = 0;
  int64_t oshape[ND_MAXDIMS], rshape[ND_MAXDIMS], yshape[ND_MAXDIMS];
  int ynd = 0;
  for (int d = 0; d < nd; d++) {
    if (red[d]) {
      rshape[rnd++] = shape[d];
      if (keepdims) yshape[ynd++] = 1;
    } else {
      oshape[ond++] = shape[d];
      yshape[ynd++] = shape[d];
    }
  }
  int64_t nout = 1, nred = 1;
  for (int d = 0; d < ond; d++) nout *= oshape[d];
  for (int d = 0; d < rnd; d++) nred *= rshape[d];
  if (nred == 0 && nout > 0 && k->identity == NULL)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s': zero-size reduction has no identity", fn, k->name);
  if (out) {
    if (!out->writeable) return nd__error(ND_ERR_READ_ONLY, "%s: kernel '%s': output is read-only", fn, k->name);
    if (out->ndim != ynd || memcmp(out->shape, yshape, sizeof(int64_t) * (size_t)ynd) != 0) {
      char s1[ND__SHAPE_STR], s2[ND__SHAPE_STR];
      return nd__error(ND_ERR_SHAPE, "%s: kernel '%s': output has shape %s, the reduction gives %s", fn, k->name,
                       nd__format_shape(s1, sizeof s1, out->ndim, out->shape), nd__format_shape(s2, sizeof s2, ynd, yshape));
    }
  }
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, NULL, &s));
  for (int j = 0; j < np; j++)
    if (arr[j] && arr[j]->buf->device != s->device)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: kernel '%s': '%s' lives on device %d but the current device is device %d",
                       fn, k->name, k->p[j].name, arr[j]->buf->device, s->device);
  nd__rd_instance *inst = NULL;
  ND_TRY(nd__rd_instance_get(fn, k, &b, &inst));
  int sms = 0;
  ND_TRY(nd__jit_sm_count(fn, &sms));

  nd_array *y = out ? nd_array_retain(out) : NULL, *yk = NULL, *tmp[ND__RD_MAXP], *part = NULL, *flag = NULL;
  memset(tmp, 0, sizeof tmp);
  nd_status st = ND_OK;
  if (!y) st = nd__array_alloc(fn, ynd, yshape, b.ptype[nin], 'C', &y);
  /* an input overlapping the output is read from a copy */
  for (int j = 0; j < nin && st == ND_OK; j++)
    if (arr[j] && nd__array_may_overlap(arr[j], y)) {
      st = nd_array_copy(arr[j], ND_ORDER_C, &tmp[j]);
      arr[j] = tmp[j];
    }
  /* the output as a view over the kept axes only (its size-1 reduced axes dropped) */
  int64_t ystr[ND_MAXDIMS];
  if (st == ND_OK) {
    int yi = 0, oi = 0;
    for (int d = 0; d < nd; d++) {
      if (red[d]) {
        if (keepdims) yi++;
      } else {
        ystr[oi++] = y->strides[yi++];
      }
    }
  }
  if (st == ND_OK && nout > 0) {
    /* strides: kept space rows (inputs, then y), reduced space rows (inputs) */
    int64_t os[ND__RD_MAXIN + 1][ND_MAXDIMS], rs[ND__RD_MAXIN][ND_MAXDIMS];
    int64_t *osp[ND__RD_MAXIN + 1], *rsp[ND__RD_MAXIN];
    int narr = 0;
    nd_array *tracked[ND__RD_MAXP + 2];
    int modes[ND__RD_MAXP + 2], ntr = 0;
    for (int j = 0; j < nin; j++) {
      if (!arr[j]) continue;
      const int off = nd - arr[j]->ndim;
      int oi = 0, ri = 0;
      for (int d = 0; d < nd; d++) {
        const int dj = d - off;
        const int64_t st1 = dj < 0 || (arr[j]->shape[dj] == 1 && shape[d] != 1) ? 0 : arr[j]->strides[dj];
        if (red[d])
          rs[narr][ri++] = st1;
        else
          os[narr][oi++] = st1;
      }
      osp[narr] = os[narr];
      rsp[narr] = rs[narr];
      tracked[ntr] = (nd_array *)arr[j];
      modes[ntr++] = ND__READ;
      narr++;
    }
    for (int d = 0; d < ond; d++) os[narr][d] = ystr[d];
    osp[narr] = os[narr];
    int64_t ocs[ND_MAXDIMS], rcs[ND_MAXDIMS];
    memcpy(ocs, oshape, sizeof(int64_t) * (size_t)ond);
    memcpy(rcs, rshape, sizeof(int64_t) * (size_t)rnd);
    const int ocd = nd__collapse_dims(ond, ocs, narr + 1, osp);
    const int rcd = nred > 0 ? nd__collapse_dims(rnd, rcs, narr, rsp) : 0;
    /* the geometry in the kernel's layout: ints ondim, rndim; oshape[32]; rshape[32];
     * ostr[narr + 1][32]; rstr[max(narr, 1)][32] */
    const int nrows = narr > 0 ? narr : 1;
    long long geom[1 + 32 + 32 + (ND__RD_MAXIN + 1) * 32 + ND__RD_MAXIN * 32];
    memset(geom, 0, sizeof geom);
    int dims[2] = {ocd, rcd};
    memcpy(geom, dims, sizeof dims);
    for (int d = 0; d < ocd; d++) geom[1 + d] = ocs[d];
    for (int d = 0; d < rcd; d++) geom[33 + d] = rcs[d];
    for (int x = 0; x <= narr; x++)
      for (int d = 0; d < ocd; d++) geom[65 + x * 32 + d] = osp[x][d];
    for (int x = 0; x < narr; x++)
      for (int d = 0; d < rcd; d++) geom[65 + (narr + 1) * 32 + x * 32 + d] = rsp[x][d];
    (void)nrows;
    /* splits: one resident wave of warps for the device when there are few outputs (the
     * occupancy is asked once per instance: a second wave would leave most of the device idle
     * during its tail) */
    int per_sm = atomic_load(&inst->per_sm);
    if (per_sm == 0) {
      if (nd_kernel_max_active_blocks(inst->main, 256, 0, &per_sm) != ND_OK || per_sm < 1) per_sm = 1;
      atomic_store(&inst->per_sm, per_sm); /* racing threads store the same value */
    }
    const int64_t want_warps = (int64_t)sms * per_sm * 8;
    int64_t nsplit = 1;
    if (nout < want_warps && nred > 32 * 8) {
      nsplit = (want_warps + nout - 1) / nout;
      const int64_t most = (nred + 32 * 8 - 1) / (32 * 8); /* at least 8 elements per lane */
      if (nsplit > most) nsplit = most;
      if (nsplit < 1) nsplit = 1;
    }
    if (nsplit > 1) {
      const int64_t pn = nout * nsplit;
      st = nd__array_alloc(fn, 1, &pn, b.rtype, 'C', &part);
      if (st == ND_OK) st = nd__array_alloc(fn, 1, &pn, ND_BOOL, 'C', &flag);
    }
    if (st == ND_OK) {
      union {
        void *p;
        nd_kscalar sc;
      } val[ND__RD_MAXP + 3];
      void *argv[ND__RD_MAXP + 9];
      int ai = 0;
      for (int j = 0; j < nin; j++) {
        if (b.scalar[j])
          nd__scalar_to_bytes(in[j].scalar, b.ptype[j], &val[ai].sc);
        else
          val[ai].p = (char *)arr[j]->buf->ptr + arr[j]->offset;
        argv[ai] = &val[ai];
        ai++;
      }
      val[ai].p = (char *)y->buf->ptr + y->offset;
      argv[ai] = &val[ai];
      ai++;
      val[ai].p = part ? (char *)part->buf->ptr + part->offset : NULL;
      argv[ai] = &val[ai];
      ai++;
      val[ai].p = flag ? (char *)flag->buf->ptr + flag->offset : NULL;
      argv[ai] = &val[ai];
      ai++;
      long long n_out = nout, n_red = nred, n_split = nsplit;
      /* the contiguous path: one reduced dimension along which every array input is dense */
      int rvec = rcd == 1;
      for (int x = 0, j = 0; j < nin; j++)
        if (arr[j]) {
          if (rvec && rsp[x][0] != (int64_t)nd_dtype_itemsize(arr[j]->dtype)) rvec = 0;
          x++;
        }
      argv[ai++] = geom;
      argv[ai++] = &n_out;
      argv[ai++] = &n_red;
      argv[ai++] = &n_split;
      argv[ai++] = &rvec;
      argv[ai] = NULL;
      if (nsplit > 1) {
        tracked[ntr] = part;
        modes[ntr++] = ND__WRITE;
        tracked[ntr] = flag;
        modes[ntr++] = ND__WRITE;
      } else {
        tracked[ntr] = y;
        modes[ntr++] = ND__WRITE;
      }
      int64_t blocks = (nout * nsplit + 7) / 8;
      if (blocks > (int64_t)sms * per_sm) blocks = (int64_t)sms * per_sm;
      nd_launch_config cfg = {{(unsigned)(blocks < 1 ? 1 : blocks), 1, 1}, {256, 1, 1}, 0};
      st = nd__jit_launch(fn, inst->main, cfg, argv, ntr, tracked, modes);
      if (st == ND_OK && nsplit > 1) {
        void *fv[7];
        void *pp = (char *)part->buf->ptr + part->offset, *fp = (char *)flag->buf->ptr + flag->offset;
        void *yp = (char *)y->buf->ptr + y->offset;
        fv[0] = &pp;
        fv[1] = &fp;
        fv[2] = &yp;
        fv[3] = geom;
        fv[4] = &n_out;
        fv[5] = &n_split;
        fv[6] = NULL;
        nd_array *tr2[3] = {part, flag, y};
        int md2[3] = {ND__READ, ND__READ, ND__WRITE};
        int64_t b2 = (nout + 7) / 8;
        if (b2 > (int64_t)sms * 8) b2 = (int64_t)sms * 8;
        nd_launch_config c2 = {{(unsigned)(b2 < 1 ? 1 : b2), 1, 1}, {256, 1, 1}, 0};
        st = nd__jit_launch(fn, inst->final, c2, fv, 3, tr2, md2);
      }
    }
  }
  for (int j = 0; j < nin; j++) nd_array_release(tmp[j]);
  nd_array_release(part);
  nd_array_release(flag);
  (void)yk;
  if (st != ND_OK) {
    nd_array_release(y);
    return st;
  }
  if (result)
    *result = y;
  else
    nd_array_release(y);
  return ND_OK;
}
