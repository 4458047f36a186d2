/* Raw modules: NVRTC through the kernel cache, the one post-load step, kernels by name,
 * attributes, and the launch with hazard tracking.
 *
 * The driver is reached through entry points (nd__driver_entry, src/device.h), as kernels/launch.cu does,
 * so the library links no libcuda. Modules are loaded with the context-independent library
 * API (cuLibraryLoadData): one load serves every context and device of the architecture. */
#include "jit/module.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "src/api_scope.h"
#include "src/array.h"
#include "src/device.h"
#include "streams/hazard.h"

/* ---- driver entry points ---------------------------------------------------------------- */

static struct {
  CUresult (*library_load_data)(CUlibrary *, const void *, CUjit_option *, void **, unsigned,
                                CUlibraryOption *, void **, unsigned);
  CUresult (*library_unload)(CUlibrary);
  CUresult (*library_get_kernel)(CUkernel *, CUlibrary, const char *);
  CUresult (*library_get_module)(CUmodule *, CUlibrary);
  CUresult (*kernel_get_function)(CUfunction *, CUkernel);
  CUresult (*kernel_get_attribute)(int *, CUfunction_attribute, CUkernel, CUdevice);
  CUresult (*kernel_set_attribute)(CUfunction_attribute, int, CUkernel, CUdevice);
  CUresult (*kernel_get_param_info)(CUkernel, size_t, size_t *, size_t *);
  CUresult (*occupancy)(int *, CUfunction, int, size_t);
  CUresult (*launch_ex)(const CUlaunchConfig *, CUfunction, void **, void **);
  CUresult (*device_get)(CUdevice *, int);
  CUresult (*device_attribute)(int *, CUdevice_attribute, CUdevice);
  CUresult (*ctx_current)(CUcontext *);
  CUresult (*error_name)(CUresult, const char **);
} nd__cu;
static pthread_once_t nd__cu_once = PTHREAD_ONCE_INIT;

static void nd__cu_find(void) {
#define ND__ENTRY(field, name, ver) *(void **)&nd__cu.field = nd__driver_entry(name, ver)
  ND__ENTRY(library_load_data, "cuLibraryLoadData", 12000);
  ND__ENTRY(library_unload, "cuLibraryUnload", 12000);
  ND__ENTRY(library_get_kernel, "cuLibraryGetKernel", 12000);
  ND__ENTRY(library_get_module, "cuLibraryGetModule", 12000);
  ND__ENTRY(kernel_get_function, "cuKernelGetFunction", 12000);
  ND__ENTRY(kernel_get_attribute, "cuKernelGetAttribute", 12000);
  ND__ENTRY(kernel_set_attribute, "cuKernelSetAttribute", 12000);
  ND__ENTRY(kernel_get_param_info, "cuKernelGetParamInfo", 12040);
  ND__ENTRY(occupancy, "cuOccupancyMaxActiveBlocksPerMultiprocessor", 12000);
  ND__ENTRY(launch_ex, "cuLaunchKernelEx", 12000);
  ND__ENTRY(device_get, "cuDeviceGet", 12000);
  ND__ENTRY(device_attribute, "cuDeviceGetAttribute", 12000);
  ND__ENTRY(ctx_current, "cuCtxGetCurrent", 12000);
  ND__ENTRY(error_name, "cuGetErrorName", 12000);
#undef ND__ENTRY
}

static nd_status nd__cu_ready(const char *fn) {
  pthread_once(&nd__cu_once, nd__cu_find);
  if (!nd__cu.library_load_data || !nd__cu.library_get_kernel || !nd__cu.launch_ex || !nd__cu.kernel_get_attribute ||
      !nd__cu.kernel_get_function || !nd__cu.occupancy || !nd__cu.device_get || !nd__cu.device_attribute ||
      !nd__cu.ctx_current || !nd__cu.library_unload || !nd__cu.kernel_set_attribute || !nd__cu.library_get_module)
    return nd__error(ND_ERR_CUDA, "%s: the CUDA driver lacks the library API (CUDA 12.0 or newer needed)", fn);
  return ND_OK;
}

