/* Generated elementwise kernels (nd_elementwise_kernel_*), as CuPy's ElementwiseKernel.
 *
 * A definition is parsed once; each call resolves the type placeholders from its arguments,
 * and one CUDA source per (dtype signature, index width) is generated and compiled through
 * the kernel cache, then remembered on the definition so that later calls of the same
 * signature skip the cache lookup too. The source holds two kernels:
 * - nd_ew_contig: every (non-raw) array operand C-contiguous over the loop shape. When all of
 *   their addresses are 16-byte aligned each thread moves VEC = 16 / (largest item size)
 *   elements per step: loads of all inputs first (the compiler emits 16-byte loads, told the
 *   alignment), then the operation, then the stores, so an out that is the same view as an
 *   input is still read before it is written;
 * - nd_ew_strided: anything else, after the same dimension collapsing as the built-in
 *   elementwise ops (nd__collapse_dims); byte offsets from the C-order linear index by peeling
 *   dimensions, in 64-bit arithmetic. The index `i` the operation sees is the C-order linear
 *   index over the broadcast shape on both paths.
 * The launch geometry matches the built-in ops': 256-thread blocks, at most 8 per
 * multiprocessor, grid-stride loops. Outputs are write-only in the operation (their old value
 * is not loaded), which keeps `z = x + y` at the built-in's memory traffic; an input that
 * overlaps an output without being the same view is copied first (NumPy's rule). */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/gen.h"
#include "src/api_scope.h"
#include "src/array.h"
#include "streams/hazard.h"

#define ND__EW_MAXP 16   /* parameters per definition */
#define ND__EW_MAXARR 12 /* non-raw array operands per call: the geometry struct's size */

/* One compiled path of one signature. The two paths are separate modules, each compiled on
 * its first use: a contiguous call never pays for the strided kernel's compile (about twice
 * the contiguous one's, for its 64-bit index arithmetic). */
typedef struct nd__ew_instance {
  struct nd__ew_instance *next;
  char sig[256];
  nd_module *module;
  nd_kernel *kernel;
} nd__ew_instance;

struct nd_elementwise_kernel {
  char name[64];
  int nin, nout;
  nd__ew_param p[ND__EW_MAXP];
  char *operation, *preamble;
  nd_module_options opts;
  char **opt_copy; /* owned copies of the option strings */
  int nopt_copy;
  pthread_mutex_t mu;
  nd__ew_instance *instances;
};

const char *const nd__ew_ctype[ND_NUM_DTYPES] = {
    "nd_bool", "nd_int8", "nd_int16", "nd_int32", "nd_int64", "nd_uint8", "nd_uint16",
    "nd_uint32", "nd_uint64", "nd_float16", "nd_float32", "nd_float64", "nd_complex64", "nd_complex128"};

static int nd__is_ident(const char *s) {
  if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
  for (; *s; s++)
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'))) return 0;
  return 1;
}

nd_status nd__ew_parse(const char *fn, const char *kname, nd__ew_param *params, int base, int maxp,
                       const char *list, int out, int reserve_ab, int *count) {
  *count = 0;
  const char *s = list;
  while (*s) {
    const char *e = strchr(s, ',');
    const size_t len = e ? (size_t)(e - s) : strlen(s);
    char item[256], tok[3][128];
    if (len >= sizeof item)
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': parameter '%.40s...' is too long", fn, kname, s);
    memcpy(item, s, len);
    item[len] = '\0';
    int nt = 0;
    for (char *save = NULL, *t = strtok_r(item, " \t\n", &save); t; t = strtok_r(NULL, " \t\n", &save)) {
      if (nt == 3 || strlen(t) >= sizeof tok[0]) {
        nt = 4;
        break;
      }
      strcpy(tok[nt++], t);
    }
    if (nt == 0 && !e && *count == 0) break; /* an empty list */
    const int raw = nt == 3 && !strcmp(tok[0], "raw");
    if (!(nt == 2 || raw) || !nd__is_ident(tok[nt - 1]) || !nd__is_ident(tok[nt - 2]))
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': %s parameter '%.*s' is not \"[raw] type name\"", fn,
                       kname, out ? "output" : "input", (int)len, s);
    const int idx = base + *count;
    if (idx >= maxp) return nd__error(ND_ERR_VALUE, "%s: kernel '%s': more than %d parameters", fn, kname, maxp);
    nd__ew_param *p = &params[idx];
    snprintf(p->name, sizeof p->name, "%s", tok[nt - 1]);
    snprintf(p->type, sizeof p->type, "%s", tok[nt - 2]);
    p->raw = raw;
    nd_dtype d;
    p->fixed = nd_dtype_from_name(p->type, &d) == ND_OK ? d : (nd_dtype)-1;
    for (int j = 0; j < idx; j++)
      if (!strcmp(params[j].name, p->name))
        return nd__error(ND_ERR_VALUE, "%s: kernel '%s': parameter name '%s' is used twice", fn, kname, p->name);
    if (!strcmp(p->name, "i") || (reserve_ab && (!strcmp(p->name, "a") || !strcmp(p->name, "b"))) ||
        !strncmp(p->name, "nd_", 3) || !strncmp(p->name, "p_", 2))
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': parameter name '%s' is reserved (i%s, nd_*, p_*)", fn, kname,
                       p->name, reserve_ab ? ", a, b" : "");
    (*count)++;
    if (!e) break;
    s = e + 1;
  }
  nd_clear_error();
  return ND_OK;
}

