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
