/* The kernel cache: memory map with single flight per key, disk entries with validation,
 * per-key advisory locks between processes, LRU trimming, statistics (see cache.h). */
#include "jit/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit/sha256.h"

#define ND__JIT_MAGIC "NDJITBIN"
#define ND__JIT_EXT ".ndjit"
#define ND__JIT_WARN 512
/* A temporary file older than this is a dead writer's whatever its process id says (ids are
 * reused). */
#define ND__JIT_STALE_TMP_S 3600

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

typedef struct nd__jit_slot {
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
} nd__jit_slot;

struct nd__jit_cache {
  int mode;
  char dir[PATH_MAX - 512]; /* room left for "/<64 hex>.tmp.<pid>.<n>" in a PATH_MAX path */
  int64_t max_bytes;
  int max_parallel;
  int lock_timeout_ms;
  pthread_mutex_t mu;        /* guards everything below */
  pthread_cond_t cv;         /* slot state changes and compile slots freeing */
  nd__jit_slot **buckets;
  size_t nbuckets, count;
  int compiling;
  nd_jit_cache_stats st;
  char warning[ND__JIT_WARN];
  unsigned long tmp_counter;
};

static void nd__jit_warn(nd__jit_cache *c, const char *fmt, ...) ND__PRINTF(2, 3);
static void nd__jit_warn(nd__jit_cache *c, const char *fmt, ...) {
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

/* ---- disk entries ------------------------------------------------------------------------ */

static void nd__jit_entry_names(nd__jit_cache *c, const char *hex, char *path, char *lock) {
  snprintf(path, PATH_MAX, "%s/%s" ND__JIT_EXT, c->dir, hex);
  if (lock) snprintf(lock, PATH_MAX, "%s/%s.lock", c->dir, hex);
}

void nd__jit_cache_entry_path(nd__jit_cache *c, const void *material, size_t len, char *buf,
                              size_t cap) {
  unsigned char key[32];
  char hex[65], path[PATH_MAX];
  if (cap == 0) return;
  buf[0] = '\0';
  if (c->mode != ND__CACHE_DISK) return;
  nd__sha256(material, len, key);
  nd__sha256_hex(key, hex);
  nd__jit_entry_names(c, hex, path, NULL);
  snprintf(buf, cap, "%s", path);
}

typedef struct nd__wbuf {
  unsigned char *p;
  size_t len, cap;
  int failed;
} nd__wbuf;

static void nd__wput(nd__wbuf *w, const void *d, size_t n) {
  if (w->failed) return;
  if (w->len + n > w->cap) {
    size_t cap = w->cap ? w->cap : 4096;
    while (cap < w->len + n) cap *= 2;
    unsigned char *x = (unsigned char *)realloc(w->p, cap);
    if (!x) {
      w->failed = 1;
      return;
    }
    w->p = x;
    w->cap = cap;
  }
  memcpy(w->p + w->len, d, n);
  w->len += n;
}

static void nd__wu32(nd__wbuf *w, uint32_t v) {
  unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                        (unsigned char)(v >> 24)};
  nd__wput(w, b, 4);
}

static void nd__wu64(nd__wbuf *w, uint64_t v) {
  nd__wu32(w, (uint32_t)v);
  nd__wu32(w, (uint32_t)(v >> 32));
}

static void nd__wstr(nd__wbuf *w, const char *s) {
  const size_t n = s ? strlen(s) : 0;
  nd__wu32(w, (uint32_t)n);
  nd__wput(w, s ? s : "", n);
}

/* File layout (little-endian):
 *   "NDJITBIN" | u32 format | u8[32] key | u32 arch | u32 flags | u32 nnames |
 *   nnames x (u32 len, name, u32 len, lowered) | u64 size | payload | u8[32] SHA-256 of all
 *   the bytes before it. */
static int nd__jit_serialize(const nd__jit_binary *b, const unsigned char key[32], nd__wbuf *w) {
  unsigned char sum[32];
  nd__wput(w, ND__JIT_MAGIC, 8);
  nd__wu32(w, ND__JIT_FORMAT_VERSION);
  nd__wput(w, key, 32);
  nd__wu32(w, b->arch);
  nd__wu32(w, b->flags);
  nd__wu32(w, (uint32_t)b->nnames);
  for (int i = 0; i < b->nnames; i++) {
    nd__wstr(w, b->names[i]);
    nd__wstr(w, b->lowered[i]);
  }
  nd__wu64(w, (uint64_t)b->size);
  nd__wput(w, b->payload, b->size);
  if (w->failed) return -1;
  nd__sha256(w->p, w->len, sum);
  nd__wput(w, sum, 32);
  return w->failed ? -1 : 0;
}

