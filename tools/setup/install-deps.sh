#!/usr/bin/env bash
# Installs every Debian package that mpc's build, tests and examples need.
# Idempotent: when everything is present it only checks dpkg and returns.
set -euo pipefail

packages=(
  # build
  cmake ninja-build ccache g++ pkg-config
  # MLIR 19 (mlir-19-tools holds mlir-tblgen, needed by find_package(MLIR))
  libmlir-19-dev mlir-19-tools llvm-19-dev llvm-19-tools
  # tests
  libgtest-dev libgmock-dev
  # the reference Philox that the kernels' random bits are checked against
  librandom123-dev
  # fuzzing (tools/fuzz.sh): clang with libFuzzer and the sanitizers' runtimes
  clang-19 libfuzzer-19-dev libclang-rt-19-dev
  # killing a process at a chosen system call (interrupted checkpoint writes)
  strace
  # CPU GEMMs (oneDNN: bf16 and large fp32 ones), compression for data files
  libopenblas-dev libdnnl-dev zlib1g-dev
  # data-parallel jobs on the CPU: MPI's collectives and mpirun
  libopenmpi-dev openmpi-bin
  # JSON of the file headers, hashes of bundles and caches (header-only)
  nlohmann-json3-dev libxxhash-dev
  # ONNX models in (mpc import): the ONNX library's protobuf classes; the
  # tests export models with PyTorch and write odd ones with python3-onnx
  libonnx-dev libprotobuf-dev protobuf-compiler python3-onnx
  # ONNX's own backend node tests, and torchvision's ResNet-18 exported
  libonnx-testdata python3-torchvision
  # reference implementations (NumPy, PyTorch) and the real data sets the
  # tests and benchmarks read (digits, Fashion-MNIST, the King James Bible)
  python3-numpy python3-torch python3-sklearn dataset-fashion-mnist bible-kjv
  # plots as PNG (rsvg-convert), the HTML report checked in headless Chromium
  librsvg2-bin chromium
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = "installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