static nd_status nd__cu_status(CUresult r, const char *call, const char *fn, const char *what) {
  const char *name = "CUDA_ERROR_UNKNOWN";
  if (nd__cu.error_name) nd__cu.error_name(r, &name);
  return nd__error(ND_ERR_CUDA, "%s: %s failed for '%s': %s (%d)", fn, call, what, name, (int)r);
}
#define ND__CU(call, fn, what) ((nd__cu_r = (call)) == CUDA_SUCCESS ? ND_OK : nd__cu_status(nd__cu_r, #call, fn, what))

/* The current device and its driver handle, with its primary context current on this thread
 * (the runtime makes it so; a thread that never called the runtime gets it here). */
static nd_status nd__cu_device(const char *fn, int *dev, CUdevice *cudev) {
  /* the device first: without one the answer is ND_ERR_NO_DEVICE, whatever the driver lacks */
  ND_TRY(nd__device_current(fn, dev));
  ND_TRY(nd__cu_ready(fn));
  CUcontext ctx = NULL;
  if (nd__cu.ctx_current(&ctx) != CUDA_SUCCESS || ctx == NULL) {
    ND_TRY(ND_CUDA(cudaSetDevice(*dev)));
    ND_TRY(ND_CUDA(cudaFree(NULL)));
  }
  CUresult nd__cu_r;
  return ND__CU(nd__cu.device_get(cudev, *dev), fn, "device");
}

/* ---- modules ----------------------------------------------------------------------------- */

nd_module *nd_module_retain(nd_module *m) {
  if (m) atomic_fetch_add(&m->refs, 1);
  return m;
}

void nd_module_release(nd_module *m) {
  if (m == NULL || atomic_fetch_sub(&m->refs, 1) != 1) return;
  if (m->lib && nd__cu.library_unload) nd__cu.library_unload((CUlibrary)m->lib);
  for (int i = 0; i < m->nnames; i++) {
    free(m->names[i]);
    free(m->lowered[i]);
  }
  free(m->names);
  free(m->lowered);
  free(m->name);
  free(m->log);
  free(m);
}

const char *nd_module_log(const nd_module *m) { return m && m->log ? m->log : ""; }
int nd_module_compiled_here(const nd_module *m) { return m ? m->compiled_here : 0; }

