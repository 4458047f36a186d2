/* nd_bench: times ndcuda operations and prints a table next to the measured copy ceiling.
 *
 *   nd_bench [--out FILE] [--filter SUBSTR[,SUBSTR...]] [--quick] [--reps N] [--warmup N]
 *            [--list]
 *
 * First it measures the device-to-device copy bandwidth (cudaMemcpyAsync of a 1 GiB buffer,
 * 256 MiB with --quick, counting bytes read plus bytes written): that is the ceiling the
 * "% copy" column compares with. Then it runs every selected case of the tables listed in
 * bench_tables below and prints one row per result; --out also writes them as CSV (format in
 * bench/README.md), one row as soon as it is measured. Exit status: 0 when every case ran and
 * passed its check, 1 when one failed, 2 for bad arguments, 77 when there is no CUDA device. */
#define _POSIX_C_SOURCE 200809L

#include "bench.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every case table, in the order they run. A new area adds its table here (and to bench.h). */
static const bench_case *const bench_tables[] = {
    bench_core_cases,
    bench_elementwise_cases,
    bench_reduce_cases,
    bench_random_cases,
    bench_stream_cases,
    bench_linalg_cases,
    bench_jit_cases,
    bench_multi_cases,
    NULL,
};

#define BENCH_MAX_FILTERS 32

typedef struct bench_opts {
  const char *out;
  const char *filters[BENCH_MAX_FILTERS];
  int nfilters;
  int quick, reps, warmup, list, sweep;
  const char *sweep_ops[BENCH_MAX_FILTERS]; /* --sweep-ops: operation names, none for all */
  int nsweep_ops;
} bench_opts;

static void bench_usage(FILE *f) {
  fprintf(f,
          "usage: nd_bench [--out FILE] [--filter SUBSTR[,SUBSTR...]] [--quick] [--reps N]\n"
          "                [--warmup N] [--list] [--sweep [--sweep-ops OP[,OP...]]]\n"
          "  --out FILE     also write the results as CSV to FILE\n"
          "  --filter S     run only cases whose name contains S (repeatable, comma-separated);\n"
          "                 a full row name such as stream.pipeline.4stream selects its case\n"
          "  --quick        smaller sizes (a smoke run, not figures to report)\n"
          "  --reps N       timed repetitions per device case (default 25)\n"
          "  --warmup N     untimed repetitions first (default 3)\n"
          "  --list         print the case names and exit\n"
          "  --sweep        instead of the cases, the size sweep of bench_sweep.c (its own CSV)\n"
          "  --sweep-ops L  only these operations of the sweep (names as in its CSV)\n");
}

static int bench_parse_int(const char *s, int *out) {
  char *end;
  long v = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || v < 0 || v > 1000000) return -1;
  *out = (int)v;
  return 0;
}

/* Appends the comma-separated names of list (split in place) to names[*n]; -1 past
 * BENCH_MAX_FILTERS names. */
static int bench_add_names(char *list, const char **names, int *n) {
  for (char *save = NULL, *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    if (*n == BENCH_MAX_FILTERS) return -1;
    names[(*n)++] = tok;
  }
  return 0;
}

static int bench_parse(int argc, char **argv, bench_opts *o) {
  memset(o, 0, sizeof *o);
  o->reps = 25;
  o->warmup = 3;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      bench_usage(stdout);
      exit(0);
    } else if (strcmp(a, "--quick") == 0) {
      o->quick = 1;
    } else if (strcmp(a, "--list") == 0) {
      o->list = 1;
    } else if (strcmp(a, "--sweep") == 0) {
      o->sweep = 1;
    } else if (strcmp(a, "--sweep-ops") == 0 && val) {
      if (bench_add_names(argv[++i], o->sweep_ops, &o->nsweep_ops) != 0) return -1;
    } else if (strcmp(a, "--out") == 0 && val) {
      o->out = val;
      i++;
    } else if (strcmp(a, "--filter") == 0 && val) {
      if (bench_add_names(argv[++i], o->filters, &o->nfilters) != 0) return -1;
    } else if (strcmp(a, "--reps") == 0 && val) {
      if (bench_parse_int(argv[++i], &o->reps) != 0 || o->reps < 1) return -1;
    } else if (strcmp(a, "--warmup") == 0 && val) {
      if (bench_parse_int(argv[++i], &o->warmup) != 0) return -1;
    } else {
      fprintf(stderr, "nd_bench: unknown or incomplete argument '%s'\n", a);
      return -1;
    }
  }
  return 0;
}

/* A case is selected when no filter is given, when its name contains a filter, or when a
 * filter starts with its name (a row name like "stream.pipeline.speedup" selects "stream.pipeline"). */
