/* The library's configuration: every environment variable it reads, in one table.
 *
 * Each entry has a name, a kind, a default and one line of documentation; the README's
 * "Environment" table is this table (test_config checks that they match row for row). The
 * environment is read once, at the first call of any getter, and the values are kept for the
 * life of the process: a variable changed afterwards (setenv) has no effect. The getters are
 * cheap after that first call (a load and an array read), so they may sit on any path, but no
 * code outside src/config.c calls getenv.
 *
 * Variables of other software that the library honours (CUDA_PATH, CUDA_HOME) are entries too.
 *
 * Kinds:
 *   FLAG  "0", "false", "off", "no" (any case) are false, any other non-empty value true;
 *         unset or empty: the default.
 *   TEXT  the value as given; unset or empty: the default (NULL where the default is "unset").
 *   SIZE  a byte count: digits (a fraction allowed) with an optional K, M, G or T suffix
 *         (powers of 1024), or a percentage of a total the caller knows ("50%"); unset, empty
 *         or unparsable: the default (an unparsable value is ignored rather than failing every
 *         call that depends on it). */
#ifndef ND_CONFIG_H
#define ND_CONFIG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* X(id, variable, kind, values, default, documentation), written as the README shows them
 * (the README wraps a default in backquotes unless it has its own or reads "unset"). The
 * default is also what the getters return when the variable is unset: FLAG "0" or "1", SIZE a
 * value in the variable's own syntax, TEXT the text ("unset": NULL). Append new entries at the
 * end. */
#define ND__CONFIG_TABLE(X)                                                                       \
  X(GPU_MEMORY_LIMIT, "ND_GPU_MEMORY_LIMIT", SIZE, "bytes, `512M`, `2G`, or `50%`", "0",           \
    "cap on device bytes in use per device (a percentage is of the device's memory); 0: none")    \
  X(PER_THREAD_DEFAULT_STREAM, "ND_PER_THREAD_DEFAULT_STREAM", FLAG, "`0` or `1`", "0",             \
    "`1`: the default current stream is the per-thread stream, not the legacy null stream")       \
  X(AUTO_EVENTS, "ND_AUTO_EVENTS", FLAG, "`0` or `1`", "1",                                       \
    "diagnostic only: `0` turns automatic cross-stream ordering off, to show the races it "        \
    "prevents")                                                                                   \
  X(SEED, "ND_SEED", TEXT, "decimal or `0x` hex, unsigned 64-bit", "unset",                        \
    "seed of every thread's default random generator; unset: a seed from operating-system "       \
    "entropy per thread")                                                                         \
  X(TF32, "ND_TF32", FLAG, "`0` or `1`", "0",                                                     \
    "`1`: float32 matrix products may use TF32 tensor cores (the process default of "              \
    "`nd_linalg_set_tf32`)")                                                                      \
  X(SOLVE_RBT, "ND_SOLVE_RBT", FLAG, "`0` or `1`", "1",                                           \
    "`0`: `nd_linalg_solve` of large real systems in checked mode skips the randomised solve "     \
    "and uses partial pivoting (cuSOLVER getrf + getrs) directly")                                \
  X(CACHE, "ND_CACHE", TEXT, "`0`, `memory` or `disk`", "disk",                                   \
    "where compiled run-time kernels are kept: nowhere, in memory for the process, or also on "    \
    "disk across processes")                                                                      \
  X(CACHE_DIR, "ND_CACHE_DIR", TEXT, "a folder", "`$XDG_CACHE_HOME/ndcuda`",                      \
    "folder of the on-disk kernel cache (`$HOME/.cache/ndcuda` when `XDG_CACHE_HOME` is unset)")  \
  X(CACHE_MAX_BYTES, "ND_CACHE_MAX_BYTES", SIZE, "bytes, `512M`, `2G`", "1G",             \
    "size past which the on-disk kernel cache drops its least recently used entries; 0: no cap") \
  X(INV_NOPIV, "ND_INV_NOPIV", FLAG, "`0` or `1`", "1",                                           \
    "`0`: `nd_linalg_inv` of large row diagonally dominant real matrices in checked mode skips "  \
    "the path without pivoting (linalg/inv_large.c) and uses partial pivoting directly")         \
  X(CUDA_PATH, "CUDA_PATH", TEXT, "a folder", "unset",                                            \
    "CUDA toolkit whose `include/` run-time compiled kernels see (first choice)")                 \
  X(CUDA_HOME, "CUDA_HOME", TEXT, "a folder", "unset",                                            \
    "the same, when `CUDA_PATH` is unset; else the toolkit the library was built with")

typedef enum nd__cfg {
#define ND__CFG_ENUM(id, name, kind, values, def, doc) ND__CFG_##id,
  ND__CONFIG_TABLE(ND__CFG_ENUM)
#undef ND__CFG_ENUM
  ND__CFG_COUNT
} nd__cfg;

typedef enum nd__cfg_kind { ND__CFG_KIND_FLAG, ND__CFG_KIND_TEXT, ND__CFG_KIND_SIZE } nd__cfg_kind;

/* One row of the table, for documentation and its test. */
typedef struct nd__cfg_entry {
  const char *name;
  nd__cfg_kind kind;
  const char *values;
  const char *def;
  const char *doc;
} nd__cfg_entry;

/* The entry of id, or NULL when id is out of range. */
const nd__cfg_entry *nd__config_entry(nd__cfg id);

/* Reads the environment into the table (once; later calls return at once). */
void nd__config_load(void);

extern int nd__config_ready;
extern int nd__config_flags[ND__CFG_COUNT];

/* A FLAG entry's value, 0 or 1. */
static inline int nd__config_flag(nd__cfg id) {
  if (__builtin_expect(!__atomic_load_n(&nd__config_ready, __ATOMIC_ACQUIRE), 0)) nd__config_load();
  return nd__config_flags[id];
}

/* A TEXT entry's value: the variable's text, else the default, else NULL. ND_CACHE_DIR's
 * default is resolved here ($XDG_CACHE_HOME/ndcuda, else $HOME/.cache/ndcuda, else NULL). The
 * string is owned by the table and lives until the process ends. */
const char *nd__config_text(nd__cfg id);

/* A SIZE entry's value in bytes; `total` is what a percentage is of (0: percentages are
 * unparsable, so the default applies). */
int64_t nd__config_size(nd__cfg id, int64_t total);

/* Parses a FLAG's text as described above; def when text is NULL or empty. */
int nd__config_parse_flag(const char *text, int def);

/* Parses a SIZE's text; returns 0 and leaves *out alone when it is NULL, empty or unparsable. */
int nd__config_parse_size(const char *text, int64_t total, int64_t *out);

/* The variable's own text (NULL when unset or empty), for readers that report a value they
 * cannot use (the kernel cache names a bad ND_CACHE in its warning). */
const char *nd__config_value(nd__cfg id);

/* Test hook: reads the environment again, for a test's child process that set variables after
 * its parent had read them. */
void nd__config_reload(void);

/* Test hook: entry id reads as if its variable held `text` (NULL: unset) from now on. Not
 * safe against concurrent getters; tests call it between operations. Readers that keep a
 * value of their own (the auto-events switch, the per-thread-stream default once a thread has
 * asked) do not see it. */
void nd__config_override(nd__cfg id, const char *text);

#ifdef __cplusplus
}
#endif

#endif /* ND_CONFIG_H */
