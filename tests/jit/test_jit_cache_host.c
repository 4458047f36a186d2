/* Check suite for the kernel cache (jit/cache.c) without a GPU: a fake compiler and loader
 * drive every path of the memory map, the disk entries, the per-key locks and the
 * statistics. Each test gets its own fresh directory under $TMPDIR.
 *
 * The fake compiler writes a payload derived from the request ("FAKE:<material digest>"),
 * counts its calls (in memory, and in a shared file for the multi-process test), can sleep to
 * widen race windows, and can fail. The fake loader checks the payload's prefix and that it
 * belongs to the request, so a wrong or damaged binary can never pass as a right result. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "tests/nd_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "jit/cache.h"
#include "jit/sha256.h"

/* ---- the fake compiler ---------------------------------------------------------------- */

typedef struct fake {
  atomic_int compiles;
  atomic_int active;     /* compiles running now */
  atomic_int max_active; /* the most seen at once */
  atomic_int loads;
  int delay_ms;
  int fail;              /* compile fails with ND_ERR_COMPILE */
  atomic_int reject_loads; /* the next N loads fail as a driver would */
  const char *count_file; /* a byte appended per compile (multi-process counting) */
  const char *material;   /* the request's material, for the payload */
  uint32_t arch;
} fake;

typedef struct fake_obj {
  atomic_int refs;
  char payload[128];
} fake_obj;

static void sleep_ms(int ms) {
  struct timespec d = {ms / 1000, (long)(ms % 1000) * 1000000L};
  while (nanosleep(&d, &d) != 0 && errno == EINTR) {
  }
}

static void expected_payload(const char *material, char *out, size_t cap) {
  unsigned char d[32];
  char hex[65];
  nd__sha256(material, strlen(material), d);
  nd__sha256_hex(d, hex);
  snprintf(out, cap, "FAKE:%s", hex);
}

static nd_status fake_compile(void *ctx, nd__jit_binary **out, char **log) {
  fake *f = (fake *)ctx;
  atomic_fetch_add(&f->compiles, 1);
  const int now = atomic_fetch_add(&f->active, 1) + 1;
  int m = atomic_load(&f->max_active);
  while (now > m && !atomic_compare_exchange_weak(&f->max_active, &m, now)) {
  }
  if (f->count_file) {
    int fd = open(f->count_file, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd >= 0) {
      (void)!write(fd, "c", 1);
      close(fd);
    }
  }
  if (f->delay_ms) sleep_ms(f->delay_ms);
  atomic_fetch_sub(&f->active, 1);
  if (f->fail) {
    *log = strdup("fake.cu(3): error: expected a \";\"\n1 error detected");
    return nd__error(ND_ERR_COMPILE, "fake: compiling '%s' failed", f->material);
  }
  char p[128];
  expected_payload(f->material, p, sizeof p);
  nd__jit_binary *b = nd__jit_binary_new(1, strlen(p) + 1);
  if (!b) return ND_ERR_OUT_OF_MEMORY;
  b->arch = f->arch;
  b->flags = ND__JIT_COOPERATIVE;
  b->names[0] = strdup("kern<float>");
  b->lowered[0] = strdup("_Z4kernIfEvv");
  memcpy(b->payload, p, strlen(p) + 1);
  *out = b;
  return ND_OK;
}

static nd_status fake_load(void *ctx, const nd__jit_binary *bin, void **obj) {
  fake *f = (fake *)ctx;
  atomic_fetch_add(&f->loads, 1);
  if (atomic_load(&f->reject_loads) > 0) {
    atomic_fetch_sub(&f->reject_loads, 1);
    return nd__error(ND_ERR_CUDA, "fake load: CUDA_ERROR_INVALID_IMAGE");
  }
  char want[128];
  expected_payload(f->material, want, sizeof want);
  if (bin->size != strlen(want) + 1 || memcmp(bin->payload, want, bin->size) != 0)
    return nd__error(ND_ERR_INTERNAL, "fake load: payload is not this request's");
  /* what a disk trip must keep: the names and the flags */
  if (bin->nnames != 1 || strcmp(bin->names[0], "kern<float>") || strcmp(bin->lowered[0], "_Z4kernIfEvv") ||
      bin->flags != ND__JIT_COOPERATIVE)
    return nd__error(ND_ERR_INTERNAL, "fake load: names or flags lost");
  fake_obj *o = calloc(1, sizeof *o);
  atomic_init(&o->refs, 1);
  memcpy(o->payload, bin->payload, bin->size);
  *obj = o;
  return ND_OK;
}

