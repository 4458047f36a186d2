/* NCCL collectives on arrays over the local GPUs of one process (comm.h), against host
 * references: every collective for each dtype and operation, the awkward layouts (offset,
 * negative strides, transposed inputs and outputs, zero-size), the ordering with other
 * operations on another stream, and the bad inputs (wrong device, mismatched ranks in a group,
 * ranks out of range, shapes, dtypes).
 *
 * Needs two GPUs and a library built with NCCL: exits 77 (skipped) otherwise. Uses the first
 * two devices; the current device is switched with cudaSetDevice, which is what the library
 * reads as the calling thread's device. Data are small integers (1..5 per rank), so that every
 * sum, product and average of two ranks is exact in every dtype, float16 included, and the
 * references are exact. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/nd_test.h"

#define NR 2
static nd_comm *comms[NR];

static void dev(int d) { ck_assert_int_eq(cudaSetDevice(d), cudaSuccess); }

/* Rank r's value at flat index i. */
static double val(int r, int64_t i) { return (double)((i * 7 + r * 3) % 5 + 1); }

/* A float64 array of n values f(r, i) on device r, converted to dtype. */
static nd_array *make(int r, int ndim, const int64_t *shape, nd_dtype dtype, int rank_for_vals) {
  dev(r);
  int64_t n = 1;
  for (int k = 0; k < ndim; k++) n *= shape[k];
  double *h = malloc((size_t)(n ? n : 1) * sizeof *h);
  for (int64_t i = 0; i < n; i++) h[i] = val(rank_for_vals, i);
  nd_array *f, *a;
  ND_ASSERT_OK(nd_array_from_host(h, (size_t)n * sizeof *h, ndim, shape, ND_FLOAT64, &f));
  ND_ASSERT_OK(nd_array_astype(f, dtype, &a));
  nd_array_release(f);
  free(h);
  return a;
}

static nd_array *empty(int r, int ndim, const int64_t *shape, nd_dtype dtype) {
  dev(r);
  nd_array *a;
  ND_ASSERT_OK(nd_zeros(ndim, shape, dtype, &a));
  return a;
}

/* a's values as doubles (C order); the array's device becomes current. */
static double *fetch(const nd_array *a) {
  dev(nd_array_device(a));
  nd_array *f;
  ND_ASSERT_OK(nd_array_astype(a, ND_FLOAT64, &f));
  int64_t n = nd_array_size(a);
  double *h = malloc((size_t)(n ? n : 1) * sizeof *h);
  ND_ASSERT_OK(nd_array_to_host(f, h, (size_t)n * sizeof *h));
  nd_array_release(f);
  return h;
}

static double ref_op(nd_comm_op op, double a, double b) {
  switch (op) {
    case ND_COMM_SUM: return a + b;
    case ND_COMM_PROD: return a * b;
    case ND_COMM_MIN: return a < b ? a : b;
    case ND_COMM_MAX: return a > b ? a : b;
    case ND_COMM_AVG: return (a + b) / 2;
  }
  return 0;
}

static const nd_dtype reduce_dtypes[] = {ND_INT8,  ND_UINT8,   ND_INT32,   ND_UINT32, ND_INT64,
                                         ND_UINT64, ND_FLOAT16, ND_FLOAT32, ND_FLOAT64};
#define N_REDUCE_DTYPES (int)(sizeof reduce_dtypes / sizeof reduce_dtypes[0])
static const char *const op_names[] = {"sum", "prod", "min", "max", "avg"};

static int is_float(nd_dtype t) { return t == ND_FLOAT16 || t == ND_FLOAT32 || t == ND_FLOAT64; }

START_TEST(test_allreduce_dtypes_ops) {
  const int64_t shape[1] = {1003};
  int checked = 0;
  for (int di = 0; di < N_REDUCE_DTYPES; di++)
    for (int op = 0; op <= ND_COMM_AVG; op++) {
      nd_dtype t = reduce_dtypes[di];
      if (op == ND_COMM_AVG && !is_float(t)) continue;
      nd_array *x[NR], *y[NR];
      for (int r = 0; r < NR; r++) {
        x[r] = make(r, 1, shape, t, r);
        y[r] = empty(r, 1, shape, t);
      }
      ND_ASSERT_OK(nd_comm_group_start());
      for (int r = 0; r < NR; r++) {
        dev(r);
        ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], y[r], (nd_comm_op)op));
      }
      ND_ASSERT_OK(nd_comm_group_end());
      for (int r = 0; r < NR; r++) {
        double *h = fetch(y[r]);
        for (int64_t i = 0; i < shape[0]; i++) {
          double want = ref_op((nd_comm_op)op, val(0, i), val(1, i));
          ck_assert_msg(h[i] == want, "allreduce %s %s rank %d [%lld]: %g, want %g",
                        nd_dtype_name(t), op_names[op], r, (long long)i, h[i], want);
        }
        free(h);
        nd_array_release(x[r]);
        nd_array_release(y[r]);
      }
      checked++;
    }
  ck_assert_int_eq(checked, N_REDUCE_DTYPES * 4 + 3);
}
END_TEST

