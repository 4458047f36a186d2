# Explicit source lists, one block per folder (DESIGN.md "Layers and folders").
set(NDCUDA_SOURCES
  src/status.c
  src/vendor_status.c
  src/version.c
  src/env.c
  src/dtype.c
  src/shape.c
)
