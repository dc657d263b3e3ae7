//===- CollectiveCheck.cpp - the runtime's collectives across ranks -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Run by every rank of a job (`mpirun -np N mpc-collective-check`): checks
// each collective of runtime/collective/Collective.h against values every
// rank can compute alone, that every rank ends with the same bits, and a
// program whose manifest has an all_reduce step, loaded through the C API.
// Prints one line per rank and exits 1 on the first wrong value.
//
//   mpc-collective-check [--die-at RANK]
// --die-at RANK: that rank exits at once before the first all-reduce (a
// rank that dies mid-job; the others must not hang).
//
//===----------------------------------------------------------------------===//

#include "Collective.h"
#include "FastConvert.h"
#include "mpc/format/Bundle.h"
#include "mpc/format/Manifest.h"
#include "mpc/runtime.h"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

using namespace mpc::rt;

namespace {

int rankOf = 0;

[[noreturn]] void fail(const std::string &what) {
  std::fprintf(stderr, "rank %d: FAIL: %s\n", rankOf, what.c_str());
  std::exit(1);
}

void check(const Status &status, const char *what) {
  if (!status.isOk())
    fail(std::string(what) + ": " + status.message());
}

/// Sums of values every rank knows: (rank + 1) * (i % 7 + 0.25), exact in
/// f32, f16 and bf16 for a few ranks.
void checkSums(Collective &c, size_t count) {
  int n = c.size();
  double ranks = n * (n + 1) / 2.0;
  auto value = [&](int rank, size_t i) { return (rank + 1) * (i % 7 + 0.25); };
  std::vector<float> f32(count);
  std::vector<double> f64(count);
  for (size_t i = 0; i < count; ++i) {
    f32[i] = static_cast<float>(value(c.rank(), i));
    f64[i] = value(c.rank(), i);
  }
  check(c.allReduce(f32.data(), count, DType::F32, AllReduceOp::Sum), "f32 sum");
  check(c.allReduce(f64.data(), count, DType::F64, AllReduceOp::Sum), "f64 sum");
  for (size_t i = 0; i < count; ++i) {
    double expected = ranks * (i % 7 + 0.25);
    if (f32[i] != expected || f64[i] != expected)
      fail("sum element " + std::to_string(i) + ": " + std::to_string(f32[i]) + ", expected " +
           std::to_string(expected));
  }
  for (DType dtype : {DType::F16, DType::BF16}) {
    std::vector<uint16_t> halves(count);
    std::vector<float> mine(count);
    for (size_t i = 0; i < count; ++i)
      mine[i] = static_cast<float>(value(c.rank(), i));
    if (dtype == DType::F16)
      narrowToHalf(mine.data(), halves.data(), count);
    else
      narrowToBf16(mine.data(), halves.data(), count);
    check(c.allReduce(halves.data(), count, dtype, AllReduceOp::Sum), dtypeName(dtype));
    std::vector<float> back(count);
    if (dtype == DType::F16)
      widenHalf(halves.data(), back.data(), count);
    else
      widenBf16(halves.data(), back.data(), count);
    for (size_t i = 0; i < count; ++i)
      if (back[i] != ranks * (i % 7 + 0.25))
        fail(std::string(dtypeName(dtype)) + " sum element " + std::to_string(i) + ": " +
             std::to_string(back[i]));
  }
}

/// Means (the data-parallel gradients'): the sum over the number of ranks,
/// here (n + 1) / 2 * (i % 4 + 0.5), exact in every float type for 1 to 4
/// ranks; an i32 mean is refused.
void checkMeans(Collective &c, size_t count) {
  int n = c.size();
  auto expected = [&](size_t i) { return (n + 1) / 2.0 * (i % 4 + 0.5); };
  auto mine = [&](size_t i) { return (c.rank() + 1) * (i % 4 + 0.5); };
  std::vector<float> f32(count), wide(count), back(count);
  std::vector<double> f64(count);
  std::vector<uint16_t> halves(count);
  for (size_t i = 0; i < count; ++i) {
    f32[i] = wide[i] = static_cast<float>(mine(i));
    f64[i] = mine(i);
  }
  narrowToBf16(wide.data(), halves.data(), count);
  check(c.allReduce(f32.data(), count, DType::F32, AllReduceOp::Mean), "f32 mean");
  check(c.allReduce(f64.data(), count, DType::F64, AllReduceOp::Mean), "f64 mean");
  check(c.allReduce(halves.data(), count, DType::BF16, AllReduceOp::Mean), "bf16 mean");
  widenBf16(halves.data(), back.data(), count);
  for (size_t i = 0; i < count; ++i)
    if (f32[i] != expected(i) || f64[i] != expected(i) || back[i] != expected(i))
      fail("mean element " + std::to_string(i) + ": f32 " + std::to_string(f32[i]) + ", f64 " +
           std::to_string(f64[i]) + ", bf16 " + std::to_string(back[i]) + ", expected " +
           std::to_string(expected(i)));
  int32_t integer = 1;
  Status refused = c.allReduce(&integer, 1, DType::I32, AllReduceOp::Mean);
  if (refused.isOk() || refused.message().find("a mean is of floats") == std::string::npos)
    fail("an i32 mean was not refused: " + refused.message());
}

/// The loss scaler's agreement: one rank's overflow is every rank's.
void checkOverflowFlag(Collective &c) {
  float flag = c.rank() == c.size() - 1 ? std::numeric_limits<float>::infinity() : 0.0f;
  check(c.allReduce(&flag, 1, DType::F32, AllReduceOp::Max), "max of the overflow flag");
  if (!std::isinf(flag))
    fail("the overflow flag of the last rank did not reach rank " + std::to_string(c.rank()));
  int32_t steps[3] = {c.rank() * 10, c.rank() * 10 + 1, -c.rank()};
  check(c.allReduce(steps, 3, DType::I32, AllReduceOp::Max), "i32 max");
  int top = (c.size() - 1) * 10;
  if (steps[0] != top || steps[1] != top + 1 || steps[2] != 0)
    fail("i32 max: " + std::to_string(steps[0]) + ", " + std::to_string(steps[1]) + ", " +
         std::to_string(steps[2]));
}

/// Sums that are not exact (random values, a different set per rank) leave
/// the same bits on every rank: each rank's checksum of the bits equals
/// rank 0's, broadcast.
void checkSameBits(Collective &c, size_t count) {
  std::mt19937 random(1234 + c.rank());
  std::normal_distribution<float> normal;
  std::vector<float> values(count);
  for (float &v : values)
    v = normal(random);
  check(c.allReduce(values.data(), count, DType::F32, AllReduceOp::Sum), "random f32 sum");
  uint32_t sum = 0;
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    sum = sum * 31 + bits;
  }
  uint32_t first = sum;
  check(c.broadcast(&first, sizeof first, 0), "broadcast of rank 0's checksum");
  if (first != sum)
    fail("the ranks hold different bits after the same all-reduce");
}