/* Complex sum and average (as float pairs) and bool min/max (logical and/or). */
START_TEST(test_allreduce_complex_bool) {
  const int64_t shape[1] = {257};
  for (int ti = 0; ti < 2; ti++) {
    nd_dtype t = ti ? ND_COMPLEX128 : ND_COMPLEX64;
    for (int op = ND_COMM_SUM; op <= ND_COMM_AVG; op += ND_COMM_AVG) {
      nd_array *x[NR], *y[NR];
      for (int r = 0; r < NR; r++) {
        dev(r);
        double *h = malloc(2 * (size_t)shape[0] * sizeof *h);
        for (int64_t i = 0; i < shape[0]; i++) {
          h[2 * i] = val(r, i);
          h[2 * i + 1] = -val(r, i + 1);
        }
        nd_array *c;
        ND_ASSERT_OK(nd_array_from_host(h, 2 * (size_t)shape[0] * sizeof *h, 1, shape,
                                        ND_COMPLEX128, &c));
        ND_ASSERT_OK(nd_array_astype(c, t, &x[r]));
        nd_array_release(c);
        free(h);
        y[r] = empty(r, 1, shape, t);
      }
      ND_ASSERT_OK(nd_comm_group_start());
      for (int r = 0; r < NR; r++) {
        dev(r);
        ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], y[r], (nd_comm_op)op));
      }
      ND_ASSERT_OK(nd_comm_group_end());
      for (int r = 0; r < NR; r++) {
        dev(r);
        nd_array *c;
        ND_ASSERT_OK(nd_array_astype(y[r], ND_COMPLEX128, &c));
        double *h = malloc(2 * (size_t)shape[0] * sizeof *h);
        ND_ASSERT_OK(nd_array_to_host(c, h, 2 * (size_t)shape[0] * sizeof *h));
        for (int64_t i = 0; i < shape[0]; i++) {
          double re = ref_op((nd_comm_op)op, val(0, i), val(1, i));
          double im = -ref_op((nd_comm_op)op, val(0, i + 1), val(1, i + 1));
          ck_assert_msg(h[2 * i] == re && h[2 * i + 1] == im, "%s %s [%lld]: %g%+gj want %g%+gj",
                        nd_dtype_name(t), op_names[op], (long long)i, h[2 * i], h[2 * i + 1], re,
                        im);
        }
        free(h);
        nd_array_release(c);
        nd_array_release(x[r]);
        nd_array_release(y[r]);
      }
    }
  }
  /* bool: max is a logical or, min a logical and. */
  for (int oi = 0; oi < 2; oi++) {
    int op = oi ? ND_COMM_MAX : ND_COMM_MIN;
    nd_array *x[NR], *y[NR];
    const int64_t n[1] = {64};
    for (int r = 0; r < NR; r++) {
      dev(r);
      unsigned char h[64];
      for (int i = 0; i < 64; i++) h[i] = (unsigned char)((i >> r) & 1);
      ND_ASSERT_OK(nd_array_from_host(h, sizeof h, 1, n, ND_BOOL, &x[r]));
      y[r] = empty(r, 1, n, ND_BOOL);
    }
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], y[r], (nd_comm_op)op));
    }
    ND_ASSERT_OK(nd_comm_group_end());
    for (int r = 0; r < NR; r++) {
      dev(r);
      unsigned char h[64];
      ND_ASSERT_OK(nd_array_to_host(y[r], h, sizeof h));
      for (int i = 0; i < 64; i++) {
        int a = i & 1, b = (i >> 1) & 1;
        int want = op == ND_COMM_MAX ? (a | b) : (a & b);
        ck_assert_msg(h[i] == want, "bool %s [%d]: %d want %d", op_names[op], i, h[i], want);
      }
      nd_array_release(x[r]);
      nd_array_release(y[r]);
    }
  }
}
END_TEST

