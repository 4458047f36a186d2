/* The kernel cache: one module that every run-time compiled kernel goes through (raw modules,
 * generated elementwise and reduction kernels).
 *
 * A request carries its *key material*: one byte string that holds everything that changes
 * the binary (source, each header's name and content, options in order, name expressions, the
 * cooperative flag, the exact architecture, the NVRTC and ndcuda versions and the cache format
 * version), built with nd__jit_key_*. Nothing nondeterministic goes in; compiler output never.
 *
 * Levels:
 * - memory: a per-cache map from key material to the loaded object. A lookup hashes the
 *   material with a fast non-cryptographic hash and compares it byte for byte, so a hit costs
 *   a mutex, a hash of a few kilobytes and a memcmp (well under a microsecond); the SHA-256 is
 *   only computed on a miss. Single flight per key: the first thread to miss inserts a pending
 *   slot and compiles; later threads asking for the same material wait on that slot only;
 *   threads with other keys go on in parallel, at most max_parallel of them compiling at once.
 *   A failed compile is handed to every waiter (status, message, log) and is not kept.
 * - disk: one file per key, named by the SHA-256 of the material, holding magic, format
 *   version, the key, arch, flags, the name expressions with their lowered names, the payload
 *   and a SHA-256 of everything before it. Written to a temporary file in the same directory,
 *   fsynced and renamed over the final name. Read back with every length and the checksum
 *   validated; any bad entry (empty, truncated, flipped byte, another arch or key, or a
 *   payload the post-load step rejects) is removed with a warning and recompiled. Processes
 *   sharing the directory take an advisory per-key lock (flock on <key>.lock) around
 *   "look on disk, else compile and write", so N processes compile a key once; after
 *   lock_timeout_ms without the lock a process compiles anyway (safe: renames are atomic).
 *   After each write the directory is trimmed to max_bytes, least recently used first (a disk
 *   hit touches its file's modification time).
 *
 * One post-load step: whatever the binary's origin (fresh compile or disk), ops->load turns it
 * into the loaded object. That is what makes a cached kernel behave exactly like a freshly
 * compiled one (field report 1).
 *
 * Plain host code: the compile and load steps are callbacks, so the host test suite drives
 * every file-handling path with a fake compiler. */
#ifndef ND_JIT_CACHE_H
#define ND_JIT_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "src/internal.h"
#include "ndcuda/jit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever the file layout or the key material's layout changes. */
#define ND__JIT_FORMAT_VERSION 1u

enum { ND__JIT_COOPERATIVE = 1u, ND__JIT_PTX = 2u };

enum nd__jit_mode { ND__CACHE_OFF = 0, ND__CACHE_MEMORY = 1, ND__CACHE_DISK = 2 };

/* A compiled binary with what must survive a trip through the disk cache. */
typedef struct nd__jit_binary {
  uint32_t arch;            /* 90 for sm_90 */
  uint32_t flags;           /* ND__JIT_COOPERATIVE, ND__JIT_PTX */
  int nnames;
  char **names;             /* name expressions as the user wrote them */
  char **lowered;           /* their lowered (mangled) names */
  unsigned char *payload;   /* CUBIN, or PTX text with its NUL when ND__JIT_PTX */
  size_t size;
  char *log;                /* compile log of a fresh compile; NULL after a disk read */
} nd__jit_binary;

/* A binary with room for nnames names and size payload bytes (zeroed), or NULL. */
nd__jit_binary *nd__jit_binary_new(int nnames, size_t size);
void nd__jit_binary_free(nd__jit_binary *b);

/* The steps a cache request needs. compile builds the binary (setting the thread's message
 * and, optionally, *log on failure: a malloc'd string the cache frees). load is the single
 * post-load step (borrows bin). retain/release manage the loaded object's references. */
typedef struct nd__jit_ops {
  nd_status (*compile)(void *ctx, nd__jit_binary **out, char **log);
  nd_status (*load)(void *ctx, const nd__jit_binary *bin, void **obj);
  void *(*retain)(void *obj);
  void (*release)(void *obj);
} nd__jit_ops;