char *nd__sdup(const char *s) {
  if (!s) return NULL;
  const size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

void nd_elementwise_kernel_release(nd_elementwise_kernel *k) {
  if (k == NULL) return;
  for (nd__ew_instance *x = k->instances, *n; x; x = n) {
    n = x->next;
    nd_kernel_release(x->kernel);
    nd_module_release(x->module);
    free(x);
  }
  for (int i = 0; i < k->nopt_copy; i++) free(k->opt_copy[i]);
  free(k->opt_copy);
  free(k->operation);
  free(k->preamble);
  pthread_mutex_destroy(&k->mu);
  free(k);
}

nd_status nd_elementwise_kernel_create(const char *in_params, const char *out_params, const char *operation,
                                       const char *name, const char *preamble, const nd_module_options *opts,
                                       nd_elementwise_kernel **out) {
  const char *fn = "nd_elementwise_kernel_create";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, in_params);
  ND_CHECK_NULL(fn, out_params);
  ND_CHECK_NULL(fn, operation);
  ND_CHECK_NULL(fn, name);
  ND_CHECK_NULL(fn, out);
  if (!nd__is_ident(name) || strlen(name) >= 48)
    return nd__error(ND_ERR_VALUE, "%s: kernel name '%s' is not an identifier of at most 47 characters", fn, name);
  nd_module_options o;
  ND_TRY(nd__jit_check_options(fn, opts, &o));
  if (o.nname_expressions)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: kernel '%s': name expressions are for raw modules", fn, name);
  nd_elementwise_kernel *k = (nd_elementwise_kernel *)calloc(1, sizeof *k);
  if (!k) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  pthread_mutex_init(&k->mu, NULL);
  snprintf(k->name, sizeof k->name, "%s", name);
  nd_status st = nd__ew_parse(fn, k->name, k->p, 0, ND__EW_MAXP, in_params, 0, 0, &k->nin);
  if (st == ND_OK) st = nd__ew_parse(fn, k->name, k->p, k->nin, ND__EW_MAXP, out_params, 1, 0, &k->nout);
  if (st == ND_OK && k->nout == 0) st = nd__error(ND_ERR_VALUE, "%s: kernel '%s' has no output parameter", fn, name);
  /* Every output placeholder must be resolvable from the inputs or from a given out. */
  if (st == ND_OK) {
    k->operation = nd__sdup(operation);
    k->preamble = nd__sdup(preamble ? preamble : "");
    /* The options are copied: the definition outlives the caller's arrays. */
    const int n = 2 * o.nheaders + o.noptions + o.ndefines;
    k->opt_copy = (char **)calloc((size_t)n + 1, sizeof(char *));
    if (!k->operation || !k->preamble || !k->opt_copy) st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    char **c = k->opt_copy;
    for (int i = 0; st == ND_OK && i < o.noptions; i++) c[k->nopt_copy++] = nd__sdup(o.options[i]);
    for (int i = 0; st == ND_OK && i < o.ndefines; i++) c[k->nopt_copy++] = nd__sdup(o.defines[i]);
    for (int i = 0; st == ND_OK && i < o.nheaders; i++) c[k->nopt_copy++] = nd__sdup(o.header_names[i]);
    for (int i = 0; st == ND_OK && i < o.nheaders; i++) c[k->nopt_copy++] = nd__sdup(o.header_sources[i]);
    for (int i = 0; st == ND_OK && i < k->nopt_copy; i++)
      if (!c[i]) st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    k->opts = o;
    k->opts.options = (const char *const *)c;
    k->opts.defines = (const char *const *)c + o.noptions;
    k->opts.header_names = (const char *const *)c + o.noptions + o.ndefines;
    k->opts.header_sources = (const char *const *)c + o.noptions + o.ndefines + o.nheaders;
    k->opts.name = k->name;
  }
  if (st != ND_OK) {
    nd_elementwise_kernel_release(k);
    return st;
  }
  *out = k;
  return ND_OK;
}