static void *fake_retain(void *obj) {
  atomic_fetch_add(&((fake_obj *)obj)->refs, 1);
  return obj;
}
static void fake_release(void *obj) {
  if (obj && atomic_fetch_sub(&((fake_obj *)obj)->refs, 1) == 1) free(obj);
}

static const nd__jit_ops fake_ops = {fake_compile, fake_load, fake_retain, fake_release};

static void fake_init(fake *f, const char *material) {
  memset(f, 0, sizeof *f);
  f->material = material;
  f->arch = 90;
}

/* ---- fixtures ------------------------------------------------------------------------- */

static char g_dir[512];

static void make_dir(void) {
  const char *t = getenv("TMPDIR");
  snprintf(g_dir, sizeof g_dir, "%s/ndjit-test-XXXXXX", t && *t ? t : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(g_dir));
}

static void rm_rf(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat sb;
    if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      chmod(p, 0755);
      rm_rf(p);
    } else {
      unlink(p);
    }
  }
  closedir(d);
  rmdir(dir);
}

static void setup(void) { make_dir(); }
static void teardown(void) { rm_rf(g_dir); }

static nd__jit_cache *new_cache(int mode, const char *dir, int64_t max_bytes, int parallel) {
  nd__jit_cache_config cfg = {mode, dir, max_bytes, parallel, 10000};
  nd__jit_cache *c = NULL;
  ND_ASSERT_OK(nd__jit_cache_create(&cfg, &c));
  return c;
}

static nd_status get(nd__jit_cache *c, fake *f, uint32_t arch, int *source) {
  nd__jit_request r = {f->material, strlen(f->material), arch, "test_kernel"};
  void *obj = NULL;
  nd_status st = nd__jit_cache_get(c, &r, &fake_ops, f, &obj, source, NULL);
  if (st == ND_OK) {
    char want[128];
    expected_payload(f->material, want, sizeof want);
    ck_assert_str_eq(((fake_obj *)obj)->payload, want);
    fake_release(obj);
  }
  return st;
}

static nd_jit_cache_stats stats(nd__jit_cache *c) {
  nd_jit_cache_stats s;
  nd__jit_cache_stats(c, &s);
  return s;
}

static int count_files(const char *dir, const char *needle) {
  DIR *d = opendir(dir);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    if (strstr(e->d_name, needle)) n++;
  if (d) closedir(d);
  return n;
}

static size_t file_size(const char *p) {
  struct stat sb;
  return stat(p, &sb) == 0 ? (size_t)sb.st_size : 0;
}

/* ---- SHA-256 and key material ------------------------------------------------------------ */

START_TEST(sha256_fips_vectors) {
  /* FIPS 180-4 examples (NIST's "SHA256.pdf"), and a million 'a' fed in odd pieces. */
  static const struct {
    const char *msg;
    const char *hex;
  } v[] = {
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
  };
  unsigned char d[32];
  char hex[65];
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    nd__sha256(v[i].msg, strlen(v[i].msg), d);
    nd__sha256_hex(d, hex);
    ck_assert_str_eq(hex, v[i].hex);
  }
  static char a[1000000];
  memset(a, 'a', sizeof a);
  nd__sha256_ctx c;
  nd__sha256_init(&c);
  for (size_t off = 0, step = 1; off < sizeof a; off += step, step = step * 3 % 997 + 1)
    nd__sha256_update(&c, a + off, off + step > sizeof a ? sizeof a - off : step);
  nd__sha256_final(&c, d);
  nd__sha256_hex(d, hex);
  ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(key_material_separates_fields) {
  nd__jit_key a, b, c;
  nd__jit_key_init(&a);
  nd__jit_key_init(&b);
  nd__jit_key_init(&c);
  nd__jit_key_str(&a, 's', "ab");
  nd__jit_key_str(&a, 'o', "c");
  nd__jit_key_str(&b, 's', "a");
  nd__jit_key_str(&b, 'o', "bc");
  nd__jit_key_str(&c, 's', "ab");
  nd__jit_key_str(&c, 'o', NULL);
  ck_assert(!a.failed && !b.failed && !c.failed);
  ck_assert(a.len != b.len || memcmp(a.data, b.data, a.len) != 0);
  ck_assert(a.len != c.len || memcmp(a.data, c.data, a.len) != 0);
  nd__jit_key_free(&a);
  nd__jit_key_free(&b);
  nd__jit_key_free(&c);
}
END_TEST

