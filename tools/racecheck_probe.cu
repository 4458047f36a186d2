// Does compute-sanitizer racecheck take bar.arrive (one side) -> bar.sync (other side) as ordering?
// A probe for the hazards racecheck reports in linalg/gj_panels.cu's k_gjb_la (bench/RESULTS.md,
// 2026-11-27 19:33-20:14): on a GPU,
//   nvcc -arch=sm_90 -o /tmp/probe tools/racecheck_probe.cu
//   for m in 0 1 2 3 4 5 6; do compute-sanitizer --tool racecheck /tmp/probe $m; done
// mode 0 RAW: warp 0 writes s, bar.arrive(1, 64); warp 1 bar.sync(1, 64), reads s.
// mode 1 WAR: warp 1 reads s, bar.arrive(1, 64); warp 0 bar.sync(1, 64), writes s (k_gjb_la's
//             panel warp reading a panel buffer before the update threads' next post into it).
// mode 2 control: the RAW pair with no barrier (a race the tool should report).
// mode 3 control: the RAW pair ordered by __syncthreads (should be clean).
// modes 4-6: k_gjb_la's double-buffered hand-off over 8 steps: warp 0 writes buf[q & 1] and
//   bar.arrive(1 + (q & 1)); warp 1 bar.sync(1 + (q & 1)), reads it and bar.arrive(3 + (q & 1));
//   warp 0 bar.sync(3 + (q & 1)) before it writes that buffer again at q + 2.
//   mode 4: barrier ids and counts in registers;
//   mode 5: the same steps with immediate ids and counts (k_gjb_la compiles to both forms);
//   mode 6: as 4 with a third, idle warp in the block (the barriers count 64 of 96 threads).
// Each mode prints ok when warp 1 read what the protocol promises. Found on the H100 and the H200
// (CUDA 13.0): modes 0, 1, 3, 4 and 6 clean, mode 2 reported (the control), and mode 5 reported
// too (768 hazards between the write and the read it orders): racecheck reports hazards on a
// correct bar.arrive / bar.sync hand-off, so its reports on k_gjb_la do not show a race by
// themselves.
#include <cstdio>
#include <cstdlib>
__device__ __forceinline__ void bsync(int id, int n) { asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void barrive(int id, int n) {
  __threadfence_block();
  asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(n) : "memory");
}
__global__ void k2(int *out, int mode, int cnt) {
  __shared__ int buf[2][32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  int acc = 0;
  if (warp == 0) {
#pragma unroll 1
    for (int q = 0; q < 8; q++) {
      if (mode == 5) {
        if (q >= 2) {
          if (q & 1) asm volatile("bar.sync 4, 64;" ::: "memory");
          else asm volatile("bar.sync 3, 64;" ::: "memory");
        }
        buf[q & 1][lane] = q * 100 + lane;
        __threadfence_block();
        if (q & 1) asm volatile("bar.arrive 2, 64;" ::: "memory");
        else asm volatile("bar.arrive 1, 64;" ::: "memory");
      } else {
        if (q >= 2) bsync(3 + (q & 1), cnt);
        buf[q & 1][lane] = q * 100 + lane;
        barrive(1 + (q & 1), cnt);
      }
    }
  } else if (warp == 1) {
#pragma unroll 1
    for (int q = 0; q < 8; q++) {
      if (mode == 5) {
        if (q & 1) asm volatile("bar.sync 2, 64;" ::: "memory");
        else asm volatile("bar.sync 1, 64;" ::: "memory");
        acc += buf[q & 1][(lane + q) & 31];
        __threadfence_block();
        if (q < 6) {
          if (q & 1) asm volatile("bar.arrive 4, 64;" ::: "memory");
          else asm volatile("bar.arrive 3, 64;" ::: "memory");
        }
      } else {
        bsync(1 + (q & 1), cnt);
        acc += buf[q & 1][(lane + q) & 31];
        if (q < 6) barrive(3 + (q & 1), cnt);
      }
    }
    out[lane] = acc;
  }
}
__global__ void k(int *out, int mode) {
  __shared__ int s[32];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (warp == 0) s[lane] = lane;
  __syncthreads();
  if (mode == 1) {
    if (warp == 1) {
      out[lane] = s[31 - lane];
      __threadfence_block();
      asm volatile("bar.arrive 1, 64;" ::: "memory");
    } else {
      asm volatile("bar.sync 1, 64;" ::: "memory");
      s[lane] = lane * 3;
    }
    return;
  }
  if (warp == 0) {
    s[lane] = lane * 3;
    if (mode == 0) {
      __threadfence_block();
      asm volatile("bar.arrive 1, 64;" ::: "memory");
    }
  } else if (mode == 0) {
    asm volatile("bar.sync 1, 64;" ::: "memory");
  }
  if (mode == 3) __syncthreads();
  if (warp == 1) out[lane] = s[(lane + 1) & 31];
}
int main(int argc, char **argv) {
  const int mode = argc > 1 ? atoi(argv[1]) : 0;
  int *d, h[32];
  cudaMalloc(&d, sizeof h);
  if (mode >= 4) k2<<<1, mode == 6 ? 96 : 64>>>(d, mode, 64);
  else k<<<1, 64>>>(d, mode);
  cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < 32; i++) {
    int want = mode == 1 ? 31 - i : ((i + 1) & 31) * 3;
    if (mode >= 4) {
      want = 0;
      for (int q = 0; q < 8; q++) want += q * 100 + ((i + q) & 31);
    }
    bad += h[i] != want;
  }
  printf("mode %d: %s\n", mode, bad ? "wrong" : "ok");
  return mode == 2 ? 0 : bad;
}
