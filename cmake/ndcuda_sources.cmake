# Explicit source lists, one block per folder (DESIGN.md "Layers and folders").
set(NDCUDA_SOURCES
  # host core
  src/status.c
  src/vendor_status.c
  src/version.c
  src/config.c
  src/device.c
  src/dtype.c
  src/shape.c
  src/convert.c
  src/alloc.c
  src/array.c
  src/views.c
  src/copy.c
  src/creation.c
  src/transfer.c
  src/peer.c
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
  linalg/gj_group.cu linalg/gj_thread.cu linalg/gj_panels.cu linalg/gj_warp.cu linalg/gj_tensor.cu linalg/aux.cu
  linalg/rbt.cu)
# the randomised inverse of large matrices
list(APPEND NDCUDA_SOURCES linalg/inv_large.c linalg/inv_large.cu)
# elementwise: ufuncs, type resolution, the one elementwise kernel mechanism per op family
list(APPEND NDCUDA_SOURCES
  elementwise/ufunc.c elementwise/ufunc_run.c elementwise/ufunc_ops.c
  elementwise/elementwise.cu elementwise/elementwise_arith.cu elementwise/elementwise_math.cu
  elementwise/elementwise_cmath.cu elementwise/elementwise_compare.cu elementwise/elementwise_misc.cu)
# reductions and scans
list(APPEND NDCUDA_SOURCES
  reduce/reduce_plan.c reduce/reduce.c reduce/reduce_stats.c reduce/scan.c
  reduce/reduce_sum.cu reduce/reduce_minmax.cu reduce/reduce_stats.cu reduce/scan.cu)
# sorting and searching
list(APPEND NDCUDA_SOURCES
  sort/sort.c sort/search.c
  sort/sort_keys.cu sort/sort_pairs.cu sort/sort_block.cu sort/sort_grid.cu sort/sort_short.cu sort/sort_util.cu sort/sort_search.cu
  sort/sort_complex.cu)
# jit: run-time compiled user kernels (NVRTC) and the kernel cache
list(APPEND NDCUDA_SOURCES
  jit/sha256.c jit/cache.c jit/cache_disk.c jit/helper.c jit/compile.c jit/module.c jit/gen.c jit/elementwise.c jit/reduction.c)
# NVRTC gets the toolkit's include directory (cooperative_groups.h, CCCL) without any search
# at run time; CUDA_PATH or CUDA_HOME override it there.
list(GET CUDAToolkit_INCLUDE_DIRS 0 _nd_cuda_include)
set_source_files_properties(jit/compile.c PROPERTIES
  COMPILE_DEFINITIONS "ND_CUDA_INCLUDE_DIR=\"${_nd_cuda_include}\"")
# indexing: take, put, boolean masks and the advanced-indexing gather/scatter; DLPack exchange
list(APPEND NDCUDA_SOURCES indexing/indexing.c indexing/mask.c indexing/indexing.cu src/dlpack.c)