typedef struct nd__jit_request {
  const void *material; /* key material (see nd__jit_key_*) */
  size_t material_len;
  uint32_t arch;        /* expected in a disk entry */
  const char *what;     /* names the kernel in messages and warnings */
} nd__jit_request;

/* Where a get found its object. */
enum nd__jit_origin { ND__JIT_FROM_MEMORY = 0, ND__JIT_FROM_DISK = 1, ND__JIT_FROM_COMPILE = 2 };

typedef struct nd__jit_cache_config {
  int mode;             /* nd__jit_mode */
  const char *dir;      /* disk mode: the directory (created if missing) */
  int64_t max_bytes;    /* 0: no cap */
  int max_parallel;     /* concurrent compiles, >= 1 */
  int lock_timeout_ms;  /* wait for another process's per-key lock at most this long */
} nd__jit_cache_config;

typedef struct nd__jit_cache nd__jit_cache;

/* A cache with its own map and statistics. A directory that cannot be created or written
 * turns the cache into a memory cache with a warning (never an error). Errors: out of memory. */
nd_status nd__jit_cache_create(const nd__jit_cache_config *cfg, nd__jit_cache **out);
/* Releases every object the memory map holds. No get may be in flight. */
void nd__jit_cache_destroy(nd__jit_cache *c);

/* The process's cache, configured once from ND_CACHE, ND_CACHE_DIR, ND_CACHE_MAX_BYTES. */
nd__jit_cache *nd__jit_cache_global(void);

/* Finds or builds the object for a request: a new reference in *obj (release it with
 * ops->release). *source (may be NULL) tells where it came from. On failure the thread's
 * message names req->what; *log (may be NULL) receives a malloc'd copy of the compile log
 * when there is one. Safe from any number of threads and processes. */
nd_status nd__jit_cache_get(nd__jit_cache *c, const nd__jit_request *req, const nd__jit_ops *ops,
                            void *ctx, void **obj, int *source, char **log);

void nd__jit_cache_stats(nd__jit_cache *c, nd_jit_cache_stats *out);
/* Copies the last warning ("" if none) into buf (cap bytes, NUL-terminated). */
void nd__jit_cache_last_warning(nd__jit_cache *c, char *buf, size_t cap);
int nd__jit_cache_mode(nd__jit_cache *c);
const char *nd__jit_cache_dir(nd__jit_cache *c);
/* Drops the memory map's ready objects (pending compiles finish undisturbed) and, when
 * disk, removes every entry, stale temporary file and unlocked lock file. */
nd_status nd__jit_cache_clear(nd__jit_cache *c);
/* Trims the directory to max_bytes (< 0: the configured cap) least recently used first and
 * removes temporary files left by writers that died. */
nd_status nd__jit_cache_prune(nd__jit_cache *c, int64_t max_bytes);
/* The disk path of a request's entry (for tests and diagnostics); "" when not disk. */
void nd__jit_cache_entry_path(nd__jit_cache *c, const void *material, size_t len, char *buf,
                              size_t cap);

/* ---- key material ----------------------------------------------------------------------
 * A growable byte string of tagged, length-prefixed fields, so that ("ab","c") and
 * ("a","bc") never collide. */
typedef struct nd__jit_key {
  unsigned char *data;
  size_t len, cap;
  int failed; /* an allocation failed; the key must not be used */
} nd__jit_key;

void nd__jit_key_init(nd__jit_key *k);
void nd__jit_key_free(nd__jit_key *k);
void nd__jit_key_bytes(nd__jit_key *k, char tag, const void *p, size_t n);
void nd__jit_key_str(nd__jit_key *k, char tag, const char *s); /* NULL hashes differently from "" */
void nd__jit_key_u64(nd__jit_key *k, char tag, uint64_t v);

#ifdef __cplusplus
}
#endif

#endif /* ND_JIT_CACHE_H */
