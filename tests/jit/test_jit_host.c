/* Check suite for the NVRTC path (jit/compile.c) without a GPU: NVRTC runs on the host, so
 * these compile for a fixed architecture (sm_90) and inspect the binaries: CUBIN output,
 * lowered names of templates, defines, in-memory headers, the library's helper header,
 * <cooperative_groups.h> without any include option, the compile-error message and log, the
 * option checks, and the key material's sensitivity to every input. */
#include "tests/nd_test.h"

#include <stdio.h>
#include <stdlib.h>

#include "jit/compile.h"
#include "jit/gen.h"
#include "jit/sha256.h"

static nd__jit_source src_for(const char *source, const nd_module_options *o) {
  nd__jit_source s = {"test", "test_module", source, o, 90};
  return s;
}

static nd__jit_binary *compile_ok(const char *source, const nd_module_options *o) {
  nd__jit_source s = src_for(source, o);
  nd__jit_binary *b = NULL;
  char *log = NULL;
  nd_status st = nd__jit_nvrtc_compile(&s, &b, &log);
  ck_assert_msg(st == ND_OK, "compile failed: %s: %s\nlog: %s", nd_status_name(st), nd_last_error(), log ? log : "");
  free(log);
  ck_assert_ptr_nonnull(b);
  ck_assert_uint_gt(b->size, 4);
  ck_assert_msg(memcmp(b->payload, "\x7f" "ELF", 4) == 0, "payload is not an ELF CUBIN");
  ck_assert_uint_eq(b->arch, 90);
  ck_assert_ptr_nonnull(b->log);
  return b;
}

/* Whether the CUBIN's bytes contain a symbol name. */
static int has_symbol(const nd__jit_binary *b, const char *sym) {
  const size_t n = strlen(sym);
  for (size_t i = 0; i + n <= b->size; i++)
    if (memcmp(b->payload + i, sym, n) == 0) return 1;
  return 0;
}

START_TEST(compiles_to_cubin_with_names_defines_headers) {
  const char *source =
      "#include \"my_header.h\"\n"
      "#include \"ndcuda_jit.h\"\n"
      "template <class T, int N> __global__ void scale(T *x) { x[threadIdx.x] *= T(N * MY_FACTOR); }\n"
      "extern \"C\" __global__ void plain(nd_complex128 *z) { z[0] = z[0] * z[1] / z[2]; }\n";
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  const char *hn[] = {"my_header.h"};
  const char *hs[] = {"#define MY_FACTOR HEADER_BASE\n"};
  const char *defs[] = {"HEADER_BASE=3"};
  const char *names[] = {"scale<float, 4>", "scale<double, 2>"};
  const char *opts[] = {"-use_fast_math"};
  o.nheaders = 1;
  o.header_names = hn;
  o.header_sources = hs;
  o.ndefines = 1;
  o.defines = defs;
  o.nname_expressions = 2;
  o.name_expressions = names;
  o.noptions = 1;
  o.options = opts;
  nd__jit_binary *b = compile_ok(source, &o);
  ck_assert_int_eq(b->nnames, 2);
  ck_assert_str_eq(b->names[0], "scale<float, 4>");
  ck_assert_str_eq(b->lowered[0], "_Z5scaleIfLi4EEvPT_");
  ck_assert_str_eq(b->lowered[1], "_Z5scaleIdLi2EEvPT_");
  ck_assert(has_symbol(b, "_Z5scaleIfLi4EEvPT_"));
  ck_assert(has_symbol(b, "plain"));
  ck_assert_uint_eq(b->flags, 0);
  nd__jit_binary_free(b);
}
END_TEST

START_TEST(cooperative_groups_resolve_without_include_options) {
  /* Field report 3: no trial-and-error header discovery; the include directory is found once. */
  const char *source =
      "#include <cooperative_groups.h>\n"
      "namespace cg = cooperative_groups;\n"
      "extern \"C\" __global__ void grid_sum(const float *x, float *partial, float *out, int n) {\n"
      "  cg::grid_group g = cg::this_grid();\n"
      "  float s = 0; for (int i = g.thread_rank(); i < n; i += g.size()) s += x[i];\n"
      "  partial[g.thread_rank()] = s; g.sync();\n"
      "  if (g.thread_rank() == 0) { float t = 0; for (unsigned long long i = 0; i < g.size(); i++) t += partial[i]; *out = t; }\n"
      "}\n";
  ck_assert_str_ne(nd__jit_cuda_include(), "");
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.cooperative = 1;
  nd__jit_binary *b = compile_ok(source, &o);
  ck_assert_uint_eq(b->flags & ND__JIT_COOPERATIVE, ND__JIT_COOPERATIVE);
  ck_assert(has_symbol(b, "grid_sum"));
  nd__jit_binary_free(b);
}
END_TEST

