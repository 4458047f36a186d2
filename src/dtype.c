/* Data types, type promotion and casting rules (NumPy 2, NEP 50).
 *
 * Nothing here is a hand-written 14x14 table. Promotion and casting are derived from two
 * small rules that NumPy itself is built on, so that the tables in tests/src/test_dtype.c
 * (taken from numpy.promote_types and numpy.can_cast) check the rules rather than repeat them:
 *
 *   - "safe" casting (nd__safe_cast below): a dtype casts safely to another when every value
 *     of the first is representable in the second, with NumPy's one deliberate exception that
 *     int64 and uint64 cast safely to float64 (and complex128) although float64 has only a
 *     53-bit mantissa.
 *   - promote_types(a, b) is the first dtype, in NumPy's type-number order (bool, int8, uint8,
 *     int16, uint16, ..., uint64, float16, float32, float64, complex64, complex128), to which
 *     both a and b cast safely. That is how NumPy's legacy promotion table was generated and
 *     NumPy 2 kept the table unchanged for array dtypes; it is why int64 + uint64 gives
 *     float64 and int8 + uint8 gives int16 rather than float16.
 *
 * Weak kinds (ND_PYINT, ND_PYFLOAT, ND_PYCOMPLEX) follow NEP 50: a Python scalar never
 * upcasts an array dtype of the same or a higher kind; otherwise the result is the default
 * dtype of the scalar's kind, except that a Python complex keeps a float array's precision
 * (float32 + 1j -> complex64). All functions are pure host code. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/internal.h"

/* Per-dtype facts, indexed by the nd_dtype value of the fourteen array dtypes. */
typedef struct nd__dtype_info {
  const char *name;
  char kind;
  unsigned char itemsize;
} nd__dtype_info;

static const nd__dtype_info nd__info[ND_NUM_DTYPES] = {
    [ND_BOOL] = {"bool", ND_KIND_BOOL, 1},
    [ND_INT8] = {"int8", ND_KIND_INT, 1},
    [ND_INT16] = {"int16", ND_KIND_INT, 2},
    [ND_INT32] = {"int32", ND_KIND_INT, 4},
    [ND_INT64] = {"int64", ND_KIND_INT, 8},
    [ND_UINT8] = {"uint8", ND_KIND_UINT, 1},
    [ND_UINT16] = {"uint16", ND_KIND_UINT, 2},
    [ND_UINT32] = {"uint32", ND_KIND_UINT, 4},
    [ND_UINT64] = {"uint64", ND_KIND_UINT, 8},
    [ND_FLOAT16] = {"float16", ND_KIND_FLOAT, 2},
    [ND_FLOAT32] = {"float32", ND_KIND_FLOAT, 4},
    [ND_FLOAT64] = {"float64", ND_KIND_FLOAT, 8},
    [ND_COMPLEX64] = {"complex64", ND_KIND_COMPLEX, 8},
    [ND_COMPLEX128] = {"complex128", ND_KIND_COMPLEX, 16},
};

/* NumPy's type-number order, the order in which promotion looks for a common dtype. It
 * differs from the enum order: each unsigned type sits right after the signed type of its
 * size. */
static const nd_dtype nd__promotion_order[ND_NUM_DTYPES] = {
    ND_BOOL,   ND_INT8,    ND_UINT8,   ND_INT16,     ND_UINT16,
    ND_INT32,  ND_UINT32,  ND_INT64,   ND_UINT64,    ND_FLOAT16,
    ND_FLOAT32, ND_FLOAT64, ND_COMPLEX64, ND_COMPLEX128,
};

int nd_dtype_is_valid(nd_dtype dtype) {
  /* Compared as unsigned so that a negative value converted to the enum is rejected too. */
  return (unsigned)dtype < ND_NUM_DTYPES;
}

int nd_dtype_is_weak(nd_dtype dtype) {
  return dtype == ND_PYINT || dtype == ND_PYFLOAT || dtype == ND_PYCOMPLEX;
}