static int bench_selected(const bench_opts *o, const char *name) {
  if (o->nfilters == 0) return 1;
  size_t len = strlen(name);
  for (int i = 0; i < o->nfilters; i++) {
    if (strstr(name, o->filters[i]) != NULL) return 1;
    if (strncmp(o->filters[i], name, len) == 0 && o->filters[i][len] == '.') return 1;
  }
  return 0;
}

/* ---- output ------------------------------------------------------------------------------ */

static void bench_csv_num(FILE *f, double v, const char *fmt) {
  if (!isnan(v)) fprintf(f, fmt, v);
  fputc(',', f);
}

/* Notes are quoted as CSV requires: double quotes around, inner quotes doubled. */
static void bench_csv_row(FILE *f, const bench_result *r) {
  fprintf(f, "%s,%s,", r->name, r->kind);
  bench_csv_num(f, r->median_us, "%.3f");
  bench_csv_num(f, r->min_us, "%.3f");
  fprintf(f, "%d,%lld,", r->reps, (long long)r->bytes);
  bench_csv_num(f, r->gbps, "%.2f");
  bench_csv_num(f, r->pct_copy, "%.1f");
  bench_csv_num(f, r->value, "%.4f");
  fputc('"', f);
  for (const char *p = r->note; *p; p++) {
    if (*p == '"') fputc('"', f);
    fputc(*p, f);
  }
  fputs("\"\n", f);
  fflush(f);
}

static void bench_print_header(void) {
  printf("%-36s %-6s %12s %12s %9s %7s  %s\n", "case", "kind", "median_us", "min_us", "GB/s",
         "%copy", "value / note");
}

static void bench_print_row(const bench_result *r) {
  char med[32] = "-", mn[32] = "-", gb[32] = "-", pct[32] = "-";
  if (!isnan(r->median_us)) snprintf(med, sizeof med, "%.2f", r->median_us);
  if (!isnan(r->min_us)) snprintf(mn, sizeof mn, "%.2f", r->min_us);
  if (!isnan(r->gbps)) snprintf(gb, sizeof gb, "%.1f", r->gbps);
  if (!isnan(r->pct_copy)) snprintf(pct, sizeof pct, "%.1f", r->pct_copy);
  printf("%-36s %-6s %12s %12s %9s %7s  ", r->name, r->kind, med, mn, gb, pct);
  if (!isnan(r->value)) printf("%.3fx ", r->value);
  printf("%s\n", r->note);
  fflush(stdout);
}

/* ---- running ----------------------------------------------------------------------------- */

static int bench_run_once(bench_ctx *ctx, void *arg) {
  bench_state *st = arg;
  return st->c->run(ctx, st);
}

static void bench_flush_rows(bench_ctx *ctx, int from, FILE *out) {
  for (int i = from; i < ctx->nresults; i++) {
    bench_print_row(&ctx->results[i]);
    if (out) bench_csv_row(out, &ctx->results[i]);
  }
}

static void bench_run_case(bench_ctx *ctx, const bench_case *c, FILE *out) {
  bench_state st;
  memset(&st, 0, sizeof st);
  st.c = c;
  ctx->current = c;
  int first = ctx->nresults;
  int rc = nd_stream_push(ctx->stream) == ND_OK ? 0 : bench_fail_nd(ctx, ND_ERR_STREAM, "nd_stream_push", __FILE__, __LINE__);
  int pushed = rc == 0;
  if (rc == 0 && c->setup) rc = c->setup(ctx, &st);
  if (rc == 0) {
    if (c->measure) {
      rc = c->measure(ctx, &st);
    } else {
      double med, mn;
      rc = bench_time_device(ctx, bench_run_once, &st, ctx->warmup, ctx->reps, &med, &mn);
      if (rc == 0) bench_emit_time(ctx, NULL, "device", med, mn, ctx->reps, st.bytes, NULL);
    }
  }
  int checked = 0;
  if (rc == 0 && c->check) {
    rc = c->check(ctx, &st);
    checked = rc == 0;
    if (rc != 0)
      for (int i = first; i < ctx->nresults; i++)
        snprintf(ctx->results[i].note, sizeof ctx->results[i].note, "CHECK FAILED");
  }
  if (checked)
    for (int i = first; i < ctx->nresults; i++)
      if (ctx->results[i].note[0] == '\0') snprintf(ctx->results[i].note, sizeof ctx->results[i].note, "checked");
  if (c->teardown) c->teardown(ctx, &st);
  for (int i = 0; i < BENCH_MAX_ARRAYS; i++) nd_array_release(st.arr[i]);
  (void)cudaDeviceSynchronize();
  if (pushed) (void)nd_stream_pop();
  if (rc != 0) {
    ctx->failures++;
    if (ctx->nresults == first) {
      bench_emit_time(ctx, NULL, "error", NAN, NAN, 0, 0, "FAILED (see stderr)");
    }
  }
  bench_flush_rows(ctx, first, out);
  ctx->current = NULL;
}