START_TEST(test_refused_dtypes) {
  const int64_t n[1] = {8};
  struct {
    nd_dtype t;
    nd_comm_op op;
    const char *needle;
  } cases[] = {{ND_INT16, ND_COMM_SUM, "16-bit"},   {ND_UINT16, ND_COMM_MAX, "16-bit"},
               {ND_INT32, ND_COMM_AVG, "truncate"}, {ND_UINT8, ND_COMM_AVG, "truncate"},
               {ND_INT8, ND_COMM_AVG, "truncate"},   {ND_UINT64, ND_COMM_AVG, "truncate"},
               {ND_COMPLEX64, ND_COMM_PROD, "ND_COMM_PROD of complex64"},
               {ND_COMPLEX128, ND_COMM_MAX, "ND_COMM_MAX"}, {ND_BOOL, ND_COMM_SUM, "bool"}};
  /* Both ranks make the call inside one group: were one accepted by mistake, it would not be
   * left waiting for a partner that never comes (a hang instead of a failed assertion), and
   * the refusal poisons the group so that group_end enqueues nothing. */
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    nd_array *x[NR];
    nd_status st[NR];
    char msg[NR][512];
    for (int r = 0; r < NR; r++) x[r] = empty(r, 1, n, cases[k].t);
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      nd_clear_error();
      st[r] = nd_comm_allreduce(comms[r], x[r], x[r], cases[k].op);
      snprintf(msg[r], sizeof msg[r], "%s", nd_last_error());
    }
    nd_status end = nd_comm_group_end();
    for (int r = 0; r < NR; r++) {
      ck_assert_msg(st[r] == ND_ERR_DTYPE, "%s op %d rank %d: got %s (%s)", nd_dtype_name(cases[k].t),
                    (int)cases[k].op, r, nd_status_name(st[r]), msg[r]);
      ck_assert_msg(strstr(msg[r], cases[k].needle) != NULL, "message '%s' lacks '%s'", msg[r],
                    cases[k].needle);
      ck_assert(strstr(msg[r], "nd_comm_allreduce") == msg[r]);
      nd_array_release(x[r]);
    }
    ck_assert_int_eq(end, ND_ERR_INVALID_ARGUMENT);
    ck_assert(strstr(nd_last_error(), "a call made in this group failed (ERR_DTYPE)") != NULL);
  }
}
END_TEST

/* The same array as send and recv; reduce to each root with recv NULL elsewhere. */
START_TEST(test_inplace_and_reduce) {
  const int64_t shape[2] = {31, 7};
  nd_array *x[NR];
  for (int r = 0; r < NR; r++) x[r] = make(r, 2, shape, ND_FLOAT32, r);
  ND_ASSERT_OK(nd_comm_group_start());
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], x[r], ND_COMM_SUM));
  }
  ND_ASSERT_OK(nd_comm_group_end());
  for (int r = 0; r < NR; r++) {
    double *h = fetch(x[r]);
    for (int64_t i = 0; i < 31 * 7; i++) ck_assert(h[i] == val(0, i) + val(1, i));
    free(h);
    nd_array_release(x[r]);
  }
  for (int root = 0; root < NR; root++) {
    nd_array *s[NR], *y = empty(root, 2, shape, ND_INT64);
    for (int r = 0; r < NR; r++) s[r] = make(r, 2, shape, ND_INT64, r);
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      ND_ASSERT_OK(nd_comm_reduce(comms[r], s[r], r == root ? y : NULL, ND_COMM_MAX, root));
    }
    ND_ASSERT_OK(nd_comm_group_end());
    double *h = fetch(y);
    for (int64_t i = 0; i < 31 * 7; i++) ck_assert(h[i] == ref_op(ND_COMM_MAX, val(0, i), val(1, i)));
    free(h);
    for (int r = 0; r < NR; r++) {
      double *hs = fetch(s[r]); /* inputs are untouched */
      for (int64_t i = 0; i < 31 * 7; i++) ck_assert(hs[i] == val(r, i));
      free(hs);
      nd_array_release(s[r]);
    }
    nd_array_release(y);
  }
}
END_TEST

/* Broadcast moves every dtype, those NCCL lacks as bytes. */
START_TEST(test_broadcast_all_dtypes) {
  const int64_t shape[2] = {5, 9};
  for (int t = 0; t < ND_NUM_DTYPES; t++)
    for (int root = 0; root < NR; root++) {
      nd_array *a[NR];
      for (int r = 0; r < NR; r++) a[r] = r == root ? make(r, 2, shape, (nd_dtype)t, 1) : empty(r, 2, shape, (nd_dtype)t);
      ND_ASSERT_OK(nd_comm_group_start());
      for (int r = 0; r < NR; r++) {
        dev(r);
        ND_ASSERT_OK(nd_comm_broadcast(comms[r], a[r], root));
      }
      ND_ASSERT_OK(nd_comm_group_end());
      for (int r = 0; r < NR; r++) {
        double *h = fetch(a[r]);
        for (int64_t i = 0; i < 45; i++) {
          double want = (nd_dtype)t == ND_BOOL ? 1.0 : val(1, i);
          ck_assert_msg(h[i] == want, "broadcast %s root %d rank %d [%lld]: %g want %g",
                        nd_dtype_name((nd_dtype)t), root, r, (long long)i, h[i], want);
        }
        free(h);
        nd_array_release(a[r]);
      }
    }
}
END_TEST

