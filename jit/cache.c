/* The kernel cache: the key material, the memory map with single flight per key, the get
 * path through disk and compile, statistics (see cache.h). The files live in cache_disk.c. */
#include "jit/cache.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit/cache_internal.h"
#include "jit/sha256.h"


/* ---- key material ----------------------------------------------------------------------- */

void nd__jit_key_init(nd__jit_key *k) { memset(k, 0, sizeof *k); }

void nd__jit_key_free(nd__jit_key *k) {
  free(k->data);
  memset(k, 0, sizeof *k);
}

static void nd__jit_key_raw(nd__jit_key *k, const void *p, size_t n) {
  if (k->failed) return;
  if (k->len + n > k->cap) {
    size_t cap = k->cap ? k->cap : 256;
    while (cap < k->len + n) cap *= 2;
    unsigned char *d = (unsigned char *)realloc(k->data, cap);
    if (d == NULL) {
      k->failed = 1;
      return;
    }
    k->data = d;
    k->cap = cap;
  }
  if (n) memcpy(k->data + k->len, p, n);
  k->len += n;
}

void nd__jit_key_bytes(nd__jit_key *k, char tag, const void *p, size_t n) {
  unsigned char hdr[9];
  hdr[0] = (unsigned char)tag;
  for (int i = 0; i < 8; i++) hdr[1 + i] = (unsigned char)((uint64_t)n >> (8 * i));
  nd__jit_key_raw(k, hdr, sizeof hdr);
  nd__jit_key_raw(k, p, n);
}

void nd__jit_key_str(nd__jit_key *k, char tag, const char *s) {
  if (s == NULL) {
    nd__jit_key_bytes(k, (char)(tag | 0x80), NULL, 0);
    return;
  }
  nd__jit_key_bytes(k, tag, s, strlen(s));
}

void nd__jit_key_u64(nd__jit_key *k, char tag, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
  nd__jit_key_bytes(k, tag, b, 8);
}

/* ---- binaries --------------------------------------------------------------------------- */

nd__jit_binary *nd__jit_binary_new(int nnames, size_t size) {
  nd__jit_binary *b = (nd__jit_binary *)calloc(1, sizeof *b);
  if (b == NULL) return NULL;
  b->nnames = nnames;
  b->names = (char **)calloc((size_t)(nnames > 0 ? nnames : 1), sizeof(char *));
  b->lowered = (char **)calloc((size_t)(nnames > 0 ? nnames : 1), sizeof(char *));
  b->payload = (unsigned char *)calloc(size ? size : 1, 1);
  b->size = size;
  if (!b->names || !b->lowered || !b->payload) {
    nd__jit_binary_free(b);
    return NULL;
  }
  return b;
}

void nd__jit_binary_free(nd__jit_binary *b) {
  if (b == NULL) return;
  for (int i = 0; i < b->nnames; i++) {
    if (b->names) free(b->names[i]);
    if (b->lowered) free(b->lowered[i]);
  }
  free(b->names);
  free(b->lowered);
  free(b->payload);
  free(b->log);
  free(b);
}

/* ---- the cache object ------------------------------------------------------------------- */

enum { ND__SLOT_PENDING = 0, ND__SLOT_READY = 1, ND__SLOT_FAILED = 2 };

struct nd__jit_slot {
  struct nd__jit_slot *next; /* bucket chain */
  uint64_t hash;
  unsigned char *material;
  size_t len;
  int state;
  int refs;                  /* the map's (while linked) plus each waiter's */
  int linked;
  void *obj;                 /* READY: the loaded object (one reference owned by the slot) */
  const nd__jit_ops *ops;
  nd_status status;          /* FAILED: the compile's status, message and log */
  char *message;
  char *log;
};

void nd__jit_warn(nd__jit_cache *c, const char *fmt, ...) {
  char buf[ND__JIT_WARN];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  pthread_mutex_lock(&c->mu);
  memcpy(c->warning, buf, sizeof buf);
  c->st.warnings++;
  pthread_mutex_unlock(&c->mu);
}