/* ---- the copy ceiling -------------------------------------------------------------------- */

typedef struct bench_memcpy_arg {
  void *dst;
  const void *src;
  size_t bytes;
} bench_memcpy_arg;

static int bench_memcpy_once(bench_ctx *ctx, void *arg) {
  bench_memcpy_arg *m = arg;
  BENCH_CU(cudaMemcpyAsync(m->dst, m->src, m->bytes, cudaMemcpyDeviceToDevice, ctx->cu));
  return 0;
}

typedef struct bench_memset_arg {
  void *dst;
  size_t bytes;
} bench_memset_arg;

static int bench_memset_once(bench_ctx *ctx, void *arg) {
  bench_memset_arg *m = arg;
  BENCH_CU(cudaMemsetAsync(m->dst, 0x3f, m->bytes, ctx->cu));
  return 0;
}

static const bench_case bench_memset_case = {"ceiling.memset", NULL, NULL, NULL, NULL, NULL};

static int bench_ceiling(bench_ctx *ctx) {
  int64_t n = (ctx->quick ? (int64_t)64 : 256) << 20; /* float32 elements: 256 MiB or 1 GiB */
  nd_array *src = NULL, *dst = NULL;
  int rc = bench_random_f32(ctx, 1, &n, &src);
  if (rc == 0 && nd_empty(1, &n, ND_FLOAT32, &dst) != ND_OK)
    rc = bench_fail_nd(ctx, ND_ERR_OUT_OF_MEMORY, "nd_empty (copy ceiling)", __FILE__, __LINE__);
  if (rc == 0) {
    bench_memcpy_arg m = {nd_array_data(dst), nd_array_data(src), (size_t)n * sizeof(float)};
    double med, mn;
    rc = bench_time_device(ctx, bench_memcpy_once, &m, ctx->warmup, ctx->reps, &med, &mn);
    if (rc == 0) {
      ctx->copy_gbps = 2.0 * (double)m.bytes / (med * 1e-6) / 1e9;
      char note[BENCH_NOTE_MAX];
      snprintf(note, sizeof note, "cudaMemcpyAsync D2D of %lld MiB: the 100%% reference",
               (long long)(m.bytes >> 20));
      bench_emit_time(ctx, NULL, "device", med, mn, ctx->reps, 2 * (int64_t)m.bytes, note);
    }
  }
  /* The write rate: a cudaMemsetAsync of the same buffer, bytes written only (the fill's
   * ceiling; its row's % copy is against the copy's rate as every other row's). */
  if (rc == 0) {
    bench_memset_arg w = {nd_array_data(dst), (size_t)n * sizeof(float)};
    double med, mn;
    const bench_case *was = ctx->current;
    ctx->current = &bench_memset_case;
    rc = bench_time_device(ctx, bench_memset_once, &w, ctx->warmup, ctx->reps, &med, &mn);
    if (rc == 0) {
      char note[BENCH_NOTE_MAX];
      snprintf(note, sizeof note, "cudaMemsetAsync of %lld MiB: the write rate", (long long)(w.bytes >> 20));
      bench_emit_time(ctx, NULL, "device", med, mn, ctx->reps, (int64_t)w.bytes, note);
    }
    ctx->current = was;
  }
  nd_array_release(src);
  nd_array_release(dst);
  (void)cudaDeviceSynchronize();
  return rc;
}

static const bench_case bench_ceiling_case = {"ceiling.memcpy_d2d", NULL, NULL, NULL, NULL, NULL};

/* The random block that bench_random_f32 repeats: 4 Mi float32 values in [-1, 1) from a
 * fixed-seed xorshift, none exactly zero. */
static float *bench_make_block(int64_t n) {
  float *b = malloc((size_t)n * sizeof *b);
  if (b == NULL) return NULL;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int64_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    float v = (float)((double)(x >> 40) / (double)(1ull << 24)) * 2.0f - 1.0f;
    b[i] = v != 0.0f ? v : 0.5f;
  }
  return b;
}