/* ---- source generation ------------------------------------------------------------------- */

void nd__sp(nd__sbuf *b, const char *fmt, ...) {
  if (b->failed) return;
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    const int n = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? b->cap - b->len : 0, fmt, ap);
    va_end(ap);
    if (n < 0) {
      b->failed = 1;
      return;
    }
    if (b->p && b->len + (size_t)n < b->cap) {
      b->len += (size_t)n;
      return;
    }
    size_t cap = b->cap ? b->cap * 2 : 4096;
    while (cap < b->len + (size_t)n + 1) cap *= 2;
    char *q = (char *)realloc(b->p, cap);
    if (!q) {
      b->failed = 1;
      return;
    }
    b->p = q;
    b->cap = cap;
  }
}

/* What one call binds: per parameter the resolved (param) dtype and the argument's own dtype
 * (arrays), and whether it is a scalar. */
typedef struct nd__ew_bind {
  nd_dtype ptype[ND__EW_MAXP];
  nd_dtype atype[ND__EW_MAXP];
  int scalar[ND__EW_MAXP];
  int wide; /* 64-bit loop index */
  int vec;  /* elements per vector step */
} nd__ew_bind;

static void nd__ew_signature(const nd_elementwise_kernel *k, const nd__ew_bind *b, char *sig, size_t cap) {
  size_t n = 0;
  for (int j = 0; j < k->nin + k->nout && n < cap; j++)
    n += (size_t)snprintf(sig + n, cap - n, "%s%d:%d:%d", j ? "," : "", (int)b->ptype[j], (int)b->atype[j], b->scalar[j]);
  if (n < cap) snprintf(sig + n, cap - n, ";%d;%d", b->wide, b->vec);
}

