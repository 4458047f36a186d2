/* SHA-256 (FIPS 180-4) for the kernel cache's keys and file checksums.
 *
 * A small, dependency-free implementation: the cache hashes a few kilobytes per compile and a
 * cache file per disk hit, so speed matters little and a system crypto library would be an
 * extra run-time dependency for one function. Checked against the FIPS test vectors in
 * tests/jit/test_jit_cache_host.c. Plain host code. */
#ifndef ND_JIT_SHA256_H
#define ND_JIT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct nd__sha256_ctx {
  uint32_t h[8];
  uint64_t nbytes;      /* message length so far */
  unsigned char buf[64];
  size_t nbuf;          /* bytes waiting in buf */
} nd__sha256_ctx;

void nd__sha256_init(nd__sha256_ctx *c);
void nd__sha256_update(nd__sha256_ctx *c, const void *data, size_t n);
void nd__sha256_final(nd__sha256_ctx *c, unsigned char digest[32]);

/* One-shot digest of n bytes. */
void nd__sha256(const void *data, size_t n, unsigned char digest[32]);

/* Lower-case hexadecimal of a digest: 64 characters and a NUL. */
void nd__sha256_hex(const unsigned char digest[32], char hex[65]);

#ifdef __cplusplus
}
#endif

#endif /* ND_JIT_SHA256_H */
