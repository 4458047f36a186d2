/* The new process of jit.disk_hit_new_process (bench_jit.c): brings up the CUDA context,
 * then times nd_module_create of the source given as argv[1] (which the parent compiled into
 * ND_CACHE_DIR) and prints the microseconds. Exits 1 if the module was compiled here rather
 * than loaded from the disk cache, or on any error. */
#define _GNU_SOURCE
#include <stdio.h>
#include <time.h>

#include <cuda_runtime.h>

#include "ndcuda.h"

int main(int argc, char **argv) {
  if (argc != 2) return 2;
  if (cudaFree(0) != cudaSuccess) return 3;
  struct timespec t0, t1;
  nd_module *m = NULL;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  nd_status st = nd_module_create(argv[1], NULL, &m);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (st != ND_OK) {
    printf("error %s", nd_last_error());
    return 1;
  }
  nd_jit_cache_stats s;
  nd_jit_cache_get_stats(&s);
  if (s.compiles != 0 || s.disk_hits != 1 || nd_module_compiled_here(m)) {
    printf("not a disk hit: %llu compiles, %llu disk hits", (unsigned long long)s.compiles,
           (unsigned long long)s.disk_hits);
    return 1;
  }
  printf("%.3f\n", (double)(t1.tv_sec - t0.tv_sec) * 1e6 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e3);
  nd_module_release(m);
  return 0;
}
