# -*- Python -*-
# lit configuration of mpc's FileCheck tests.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "mpc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = config.mpc_test_root

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.mpc_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

config.substitutions.append(("%mpc_src", config.mpc_src_root))
config.substitutions.append(("%mpc_bin", config.mpc_tools_dir))
config.substitutions.append(("%mpc_obj", config.mpc_obj_root))
config.substitutions.append(("%examples", os.path.join(config.mpc_src_root, "examples")))
# Debian's interpreter, which has NumPy (the python3 first on PATH may not).
config.substitutions.append(("%pynum", "/usr/bin/python3"))
# The digits data (scikit-learn's copy), installed by tools/setup/install-deps.sh.
config.substitutions.append(
    ("%digits", "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"))
# Fashion-MNIST (Debian's dataset-fashion-mnist), installed the same way.
fashion = "/usr/share/datasets/fashion-mnist/"
config.substitutions.append(
    ("%fashion_train", fashion + "train-images-idx3-ubyte.gz," + fashion +
     "train-labels-idx1-ubyte.gz"))
config.substitutions.append(
    ("%fashion_test", fashion + "t10k-images-idx3-ubyte.gz," + fashion +
     "t10k-labels-idx1-ubyte.gz"))

llvm_config.add_tool_substitutions(["mpc-opt", "mpc"], [config.mpc_tools_dir])

# A sanitizer build (tools/run-tests.sh --sanitize=...): the feature "asan"
# (a test whose measure the sanitizer's runtime changes says how it differs
# with %if asan), and the flags an application embedding the runtime needs
# to link it.
embed_args = ""
if config.mpc_sanitize:
    if "address" in config.mpc_sanitize:
        config.available_features.add("asan")
    flags = "-fsanitize=" + config.mpc_sanitize
    embed_args = ("-DCMAKE_CXX_COMPILER=%s -DCMAKE_C_COMPILER=%s -DCMAKE_CXX_FLAGS=%s "
                  "-DCMAKE_EXE_LINKER_FLAGS=%s" % (config.cxx_compiler, config.c_compiler,
                                                   flags, flags))
config.substitutions.append(("%embed_cmake_args", embed_args))

# strace can kill a process at a chosen system call (tests of interrupted
# writes); usable only where ptrace is allowed.
import shutil
import subprocess
if shutil.which("strace") and subprocess.run(
        ["strace", "-o", "/dev/null", "true"], stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL).returncode == 0:
    config.available_features.add("strace")

# The CUDA backend is built (the toolkit was found), and this machine has an
# NVIDIA driver: tests of the no-driver path run only without one.
if config.mpc_cuda_backend:
    config.available_features.add("cuda-backend")
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# The runtime's collectives are built over MPI, and mpirun is here.
if config.mpc_mpi and shutil.which("mpirun"):
    config.available_features.add("mpi")

# Headless Chromium (Debian's chromium) checks the HTML report; rsvg-convert
# (librsvg2-bin) turns plots into PNG.
if shutil.which("chromium"):
    config.available_features.add("chromium")
if shutil.which("rsvg-convert"):
    config.available_features.add("rsvg")
# script(1) (bsdutils, essential in Debian) gives `mpc train` a terminal.
if shutil.which("script"):
    config.available_features.add("script")
# The host's bf16 attention takes bf16 dot products on a CPU with
# AVX512-BF16 (and the AVX-512 it builds on), as Linux reports its flags.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = next((line.split(":", 1)[1].split() for line in cpuinfo
                      if line.startswith("flags")), [])
    if {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512_bf16"} <= set(flags):
        config.available_features.add("avx512-bf16")
except OSError:
    pass
# mpc-cpu-peak is built for x86-64 only.
if os.path.exists(os.path.join(config.mpc_tools_dir, "mpc-cpu-peak")):
    config.available_features.add("mpc-cpu-peak")
# mpc-cpu-gemm is built with the benchmark tools (MPC_BUILD_BENCH).
if os.path.exists(os.path.join(config.mpc_tools_dir, "mpc-cpu-gemm")):
    config.available_features.add("mpc-cpu-gemm")