typedef struct nd__rbuf {
  const unsigned char *p;
  size_t len, pos;
  int bad;
} nd__rbuf;

static const unsigned char *nd__rget(nd__rbuf *r, size_t n) {
  if (r->bad || n > r->len - r->pos) {
    r->bad = 1;
    return NULL;
  }
  const unsigned char *x = r->p + r->pos;
  r->pos += n;
  return x;
}

static uint32_t nd__ru32(nd__rbuf *r) {
  const unsigned char *b = nd__rget(r, 4);
  return b ? (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24 : 0;
}

static char *nd__rstr(nd__rbuf *r) {
  const uint32_t n = nd__ru32(r);
  const unsigned char *s = nd__rget(r, n);
  if (s == NULL) return NULL;
  char *x = (char *)malloc((size_t)n + 1);
  if (x == NULL) {
    r->bad = 1;
    return NULL;
  }
  memcpy(x, s, n);
  x[n] = '\0';
  return x;
}

/* Parses and validates a whole file's bytes. Returns the binary, or NULL with why (static). */
static nd__jit_binary *nd__jit_parse(const unsigned char *p, size_t len, const unsigned char key[32],
                                     uint32_t arch, const char **why) {
  unsigned char sum[32];
  if (len == 0) {
    *why = "empty";
    return NULL;
  }
  if (len < 8 + 4 + 32 + 12 + 8 + 32) {
    *why = "truncated header";
    return NULL;
  }
  if (memcmp(p, ND__JIT_MAGIC, 8) != 0) {
    *why = "bad magic";
    return NULL;
  }
  nd__sha256(p, len - 32, sum);
  if (memcmp(sum, p + len - 32, 32) != 0) {
    *why = "checksum mismatch (truncated or corrupted)";
    return NULL;
  }
  nd__rbuf r = {p, len - 32, 8, 0};
  if (nd__ru32(&r) != ND__JIT_FORMAT_VERSION) {
    *why = "another format version";
    return NULL;
  }
  const unsigned char *k = nd__rget(&r, 32);
  if (k == NULL || memcmp(k, key, 32) != 0) {
    *why = "another key";
    return NULL;
  }
  const uint32_t a = nd__ru32(&r);
  if (a != arch) {
    *why = "another architecture";
    return NULL;
  }
  const uint32_t flags = nd__ru32(&r);
  const uint32_t nn = nd__ru32(&r);
  if (r.bad || nn > 1u << 20) {
    *why = "bad name count";
    return NULL;
  }
  nd__jit_binary *b = nd__jit_binary_new((int)nn, 0);
  if (b == NULL) {
    *why = "out of host memory";
    return NULL;
  }
  b->arch = a;
  b->flags = flags;
  for (uint32_t i = 0; i < nn && !r.bad; i++) {
    b->names[i] = nd__rstr(&r);
    b->lowered[i] = nd__rstr(&r);
  }
  const uint32_t lo = nd__ru32(&r), hi = nd__ru32(&r);
  const uint64_t size = (uint64_t)hi << 32 | lo;
  const unsigned char *payload = (r.bad || size != r.len - r.pos) ? NULL : nd__rget(&r, (size_t)size);
  if (payload == NULL || size == 0) {
    nd__jit_binary_free(b);
    *why = "bad payload length";
    return NULL;
  }
  free(b->payload);
  b->payload = (unsigned char *)malloc((size_t)size);
  if (b->payload == NULL) {
    nd__jit_binary_free(b);
    *why = "out of host memory";
    return NULL;
  }
  memcpy(b->payload, payload, (size_t)size);
  b->size = (size_t)size;
  return b;
}

/* Reads an entry. 1: *out holds a valid binary; 0: no entry; -1: a bad entry (removed, with
 * a warning and a count). */
static int nd__jit_read_entry(nd__jit_cache *c, const char *path, const unsigned char key[32],
                              uint32_t arch, const char *what, nd__jit_binary **out) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  struct stat sb;
  unsigned char *data = NULL;
  const char *why = NULL;
  size_t got = 0;
  if (fstat(fd, &sb) != 0) {
    why = "cannot stat";
  } else {
    data = (unsigned char *)malloc((size_t)sb.st_size + 1);
    if (data == NULL) why = "out of host memory";
    while (data && got < (size_t)sb.st_size) {
      ssize_t n = read(fd, data + got, (size_t)sb.st_size - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += (size_t)n;
    }
  }
  nd__jit_binary *b = why ? NULL : nd__jit_parse(data, got, key, arch, &why);
  if (b) (void)futimens(fd, NULL); /* least recently used: a hit is a use */
  close(fd);
  free(data);
  if (b) {
    *out = b;
    return 1;
  }
  unlink(path);
  pthread_mutex_lock(&c->mu);
  c->st.corrupt_entries++;
  pthread_mutex_unlock(&c->mu);
  nd__jit_warn(c, "kernel cache: removed bad entry %s for '%s' (%s); recompiling", path, what, why);
  return -1;
}

/* Removes temporary files of writers that died: prefix "<hex>.tmp." for one key, or every
 * key when hex is NULL. A temporary file's name carries its writer's process id. */
static void nd__jit_sweep_tmp(nd__jit_cache *c, const char *hex) {
  DIR *d = opendir(c->dir);
  if (d == NULL) return;
  struct dirent *e;
  const time_t now = time(NULL);
  while ((e = readdir(d)) != NULL) {
    const char *t = strstr(e->d_name, ".tmp.");
    if (t == NULL) continue;
    if (hex && (strncmp(e->d_name, hex, 64) != 0 || t != e->d_name + 64)) continue;
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name) >= (int)sizeof path) continue;
    const long pid = strtol(t + 5, NULL, 10);
    struct stat sb;
    int dead = pid <= 0 || (pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH);
    if (!dead && stat(path, &sb) == 0 && now - sb.st_mtime > ND__JIT_STALE_TMP_S) dead = 1;
    if (dead && unlink(path) == 0)
      nd__jit_warn(c, "kernel cache: removed %s, left by a writer that did not finish", path);
  }
  closedir(d);
}

