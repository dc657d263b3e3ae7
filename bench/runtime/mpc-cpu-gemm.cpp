//===- mpc-cpu-gemm.cpp - mpc's own fp32 GEMM against oneDNN's, alone -----===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Times HostSgemm (runtime/backends/cpu/HostSgemm.h) and, in a runtime built
// with oneDNN, oneDNN's fp32 matmul (OnednnMatmul.h) on the same operands,
// alternating call by call on one thread, and prints per shape the median
// times, the rates, the ratio mpc / oneDNN, the largest difference between
// the two products, and whether HostGemm gives that shape to HostSgemm.
//
//===----------------------------------------------------------------------===//

#include "HostSgemm.h"
#ifdef MPC_HAVE_ONEDNN
#include "OnednnMatmul.h"
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

constexpr char kUsage[] =
    "usage: mpc-cpu-gemm [--shapes LIST] [--repeats N]\n"
    "\n"
    "Times mpc's own fp32 GEMM (HostSgemm) against oneDNN's matmul, alone,\n"
    "alternating, one thread; prints one JSON object per shape with the\n"
    "median ms of N calls each (default 15). LIST is comma-separated\n"
    "MxNxK:OPS shapes, OPS two letters for op(A) and op(B), n as stored or t\n"
    "transposed (default: the wide MLP's five: 256x1024x784:nn,\n"
    "256x1024x1024:nn, 1024x1024x256:tn, 256x1024x1024:nt, 784x1024x256:tn).\n";

struct Shape {
  int64_t m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false;
  std::string text;
};

/// A dimension of at most 2^28 at `text`, and where it ends.
bool parseDimension(const char *text, char **end, int64_t &value) {
  if (*text < '0' || *text > '9')
    return false;
  errno = 0;
  const long long parsed = std::strtoll(text, end, 10);
  if (errno == ERANGE || parsed < 1 || parsed > (1LL << 28))
    return false;
  value = parsed;
  return true;
}

bool parseShape(const std::string &text, Shape &shape) {
  const char *at = text.c_str();
  char *end = nullptr;
  int64_t dims[3];
  for (int i = 0; i < 3; ++i) {
    if (!parseDimension(at, &end, dims[i]) || *end != (i < 2 ? 'x' : ':'))
      return false;
    at = end + 1;
  }
  if (std::strlen(at) != 2 || (at[0] != 'n' && at[0] != 't') || (at[1] != 'n' && at[1] != 't'))
    return false;
  const int64_t m = dims[0], n = dims[1], k = dims[2];
  if (m * n > (int64_t(1) << 28) || m * k > (int64_t(1) << 28) || k * n > (int64_t(1) << 28))
    return false;
  shape = {m, n, k, at[0] == 't', at[1] == 't', text};
  return true;
}

double milliseconds(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

} // namespace

/// The largest |c - reference| of HostSgemm's product c = op(a) op(b)
/// (row-major, as HostSgemm.h says) against the product summed in float64,
/// relative to the largest |reference| (NaN, an error, is kept).
double errorAgainstFloat64(const Shape &s, const std::vector<float> &a, const std::vector<float> &b,
                           const std::vector<float> &c) {
  double worst = 0, largest = 0;
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t j = 0; j < s.n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < s.k; ++p)
        sum += double(a[s.transposeA ? p * s.m + i : i * s.k + p]) *
               double(b[s.transposeB ? j * s.k + p : p * s.n + j]);
      largest = std::max(largest, std::fabs(sum));
      if (double d = std::fabs(c[i * s.n + j] - sum); !(d <= worst))
        worst = d;
    }
  return worst / std::max(largest, 1e-30);
}