void checkBroadcast(Collective &c) {
  int root = c.size() - 1;
  std::string text = c.rank() == root ? "the parameters of rank " + std::to_string(root)
                                      : std::string(23 + std::to_string(root).size(), '?');
  check(c.broadcast(text.data(), text.size(), root), "broadcast");
  if (text != "the parameters of rank " + std::to_string(root))
    fail("broadcast gave '" + text + "'");
  check(c.barrier(), "barrier");
}

/// A program: out = x, then an all-reduce (sum) of out; each rank's x is
/// (rank + 1) * [1, 2, 3, 4], so every rank's out is the sum of those.
void checkProgram(Collective &c) {
  Manifest m;
  m.program = "copy_all_reduce";
  m.arenaBytes = 128;
  auto spec = [](const char *name, uint64_t offset) {
    TensorSpec t;
    t.name = name;
    t.dtype = DType::F32;
    t.shape = {4};
    t.buffer = {BufferSpace::Arena, offset};
    return t;
  };
  m.inputs = {spec("x", 0)};
  m.outputs = {spec("out", 64)};
  m.steps = {CopyStep{{BufferSpace::Arena, 0}, {BufferSpace::Arena, 64}, 16},
             AllReduceStep{{BufferSpace::Arena, 64}, DType::F32, 4, AllReduceOp::Sum}};
  std::string path = "/tmp/mpc-collective-check-" + std::to_string(::getpid()) + ".mpcb";
  check(writeBundle(path, {{kManifestSection, writeManifest(m)}}), "writing the bundle");
  mpc_program_options options;
  mpc_program_options_initialize(&options);
  mpc_program *program = nullptr;
  mpc_status_code loaded = mpc_program_load(path.c_str(), &options, &program);
  std::remove(path.c_str());
  if (loaded != MPC_OK)
    fail(std::string("loading the program: ") + mpc_last_error());
  float x[4], out[4] = {};
  for (int i = 0; i < 4; ++i)
    x[i] = static_cast<float>((c.rank() + 1) * (i + 1));
  if (mpc_program_set_input(program, "x", x, sizeof x) != MPC_OK ||
      mpc_program_run(program) != MPC_OK ||
      mpc_program_get_output(program, "out", out, sizeof out) != MPC_OK)
    fail(std::string("running the program: ") + mpc_last_error());
  mpc_program_release(program);
  float ranks = c.size() * (c.size() + 1) / 2.0f;
  for (int i = 0; i < 4; ++i)
    if (out[i] != ranks * (i + 1))
      fail("the program's all-reduce: out[" + std::to_string(i) + "] = " + std::to_string(out[i]) +
           ", expected " + std::to_string(ranks * (i + 1)));
}

