/* Elementwise calls: NumPy 2 type resolution, scalar checks, broadcasting, output allocation
 * and the launch through elementwise/elementwise.h.
 *
 * Type resolution follows NumPy 2's ufunc machinery: the operands' dtypes (weak Python
 * scalars included, NEP 50) are promoted; if the function has a loop for that dtype it is
 * used, else NumPy's legacy linear search picks the first loop, in type order, that every
 * operand casts to safely, where a weak scalar counts as the promoted dtype (this is why
 * hypot(int8 array, 2) is float16 but hypot(bool array, 2) is float64). The loop tables
 * below are NumPy 2.4's ufunc.types restricted to our dtypes. The whole resolution is pure
 * host code. */
#include <stdio.h>
#include <string.h>

#include "elementwise/ufunc.h"

#define ND__B (1u << ND_BOOL)
#define ND__I 0x1FEu /* int8 .. uint64 */
#define ND__U 0x1E0u /* uint8 .. uint64 */
#define ND__F 0xE00u /* float16 .. float64 */
#define ND__C 0x3000u
#define ND__ALL 0x3FFFu

enum { ND__OUT_SAME = 0, ND__OUT_BOOL = 1, ND__OUT_REAL = 2, ND__OUT_DIVIDE = 3 };
enum { ND__FL_NO_BOOL = 1, ND__FL_COMPARE = 2 };

typedef struct nd__ufunc_def {
  uint16_t loops;    /* dtypes with a loop T, T -> ... */
  uint16_t identity; /* loops that are the identity (input copied) */
  uint16_t fill0;    /* loops whose result is all 0 (false) */
  uint16_t fill1;    /* loops whose result is all 1 (true) */
  uint8_t out;
  uint8_t flags;
} nd__ufunc_def;