/* ---- memory and disk -------------------------------------------------------------------- */

START_TEST(memory_hit_after_compile) {
  nd__jit_cache *c = new_cache(ND__CACHE_MEMORY, NULL, 0, 4);
  fake f;
  fake_init(&f, "source one");
  int src = -1;
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_MEMORY);
  nd_jit_cache_stats s = stats(c);
  ck_assert_int_eq(f.compiles, 1);
  ck_assert_uint_eq(s.compiles, 1);
  ck_assert_uint_eq(s.memory_hits, 1);
  ck_assert_uint_eq(s.misses, 1);
  ck_assert_uint_eq(s.memory_entries, 1);
  ck_assert_uint_eq(s.disk_entries, 0);
  /* a different material is a different key */
  fake g;
  fake_init(&g, "source two");
  ND_ASSERT_OK(get(c, &g, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 0); /* memory mode writes nothing */
  nd__jit_cache_destroy(c);
}
END_TEST

START_TEST(disk_hit_in_a_new_cache) {
  nd__jit_cache *a = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  fake f;
  fake_init(&f, "__global__ void k() {}");
  int src = -1;
  ND_ASSERT_OK(get(a, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 1);
  ck_assert_int_eq(count_files(g_dir, ".tmp."), 0);
  nd_jit_cache_stats sa = stats(a);
  ck_assert_uint_gt(sa.bytes_written, 0);
  ck_assert_uint_eq(sa.disk_bytes, sa.bytes_written);
  nd__jit_cache_destroy(a);
  /* a new cache over the same directory is a new process's view */
  nd__jit_cache *b = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  fake g;
  fake_init(&g, f.material);
  ND_ASSERT_OK(get(b, &g, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_DISK);
  ck_assert_int_eq(g.compiles, 0);
  ck_assert_int_eq(g.loads, 1); /* the one post-load step ran for the disk path */
  nd_jit_cache_stats s = stats(b);
  ck_assert_uint_eq(s.disk_hits, 1);
  ck_assert_uint_eq(s.compiles, 0);
  ck_assert_uint_eq(s.corrupt_entries, 0);
  nd__jit_cache_destroy(b);
}
END_TEST

/* ---- fault injection --------------------------------------------------------------------- */

enum { FAULT_TRUNCATE, FAULT_FLIP, FAULT_EMPTY, FAULT_ARCH, FAULT_LOAD, FAULT_GARBAGE, FAULT_COUNT };

static void damage(const char *path, int kind) {
  const size_t n = file_size(path);
  ck_assert_uint_gt(n, 100);
  if (kind == FAULT_TRUNCATE) {
    ck_assert_int_eq(truncate(path, (off_t)(n / 2)), 0);
  } else if (kind == FAULT_FLIP) {
    int fd = open(path, O_RDWR);
    unsigned char ch;
    ck_assert_int_eq(pread(fd, &ch, 1, (off_t)(n / 2)), 1);
    ch ^= 0x10;
    ck_assert_int_eq(pwrite(fd, &ch, 1, (off_t)(n / 2)), 1);
    close(fd);
  } else if (kind == FAULT_EMPTY) {
    ck_assert_int_eq(truncate(path, 0), 0);
  } else if (kind == FAULT_GARBAGE) {
    int fd = open(path, O_WRONLY | O_TRUNC);
    for (int i = 0; i < 300; i++) (void)!write(fd, "\x7f" "ELF", 4);
    close(fd);
  }
}

START_TEST(fault_bad_entry_is_removed_and_recompiled) {
  static const char *names[] = {"truncated", "flipped byte", "empty", "another arch", "driver load error",
                                "garbage"};
  const int kind = _i;
  fake f;
  fake_init(&f, names[kind]);
  /* FAULT_ARCH: the entry was written for sm_80 under the same key (a directory shared
   * between machines); asked for sm_90 it must be rejected. */
  nd__jit_cache *a = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  f.arch = kind == FAULT_ARCH ? 80 : 90;
  ND_ASSERT_OK(get(a, &f, f.arch, NULL));
  nd__jit_cache_destroy(a);
  char path[1024];
  nd__jit_cache *b = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  nd__jit_cache_entry_path(b, f.material, strlen(f.material), path, sizeof path);
  ck_assert_uint_gt(file_size(path), 0);
  damage(path, kind);
  fake g;
  fake_init(&g, f.material);
  if (kind == FAULT_LOAD) atomic_store(&g.reject_loads, 1);
  int src = -1;
  ND_ASSERT_OK(get(b, &g, 90, &src));
  ck_assert_msg(src == ND__JIT_FROM_COMPILE, "%s: source %d", names[kind], src);
  ck_assert_int_eq(g.compiles, 1);
  nd_jit_cache_stats s = stats(b);
  ck_assert_uint_eq(s.corrupt_entries, 1);
  ck_assert_uint_ge(s.warnings, 1);
  char w[512];
  nd__jit_cache_last_warning(b, w, sizeof w);
  ck_assert_msg(strstr(w, "test_kernel") && strstr(w, "recompiling"), "warning: %s", w);
  nd__jit_cache_destroy(b);
  /* the rewritten entry is good: a third cache loads it without compiling */
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  fake h;
  fake_init(&h, f.material);
  ND_ASSERT_OK(get(c, &h, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_DISK);
  ck_assert_int_eq(h.compiles, 0);
  ck_assert_uint_eq(stats(c).corrupt_entries, 0);
  nd__jit_cache_destroy(c);
}
END_TEST

START_TEST(fault_temp_file_of_a_killed_writer) {
  fake f;
  fake_init(&f, "killed writer");
  unsigned char key[32];
  char hex[65];
  nd__sha256(f.material, strlen(f.material), key);
  nd__sha256_hex(key, hex);
  /* A child starts writing the key's temporary file the way a writer does, then is killed. */
  int pfd[2];
  ck_assert_int_eq(pipe(pfd), 0);
  pid_t pid = fork();
  if (pid == 0) {
    char tmp[1024];
    snprintf(tmp, sizeof tmp, "%s/%s.tmp.%ld.1", g_dir, hex, (long)getpid());
    int fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY, 0644);
    (void)!write(fd, "NDJITBIN\x01\x00\x00\x00half", 16);
    (void)!write(pfd[1], "x", 1);
    for (;;) pause();
  }
  char ch;
  ck_assert_int_eq(read(pfd[0], &ch, 1), 1);
  kill(pid, SIGKILL);
  int status;
  waitpid(pid, &status, 0);
  close(pfd[0]);
  close(pfd[1]);
  ck_assert_int_eq(count_files(g_dir, ".tmp."), 1);
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  int src = -1;
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  ck_assert_int_eq(f.compiles, 1);
  ck_assert_int_eq(count_files(g_dir, ".tmp."), 0); /* swept under the key's lock */
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 1);
  nd__jit_cache_destroy(c);
  nd__jit_cache *d = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  fake g;
  fake_init(&g, f.material);
  ND_ASSERT_OK(get(d, &g, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_DISK);
  nd__jit_cache_destroy(d);
}
END_TEST

START_TEST(fault_unwritable_directory_falls_back_to_memory) {
  /* A path under a regular file can never be a directory, root or not. */
  char file[600], dir[700];
  snprintf(file, sizeof file, "%s/plainfile", g_dir);
  int fd = open(file, O_CREAT | O_WRONLY, 0644);
  close(fd);
  snprintf(dir, sizeof dir, "%s/cache", file);
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, dir, 0, 4);
  ck_assert_int_eq(nd__jit_cache_mode(c), ND__CACHE_MEMORY);
  char w[512];
  nd__jit_cache_last_warning(c, w, sizeof w);
  ck_assert_msg(strstr(w, "not writable") && strstr(w, "memory"), "warning: %s", w);
  fake f;
  fake_init(&f, "unwritable");
  int src = -1;
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_MEMORY);
  ck_assert_int_eq(f.compiles, 1);
  nd__jit_cache_destroy(c);
  if (geteuid() != 0) {
    /* and a directory without write permission (root ignores the mode bits) */
    char ro[700];
    snprintf(ro, sizeof ro, "%s/readonly", g_dir);
    mkdir(ro, 0555);
    c = new_cache(ND__CACHE_DISK, ro, 0, 4);
    ck_assert_int_eq(nd__jit_cache_mode(c), ND__CACHE_MEMORY);
    nd__jit_cache_destroy(c);
  }
}
END_TEST

