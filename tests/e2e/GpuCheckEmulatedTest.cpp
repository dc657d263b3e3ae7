//===- GpuCheckEmulatedTest.cpp - the GPU tests' logic on an emulated GPU -===//
//
// Part of mpc, a mixed-precision training compiler.
//
// bench/gpu/run.sh's GPU tests (bench/runtime/BackendCheck.h) run here on
// the emulated GPU (tests/support/CudaEmulator.h), on bundles compiled as
// bench/gpu/prepare.sh compiles them: every comparison is made and passes
// (the emulated GPU agrees with the CPU bitwise), a step is one graph launch
// with no host synchronisation, and the report lists it all. A device that
// is missing is reported as a failure of the case, not a crash.
//
//===----------------------------------------------------------------------===//

#include "BackendCheck.h"
#include "CudaEmulator.h"
#include "KernelKinds.h"
#include "mpc/format/Bundle.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

std::string compile(const std::string &dir, const std::string &graph, const std::string &step,
                    const std::string &precision) {
  std::string bundle = dir + "/" + graph + "-" + precision + "." + step + ".mpcb";
  std::string command = std::string("'") + MPC_TOOL + "' compile '" + MPC_EXAMPLES_DIR + "/" +
                        graph + ".mlir' --step " + step + " --precision " + precision +
                        " --target cpu,sm_90 -o '" + bundle + "'";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  return bundle;
}

/// Registers the bundle's cubin with the emulator, to run its host object.
void emulate(mpc::test::CudaEmulator &emulator, const std::string &bundle) {
  std::vector<mpc::rt::BundleSection> sections;
  ASSERT_TRUE(mpc::rt::readBundle(bundle, sections).isOk());
  const mpc::rt::BundleSection *cubin = mpc::rt::findSection(sections, "cubin.sm_90");
  const mpc::rt::BundleSection *host = mpc::rt::findSection(sections, "host.so");
  ASSERT_TRUE(cubin && host);
  std::string hostPath = bundle + ".host.so";
  std::ofstream(hostPath, std::ios::binary) << host->bytes;
  emulator.addKernelImage(cubin->bytes, hostPath);
}

/// Runs `check` on the emulated GPU with its bundles' kernels registered,
/// `curveSteps` steps for the curve: every comparison runs and passes, and
/// bitwise (the emulated GPU computes as the CPU does). `what` gets the
/// measures' names in order.
mpc::bench::CaseReport checkEmulated(const mpc::bench::CheckCase &check, int curveSteps,
                                     std::vector<std::string> &what) {
  mpc::test::CudaEmulator emulator("");
  emulate(emulator, check.trainBundle);
  if (!check.forwardBundle.empty())
    emulate(emulator, check.forwardBundle);
  mpc::bench::CheckOptions options;
  options.curveSteps = curveSteps;
  mpc::bench::CaseReport report = mpc::bench::checkCase(check, options);
  EXPECT_TRUE(report.error.empty()) << report.error;
  EXPECT_TRUE(report.passed());
  for (const mpc::bench::Measure &measure : report.measures) {
    what.push_back(measure.what);
    EXPECT_EQ(measure.error, 0.0) << measure.what;
  }
  return report;
}

