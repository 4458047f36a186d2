# Explicit source lists, one block per folder (DESIGN.md "Layers and folders").
set(NDCUDA_SOURCES
  # host core
  src/status.c
  src/vendor_status.c
  src/version.c
  src/env.c
  src/dtype.c
  src/shape.c
  src/convert.c
  src/alloc.c
  src/array.c
  src/views.c
  src/copy.c
  src/creation.c
  src/transfer.c
  # streams and the ordering model
  streams/order.c
  streams/hazard.c
  streams/stream.c
  streams/event.c
  # device code
  kernels/launch.cu
  kernels/copy.cu
)
# random: generators and distributions
list(APPEND NDCUDA_SOURCES
  random/generator.c random/params.c random/distributions.c random/choice.c
  random/fill.cu random/elem.cu random/perm.cu random/state.cu)
# linalg: products, inverse and solve, decompositions, norms
list(APPEND NDCUDA_SOURCES
  linalg/plan.c linalg/handles.c linalg/util.c linalg/matmul.c linalg/products.c linalg/inv.c
  linalg/decomp.c linalg/norm.c
  linalg/small_gj.cu linalg/tiny_gj.cu linalg/medium_gj.cu linalg/warp_gj.cu linalg/row_gj.cu linalg/aux.cu
  linalg/rbt.cu)
# elementwise: ufuncs, type resolution, the one elementwise kernel mechanism per op family
list(APPEND NDCUDA_SOURCES
  src/ufunc.c src/ufunc_run.c src/ufunc_ops.c
  kernels/elementwise.cu kernels/elementwise_arith.cu kernels/elementwise_math.cu
  kernels/elementwise_cmath.cu kernels/elementwise_compare.cu kernels/elementwise_misc.cu)
# reductions, scans, sorting and searching
list(APPEND NDCUDA_SOURCES
  src/reduce_plan.c src/reduce.c src/reduce_stats.c src/scan.c src/sort.c src/search.c
  kernels/reduce_sum.cu kernels/reduce_minmax.cu kernels/reduce_stats.cu kernels/scan.cu
  kernels/sort_keys.cu kernels/sort_pairs.cu kernels/sort_util.cu kernels/sort_search.cu)
# indexing: take, put, boolean masks and the advanced-indexing gather/scatter
list(APPEND NDCUDA_SOURCES src/indexing.c src/mask.c kernels/indexing.cu
  src/dlpack.c)