START_TEST(test_allgather_reduce_scatter_alltoall) {
  const nd_dtype types[] = {ND_FLOAT64, ND_INT16, ND_COMPLEX64, ND_UINT8};
  for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++) {
    nd_dtype t = types[ti];
    /* allgather: (3, 5) per rank into (NR, 3, 5). */
    const int64_t s1[2] = {3, 5}, s2[3] = {NR, 3, 5};
    nd_array *x[NR], *y[NR];
    for (int r = 0; r < NR; r++) {
      x[r] = make(r, 2, s1, t, r);
      y[r] = empty(r, 3, s2, t);
    }
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      ND_ASSERT_OK(nd_comm_allgather(comms[r], x[r], y[r]));
    }
    ND_ASSERT_OK(nd_comm_group_end());
    for (int r = 0; r < NR; r++) {
      double *h = fetch(y[r]);
      for (int q = 0; q < NR; q++)
        for (int64_t i = 0; i < 15; i++)
          ck_assert_msg(h[q * 15 + i] == val(q, i), "allgather %s rank %d block %d [%lld]",
                        nd_dtype_name(t), r, q, (long long)i);
      free(h);
      nd_array_release(x[r]);
      nd_array_release(y[r]);
    }
    /* all-to-all: block j of rank i's send lands in block i of rank j's recv. */
    const int64_t s3[2] = {NR, 11};
    for (int r = 0; r < NR; r++) {
      x[r] = make(r, 2, s3, t, r);
      y[r] = empty(r, 2, s3, t);
    }
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      ND_ASSERT_OK(nd_comm_alltoall(comms[r], x[r], y[r]));
    }
    ND_ASSERT_OK(nd_comm_group_end());
    for (int r = 0; r < NR; r++) {
      double *h = fetch(y[r]);
      for (int q = 0; q < NR; q++)
        for (int64_t i = 0; i < 11; i++)
          ck_assert_msg(h[q * 11 + i] == val(q, r * 11 + i), "alltoall %s rank %d block %d [%lld]",
                        nd_dtype_name(t), r, q, (long long)i);
      free(h);
      nd_array_release(x[r]);
      nd_array_release(y[r]);
    }
  }
  /* reduce_scatter: (NR, 13) per rank, rank r keeps row r of the sum. */
  const int64_t s4[2] = {NR, 13}, s5[1] = {13};
  for (int di = 0; di < N_REDUCE_DTYPES; di++) {
    nd_dtype t = reduce_dtypes[di];
    nd_array *x[NR], *y[NR];
    for (int r = 0; r < NR; r++) {
      x[r] = make(r, 2, s4, t, r);
      y[r] = empty(r, 1, s5, t);
    }
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      ND_ASSERT_OK(nd_comm_reduce_scatter(comms[r], x[r], y[r], ND_COMM_SUM));
    }
    ND_ASSERT_OK(nd_comm_group_end());
    for (int r = 0; r < NR; r++) {
      double *h = fetch(y[r]);
      for (int64_t i = 0; i < 13; i++)
        ck_assert_msg(h[i] == val(0, r * 13 + i) + val(1, r * 13 + i), "reduce_scatter %s rank %d [%lld]",
                      nd_dtype_name(t), r, (long long)i);
      free(h);
      nd_array_release(x[r]);
      nd_array_release(y[r]);
    }
  }
}
END_TEST

START_TEST(test_send_recv_exchange) {
  const int64_t n[1] = {1000};
  nd_array *x[NR], *y[NR];
  for (int r = 0; r < NR; r++) {
    x[r] = make(r, 1, n, ND_FLOAT32, r);
    y[r] = empty(r, 1, n, ND_FLOAT32);
  }
  ND_ASSERT_OK(nd_comm_group_start());
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_comm_send(comms[r], x[r], (r + 1) % NR));
    ND_ASSERT_OK(nd_comm_recv(comms[r], y[r], (r + NR - 1) % NR));
  }
  ND_ASSERT_OK(nd_comm_group_end());
  for (int r = 0; r < NR; r++) {
    double *h = fetch(y[r]);
    for (int64_t i = 0; i < 1000; i++) ck_assert(h[i] == val((r + NR - 1) % NR, i));
    free(h);
    nd_array_release(x[r]);
    nd_array_release(y[r]);
  }
}
END_TEST

/* Inputs that are views (transposed, reversed, offset) go through a staging copy; outputs that
 * are views receive into one and are copied back, leaving the rest of their buffer alone. */