START_TEST(float16_helper_compiles) {
  const char *source =
      "#define ND_JIT_FLOAT16\n#include \"ndcuda_jit.h\"\n"
      "extern \"C\" __global__ void h(nd_float16 *x, nd_complex64 *z) { x[0] = __float2half(__half2float(x[0]) * 2.f); z[0] = conj(z[0]); }\n";
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  nd__jit_binary *b = compile_ok(source, &o);
  nd__jit_binary_free(b);
}
END_TEST

START_TEST(syntax_error_is_err_compile_with_log) {
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  o.name = "broken_kernel";
  nd__jit_source s = {"nd_module_create", "broken_kernel",
                      "extern \"C\" __global__ void k(float *x) {\n  x[0] = 1.0f\n}\n", &o, 90};
  nd__jit_binary *b = NULL;
  char *log = NULL;
  ND_ASSERT_FAILS(nd__jit_nvrtc_compile(&s, &b, &log), ND_ERR_COMPILE, "broken_kernel");
  ck_assert_ptr_null(b);
  ck_assert_ptr_nonnull(log);
  ck_assert_msg(strstr(log, "error") != NULL, "log: %s", log);
  /* the message carries the first lines of the log */
  ck_assert_msg(strstr(nd_last_error(), "nd_module_create") && strstr(nd_last_error(), "expected a \";\""),
                "message: %s", nd_last_error());
  free(log);
  /* an unknown option is a compile error too, naming the option */
  const char *bad[] = {"--no-such-option"};
  o.noptions = 1;
  o.options = bad;
  s.source = "__global__ void k() {}";
  ND_ASSERT_FAILS(nd__jit_nvrtc_compile(&s, &b, &log), ND_ERR_COMPILE, "broken_kernel");
  free(log);
}
END_TEST

START_TEST(option_checks) {
  nd_module_options o = ND_MODULE_OPTIONS_INIT, out;
  ND_ASSERT_OK(nd__jit_check_options("f", NULL, &out));
  ck_assert_uint_eq(out.size, sizeof(nd_module_options));
  o.size = 8;
  ND_ASSERT_FAILS(nd__jit_check_options("f", &o, &out), ND_ERR_INVALID_ARGUMENT, "ND_MODULE_OPTIONS_INIT");
  o.size = sizeof o;
  o.noptions = 2;
  const char *opts[] = {"-G", NULL};
  o.options = opts;
  ND_ASSERT_FAILS(nd__jit_check_options("f", &o, &out), ND_ERR_NULL_POINTER, "options[1]");
  const char *arch[] = {"-arch=sm_80"};
  o.noptions = 1;
  o.options = arch;
  ND_ASSERT_FAILS(nd__jit_check_options("f", &o, &out), ND_ERR_INVALID_ARGUMENT, "-arch=sm_80");
  o.noptions = 0;
  o.nheaders = 1;
  ND_ASSERT_FAILS(nd__jit_check_options("f", &o, &out), ND_ERR_NULL_POINTER, "header_names");
}
END_TEST

