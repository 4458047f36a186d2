/* Generators: creation, the per-thread default, seeds, and the locked begin/end pair that
 * every fill goes through.
 *
 * A Philox generator is host memory only (seed, counter, mutex). A stateful one also owns a
 * pool buffer of cuRAND states; every fill adds that buffer to its sync as a write, so the
 * hazard tracker orders fills on different streams one after another, and the buffer is freed
 * in stream order when the generator goes. The lock is held from nd__generator_begin to
 * nd__generator_end, so the counter a fill uses and the order in which fills reach the state
 * buffer are those in which the calls took the lock. */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "random/random_internal.h"

/* ---- seeds ---------------------------------------------------------------------------------- */

nd_status nd__random_parse_seed(const char *fn, const char *text, uint64_t *out) {
  ND_CHECK_NULL(fn, text);
  ND_CHECK_NULL(fn, out);
  const char *c = text;
  while (*c == ' ' || *c == '\t') c++;
  int base = 10;
  if (c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) {
    base = 16;
    c += 2;
  }
  uint64_t v = 0;
  int digits = 0;
  for (;; c++, digits++) {
    int d;
    if (*c >= '0' && *c <= '9')
      d = *c - '0';
    else if (base == 16 && *c >= 'a' && *c <= 'f')
      d = *c - 'a' + 10;
    else if (base == 16 && *c >= 'A' && *c <= 'F')
      d = *c - 'A' + 10;
    else
      break;
    if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
      return nd__error(ND_ERR_VALUE, "%s: ND_SEED='%s' does not fit in 64 bits (the largest seed "
                       "is 18446744073709551615)", fn, text);
    v = v * (uint64_t)base + (uint64_t)d;
  }
  while (*c == ' ' || *c == '\t') c++;
  if (digits == 0 || *c != '\0')
    return nd__error(ND_ERR_VALUE, "%s: ND_SEED='%s' is not an unsigned 64-bit integer (decimal, "
                     "or hexadecimal with 0x)", fn, text);
  *out = v;
  return ND_OK;
}

/* SplitMix64's finaliser: spreads a weak mix of clock and addresses over all bits. */
static uint64_t nd__mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

uint64_t nd__random_entropy(void) {
  uint64_t v = 0;
  if (getrandom(&v, sizeof v, 0) == (ssize_t)sizeof v) return v;
  FILE *f = fopen("/dev/urandom", "rb");
  if (f != NULL) {
    size_t got = fread(&v, sizeof v, 1, f);
    fclose(f);
    if (got == 1) return v;
  }
  static atomic_ulong calls;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
  x ^= (uint64_t)(uintptr_t)&v ^ ((uint64_t)getpid() << 32);
  x += UINT64_C(0x9e3779b97f4a7c15) * (atomic_fetch_add(&calls, 1) + 1);
  return nd__mix64(x);
}

/* ---- creation ------------------------------------------------------------------------------- */

static nd_status nd__generator_new(const char *fn, uint64_t seed, nd_bitgen bitgen,
                                   nd_generator **out) {
  nd_generator *g = calloc(1, sizeof *g);
  if (g == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: no host memory for a generator", fn);
  if (pthread_mutex_init(&g->lock, NULL) != 0) {
    free(g);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "%s: cannot create the generator's mutex", fn);
  }
  g->seed = seed;
  g->bitgen = bitgen;
  *out = g;
  return ND_OK;
}

static void nd__generator_free(nd_generator *g) {
  if (g->states != NULL) nd__buffer_release(g->states);
  pthread_mutex_destroy(&g->lock);
  free(g);
}

nd_status nd_generator_create(uint64_t seed, nd_bitgen bitgen, nd_generator **out) {
  const char *fn = "nd_generator_create";
  ND_CHECK_NULL(fn, out);
  if (bitgen != ND_BITGEN_PHILOX && bitgen != ND_BITGEN_XORWOW && bitgen != ND_BITGEN_MRG32K3A)
    return nd__error(ND_ERR_VALUE, "%s: argument 'bitgen' is not a bit generator (value %d; "
                     "ND_BITGEN_PHILOX, ND_BITGEN_XORWOW or ND_BITGEN_MRG32K3A)", fn, (int)bitgen);
  nd_generator *g = NULL;
  ND_TRY(nd__generator_new(fn, seed, bitgen, &g));
  if (bitgen == ND_BITGEN_PHILOX) {
    *out = g;
    return ND_OK;
  }
  nd_stream *s;
  nd_status st = nd__array_stream(fn, NULL, &s);
  if (st == ND_OK) st = nd__buffer_alloc(fn, s->device, s, (int64_t)nd_kr_states_bytes(bitgen), &g->states);
  if (st == ND_OK) {
    nd__sync sync;
    nd__sync_init(&sync, s);
    st = nd__sync_add(&sync, &g->states->hz, ND__WRITE);
    if (st == ND_OK) st = nd__sync_begin(&sync);
    if (st == ND_OK) {
      st = nd_kr_states_init(bitgen, seed, g->states->ptr, s->cu);
      if (st != ND_OK)
        nd__error_context(st, fn);
      else
        st = nd__sync_end(&sync);
    }
  }
  if (st != ND_OK) {
    nd__generator_free(g);
    return st;
  }
  *out = g;
  return ND_OK;
}