START_TEST(test_awkward_layouts) {
  const int64_t base[2] = {8, 6};
  for (int kind = 0; kind < 3; kind++) {
    nd_array *xb[NR], *x[NR], *yb[NR], *y[NR];
    for (int r = 0; r < NR; r++) {
      xb[r] = make(r, 2, base, ND_FLOAT64, r);
      yb[r] = empty(r, 2, base, ND_FLOAT64);
      dev(r);
      if (kind == 0) { /* transposed (6, 8) */
        ND_ASSERT_OK(nd_array_transpose(xb[r], 0, NULL, &x[r]));
        ND_ASSERT_OK(nd_array_transpose(yb[r], 0, NULL, &y[r]));
      } else if (kind == 1) { /* rows reversed, negative strides */
        nd_slice sl[1] = {{ND_NONE, ND_NONE, -1}};
        ND_ASSERT_OK(nd_array_slice(xb[r], 1, sl, &x[r]));
        ND_ASSERT_OK(nd_array_slice(yb[r], 1, sl, &y[r]));
      } else { /* an offset block with a column step: [1:7, 1::2] */
        nd_slice sl[2] = {{1, 7, 1}, {1, ND_NONE, 2}};
        ND_ASSERT_OK(nd_array_slice(xb[r], 2, sl, &x[r]));
        ND_ASSERT_OK(nd_array_slice(yb[r], 2, sl, &y[r]));
      }
    }
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], y[r], ND_COMM_SUM));
    }
    ND_ASSERT_OK(nd_comm_group_end());
    for (int r = 0; r < NR; r++) {
      /* The reference: the same view of each rank's base, in the view's C order. */
      double *hx0, *hx1, *hy, *hyb;
      hx0 = fetch(x[0]);
      hx1 = fetch(x[1]);
      hy = fetch(y[r]);
      hyb = fetch(yb[r]);
      int64_t n = nd_array_size(y[r]);
      for (int64_t i = 0; i < n; i++)
        ck_assert_msg(hy[i] == hx0[i] + hx1[i], "layout %d rank %d [%lld]: %g want %g", kind, r,
                      (long long)i, hy[i], hx0[i] + hx1[i]);
      /* Elements of the base outside the view stay zero. */
      double total = 0, inview = 0;
      for (int64_t i = 0; i < 48; i++) total += hyb[i];
      for (int64_t i = 0; i < n; i++) inview += hy[i];
      ck_assert_msg(total == inview, "layout %d rank %d: elements outside the view changed", kind, r);
      free(hx0);
      free(hx1);
      free(hy);
      free(hyb);
    }
    for (int r = 0; r < NR; r++) {
      nd_array_release(x[r]);
      nd_array_release(xb[r]);
      nd_array_release(y[r]);
      nd_array_release(yb[r]);
    }
  }
  /* In place on a transposed view and an overlapping send/recv (recv = send shifted). */
  nd_array *b[NR], *t[NR];
  const int64_t sq[2] = {4, 4};
  for (int r = 0; r < NR; r++) {
    b[r] = make(r, 2, sq, ND_INT32, r);
    dev(r);
    ND_ASSERT_OK(nd_array_transpose(b[r], 0, NULL, &t[r]));
  }
  ND_ASSERT_OK(nd_comm_group_start());
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_comm_allreduce(comms[r], t[r], t[r], ND_COMM_PROD));
  }
  ND_ASSERT_OK(nd_comm_group_end());
  for (int r = 0; r < NR; r++) {
    double *h = fetch(b[r]);
    for (int64_t i = 0; i < 16; i++) ck_assert(h[i] == val(0, i) * val(1, i));
    free(h);
  }
  /* Overlap: send = b[0:3] (rows), recv = b[1:4]; the result must be as if send was read first. */
  nd_array *s[NR], *d[NR];
  for (int r = 0; r < NR; r++) {
    nd_array_release(b[r]);
    nd_array_release(t[r]);
    b[r] = make(r, 2, sq, ND_INT32, r);
    dev(r);
    nd_slice a0[1] = {{0, 3, 1}}, a1[1] = {{1, 4, 1}};
    ND_ASSERT_OK(nd_array_slice(b[r], 1, a0, &s[r]));
    ND_ASSERT_OK(nd_array_slice(b[r], 1, a1, &d[r]));
  }
  ND_ASSERT_OK(nd_comm_group_start());
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_comm_allreduce(comms[r], s[r], d[r], ND_COMM_SUM));
  }
  ND_ASSERT_OK(nd_comm_group_end());
  for (int r = 0; r < NR; r++) {
    double *h = fetch(b[r]);
    for (int64_t i = 0; i < 4; i++) ck_assert(h[i] == val(r, i));
    for (int64_t i = 4; i < 16; i++) ck_assert_msg(h[i] == val(0, i - 4) + val(1, i - 4), "overlap [%lld]", (long long)i);
    free(h);
    nd_array_release(s[r]);
    nd_array_release(d[r]);
    nd_array_release(b[r]);
  }
}
END_TEST

START_TEST(test_zero_size_and_0d) {
  const int64_t z[2] = {0, 4};
  nd_array *x[NR], *y[NR];
  for (int r = 0; r < NR; r++) {
    x[r] = empty(r, 2, z, ND_FLOAT32);
    y[r] = empty(r, 2, z, ND_FLOAT32);
  }
  ND_ASSERT_OK(nd_comm_group_start());
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], y[r], ND_COMM_SUM));
  }
  ND_ASSERT_OK(nd_comm_group_end());
  for (int r = 0; r < NR; r++) {
    nd_array_release(x[r]);
    nd_array_release(y[r]);
  }
  /* 0-d arrays are one element. */
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_full(0, NULL, nd_scalar_float(r + 2.0), ND_FLOAT64, &x[r]));
  }
  ND_ASSERT_OK(nd_comm_group_start());
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], x[r], ND_COMM_PROD));
  }
  ND_ASSERT_OK(nd_comm_group_end());
  for (int r = 0; r < NR; r++) {
    double h;
    dev(r);
    ND_ASSERT_OK(nd_array_to_host(x[r], &h, sizeof h));
    ck_assert(h == 6.0);
    nd_array_release(x[r]);
  }
}
END_TEST