TEST(GpuCheckEmulated, EveryComparisonRunsAndPasses) {
  char pattern[] = "/tmp/mpc-gpu-check-XXXXXX";
  std::string dir = mkdtemp(pattern);
  mpc::bench::CheckCase check{"mlp", "fp16", compile(dir, "mlp", "train", "fp16"),
                              compile(dir, "mlp", "forward", "fp16")};
  std::ofstream(dir + "/models.tsv") << "# name\tprecision\ttrain\tforward\n"
                                     << "mlp\tfp16\tmlp-fp16.train.mpcb\tmlp-fp16.forward.mpcb\n";
  std::vector<mpc::bench::CheckCase> listed;
  ASSERT_TRUE(mpc::bench::readModelList(dir + "/models.tsv", listed).isOk());
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].trainBundle, check.trainBundle);
  EXPECT_EQ(listed[0].forwardBundle, check.forwardBundle);
  // A list of no model would make a check of nothing: refused.
  std::ofstream(dir + "/none.tsv") << "# name\tprecision\ttrain\tforward\n";
  mpc::rt::Status none = mpc::bench::readModelList(dir + "/none.tsv", listed);
  EXPECT_FALSE(none.isOk());
  EXPECT_NE(none.message().find("lists no model"), std::string::npos) << none.message();

  std::vector<std::string> what;
  mpc::bench::CaseReport report = checkEmulated(check, 12, what);
  // Forward outputs, the update of each of the four parameters, the curve,
  // launches and syncs.
  EXPECT_EQ(what, (std::vector<std::string>{
                      "forward output logits", "forward output loss", "update of fc1.weight",
                      "update of fc1.bias", "update of fc2.weight", "update of fc2.bias",
                      "loss curve over 12 steps", "graph launches per step minus one",
                      "host syncs in the training loop"}));
  EXPECT_EQ(report.graphLaunches, 12u);
  EXPECT_EQ(report.hostSyncsInLoop, 0u);
  ASSERT_EQ(report.deviceLosses.size(), 12u);
  EXPECT_LT(report.deviceLosses.back(), report.deviceLosses.front()); // it learns the batches
  std::string json = mpc::bench::reportJson("cuda", {report});
  EXPECT_EQ(json.rfind("{\"device\": \"cuda\", \"passed\": true, \"cases\": [{\"name\": \"mlp\"", 0),
            0u)
      << json;

  // Without the device every case fails with the reason.
  mpc::test::CudaEmulator emulator("");
  mpc::bench::CheckOptions missing;
  missing.device = "cuda:3";
  mpc::bench::CaseReport failed = mpc::bench::checkCase(check, missing);
  EXPECT_FALSE(failed.passed());
  EXPECT_NE(failed.error.find("this machine has 1 CUDA GPU"), std::string::npos) << failed.error;
  std::system(("rm -rf '" + dir + "'").c_str());
}

// Adam's first step moves every weight by about lr sign(g): the check
// compares its first moment (the gradient) and the update only where the
// gradient is above the floor (a hundredth of the model's largest), on the
// emulated GPU bitwise as well.
TEST(GpuCheckEmulated, AdamModelsCompareTheirGradients) {
  char pattern[] = "/tmp/mpc-gpu-check-XXXXXX";
  std::string dir = mkdtemp(pattern);
  mpc::bench::CheckCase check{"fashion_mlp", "fp16", compile(dir, "fashion_mlp", "train", "fp16"),
                              ""};
  std::vector<std::string> what;
  mpc::bench::CaseReport report = checkEmulated(check, 2, what);
  EXPECT_EQ(what, (std::vector<std::string>{
                      "gradient of fc1.weight (Adam's first moment)",
                      "gradient of fc1.bias (Adam's first moment)",
                      "gradient of fc2.weight (Adam's first moment)",
                      "gradient of fc2.bias (Adam's first moment)",
                      "update of fc1.weight where |gradient| >= the floor",
                      "update of fc1.bias where |gradient| >= the floor",
                      "update of fc2.weight where |gradient| >= the floor",
                      "update of fc2.bias where |gradient| >= the floor", "loss curve over 2 steps",
                      "graph launches per step minus one", "host syncs in the training loop"}));
  // Every gradient element is compared; the updates only where the
  // gradient is above the floor, which many of fc1.weight's are not (a
  // hundredth of the model's largest gradient).
  const uint64_t sizes[] = {784 * 256, 256, 256 * 10, 10};
  ASSERT_EQ(report.measures.size(), 11u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(report.measures[i].elements, sizes[i]) << report.measures[i].what;
    EXPECT_GT(report.measures[4 + i].elements, 0u) << report.measures[4 + i].what;
    EXPECT_LE(report.measures[4 + i].elements, sizes[i]) << report.measures[4 + i].what;
  }
  EXPECT_LT(report.measures[4].elements, sizes[0]);
  EXPECT_EQ(report.measures[8].elements, 2u); // the curve's steps
  EXPECT_EQ(report.measures[9].elements, 1u); // a count
  EXPECT_NE(mpc::bench::reportJson("cuda", {report}).find("\"elements\": 200704"),
            std::string::npos);
  std::system(("rm -rf '" + dir + "'").c_str());
}