static char *nd__dup(const char *s) {
  const size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

typedef struct nd__module_ctx {
  const nd__jit_source *src;
} nd__module_ctx;

static nd_status nd__module_compile(void *ctx, nd__jit_binary **out, char **log) {
  return nd__jit_nvrtc_compile(((nd__module_ctx *)ctx)->src, out, log);
}

/* The one post-load step (field report 1): a binary from a fresh compile and one from the
 * disk cache become a module here and only here, so everything a launch needs (the lowered
 * names, the cooperative flag) is restored the same way on both paths. */
static nd_status nd__module_load(void *ctx, const nd__jit_binary *bin, void **obj) {
  const nd__jit_source *s = ((nd__module_ctx *)ctx)->src;
  ND_TRY(nd__cu_ready(s->fn));
  nd_module *m = (nd_module *)calloc(1, sizeof *m);
  if (m == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory loading '%s'", s->fn, s->what);
  atomic_init(&m->refs, 1);
  m->cooperative = (bin->flags & ND__JIT_COOPERATIVE) != 0;
  m->compiled_here = bin->log != NULL;
  m->nnames = bin->nnames;
  m->name = nd__dup(s->what);
  m->log = nd__dup(bin->log ? bin->log : "");
  m->names = (char **)calloc((size_t)(bin->nnames + 1), sizeof(char *));
  m->lowered = (char **)calloc((size_t)(bin->nnames + 1), sizeof(char *));
  int ok = m->name && m->log && m->names && m->lowered;
  for (int i = 0; ok && i < bin->nnames; i++) {
    m->names[i] = nd__dup(bin->names[i]);
    m->lowered[i] = nd__dup(bin->lowered[i]);
    ok = m->names[i] && m->lowered[i];
  }
  if (!ok) {
    nd_module_release(m);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory loading '%s'", s->fn, s->what);
  }
  CUlibrary lib = NULL;
  CUresult nd__cu_r;
  nd_status st = ND__CU(nd__cu.library_load_data(&lib, bin->payload, NULL, NULL, 0, NULL, NULL, 0), s->fn, s->what);
  if (st != ND_OK) {
    nd_module_release(m);
    return st;
  }
  m->lib = lib;
  /* Load it into the current context now: with lazy loading (the default since CUDA 12.2) the
   * library call above defers parsing the image, so a damaged one would otherwise only fail
   * at the first launch, after the cache has handed it out as good. */
  CUmodule mod = NULL;
  st = ND__CU(nd__cu.library_get_module(&mod, lib), s->fn, s->what);
  if (st != ND_OK) {
    nd_module_release(m);
    return st;
  }
  *obj = m;
  return ND_OK;
}

static void *nd__module_retain_obj(void *o) { return nd_module_retain((nd_module *)o); }
static void nd__module_release_obj(void *o) { nd_module_release((nd_module *)o); }

static const nd__jit_ops nd__module_ops = {nd__module_compile, nd__module_load, nd__module_retain_obj,
                                           nd__module_release_obj};

nd_status nd__jit_module_get(const char *fn, const char *what, const char *source,
                             const nd_module_options *opts, nd_module **out) {
  int dev = 0;
  CUdevice cudev;
  ND_TRY(nd__cu_device(fn, &dev, &cudev));
  /* the device module caches the capability per device */
  const nd__device_props *props = nd__device_props_of(dev);
  if (props == NULL)
    return nd__error(ND_ERR_CUDA, "%s: the compute capability of device %d cannot be read", fn, dev);
  const int arch = props->cc_major * 10 + props->cc_minor;
  nd__jit_source s = {fn, what, source, opts, arch};
  nd__jit_key key;
  nd__jit_key_init(&key);
  nd_status st = nd__jit_material(&s, &key);
  if (st == ND_OK) {
    nd__jit_cache *c = nd__jit_cache_global();
    if (c == NULL) {
      st = nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no kernel cache", fn);
    } else {
      nd__jit_request req = {key.data, key.len, (uint32_t)s.arch, what};
      nd__module_ctx ctx = {&s};
      void *obj = NULL;
      char *log = NULL;
      st = nd__jit_cache_get(c, &req, &nd__module_ops, &ctx, &obj, NULL, &log);
      if (st == ND_OK)
        *out = (nd_module *)obj;
      else if (log)
        nd__jit_set_last_log(log);
      free(log);
    }
  }
  nd__jit_key_free(&key);
  return st;
}

nd_status nd_module_create(const char *source, const nd_module_options *opts, nd_module **out) {
  const char *fn = "nd_module_create";
  ND_CHECK_NULL(fn, source);
  ND_CHECK_NULL(fn, out);
  nd_module_options o;
  ND_TRY(nd__jit_check_options(fn, opts, &o));
  return nd__jit_module_get(fn, o.name ? o.name : "module", source, &o, out);
}

/* ---- kernels ----------------------------------------------------------------------------- */

nd_kernel *nd_kernel_retain(nd_kernel *k) {
  if (k) atomic_fetch_add(&k->refs, 1);
  return k;
}

void nd_kernel_release(nd_kernel *k) {
  if (k == NULL || atomic_fetch_sub(&k->refs, 1) != 1) return;
  nd_module_release(k->module);
  free(k->name);
  free(k);
}

const char *nd_kernel_name(const nd_kernel *k) { return k && k->name ? k->name : ""; }

nd_status nd_module_get_kernel(nd_module *m, const char *name, nd_kernel **out) {
  const char *fn = "nd_module_get_kernel";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, m);
  ND_CHECK_NULL(fn, name);
  ND_CHECK_NULL(fn, out);
  ND_TRY(nd__cu_ready(fn));
  const char *sym = name;
  for (int i = 0; i < m->nnames; i++)
    if (strcmp(m->names[i], name) == 0) sym = m->lowered[i];
  CUkernel ck = NULL;
  CUresult r = nd__cu.library_get_kernel(&ck, (CUlibrary)m->lib, sym);
  if (r == CUDA_ERROR_NOT_FOUND || r == CUDA_ERROR_INVALID_VALUE)
    return nd__error(ND_ERR_VALUE, "%s: module '%s' has no kernel '%s' (a kernel fetched by its plain "
                     "name must be extern \"C\"; templates need a name expression)", fn, m->name, name);
  if (r != CUDA_SUCCESS) return nd__cu_status(r, "cuLibraryGetKernel", fn, name);
  nd_kernel *k = (nd_kernel *)calloc(1, sizeof *k);
  if (k == NULL || (k->name = nd__dup(name)) == NULL) {
    free(k);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  }
  atomic_init(&k->refs, 1);
  k->kernel = ck;
  k->module = nd_module_retain(m);
  /* The parameter list, where the driver can tell it (12.4 and newer): launches are then
   * checked argument by argument. */
  k->nparams = -1;
  if (nd__cu.kernel_get_param_info) {
    size_t i = 0, off, size;
    while (i < ND__KARGS_MAX && nd__cu.kernel_get_param_info(ck, i, &off, &size) == CUDA_SUCCESS)
      k->param_size[i++] = size;
    if (i > 0 || nd__cu.kernel_get_param_info(ck, 0, &off, &size) != CUDA_SUCCESS) k->nparams = (int)i;
  }
  *out = k;
  return ND_OK;
}

/* ---- attributes -------------------------------------------------------------------------- */

static nd_status nd__kattr(const char *fn, nd_kernel *k, CUdevice dev, CUfunction_attribute a, int *v) {
  CUresult nd__cu_r;
  return ND__CU(nd__cu.kernel_get_attribute(v, a, (CUkernel)k->kernel, dev), fn, k->name);
}

nd_status nd_kernel_get_attributes(nd_kernel *k, nd_kernel_attributes *out) {
  const char *fn = "nd_kernel_get_attributes";
  ND_CHECK_NULL(fn, k);
  ND_CHECK_NULL(fn, out);
  int dev;
  CUdevice cudev;
  ND_TRY(nd__cu_device(fn, &dev, &cudev));
  int regs = 0, ssm = 0, lmem = 0, maxt = 0, optin = 0;
  ND_TRY(nd__kattr(fn, k, cudev, CU_FUNC_ATTRIBUTE_NUM_REGS, &regs));
  ND_TRY(nd__kattr(fn, k, cudev, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &ssm));
  ND_TRY(nd__kattr(fn, k, cudev, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &lmem));
  ND_TRY(nd__kattr(fn, k, cudev, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &maxt));
  CUresult nd__cu_r;
  ND_TRY(ND__CU(nd__cu.device_attribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, cudev), fn, k->name));
  out->registers = regs;
  out->static_shared_bytes = (size_t)ssm;
  out->local_bytes = (size_t)lmem;
  out->max_threads_per_block = maxt;
  out->max_dynamic_shared_bytes = optin > ssm ? (size_t)(optin - ssm) : 0;
  out->cooperative = k->module->cooperative;
  return ND_OK;
}