/* Every input that changes the binary changes the key; the same inputs give the same key. */
START_TEST(key_covers_every_input) {
  const char *hn[] = {"h.h"}, *hs[] = {"#define A 1"}, *hs2[] = {"#define A 2"};
  const char *op[] = {"-G", "-lineinfo"}, *op2[] = {"-lineinfo", "-G"};
  const char *ne[] = {"k<1>"}, *df[] = {"X=1"};
  nd_module_options base = ND_MODULE_OPTIONS_INIT;
  base.nheaders = 1;
  base.header_names = hn;
  base.header_sources = hs;
  base.noptions = 2;
  base.options = op;
  nd_module_options v[9];
  for (int i = 0; i < 9; i++) v[i] = base;
  v[1].header_sources = hs2;           /* header content */
  v[2].options = op2;                  /* option order */
  v[3].nname_expressions = 1;          /* name expressions */
  v[3].name_expressions = ne;
  v[4].cooperative = 1;                /* cooperative flag */
  v[5].ndefines = 1;                   /* defines */
  v[5].defines = df;
  v[6].nheaders = 0;                   /* the header's presence */
  v[7].noptions = 1;                   /* option count */
  unsigned char keys[11][32];
  size_t lens[11];
  for (int i = 0; i < 11; i++) {
    nd__jit_source s = {"f", "m", i == 8 ? "__global__ void k2() {}" : "__global__ void k() {}",
                        &v[i < 9 ? i : 0], i == 9 ? 80 : 90};
    nd__jit_key k;
    nd__jit_key_init(&k);
    ND_ASSERT_OK(nd__jit_material(&s, &k));
    unsigned char d[32];
    nd__sha256(k.data, k.len, d);
    memcpy(keys[i], d, 32);
    lens[i] = k.len;
    nd__jit_key_free(&k);
  }
  /* 10 repeats input 0 */
  ck_assert(memcmp(keys[10], keys[0], 32) == 0);
  for (int i = 0; i < 10; i++)
    for (int j = i + 1; j < 10; j++) ck_assert_msg(memcmp(keys[i], keys[j], 32) != 0, "inputs %d and %d share a key", i, j);
  (void)lens;
}
END_TEST

/* ---- generated elementwise kernels: parsing, and sources that NVRTC accepts ---------------- */

START_TEST(elementwise_definitions_parse_or_fail_clearly) {
  nd_elementwise_kernel *k = NULL;
  ND_ASSERT_OK(nd_elementwise_kernel_create("T x, raw float32 t, U y", "T z, float64 w", "z = x + y; w = t[0];",
                                            "my_kernel", NULL, NULL, &k));
  nd_elementwise_kernel_release(k);
  ND_ASSERT_OK(nd_elementwise_kernel_create("", "float32 z", "z = 1;", "no_inputs", NULL, NULL, &k));
  nd_elementwise_kernel_release(k);
  /* a and b are ordinary names here (they are reserved in reductions only) */
  ND_ASSERT_OK(nd_elementwise_kernel_create("T a, T b", "T c", "c = a * b;", "ab", NULL, NULL, &k));
  nd_elementwise_kernel_release(k);
  ND_ASSERT_FAILS(nd_elementwise_kernel_create("T x, T x", "T z", "z = x;", "dup", NULL, NULL, &k), ND_ERR_VALUE,
                  "'x' is used twice");
  ND_ASSERT_FAILS(nd_elementwise_kernel_create("T", "T z", "z = 0;", "bad_list", NULL, NULL, &k), ND_ERR_VALUE,
                  "bad_list");
  ND_ASSERT_FAILS(nd_elementwise_kernel_create("T x y", "T z", "z = x;", "bad_list2", NULL, NULL, &k),
                  ND_ERR_VALUE, "input parameter 'T x y'");
  ND_ASSERT_FAILS(nd_elementwise_kernel_create("T x", "", "x;", "no_out", NULL, NULL, &k), ND_ERR_VALUE,
                  "no output");
  ND_ASSERT_FAILS(nd_elementwise_kernel_create("T i", "T z", "z = i;", "reserved", NULL, NULL, &k), ND_ERR_VALUE,
                  "reserved");
  ND_ASSERT_FAILS(nd_elementwise_kernel_create("T x", "T z", "z = x;", "not an identifier", NULL, NULL, &k),
                  ND_ERR_VALUE, "not an identifier");
  ND_ASSERT_FAILS(nd_elementwise_kernel_create(NULL, "T z", "z = 1;", "k", NULL, NULL, &k), ND_ERR_NULL_POINTER,
                  "in_params");
}
END_TEST

/* Each binding's generated source compiles for sm_90, over every dtype (float16 and complex
 * included), mixed input dtypes, scalars, raw arrays and 64-bit indices. */
