/* Pieces shared by the kernel generators: see gen.h. */
#include "jit/gen.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/array.h"

const char *const nd__ew_ctype[ND_NUM_DTYPES] = {
    "nd_bool", "nd_int8", "nd_int16", "nd_int32", "nd_int64", "nd_uint8", "nd_uint16",
    "nd_uint32", "nd_uint64", "nd_float16", "nd_float32", "nd_float64", "nd_complex64", "nd_complex128"};

int nd__gen_is_ident(const char *s) {
  if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))) return 0;
  for (; *s; s++)
    if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9'))) return 0;
  return 1;
}

/* ---- definitions ------------------------------------------------------------------------- */

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
    if (!(nt == 2 || raw) || !nd__gen_is_ident(tok[nt - 1]) || !nd__gen_is_ident(tok[nt - 2]))
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

nd_status nd__gen_opts_copy(const char *fn, const nd_module_options *o, const char *kname, nd__gen_opts *g) {
  const int n = 2 * o->nheaders + o->noptions + o->ndefines;
  g->opts = *o;
  g->opts.name = kname;
  g->copy = (char **)calloc((size_t)n + 1, sizeof(char *));
  if (!g->copy) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  char **c = g->copy;
  for (int i = 0; i < o->noptions; i++) c[g->ncopy++] = nd__sdup(o->options[i]);
  for (int i = 0; i < o->ndefines; i++) c[g->ncopy++] = nd__sdup(o->defines[i]);
  for (int i = 0; i < o->nheaders; i++) c[g->ncopy++] = nd__sdup(o->header_names[i]);
  for (int i = 0; i < o->nheaders; i++) c[g->ncopy++] = nd__sdup(o->header_sources[i]);
  g->opts.options = (const char *const *)c;
  g->opts.defines = (const char *const *)c + o->noptions;
  g->opts.header_names = (const char *const *)c + o->noptions + o->ndefines;
  g->opts.header_sources = (const char *const *)c + o->noptions + o->ndefines + o->nheaders;
  for (int i = 0; i < g->ncopy; i++)
    if (!c[i]) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  return ND_OK;
}

void nd__gen_opts_free(nd__gen_opts *g) {
  for (int i = 0; i < g->ncopy; i++) free(g->copy[i]);
  free(g->copy);
  g->copy = NULL;
  g->ncopy = 0;
}

/* ---- source ------------------------------------------------------------------------------ */

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

void nd__gen_typedefs(nd__sbuf *s, const nd__ew_param *p, int np, const nd_dtype *ptype, const char *sep) {
  for (int j = 0; j < np; j++) {
    if (p[j].fixed != (nd_dtype)-1) continue;
    int seen = 0;
    for (int i = 0; i < j; i++) seen |= !strcmp(p[i].type, p[j].type);
    if (!seen) nd__sp(s, "typedef %s %s;%s", nd__ew_ctype[ptype[j]], p[j].type, sep);
  }
}

/* ---- binding a call ---------------------------------------------------------------------- */

nd_dtype nd__gen_lookup(const nd__ew_param *p, int np, const nd_dtype *ptype, const char *type) {
  nd_dtype d;
  if (nd_dtype_from_name(type, &d) == ND_OK) return d;
  nd_dtype bound = (nd_dtype)-1;
  for (int j = 0; j < np; j++)
    if (!strcmp(p[j].type, type) && ptype[j] != (nd_dtype)-1) bound = ptype[j];
  return bound;
}

nd_status nd__gen_bind_types(const char *fn, const char *kname, const nd__ew_param *p, int nin, int np,
                             const nd_operand *in, const int *scalar, nd_dtype *ptype, nd_dtype *atype) {
  int isarr[ND__GEN_MAXP];
  for (int j = 0; j < np; j++) isarr[j] = atype[j] != (nd_dtype)-1;
  /* placeholders: input arrays bind first, then scalars, then given outputs */
  for (int pass = 0; pass < 3; pass++)
    for (int j = 0; j < np; j++) {
      if (p[j].fixed != (nd_dtype)-1) continue;
      const int inp = j < nin;
      nd_dtype d;
      if (pass == 0 && inp && isarr[j])
        d = atype[j];
      else if (pass == 1 && inp && scalar[j])
        d = nd_dtype_is_weak(in[j].scalar.dtype) ? nd__weak_default(in[j].scalar.dtype) : in[j].scalar.dtype;
      else if (pass == 2 && !inp && isarr[j])
        d = atype[j];
      else
        continue;
      const nd_dtype bound = nd__gen_lookup(p, np, ptype, p[j].type);
      if (bound == (nd_dtype)-1) {
        for (int i = 0; i < np; i++)
          if (!strcmp(p[i].type, p[j].type)) ptype[i] = d;
      } else if (bound != d && pass == 0) {
        return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': type placeholder %s is bound to %s but '%s' is %s", fn,
                         kname, p[j].type, nd_dtype_name(bound), p[j].name, nd_dtype_name(d));
      }
    }
  for (int j = 0; j < np; j++) {
    if (p[j].fixed != (nd_dtype)-1) ptype[j] = p[j].fixed;
    if (ptype[j] == (nd_dtype)-1)
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': the type %s of '%s' cannot be resolved from the arguments", fn,
                       kname, p[j].type, p[j].name);
    if (!isarr[j]) atype[j] = ptype[j]; /* scalars and allocated outputs */
    if (p[j].raw && atype[j] != ptype[j])
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': raw '%s' is %s, expected %s", fn, kname, p[j].name,
                       nd_dtype_name(atype[j]), nd_dtype_name(ptype[j]));
    if (j < nin && isarr[j] && !nd_can_cast(atype[j], ptype[j], ND_CASTING_SAFE))
      return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': input '%s' is %s, which does not cast safely to %s", fn,
                       kname, p[j].name, nd_dtype_name(atype[j]), nd_dtype_name(ptype[j]));
    if (j >= nin && isarr[j] && !nd_can_cast(ptype[j], atype[j], ND_CASTING_SAME_KIND))
      return nd__error(ND_ERR_CASTING, "%s: kernel '%s': output '%s' is %s, which %s does not cast to under "
                       "'same_kind'", fn, kname, p[j].name, nd_dtype_name(atype[j]), nd_dtype_name(ptype[j]));
  }
  return ND_OK;
}