static nd_status nd__kfunction(const char *fn, nd_kernel *k, CUfunction *f) {
  CUresult nd__cu_r;
  return ND__CU(nd__cu.kernel_get_function(f, (CUkernel)k->kernel), fn, k->name);
}

/* Opts k in to `bytes` of dynamic shared memory on the device when above the default 48 KiB
 * (once per device and size: the attribute is the kernel's, not the launch's). */
static nd_status nd__ksmem(const char *fn, nd_kernel *k, int dev, CUdevice cudev, size_t bytes) {
  if (bytes <= 48 * 1024) return ND_OK;
  if (dev >= 0 && dev < 64 && (size_t)atomic_load(&k->smem_optin[dev]) >= bytes) return ND_OK;
  CUresult nd__cu_r;
  ND_TRY(ND__CU(nd__cu.kernel_set_attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes,
                                            (CUkernel)k->kernel, cudev), fn, k->name));
  if (dev >= 0 && dev < 64) atomic_store(&k->smem_optin[dev], (int)bytes);
  return ND_OK;
}

nd_status nd_kernel_max_active_blocks(nd_kernel *k, int block_threads, size_t smem, int *out) {
  const char *fn = "nd_kernel_max_active_blocks";
  ND_CHECK_NULL(fn, k);
  ND_CHECK_NULL(fn, out);
  if (block_threads <= 0)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s': block_threads %d must be positive", fn, k->name, block_threads);
  int dev;
  CUdevice cudev;
  ND_TRY(nd__cu_device(fn, &dev, &cudev));
  ND_TRY(nd__ksmem(fn, k, dev, cudev, smem));
  CUfunction f;
  ND_TRY(nd__kfunction(fn, k, &f));
  int n = 0;
  CUresult nd__cu_r;
  ND_TRY(ND__CU(nd__cu.occupancy(&n, f, block_threads, smem), fn, k->name));
  *out = n;
  return ND_OK;
}