START_TEST(elementwise_sources_compile_for_every_dtype) {
  nd_elementwise_kernel *k = NULL;
  ND_ASSERT_OK(nd_elementwise_kernel_create("T x, T y, raw T table", "T z", "z = x * y + table[0]; if (i == 0) z = z;",
                                            "mul_add_table", "// preamble\n", NULL, &k));
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  for (int d2 = 0; d2 < 2 * ND_NUM_DTYPES; d2++) {
    const int d = d2 / 2, strided = d2 % 2;
    const nd_dtype t = (nd_dtype)d;
    nd_dtype pt[4] = {t, t, t, t}, at[4] = {t, t, t, t};
    int sc[4] = {0, d % 2, 0, 0}; /* y a scalar every other dtype */
    char *src = nd__ew_source_for(k, pt, at, sc, d % 3 == 0, strided);
    ck_assert_ptr_nonnull(src);
    nd__jit_source s = {"test", "mul_add_table", src, &o, 90};
    nd__jit_binary *b = NULL;
    char *log = NULL;
    nd_status st = nd__jit_nvrtc_compile(&s, &b, &log);
    if (st != ND_OK) fprintf(stderr, "%s\nsource:\n%s\n", log ? log : "", src);
    ck_assert_msg(st == ND_OK, "%s: %.300s", nd_dtype_name(t), nd_last_error());
    ck_assert(has_symbol(b, strided ? "nd_ew_strided" : "nd_ew_contig"));
    nd__jit_binary_free(b);
    free(log);
    free(src);
  }
  nd_elementwise_kernel_release(k);
  /* fixed types with conversions: int32 array into a float64 parameter, a float16 output */
  ND_ASSERT_OK(nd_elementwise_kernel_create("float64 x, complex64 c", "float16 h, complex128 w",
                                            "h = x * 2; w = nd_complex128(c) * x;", "mixed", NULL, NULL, &k));
  nd_dtype pt[4] = {ND_FLOAT64, ND_COMPLEX64, ND_FLOAT16, ND_COMPLEX128};
  nd_dtype at[4] = {ND_INT32, ND_COMPLEX64, ND_FLOAT32, ND_COMPLEX128};
  int sc[4] = {0, 0, 0, 0};
  char *src = nd__ew_source_for(k, pt, at, sc, 0, 1);
  nd__jit_source s = {"test", "mixed", src, &o, 90};
  nd__jit_binary *b = NULL;
  char *log = NULL;
  nd_status st = nd__jit_nvrtc_compile(&s, &b, &log);
  if (st != ND_OK) fprintf(stderr, "%s\nsource:\n%s\n", log ? log : "", src);
  ck_assert_msg(st == ND_OK, "%.300s", nd_last_error());
  nd__jit_binary_free(b);
  free(log);
  free(src);
  nd_elementwise_kernel_release(k);
}
END_TEST

/* Reduction definitions: parse errors, and sources NVRTC accepts for sum (identity, reduce
 * type wider than the input), max (no identity) and a two-input dot product, over dtypes. */