START_TEST(directory_removed_after_start_keeps_working) {
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  rm_rf(g_dir);
  fake f;
  fake_init(&f, "dir vanished");
  int src = -1;
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  char w[512];
  nd__jit_cache_last_warning(c, w, sizeof w);
  ck_assert_msg(strstr(w, "memory only") || strstr(w, "lock"), "warning: %s", w);
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_MEMORY);
  nd__jit_cache_destroy(c);
  mkdir(g_dir, 0755);
}
END_TEST

/* ---- threads ----------------------------------------------------------------------------- */

typedef struct thr {
  nd__jit_cache *c;
  fake *f;
  pthread_barrier_t *bar;
  nd_status st;
  int src;
  char log[128];
} thr;

static void *thr_main(void *p) {
  thr *t = (thr *)p;
  pthread_barrier_wait(t->bar);
  nd__jit_request r = {t->f->material, strlen(t->f->material), 90, "thread_kernel"};
  void *obj = NULL;
  char *log = NULL;
  t->st = nd__jit_cache_get(t->c, &r, &fake_ops, t->f, &obj, &t->src, &log);
  if (log) snprintf(t->log, sizeof t->log, "%s", log);
  free(log);
  if (t->st == ND_OK) {
    char want[128];
    expected_payload(t->f->material, want, sizeof want);
    if (strcmp(((fake_obj *)obj)->payload, want) != 0) t->st = ND_ERR_INTERNAL;
    fake_release(obj);
  }
  return NULL;
}