static int nd__mkdir_p(const char *path) {
  char tmp[PATH_MAX];
  size_t n = strlen(path);
  if (n == 0 || n >= sizeof tmp) return -1;
  memcpy(tmp, path, n + 1);
  for (char *p = tmp + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
  return 0;
}

/* Whether files can be created in dir (a real probe: access(2) says yes to root on a
 * read-only mount and ignores some ACLs). */
static int nd__dir_writable(const char *dir) {
  char probe[PATH_MAX];
  if (snprintf(probe, sizeof probe, "%s/.probe.%ld", dir, (long)getpid()) >= (int)sizeof probe) return 0;
  int fd = open(probe, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0 && errno == EEXIST) {
    unlink(probe);
    fd = open(probe, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  }
  if (fd < 0) return 0;
  close(fd);
  unlink(probe);
  return 1;
}

nd_status nd__jit_cache_create(const nd__jit_cache_config *cfg, nd__jit_cache **out) {
  nd__jit_cache *c = (nd__jit_cache *)calloc(1, sizeof *c);
  if (c == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "nd__jit_cache_create: out of host memory");
  c->nbuckets = 64;
  c->buckets = (nd__jit_slot **)calloc(c->nbuckets, sizeof(nd__jit_slot *));
  if (c->buckets == NULL) {
    free(c);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "nd__jit_cache_create: out of host memory");
  }
  pthread_mutex_init(&c->mu, NULL);
  pthread_cond_init(&c->cv, NULL);
  c->mode = cfg->mode;
  c->max_bytes = cfg->max_bytes > 0 ? cfg->max_bytes : 0;
  c->max_parallel = cfg->max_parallel > 0 ? cfg->max_parallel : 1;
  c->lock_timeout_ms = cfg->lock_timeout_ms >= 0 ? cfg->lock_timeout_ms : 0;
  if (c->mode == ND__CACHE_DISK) {
    if (cfg->dir == NULL || strlen(cfg->dir) >= sizeof c->dir) {
      c->mode = ND__CACHE_MEMORY;
      nd__jit_warn(c, "kernel cache: no usable cache directory; caching in memory only");
    } else {
      strcpy(c->dir, cfg->dir);
      if (nd__mkdir_p(c->dir) != 0 || !nd__dir_writable(c->dir)) {
        const int e = errno;
        c->mode = ND__CACHE_MEMORY;
        nd__jit_warn(c, "kernel cache: directory '%s' is not writable (%s); caching in memory only",
                     c->dir, strerror(e ? e : EACCES));
      }
    }
  }
  *out = c;
  return ND_OK;
}

static void nd__jit_slot_put(nd__jit_slot *s) {
  /* called with the cache mutex held */
  if (--s->refs > 0) return;
  if (s->obj && s->ops) s->ops->release(s->obj);
  free(s->material);
  free(s->message);
  free(s->log);
  free(s);
}

void nd__jit_cache_destroy(nd__jit_cache *c) {
  if (c == NULL) return;
  pthread_mutex_lock(&c->mu);
  for (size_t b = 0; b < c->nbuckets; b++) {
    nd__jit_slot *s = c->buckets[b];
    while (s) {
      nd__jit_slot *n = s->next;
      s->linked = 0;
      nd__jit_slot_put(s);
      s = n;
    }
  }
  pthread_mutex_unlock(&c->mu);
  free(c->buckets);
  pthread_mutex_destroy(&c->mu);
  pthread_cond_destroy(&c->cv);
  free(c);
}

static pthread_once_t nd__jit_global_once = PTHREAD_ONCE_INIT;
static nd__jit_cache *nd__jit_global;

static void nd__jit_global_init(void) {
  nd__jit_cache_config cfg;
  char dir[PATH_MAX];
  memset(&cfg, 0, sizeof cfg);
  cfg.mode = ND__CACHE_DISK;
  cfg.max_bytes = (int64_t)1 << 30;
  cfg.max_parallel = 4;
  cfg.lock_timeout_ms = 30000;
  /* the configuration table (src/config.h) holds the variables and their defaults */
  const char *mode = nd__config_value(ND__CFG_CACHE);
  char bad_mode[64] = "";
  if (mode) {
    if (!strcmp(mode, "0") || !strcasecmp(mode, "off") || !strcasecmp(mode, "none"))
      cfg.mode = ND__CACHE_OFF;
    else if (!strcasecmp(mode, "memory"))
      cfg.mode = ND__CACHE_MEMORY;
    else if (!strcasecmp(mode, "disk") || !strcmp(mode, "1"))
      cfg.mode = ND__CACHE_DISK;
    else
      snprintf(bad_mode, sizeof bad_mode, "%s", mode);
  }
  const char *d = nd__config_text(ND__CFG_CACHE_DIR); /* the XDG default when unset */
  dir[0] = '\0';
  if (d) snprintf(dir, sizeof dir, "%s", d);
  cfg.dir = dir[0] ? dir : NULL;
  const char *mb = nd__config_value(ND__CFG_CACHE_MAX_BYTES);
  char bad_max[64] = "";
  int64_t max_bytes = 0;
  if (mb && !nd__config_parse_size(mb, 0, &max_bytes)) snprintf(bad_max, sizeof bad_max, "%s", mb);
  cfg.max_bytes = nd__config_size(ND__CFG_CACHE_MAX_BYTES, 0);
  if (nd__jit_cache_create(&cfg, &nd__jit_global) != ND_OK) return;
  if (bad_mode[0])
    nd__jit_warn(nd__jit_global, "kernel cache: ND_CACHE='%s' is not 0, memory or disk; using disk",
                 bad_mode);
  if (bad_max[0])
    nd__jit_warn(nd__jit_global, "kernel cache: ND_CACHE_MAX_BYTES='%s' is not a byte count; "
                 "using %lld", bad_max, (long long)cfg.max_bytes);
}

nd__jit_cache *nd__jit_cache_global(void) {
  pthread_once(&nd__jit_global_once, nd__jit_global_init);
  return nd__jit_global;
}

int nd__jit_cache_mode(nd__jit_cache *c) { return c->mode; }
const char *nd__jit_cache_dir(nd__jit_cache *c) { return c->mode == ND__CACHE_DISK ? c->dir : ""; }

void nd__jit_cache_last_warning(nd__jit_cache *c, char *buf, size_t cap) {
  if (cap == 0) return;
  pthread_mutex_lock(&c->mu);
  snprintf(buf, cap, "%s", c->warning);
  pthread_mutex_unlock(&c->mu);
}

/* ---- the memory map ---------------------------------------------------------------------- */

/* A fast 64-bit hash of the material, 8 bytes a step (only the bucket choice depends on it;
 * equality is a full comparison). */
static uint64_t nd__jit_fasthash(const unsigned char *p, size_t n) {
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)n;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  uint64_t w = 0;
  for (size_t j = 0; i < n; i++, j++) w |= (uint64_t)p[i] << (8 * j);
  h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 29);
}