START_TEST(reduction_definitions_and_sources) {
  nd_reduction_kernel *k = NULL;
  ND_ASSERT_FAILS(nd_reduction_kernel_create("T x", "T y, T z", "x", "a + b", NULL, "0", NULL, "two_out", NULL, NULL, &k),
                  ND_ERR_VALUE, "2 output parameters");
  ND_ASSERT_FAILS(nd_reduction_kernel_create("T a", "T y", "a", "a + b", NULL, "0", NULL, "uses_a", NULL, NULL, &k),
                  ND_ERR_VALUE, "reserved (i, a, b");
  ND_ASSERT_FAILS(nd_reduction_kernel_create("raw T x", "T y", "x[0]", "a + b", NULL, "0", NULL, "raw_in", NULL, NULL, &k),
                  ND_ERR_VALUE, "raw");
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  static const struct {
    const char *in, *out, *map, *red, *post, *ident, *rtype;
    int nin;
  } defs[4] = {
      {"T x", "T y", "x", "a + b", "y = a", "0", "float64", 1},
      {"T x", "T y", "x", "(a > b ? a : b)", NULL, NULL, NULL, 1},
      {"T x, T w", "T y", "x * w", "a + b", "y = a", "0", NULL, 2},
      /* three inputs: one vector of each in flight per lane */
      {"T x, T w, T z", "T y", "x * w + z", "a + b", "y = a", "0", NULL, 3},
  };
  static const nd_dtype dts[] = {ND_FLOAT32, ND_FLOAT64, ND_INT32,     ND_UINT8,
                                 ND_FLOAT16, ND_INT64,   ND_COMPLEX64, ND_COMPLEX128};
  for (int d = 0; d < 4; d++) {
    ND_ASSERT_OK(nd_reduction_kernel_create(defs[d].in, defs[d].out, defs[d].map, defs[d].red, defs[d].post,
                                            defs[d].ident, defs[d].rtype, "red", NULL, NULL, &k));
    for (size_t t = 0; t < sizeof dts / sizeof dts[0]; t++) {
      /* complex values have no order, nor a float64 reduce type */
      if (d < 2 && (dts[t] == ND_COMPLEX64 || dts[t] == ND_COMPLEX128)) continue;
      nd_dtype pt[4], at[4];
      int sc[4] = {0, 0, 0, 0};
      for (int j = 0; j < 4; j++) pt[j] = at[j] = dts[t];
      if (d == 2 && t % 2) sc[1] = 1; /* w a scalar */
      const nd_dtype rt = defs[d].rtype ? ND_FLOAT64 : dts[t];
      char *src = nd__rd_source_for(k, pt, at, sc, rt);
      ck_assert_ptr_nonnull(src);
      nd__jit_source js = {"test", "red", src, &o, 90};
      nd__jit_binary *b = NULL;
      char *log = NULL;
      nd_status st = nd__jit_nvrtc_compile(&js, &b, &log);
      if (st != ND_OK) fprintf(stderr, "%s\nsource:\n%s\n", log ? log : "", src);
      ck_assert_msg(st == ND_OK, "definition %d %s: %.300s", d, nd_dtype_name(dts[t]), nd_last_error());
      ck_assert(has_symbol(b, "nd_rd_main") && has_symbol(b, "nd_rd_final"));
      nd__jit_binary_free(b);
      free(log);
      free(src);
    }
    nd_reduction_kernel_release(k);
  }
}
END_TEST

/* A device NVRTC cannot emit a CUBIN for gets PTX for the newest virtual architecture below
 * it (compute capability 9.1 is not a target of any NVRTC; 9.0 is). */
START_TEST(ptx_where_nvrtc_cannot_target_the_device) {
  nd_module_options o = ND_MODULE_OPTIONS_INIT;
  nd__jit_source s = {"test", "ptx_module", "extern \"C\" __global__ void k(float *x) { x[0] = 1; }", &o, 91};
  nd__jit_binary *b = NULL;
  char *log = NULL;
  ND_ASSERT_OK(nd__jit_nvrtc_compile(&s, &b, &log));
  ck_assert_uint_eq(b->flags & ND__JIT_PTX, ND__JIT_PTX);
  ck_assert_uint_eq(b->arch, 91);
  ck_assert_msg(strstr((const char *)b->payload, ".target sm_90") != NULL, "PTX target: %.200s", (const char *)b->payload);
  ck_assert_uint_eq(b->payload[b->size - 1], 0); /* PTX keeps its NUL for the driver */
  nd__jit_binary_free(b);
  free(log);
  /* and the key says so: 91 and 90 are different keys */
  nd__jit_key k90, k91;
  nd__jit_key_init(&k90);
  nd__jit_key_init(&k91);
  ND_ASSERT_OK(nd__jit_material(&s, &k91));
  s.arch = 90;
  ND_ASSERT_OK(nd__jit_material(&s, &k90));
  ck_assert(k90.len != k91.len || memcmp(k90.data, k91.data, k90.len) != 0);
  nd__jit_key_free(&k90);
  nd__jit_key_free(&k91);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("jit_host");
  TCase *t = tcase_create("nvrtc");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, compiles_to_cubin_with_names_defines_headers);
  tcase_add_test(t, cooperative_groups_resolve_without_include_options);
  tcase_add_test(t, float16_helper_compiles);
  tcase_add_test(t, syntax_error_is_err_compile_with_log);
  tcase_add_test(t, option_checks);
  tcase_add_test(t, key_covers_every_input);
  tcase_add_test(t, elementwise_definitions_parse_or_fail_clearly);
  tcase_add_test(t, elementwise_sources_compile_for_every_dtype);
  tcase_add_test(t, reduction_definitions_and_sources);
  tcase_add_test(t, ptx_where_nvrtc_cannot_target_the_device);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(suite()); }
