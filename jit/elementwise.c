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
 * The launch geometry: 256-thread blocks, one per 256 vectors (or elements), as many as the
 * work needs up to the grid limit, past which the grid-stride loops take over (the built-in
 * ops' one-shot grids: a grid of one resident wave ends with every block draining at once).
 * Outputs are write-only in the operation (their old value
 * is not loaded), which keeps `z = x + y` at the built-in's memory traffic; an input that
 * overlaps an output without being the same view is copied first (NumPy's rule). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit/gen.h"
#include "src/api_scope.h"
#include "src/array.h"
#include "streams/hazard.h"

#define ND__EW_MAXP ND__GEN_MAXP /* parameters per definition */
#define ND__EW_MAXARR 12 /* non-raw array operands per call: the geometry struct's size */

struct nd_elementwise_kernel {
  char name[64];
  int nin, nout;
  nd__ew_param p[ND__EW_MAXP];
  char *operation, *preamble;
  nd__gen_opts opts;
  /* Compiled signatures. The two paths of one signature are separate instances, each
   * compiled on its first use: a contiguous call never pays for the strided kernel's compile
   * (about twice the contiguous one's, for its 64-bit index arithmetic). */
  nd__gen_instances instances;
};

void nd_elementwise_kernel_release(nd_elementwise_kernel *k) {
  if (k == NULL) return;
  nd__gen_instances_free(&k->instances);
  nd__gen_opts_free(&k->opts);
  free(k->operation);
  free(k->preamble);
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
  if (!nd__gen_is_ident(name) || strlen(name) >= 48)
    return nd__error(ND_ERR_VALUE, "%s: kernel name '%s' is not an identifier of at most 47 characters", fn, name);
  nd_module_options o;
  ND_TRY(nd__jit_check_options(fn, opts, &o));
  if (o.nname_expressions)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: kernel '%s': name expressions are for raw modules", fn, name);
  nd_elementwise_kernel *k = (nd_elementwise_kernel *)calloc(1, sizeof *k);
  if (!k) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  nd__gen_instances_init(&k->instances);
  snprintf(k->name, sizeof k->name, "%s", name);
  nd_status st = nd__ew_parse(fn, k->name, k->p, 0, ND__EW_MAXP, in_params, 0, 0, &k->nin);
  if (st == ND_OK) st = nd__ew_parse(fn, k->name, k->p, k->nin, ND__EW_MAXP, out_params, 1, 0, &k->nout);
  if (st == ND_OK && k->nout == 0) st = nd__error(ND_ERR_VALUE, "%s: kernel '%s' has no output parameter", fn, name);
  if (st == ND_OK) {
    k->operation = nd__sdup(operation);
    k->preamble = nd__sdup(preamble ? preamble : "");
    if (!k->operation || !k->preamble) st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  if (st == ND_OK) st = nd__gen_opts_copy(fn, &o, k->name, &k->opts);
  if (st != ND_OK) {
    nd_elementwise_kernel_release(k);
    return st;
  }
  *out = k;
  return ND_OK;
}

/* ---- source generation ------------------------------------------------------------------- */

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

/* How the body of one element reaches its array operands, per path: element u of the vectors
 * r_<name> (loaded) and w_<name> (to store); p_<name>[i]; the byte offset off[a] of the a-th
 * array operand. */
enum { ND__EW_AT_VEC, ND__EW_AT_LINEAR, ND__EW_AT_OFFSET };

/* The body of one element, indented by ind: the operands as locals of their parameter types
 * (arrays loaded and converted, scalars copied, outputs declared), the operation, then the
 * outputs converted to their arrays' dtypes and stored. Raw parameters are not touched. */
static void nd__ew_body(nd__sbuf *s, const nd_elementwise_kernel *k, const nd__ew_bind *b, int at, const char *ind) {
  const int np = k->nin + k->nout;
  for (int store = 0; store < 2; store++) {
    if (store) nd__sp(s, "%s{\n%s;\n%s}\n", ind, k->operation, ind);
    for (int j = 0, a = 0; j < np; j++) {
      const nd__ew_param *p = &k->p[j];
      if (p->raw) continue;
      const int in = j < k->nin;
      const char *pt = nd__ew_ctype[b->ptype[j]], *t = nd__ew_ctype[b->atype[j]];
      char ref[200];
      if (at == ND__EW_AT_VEC)
        snprintf(ref, sizeof ref, "%s_%s.v[u]", in ? "r" : "w", p->name);
      else if (at == ND__EW_AT_LINEAR)
        snprintf(ref, sizeof ref, "p_%s[i]", p->name);
      else
        snprintf(ref, sizeof ref, "*(%s%s *)((%schar *)p_%s + off[%d])", in ? "const " : "", t, in ? "const " : "",
                 p->name, a);
      if (!b->scalar[j]) a++;
      if (store) {
        if (!in) nd__sp(s, "%s%s = (%s)%s;\n", ind, ref, t, p->name);
      } else if (!in) {
        nd__sp(s, "%s%s %s;\n", ind, pt, p->name);
      } else if (b->scalar[j]) {
        nd__sp(s, "%sconst %s %s = p_%s;\n", ind, pt, p->name, p->name);
      } else {
        nd__sp(s, "%sconst %s %s = (%s)%s;\n", ind, pt, p->name, pt, ref);
      }
    }
  }
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
  nd__gen_typedefs(&tdefs, k->p, np, b->ptype, " ");
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
  nd__ew_body(&s, k, b, ND__EW_AT_VEC, "        ");
  nd__sp(&s, "      }\n");
  for (int j = k->nin; j < np; j++) {
    if (k->p[j].raw) continue;
    const char *t = nd__ew_ctype[b->atype[j]];
    nd__sp(&s, "      *(nd_ew_vec<%s, %d> *)(p_%s + base) = w_%s;\n", t, V, k->p[j].name, k->p[j].name);
  }
  nd__sp(&s, "    }\n    start += nv * %d;\n  }\n", V);
  nd__sp(&s, "  for (%s i = start; i < n; i += step) {\n", idx);
  nd__ew_body(&s, k, b, ND__EW_AT_LINEAR, "    ");
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
  nd__ew_body(&s, k, b, ND__EW_AT_OFFSET, "    ");
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

/* The compiled instance of a signature and path, made once per definition. */
static nd_status nd__ew_instance_get(const char *fn, nd_elementwise_kernel *k, const nd__ew_bind *b, int strided,
                                     nd__gen_instance **out) {
  char sig[256];
  nd__ew_signature(k, b, sig, sizeof sig);
  strncat(sig, strided ? ";s" : ";c", sizeof sig - strlen(sig) - 1);
  if ((*out = nd__gen_instance_find(&k->instances, sig)) != NULL) return ND_OK;
  char *src = nd__ew_source(k, b, strided);
  if (!src) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory generating '%s'", fn, k->name);
  const char *kn = strided ? "nd_ew_strided" : "nd_ew_contig";
  nd_status st = nd__gen_instance_add(fn, k->name, &k->opts.opts, &k->instances, sig, src, &kn, 1, out);
  free(src);
  return st;
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
  ND_TRY(nd__gen_bind_types(fn, k->name, k->p, nin, np, in, b.scalar, b.ptype, b.atype));
  /* the loop shape: the inputs' broadcast shape; given outputs must have it */
  int nd = 0;
  int64_t shape[ND_MAXDIMS];
  ND_TRY(nd__gen_broadcast(fn, k->name, k->p, nin, arr, &nd, shape));
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
  ND_TRY(nd__gen_check_devices(fn, k->name, k->p, np, arr, s->device));
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
          int64_t want = (int64_t)nd_dtype_itemsize(arr[j]->dtype);
          for (int d = nd - 1; d >= 0; d--) {
            sbuf[a][d] = nd__gen_bstride(arr[j], nd, shape, d);
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
    nd_launch_config cfg = {{1, 1, 1}, {256, 1, 1}, 0};
    nd__gen_instance *inst = NULL;
    st = nd__ew_instance_get(fn, k, &b, !contig, &inst);
    if (st == ND_OK) {
      const int64_t per = contig && aligned ? 256 * (int64_t)b.vec : 256;
      int64_t blocks = (count + per - 1) / per;
      if (blocks > 0x7fffffff) blocks = 0x7fffffff;
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
        st = nd__jit_launch(fn, inst->kernel[0], cfg, argv, ntr, tracked, modes);
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
        st = nd__jit_launch(fn, inst->kernel[0], cfg, argv, ntr, tracked, modes);
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