size_t nd_dtype_itemsize(nd_dtype dtype) {
  return nd_dtype_is_valid(dtype) ? nd__info[dtype].itemsize : 0;
}

const char *nd_dtype_name(nd_dtype dtype) {
  if (nd_dtype_is_valid(dtype)) return nd__info[dtype].name;
  switch (dtype) {
    case ND_PYINT:
      return "int";
    case ND_PYFLOAT:
      return "float";
    case ND_PYCOMPLEX:
      return "complex";
    default:
      return "invalid";
  }
}

char nd_dtype_kind(nd_dtype dtype) {
  if (nd_dtype_is_valid(dtype)) return nd__info[dtype].kind;
  switch (dtype) {
    case ND_PYINT:
      return ND_KIND_INT;
    case ND_PYFLOAT:
      return ND_KIND_FLOAT;
    case ND_PYCOMPLEX:
      return ND_KIND_COMPLEX;
    default:
      return 0;
  }
}

/* Spellings accepted by nd_dtype_from_name: exactly what numpy.dtype(name) accepts for
 * ndcuda's dtypes (NumPy 2, x86-64 Linux, where C long is 64 bits):
 * - type codes ('?', 'b', 'h', 'i', 'l', 'q', 'p', 'n', their unsigned capitals, 'e', 'f',
 *   'd', 'F', 'D') and kind+size codes ('b1', 'i4', 'u8', 'f2', 'c16', ...), each optionally
 *   after a byte-order mark: '<', '=' or '|' (native on a little-endian host), or '>' for
 *   one-byte types only (a big-endian float64 is not a dtype ndcuda can hold);
 * - the canonical names that nd_dtype_name returns and NumPy's word aliases ("int" and "long"
 *   are int64, "float" and "double" float64, "complex" complex128, "intc" int32, "intp" and
 *   "int_" int64, ...), without a byte-order mark, as in NumPy.
 * Matching is exact and case-sensitive, like numpy.dtype. The weak kinds have no name: they
 * are not array dtypes, and NumPy reads "int", "float" and "complex" as array dtypes. */
typedef struct nd__dtype_alias {
  const char *name;
  nd_dtype dtype;
} nd__dtype_alias;

static const nd__dtype_alias nd__codes[] = {
    {"?", ND_BOOL},      {"b1", ND_BOOL},     {"b", ND_INT8},       {"i1", ND_INT8},
    {"h", ND_INT16},     {"i2", ND_INT16},    {"i", ND_INT32},      {"i4", ND_INT32},
    {"l", ND_INT64},     {"q", ND_INT64},     {"p", ND_INT64},      {"n", ND_INT64},
    {"i8", ND_INT64},    {"B", ND_UINT8},     {"u1", ND_UINT8},     {"H", ND_UINT16},
    {"u2", ND_UINT16},   {"I", ND_UINT32},    {"u4", ND_UINT32},    {"L", ND_UINT64},
    {"Q", ND_UINT64},    {"P", ND_UINT64},    {"N", ND_UINT64},     {"u8", ND_UINT64},
    {"e", ND_FLOAT16},   {"f2", ND_FLOAT16},  {"f", ND_FLOAT32},    {"f4", ND_FLOAT32},
    {"d", ND_FLOAT64},   {"f8", ND_FLOAT64},  {"F", ND_COMPLEX64},  {"c8", ND_COMPLEX64},
    {"D", ND_COMPLEX128}, {"c16", ND_COMPLEX128},
};

static const nd__dtype_alias nd__words[] = {
    {"bool_", ND_BOOL},        {"byte", ND_INT8},         {"short", ND_INT16},
    {"intc", ND_INT32},        {"int", ND_INT64},         {"int_", ND_INT64},
    {"intp", ND_INT64},        {"long", ND_INT64},        {"longlong", ND_INT64},
    {"ubyte", ND_UINT8},       {"ushort", ND_UINT16},     {"uintc", ND_UINT32},
    {"uint", ND_UINT64},       {"uintp", ND_UINT64},      {"ulong", ND_UINT64},
    {"ulonglong", ND_UINT64},  {"half", ND_FLOAT16},      {"single", ND_FLOAT32},
    {"float", ND_FLOAT64},     {"double", ND_FLOAT64},    {"csingle", ND_COMPLEX64},
    {"complex", ND_COMPLEX128}, {"cdouble", ND_COMPLEX128},
};