int main(int argc, char **argv) {
  bench_opts o;
  if (bench_parse(argc, argv, &o) != 0) {
    bench_usage(stderr);
    return 2;
  }
  if (o.list) {
    for (int t = 0; bench_tables[t]; t++)
      for (const bench_case *c = bench_tables[t]; c->name; c++)
        if (bench_selected(&o, c->name)) printf("%s\n", c->name);
    return 0;
  }

  int ndev = 0;
  cudaError_t e = cudaGetDeviceCount(&ndev);
  if (e != cudaSuccess || ndev == 0) {
    fprintf(stderr, "nd_bench: no CUDA device available (%s); nothing to measure, skipping\n",
            e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
    return 77;
  }
  int dev = 0;
  struct cudaDeviceProp prop;
  if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&prop, dev) != cudaSuccess) {
    fprintf(stderr, "nd_bench: cannot query the device: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 1;
  }
  int rt = 0, drv = 0;
  (void)cudaRuntimeGetVersion(&rt);
  (void)cudaDriverGetVersion(&drv);

  bench_ctx ctx;
  memset(&ctx, 0, sizeof ctx);
  ctx.quick = o.quick;
  ctx.reps = o.reps;
  ctx.warmup = o.warmup;
  ctx.host_batches = o.quick ? 11 : 41;
  ctx.rand_block_n = (int64_t)1 << 22;
  float *block = bench_make_block(ctx.rand_block_n);
  if (block == NULL) {
    fprintf(stderr, "nd_bench: out of host memory\n");
    return 1;
  }
  ctx.rand_block = block;
  nd_status st = nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &ctx.stream);
  if (st != ND_OK) {
    fprintf(stderr, "nd_bench: nd_stream_create: %s: %s\n", nd_status_name(st), nd_last_error());
    return 1;
  }
  ctx.cu = (cudaStream_t)nd_stream_cuda(ctx.stream);

  FILE *out = NULL;
  if (o.out) {
    out = fopen(o.out, "w");
    if (out == NULL) {
      perror(o.out);
      return 1;
    }
  }
  char date[64];
  time_t now = time(NULL);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
  printf("nd_bench: ndcuda %s on %s (sm_%d%d, %d SMs, %.1f GiB), CUDA runtime %d driver %d, %s%s\n",
         nd_version_string(), prop.name, prop.major, prop.minor, prop.multiProcessorCount,
         (double)prop.totalGlobalMem / (1 << 30), rt, drv, date, o.quick ? " (quick)" : "");
  printf("timing: CUDA events, %d warm-up + median of %d runs; host cases: median of %d batches\n\n",
         ctx.warmup, ctx.reps, ctx.host_batches);
  if (out) {
    fprintf(out, "# tool: nd_bench\n# ndcuda: %s\n# device: %s\n# cuda_runtime: %d\n# cuda_driver: %d\n"
                 "# date: %s\n# quick: %d\n# reps: %d\n",
            nd_version_string(), prop.name, rt, drv, date, ctx.quick, ctx.reps);
    if (!o.sweep) fprintf(out, "case,kind,median_us,min_us,reps,bytes,gbps,pct_copy,value,note\n");
  }
  bench_print_header();

  /* The ceiling runs first and always: every % copy figure depends on it. */
  ctx.current = &bench_ceiling_case;
  if (nd_stream_push(ctx.stream) != ND_OK || bench_ceiling(&ctx) != 0) {
    fprintf(stderr, "nd_bench: could not measure the copy ceiling; %% copy is left empty\n");
    ctx.failures++;
  }
  (void)nd_stream_pop();
  bench_flush_rows(&ctx, 0, o.sweep ? NULL : out);
  ctx.current = NULL;

  if (o.sweep) {
    static const bench_case sweep_case = {"sweep", NULL, NULL, NULL, NULL, NULL};
    ctx.current = &sweep_case;
    (void)nd_stream_push(ctx.stream);
    ctx.failures += bench_sweep(&ctx, out, o.sweep_ops, o.nsweep_ops);
    (void)nd_stream_pop();
    if (out) fclose(out);
    free(ctx.results);
    (void)nd_stream_destroy(ctx.stream);
    free(block);
    return ctx.failures ? 1 : 0;
  }

  for (int t = 0; bench_tables[t]; t++)
    for (const bench_case *c = bench_tables[t]; c->name; c++)
      if (bench_selected(&o, c->name)) bench_run_case(&ctx, c, out);

  if (out) {
    fprintf(out, "# copy_gbps: %.2f\n", ctx.copy_gbps);
    fclose(out);
  }
  printf("\n%d row(s), %d failure(s)%s%s\n", ctx.nresults, ctx.failures, o.out ? "; written to " : "",
         o.out ? o.out : "");
  free(ctx.results);
  (void)nd_stream_destroy(ctx.stream);
  free(block);
  return ctx.failures ? 1 : 0;
}