static char *nd__ew_source(const nd_elementwise_kernel *k, const nd__ew_bind *b, int strided) {
  nd__sbuf s = {NULL, 0, 0, 0};
  const int np = k->nin + k->nout;
  int half = 0, narr = 0;
  for (int j = 0; j < np; j++) half |= b->ptype[j] == ND_FLOAT16 || b->atype[j] == ND_FLOAT16;
  for (int j = 0; j < np; j++) narr += !k->p[j].raw && !b->scalar[j];
  const char *idx = b->wide ? "long long" : "int";
  if (half) nd__sp(&s, "#define ND_JIT_FLOAT16\n");
  nd__sp(&s, "#include \"ndcuda_jit.h\"\n%s\n", k->preamble);
  /* 16 bytes of one operand: loads and stores of this type are single 16-byte accesses */
  nd__sp(&s, "template <class T, int N> struct __align__(16) nd_ew_vec { T v[N]; };\n");
  nd__sp(&s, "struct nd_ew_geom { int ndim; long long shape[32]; long long strides[%d][32]; };\n", narr > 0 ? narr : 1);
  /* the parameter list shared by both kernels */
  nd__sbuf params = {NULL, 0, 0, 0};
  for (int j = 0; j < np; j++) {
    const nd__ew_param *p = &k->p[j];
    const char *c = j < k->nin ? "const " : "";
    if (b->scalar[j])
      nd__sp(&params, "%s p_%s, ", nd__ew_ctype[b->ptype[j]], p->name);
    else
      nd__sp(&params, "%s%s *p_%s, ", c, nd__ew_ctype[b->atype[j]], p->name);
  }
  /* placeholders usable by name in the operation */
  nd__sbuf tdefs = {NULL, 0, 0, 0};
  nd__sp(&tdefs, " ");
  for (int j = 0; j < np; j++) {
    if (k->p[j].fixed != (nd_dtype)-1) continue;
    int seen = 0;
    for (int i = 0; i < j; i++) seen |= !strcmp(k->p[i].type, k->p[j].type);
    if (!seen) nd__sp(&tdefs, "typedef %s %s; ", nd__ew_ctype[b->ptype[j]], k->p[j].type);
  }
  for (int j = 0; j < np; j++)
    if (k->p[j].raw) nd__sp(&tdefs, "%s%s *const %s = p_%s; ", j < k->nin ? "const " : "", nd__ew_ctype[b->atype[j]],
                           k->p[j].name, k->p[j].name);
  if (params.failed || tdefs.failed) s.failed = 1;
  const char *P = params.p ? params.p : "";
  const char *TD = tdefs.p ? tdefs.p : "";
  const int V = b->vec;

  /* contiguous kernel */
  if (!strided) {
  nd__sp(&s, "extern \"C\" __global__ void __launch_bounds__(256) nd_ew_contig(%s%s n, int vec) {\n%s\n", P, idx, TD);
  nd__sp(&s, "  const %s step = (%s)gridDim.x * blockDim.x;\n  %s start = (%s)blockIdx.x * blockDim.x + threadIdx.x;\n",
         idx, idx, idx, idx);
  nd__sp(&s, "  if (vec) {\n    const %s nv = n / %d;\n    for (%s v = start; v < nv; v += step) {\n      const %s base = v * %d;\n",
         idx, V, idx, idx, V);
  for (int j = 0; j < k->nin; j++) {
    if (k->p[j].raw || b->scalar[j]) continue;
    const char *t = nd__ew_ctype[b->atype[j]];
    nd__sp(&s, "      const nd_ew_vec<%s, %d> r_%s = *(const nd_ew_vec<%s, %d> *)(p_%s + base);\n", t, V, k->p[j].name,
           t, V, k->p[j].name);
  }
  for (int j = k->nin; j < np; j++)
    if (!k->p[j].raw) nd__sp(&s, "      nd_ew_vec<%s, %d> w_%s;\n", nd__ew_ctype[b->atype[j]], V, k->p[j].name);
  nd__sp(&s, "#pragma unroll\n      for (int u = 0; u < %d; u++) {\n        const %s i = base + u; (void)i;\n", V, idx);
  for (int j = 0; j < np; j++) {
    const nd__ew_param *p = &k->p[j];
    if (p->raw) continue;
    const char *pt = nd__ew_ctype[b->ptype[j]];
    if (j >= k->nin)
      nd__sp(&s, "        %s %s;\n", pt, p->name);
    else if (b->scalar[j])
      nd__sp(&s, "        const %s %s = p_%s;\n", pt, p->name, p->name);
    else
      nd__sp(&s, "        const %s %s = (%s)r_%s.v[u];\n", pt, p->name, pt, p->name);
  }
  nd__sp(&s, "        {\n%s;\n        }\n", k->operation);
  for (int j = k->nin; j < np; j++)
    if (!k->p[j].raw) nd__sp(&s, "        w_%s.v[u] = (%s)%s;\n", k->p[j].name, nd__ew_ctype[b->atype[j]], k->p[j].name);
  nd__sp(&s, "      }\n");
  for (int j = k->nin; j < np; j++) {
    if (k->p[j].raw) continue;
    const char *t = nd__ew_ctype[b->atype[j]];
    nd__sp(&s, "      *(nd_ew_vec<%s, %d> *)(p_%s + base) = w_%s;\n", t, V, k->p[j].name, k->p[j].name);
  }
  nd__sp(&s, "    }\n    start += nv * %d;\n  }\n", V);
  nd__sp(&s, "  for (%s i = start; i < n; i += step) {\n", idx);
  for (int j = 0; j < np; j++) {
    const nd__ew_param *p = &k->p[j];
    if (p->raw) continue;
    const char *pt = nd__ew_ctype[b->ptype[j]];
    if (j >= k->nin)
      nd__sp(&s, "    %s %s;\n", pt, p->name);
    else if (b->scalar[j])
      nd__sp(&s, "    const %s %s = p_%s;\n", pt, p->name, p->name);
    else
      nd__sp(&s, "    const %s %s = (%s)p_%s[i];\n", pt, p->name, pt, p->name);
  }
  nd__sp(&s, "    {\n%s;\n    }\n", k->operation);
  for (int j = k->nin; j < np; j++)
    if (!k->p[j].raw) nd__sp(&s, "    p_%s[i] = (%s)%s;\n", k->p[j].name, nd__ew_ctype[b->atype[j]], k->p[j].name);
  nd__sp(&s, "  }\n}\n");
  } else {
  /* strided kernel */
  nd__sp(&s, "extern \"C\" __global__ void __launch_bounds__(256) nd_ew_strided(%sconst nd_ew_geom g, %s n) {\n%s\n", P, idx,
         TD);
  nd__sp(&s, "  const %s step = (%s)gridDim.x * blockDim.x;\n", idx, idx);
  nd__sp(&s, "  for (%s i = (%s)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {\n", idx, idx);
  nd__sp(&s, "    long long off[%d]; long long r = i;\n#pragma unroll\n    for (int a = 0; a < %d; a++) off[a] = 0;\n",
         narr > 0 ? narr : 1, narr > 0 ? narr : 1);
  nd__sp(&s, "    for (int d = g.ndim - 1; d > 0; --d) {\n      const long long q = r / g.shape[d], m = r - q * g.shape[d];\n"
         "#pragma unroll\n      for (int a = 0; a < %d; a++) off[a] += m * g.strides[a][d];\n      r = q;\n    }\n",
         narr > 0 ? narr : 1);
  nd__sp(&s, "    if (g.ndim > 0) {\n#pragma unroll\n      for (int a = 0; a < %d; a++) off[a] += r * g.strides[a][0];\n    }\n",
         narr > 0 ? narr : 1);
  int a = 0;
  for (int j = 0; j < np; j++) {
    const nd__ew_param *p = &k->p[j];
    if (p->raw) continue;
    const char *pt = nd__ew_ctype[b->ptype[j]], *at = nd__ew_ctype[b->atype[j]];
    if (j >= k->nin)
      nd__sp(&s, "    %s %s;\n", pt, p->name);
    else if (b->scalar[j])
      nd__sp(&s, "    const %s %s = p_%s;\n", pt, p->name, p->name);
    else
      nd__sp(&s, "    const %s %s = (%s)*(const %s *)((const char *)p_%s + off[%d]);\n", pt, p->name, pt, at, p->name, a);
    if (!b->scalar[j]) a++;
  }
  nd__sp(&s, "    {\n%s;\n    }\n", k->operation);
  a = 0;
  for (int j = 0; j < np; j++) {
    const nd__ew_param *p = &k->p[j];
    if (p->raw) continue;
    if (j >= k->nin)
      nd__sp(&s, "    *(%s *)((char *)p_%s + off[%d]) = (%s)%s;\n", nd__ew_ctype[b->atype[j]], p->name, a,
             nd__ew_ctype[b->atype[j]], p->name);
    if (!b->scalar[j]) a++;
  }
  nd__sp(&s, "  }\n}\n");
  }
  free(params.p);
  free(tdefs.p);
  if (s.failed) {
    free(s.p);
    return NULL;
  }
  return s.p;
}