static int nd__lookup(const nd__dtype_alias *t, size_t n, const char *name, nd_dtype *out) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(name, t[i].name) == 0) {
      *out = t[i].dtype;
      return 1;
    }
  return 0;
}

nd_status nd_dtype_from_name(const char *name, nd_dtype *out) {
  ND_CHECK_NULL("nd_dtype_from_name", name);
  ND_CHECK_NULL("nd_dtype_from_name", out);
  for (int i = 0; i < ND_NUM_DTYPES; i++) {
    if (strcmp(name, nd__info[i].name) == 0) {
      *out = (nd_dtype)i;
      return ND_OK;
    }
  }
  nd_dtype d;
  if (nd__lookup(nd__words, sizeof nd__words / sizeof nd__words[0], name, &d)) {
    *out = d;
    return ND_OK;
  }
  const char order = name[0];
  const char *code = (order == '<' || order == '=' || order == '|' || order == '>') ? name + 1 : name;
  int found = nd__lookup(nd__codes, sizeof nd__codes / sizeof nd__codes[0], code, &d);
  if (!found && code[0] != '\0' && strchr("biufc", code[0]) != NULL && code[1] != '\0') {
    /* NumPy reads the size after a kind with strtol: leading white space, a '+' and leading
     * zeros are accepted ('f 8', 'f+08', 'c016'), trailing characters are not. */
    char *end;
    errno = 0;
    const long size = strtol(code + 1, &end, 10);
    if (*end == '\0' && errno == 0 && size > 0 && size <= 16) {
      char canon[4] = {code[0], 0, 0, 0};
      snprintf(canon + 1, sizeof canon - 1, "%ld", size);
      found = nd__lookup(nd__codes, sizeof nd__codes / sizeof nd__codes[0], canon, &d);
    }
  }
  if (found && (order != '>' || nd__info[d].itemsize == 1)) {
    *out = d;
    return ND_OK;
  }
  /* The name is user input of any length; the message shows at most 64 bytes of it. */
  if (order == '>' && found)
    return nd__error(ND_ERR_DTYPE, "nd_dtype_from_name: '%.64s' is big-endian; ndcuda holds native "
                     "(little-endian) data only", name);
  return nd__error(ND_ERR_DTYPE, "nd_dtype_from_name: unknown dtype name '%.64s'%s", name,
                   strlen(name) > 64 ? " (truncated)" : "");
}

/* Whether an integer of n bytes fits the mantissa of a float whose component is m bytes.
 * float16 holds every int8/uint8, float32 every 16-bit and float64 every 32-bit integer;
 * NumPy also calls 64-bit integer -> float64 safe, which loses precision above 2^53. */
static int nd__int_fits_float(unsigned n, unsigned m) { return m > n || m == 8; }

/* NumPy's "safe" casting between two array dtypes. */
static int nd__safe_cast(nd_dtype from, nd_dtype to) {
  if (from == to) return 1;
  const nd__dtype_info *f = &nd__info[from];
  const nd__dtype_info *t = &nd__info[to];
  /* Complex itemsize counts both components; the component size is what holds values. */
  unsigned tsize = t->kind == ND_KIND_COMPLEX ? t->itemsize / 2u : t->itemsize;
  switch (f->kind) {
    case ND_KIND_BOOL:
      return 1;
    case ND_KIND_INT:
      if (t->kind == ND_KIND_INT) return tsize >= f->itemsize;
      if (t->kind == ND_KIND_FLOAT || t->kind == ND_KIND_COMPLEX)
        return nd__int_fits_float(f->itemsize, tsize);
      return 0; /* to bool or unsigned: negative values do not fit */
    case ND_KIND_UINT:
      if (t->kind == ND_KIND_UINT) return tsize >= f->itemsize;
      if (t->kind == ND_KIND_INT) return tsize > f->itemsize;
      if (t->kind == ND_KIND_FLOAT || t->kind == ND_KIND_COMPLEX)
        return nd__int_fits_float(f->itemsize, tsize);
      return 0;
    case ND_KIND_FLOAT:
      if (t->kind == ND_KIND_FLOAT || t->kind == ND_KIND_COMPLEX) return tsize >= f->itemsize;
      return 0;
    case ND_KIND_COMPLEX:
      return t->kind == ND_KIND_COMPLEX && t->itemsize >= f->itemsize;
    default:
      return 0;
  }
}

