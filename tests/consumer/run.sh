#!/usr/bin/env bash
# Installs the built library into a scratch prefix, then builds and runs a consumer program
# against it twice: through find_package(ndcuda) (shared and static targets) and through
# pkg-config. Arguments: <build dir of ndcuda> <scratch dir>.
set -euo pipefail
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"

cmake -S "$here" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$work/prefix" > "$work/configure.log"
cmake --build "$work/cmake-build" > "$work/build.log"
"$work/cmake-build/consumer_shared"
"$work/cmake-build/consumer_static"

libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -1)
export PKG_CONFIG_PATH=$libdir
cc -o "$work/consumer_pc" "$here/consumer.c" $(pkg-config --cflags --libs ndcuda)
"$work/consumer_pc"
cc -o "$work/consumer_pc_static" -DND_STATIC_DEFINE "$here/consumer.c" $(pkg-config --static --cflags --libs ndcuda | sed 's/-lndcuda/-l:libndcuda.a/') -lstdc++
"$work/consumer_pc_static"
echo "consumer: find_package and pkg-config both work"