static nd__jit_slot *nd__jit_find(nd__jit_cache *c, uint64_t h, const void *m, size_t n) {
  for (nd__jit_slot *s = c->buckets[h & (c->nbuckets - 1)]; s; s = s->next)
    if (s->hash == h && s->len == n && memcmp(s->material, m, n) == 0) return s;
  return NULL;
}

static void nd__jit_link(nd__jit_cache *c, nd__jit_slot *s) {
  if (c->count + 1 > 2 * c->nbuckets) {
    const size_t nb = c->nbuckets * 4;
    nd__jit_slot **b = (nd__jit_slot **)calloc(nb, sizeof *b);
    if (b != NULL) { /* without room to grow, the chains just get longer */
      for (size_t i = 0; i < c->nbuckets; i++) {
        nd__jit_slot *x = c->buckets[i];
        while (x) {
          nd__jit_slot *nx = x->next;
          x->next = b[x->hash & (nb - 1)];
          b[x->hash & (nb - 1)] = x;
          x = nx;
        }
      }
      free(c->buckets);
      c->buckets = b;
      c->nbuckets = nb;
    }
  }
  nd__jit_slot **head = &c->buckets[s->hash & (c->nbuckets - 1)];
  s->next = *head;
  *head = s;
  s->linked = 1;
  s->refs++;
  c->count++;
}

