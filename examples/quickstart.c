/* quickstart: create arrays on the GPU, compute, copy back, print.
 *
 * Build and run from the repository root with `bash tools/quickstart`.
 * Exit status: 0 right, 1 an error or a wrong value, 77 no GPU. */
#include <stdio.h>

#include <ndcuda.h>

#define CHECK(call)                                                                   \
  do {                                                                                \
    nd_status st_ = (call);                                                           \
    if (st_ != ND_OK) {                                                               \
      fprintf(stderr, "%s failed: %s\n  %s\n", #call, nd_status_name(st_), nd_last_error()); \
      return st_ == ND_ERR_NO_DEVICE ? 77 : 1;                                        \
    }                                                                                 \
  } while (0)

int main(void) {
  printf("ndcuda %s\n", nd_version_string());

  /* a = arange(12) as float32, viewed as 3x4; b = its transpose made contiguous. */
  nd_array *a_flat = NULL, *a = NULL, *t = NULL, *b = NULL, *col = NULL;
  CHECK(nd_arange(0, 12, 1, ND_FLOAT32, &a_flat));
  int64_t shape[2] = {3, 4};
  CHECK(nd_array_reshape(a_flat, 2, shape, &a));
  CHECK(nd_array_transpose(a, 0, NULL, &t));
  CHECK(nd_array_copy(t, ND_ORDER_C, &b)); /* 4x3, a real copy on the GPU */

  /* Every second column of a, reversed: a[:, ::-2] */
  nd_slice sl[2] = {ND_SLICE_ALL, {ND_NONE, ND_NONE, -2}};
  CHECK(nd_array_slice(a, 2, sl, &col));

  float hb[12], hc[6];
  CHECK(nd_array_to_host(b, hb, sizeof hb));
  CHECK(nd_array_to_host(col, hc, sizeof hc));

  printf("a.T =\n");
  for (int i = 0; i < 4; i++) printf("  [%4.0f %4.0f %4.0f]\n", hb[3 * i], hb[3 * i + 1], hb[3 * i + 2]);
  printf("a[:, ::-2] =\n");
  for (int i = 0; i < 3; i++) printf("  [%4.0f %4.0f]\n", hc[2 * i], hc[2 * i + 1]);

  /* Check against what NumPy gives: a.T[i][j] = a[j][i] = 4j + i, a[:, ::-2][i] = {4i+3, 4i+1}. */
  int wrong = 0;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 3; j++) wrong += hb[3 * i + j] != (float)(4 * j + i);
  for (int i = 0; i < 3; i++) wrong += hc[2 * i] != (float)(4 * i + 3) || hc[2 * i + 1] != (float)(4 * i + 1);
  printf("quickstart: %s\n", wrong ? "WRONG values" : "ok");

  nd_array_release(col);
  nd_array_release(b);
  nd_array_release(t);
  nd_array_release(a);
  nd_array_release(a_flat);
  return wrong ? 1 : 0;
}