nd_status nd__gen_broadcast(const char *fn, const char *kname, const nd__ew_param *p, int nin,
                            const nd_array *const *arr, int *ndp, int64_t *shape) {
  int nd = 0;
  for (int j = 0; j < nin; j++)
    if (arr[j] && !p[j].raw && arr[j]->ndim > nd) nd = arr[j]->ndim;
  for (int d = 0; d < nd; d++) shape[d] = 1;
  for (int j = 0; j < nin; j++) {
    if (!arr[j] || p[j].raw) continue;
    const int off = nd - arr[j]->ndim;
    for (int d = 0; d < arr[j]->ndim; d++) {
      const int64_t x = arr[j]->shape[d];
      if (shape[off + d] == 1)
        shape[off + d] = x;
      else if (x != 1 && x != shape[off + d]) {
        char s1[ND__SHAPE_STR], s2[ND__SHAPE_STR];
        return nd__error(ND_ERR_SHAPE, "%s: kernel '%s': input '%s' of shape %s does not broadcast to %s", fn,
                         kname, p[j].name, nd__format_shape(s1, sizeof s1, arr[j]->ndim, arr[j]->shape),
                         nd__format_shape(s2, sizeof s2, nd, shape));
      }
    }
  }
  *ndp = nd;
  return ND_OK;
}

int64_t nd__gen_bstride(const nd_array *a, int nd, const int64_t *shape, int d) {
  const int dj = d - (nd - a->ndim);
  return dj < 0 || (a->shape[dj] == 1 && shape[d] != 1) ? 0 : a->strides[dj];
}

nd_status nd__gen_check_devices(const char *fn, const char *kname, const nd__ew_param *p, int np,
                                const nd_array *const *arr, int device) {
  for (int j = 0; j < np; j++)
    if (arr[j] && arr[j]->buf->device != device)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: kernel '%s': '%s' lives on device %d but the current device is device %d",
                       fn, kname, p[j].name, arr[j]->buf->device, device);
  return ND_OK;
}

/* ---- compiled instances ------------------------------------------------------------------ */

void nd__gen_instances_init(nd__gen_instances *set) {
  pthread_mutex_init(&set->mu, NULL);
  set->head = NULL;
}

static void nd__gen_instance_free(nd__gen_instance *x) {
  nd_kernel_release(x->kernel[0]);
  nd_kernel_release(x->kernel[1]);
  nd_module_release(x->module);
  free(x);
}

void nd__gen_instances_free(nd__gen_instances *set) {
  for (nd__gen_instance *x = set->head, *n; x; x = n) {
    n = x->next;
    nd__gen_instance_free(x);
  }
  set->head = NULL;
  pthread_mutex_destroy(&set->mu);
}

static nd__gen_instance *nd__gen_find_locked(nd__gen_instances *set, const char *sig) {
  for (nd__gen_instance *x = set->head; x; x = x->next)
    if (!strcmp(x->sig, sig)) return x;
  return NULL;
}

nd__gen_instance *nd__gen_instance_find(nd__gen_instances *set, const char *sig) {
  pthread_mutex_lock(&set->mu);
  nd__gen_instance *x = nd__gen_find_locked(set, sig);
  pthread_mutex_unlock(&set->mu);
  return x;
}

nd_status nd__gen_instance_add(const char *fn, const char *kname, const nd_module_options *opts,
                               nd__gen_instances *set, const char *sig, const char *src,
                               const char *const *knames, int nk, nd__gen_instance **out) {
  nd__gen_instance *x = (nd__gen_instance *)calloc(1, sizeof *x);
  if (!x) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory generating '%s'", fn, kname);
  snprintf(x->sig, sizeof x->sig, "%s", sig);
  nd_status st = nd__jit_module_get(fn, kname, src, opts, &x->module);
  for (int i = 0; st == ND_OK && i < nk && i < 2; i++) st = nd_module_get_kernel(x->module, knames[i], &x->kernel[i]);
  if (st != ND_OK) {
    nd__gen_instance_free(x);
    return st;
  }
  pthread_mutex_lock(&set->mu);
  nd__gen_instance *y = nd__gen_find_locked(set, sig);
  if (y == NULL) {
    x->next = set->head;
    set->head = x;
  }
  pthread_mutex_unlock(&set->mu);
  if (y != NULL) {
    nd__gen_instance_free(x);
    x = y;
  }
  *out = x;
  return ND_OK;
}