nd_status nd_kernel_max_cooperative_grid(nd_kernel *k, int block_threads, size_t smem, int64_t *out) {
  const char *fn = "nd_kernel_max_cooperative_grid";
  ND__API_SCOPE(fn);
  ND_CHECK_NULL(fn, k);
  ND_CHECK_NULL(fn, out);
  int per_sm = 0, sms = 0;
  ND_TRY(nd_kernel_max_active_blocks(k, block_threads, smem, &per_sm));
  ND_TRY(nd__jit_sm_count(fn, &sms));
  *out = (int64_t)per_sm * sms;
  return ND_OK;
}

/* ---- launch ------------------------------------------------------------------------------ */

/* The device limits a launch is checked against, read once per device (the first 64). */
typedef struct nd__devlim {
  int gmax[3], bmax[3], optin, sms;
} nd__devlim;
static nd__devlim nd__devlims[64];
static atomic_int nd__devlim_ready[64];

static nd_status nd__device_limits(const char *fn, nd_kernel *k, int dev, CUdevice cudev, nd__devlim *out) {
  if (dev >= 0 && dev < 64 && atomic_load_explicit(&nd__devlim_ready[dev], memory_order_acquire)) {
    *out = nd__devlims[dev];
    return ND_OK;
  }
  static const CUdevice_attribute ga[3] = {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
                                           CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  static const CUdevice_attribute ba[3] = {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
                                           CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  CUresult nd__cu_r;
  for (int d = 0; d < 3; d++) {
    ND_TRY(ND__CU(nd__cu.device_attribute(&out->gmax[d], ga[d], cudev), fn, k->name));
    ND_TRY(ND__CU(nd__cu.device_attribute(&out->bmax[d], ba[d], cudev), fn, k->name));
  }
  ND_TRY(ND__CU(nd__cu.device_attribute(&out->optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, cudev),
                fn, k->name));
  ND_TRY(ND__CU(nd__cu.device_attribute(&out->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cudev), fn, k->name));
  if (dev >= 0 && dev < 64) {
    nd__devlims[dev] = *out; /* every thread stores the same values */
    atomic_store_explicit(&nd__devlim_ready[dev], 1, memory_order_release);
  }
  return ND_OK;
}

/* The kernel's thread and static shared memory limits on a device, read once per device. */
static nd_status nd__kernel_limits(const char *fn, nd_kernel *k, int dev, CUdevice cudev, int *maxt, int *ssm) {
  if (dev >= 0 && dev < 64) {
    const long v = atomic_load_explicit(&k->limits[dev], memory_order_acquire);
    if (v) {
      *maxt = (int)(v >> 32);
      *ssm = (int)(v & 0x7fffffff);
      return ND_OK;
    }
  }
  ND_TRY(nd__kattr(fn, k, cudev, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, maxt));
  ND_TRY(nd__kattr(fn, k, cudev, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, ssm));
  if (dev >= 0 && dev < 64)
    atomic_store_explicit(&k->limits[dev], (long)*maxt << 32 | (long)*ssm, memory_order_release);
  return ND_OK;
}

nd_status nd__jit_sm_count(const char *fn, int *out) {
  int dev;
  CUdevice cudev;
  ND_TRY(nd__cu_device(fn, &dev, &cudev));
  if (dev >= 0 && dev < 64 && atomic_load_explicit(&nd__devlim_ready[dev], memory_order_acquire)) {
    *out = nd__devlims[dev].sms;
    return ND_OK;
  }
  CUresult nd__cu_r;
  return ND__CU(nd__cu.device_attribute(out, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, cudev), fn, "device");
}

nd_status nd__jit_launch(const char *fn, nd_kernel *k, nd_launch_config cfg, void **argv,
                         int narrays, nd_array *const *arrays, const int *modes) {
  int dev;
  CUdevice cudev;
  ND_TRY(nd__cu_device(fn, &dev, &cudev));
  for (int i = 0; i < narrays; i++)
    if (arrays[i]->buf->device != dev)
      return nd__error(ND_ERR_DEVICE_MISMATCH, "%s: kernel '%s': an array argument lives on device %d but "
                       "the current device is device %d", fn, k->name, arrays[i]->buf->device, dev);
  /* The configuration against the device's and the kernel's limits. */
  static const char axis[3] = {'x', 'y', 'z'};
  nd__devlim L;
  int maxt = 0, ssm = 0;
  ND_TRY(nd__device_limits(fn, k, dev, cudev, &L));
  ND_TRY(nd__kernel_limits(fn, k, dev, cudev, &maxt, &ssm));
  int64_t threads = 1, blocks = 1;
  for (int d = 0; d < 3; d++) {
    if (cfg.grid[d] == 0 || cfg.grid[d] > (unsigned)L.gmax[d])
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': grid.%c = %u is outside 1..%d", fn, k->name, axis[d],
                       cfg.grid[d], L.gmax[d]);
    if (cfg.block[d] == 0 || cfg.block[d] > (unsigned)L.bmax[d])
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': block.%c = %u is outside 1..%d", fn, k->name, axis[d],
                       cfg.block[d], L.bmax[d]);
    threads *= cfg.block[d];
    blocks *= cfg.grid[d];
  }
  if (threads > maxt)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s': a block of %u x %u x %u = %lld threads exceeds the "
                     "kernel's limit of %d on this device", fn, k->name, cfg.block[0], cfg.block[1], cfg.block[2],
                     (long long)threads, maxt);
  if (cfg.shared_bytes + (size_t)ssm > (size_t)L.optin)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s': %zu bytes of dynamic shared memory plus %d static exceed "
                     "the device's %d bytes per block", fn, k->name, cfg.shared_bytes, ssm, L.optin);
  ND_TRY(nd__ksmem(fn, k, dev, cudev, cfg.shared_bytes));
  if (k->module->cooperative) {
    CUfunction f;
    int per_sm = 0, sms = 0;
    ND_TRY(nd__kfunction(fn, k, &f));
    CUresult nd__cu_r;
    ND_TRY(ND__CU(nd__cu.occupancy(&per_sm, f, (int)threads, cfg.shared_bytes), fn, k->name));
    sms = L.sms;
    if (blocks > (int64_t)per_sm * sms)
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s' is cooperative and its grid of %lld blocks exceeds the "
                       "%lld blocks that can be resident at once (%d per multiprocessor x %d multiprocessors "
                       "for %lld threads and %zu bytes of dynamic shared memory per block)", fn, k->name,
                       (long long)blocks, (long long)per_sm * sms, per_sm, sms, (long long)threads,
                       cfg.shared_bytes);
  }
  nd_stream *s = nd__stream_current_for(dev);
  if (s == NULL) return nd__error(ND_ERR_CUDA, "%s: no current stream on device %d", fn, dev);
  nd__sync sync;
  nd__sync_init(&sync, s);
  for (int i = 0; i < narrays; i++) ND_TRY(nd__sync_add(&sync, &arrays[i]->buf->hz, modes[i]));
  ND_TRY(nd__sync_begin(&sync));
  CUlaunchAttribute attr;
  memset(&attr, 0, sizeof attr);
  attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
  attr.value.cooperative = 1;
  CUlaunchConfig lc;
  memset(&lc, 0, sizeof lc);
  lc.gridDimX = cfg.grid[0];
  lc.gridDimY = cfg.grid[1];
  lc.gridDimZ = cfg.grid[2];
  lc.blockDimX = cfg.block[0];
  lc.blockDimY = cfg.block[1];
  lc.blockDimZ = cfg.block[2];
  lc.sharedMemBytes = (unsigned)cfg.shared_bytes;
  lc.hStream = (CUstream)s->cu;
  lc.attrs = k->module->cooperative ? &attr : NULL;
  lc.numAttrs = k->module->cooperative ? 1 : 0;
  /* A CUkernel stands for a CUfunction in the stream's context (CUDA 12.0 and newer). */
  const CUresult r = nd__cu.launch_ex(&lc, (CUfunction)k->kernel, argv, NULL);
  if (r != CUDA_SUCCESS) return nd__cu_status(r, "cuLaunchKernelEx", fn, k->name);
  return nd__sync_end(&sync);
}

