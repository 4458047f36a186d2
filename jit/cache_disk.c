/* The kernel cache's files: entry names, the format (written and validated), temporary files
 * of dead writers, the per-key locks, listing and least-recently-used trimming (see cache.h for
 * the design). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jit/cache_internal.h"
#include "jit/sha256.h"

/* ---- disk entries ------------------------------------------------------------------------ */

void nd__jit_entry_names(nd__jit_cache *c, const char *hex, char *path, char *lock) {
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
int nd__jit_read_entry(nd__jit_cache *c, const char *path, const unsigned char key[32],
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
void nd__jit_sweep_tmp(nd__jit_cache *c, const char *hex) {
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

static int nd__jit_file_cmp(const void *a, const void *b) {
  const nd__jit_file *x = (const nd__jit_file *)a, *y = (const nd__jit_file *)b;
  if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
  if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
  return strcmp(x->name, y->name);
}

/* Lists the entries; *total gets their size. Returns the array (caller frees) or NULL. */
nd__jit_file *nd__jit_list(nd__jit_cache *c, size_t *n, int64_t *total) {
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
void nd__jit_trim(nd__jit_cache *c, int64_t cap, const char *keep) {
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
void nd__jit_write_entry(nd__jit_cache *c, const char *hex, const char *path,
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
int nd__jit_lock(nd__jit_cache *c, const char *lock, const char *what, int *fd) {
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

nd_status nd__jit_disk_clear(nd__jit_cache *c) {
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