/* NumPy's kind order for "same_kind" casting: b < u < i < f < c. Unsigned ranks below
 * signed, so uint16 -> int8 is a same_kind cast while int8 -> uint64 is not. */
static int nd__kind_rank(char kind) {
  switch (kind) {
    case ND_KIND_BOOL:
      return 0;
    case ND_KIND_UINT:
      return 1;
    case ND_KIND_INT:
      return 2;
    case ND_KIND_FLOAT:
      return 3;
    default:
      return 4;
  }
}

int nd_can_cast(nd_dtype from, nd_dtype to, nd_casting casting) {
  if (!nd_dtype_is_valid(from) || !nd_dtype_is_valid(to)) return 0;
  switch (casting) {
    case ND_CASTING_NO:
    case ND_CASTING_EQUIV:
      /* Array dtypes here are always native byte order, so "equiv" adds nothing to "no". */
      return from == to;
    case ND_CASTING_SAFE:
      return nd__safe_cast(from, to);
    case ND_CASTING_SAME_KIND:
      return nd__safe_cast(from, to) ||
             nd__kind_rank(nd__info[from].kind) <= nd__kind_rank(nd__info[to].kind);
    case ND_CASTING_UNSAFE:
      return 1;
  }
  return 0;
}

const char *nd_casting_name(nd_casting casting) {
  switch (casting) {
    case ND_CASTING_NO:
      return "no";
    case ND_CASTING_EQUIV:
      return "equiv";
    case ND_CASTING_SAFE:
      return "safe";
    case ND_CASTING_SAME_KIND:
      return "same_kind";
    case ND_CASTING_UNSAFE:
      return "unsafe";
  }
  return "invalid";
}

/* Promotion of two array dtypes. Always finds a result: everything casts safely to
 * complex128. */
static nd_dtype nd__promote_strong(nd_dtype a, nd_dtype b) {
  for (int i = 0; i < ND_NUM_DTYPES; i++) {
    nd_dtype c = nd__promotion_order[i];
    if (nd__safe_cast(a, c) && nd__safe_cast(b, c)) return c;
  }
  return ND_COMPLEX128; /* not reached */
}

/* A weak kind applied to an array dtype (NEP 50). */
static nd_dtype nd__promote_weak(nd_dtype strong, nd_dtype weak) {
  char kind = nd__info[strong].kind;
  int integral = kind == ND_KIND_BOOL || kind == ND_KIND_INT || kind == ND_KIND_UINT;
  switch (weak) {
    case ND_PYINT:
      /* bool is the only kind below int: True + 1 is the default integer. */
      return kind == ND_KIND_BOOL ? ND_INT64 : strong;
    case ND_PYFLOAT:
      return integral ? ND_FLOAT64 : strong;
    default: /* ND_PYCOMPLEX */
      if (integral) return ND_COMPLEX128;
      /* A float keeps its precision in the complex result: float16 and float32 give
       * complex64, float64 gives complex128; complex dtypes are left as they are. */
      return nd__promote_strong(strong, ND_COMPLEX64);
  }
}

/* The default array dtype of a weak kind, used when every operand is weak (internal.h). */
nd_dtype nd__weak_default(nd_dtype weak) {
  return weak == ND_PYINT ? ND_INT64 : weak == ND_PYFLOAT ? ND_FLOAT64 : ND_COMPLEX128;
}