static void run_threads(nd__jit_cache *c, int n, fake *fakes, int nkeys, thr *t) {
  pthread_t th[64];
  pthread_barrier_t bar;
  pthread_barrier_init(&bar, NULL, (unsigned)n);
  for (int i = 0; i < n; i++) {
    t[i] = (thr){c, &fakes[i % nkeys], &bar, ND_OK, -1, ""};
    pthread_create(&th[i], NULL, thr_main, &t[i]);
  }
  for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
  pthread_barrier_destroy(&bar);
}

START_TEST(single_flight_32_threads_one_key) {
  nd__jit_cache *c = new_cache(_i ? ND__CACHE_DISK : ND__CACHE_MEMORY, g_dir, 0, 4);
  fake f;
  fake_init(&f, "one kernel for 32 threads");
  f.delay_ms = 100;
  thr t[32];
  run_threads(c, 32, &f, 1, t);
  int compiled = 0;
  for (int i = 0; i < 32; i++) {
    ck_assert_msg(t[i].st == ND_OK, "thread %d: %s", i, nd_status_name(t[i].st));
    compiled += t[i].src == ND__JIT_FROM_COMPILE;
  }
  ck_assert_int_eq(f.compiles, 1);
  ck_assert_int_eq(compiled, 1);
  nd_jit_cache_stats s = stats(c);
  ck_assert_uint_eq(s.compiles, 1);
  ck_assert_uint_eq(s.misses, 1);
  ck_assert_uint_eq(s.memory_hits, 31);
  nd__jit_cache_destroy(c);
}
END_TEST

START_TEST(four_keys_compile_in_parallel_bounded) {
  const int bound = _i ? 2 : 4;
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, g_dir, 0, bound);
  static const char *m[4] = {"key a", "key b", "key c", "key d"};
  fake f[4];
  for (int k = 0; k < 4; k++) {
    fake_init(&f[k], m[k]);
    f[k].delay_ms = 150;
  }
  thr t[32];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  run_threads(c, 32, f, 4, t);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  for (int i = 0; i < 32; i++) ck_assert_msg(t[i].st == ND_OK, "thread %d", i);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(f[k].compiles, 1);
  nd_jit_cache_stats s = stats(c);
  ck_assert_uint_eq(s.compiles, 4);
  ck_assert_uint_eq(s.memory_hits, 28);
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 4);
  /* 4 compiles of 150 ms: with 4 at once about 150 ms, with 2 at once about 300 ms, and
   * never the 600 ms of one at a time; never faster than the bound allows. */
  ck_assert_msg(ms >= 150.0 * (4 / bound) - 5, "%d at once took only %.0f ms", bound, ms);
  ck_assert_msg(ms < 150.0 * (4 / bound) + 250, "%d at once took %.0f ms", bound, ms);
  nd__jit_cache_destroy(c);
}
END_TEST