nd_status nd_kernel_launch(nd_kernel *k, nd_launch_config cfg, int nargs, const nd_karg *args) {
  const char *fn = "nd_kernel_launch";
  ND_CHECK_NULL(fn, k);
  if (nargs < 0 || nargs > ND__KARGS_MAX)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s': %d arguments (0..%d allowed)", fn, k->name, nargs, ND__KARGS_MAX);
  if (nargs > 0 && args == NULL) return nd__error(ND_ERR_NULL_POINTER, "%s: argument 'args' is NULL", fn);
  if (k->nparams >= 0 && nargs != k->nparams)
    return nd__error(ND_ERR_VALUE, "%s: kernel '%s' takes %d arguments, %d given", fn, k->name, k->nparams, nargs);
  union {
    void *p;
    nd_kscalar s;
  } val[ND__KARGS_MAX];
  void *argv[ND__KARGS_MAX + 1];
  nd_array *arrays[ND__KARGS_MAX];
  int modes[ND__KARGS_MAX], narrays = 0;
  for (int i = 0; i < nargs; i++) {
    const nd_karg *a = &args[i];
    size_t size = sizeof(void *);
    const char *what = "a pointer";
    switch (a->kind) {
      case ND_KARG_READ:
      case ND_KARG_WRITE:
      case ND_KARG_READWRITE:
        if (a->array == NULL)
          return nd__error(ND_ERR_NULL_POINTER, "%s: kernel '%s': argument %d is a NULL array", fn, k->name, i);
        if (a->kind != ND_KARG_READ && !a->array->writeable)
          return nd__error(ND_ERR_READ_ONLY, "%s: kernel '%s': argument %d is written but the array is read-only",
                           fn, k->name, i);
        val[i].p = (char *)a->array->buf->ptr + a->array->offset;
        arrays[narrays] = a->array;
        modes[narrays++] = (a->kind == ND_KARG_READ ? ND__READ : 0) | (a->kind != ND_KARG_READ ? ND__WRITE : 0) |
                           (a->kind == ND_KARG_READWRITE ? ND__READ : 0);
        what = "an array";
        break;
      case ND_KARG_SCALAR:
        if (!nd_dtype_is_valid(a->dtype))
          return nd__error(ND_ERR_DTYPE, "%s: kernel '%s': argument %d: scalar dtype %d is not an array dtype", fn,
                           k->name, i, (int)a->dtype);
        nd__scalar_to_bytes(a->scalar, a->dtype, &val[i].s);
        size = nd_dtype_itemsize(a->dtype);
        what = nd_dtype_name(a->dtype);
        break;
      case ND_KARG_POINTER:
        val[i].p = (void *)a->pointer;
        break;
      default:
        return nd__error(ND_ERR_VALUE, "%s: kernel '%s': argument %d has kind %d, not an nd_karg_kind", fn,
                         k->name, i, (int)a->kind);
    }
    if (k->nparams >= 0 && k->param_size[i] != size)
      return nd__error(ND_ERR_VALUE, "%s: kernel '%s': argument %d is %s (%zu bytes) but parameter %d takes "
                       "%zu bytes", fn, k->name, i, what, size, i, k->param_size[i]);
    argv[i] = &val[i];
  }
  argv[nargs] = NULL;
  return nd__jit_launch(fn, k, cfg, argv, narrays, arrays, modes);
}