static int nd__write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

typedef struct nd__jit_file {
  char name[NAME_MAX + 1];
  int64_t bytes;
  struct timespec mtime;
} nd__jit_file;

static int nd__jit_file_cmp(const void *a, const void *b) {
  const nd__jit_file *x = (const nd__jit_file *)a, *y = (const nd__jit_file *)b;
  if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Lists the entries; *total gets their size. Returns the array (caller frees) or NULL. */
static nd__jit_file *nd__jit_list(nd__jit_cache *c, size_t *n, int64_t *total) {
  *n = 0;
  *total = 0;
  DIR *d = opendir(c->dir);
  if (d == NULL) return NULL;
  size_t cap = 64;
  nd__jit_file *f = (nd__jit_file *)malloc(cap * sizeof *f);
  struct dirent *e;
  while (f && (e = readdir(d)) != NULL) {
    const size_t len = strlen(e->d_name);
    if (len <= strlen(ND__JIT_EXT) || strcmp(e->d_name + len - strlen(ND__JIT_EXT), ND__JIT_EXT) != 0) continue;
    char path[PATH_MAX];
    struct stat sb;
    if (snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name) >= (int)sizeof path || stat(path, &sb) != 0)
      continue;
    if (*n == cap) {
      nd__jit_file *g = (nd__jit_file *)realloc(f, 2 * cap * sizeof *f);
      if (g == NULL) break;
      f = g;
      cap *= 2;
    }
    snprintf(f[*n].name, sizeof f[*n].name, "%s", e->d_name);
    f[*n].bytes = (int64_t)sb.st_size;
    f[*n].mtime = sb.st_mtim;
    *total += (int64_t)sb.st_size;
    (*n)++;
  }
  closedir(d);
  return f;
}

/* Removes least recently used entries until the directory holds at most cap bytes. keep (may
 * be NULL) names the entry just written, removed only if it alone exceeds the cap. */
static void nd__jit_trim(nd__jit_cache *c, int64_t cap, const char *keep) {
  if (cap <= 0) return;
  size_t n;
  int64_t total;
  nd__jit_file *f = nd__jit_list(c, &n, &total);
  if (f == NULL) return;
  qsort(f, n, sizeof *f, nd__jit_file_cmp);
  for (int pass = 0; pass < 2 && total > cap; pass++)
    for (size_t i = 0; i < n && total > cap; i++) {
      if (f[i].bytes < 0 || (pass == 0 && keep && strcmp(f[i].name, keep) == 0)) continue;
      char path[PATH_MAX];
      snprintf(path, sizeof path, "%s/%s", c->dir, f[i].name);
      if (unlink(path) == 0 || errno == ENOENT) total -= f[i].bytes;
      f[i].bytes = -1;
    }
  free(f);
}