START_TEST(failed_compile_reaches_every_waiter_and_is_not_cached) {
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  fake f;
  fake_init(&f, "broken source");
  f.delay_ms = 100;
  f.fail = 1;
  thr t[16];
  run_threads(c, 16, &f, 1, t);
  for (int i = 0; i < 16; i++) {
    ck_assert_msg(t[i].st == ND_ERR_COMPILE, "thread %d: %s", i, nd_status_name(t[i].st));
    ck_assert_msg(strstr(t[i].log, "expected a") != NULL, "thread %d log '%s'", i, t[i].log);
  }
  ck_assert_int_eq(f.compiles, 1);
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 0);
  /* not cached: the next ask compiles again, and succeeds once the source is fixed */
  f.delay_ms = 0;
  ND_ASSERT_FAILS(get(c, &f, 90, NULL), ND_ERR_COMPILE, "broken source");
  ck_assert_int_eq(f.compiles, 2);
  f.fail = 0;
  ND_ASSERT_OK(get(c, &f, 90, NULL));
  ck_assert_int_eq(f.compiles, 3);
  nd_jit_cache_stats s = stats(c);
  ck_assert_uint_eq(s.failed_compiles, 2);
  ck_assert_uint_eq(s.memory_entries, 1);
  nd__jit_cache_destroy(c);
}
END_TEST

/* ---- processes --------------------------------------------------------------------------- */

START_TEST(eight_processes_on_an_empty_directory_compile_once) {
  char counter[600];
  snprintf(counter, sizeof counter, "%s/compiles.count", g_dir);
  char dir[600];
  snprintf(dir, sizeof dir, "%s/cache", g_dir);
  int go[2];
  ck_assert_int_eq(pipe(go), 0);
  pid_t pids[8];
  for (int p = 0; p < 8; p++) {
    pids[p] = fork();
    ck_assert_int_ge(pids[p], 0);
    if (pids[p] == 0) {
      close(go[1]);
      char ch;
      (void)!read(go[0], &ch, 1); /* all start together when the parent closes the pipe */
      nd__jit_cache_config cfg = {ND__CACHE_DISK, dir, 0, 4, 20000};
      nd__jit_cache *c = NULL;
      if (nd__jit_cache_create(&cfg, &c) != ND_OK) _exit(2);
      fake f;
      fake_init(&f, "shared by 8 processes");
      f.delay_ms = 150;
      f.count_file = counter;
      nd__jit_request r = {f.material, strlen(f.material), 90, "process_kernel"};
      void *obj = NULL;
      nd_status st = nd__jit_cache_get(c, &r, &fake_ops, &f, &obj, NULL, NULL);
      if (st != ND_OK) _exit(3);
      char want[128];
      expected_payload(f.material, want, sizeof want);
      const int right = strcmp(((fake_obj *)obj)->payload, want) == 0;
      fake_release(obj);
      nd__jit_cache_destroy(c);
      _exit(right ? 0 : 4);
    }
  }
  close(go[0]);
  sleep_ms(50);
  close(go[1]);
  int errors = 0;
  for (int p = 0; p < 8; p++) {
    int status = 0;
    waitpid(pids[p], &status, 0);
    errors += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ck_assert_int_eq(errors, 0);
  ck_assert_uint_eq(file_size(counter), 1); /* one compile among the eight */
  ck_assert_int_eq(count_files(dir, ".ndjit"), 1);
  ck_assert_int_eq(count_files(dir, ".tmp."), 0);
}
END_TEST

START_TEST(lock_timeout_falls_back_to_compiling) {
  nd__jit_cache_config cfg = {ND__CACHE_DISK, g_dir, 0, 4, 200};
  nd__jit_cache *c = NULL;
  ND_ASSERT_OK(nd__jit_cache_create(&cfg, &c));
  fake f;
  fake_init(&f, "lock held elsewhere");
  unsigned char key[32];
  char hex[65], lock[700];
  nd__sha256(f.material, strlen(f.material), key);
  nd__sha256_hex(key, hex);
  snprintf(lock, sizeof lock, "%s/%s.lock", g_dir, hex);
  /* flock locks belong to open file descriptions: this one conflicts with the cache's */
  int fd = open(lock, O_CREAT | O_RDWR, 0644);
  ck_assert_int_eq(flock(fd, LOCK_EX), 0);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  int src = -1;
  ND_ASSERT_OK(get(c, &f, 90, &src));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
  ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  ck_assert_msg(ms >= 195 && ms < 2000, "waited %.0f ms", ms);
  char w[512];
  nd__jit_cache_last_warning(c, w, sizeof w);
  ck_assert_msg(strstr(w, "waited 200 ms"), "warning: %s", w);
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 1); /* the rename is still atomic */
  close(fd);
  nd__jit_cache_destroy(c);
}
END_TEST

