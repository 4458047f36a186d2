/* Benchmark cases of reductions, scans, sorting and searching (issue 6). */
#include "bench.h"

const bench_case bench_reduce_cases[] = {
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