int main(int argc, char **argv) {
  // One thread: oneDNN's OpenMP reads OMP_NUM_THREADS as it is loaded, so
  // without it the program runs itself again with it.
  const char *threads = std::getenv("OMP_NUM_THREADS");
  if (!threads || std::strcmp(threads, "1") != 0) {
    setenv("OMP_NUM_THREADS", "1", 1);
    execv("/proc/self/exe", argv);
    std::fprintf(stderr, "mpc-cpu-gemm: cannot run again with OMP_NUM_THREADS=1; set it\n");
    return 1;
  }
  std::string shapesText = "256x1024x784:nn,256x1024x1024:nn,1024x1024x256:tn,"
                           "256x1024x1024:nt,784x1024x256:tn";
  long repeats = 15;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if ((arg == "--shapes" || arg == "--repeats") && i + 1 == argc) {
      std::fprintf(stderr, "mpc-cpu-gemm: %s expects a value\n%s", arg.c_str(), kUsage);
      return 2;
    }
    if (arg == "--shapes" || arg == "--repeats") {
      const std::string value = argv[++i];
      if (arg == "--shapes") {
        shapesText = value;
        continue;
      }
      char *end = nullptr;
      repeats = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || *end != '\0' || repeats < 1 || repeats > 10000) {
        std::fprintf(stderr, "mpc-cpu-gemm: --repeats expects an integer in [1, 10000], got '%s'\n",
                     value.c_str());
        return 2;
      }
      continue;
    }
    std::fprintf(stderr, "mpc-cpu-gemm: unknown argument '%s'\n%s", arg.c_str(), kUsage);
    return 2;
  }
  std::vector<Shape> shapes;
  std::stringstream list(shapesText);
  for (std::string text; std::getline(list, text, ',');) {
    Shape shape;
    if (!parseShape(text, shape)) {
      std::fprintf(stderr,
                   "mpc-cpu-gemm: bad shape '%s' (expected MxNxK:OPS, OPS two of n and t, "
                   "each matrix at most 2^28 elements)\n",
                   text.c_str());
      return 2;
    }
    shapes.push_back(shape);
  }
  if (shapes.empty()) {
    std::fprintf(stderr, "mpc-cpu-gemm: no shapes in '%s'\n", shapesText.c_str());
    return 2;
  }
  if (!mpc::rt::HostSgemm::available())
    std::fprintf(stderr, "mpc-cpu-gemm: this CPU has no AVX-512F: HostSgemm runs plain loops "
                         "and HostGemm never uses it\n");

  std::mt19937 generator(1);
  std::uniform_real_distribution<float> values(-1.0f, 1.0f);
  mpc::rt::HostSgemm sgemm;
#ifdef MPC_HAVE_ONEDNN
  mpc::rt::OnednnMatmul onednn;
#endif
  for (const Shape &s : shapes) {
    std::vector<float> a(static_cast<size_t>(s.m * s.k)), b(static_cast<size_t>(s.k * s.n));
    std::vector<float> mine(static_cast<size_t>(s.m * s.n)), theirs(mine.size());
    for (float &x : a)
      x = values(generator);
    for (float &x : b)
      x = values(generator);
    auto runMine = [&] {
      sgemm.multiply(s.transposeA, s.transposeB, s.m, s.n, s.k, a.data(), b.data(), mine.data());
    };
    bool haveOnednn = false;
#ifdef MPC_HAVE_ONEDNN
    auto runOnednn = [&] {
      return onednn.run(mpc::rt::DType::F32, mpc::rt::DType::F32, s.transposeA, s.transposeB, s.m,
                        s.n, s.k, a.data(), b.data(), nullptr, theirs.data());
    };
    haveOnednn = runOnednn(); // (also the warm-up)
#endif
    runMine();
    std::vector<double> mineMs, theirsMs;
    for (long r = 0; r < repeats; ++r) {
      auto start = std::chrono::steady_clock::now();
      runMine();
      mineMs.push_back(milliseconds(start));
#ifdef MPC_HAVE_ONEDNN
      if (haveOnednn) {
        start = std::chrono::steady_clock::now();
        runOnednn();
        theirsMs.push_back(milliseconds(start));
      }
#endif
    }
    const double gflop = 2.0 * s.m * s.n * s.k / 1e9;
    const double mineMedian = median(mineMs);
    // (A median under the clock's resolution counts as 1 ns.)
    auto rate = [&](double ms) { return gflop / std::max(ms, 1e-6) * 1e3; };
    std::printf("{\"shape\": \"%s\", \"takes\": %s, \"mpc_ms\": %.4f, \"mpc_gflops\": %.1f, "
                "\"mpc_error\": %.3g, \"onednn_built\": %s",
                s.text.c_str(), mpc::rt::HostSgemm::takes(s.m, s.n, s.k) ? "true" : "false",
                mineMedian, rate(mineMedian), errorAgainstFloat64(s, a, b, mine),
#ifdef MPC_HAVE_ONEDNN
                "true"
#else
                "false"
#endif
    );
    if (haveOnednn) {
      const double theirsMedian = median(theirsMs);
      double difference = 0;
      for (size_t i = 0; i < mine.size(); ++i)
        if (double d = std::fabs(mine[i] - theirs[i]); !(d <= difference)) // NaN is kept
          difference = d;
      std::printf(", \"onednn_ms\": %.4f, \"onednn_gflops\": %.1f, \"ratio\": %.3f, "
                  "\"max_difference\": %.3g",
                  theirsMedian, rate(theirsMedian), mineMedian / std::max(theirsMedian, 1e-6),
                  difference);
    } else {
      std::printf(", \"onednn_ms\": null");
    }
    std::printf("}\n");
  }
  return 0;
}