/* An allreduce on each device's default (legacy) stream, delayed on GPU 0, then nd_add on a
 * non-blocking stream of GPU 1: the add must see the reduced values without any event from
 * the caller, 100 times out of 100. With automatic ordering off the same program reads stale
 * data (a diagnostic printed, not asserted: a race need not show). */
static int ordering_trials(int trials) {
  const int64_t n[1] = {1 << 20};
  nd_array *x[NR], *y[NR], *one;
  for (int r = 0; r < NR; r++) {
    x[r] = make(r, 1, n, ND_FLOAT32, r);
    y[r] = empty(r, 1, n, ND_FLOAT32);
  }
  dev(1);
  ND_ASSERT_OK(nd_ones(0, NULL, ND_FLOAT32, &one));
  nd_stream *s1;
  ND_ASSERT_OK(nd_stream_create(ND_STREAM_NON_BLOCKING, 0, &s1));
  double want0 = val(0, 12345) + val(1, 12345) + 1;
  int wrong = 0;
  for (int k = 0; k < trials; k++) {
    dev(1);
    ND_ASSERT_OK(nd_array_fill(y[1], nd_scalar_float(-1.0)));
    dev(0);
    ck_assert_int_eq(nd_test_spin(nd_stream_cuda(nd_stream_current()), 300.0), 0);
    ND_ASSERT_OK(nd_comm_group_start());
    for (int r = 0; r < NR; r++) {
      dev(r);
      ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], y[r], ND_COMM_SUM));
    }
    ND_ASSERT_OK(nd_comm_group_end());
    dev(1);
    ND_ASSERT_OK(nd_stream_push(s1));
    nd_array *z;
    ND_ASSERT_OK(nd_add(y[1], one, NULL, &z));
    float h[4];
    nd_array *zs;
    nd_slice sl[1] = {{12345, 12349, 1}};
    ND_ASSERT_OK(nd_array_slice(z, 1, sl, &zs));
    ND_ASSERT_OK(nd_array_to_host(zs, h, sizeof h));
    ND_ASSERT_OK(nd_stream_pop());
    if (h[0] != want0) wrong++;
    nd_array_release(zs);
    nd_array_release(z);
  }
  for (int r = 0; r < NR; r++) {
    dev(r);
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
  }
  dev(1);
  ND_ASSERT_OK(nd_stream_destroy(s1));
  nd_array_release(one);
  for (int r = 0; r < NR; r++) {
    nd_array_release(x[r]);
    nd_array_release(y[r]);
  }
  return wrong;
}

/* Declared in streams/stream_internal.h; the suite links the static library. */
void nd__set_auto_events(int on);

START_TEST(test_ordering_other_stream) {
  int wrong = ordering_trials(100);
  printf("test_comm ordering: %d wrong of 100 with automatic ordering\n", wrong);
  ck_assert_int_eq(wrong, 0);
  nd__set_auto_events(0);
  int raw = ordering_trials(20);
  nd__set_auto_events(1);
  printf("test_comm ordering: %d wrong of 20 with ND_AUTO_EVENTS=0 (diagnostic)\n", raw);
}
END_TEST

