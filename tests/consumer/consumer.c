/* A program outside the ndcuda tree, built against the installed library. It uses only
 * host-side functions so that it runs on machines without a GPU. */
#include <stdio.h>
#include <string.h>

#include <ndcuda.h>

int main(void) {
  if (nd_version() != ND_VERSION_HEX) {
    fprintf(stderr, "header %x and library %x differ\n", ND_VERSION_HEX, nd_version());
    return 1;
  }
  nd_dtype in[2] = {ND_UINT8, ND_PYINT}, out;
  if (nd_result_type(2, in, &out) != ND_OK || out != ND_UINT8) return 1;
  int64_t a[2] = {3, 4}, b[1] = {4}, r[ND_MAXDIMS];
  const int64_t *shapes[2] = {a, b};
  int ndims[2] = {2, 1}, rnd = 0;
  if (nd_broadcast_shapes(2, ndims, shapes, &rnd, r) != ND_OK || rnd != 2 || r[0] != 3 || r[1] != 4) return 1;
  int64_t c[1] = {5};
  shapes[1] = c;
  if (nd_broadcast_shapes(2, ndims, shapes, &rnd, r) != ND_ERR_SHAPE) return 1;
  printf("consumer: ndcuda %s ok (%s)\n", nd_version_string(), strstr(nd_last_error(), "mismatch") ? "errors ok" : "?");
  return 0;
}
