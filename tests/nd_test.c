/* Shared runner and GPU fixture for the Check suites (see nd_test.h). */
#define _POSIX_C_SOURCE 200809L
#include "tests/nd_test.h"

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime_api.h>

int nd_test_have_gpu(void) {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return 0;
  }
  return n > 0;
}

int nd_test_main(Suite *suite) {
  SRunner *sr = srunner_create(suite);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed == 0 ? 0 : 1;
}

int nd_test_main_gpu(Suite *suite) {
  if (!nd_test_have_gpu()) {
    fprintf(stderr, "SKIPPED: no CUDA device available, this GPU suite did not run\n");
    srunner_free(srunner_create(suite)); /* frees the suite */
    return ND_TEST_SKIP;
  }
  setenv("CK_FORK", "no", 1);
  setenv("CK_DEFAULT_TIMEOUT", "120", 0);
  return nd_test_main(suite);
}
