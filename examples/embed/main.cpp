//===- main.cpp - an application that trains and runs an mpc bundle -------===//
//
// Part of mpc, a mixed-precision training compiler.
//
// Uses only the installed runtime (mpc/runtime.hpp over the C API). It
// loads the training step of examples/mlp.mlir, trains it on data it makes
// itself (ten noisy prototypes of 64 features), reading the loss as
// telemetry while the step runs, saves a checkpoint, resumes from it in a
// second program, and runs inference with the forward step on new examples.
//
//   mpc compile examples/mlp.mlir --step train --precision fp16 -o train.mpcb
//   mpc compile examples/mlp.mlir --step forward --precision fp16 -o forward.mpcb
//   embed train.mpcb forward.mpcb checkpoint.safetensors [cpu|cuda]
//
//===----------------------------------------------------------------------===//

#include "mpc/runtime.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr int kBatch = 64, kFeatures = 64, kClasses = 10;

/// Batches of the application's own task: each class has a prototype of
/// features in [0, 1), and an example is its class's prototype plus noise.
class Task {
public:
  explicit Task(unsigned seed) : engine_(seed) {
    std::uniform_real_distribution<float> unit(0.0f, 1.0f);
    for (float &value : prototypes_)
      value = unit(engine_);
  }

  void batch(std::vector<float> &pixels, std::vector<int32_t> &labels) {
    std::uniform_int_distribution<int32_t> cls(0, kClasses - 1);
    std::normal_distribution<float> noise(0.0f, 0.4f);
    pixels.resize(kBatch * kFeatures);
    labels.resize(kBatch);
    for (int b = 0; b < kBatch; ++b) {
      labels[b] = cls(engine_);
      for (int f = 0; f < kFeatures; ++f)
        pixels[b * kFeatures + f] = prototypes_[labels[b] * kFeatures + f] + noise(engine_);
    }
  }

private:
  std::mt19937 engine_;
  std::vector<float> prototypes_ = std::vector<float>(kClasses * kFeatures);
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s TRAIN.mpcb FORWARD.mpcb CHECKPOINT [cpu|cuda]\n", argv[0]);
    return 2;
  }
  std::string device = argc > 4 ? argv[4] : "cpu";
  try {
    mpc::ProgramOptions options;
    options.device = device;
    options.seed = 7;
    mpc::Program train(argv[1], options);
    Task task(1);
    std::vector<float> pixels;
    std::vector<int32_t> labels;
    const int steps = 300;
    for (int step = 0; step < steps; ++step) {
      task.batch(pixels, labels);
      train.setInput("pixels", pixels);
      train.setInput("labels", labels);
      train.run(); // on a GPU: enqueued, the loop does not wait
      float loss = 0;
      if ((step + 1) % 100 == 0) {
        train.synchronize();
        train.telemetry(step, "loss", loss);
        std::printf("step %d: loss %.4f\n", step + 1, loss);
      }
    }
    train.saveParams(argv[3]);
    std::printf("saved %s\n", argv[3]);

    // A second program resumes from the checkpoint: same parameters.
    mpc::Program resumed(argv[1], options);
    resumed.loadParams(argv[3]);
    bool same = resumed.param<float>("fc1.weight") == train.param<float>("fc1.weight");
    std::printf("resumed from the checkpoint: fc1.weight %s\n", same ? "equal" : "DIFFERENT");

    // Inference: the forward step takes the trained parameters (working
    // copies follow their parameters by themselves).
    mpc::Program forward(argv[2], options);
    for (const mpc::TensorInfo &param : forward.params()) {
      if (param.flags & MPC_TENSOR_WORKING_COPY)
        continue;
      std::vector<char> bytes(param.bytes);
      train.getParam(param.name, bytes.data(), bytes.size());
      forward.setParam(param.name, bytes.data(), bytes.size());
    }
    Task heldOut(1); // the same prototypes, other noise
    heldOut.batch(pixels, labels);
    forward.setInput("pixels", pixels);
    forward.setInput("labels", labels);
    forward.run();
    std::vector<float> logits = forward.output<float>("logits");
    int correct = 0;
    for (int b = 0; b < kBatch; ++b) {
      const float *row = &logits[b * kClasses];
      correct += std::max_element(row, row + kClasses) - row == labels[b];
    }
    std::printf("inference on %d new examples: %d correct\n", kBatch, correct);
    return same && correct >= kBatch * 9 / 10 ? 0 : 1;
  } catch (const mpc::Error &error) {
    std::fprintf(stderr, "embed: %s\n", error.what());
    return 1;
  }
}