/* ---- size cap, clear, prune, modes ------------------------------------------------------- */

START_TEST(lru_cap_evicts_least_recently_used) {
  /* Measure one entry, then cap at three entries' worth. */
  char mats[6][32];
  fake f[6];
  for (int k = 0; k < 6; k++) {
    snprintf(mats[k], sizeof mats[k], "lru kernel %d", k);
    fake_init(&f[k], mats[k]);
  }
  nd__jit_cache *probe = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  ND_ASSERT_OK(get(probe, &f[0], 90, NULL));
  const int64_t one = (int64_t)stats(probe).disk_bytes;
  nd__jit_cache_destroy(probe);
  ck_assert_int_gt(one, 0);
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, g_dir, 3 * one, 4);
  for (int k = 1; k < 3; k++) {
    sleep_ms(20); /* distinct modification times */
    ND_ASSERT_OK(get(c, &f[k], 90, NULL));
  }
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 3);
  /* kernel 0 is the oldest; a disk hit from another cache makes it the newest */
  sleep_ms(20);
  nd__jit_cache *other = new_cache(ND__CACHE_DISK, g_dir, 3 * one, 4);
  fake g;
  fake_init(&g, mats[0]);
  int src = -1;
  ND_ASSERT_OK(get(other, &g, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_DISK);
  nd__jit_cache_destroy(other);
  sleep_ms(20);
  ND_ASSERT_OK(get(c, &f[3], 90, NULL)); /* evicts kernel 1, the least recently used */
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 3);
  nd_jit_cache_stats s = stats(c);
  ck_assert_int_le((int64_t)s.disk_bytes, 3 * one);
  char path[1024];
  nd__jit_cache_entry_path(c, mats[1], strlen(mats[1]), path, sizeof path);
  ck_assert_uint_eq(file_size(path), 0);
  for (int k = 0; k < 4; k++) {
    if (k == 1) continue;
    nd__jit_cache_entry_path(c, mats[k], strlen(mats[k]), path, sizeof path);
    ck_assert_msg(file_size(path) > 0, "kernel %d was evicted", k);
  }
  /* prune to one entry's worth keeps the newest */
  ND_ASSERT_OK(nd__jit_cache_prune(c, one));
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 1);
  nd__jit_cache_entry_path(c, mats[3], strlen(mats[3]), path, sizeof path);
  ck_assert_uint_gt(file_size(path), 0);
  nd__jit_cache_destroy(c);
}
END_TEST

START_TEST(clear_empties_memory_and_disk) {
  nd__jit_cache *c = new_cache(ND__CACHE_DISK, g_dir, 0, 4);
  fake f;
  fake_init(&f, "clear me");
  ND_ASSERT_OK(get(c, &f, 90, NULL));
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 1);
  ck_assert_uint_eq(stats(c).memory_entries, 1);
  ND_ASSERT_OK(nd__jit_cache_clear(c));
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 0);
  ck_assert_int_eq(count_files(g_dir, ".lock"), 0);
  ck_assert_uint_eq(stats(c).memory_entries, 0);
  int src = -1;
  ND_ASSERT_OK(get(c, &f, 90, &src));
  ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  ck_assert_int_eq(f.compiles, 2);
  nd__jit_cache_destroy(c);
}
END_TEST

