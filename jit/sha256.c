/* SHA-256 as FIPS 180-4 specifies it (see sha256.h for why the cache carries its own). */
#include "jit/sha256.h"

#include <string.h>

static const uint32_t nd__sha256_k[64] = {
    0x428a2f98u, 0x71374491u, 0xb5c0fbcfu, 0xe9b5dba5u, 0x3956c25bu, 0x59f111f1u, 0x923f82a4u,
    0xab1c5ed5u, 0xd807aa98u, 0x12835b01u, 0x243185beu, 0x550c7dc3u, 0x72be5d74u, 0x80deb1feu,
    0x9bdc06a7u, 0xc19bf174u, 0xe49b69c1u, 0xefbe4786u, 0x0fc19dc6u, 0x240ca1ccu, 0x2de92c6fu,
    0x4a7484aau, 0x5cb0a9dcu, 0x76f988dau, 0x983e5152u, 0xa831c66du, 0xb00327c8u, 0xbf597fc7u,
    0xc6e00bf3u, 0xd5a79147u, 0x06ca6351u, 0x14292967u, 0x27b70a85u, 0x2e1b2138u, 0x4d2c6dfcu,
    0x53380d13u, 0x650a7354u, 0x766a0abbu, 0x81c2c92eu, 0x92722c85u, 0xa2bfe8a1u, 0xa81a664bu,
    0xc24b8b70u, 0xc76c51a3u, 0xd192e819u, 0xd6990624u, 0xf40e3585u, 0x106aa070u, 0x19a4c116u,
    0x1e376c08u, 0x2748774cu, 0x34b0bcb5u, 0x391c0cb3u, 0x4ed8aa4au, 0x5b9cca4fu, 0x682e6ff3u,
    0x748f82eeu, 0x78a5636fu, 0x84c87814u, 0x8cc70208u, 0x90befffau, 0xa4506cebu, 0xbef9a3f7u,
    0xc67178f2u};

#define ND__ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void nd__sha256_block(uint32_t h[8], const unsigned char *p) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
           (uint32_t)p[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    const uint32_t s0 = ND__ROR(w[i - 15], 7) ^ ND__ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const uint32_t s1 = ND__ROR(w[i - 2], 17) ^ ND__ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; i++) {
    const uint32_t t1 = k + (ND__ROR(e, 6) ^ ND__ROR(e, 11) ^ ND__ROR(e, 25)) + ((e & f) ^ (~e & g)) +
                        nd__sha256_k[i] + w[i];
    const uint32_t t2 = (ND__ROR(a, 2) ^ ND__ROR(a, 13) ^ ND__ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

void nd__sha256_init(nd__sha256_ctx *c) {
  static const uint32_t iv[8] = {0x6a09e667u, 0xbb67ae85u, 0x3c6ef372u, 0xa54ff53au,
                                 0x510e527fu, 0x9b05688cu, 0x1f83d9abu, 0x5be0cd19u};
  memcpy(c->h, iv, sizeof iv);
  c->nbytes = 0;
  c->nbuf = 0;
}

void nd__sha256_update(nd__sha256_ctx *c, const void *data, size_t n) {
  const unsigned char *p = (const unsigned char *)data;
  c->nbytes += n;
  if (c->nbuf > 0) {
    const size_t take = n < 64 - c->nbuf ? n : 64 - c->nbuf;
    memcpy(c->buf + c->nbuf, p, take);
    c->nbuf += take;
    p += take;
    n -= take;
    if (c->nbuf < 64) return;
    nd__sha256_block(c->h, c->buf);
    c->nbuf = 0;
  }
  for (; n >= 64; p += 64, n -= 64) nd__sha256_block(c->h, p);
  memcpy(c->buf, p, n);
  c->nbuf = n;
}

void nd__sha256_final(nd__sha256_ctx *c, unsigned char digest[32]) {
  const uint64_t bits = c->nbytes * 8;
  unsigned char pad[72];
  size_t npad = (c->nbuf < 56 ? 56 : 120) - c->nbuf;
  memset(pad, 0, sizeof pad);
  pad[0] = 0x80;
  for (int i = 0; i < 8; i++) pad[npad + i] = (unsigned char)(bits >> (56 - 8 * i));
  nd__sha256_update(c, pad, npad + 8);
  for (int i = 0; i < 8; i++) {
    digest[4 * i] = (unsigned char)(c->h[i] >> 24);
    digest[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
    digest[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
    digest[4 * i + 3] = (unsigned char)c->h[i];
  }
}

void nd__sha256(const void *data, size_t n, unsigned char digest[32]) {
  nd__sha256_ctx c;
  nd__sha256_init(&c);
  nd__sha256_update(&c, data, n);
  nd__sha256_final(&c, digest);
}

void nd__sha256_hex(const unsigned char digest[32], char hex[65]) {
  static const char x[] = "0123456789abcdef";
  for (int i = 0; i < 32; i++) {
    hex[2 * i] = x[digest[i] >> 4];
    hex[2 * i + 1] = x[digest[i] & 15];
  }
  hex[64] = '\0';
}