/* Writes an entry atomically: temporary file, fsync, rename, then the directory's fsync. */
static void nd__jit_write_entry(nd__jit_cache *c, const char *hex, const char *path,
                                const unsigned char key[32], const nd__jit_binary *b,
                                const char *what) {
  nd__wbuf w = {NULL, 0, 0, 0};
  if (nd__jit_serialize(b, key, &w) != 0) {
    free(w.p);
    nd__jit_warn(c, "kernel cache: out of host memory writing '%s'", what);
    return;
  }
  char tmp[PATH_MAX];
  pthread_mutex_lock(&c->mu);
  const unsigned long k = ++c->tmp_counter;
  pthread_mutex_unlock(&c->mu);
  snprintf(tmp, sizeof tmp, "%s/%s.tmp.%ld.%lu", c->dir, hex, (long)getpid(), k);
  int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
  int ok = fd >= 0 && nd__write_all(fd, w.p, w.len) == 0 && fsync(fd) == 0;
  const int e = errno;
  if (fd >= 0) close(fd);
  if (ok) ok = rename(tmp, path) == 0;
  if (!ok) {
    if (fd >= 0) unlink(tmp);
    free(w.p);
    nd__jit_warn(c, "kernel cache: cannot write %s for '%s' (%s); the kernel stays in memory only",
                 path, what, strerror(e ? e : EIO));
    return;
  }
  int dfd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)fsync(dfd);
    close(dfd);
  }
  pthread_mutex_lock(&c->mu);
  c->st.bytes_written += w.len;
  pthread_mutex_unlock(&c->mu);
  free(w.p);
  char name[80];
  snprintf(name, sizeof name, "%s" ND__JIT_EXT, hex);
  nd__jit_trim(c, c->max_bytes, name);
}

/* Takes the per-key lock: 1 held (*fd open), 0 timed out or no lock possible (*fd -1). */
static int nd__jit_lock(nd__jit_cache *c, const char *lock, const char *what, int *fd) {
  *fd = open(lock, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
  if (*fd < 0) {
    nd__jit_warn(c, "kernel cache: cannot open lock %s (%s); compiling '%s' without it", lock,
                 strerror(errno), what);
    return 0;
  }
  struct timespec t0, t;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  long sleep_us = 200;
  for (;;) {
    if (flock(*fd, LOCK_EX | LOCK_NB) == 0) return 1;
    if (errno != EWOULDBLOCK && errno != EINTR) break;
    clock_gettime(CLOCK_MONOTONIC, &t);
    const double ms = (double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6;
    if (ms >= c->lock_timeout_ms) {
      nd__jit_warn(c, "kernel cache: waited %d ms for another process's lock %s; compiling '%s' "
                   "here as well", c->lock_timeout_ms, lock, what);
      close(*fd);
      *fd = -1;
      return 0;
    }
    struct timespec d = {0, sleep_us * 1000};
    nanosleep(&d, NULL);
    if (sleep_us < 20000) sleep_us *= 2;
  }
  nd__jit_warn(c, "kernel cache: cannot lock %s (%s); compiling '%s' without it", lock,
               strerror(errno), what);
  close(*fd);
  *fd = -1;
  return 0;
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
  if (c->mode != ND__CACHE_DISK) return ND_OK;
  DIR *d = opendir(c->dir);
  if (d == NULL)
    return nd__error(ND_ERR_IO, "nd_jit_cache_clear: cannot open '%s': %s", c->dir, strerror(errno));
  struct dirent *e;
  nd_status st = ND_OK;
  while ((e = readdir(d)) != NULL) {
    const size_t len = strlen(e->d_name);
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", c->dir, e->d_name) >= (int)sizeof path) continue;
    if (len > strlen(ND__JIT_EXT) && strcmp(e->d_name + len - strlen(ND__JIT_EXT), ND__JIT_EXT) == 0) {
      if (unlink(path) != 0 && errno != ENOENT && st == ND_OK)
        st = nd__error(ND_ERR_IO, "nd_jit_cache_clear: cannot remove '%s': %s", path, strerror(errno));
    } else if (len > 5 && strcmp(e->d_name + len - 5, ".lock") == 0) {
      /* Only a lock nobody holds: removing a held one would let a second process in. */
      int fd = open(path, O_RDWR | O_CLOEXEC);
      if (fd >= 0) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0) unlink(path);
        close(fd);
      }
    }
  }
  closedir(d);
  nd__jit_sweep_tmp(c, NULL);
  return st;
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