START_TEST(mode_off_compiles_every_time) {
  nd__jit_cache *c = new_cache(ND__CACHE_OFF, g_dir, 0, 4);
  fake f;
  fake_init(&f, "no cache");
  int src = -1;
  for (int i = 0; i < 3; i++) {
    ND_ASSERT_OK(get(c, &f, 90, &src));
    ck_assert_int_eq(src, ND__JIT_FROM_COMPILE);
  }
  ck_assert_int_eq(f.compiles, 3);
  ck_assert_int_eq(count_files(g_dir, ".ndjit"), 0);
  nd__jit_cache_destroy(c);
}
END_TEST

/* The process cache reads ND_CACHE, ND_CACHE_DIR and ND_CACHE_MAX_BYTES once: each case runs
 * in a child process with its own environment. */
static int child_global(const char *mode, const char *dir, const char *max) {
  pid_t pid = fork();
  if (pid == 0) {
    if (mode) setenv("ND_CACHE", mode, 1); else unsetenv("ND_CACHE");
    if (dir) setenv("ND_CACHE_DIR", dir, 1); else unsetenv("ND_CACHE_DIR");
    if (max) setenv("ND_CACHE_MAX_BYTES", max, 1); else unsetenv("ND_CACHE_MAX_BYTES");
    nd__config_reload(); /* the parent may have read the environment already */
    nd__jit_cache *c = nd__jit_cache_global();
    char w[512];
    nd__jit_cache_last_warning(c, w, sizeof w);
    int code = nd__jit_cache_mode(c) * 10;
    if (w[0]) code += 1;
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

START_TEST(environment_configures_the_process_cache) {
  char dir[600], bad[700];
  snprintf(dir, sizeof dir, "%s/envcache", g_dir);
  ck_assert_int_eq(child_global(NULL, dir, NULL), ND__CACHE_DISK * 10);
  ck_assert_int_eq(child_global("0", dir, NULL), ND__CACHE_OFF * 10);
  ck_assert_int_eq(child_global("memory", dir, NULL), ND__CACHE_MEMORY * 10);
  ck_assert_int_eq(child_global("disk", dir, "1048576"), ND__CACHE_DISK * 10);
  ck_assert_int_eq(child_global("sideways", dir, NULL), ND__CACHE_DISK * 10 + 1);
  ck_assert_int_eq(child_global("disk", dir, "lots"), ND__CACHE_DISK * 10 + 1);
  snprintf(bad, sizeof bad, "%s/plain", g_dir);
  close(open(bad, O_CREAT | O_WRONLY, 0644));
  strcat(bad, "/sub");
  ck_assert_int_eq(child_global("disk", bad, NULL), ND__CACHE_MEMORY * 10 + 1);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("jit_cache_host");
  TCase *t = tcase_create("sha256");
  tcase_add_test(t, sha256_fips_vectors);
  tcase_add_test(t, key_material_separates_fields);
  suite_add_tcase(s, t);
  t = tcase_create("cache");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 60);
  tcase_add_test(t, memory_hit_after_compile);
  tcase_add_test(t, disk_hit_in_a_new_cache);
  tcase_add_loop_test(t, fault_bad_entry_is_removed_and_recompiled, 0, FAULT_COUNT);
  tcase_add_test(t, fault_temp_file_of_a_killed_writer);
  tcase_add_test(t, fault_unwritable_directory_falls_back_to_memory);
  tcase_add_test(t, directory_removed_after_start_keeps_working);
  tcase_add_loop_test(t, single_flight_32_threads_one_key, 0, 2);
  tcase_add_loop_test(t, four_keys_compile_in_parallel_bounded, 0, 2);
  tcase_add_test(t, failed_compile_reaches_every_waiter_and_is_not_cached);
  tcase_add_test(t, eight_processes_on_an_empty_directory_compile_once);
  tcase_add_test(t, lock_timeout_falls_back_to_compiling);
  tcase_add_test(t, lru_cap_evicts_least_recently_used);
  tcase_add_test(t, clear_empties_memory_and_disk);
  tcase_add_test(t, mode_off_compiles_every_time);
  tcase_add_test(t, environment_configures_the_process_cache);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return nd_test_main(suite()); }
