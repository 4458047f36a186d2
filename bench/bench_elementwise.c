/* Benchmark cases of elementwise math (issue 5). */
#include "bench.h"

const bench_case bench_elementwise_cases[] = {
    {NULL, NULL, NULL, NULL, NULL, NULL},
};
