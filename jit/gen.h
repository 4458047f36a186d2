/* Pieces shared by the kernel generators (elementwise.c, reduction.c), kept in one place
 * (gen.c) so that both read their definitions and bind their arguments the same way: the
 * parameter lists ("T x, raw float32 y"), the device type name of each dtype, the copied
 * module options of a definition, type placeholder binding and the casting checks, the
 * broadcast loop shape, the per-definition list of compiled instances, and a growable
 * string for the generated source. */
#ifndef ND_JIT_GEN_H
#define ND_JIT_GEN_H

#include <pthread.h>
#include <stdatomic.h>

#include "jit/module.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ND__GEN_MAXP 16 /* parameters of any definition (inputs and outputs) */

typedef struct nd__ew_param {
  char name[64];
  char type[64];  /* a dtype name or a placeholder */
  nd_dtype fixed; /* the dtype when not a placeholder, else -1 */
  int raw;
} nd__ew_param;

/* The helper header's type of each dtype ("nd_float32", ...). */
extern const char *const nd__ew_ctype[ND_NUM_DTYPES];

/* 1 when s is a C identifier. */
int nd__gen_is_ident(const char *s);

/* Parses a comma-separated list "[raw] type name, ..." into params[base..], at most maxp in
 * all; *count gets the number parsed. Names must be identifiers, unique across params, and not
 * reserved (i, nd_*, p_*, and with reserve_ab a and b, the reduction's operands).
 * Errors: ND_ERR_VALUE naming kname and the parameter. */
nd_status nd__ew_parse(const char *fn, const char *kname, nd__ew_param *params, int base, int maxp,
                       const char *list, int out, int reserve_ab, int *count);

char *nd__sdup(const char *s); /* NULL for NULL or out of memory */

typedef struct nd__sbuf {
  char *p;
  size_t len, cap;
  int failed;
} nd__sbuf;

/* Appends printf-formatted text; a failed allocation sets failed. */
void nd__sp(nd__sbuf *b, const char *fmt, ...) ND__PRINTF(2, 3);

/* "typedef <dtype's type> <placeholder>;" once per distinct placeholder of p[0..np), each
 * followed by sep. */
void nd__gen_typedefs(nd__sbuf *s, const nd__ew_param *p, int np, const nd_dtype *ptype, const char *sep);

/* A definition's module options with every string copied (the definition outlives the
 * caller's arrays); opts.name is kname. */
typedef struct nd__gen_opts {
  nd_module_options opts;
  char **copy;
  int ncopy;
} nd__gen_opts;

/* Copies checked options o into *g (zeroed by the caller). Errors: ND_ERR_OUT_OF_MEMORY;
 * nd__gen_opts_free releases a partial copy too. */
nd_status nd__gen_opts_copy(const char *fn, const nd_module_options *o, const char *kname, nd__gen_opts *g);
void nd__gen_opts_free(nd__gen_opts *g);

/* The types of one call. On entry: atype[j] the dtype of array argument j (inputs and given
 * outputs) or -1, scalar[j] 1 for scalar inputs (whose values are in[j].scalar), ptype[j] -1.
 * Placeholders bind from input arrays first (two arrays disagreeing is an error), then from
 * scalars (their weak default dtype), then from given outputs; then every parameter must be
 * resolved, raw arrays must have their parameter's dtype exactly, input arrays must cast
 * safely to their parameter's dtype and parameter dtypes of given outputs to the outputs'
 * under 'same_kind'. On return ptype is resolved and atype[j] is ptype[j] where there was no
 * array. Errors: ND_ERR_DTYPE, ND_ERR_CASTING, naming kname and the parameter. */
nd_status nd__gen_bind_types(const char *fn, const char *kname, const nd__ew_param *p, int nin, int np,
                             const nd_operand *in, const int *scalar, nd_dtype *ptype, nd_dtype *atype);

/* The dtype a type name stands for in one call: a dtype name, or a placeholder already bound
 * in ptype; -1 when neither. */
nd_dtype nd__gen_lookup(const nd__ew_param *p, int np, const nd_dtype *ptype, const char *type);

/* The broadcast shape of the non-raw arrays among arr[0..nin) into *nd, shape.
 * Errors: ND_ERR_SHAPE naming kname and the input. */
nd_status nd__gen_broadcast(const char *fn, const char *kname, const nd__ew_param *p, int nin,
                            const nd_array *const *arr, int *nd, int64_t *shape);

/* The stride of a's dimension that lines up with dimension d of an nd-dimensional loop shape
 * (0 where a is broadcast along it). */
int64_t nd__gen_bstride(const nd_array *a, int nd, const int64_t *shape, int d);

/* Every array among arr[0..np) lives on device. Errors: ND_ERR_DEVICE_MISMATCH. */
nd_status nd__gen_check_devices(const char *fn, const char *kname, const nd__ew_param *p, int np,
                                const nd_array *const *arr, int device);

/* One compiled instance of a definition: a module and its kernels, found by a signature
 * string that says everything the generated source depends on. */
typedef struct nd__gen_instance {
  struct nd__gen_instance *next;
  char sig[256];
  nd_module *module;
  nd_kernel *kernel[2];
  atomic_int per_sm; /* resident 256-thread blocks of kernel[0] per multiprocessor (0: not asked) */
} nd__gen_instance;

typedef struct nd__gen_instances {
  pthread_mutex_t mu;
  nd__gen_instance *head;
} nd__gen_instances;

void nd__gen_instances_init(nd__gen_instances *set);
void nd__gen_instances_free(nd__gen_instances *set);

/* The instance of sig, or NULL (then make it with nd__gen_instance_add). */
nd__gen_instance *nd__gen_instance_find(nd__gen_instances *set, const char *sig);

/* Compiles src through the kernel cache, gets the nk kernels named, and adds the instance,
 * unless another thread added sig meanwhile: then that one is returned and this one
 * dropped (the cache's single flight has made both threads share one compile). Compiles
 * outside the set's lock. Borrows src. Errors: those of nd__jit_module_get and
 * nd_module_get_kernel, ND_ERR_OUT_OF_MEMORY. */
nd_status nd__gen_instance_add(const char *fn, const char *kname, const nd_module_options *opts,
                               nd__gen_instances *set, const char *sig, const char *src,
                               const char *const *knames, int nk, nd__gen_instance **out);

/* The generated source of a reduction definition for one binding (tests). malloc'd. */
char *nd__rd_source_for(const nd_reduction_kernel *k, const nd_dtype *ptype, const nd_dtype *atype,
                        const int *scalar, nd_dtype rtype);

#ifdef __cplusplus
}
#endif

#endif /* ND_JIT_GEN_H */