nd_status nd_generator_destroy(nd_generator *gen) {
  if (gen == NULL) return ND_OK;
  if (gen->is_default)
    return nd__error(ND_ERR_INVALID_ARGUMENT, "nd_generator_destroy: argument 'gen' is a thread's "
                     "default generator, which belongs to its thread");
  nd__generator_free(gen);
  return ND_OK;
}

/* ---- the per-thread default ------------------------------------------------------------------ */

static pthread_key_t nd__default_key;
static pthread_once_t nd__default_once = PTHREAD_ONCE_INIT;
static int nd__default_key_ok;
static _Thread_local nd_generator *nd__default_gen;

static void nd__default_free(void *p) { nd__generator_free(p); }

static void nd__default_key_init(void) {
  nd__default_key_ok = pthread_key_create(&nd__default_key, nd__default_free) == 0;
}

static nd_status nd__default_install(const char *fn, uint64_t seed) {
  nd_generator *g = NULL;
  ND_TRY(nd__generator_new(fn, seed, ND_BITGEN_PHILOX, &g));
  g->is_default = 1;
  /* The key's destructor frees the generator when the thread exits; without a key (the
   * process ran out of keys) it is leaked at thread exit, which is harmless. */
  pthread_once(&nd__default_once, nd__default_key_init);
  if (nd__default_key_ok) (void)pthread_setspecific(nd__default_key, g);
  nd__default_gen = g;
  return ND_OK;
}

nd_status nd_generator_default(nd_generator **out) {
  const char *fn = "nd_generator_default";
  ND_CHECK_NULL(fn, out);
  if (nd__default_gen == NULL) {
    uint64_t seed;
    const char *env = nd__config_text(ND__CFG_SEED);
    if (env != NULL)
      ND_TRY(nd__random_parse_seed(fn, env, &seed));
    else
      seed = nd__random_entropy();
    ND_TRY(nd__default_install(fn, seed));
  }
  *out = nd__default_gen;
  return ND_OK;
}

nd_status nd_random_seed(uint64_t seed) {
  if (nd__default_gen == NULL) return nd__default_install("nd_random_seed", seed);
  nd_generator *g = nd__default_gen;
  pthread_mutex_lock(&g->lock);
  g->seed = seed;
  g->offset = 0;
  pthread_mutex_unlock(&g->lock);
  return ND_OK;
}

nd_status nd__generator_resolve(const char *fn, nd_generator *gen, nd_generator **out) {
  if (gen != NULL) {
    *out = gen;
    return ND_OK;
  }
  nd_status st = nd_generator_default(out);
  return st == ND_OK ? ND_OK : nd__error_context(st, fn);
}

/* ---- accessors -------------------------------------------------------------------------------- */

int nd_generator_device(const nd_generator *gen) {
  return gen != NULL && gen->states != NULL ? gen->states->device : -1;
}

uint64_t nd_generator_seed(nd_generator *gen) {
  if (gen == NULL && nd_generator_default(&gen) != ND_OK) return 0;
  pthread_mutex_lock(&gen->lock);
  uint64_t v = gen->seed;
  pthread_mutex_unlock(&gen->lock);
  return v;
}

nd_bitgen nd_generator_bitgen(nd_generator *gen) {
  if (gen == NULL && nd_generator_default(&gen) != ND_OK) return ND_BITGEN_PHILOX;
  return gen->bitgen;
}

uint64_t nd_generator_offset(nd_generator *gen) {
  if (gen == NULL && nd_generator_default(&gen) != ND_OK) return 0;
  pthread_mutex_lock(&gen->lock);
  uint64_t v = gen->offset;
  pthread_mutex_unlock(&gen->lock);
  return v;
}

/* ---- the locked section of a fill ------------------------------------------------------------- */

uint64_t nd__generator_take(nd_generator *gen, uint64_t nblocks) {
  pthread_mutex_lock(&gen->lock);
  uint64_t base = gen->offset;
  gen->offset += nblocks;
  pthread_mutex_unlock(&gen->lock);
  return base;
}

nd_status nd__generator_begin(const char *fn, nd_generator *gen, nd__sync *sync, nd_krng *rng) {
  pthread_mutex_lock(&gen->lock);
  nd_status st = ND_OK;
  if (gen->states != NULL) {
    if (gen->states->device != sync->stream->device)
      st = nd__error(ND_ERR_DEVICE_MISMATCH, "%s: the generator's states live on device %d but "
                     "the current device is %d", fn, gen->states->device, sync->stream->device);
    if (st == ND_OK) st = nd__sync_add(sync, &gen->states->hz, ND__WRITE);
  }
  if (st == ND_OK) st = nd__sync_begin(sync);
  if (st != ND_OK) {
    pthread_mutex_unlock(&gen->lock);
    return st;
  }
  rng->bitgen = (int)gen->bitgen;
  rng->seed = gen->seed;
  rng->offset = gen->offset;
  rng->states = gen->states != NULL ? gen->states->ptr : NULL;
  return ND_OK;
}

nd_status nd__generator_end(const char *fn, nd_generator *gen, nd__sync *sync, uint64_t nblocks,
                            nd_status launched) {
  nd_status st = launched;
  if (st == ND_OK) {
    /* Advance even if recording the sync fails below: the numbers have been used. */
    gen->offset += nblocks;
    st = nd__sync_end(sync);
  } else {
    nd__error_context(st, fn);
  }
  pthread_mutex_unlock(&gen->lock);
  return st;
}
