/* Loaded modules and kernels (the objects behind nd_module and nd_kernel), shared by raw
 * modules and the generated kernels. */
#ifndef ND_JIT_MODULE_H
#define ND_JIT_MODULE_H

#include <stdatomic.h>

#include "jit/compile.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ND__KARGS_MAX 64

struct nd_module {
  atomic_long refs;
  void *lib;          /* CUlibrary */
  char *name;
  int cooperative;
  int compiled_here;
  int nnames;
  char **names, **lowered;
  char *log;
};

struct nd_kernel {
  atomic_long refs;
  nd_module *module;  /* one reference */
  void *kernel;       /* CUkernel */
  char *name;
  int nparams;        /* -1 when the driver cannot tell */
  size_t param_size[ND__KARGS_MAX];
  atomic_int smem_optin[64]; /* per device: the dynamic shared memory the kernel is opted in to */
  atomic_long limits[64];    /* per device: max threads << 32 | static shared bytes; 0 unread */
};

/* Compiles (through the process cache) and loads source: the body of nd_module_create, for
 * the generated kernels too. fn names the public function, what the module. */
nd_status nd__jit_module_get(const char *fn, const char *what, const char *source,
                             const nd_module_options *opts, nd_module **out);

/* Launches with the argument values already marshalled (argv[i] points at parameter i's
 * bytes) after the checks and the hazard waits; used by nd_kernel_launch and the generated
 * kernels. arrays/modes (n of them) are the tracked arrays. */
nd_status nd__jit_launch(const char *fn, nd_kernel *k, nd_launch_config cfg, void **argv,
                         int narrays, nd_array *const *arrays, const int *modes);

/* Multiprocessors of the current device (cached per device). */
nd_status nd__jit_sm_count(const char *fn, int *out);

/* The generated source of an elementwise definition for one binding and path (tests).
 * malloc'd. */
char *nd__ew_source_for(const nd_elementwise_kernel *k, const nd_dtype *ptype, const nd_dtype *atype,
                        const int *scalar, int wide, int strided);

#ifdef __cplusplus
}
#endif

#endif /* ND_JIT_MODULE_H */