/* The weak kinds are numbered in kind order, so the higher kind is the larger value. */
static nd_dtype nd__max_weak(nd_dtype a, nd_dtype b) { return a > b ? a : b; }

static int nd__is_dtype_or_weak(nd_dtype d) { return nd_dtype_is_valid(d) || nd_dtype_is_weak(d); }

nd_status nd_promote_types(nd_dtype a, nd_dtype b, nd_dtype *out) {
  if (!nd__is_dtype_or_weak(a))
    return nd__error(ND_ERR_DTYPE, "nd_promote_types: argument 'a' is not a dtype (value %d)",
                     (int)a);
  if (!nd__is_dtype_or_weak(b))
    return nd__error(ND_ERR_DTYPE, "nd_promote_types: argument 'b' is not a dtype (value %d)",
                     (int)b);
  ND_CHECK_NULL("nd_promote_types", out);
  int wa = nd_dtype_is_weak(a), wb = nd_dtype_is_weak(b);
  if (wa && wb)
    *out = nd__max_weak(a, b); /* still weak: a later strong operand decides the width */
  else if (wa)
    *out = nd__promote_weak(b, a);
  else if (wb)
    *out = nd__promote_weak(a, b);
  else
    *out = nd__promote_strong(a, b);
  return ND_OK;
}

/* NumPy 2 first finds the common dtype of the strong operands and only then lets the weak
 * ones act on it, so np.result_type(int8, 1.0, float16) is float16 (not float64, which a
 * left-to-right pairwise fold would give). Applying the highest weak kind once is the same
 * as applying each weak kind in turn, because each step only ever raises the kind.
 *
 * The strong operands are not folded pairwise either: promote_types is not associative
 * (promote(promote(int8, uint8), float16) is float32, promote(int8, promote(uint8, float16))
 * is float16), and NumPy's n-ary promotion gives float16 for any order of the three. Its
 * result is the first dtype, in type-number order, to which every strong operand casts
 * safely: the n-ary form of the two-operand rule above. (Checked against np.result_type for
 * every sequence of up to four operands, weak kinds included.) */
nd_status nd_result_type(int n, const nd_dtype *dtypes, nd_dtype *out) {
  ND_CHECK_NULL("nd_result_type", out);
  if (n < 1)
    return nd__error(ND_ERR_INVALID_ARGUMENT,
                     "nd_result_type: n must be at least 1 (got %d)", n);
  ND_CHECK_NULL("nd_result_type", dtypes);
  /* Bit c of common is set while every strong operand seen so far casts safely to c. */
  unsigned common = (1u << ND_NUM_DTYPES) - 1u;
  int have_strong = 0, have_weak = 0;
  nd_dtype weak = ND_PYINT;
  for (int i = 0; i < n; i++) {
    nd_dtype d = dtypes[i];
    if (nd_dtype_is_valid(d)) {
      unsigned targets = 0;
      for (int c = 0; c < ND_NUM_DTYPES; c++)
        if (nd__safe_cast(d, (nd_dtype)c)) targets |= 1u << c;
      common &= targets;
      have_strong = 1;
    } else if (nd_dtype_is_weak(d)) {
      weak = have_weak ? nd__max_weak(weak, d) : d;
      have_weak = 1;
    } else {
      return nd__error(ND_ERR_DTYPE, "nd_result_type: dtypes[%d] is not a dtype (value %d)", i,
                       (int)d);
    }
  }
  if (!have_strong) {
    *out = nd__weak_default(weak);
    return ND_OK;
  }
  /* complex128 is a safe target of every dtype, so some bit is always left. */
  nd_dtype strong = ND_COMPLEX128;
  for (int i = 0; i < ND_NUM_DTYPES; i++) {
    if (common & (1u << nd__promotion_order[i])) {
      strong = nd__promotion_order[i];
      break;
    }
  }
  *out = have_weak ? nd__promote_weak(strong, weak) : strong;
  return ND_OK;
}