// The transformer block's key-projection bias gets a gradient of rounding
// noise only (softmax ignores a shift of a whole row of scores), below the
// floor everywhere: its Adam update is not a measure, which would compare
// nothing, and its gradient's measure says so. Every measure compares
// something.
TEST(GpuCheckEmulated, AnUpdateWithNoGradientAboveTheFloorIsNotMeasured) {
  char pattern[] = "/tmp/mpc-gpu-check-XXXXXX";
  std::string dir = mkdtemp(pattern);
  mpc::bench::CheckCase check{"transformer_block", "fp16",
                              compile(dir, "transformer_block", "train", "fp16"), ""};
  std::vector<std::string> what;
  mpc::bench::CaseReport report = checkEmulated(check, 2, what);
  int gradients = 0, updates = 0;
  for (const mpc::bench::Measure &measure : report.measures) {
    EXPECT_GT(measure.elements, 0u) << measure.what;
    gradients += measure.what.rfind("gradient of ", 0) == 0;
    updates += measure.what.rfind("update of ", 0) == 0;
  }
  EXPECT_EQ(updates + 1, gradients);
  EXPECT_NE(std::find(what.begin(), what.end(),
                      "gradient of attn.k_proj.bias (Adam's first moment), below the floor "
                      "everywhere: its update is not compared"),
            what.end());
  EXPECT_EQ(std::find(what.begin(), what.end(),
                      "update of attn.k_proj.bias where |gradient| >= the floor"),
            what.end());
  std::system(("rm -rf '" + dir + "'").c_str());
}

// A measure that compared nothing fails, whatever its error.
TEST(GpuCheckEmulated, AMeasureOfNoElementsFails) {
  EXPECT_FALSE((mpc::bench::Measure{"empty", 0.0, 1e-3, 0}.passed()));
  EXPECT_TRUE((mpc::bench::Measure{"one", 0.0, 1e-3, 1}.passed()));
  EXPECT_FALSE((mpc::bench::Measure{"one", 2e-3, 1e-3, 1}.passed()));
  mpc::bench::CaseReport report;
  report.measures = {{"one", 0.0, 1e-3, 5}, {"empty", 0.0, 1e-3, 0}};
  EXPECT_FALSE(report.passed());
}

// The comparison: relative to the largest reference magnitude, or to the
// floor where that is larger (a gradient of rounding noise); NaN where the
// reference has none fails it.
TEST(GpuCheckEmulated, RelativeErrorHasAFloor) {
  using mpc::bench::relativeError;
  EXPECT_DOUBLE_EQ(relativeError({2.0, -4.0}, {2.0, -3.0}), 0.25);
  EXPECT_DOUBLE_EQ(relativeError({1e-9, -1e-9}, {-1e-9, 1e-9}), 2.0);
  EXPECT_DOUBLE_EQ(relativeError({1e-9, -1e-9}, {-1e-9, 1e-9}, 1e-6), 2e-3);
  EXPECT_DOUBLE_EQ(relativeError({2.0, -4.0}, {2.0, -3.0}, 1.0), 0.25);
  EXPECT_EQ(relativeError({1.0, NAN}, {1.0, NAN}), 0.0);
  EXPECT_TRUE(std::isinf(relativeError({1.0, 2.0}, {1.0, NAN})));
  EXPECT_EQ(relativeError({1.0, INFINITY}, {1.0, INFINITY}), 0.0);
  EXPECT_TRUE(std::isinf(relativeError({1.0, INFINITY}, {1.0, -INFINITY})));
  EXPECT_TRUE(std::isinf(relativeError({1.0, INFINITY}, {1.0, NAN})));
  EXPECT_TRUE(std::isinf(relativeError({1.0, 2.0}, {1.0, INFINITY})));
  EXPECT_TRUE(std::isinf(relativeError({1.0, 2.0}, {1.0})));
}

// mpc-bench --profile names a kernel by the device-library loop its body
// calls last, in both forms of definition; other macros are not kernels.
TEST(KernelKinds, NamesEachKernelByTheLoopItCalls) {
  const std::string source = "MPC_KERNEL(k0) {\n  const k0_fn fn{};\n"
                             "  mpc::pointwise_rows(256, 49152, fn);\n}\n"
                             "MPC_KERNEL_BOUNDED(k1, 1024) {\n  mpc::fill_from_table(t);\n"
                             "  mpc::reduce_rows<float>(fn);\n}\n"
                             "MPC_KERNEL(k2) {\n  int x = 0;\n}\n"
                             "MPC_KERNEL_BUFFER_BYTES(k0, 3, 384, 98304, 98304)\n";
  std::map<std::string, std::string> kinds = mpc::bench::kernelKinds(source);
  EXPECT_EQ(kinds, (std::map<std::string, std::string>{
                       {"k0", "pointwise_rows"}, {"k1", "reduce_rows"}, {"k2", "other"}}));
}

} // namespace