static void nd__jit_unlink(nd__jit_cache *c, nd__jit_slot *s) {
  if (!s->linked) return;
  for (nd__jit_slot **p = &c->buckets[s->hash & (c->nbuckets - 1)]; *p; p = &(*p)->next)
    if (*p == s) {
      *p = s->next;
      break;
    }
  s->linked = 0;
  c->count--;
  nd__jit_slot_put(s);
}

/* ---- get --------------------------------------------------------------------------------- */

static double nd__ms_since(const struct timespec *t0) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static char *nd__strdup_or_null(const char *s) {
  if (s == NULL) return NULL;
  const size_t n = strlen(s) + 1;
  char *d = (char *)malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

/* Compile under the concurrency bound; counts it. */
static nd_status nd__jit_compile(nd__jit_cache *c, const nd__jit_ops *ops, void *ctx,
                                 nd__jit_binary **bin, char **log) {
  pthread_mutex_lock(&c->mu);
  while (c->compiling >= c->max_parallel) pthread_cond_wait(&c->cv, &c->mu);
  c->compiling++;
  pthread_mutex_unlock(&c->mu);
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  *bin = NULL;
  *log = NULL;
  nd_status st = ops->compile(ctx, bin, log);
  const double ms = nd__ms_since(&t0);
  pthread_mutex_lock(&c->mu);
  c->compiling--;
  c->st.compiles++;
  c->st.compile_ms += ms;
  if (st != ND_OK) c->st.failed_compiles++;
  pthread_cond_broadcast(&c->cv);
  pthread_mutex_unlock(&c->mu);
  if (st == ND_OK && *bin == NULL) st = nd__error(ND_ERR_INTERNAL, "kernel cache: a compile returned no binary");
  return st;
}

/* The miss path for one key: disk (under the per-key lock), else compile, then the one
 * post-load step. */
static nd_status nd__jit_build(nd__jit_cache *c, const nd__jit_request *req, const nd__jit_ops *ops,
                               void *ctx, void **obj, int *source, char **log) {
  *obj = NULL;
  *log = NULL;
  nd__jit_binary *bin = NULL;
  nd_status st;
  if (c->mode != ND__CACHE_DISK) {
    st = nd__jit_compile(c, ops, ctx, &bin, log);
    if (st == ND_OK) st = ops->load(ctx, bin, obj);
    *source = ND__JIT_FROM_COMPILE;
    nd__jit_binary_free(bin);
    return st;
  }
  unsigned char key[32];
  char hex[65], path[PATH_MAX], lock[PATH_MAX];
  nd__sha256(req->material, req->material_len, key);
  nd__sha256_hex(key, hex);
  nd__jit_entry_names(c, hex, path, lock);
  /* A disk hit before any lock: the common warm case takes no lock at all. */
  int lfd = -1, locked = 0;
  for (int attempt = 0; attempt < 2; attempt++) {
    if (nd__jit_read_entry(c, path, key, req->arch, req->what, &bin) == 1) {
      st = ops->load(ctx, bin, obj);
      nd__jit_binary_free(bin);
      bin = NULL;
      if (st == ND_OK) {
        if (lfd >= 0) close(lfd);
        *source = ND__JIT_FROM_DISK;
        pthread_mutex_lock(&c->mu);
        c->st.disk_hits++;
        pthread_mutex_unlock(&c->mu);
        return ND_OK;
      }
      /* The post-load step rejected it (a driver load error): the entry is bad. */
      unlink(path);
      pthread_mutex_lock(&c->mu);
      c->st.corrupt_entries++;
      pthread_mutex_unlock(&c->mu);
      nd__jit_warn(c, "kernel cache: removed entry %s for '%s' that failed to load (%s); recompiling",
                   path, req->what, nd_last_error());
    }
    if (attempt == 0) locked = nd__jit_lock(c, lock, req->what, &lfd);
    if (!locked) break;
  }
  /* Holding the key's lock (or not, after the timeout): any temporary file of this key
   * belongs to a writer that died. */
  if (locked) nd__jit_sweep_tmp(c, hex);
  st = nd__jit_compile(c, ops, ctx, &bin, log);
  if (st == ND_OK) nd__jit_write_entry(c, hex, path, key, bin, req->what);
  if (lfd >= 0) close(lfd); /* releases the flock */
  if (st == ND_OK) st = ops->load(ctx, bin, obj);
  nd__jit_binary_free(bin);
  *source = ND__JIT_FROM_COMPILE;
  return st;
}

nd_status nd__jit_cache_get(nd__jit_cache *c, const nd__jit_request *req, const nd__jit_ops *ops,
                            void *ctx, void **obj, int *source, char **log) {
  int src_dummy;
  if (source == NULL) source = &src_dummy;
  if (log) *log = NULL;
  char *mylog = NULL;
  if (c->mode == ND__CACHE_OFF) {
    nd_status st = nd__jit_build(c, req, ops, ctx, obj, source, &mylog);
    pthread_mutex_lock(&c->mu);
    c->st.misses++;
    pthread_mutex_unlock(&c->mu);
    if (log) *log = mylog; else free(mylog);
    return st;
  }
  const uint64_t h = nd__jit_fasthash((const unsigned char *)req->material, req->material_len);
  pthread_mutex_lock(&c->mu);
  nd__jit_slot *s = nd__jit_find(c, h, req->material, req->material_len);
  if (s) {
    s->refs++;
    while (s->state == ND__SLOT_PENDING) pthread_cond_wait(&c->cv, &c->mu);
    nd_status st = ND_OK;
    if (s->state == ND__SLOT_READY) {
      *obj = s->ops->retain(s->obj);
      c->st.memory_hits++;
      *source = ND__JIT_FROM_MEMORY;
    } else {
      /* Every waiter of a failed compile gets its status, message and log. */
      st = nd__error(s->status, "%s", s->message ? s->message : "kernel compile failed");
      if (log) *log = nd__strdup_or_null(s->log);
    }
    nd__jit_slot_put(s);
    pthread_mutex_unlock(&c->mu);
    return st;
  }
  s = (nd__jit_slot *)calloc(1, sizeof *s);
  unsigned char *m = (unsigned char *)malloc(req->material_len ? req->material_len : 1);
  if (s == NULL || m == NULL) {
    pthread_mutex_unlock(&c->mu);
    free(s);
    free(m);
    return nd__error(ND_ERR_OUT_OF_MEMORY, "kernel cache: out of host memory for '%s'", req->what);
  }
  memcpy(m, req->material, req->material_len);
  s->hash = h;
  s->material = m;
  s->len = req->material_len;
  s->state = ND__SLOT_PENDING;
  s->ops = ops;
  s->refs = 1; /* ours */
  nd__jit_link(c, s);
  c->st.misses++;
  pthread_mutex_unlock(&c->mu);

  void *o = NULL;
  nd_status st = nd__jit_build(c, req, ops, ctx, &o, source, &mylog);

  pthread_mutex_lock(&c->mu);
  if (st == ND_OK) {
    s->obj = o;
    s->state = ND__SLOT_READY;
    *obj = ops->retain(o);
  } else {
    s->state = ND__SLOT_FAILED;
    s->status = st;
    s->message = nd__strdup_or_null(nd_last_error());
    s->log = nd__strdup_or_null(mylog);
    nd__jit_unlink(c, s); /* a failure is not cached: the next ask compiles again */
  }
  pthread_cond_broadcast(&c->cv);
  nd__jit_slot_put(s);
  pthread_mutex_unlock(&c->mu);
  if (log) *log = mylog; else free(mylog);
  return st;
}

/* ---- statistics, clear, prune ----------------------------------------------------------- */

void nd__jit_cache_stats(nd__jit_cache *c, nd_jit_cache_stats *out) {
  pthread_mutex_lock(&c->mu);
  *out = c->st;
  size_t ready = 0;
  for (size_t b = 0; b < c->nbuckets; b++)
    for (nd__jit_slot *s = c->buckets[b]; s; s = s->next) ready += s->state == ND__SLOT_READY;
  out->memory_entries = ready;
  pthread_mutex_unlock(&c->mu);
  out->disk_bytes = 0;
  out->disk_entries = 0;
  if (c->mode == ND__CACHE_DISK) {
    size_t n;
    int64_t total;
    free(nd__jit_list(c, &n, &total));
    out->disk_bytes = (uint64_t)total;
    out->disk_entries = n;
  }
}

nd_status nd__jit_cache_clear(nd__jit_cache *c) {
  pthread_mutex_lock(&c->mu);
  for (size_t b = 0; b < c->nbuckets; b++) {
    nd__jit_slot *s = c->buckets[b];
    while (s) {
      nd__jit_slot *n = s->next;
      if (s->state == ND__SLOT_READY) nd__jit_unlink(c, s);
      s = n;
    }
  }
  pthread_mutex_unlock(&c->mu);
  return c->mode == ND__CACHE_DISK ? nd__jit_disk_clear(c) : ND_OK;
}

nd_status nd__jit_cache_prune(nd__jit_cache *c, int64_t max_bytes) {
  if (c->mode != ND__CACHE_DISK) return ND_OK;
  nd__jit_sweep_tmp(c, NULL);
  nd__jit_trim(c, max_bytes < 0 ? c->max_bytes : max_bytes, NULL);
  if (max_bytes == 0) {
    /* A cap of zero means "empty it" here, where the configured 0 means "no cap". */
    size_t n;
    int64_t total;
    nd__jit_file *f = nd__jit_list(c, &n, &total);
    for (size_t i = 0; f && i < n; i++) {
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/%s", c->dir, f[i].name);
      unlink(path);
    }
    free(f);
  }
  return ND_OK;
}

/* ---- the public face of the process cache ------------------------------------------------ */

nd_status nd_jit_cache_get_stats(nd_jit_cache_stats *out) {
  ND_CHECK_NULL("nd_jit_cache_get_stats", out);
  nd__jit_cache *c = nd__jit_cache_global();
  if (c == NULL) return nd__error(ND_ERR_OUT_OF_MEMORY, "nd_jit_cache_get_stats: no kernel cache");
  nd__jit_cache_stats(c, out);
  return ND_OK;
}

nd_status nd_jit_cache_last_warning(char *buf, size_t cap) {
  ND_CHECK_NULL("nd_jit_cache_last_warning", buf);
  nd__jit_cache *c = nd__jit_cache_global();
  if (c == NULL) {
    if (cap) buf[0] = '\0';
    return ND_OK;
  }
  nd__jit_cache_last_warning(c, buf, cap);
  return ND_OK;
}

nd_status nd_jit_cache_clear(void) {
  nd__jit_cache *c = nd__jit_cache_global();
  return c ? nd__jit_cache_clear(c) : ND_OK;
}

nd_status nd_jit_cache_prune(int64_t max_bytes) {
  nd__jit_cache *c = nd__jit_cache_global();
  return c ? nd__jit_cache_prune(c, max_bytes) : ND_OK;
}