/* The compiled instance of a signature, made once per definition. */
static nd_status nd__ew_instance_get(const char *fn, nd_elementwise_kernel *k, const nd__ew_bind *b, int strided,
                                     nd__ew_instance **out) {
  char sig[256];
  nd__ew_signature(k, b, sig, sizeof sig);
  strncat(sig, strided ? ";s" : ";c", sizeof sig - strlen(sig) - 1);
  pthread_mutex_lock(&k->mu);
  for (nd__ew_instance *x = k->instances; x; x = x->next)
    if (!strcmp(x->sig, sig)) {
      pthread_mutex_unlock(&k->mu);
      *out = x;
      return ND_OK;
    }
  pthread_mutex_unlock(&k->mu);
  /* Compiled outside the definition's lock: the cache's single flight makes racing threads
   * share one compile, and the loser's instance is dropped below. */
  char *src = nd__ew_source(k, b, strided);
  if (!src) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory generating '%s'", fn, k->name);
  nd__ew_instance *x = (nd__ew_instance *)calloc(1, sizeof *x);
  if (!x) {
    free(src);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  snprintf(x->sig, sizeof x->sig, "%s", sig);
  nd_status st = nd__jit_module_get(fn, k->name, src, &k->opts, &x->module);
  free(src);
  if (st == ND_OK) st = nd_module_get_kernel(x->module, strided ? "nd_ew_strided" : "nd_ew_contig", &x->kernel);
  if (st != ND_OK) {
    nd_module_release(x->module);
    free(x);
    return st;
  }
  pthread_mutex_lock(&k->mu);
  for (nd__ew_instance *y = k->instances; y; y = y->next)
    if (!strcmp(y->sig, sig)) {
      pthread_mutex_unlock(&k->mu);
      nd_kernel_release(x->kernel);
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

char *nd__ew_source_for(const nd_elementwise_kernel *k, const nd_dtype *ptype, const nd_dtype *atype,
                        const int *scalar, int wide, int strided) {
  nd__ew_bind b;
  memset(&b, 0, sizeof b);
  size_t maxsize = 1;
  for (int j = 0; j < k->nin + k->nout; j++) {
    b.ptype[j] = ptype[j];
    b.atype[j] = atype[j];
    b.scalar[j] = scalar[j];
    if (!k->p[j].raw && !scalar[j] && nd_dtype_itemsize(atype[j]) > maxsize) maxsize = nd_dtype_itemsize(atype[j]);
  }
  b.wide = wide;
  b.vec = (int)(16 / maxsize);
  return nd__ew_source(k, &b, strided);
}

/* ---- the call ---------------------------------------------------------------------------- */

static nd_dtype nd__ew_scalar_dtype(nd_scalar v) {
  return nd_dtype_is_weak(v.dtype) ? nd__weak_default(v.dtype) : v.dtype;
}

nd_status nd_elementwise_kernel_call(nd_elementwise_kernel *k, int nin, const nd_operand *in, int nout,
                                     nd_array *const *out, nd_array **results) {
  const char *fn = "nd_elementwise_kernel_call";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, k);
  ND_CHECK_NULL(fn, results);
  if (nin > 0 && in == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'in' is NULL", fn);
  if (nin != k->nin || nout != k->nout)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s' takes %d inputs and %d outputs, %d and %d given", fn, k->name,
                     k->nin, k->nout, nin, nout);
  const int np = nin + nout;
  const nd_array *arr[ND__EW_MAXP];
  nd__ew_bind b;
  memset(&b, 0, sizeof b);
  for (int j = 0; j < np; j++) b.ptype[j] = b.atype[j] = (nd_dtype)-1;
  /* arguments and their dtypes */
  for (int j = 0; j < np; j++) {
    const nd__ew_param *p = &k->p[j];
    arr[j] = NULL;
    if (j < nin) {
      if (in[j].kind == ND_OPERAND_ARRAY) {
        if (in[j].array == NULL)
          return nd__error(ND_ERR_NULL_POINTER, "%s: kernel '%s': input '%s' is a NULL array", fn, k->name, p->name);
        arr[j] = in[j].array;
        b.atype[j] = arr[j]->dtype;
      } else if (in[j].kind == ND_OPERAND_SCALAR) {
        if (p->raw)
          return nd__error(ND_ERR_VALUE, "%s: kernel '%s': raw input '%s' needs an array, not a scalar", fn, k->name,
                           p->name);
        b.scalar[j] = 1;
      } else {
        return nd__error(ND_ERR_VALUE, "%s: kernel '%s': input '%s' has no value", fn, k->name, p->name);
      }
    } else if (out && out[j - nin]) {
      arr[j] = out[j - nin];
      b.atype[j] = arr[j]->dtype;
      if (!arr[j]->writeable)
        return nd__error(ND_ERR_READ_ONLY, "%s: kernel '%s': output '%s' is read-only", fn, k->name, p->name);
    } else if (p->raw) {
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': raw output '%s' must be given", fn, k->name, p->name);
    }
  }
  /* placeholders: arrays bind first, then scalars, then given outputs */
  for (int pass = 0; pass < 3; pass++)
    for (int j = 0; j < np; j++) {
      const nd__ew_param *p = &k->p[j];
      if (p->fixed != (nd_dtype)-1) continue;
      const int inp = j < nin;
      nd_dtype d;
      if (pass == 0 && inp && arr[j])
        d = arr[j]->dtype;
      else if (pass == 1 && inp && b.scalar[j])
        d = nd__ew_scalar_dtype(in[j].scalar);
      else if (pass == 2 && !inp && arr[j])
        d = arr[j]->dtype;
      else
        continue;
      nd_dtype bound = (nd_dtype)-1;
      for (int i = 0; i < np; i++)
        if (!strcmp(k->p[i].type, p->type) && b.ptype[i] != (nd_dtype)-1) bound = b.ptype[i];
      if (bound == (nd_dtype)-1) {
        for (int i = 0; i < np; i++)
          if (!strcmp(k->p[i].type, p->type)) b.ptype[i] = d;
      } else if (bound != d && pass == 0) {
        return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': type placeholder %s is bound to %s but '%s' is %s", fn,
                         k->name, p->type, nd_dtype_name(bound), p->name, nd_dtype_name(d));
      }
    }
  for (int j = 0; j < np; j++) {
    const nd__ew_param *p = &k->p[j];
    if (p->fixed != (nd_dtype)-1) b.ptype[j] = p->fixed;
    if (b.ptype[j] == (nd_dtype)-1)
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': the type %s of '%s' cannot be resolved from the arguments", fn,
                       k->name, p->type, p->name);
    if (b.atype[j] == (nd_dtype)-1) b.atype[j] = b.ptype[j]; /* scalars and allocated outputs */
    if (p->raw && b.atype[j] != b.ptype[j])
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': raw '%s' is %s, expected %s", fn, k->name, p->name,
                       nd_dtype_name(b.atype[j]), nd_dtype_name(b.ptype[j]));
    if (j < nin && arr[j] && !nd_can_cast(b.atype[j], b.ptype[j], ND_CASTING_SAFE))
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': input '%s' is %s, which does not cast safely to %s", fn,
                       k->name, p->name, nd_dtype_name(b.atype[j]), nd_dtype_name(b.ptype[j]));
    if (j >= nin && arr[j] && !nd_can_cast(b.ptype[j], b.atype[j], ND_CASTING_SAME_KIND))
      return nd__error(ND_ERR_CASTING, "%s: kernel '%s': output '%s' is %s, which %s does not cast to under "
                       "'same_kind'", fn, k->name, p->name, nd_dtype_name(b.atype[j]), nd_dtype_name(b.ptype[j]));
  }
  /* the loop shape: the inputs' broadcast shape; given outputs must have it */
  int nd = 0;
  int64_t shape[ND_MAXDIMS];
  for (int j = 0; j < nin; j++)
    if (arr[j] && !k->p[j].raw && arr[j]->ndim > nd) nd = arr[j]->ndim;
  for (int d = 0; d < nd; d++) shape[d] = 1;
  for (int j = 0; j < nin; j++) {
    if (!arr[j] || k->p[j].raw) continue;
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
  int have_in_array = 0;
  for (int j = 0; j < nin; j++) have_in_array |= arr[j] && !k->p[j].raw;
  for (int j = nin; j < np; j++) {
    if (!arr[j] || k->p[j].raw) continue;
    if (!have_in_array) { /* only scalars in: the first given output sets the shape */
      nd = arr[j]->ndim;
      memcpy(shape, arr[j]->shape, sizeof(int64_t) * (size_t)nd);
      have_in_array = 1;
      continue;
    }
    if (arr[j]->ndim != nd || memcmp(arr[j]->shape, shape, sizeof(int64_t) * (size_t)nd) != 0) {
      char s1[ND__SHAPE_STR], s2[ND__SHAPE_STR];
      return nd__error(ND_ERR_SHAPE, "%s: kernel '%s': output '%s' has shape %s, the loop shape is %s", fn, k->name,
                       k->p[j].name, nd__format_shape(s1, sizeof s1, arr[j]->ndim, arr[j]->shape),
                       nd__format_shape(s2, sizeof s2, nd, shape));
    }
  }
  int64_t count;
  ND_TRY(nd__shape_count(fn, nd, shape, &count));
  int narr = 0;
  for (int j = 0; j < np; j++) narr += !k->p[j].raw && !b.scalar[j];
  if (narr > ND__EW_MAXARR)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s': %d array operands (at most %d)", fn, k->name, narr, ND__EW_MAXARR);
  nd_stream *s;
  ND_TRY(nd__array_stream(fn, NULL, &s));
  for (int j = 0; j < np; j++)
    if (arr[j] && arr[j]->buf->device != s->device)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: kernel '%s': '%s' lives on device %d but the current device is device %d",
                       fn, k->name, k->p[j].name, arr[j]->buf->device, s->device);
  for (int j = 0; j < np; j++)
    if (arr[j] && k->p[j].raw && !(nd_array_flags(arr[j]) & ND_ARRAY_C_CONTIGUOUS))
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': raw '%s' must be C-contiguous", fn, k->name, k->p[j].name);
  b.wide = count > 0x7fffffffLL;
  size_t maxsize = 1;
  for (int j = 0; j < np; j++)
    if (!k->p[j].raw && !b.scalar[j] && nd_dtype_itemsize(b.atype[j]) > maxsize) maxsize = nd_dtype_itemsize(b.atype[j]);
  b.vec = (int)(16 / maxsize);

  /* From here on arrays are made and work is enqueued. */
  nd_array *outs[ND__EW_MAXP], *tmp[ND__EW_MAXP];
  memset(outs, 0, sizeof outs);
  memset(tmp, 0, sizeof tmp);
  nd_status st = ND_OK;
  for (int j = nin; j < np && st == ND_OK; j++) {
    if (arr[j])
      outs[j] = nd_array_retain((nd_array *)arr[j]);
    else
      st = nd__array_alloc(fn, nd, shape, b.ptype[j], 'C', &outs[j]);
    arr[j] = outs[j];
  }
  /* an input overlapping an output without being the same view is read from a copy */
  for (int j = 0; j < nin && st == ND_OK; j++) {
    if (!arr[j]) continue;
    for (int o = nin; o < np && st == ND_OK && !tmp[j]; o++) {
      if (!nd__array_may_overlap(arr[j], arr[o])) continue;
      int same = !k->p[j].raw && !k->p[o].raw && arr[j]->offset == arr[o]->offset &&
                 nd_dtype_itemsize(arr[j]->dtype) == nd_dtype_itemsize(arr[o]->dtype) && arr[j]->ndim <= nd;
      for (int d = 0; same && d < nd; d++) {
        const int dj = d - (nd - arr[j]->ndim);
        const int64_t sj = dj < 0 || arr[j]->shape[dj] == 1 ? 0 : arr[j]->strides[dj];
        same = shape[d] == 1 || sj == arr[o]->strides[d];
      }
      if (!same) {
        st = nd_array_copy(arr[j], ND_ORDER_C, &tmp[j]);
        arr[j] = tmp[j];
      }
    }
  }
  if (st == ND_OK && count > 0) {
    /* operands in launch order: parameters, then the loop */
    union {
      void *p;
      nd_kscalar s;
    } val[ND__EW_MAXP + 2];
    void *argv[ND__EW_MAXP + 3];
    nd_array *tracked[ND__EW_MAXP];
    int modes[ND__EW_MAXP], ntr = 0, contig = 1, aligned = 1;
    int64_t sbuf[ND__EW_MAXARR][ND_MAXDIMS];
    int64_t *sp[ND__EW_MAXARR];
    int64_t lshape[ND_MAXDIMS];
    memcpy(lshape, shape, sizeof(int64_t) * (size_t)nd);
    int a = 0;
    for (int j = 0; j < np; j++) {
      if (b.scalar[j]) {
        nd__scalar_to_bytes(in[j].scalar, b.ptype[j], &val[j].s);
      } else {
        val[j].p = (char *)arr[j]->buf->ptr + arr[j]->offset;
        tracked[ntr] = (nd_array *)arr[j];
        modes[ntr++] = j < nin ? ND__READ : ND__WRITE;
        if (!k->p[j].raw) {
          /* broadcast strides over the loop shape */
          const int off = nd - arr[j]->ndim;
          int64_t want = (int64_t)nd_dtype_itemsize(arr[j]->dtype);
          for (int d = nd - 1; d >= 0; d--) {
            const int dj = d - off;
            sbuf[a][d] = dj < 0 || (arr[j]->shape[dj] == 1 && shape[d] != 1) ? 0 : arr[j]->strides[dj];
            if (shape[d] != 1 && sbuf[a][d] != want) contig = 0;
            want *= shape[d];
          }
          if (((uintptr_t)val[j].p & 15u) != 0) aligned = 0;
          sp[a] = sbuf[a];
          a++;
        }
      }
      argv[j] = &val[j];
    }
    int sms = 0;
    nd_launch_config cfg = {{1, 1, 1}, {256, 1, 1}, 0};
    nd__ew_instance *inst = NULL;
    st = nd__ew_instance_get(fn, k, &b, !contig, &inst);
    if (st == ND_OK) st = nd__jit_sm_count(fn, &sms);
    if (st == ND_OK) {
      const int64_t per = contig && aligned ? 256 * (int64_t)b.vec : 256;
      int64_t blocks = (count + per - 1) / per;
      if (blocks > (int64_t)sms * 8) blocks = (int64_t)sms * 8;
      cfg.grid[0] = (unsigned)(blocks < 1 ? 1 : blocks);
      union {
        int i32;
        long long i64;
      } nval;
      if (b.wide)
        nval.i64 = count;
      else
        nval.i32 = (int)count;
      int vec = aligned;
      if (contig) {
        argv[np] = &nval;
        argv[np + 1] = &vec;
        argv[np + 2] = NULL;
        st = nd__jit_launch(fn, inst->kernel, cfg, argv, ntr, tracked, modes);
      } else {
        /* the geometry, collapsed, as the kernel's nd_ew_geom (ndim, shape[32], strides[narr][32]) */
        const int cd = nd__collapse_dims(nd, lshape, a, sp);
        long long geom[1 + 32 + ND__EW_MAXARR * 32];
        memset(geom, 0, sizeof geom);
        int ndim32 = cd;
        memcpy(geom, &ndim32, sizeof ndim32);
        for (int d = 0; d < cd; d++) geom[1 + d] = lshape[d];
        for (int x = 0; x < a; x++)
          for (int d = 0; d < cd; d++) geom[1 + 32 + x * 32 + d] = sp[x][d];
        argv[np] = geom;
        argv[np + 1] = &nval;
        argv[np + 2] = NULL;
        st = nd__jit_launch(fn, inst->kernel, cfg, argv, ntr, tracked, modes);
      }
    }
  }
  for (int j = 0; j < nin; j++) nd_array_release(tmp[j]);
  if (st != ND_OK) {
    for (int j = nin; j < np; j++) nd_array_release(outs[j]);
    return st;
  }
  for (int j = nin; j < np; j++) results[j - nin] = outs[j];
  return ND_OK;
}
