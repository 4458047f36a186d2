#!/usr/bin/env bash
# Builds the NCCL parts (library, comm suites, comm_procs, multi_gpu_sum, nd_bench_comm) on a
# machine with two or more GPUs, runs their tests, the example and the allreduce benchmarks
# beside raw NCCL and PyTorch, and leaves the logs in $OUT (or ./comm-out):
#   device.txt build.log ctest.log test_comm.log example.log bench_comm.txt comm.csv torch_comm.txt
# (8 files; torch_comm.csv too when --out is given to torch_allreduce.py by hand)
#
#   bash bench/run_comm.sh [--no-bench]
#
# Check is taken from Debian packages in .deps/ when it is not installed (as tools/gpu-run
# does); ND_DEPS names another folder. NVLink multicast stays off (NCCL_NVLS_ENABLE=0).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-comm-out}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
build=${ND_BUILD_DIR:-/tmp/b}
bench=1
[ "${1:-}" = --no-bench ] && bench=0

args=(-G Ninja -DCMAKE_BUILD_TYPE=Release -DNDCUDA_BUILD_TESTS=ON -DNDCUDA_REQUIRE_CHECK=ON
      -DNDCUDA_BUILD_PYTHON=OFF -DNDCUDA_WITH_NCCL=ON)
if [ ! -f /usr/include/check.h ]; then
  deps=${ND_DEPS:-.deps}
  [ -d "$deps" ] || deps=../../.deps
  root=/tmp/nd-check-root
  mkdir -p "$root"
  for f in "$deps"/*.deb; do dpkg -x "$f" "$root"; done
  args+=(-DCHECK_ROOT="$root")
fi
{ nvidia-smi --query-gpu=index,name,driver_version,memory.total --format=csv,noheader
  nvidia-smi topo -m; date -u +%Y-%m-%dT%H:%MZ; } > "$out/device.txt" 2>&1
head -3 "$out/device.txt"
t0=$(date +%s)
targets=(test_comm test_comm_host test_comm_host_nonccl test_null_args comm_procs multi_gpu_sum nd_bench_comm)
if ! { cmake -S . -B "$build" "${args[@]}" && cmake --build "$build" -j"$(nproc)" --target "${targets[@]}"; } > "$out/build.log" 2>&1; then
  tail -30 "$out/build.log"
  echo "run_comm: build failed"
  exit 1
fi
grep -i "nccl" "$out/build.log" | head -3
echo "build: $(( $(date +%s) - t0 )) s"

(cd "$build" && timeout 100 ctest --output-on-failure --timeout 60 \
   -R "^(test_comm_host|test_comm_host_nonccl|test_null_args|test_comm_procs_env|test_comm_procs_file)$") \
  > "$out/ctest.log" 2>&1
test_rc=$?
grep -E "Test +#|tests passed|tests failed|comm_procs \(" "$out/ctest.log"
# test_comm one case per process, so that a hang shows which case and the others still run.
: > "$out/test_comm.log"
for c in $(grep -o 'ND_CASE(test_[a-z0-9_]*)' tests/multi/test_comm.c | sed 's/ND_CASE(//; s/)//'); do
  echo "== $c" >> "$out/test_comm.log"
  CK_FORK=no CK_RUN_CASE=$c timeout -k 5 45 "$build/tests/test_comm" >> "$out/test_comm.log" 2>&1
  rc=$?
  echo "== $c exit $rc" >> "$out/test_comm.log"
  [ $rc = 0 ] || test_rc=1
done
grep -E "^== .* exit|ordering:|%: Checks|:[EF]:" "$out/test_comm.log" | grep -v "exit 0$" | head -40

timeout 60 "$build/examples/multi_gpu_sum" > "$out/example.log" 2>&1
ex_rc=$?
cat "$out/example.log"

bench_rc=0
if [ $bench = 1 ]; then
  timeout 60 "$build/bench/nd_bench_comm" --out "$out/comm.csv" > "$out/bench_comm.txt" 2>&1 || bench_rc=$?
  cat "$out/bench_comm.txt"
  PYTHONUNBUFFERED=1 timeout 90 python3 bench/torch_allreduce.py \
    > "$out/torch_comm.txt" 2>&1 || bench_rc=$?
  grep -v Warning "$out/torch_comm.txt" | tail -16
fi
echo "run_comm: tests $test_rc, example $ex_rc, bench $bench_rc"
[ $test_rc = 0 ] && [ $ex_rc = 0 ] && [ $bench_rc = 0 ]
