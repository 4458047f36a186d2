/* The kernel cache's object, shared by cache.c (memory map, get) and cache_disk.c (files).
 * Not installed. */
#ifndef ND_JIT_CACHE_INTERNAL_H
#define ND_JIT_CACHE_INTERNAL_H

#include <limits.h>
#include <pthread.h>

#include "jit/cache.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ND__JIT_MAGIC "NDJITBIN"
#define ND__JIT_EXT ".ndjit"
#define ND__JIT_WARN 512
/* A temporary file older than this is a dead writer's whatever its process id says (ids are
 * reused). */
#define ND__JIT_STALE_TMP_S 3600

typedef struct nd__jit_slot nd__jit_slot;

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

/* Records a warning (counted; nd__jit_cache_last_warning returns the last). */
void nd__jit_warn(nd__jit_cache *c, const char *fmt, ...) ND__PRINTF(2, 3);

/* Entry and lock paths of a key (hex: its SHA-256 in hexadecimal); lock may be NULL. */
void nd__jit_entry_names(nd__jit_cache *c, const char *hex, char *path, char *lock);

/* Reads and validates an entry: 1 with *out set, 0 when there is none, -1 for a bad entry
 * (removed, counted, warned about). */
int nd__jit_read_entry(nd__jit_cache *c, const char *path, const unsigned char key[32], uint32_t arch,
                       const char *what, nd__jit_binary **out);

/* Writes an entry atomically (temporary file, fsync, rename) and trims the directory. */
void nd__jit_write_entry(nd__jit_cache *c, const char *hex, const char *path, const unsigned char key[32],
                         const nd__jit_binary *b, const char *what);

/* Removes temporary files of writers that died, of one key (hex) or of all (NULL). */
void nd__jit_sweep_tmp(nd__jit_cache *c, const char *hex);

/* Takes the per-key lock: 1 held (*fd open), 0 timed out or impossible (*fd -1). */
int nd__jit_lock(nd__jit_cache *c, const char *lock, const char *what, int *fd);

typedef struct nd__jit_file {
  char name[NAME_MAX + 1];
  int64_t bytes;
  struct timespec mtime;
} nd__jit_file;

/* The entries of the directory (malloc'd, *n of them, *total bytes), or NULL. */
nd__jit_file *nd__jit_list(nd__jit_cache *c, size_t *n, int64_t *total);

/* Removes least recently used entries until at most cap bytes remain (keep: spared first). */
void nd__jit_trim(nd__jit_cache *c, int64_t cap, const char *keep);

/* Removes every entry, unlocked lock file and stale temporary file. Errors: ND_ERR_IO. */
nd_status nd__jit_disk_clear(nd__jit_cache *c);

#ifdef __cplusplus
}
#endif

#endif /* ND_JIT_CACHE_INTERNAL_H */