#define D(e, loops, out, flags, ident, f0, f1) [ND_UFUNC_##e] = {loops, ident, f0, f1, out, flags}
#define FC (ND__F | ND__C)
#define IFC (ND__I | ND__F | ND__C)
static const nd__ufunc_def nd__defs[ND_UFUNC_COUNT_] = {
    D(ADD, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
    D(SUBTRACT, IFC, ND__OUT_SAME, ND__FL_NO_BOOL, 0, 0, 0),
    D(MULTIPLY, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
    D(DIVIDE, ND__ALL, ND__OUT_DIVIDE, 0, 0, 0, 0),
    D(FLOOR_DIVIDE, ND__I | ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(REMAINDER, ND__I | ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(FMOD, ND__I | ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(POWER, IFC, ND__OUT_SAME, 0, 0, 0, 0),
    D(NEGATIVE, IFC, ND__OUT_SAME, ND__FL_NO_BOOL, 0, 0, 0),
    D(POSITIVE, IFC, ND__OUT_SAME, ND__FL_NO_BOOL, IFC, 0, 0),
    D(ABSOLUTE, ND__ALL, ND__OUT_REAL, 0, ND__B | ND__U, 0, 0),
    D(SIGN, IFC, ND__OUT_SAME, ND__FL_NO_BOOL, 0, 0, 0),
    D(RECIPROCAL, IFC, ND__OUT_SAME, 0, 0, 0, 0),
    D(SQUARE, IFC, ND__OUT_SAME, 0, 0, 0, 0),
    D(SQRT, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(CBRT, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(EXP, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(EXP2, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(EXPM1, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(LOG, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(LOG2, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(LOG10, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(LOG1P, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(LOGADDEXP, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(LOGADDEXP2, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(SIN, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(COS, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(TAN, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(ARCSIN, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(ARCCOS, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(ARCTAN, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(ARCTAN2, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(SINH, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(COSH, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(TANH, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(ARCSINH, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(ARCCOSH, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(ARCTANH, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(HYPOT, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(DEG2RAD, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(RAD2DEG, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(FLOOR, ND__B | ND__I | ND__F, ND__OUT_SAME, 0, ND__B | ND__I, 0, 0),
    D(CEIL, ND__B | ND__I | ND__F, ND__OUT_SAME, 0, ND__B | ND__I, 0, 0),
    D(TRUNC, ND__B | ND__I | ND__F, ND__OUT_SAME, 0, ND__B | ND__I, 0, 0),
    D(RINT, FC, ND__OUT_SAME, 0, 0, 0, 0),
    D(EQUAL, ND__ALL, ND__OUT_BOOL, ND__FL_COMPARE, 0, 0, 0),
    D(NOT_EQUAL, ND__ALL, ND__OUT_BOOL, ND__FL_COMPARE, 0, 0, 0),
    D(LESS, ND__ALL, ND__OUT_BOOL, ND__FL_COMPARE, 0, 0, 0),
    D(LESS_EQUAL, ND__ALL, ND__OUT_BOOL, ND__FL_COMPARE, 0, 0, 0),
    D(GREATER, ND__ALL, ND__OUT_BOOL, ND__FL_COMPARE, 0, 0, 0),
    D(GREATER_EQUAL, ND__ALL, ND__OUT_BOOL, ND__FL_COMPARE, 0, 0, 0),
    D(LOGICAL_AND, ND__ALL, ND__OUT_BOOL, 0, 0, 0, 0),
    D(LOGICAL_OR, ND__ALL, ND__OUT_BOOL, 0, 0, 0, 0),
    D(LOGICAL_XOR, ND__ALL, ND__OUT_BOOL, 0, 0, 0, 0),
    D(LOGICAL_NOT, ND__ALL, ND__OUT_BOOL, 0, 0, 0, 0),
    D(BITWISE_AND, ND__B | ND__I, ND__OUT_SAME, 0, 0, 0, 0),
    D(BITWISE_OR, ND__B | ND__I, ND__OUT_SAME, 0, 0, 0, 0),
    D(BITWISE_XOR, ND__B | ND__I, ND__OUT_SAME, 0, 0, 0, 0),
    D(INVERT, ND__B | ND__I, ND__OUT_SAME, 0, 0, 0, 0),
    D(LEFT_SHIFT, ND__I, ND__OUT_SAME, 0, 0, 0, 0),
    D(RIGHT_SHIFT, ND__I, ND__OUT_SAME, 0, 0, 0, 0),
    D(MAXIMUM, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
    D(MINIMUM, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
    D(FMAX, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
    D(FMIN, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
    D(COPYSIGN, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(NEXTAFTER, ND__F, ND__OUT_SAME, 0, 0, 0, 0),
    D(SIGNBIT, ND__F, ND__OUT_BOOL, 0, 0, 0, 0),
    D(ISNAN, ND__ALL, ND__OUT_BOOL, 0, 0, ND__B | ND__I, 0),
    D(ISINF, ND__ALL, ND__OUT_BOOL, 0, 0, ND__B | ND__I, 0),
    D(ISFINITE, ND__ALL, ND__OUT_BOOL, 0, 0, 0, ND__B | ND__I),
    D(CONJUGATE, IFC, ND__OUT_SAME, 0, ND__I | ND__F, 0, 0),
    D(REAL, ND__ALL, ND__OUT_REAL, 0, ND__B | ND__I | ND__F, 0, 0),
    D(IMAG, ND__ALL, ND__OUT_REAL, 0, 0, ND__B | ND__I | ND__F, 0),
    D(ANGLE, FC, ND__OUT_REAL, 0, 0, 0, 0),
    D(CLIP, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
    D(WHERE, ND__ALL, ND__OUT_SAME, 0, 0, 0, 0),
};
#undef D
#undef FC
#undef IFC

static const char *const nd__names[ND_UFUNC_COUNT_] = {
#define ND__NAME(e, name, nin) #name,
    ND_UFUNC_MAP(ND__NAME)
#undef ND__NAME
};
static const char *const nd__fns[ND_UFUNC_COUNT_] = {
#define ND__FN(e, name, nin) "nd_" #name,
    ND_UFUNC_MAP(ND__FN)
#undef ND__FN
};
static const unsigned char nd__nins[ND_UFUNC_COUNT_] = {
#define ND__NIN(e, name, nin) nin,
    ND_UFUNC_MAP(ND__NIN)
#undef ND__NIN
};

/* NumPy's type order (type numbers), in which the linear search tries loops. */
static const nd_dtype nd__order[ND_NUM_DTYPES] = {
    ND_BOOL,  ND_INT8,   ND_UINT8,  ND_INT16,   ND_UINT16,  ND_INT32,     ND_UINT32,
    ND_INT64, ND_UINT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128,
};

const char *nd_ufunc_name(nd_ufunc op) {
  return (unsigned)op < ND_UFUNC_COUNT_ ? nd__names[op] : "invalid";
}
int nd_ufunc_nin(nd_ufunc op) { return (unsigned)op < ND_UFUNC_COUNT_ ? nd__nins[op] : 0; }
const char *nd__ufunc_fn(int op) {
  return (unsigned)op < ND_UFUNC_COUNT_ ? nd__fns[op] : "nd_ufunc_call";
}

static int nd__is_int(nd_dtype d) { return d >= ND_INT8 && d <= ND_UINT64; }

static nd_dtype nd__real_of(nd_dtype d) {
  return d == ND_COMPLEX64 ? ND_FLOAT32 : d == ND_COMPLEX128 ? ND_FLOAT64 : d;
}

static int nd__mirror(int op) {
  switch (op) {
    case ND_UFUNC_LESS: return ND_UFUNC_GREATER;
    case ND_UFUNC_LESS_EQUAL: return ND_UFUNC_GREATER_EQUAL;
    case ND_UFUNC_GREATER: return ND_UFUNC_LESS;
    case ND_UFUNC_GREATER_EQUAL: return ND_UFUNC_LESS_EQUAL;
    default: return op;
  }
}

/* "(float64, int)" for messages. */
static const char *nd__dtype_list(char *buf, size_t cap, int n, const nd_dtype *dt) {
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < n && len < cap; i++) {
    int k = snprintf(buf + len, cap - len, "%s%s", i ? ", " : "(", nd_dtype_name(dt[i]));
    if (k > 0) len += (size_t)k;
  }
  if (len < cap) snprintf(buf + len, cap - len, ")");
  return buf;
}

nd_status nd__ufunc_resolve(const char *fn, int op, int nin, const nd_dtype *dt, nd__ufunc_loop *L) {
  if (op < 0 || op >= ND_UFUNC_COUNT_)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: unknown ufunc %d", fn, op);
  if (nin != nd__nins[op])
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: ufunc '%s' takes %d inputs (got %d)", fn,
                     nd__names[op], nd__nins[op], nin);
  ND_CHECK_NULL(fn, dt);
  ND_CHECK_NULL(fn, L);
  for (int i = 0; i < nin; i++)
    if (!nd_dtype_is_valid(dt[i]) && !nd_dtype_is_weak(dt[i]))
      return nd__error(ND_ERR_DTYPE, "%s: operand %d has an invalid dtype (value %d)", fn, i,
                       (int)dt[i]);
  const nd__ufunc_def *def = &nd__defs[op];
  L->op = op;
  L->kop = op;
  L->nin = nin;
  L->action = ND__UF_RUN;
  L->fill = 0;
  for (int i = 0; i < 3; i++) {
    L->src[i] = i;
    L->in[i] = ND_BOOL;
  }
  if (op == ND_UFUNC_WHERE) {
    nd_dtype c;
    ND_TRY(nd_result_type(2, dt + 1, &c));
    L->in[0] = ND_BOOL;
    L->in[1] = L->in[2] = c;
    L->out = c;
    L->key = c;
    return ND_OK;
  }
  /* Promotion; the common case of identical array dtypes needs no table walk. */
  nd_dtype common = dt[0];
  int same = nd_dtype_is_valid(dt[0]);
  for (int i = 1; i < nin; i++) same = same && dt[i] == dt[0];
  if (!same) ND_TRY(nd_result_type(nin, dt, &common));
  char types[160];
  if ((def->flags & ND__FL_NO_BOOL) && common == ND_BOOL) {
    if (op == ND_UFUNC_SUBTRACT)
      return nd__error(ND_ERR_DTYPE, "%s: numpy boolean subtract, the `-` operator, is not "
                       "supported, use the bitwise_xor, the `^` operator, or the logical_xor "
                       "function instead (input types %s)", fn,
                       nd__dtype_list(types, sizeof types, nin, dt));
    if (op == ND_UFUNC_NEGATIVE)
      return nd__error(ND_ERR_DTYPE, "%s: The numpy boolean negative, the `-` operator, is not "
                       "supported, use the `~` operator or the logical_not function instead "
                       "(input types %s)", fn, nd__dtype_list(types, sizeof types, nin, dt));
    return nd__error(ND_ERR_DTYPE, "%s: ufunc '%s' did not contain a loop with signature "
                     "matching types %s", fn, nd__names[op],
                     nd__dtype_list(types, sizeof types, nin, dt));
  }
  if (op == ND_UFUNC_ANGLE && nd_dtype_kind(common) != ND_KIND_COMPLEX) {
    /* NumPy's angle of a real array is arctan2(0, a) with a Python int 0. */
    nd_dtype d2[2] = {ND_PYINT, dt[0]};
    nd__ufunc_loop a;
    ND_TRY(nd__ufunc_resolve(fn, ND_UFUNC_ARCTAN2, 2, d2, &a));
    L->in[0] = a.in[1];
    L->key = a.in[1];
    L->out = a.out;
    return ND_OK;
  }
  if ((def->flags & ND__FL_COMPARE) && nd__is_int(dt[0]) && nd__is_int(dt[1]) &&
      !nd__is_int(common)) {
    /* Signed against unsigned where promotion leaves the integers (int64 with uint64, ...):
     * NumPy's qQ/Qq loops compare the exact values. */
    L->key = ND_KEY_INT64_UINT64;
    L->out = ND_BOOL;
    L->in[0] = ND_INT64;
    L->in[1] = ND_UINT64;
    if (nd_dtype_kind(dt[0]) != ND_KIND_INT) {
      L->src[0] = 1;
      L->src[1] = 0;
      L->kop = nd__mirror(op);
    }
    return ND_OK;
  }
  nd_dtype loop = common;
  if (!(def->loops & (1u << common))) {
    nd_dtype s[3];
    for (int i = 0; i < nin; i++) s[i] = nd_dtype_is_weak(dt[i]) ? common : dt[i];
    int found = 0;
    for (int k = 0; k < ND_NUM_DTYPES && !found; k++) {
      nd_dtype c = nd__order[k];
      if (!(def->loops & (1u << c))) continue;
      int ok = 1;
      for (int i = 0; i < nin; i++) ok = ok && nd_can_cast(s[i], c, ND_CASTING_SAFE);
      if (ok) {
        loop = c;
        found = 1;
      }
    }
    if (!found)
      return nd__error(ND_ERR_DTYPE, "%s: ufunc '%s' not supported for the input types %s, and "
                       "the inputs could not be safely coerced to any supported types according "
                       "to the casting rule 'safe'", fn, nd__names[op],
                       nd__dtype_list(types, sizeof types, nin, dt));
  }
  switch (def->out) {
    case ND__OUT_BOOL: L->out = ND_BOOL; break;
    case ND__OUT_REAL: L->out = nd__real_of(loop); break;
    case ND__OUT_DIVIDE: L->out = (loop == ND_BOOL || nd__is_int(loop)) ? ND_FLOAT64 : loop; break;
    default: L->out = loop; break;
  }
  for (int i = 0; i < nin; i++) L->in[i] = loop;
  L->key = loop;
  const unsigned bit = 1u << loop;
  if (def->identity & bit) {
    L->action = ND__UF_COPY;
  } else if ((def->fill0 | def->fill1) & bit) {
    L->action = ND__UF_FILL;
    L->fill = (def->fill1 & bit) != 0;
  }
  return ND_OK;
}

nd_status nd_ufunc_result_type(nd_ufunc op, int nin, const nd_dtype *dtypes, nd_dtype *out) {
  const char *fn = "nd_ufunc_result_type";
  ND_CHECK_NULL(fn, out);
  ND_CHECK_NULL(fn, dtypes);
  nd__ufunc_loop L;
  if (op == ND_UFUNC_CLIP && nin == 3 && nd_dtype_is_weak(dtypes[0])) {
    /* np.clip makes a weak first argument an array (as nd__clip does) */
    const nd_dtype d[3] = {nd__weak_default(dtypes[0]), dtypes[1], dtypes[2]};
    ND_TRY(nd__ufunc_resolve(fn, (int)op, nin, d, &L));
  } else {
    ND_TRY(nd__ufunc_resolve(fn, (int)op, nin, dtypes, &L));
  }
  *out = L.out;
  return ND_OK;
}

/* The value range of an integer dtype, as int64 bounds and, for uint64, an unsigned top. */
static void nd__int_range(nd_dtype d, int64_t *lo, uint64_t *hi) {
  const size_t bits = 8 * nd_dtype_itemsize(d);
  if (nd_dtype_kind(d) == ND_KIND_UINT) {
    *lo = 0;
    *hi = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
  } else {
    *lo = bits == 64 ? INT64_MIN : -(INT64_C(1) << (bits - 1));
    *hi = bits == 64 ? (uint64_t)INT64_MAX : (UINT64_C(1) << (bits - 1)) - 1;
  }
}

/* x OP s for a scalar s known to be above (above = 1) or below every value of x's dtype. */
static int nd__compare_constant(int op, int above) {
  switch (op) {
    case ND_UFUNC_EQUAL: return 0;
    case ND_UFUNC_NOT_EQUAL: return 1;
    case ND_UFUNC_LESS:
    case ND_UFUNC_LESS_EQUAL: return above;
    default: return !above; /* GREATER, GREATER_EQUAL */
  }
}

nd_status nd__ufunc_check_scalars(const char *fn, nd__ufunc_loop *L, const nd_operand *in,
                                  nd__ufunc_scalars *sc) {
  sc->mask = 0;
  sc->constant = -1;
  if (L->op == ND_UFUNC_DIVIDE && L->out == ND_FLOAT64 && L->key != ND_FLOAT64) {
    for (int j = 0; j < L->nin; j++) {
      const nd_operand *o = &in[L->src[j]];
      if (o->kind != ND_OPERAND_SCALAR || o->scalar.dtype != ND_PYINT || !nd__is_int(L->in[j])) continue;
      int64_t lo;
      uint64_t hi;
      nd__int_range(L->in[j], &lo, &hi);
      if (o->scalar.v.i < lo || (o->scalar.v.i >= 0 && (uint64_t)o->scalar.v.i > hi)) {
        L->in[0] = L->in[1] = ND_FLOAT64;
        L->key = ND_FLOAT64;
        break;
      }
    }
  }
  for (int j = 0; j < L->nin; j++) {
    const nd_operand *o = &in[L->src[j]];
    if (o->kind != ND_OPERAND_SCALAR) continue;
    sc->mask |= 1u << j;
    nd_scalar v = o->scalar;
    const nd_dtype t = L->in[j];
    if (v.dtype == ND_PYINT && nd__is_int(t)) {
      int64_t lo;
      uint64_t hi;
      nd__int_range(t, &lo, &hi);
      const int below = v.v.i < lo, above = v.v.i >= 0 && (uint64_t)v.v.i > hi;
      if (below || above) {
        if (nd__defs[L->op].flags & ND__FL_COMPARE) {
          /* Kernel input j is the scalar: x OP s for j == 1, s OP x (mirrored) for j == 0. */
          const int op = j == 1 ? L->kop : nd__mirror(L->kop);
          sc->constant = nd__compare_constant(op, above);
        } else if (L->op == ND_UFUNC_LOGICAL_AND || L->op == ND_UFUNC_LOGICAL_OR ||
                   L->op == ND_UFUNC_LOGICAL_XOR) {
          /* Only the truth of the value counts (NumPy answers these by value too). */
          v.v.i = 1;
        } else if (L->op == ND_UFUNC_CLIP &&
                   ((L->kop == ND_UFUNC_MAXIMUM || (L->kop == ND_UFUNC_CLIP && j == 1)) ? below : above)) {
          /* np.clip drops a lower bound at or below the dtype's range and an upper bound at
           * or above it (numpy/_core/_methods.py); a weak int64 can only exceed dtypes
           * narrower than 64 bits, so hi fits. Bounds beyond the other end are errors. */
          v.v.i = below ? lo : (int64_t)hi;
        } else {
          /* where included: NumPy 2.5 checks its weak operands like the ufuncs' (2.4 wrapped) */
          return nd__error(ND_ERR_VALUE, "%s: Python integer %lld out of bounds for %s", fn,
                           (long long)v.v.i, nd_dtype_name(t));
        }
      }
    }
    if ((L->op == ND_UFUNC_LOGICAL_AND || L->op == ND_UFUNC_LOGICAL_OR || L->op == ND_UFUNC_LOGICAL_XOR) &&
        (v.dtype == ND_PYFLOAT || v.dtype == ND_PYCOMPLEX)) {
      /* Only the scalar's truth counts, and NumPy takes it from the Python value: 1e-310 is
       * true even where it would underflow to 0 in a float32 loop. 1.0 has the same truth in
       * every dtype. */
      const int truth = v.dtype == ND_PYFLOAT ? v.v.f != 0 : (v.v.c[0] != 0 || v.v.c[1] != 0);
      v.dtype = ND_PYINT;
      v.v.i = truth;
    }
    if (L->op == ND_UFUNC_POWER && j == 1 && nd__is_int(t) &&
        nd_dtype_kind(v.dtype) == ND_KIND_INT && v.v.i < 0)
      return nd__error(ND_ERR_VALUE, "%s: Integers to negative integer powers are not allowed.",
                       fn);
    nd__scalar_to_bytes(v, t, &sc->bytes[j]);
  }
  if (L->op == ND_UFUNC_POWER && L->kop == ND_UFUNC_POWER && sc->mask == 2u &&
      (L->key == ND_FLOAT32 || L->key == ND_FLOAT64)) {
    /* NumPy (2.1 and later) takes x ** 0.5 with a scalar exponent as sqrt(x), which differs
     * from pow at -0 and -inf (-0 and NaN instead of +0 and +inf). */
    float h32;
    double h64;
    memcpy(&h32, sc->bytes[1].bytes, sizeof h32);
    memcpy(&h64, sc->bytes[1].bytes, sizeof h64);
    if (L->key == ND_FLOAT32 ? h32 == 0.5f : h64 == 0.5) {
      L->kop = ND_UFUNC_SQRT;
      L->nin = 1;
      sc->mask = 0;
    }
  }
  return ND_OK;
}

nd_status nd__ufunc_exec(const char *fn, int op, int nin, const nd_operand *in, nd_array *out,
                         nd_array **result, const nd_kparams *params) {
  ND_CHECK_RESULT(fn, out, result);
  ND_CHECK_NULL(fn, in);
  if (nin < 1 || nin > 3)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: nin must be 1, 2 or 3 (got %d)", fn, nin);
  nd_dtype dt[3];
  for (int i = 0; i < nin; i++) {
    if (in[i].kind == ND_OPERAND_ARRAY) {
      if (in[i].array == NULL)
        return nd__error(ND_ERR_NULL_POINTER, "%s: operand %d is NULL", fn, i);
      dt[i] = in[i].array->dtype;
    } else if (in[i].kind == ND_OPERAND_SCALAR) {
      dt[i] = in[i].scalar.dtype;
    } else if (in[i].kind == ND_OPERAND_NONE) {
      return nd__error(ND_ERR_VALUE, "%s: operand %d has no value (nd_arg_none is only "
                       "accepted for clip's bounds)", fn, i);
    } else {
      return nd__error(ND_ERR_INVALID_ARGUMENT, "%s: operand %d has an invalid kind %d", fn, i,
                       (int)in[i].kind);
    }
  }
  nd__ufunc_loop L;
  ND_TRY(nd__ufunc_resolve(fn, op, nin, dt, &L));
  return nd__ufunc_run(fn, &L, in, out, result, params);
}