START_TEST(test_bad_inputs) {
  const int64_t n[1] = {16}, m[1] = {17};
  nd_array *a0 = empty(0, 1, n, ND_FLOAT32), *a1 = empty(1, 1, n, ND_FLOAT32);
  nd_array *b1 = empty(1, 1, m, ND_FLOAT32), *c1 = empty(1, 1, n, ND_FLOAT64);
  /* Communicator of device 1 while device 0 is current. */
  dev(0);
  ND_ASSERT_FAILS(nd_comm_allreduce(comms[1], a1, a1, ND_COMM_SUM), ND_ERR_DEVICE_MISMATCH,
                  "belongs to device 1 but the calling thread's current device is 0");
  /* An array of device 0 for rank 1. */
  dev(1);
  ND_ASSERT_FAILS(nd_comm_allreduce(comms[1], a0, a1, ND_COMM_SUM), ND_ERR_DEVICE_MISMATCH,
                  "'send' lives on device 0 but the communicator of rank 1 on device 1");
  ND_ASSERT_FAILS(nd_comm_send(comms[1], a0, 0), ND_ERR_DEVICE_MISMATCH, "device 0");
  ND_ASSERT_FAILS(nd_comm_allreduce(comms[1], a1, b1, ND_COMM_SUM), ND_ERR_SHAPE, "(16,)");
  ND_ASSERT_FAILS(nd_comm_allreduce(comms[1], a1, c1, ND_COMM_SUM), ND_ERR_DTYPE, "float64");
  ND_ASSERT_FAILS(nd_comm_allreduce(comms[1], a1, a1, (nd_comm_op)7), ND_ERR_VALUE, "op 7");
  ND_ASSERT_FAILS(nd_comm_reduce(comms[1], a1, a1, ND_COMM_SUM, 2), ND_ERR_VALUE,
                  "root 2 is out of range for a communicator of 2 ranks");
  ND_ASSERT_FAILS(nd_comm_reduce(comms[1], a1, NULL, ND_COMM_SUM, 1), ND_ERR_NULL_POINTER, "recv");
  ND_ASSERT_FAILS(nd_comm_broadcast(comms[1], a1, -1), ND_ERR_VALUE, "root -1");
  ND_ASSERT_FAILS(nd_comm_send(comms[1], a1, 5), ND_ERR_VALUE, "peer 5");
  ND_ASSERT_FAILS(nd_comm_allgather(comms[1], a1, a1), ND_ERR_SHAPE, "2 times");
  ND_ASSERT_FAILS(nd_comm_reduce_scatter(comms[1], a1, a1, ND_COMM_SUM), ND_ERR_SHAPE, "2 times");
  ND_ASSERT_FAILS(nd_comm_alltoall(comms[1], b1, b1), ND_ERR_SHAPE, "multiple of the 2 ranks");
  nd_array *ro;
  const int64_t big[2] = {3, 16};
  ND_ASSERT_OK(nd_array_broadcast_to(a1, 2, big, &ro));
  nd_array *src = empty(1, 2, big, ND_FLOAT32);
  dev(1);
  ND_ASSERT_FAILS(nd_comm_allreduce(comms[1], src, ro, ND_COMM_SUM), ND_ERR_READ_ONLY, "'recv' is read-only");
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_STREAM, "no group was started");

  /* Mismatches inside one group of both ranks: refused, nothing enqueued, no hang. */
  nd_array *a1b = empty(1, 1, m, ND_FLOAT32);
  ND_ASSERT_OK(nd_comm_group_start());
  dev(0);
  ND_ASSERT_OK(nd_comm_allreduce(comms[0], a0, a0, ND_COMM_SUM));
  dev(1);
  ND_ASSERT_OK(nd_comm_allreduce(comms[1], a1b, a1b, ND_COMM_SUM));
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_VALUE, "of 16 float32 sum");
  ck_assert(strstr(nd_last_error(), "of 17 float32 sum") != NULL);

  ND_ASSERT_OK(nd_comm_group_start());
  dev(0);
  ND_ASSERT_OK(nd_comm_allreduce(comms[0], a0, a0, ND_COMM_SUM));
  dev(1);
  ND_ASSERT_OK(nd_comm_allreduce(comms[1], a1, a1, ND_COMM_MAX));
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_VALUE, "ranks disagree");

  ND_ASSERT_OK(nd_comm_group_start());
  dev(0);
  ND_ASSERT_OK(nd_comm_broadcast(comms[0], a0, 0));
  dev(1);
  ND_ASSERT_OK(nd_comm_broadcast(comms[1], a1, 1));
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_VALUE, "from root 0 but of rank 1 from root 1");

  ND_ASSERT_OK(nd_comm_group_start());
  dev(0);
  ND_ASSERT_OK(nd_comm_send(comms[0], a0, 1));
  dev(1);
  ND_ASSERT_OK(nd_comm_send(comms[1], a1, 0));
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_VALUE, "no matching nd_comm_recv");

  ND_ASSERT_OK(nd_comm_group_start());
  dev(0);
  ND_ASSERT_OK(nd_comm_send(comms[0], a0, 1));
  dev(1);
  ND_ASSERT_OK(nd_comm_recv(comms[1], a1b, 0));
  ND_ASSERT_FAILS(nd_comm_group_end(), ND_ERR_VALUE, "sizes or dtypes differ");

  /* A communicator with calls pending in a group cannot be destroyed. */
  ND_ASSERT_OK(nd_comm_group_start());
  dev(0);
  ND_ASSERT_OK(nd_comm_allreduce(comms[0], a0, a0, ND_COMM_SUM));
  ND_ASSERT_FAILS(nd_comm_destroy(comms[0]), ND_ERR_INVALID_ARGUMENT, "open group");
  dev(1);
  ND_ASSERT_OK(nd_comm_allreduce(comms[1], a1, a1, ND_COMM_SUM));
  ND_ASSERT_OK(nd_comm_group_end());

  /* After the refusals the communicators still work. */
  nd_array *x[NR], *y[NR];
  for (int r = 0; r < NR; r++) {
    x[r] = make(r, 1, n, ND_INT32, r);
    y[r] = empty(r, 1, n, ND_INT32);
  }
  ND_ASSERT_OK(nd_comm_group_start());
  for (int r = 0; r < NR; r++) {
    dev(r);
    ND_ASSERT_OK(nd_comm_allreduce(comms[r], x[r], y[r], ND_COMM_SUM));
  }
  ND_ASSERT_OK(nd_comm_group_end());
  for (int r = 0; r < NR; r++) {
    double *h = fetch(y[r]);
    for (int i = 0; i < 16; i++) ck_assert(h[i] == val(0, i) + val(1, i));
    free(h);
    nd_array_release(x[r]);
    nd_array_release(y[r]);
  }
  nd_array_release(src);
  nd_array_release(ro);
  nd_array_release(a0);
  nd_array_release(a1);
  nd_array_release(a1b);
  nd_array_release(b1);
  nd_array_release(c1);
}
END_TEST