/// Programs that reduce differently on some rank are refused on every rank,
/// naming the first rank that differs; the same programs are accepted.
void checkProgramsAgree(Collective &c) {
  Manifest same;
  same.steps = {AllReduceStep{{BufferSpace::Arena, 0}, DType::F32, 4, AllReduceOp::Mean}};
  check(agreeOnAllReduces(c, same), "the same all-reduces on every rank");
  Manifest other = same;
  if (c.rank() == c.size() - 1)
    std::get<AllReduceStep>(other.steps[0]).count = 5;
  Status refused = agreeOnAllReduces(c, other);
  std::string expected = "the all-reduce steps of rank " + std::to_string(c.size() - 1) +
                         "'s program differ from rank 0's";
  if (c.size() > 1 && (refused.isOk() || refused.message().find(expected) == std::string::npos))
    fail("a program that reduces differently on rank " + std::to_string(c.size() - 1) +
         " was not refused as such: " + refused.message());
}

} // namespace

int main(int argc, char **argv) {
  int dieAt = -1;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--die-at" && i + 1 < argc) {
      dieAt = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: mpc-collective-check [--die-at RANK]\n");
      return 2;
    }
  }
  std::unique_ptr<Collective> collective;
  Status created = createCollective(collective);
  if (!created.isOk()) {
    std::fprintf(stderr, "mpc-collective-check: %s\n", created.message().c_str());
    return 1;
  }
  rankOf = collective->rank();
  if (collective->rank() == dieAt) {
    std::fprintf(stderr, "rank %d: exiting at once (--die-at)\n", dieAt);
    std::fflush(stderr);
    std::_Exit(3);
  }
  checkSums(*collective, 1000);
  checkMeans(*collective, 1000);
  checkOverflowFlag(*collective);
  checkSameBits(*collective, 4097);
  checkBroadcast(*collective);
  checkProgram(*collective);
  checkProgramsAgree(*collective);
  std::printf("rank %d of %d (%s): every collective checked\n", collective->rank(),
              collective->size(), collective->transport().c_str());
  return 0;
}
