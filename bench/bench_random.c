/* Benchmark cases of random numbers (issue 8). */
#include "bench.h"

const bench_case bench_random_cases[] = {
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