/* The ungrouped form from one thread per GPU. */
typedef struct {
  int rank;
  int ok;
} thread_arg;

#include <pthread.h>
static void *rank_thread(void *p) {
  thread_arg *t = p;
  t->ok = 0;
  if (cudaSetDevice(t->rank) != cudaSuccess) return NULL;
  const int64_t n[1] = {4096};
  double h[4096];
  for (int i = 0; i < 4096; i++) h[i] = val(t->rank, i);
  nd_array *x, *y;
  if (nd_array_from_host(h, sizeof h, 1, n, ND_FLOAT64, &x) != ND_OK) return NULL;
  if (nd_zeros(1, n, ND_FLOAT64, &y) != ND_OK) return NULL;
  int good = 1;
  for (int k = 0; k < 20 && good; k++) {
    good = nd_comm_allreduce(comms[t->rank], x, y, ND_COMM_SUM) == ND_OK;
    if (good) good = nd_comm_allreduce(comms[t->rank], y, y, ND_COMM_AVG) == ND_OK;
  }
  if (good && nd_array_to_host(y, h, sizeof h) == ND_OK) {
    t->ok = 1;
    for (int i = 0; i < 4096; i++)
      if (h[i] != val(0, i) + val(1, i)) t->ok = 0;
  }
  nd_array_release(x);
  nd_array_release(y);
  return NULL;
}

START_TEST(test_thread_per_gpu) {
  pthread_t th[NR];
  thread_arg args[NR];
  for (int r = 0; r < NR; r++) {
    args[r].rank = r;
    ck_assert_int_eq(pthread_create(&th[r], NULL, rank_thread, &args[r]), 0);
  }
  for (int r = 0; r < NR; r++) {
    pthread_join(th[r], NULL);
    ck_assert_msg(args[r].ok, "rank %d thread: wrong result or failure", r);
  }
}
END_TEST

START_TEST(test_queries) {
  for (int r = 0; r < NR; r++) {
    int v;
    ND_ASSERT_OK(nd_comm_rank(comms[r], &v));
    ck_assert_int_eq(v, r);
    ND_ASSERT_OK(nd_comm_size(comms[r], &v));
    ck_assert_int_eq(v, NR);
    ND_ASSERT_OK(nd_comm_device(comms[r], &v));
    ck_assert_int_eq(v, r);
  }
  int ver = 0;
  ND_ASSERT_OK(nd_comm_nccl_version(&ver));
  ck_assert_int_gt(ver, 20000);
  int devs[2] = {0, 0};
  nd_comm *c[2];
  ND_ASSERT_FAILS(nd_comm_init_all(2, devs, c), ND_ERR_VALUE, "both device 0");
  devs[1] = 99;
  ND_ASSERT_FAILS(nd_comm_init_all(2, devs, c), ND_ERR_VALUE, "devices[1] is 99");
}
END_TEST

/* One test case per test, named after it, so that CK_RUN_CASE=<name> runs one alone (a
 * process each: a hang in one cannot hide the others' results; bench/run_comm.sh does so). */

static Suite *comm_suite(void) {
  Suite *s = suite_create("comm");
#define ND_CASE(name)                      \
  do {                                     \
    TCase *tc = tcase_create(#name);       \
    tcase_set_timeout(tc, 240);            \
    tcase_add_test(tc, name);              \
    suite_add_tcase(s, tc);                \
  } while (0)
  ND_CASE(test_queries);
  ND_CASE(test_allreduce_dtypes_ops);
  ND_CASE(test_allreduce_complex_bool);
  ND_CASE(test_refused_dtypes);
  ND_CASE(test_inplace_and_reduce);
  ND_CASE(test_broadcast_all_dtypes);
  ND_CASE(test_allgather_reduce_scatter_alltoall);
  ND_CASE(test_send_recv_exchange);
  ND_CASE(test_awkward_layouts);
  ND_CASE(test_zero_size_and_0d);
  ND_CASE(test_bad_inputs);
  ND_CASE(test_ordering_other_stream);
  ND_CASE(test_thread_per_gpu);
#undef ND_CASE
  return s;
}

int main(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n < NR) {
    fprintf(stderr, "SKIPPED: test_comm needs %d GPUs (found %d)\n", NR, n);
    return ND_TEST_SKIP;
  }
  if (!nd_comm_available()) {
    fprintf(stderr, "SKIPPED: this ndcuda was built without NCCL\n");
    return ND_TEST_SKIP;
  }
  nd_status st = nd_comm_init_all(NR, NULL, comms);
  if (st != ND_OK) {
    fprintf(stderr, "test_comm: nd_comm_init_all failed: %s: %s\n", nd_status_name(st), nd_last_error());
    return 1;
  }
  int rc = nd_test_main_gpu(comm_suite());
  for (int r = 0; r < NR; r++) nd_comm_destroy(comms[r]);
  return rc;
}
