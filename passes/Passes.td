//===- Passes.td - mpc's compiler passes ---------------------*- tablegen -*-===//
//
// Part of mpc, a mixed-precision training compiler.
//
// In pipeline order (docs/design.md, "Pipeline"). Each pass runs on one mpg.graph.
//
//===----------------------------------------------------------------------===//

#ifndef MPC_PASSES
#define MPC_PASSES

include "mlir/Pass/PassBase.td"

def MpgAutodiff : Pass<"mpg-autodiff", "::mlir::mpg::GraphOp"> {
  let summary = "Turns forward + loss + mpg.minimize into a whole training step";
  let description = [{
    Reverse-mode differentiation of the graph from the loss named by
    `mpg.minimize`, through the VJP rule each op implements
    (DifferentiableOpInterface). Gradients of values used several times are
    summed; frozen parameters, integer values and values the loss does not
    depend on get none. For each trainable parameter the optimizer's update
    follows as an `mpg.sgd`, `mpg.adam` or `mpg.adamw` op with its state
    (`<param>.momentum_buffer`; `<param>.exp_avg`, `<param>.exp_avg_sq`) and
    a shared `optimizer.step` counter, and the new values are written back
    with `mpg.state_write`. The learning rate is a rank-0 tensor: a constant,
    or the optimizer's schedule (warm-up, cosine decay) computed from the
    step counter; it is also an output named "lr". The `mpg.minimize` is
    replaced by an output named "loss". The seed of the backward pass (the
    constant 1 that is the loss's gradient) is marked `mpg.loss_seed` for
    `mpg-insert-loss-scaling`.

    A graph without `mpg.minimize` (an inference graph) is left alone.

    ```mlir
    // before
    %w = mpg.param "w" init(zeros) : tensor<4x3xf32>
    %y = mpg.matmul %x, %w : ...
    %l = mpg.softmax_cross_entropy %y, %labels : ...
    mpg.minimize %l optimizer(sgd, lr = 1.000000e-01) : tensor<f32>
    // after
    %one = mpg.constant dense<1.0> : tensor<f32>
    %dy = mpg.softmax_cross_entropy_grad %y, %labels, %one : ...
    %dw = mpg.matmul %x, %dy transpose_a : ...
    %lr = mpg.constant dense<0.1> : tensor<f32>
    %w2 = mpg.sgd %w, %dw, %lr : ...
    mpg.state_write %w, %w2 : tensor<4x3xf32>
    mpg.output "loss" %l : tensor<f32>
    ```
  }];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgSeedDropout : Pass<"mpg-seed-dropout", "::mlir::mpg::GraphOp"> {
  let summary = "Keys every unkeyed dropout of a training step (seed, run counter, stream)";
  let description = [{
    Runs first in the training pipeline, before `mpg-autodiff`, so that the
    gradient of each dropout draws its mask again from the same key. A
    graph without unkeyed dropouts is left alone; keyed ones (written with
    their key) keep it.

    - State, first in the graph: "dropout.seed" (i64, `init(seed)`: 64
      random bits from the program's seed, as parameters draw theirs) and
      "dropout.run" (i64, zeros), written `run + 1` at the end of every run
      of the step, skipped or not, accumulating or not. Both are in every
      checkpoint, so a resumed run draws the masks that an uninterrupted
      one would.
    - Each unkeyed dropout takes the key (seed, run) and the stream number
      of its position among them, in graph order: two dropouts of one run
      and two runs of one dropout draw independent masks.

    ```mlir
    // before
    %y = mpg.dropout %x rate 1.000000e-01 : tensor<8x64xf32>
    // after
    %seed = mpg.state "dropout.seed" init(seed) : tensor<i64>
    %run = mpg.state "dropout.run" init(zeros) : tensor<i64>
    %y = mpg.dropout %x rate 1.000000e-01 key(%seed, %run) stream 0 : ...
    %next = mpg.add %run, %one ...
    mpg.state_write %run, %next : tensor<i64>
    ```
  }];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgRemoveDropout : Pass<"mpg-remove-dropout", "::mlir::mpg::GraphOp"> {
  let summary = "Makes unkeyed dropouts the identity (forward-only programs: inference, evaluation)";
  let description = [{
    Runs first in the forward pipeline: as `model.eval()` in PyTorch, a
    dropout without a key passes its input through. Keyed dropouts, whose
    author gave them a key, stay.

    ```mlir
    // before
    %y = mpg.dropout %x rate 1.000000e-01 : tensor<8x64xf32>
    %z = mpg.relu %y : tensor<8x64xf32>
    // after
    %z = mpg.relu %x : tensor<8x64xf32>
    ```
  }];
}

def MpgFuseAttention : Pass<"mpg-fuse-attention", "::mlir::mpg::GraphOp"> {
  let summary = "Replaces written-out scaled dot-product attention with mpg.attention";
  let description = [{
    Runs before autodiff, so that the backward pass is mpg.attention's (its
    gradient recomputes the probabilities from the saved row log-sum-exp)
    and neither pass stores the S x S scores or probabilities. The pattern,
    read back from the second product:

    | step | ops |
    |------|-----|
    | scores | `batch_matmul %q, %kt` (`%kt` [..., D, Sk], or `%k` with `transpose_b`) |
    | scale (optional) | `mul` or `div` by a constant whose elements are all equal |
    | mask (optional) | `add` of a tensor [Sq, Sk] (or [1, ..., 1, Sq, Sk]) that no trainable parameter computes |
    | probabilities | `softmax` over the last axis |
    | output | `batch_matmul %p, %v` |

    Each intermediate must have no other user (a graph that outputs the
    probabilities keeps them), queries, keys, values and every step one
    element type among f32, f16 and bf16 (f64 stays written out), and the
    head size at most 128 (the kernels' largest). Dropout on the
    probabilities also keeps a training step's attention written out (the
    forward-only pipeline removes the dropout first, and fuses). Once fused,
    the attention's precision is its own category's: `--keep-fp32 softmax`
    or `batch_matmul` no longer reach it; `--keep-fp32 attention` (and
    `attention_grad` for its gradient) does.

    A constant square mask ([S, S] or [1, ..., 1, S, S]) that is 0 on and
    below the diagonal and at most -1e4 (or -inf) above it becomes
    `causal`: a masked
    element's weight exp(s - 1e4 - max) is zero in fp32 unless its score is
    about 9,300 above its row's largest unmasked score. The keys are the
    transpose's operand when `%kt` is one (the permutations composed).

    ```mlir
    // before
    %s = mpg.batch_matmul %q, %kt : tensor<2x4x32x16xf32>, tensor<2x4x16x32xf32> -> tensor<2x4x32x32xf32>
    %c = mpg.constant dense<2.500000e-01> : tensor<f32>
    %t = mpg.mul %s, %c : tensor<2x4x32x32xf32>, tensor<f32> -> tensor<2x4x32x32xf32>
    %u = mpg.add %t, %mask : tensor<2x4x32x32xf32>, tensor<32x32xf32> -> tensor<2x4x32x32xf32>
    %p = mpg.softmax %u axis 3 : tensor<2x4x32x32xf32> -> tensor<2x4x32x32xf32>
    %y = mpg.batch_matmul %p, %v : tensor<2x4x32x32xf32>, tensor<2x4x32x16xf32> -> tensor<2x4x32x16xf32>
    // after (%mask causal)
    %y, %lse = mpg.attention %q, %k, %v scale 2.500000e-01 causal : ...
    ```
  }];
}

def MpgAssignPrecision : Pass<"mpg-assign-precision", "::mlir::mpg::GraphOp"> {
  let summary = "Chooses the storage, compute and accumulate type of every op (mixed precision)";
  let description = [{
    The graph is written in f32; this pass decides, op by op, where fp16
    (or bf16) replaces it, following these categories (docs/precision.md):

    | category      | ops | types |
    |---------------|-----|-------|
    | `dot-product` | matmul, batch_matmul, conv2d, conv2d_grad_input, conv2d_grad_filter | low-precision operands and result, fp32 accumulation |
    | `attention`   | attention, attention_grad (fused) | low-precision queries, keys, values, output and gradients; fp32 scores, softmax statistics and accumulation; the log-sum-exp f32, the mask as written |
    | `reduction`   | reduce_sum, reduce_mean | fp32 compute and result |
    | `softmax`     | softmax, log_softmax | fp32 |
    | `loss`        | softmax_cross_entropy, mse_loss and their gradients | fp32 |
    | `norm`        | layer_norm, batch_norm, their gradients, global_avg_pool | fp32 |
    | `sensitive`   | exp, log, pow, rsqrt, embedding_grad | fp32 |
    | `update`      | sgd, adam, adamw | fp32 (master weights and optimizer state) |
    | `follow`      | every other op (pointwise, shape, gather, max) | low precision when any float operand is, else fp32; fp32 math inside the fused kernel |

    A low-precision `follow` op casts its f32 operands down (a constant is
    converted instead of cast); a comparison of mixed operands compares in
    fp32. Casts are inserted once per value and type, right after the value
    is defined, so a weight used by several ops is cast once per step; a
    cast back to a value's original type reuses it (cast pairs removed);
    outputs and state writes keep their declared types. f64 ops are left as
    written. Each op with a float operand or result gets a
    `mpg.precision_decision` dictionary: category, storage, compute,
    accumulate (dot-products), `forced` (set by an override or the options)
    and reason; the graph gets
    `mpg.precision_summary` (mode, casts inserted and removed).

    Overrides: an op's `mpg.precision = "f32"` makes it fp32, `"f16"` or
    `"bf16"` makes its operands and results that type (a dot-product still
    accumulates in fp32); the `allow` and `deny` options name ops (`mpg.exp`;
    unknown names are an error) that run in low precision or in fp32
    regardless of category. The `keep-fp32` option (mpc's `--keep-fp32`) takes
    patterns: an op kind (`exp` or `mpg.exp`) joins the deny list; anything
    else is a glob over the graph's parameter names (`fc1.*`, `*.bias`), and
    every op that reads a matching parameter runs in fp32, so the parameter
    is not cast to low precision (and gets no working copy) unless an op of
    another pattern or an override needs it. A pattern that is no op kind
    and matches no parameter is an error. Such decisions keep the op's
    category and are marked `forced`; the reason names the pattern. A constant that overflows or flushes to zero when
    converted for a low-precision user is warned about. Mode `fp32` changes
    nothing (overrides are still checked).

    ```mlir
    // before (mode=fp16)
    %y = mpg.matmul %x, %w : tensor<64x784xf32>, tensor<784x128xf32> -> tensor<64x128xf32>
    // after
    %xh = mpg.cast %x : tensor<64x784xf32> to tensor<64x784xf16>
    %wh = mpg.cast %w : tensor<784x128xf32> to tensor<784x128xf16>
    %y = mpg.matmul %xh, %wh {mpg.precision_decision = {accumulate = f32, category = "dot-product",
        compute = f32, reason = "...", storage = f16}} : ... -> tensor<64x128xf16>
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"fp16\"",
           "fp32 (no change), fp16 (the paper) or bf16">,
    ListOption<"allow", "allow", "std::string",
               "Ops (by name, e.g. mpg.exp) that run in low precision">,
    ListOption<"deny", "deny", "std::string",
               "Ops (by name, e.g. mpg.matmul) that run in fp32">,
    ListOption<"keepFp32", "keep-fp32", "std::string",
               "What runs in fp32, by pattern (mpc's --keep-fp32): an op kind "
               "(exp or mpg.exp: added to the deny list), else a glob of "
               "parameter names (fc1.*): every op that reads such a parameter">
  ];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgVerifyPrecision : Pass<"mpg-verify-precision", "::mlir::mpg::GraphOp"> {
  let summary = "Checks the decisions of mpg-assign-precision";
  let description = [{
    After `mpg-assign-precision` (a graph with `mpg.precision_summary`;
    others are left alone): every op with a float operand or result other
    than casts, inputs, parameters, constants, state and outputs carries a
    `mpg.precision_decision`; every dot-product accumulates in fp32 and has
    operands of one type; every op of the fp32 categories (reduction,
    softmax, loss, norm, sensitive, update) that was not `forced` has only
    f32 float operands and results; and a decision's storage type is the type of the
    op's float results. Errors are reported at the op.
  }];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgAllReduceGradients : Pass<"mpg-all-reduce-gradients", "::mlir::mpg::GraphOp"> {
  let summary = "Data parallelism: the mean of every rank's gradients and loss, bucketed";
  let description = [{
    For data-parallel training (`mpirun -np N mpc train ...`): every rank
    runs the same step on its own part of the batch, and each update reads
    the mean over the ranks of its gradient, so that the ranks' parameters
    stay equal. Runs after precision assignment and before
    `mpg-insert-loss-scaling`, whose overflow check therefore sees the
    reduced gradients: every rank skips, grows or backs off together.

    - The gradients the updates read, in the order the backward pass
      computes them, go into buckets of about `bucket-bytes` each: flattened
      (`mpg.reshape`), joined (`mpg.concat`), reduced by one
      `mpg.all_reduce mean` right after the bucket's last gradient is
      computed, and cut apart again (`mpg.slice`) for the updates. A bucket
      of one gradient reduces it as it is.
    - `reduce-type`: `f32` (the default) widens low-precision gradients to
      f32 before the reduction, so the sum of N ranks' scaled gradients has
      f32's range and the f32 bucket is twice the bytes; `storage` reduces
      each gradient in its storage type (a bucket per type; half the bytes:
      on the CPU, MPI's f16 and bf16 sum in f32 and round once; NCCL rounds at
      each step of its ring). The choice is each
      all-reduce's precision decision (category `all-reduce`), which the
      precision report lists.
    - The output "loss" becomes its mean over the ranks (the loss of the
      whole batch).
    - A graph that already has an `mpg.all_reduce`, or has no updates (a
      forward step), is left alone.

    In a job of one rank each all-reduce leaves its operand as it is.

    ```mlir
    // before: updates reading %gw [4, 3] and %gb [3]
    // after
    %fw = mpg.reshape %gw : tensor<4x3xf32> -> tensor<12xf32>
    %fb = mpg.reshape %gb : tensor<3xf32> -> tensor<3xf32>
    %bucket = mpg.concat %fb, %fw axis 0 : tensor<3xf32>, tensor<12xf32> -> tensor<15xf32>
    %r = mpg.all_reduce mean %bucket : tensor<15xf32>
    %sb = mpg.slice %r start [0] limit [3] : tensor<15xf32> -> tensor<3xf32>
    ...
    ```
  }];
  let options = [
    Option<"bucketBytes", "bucket-bytes", "int64_t", /*default=*/"25 << 20",
           "close a bucket once its gradients hold at least this many bytes (PyTorch DDP's "
           "default, 25 MiB)">,
    Option<"reduceType", "reduce-type", "std::string", /*default=*/"\"f32\"",
           "f32 (widen low-precision gradients) or storage (each gradient's own type)">,
  ];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgInsertLossScaling : Pass<"mpg-insert-loss-scaling", "::mlir::mpg::GraphOp"> {
  let summary = "Scales the backward pass's seed, unscales gradients in the update, skips overflowing steps";
  let description = [{
    Runs on a training step (after `mpg-autodiff` and precision assignment;
    the seed of the backward pass is the constant marked `mpg.loss_seed`). A
    graph without one is left alone, as is every graph in mode `none`.

    - The seed is multiplied by the loss scale S, so every gradient of the
      backward pass is S times the true one: small fp16 gradients no longer
      flush to zero.
    - Each optimizer update reads `mpg.unscale(grad, S)`; fusion puts the
      division into the update's kernel.
    - `mpg.all_finite` checks every gradient the updates read; when one holds
      inf or NaN, the step is skipped by predication: every state the
      updates write (parameters, moments, the `optimizer.step` counter)
      keeps its old value (`mpg.select` before its `mpg.state_write`), and
      the state `loss_scale.skipped_steps` counts the step. Nothing is read
      by the host.
    - `dynamic`: S is the persistent state `loss_scale` (starting at
      `init-scale`) with the counter `loss_scale.good_steps`, both updated
      by `mpg.update_loss_scale` each step (growth, backoff, interval,
      hysteresis, min and max scale as options). `static`: S is the
      constant `init-scale`.
    - Outputs: "loss_scale" (the S this step used) and "skipped" (i1).

    ```mlir
    // after (dynamic)
    %S = mpg.state "loss_scale" init(constant, value = 65536.0) : tensor<f32>
    %seed = mpg.mul %one, %S : ...
    %ok = mpg.all_finite %dw, %db : ...
    %g = mpg.unscale %dw, %S : ...
    %w2 = mpg.sgd %w, %g, %lr : ...
    %w3 = mpg.select %ok, %w2, %w : ...
    mpg.state_write %w, %w3 : ...
    %S2, %n2 = mpg.update_loss_scale %S, %n, %ok : ...
    ```
  }];
  let options = [
    Option<"mode", "mode", "std::string", /*default=*/"\"dynamic\"",
           "dynamic, static or none">,
    Option<"initScale", "init-scale", "double", /*default=*/"65536.0",
           "The first scale (dynamic) or the scale (static)">,
    Option<"growthFactor", "growth-factor", "double", /*default=*/"2.0",
           "Factor of growth after growth-interval finite steps">,
    Option<"backoffFactor", "backoff-factor", "double", /*default=*/"0.5",
           "Factor of backoff on overflow">,
    Option<"growthInterval", "growth-interval", "int64_t", /*default=*/"2000",
           "Finite steps between growths">,
    Option<"hysteresis", "hysteresis", "int64_t", /*default=*/"1",
           "Consecutive overflowing steps before a backoff">,
    Option<"minScale", "min-scale", "double", /*default=*/"1.0", "Smallest scale">,
    Option<"maxScale", "max-scale", "double", /*default=*/"16777216.0", "Largest scale">
  ];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgAccumulateGradients : Pass<"mpg-accumulate-gradients", "::mlir::mpg::GraphOp"> {
  let summary = "Accumulates the gradients of several runs before each update";
  let description = [{
    Applies the `accumulate_steps` N of the graph's optimizer, which
    `mpg-autodiff` leaves on the graph as `mpg.accumulate_steps`, and removes
    that attribute; a graph without it (or with N = 1) is left alone. Each
    run of the step is then one micro-batch, and every N runs make one
    update, as N micro-batches of B make one batch of N·B:

    - State, first in the graph: the run counter "grad_accum.micro" (i64,
      from 0), the window's length "grad_accum.runs" (i64, N, never written:
      the program and its checkpoints say how they accumulate); the run is
      the window's last when the counter is N - 1, after which it is 0.
    - Every gradient an update reads is added, as computed (scaled, in its
      storage type), in f32 to its own state "<param>.grad_accum" (zeros),
      right after it is computed; the updates and the norm of
      `mpg-clip-gradients` (which runs after) read the mean, sum / N.
    - Every state that the updates, the step counter and the loss scaler
      write keeps its value on the other runs: parameters, optimizer state,
      "optimizer.step" and the scaler's state change once per window, on its
      last run, with one loss-scale update. State that the forward pass
      writes (batch-norm statistics) is updated on every run.
    - With loss scaling, the overflow check of `mpg-insert-loss-scaling`
      reads each run's sums; the state "grad_accum.finite" (i1, true)
      remembers an overflow until the window's last run, whose updates and
      scale update see whether every run of the window was finite: one
      overflow skips the whole window. A run that overflows leaves the
      accumulators as they were, so they (and a checkpoint) hold finite
      values. The scale does not change inside a window, so the summed
      gradients share one scale.
    - The accumulators keep their sums at the end of each run, and start
      over at zero after the last. The output "skipped" is false on the
      other runs.

    Runs after `mpg-insert-loss-scaling` and `mpg-gradient-stats` (which
    count each run's own gradients) and before `mpg-clip-gradients`.

    ```mlir
    // before (an update reading %g, scaled, and unscaling it)
    %ok = mpg.all_finite %g, ...
    %u = mpg.unscale %g, %scale ...
    %new = mpg.sgd %w, %u, %lr ...
    mpg.state_write %w, (mpg.select %ok, %new, %w) ...
    // after (N = 4)
    %micro = mpg.state "grad_accum.micro" init(zeros) : tensor<i64>
    %last = mpg.compare eq, %micro, %three ...
    %acc = mpg.state "w.grad_accum" init(zeros) ...
    %sum = mpg.add %acc, %g ...
    %mean = mpg.div %sum, %four ...
    %run_ok = mpg.all_finite %sum, ...
    %ok = mpg.select %window_ok, %run_ok, %false ...
    %u = mpg.unscale %mean, %scale ...
    %new = mpg.sgd %w, %u, %lr ...
    mpg.state_write %w, (mpg.select %last, (mpg.select %ok, %new, %w), %w) ...
    mpg.state_write %acc, (mpg.select %last, %zero, (mpg.select %run_ok, %sum, %acc)) ...
    ```
  }];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgClipGradients : Pass<"mpg-clip-gradients", "::mlir::mpg::GraphOp"> {
  let summary = "Clips the gradients by their global norm before the updates";
  let description = [{
    Applies the `clip_grad_norm` of the graph's optimizer, which
    `mpg-autodiff` leaves on the graph as `mpg.clip_grad_norm`, and removes
    that attribute; a graph without it is left alone. Runs after
    `mpg-insert-loss-scaling`, so the gradients the updates read are already
    unscaled: the norm is PyTorch's `clip_grad_norm_` after
    `GradScaler.unscale_`.

    - The norm: the square root of the sum, over every gradient an update
      reads, of the sum of its squares in fp32 (one reduction per gradient,
      its unscaling and squaring fused into it as a prologue).
    - The factor: `min(1, clip_grad_norm / (norm + 1e-6))`, a rank-0 f32.
    - Each update reads its gradient in f32 (f64 stays f64) times the
      factor: pointwise ops that fuse into the update's kernel, so the
      gradients are not read or written once more.
    - The norm is the output "grad_norm" (the training log records it).
    - With loss scaling, the sum of the squares is also the overflow check:
      `mpg-insert-loss-scaling`'s `mpg.all_finite` becomes `sum < inf`
      (NaN or infinite exactly when a gradient is, or when the unscaled
      squares overflow f32), so the gradients are read once for both.

    On a step that overflows, the norm is not finite and so are the
    clipped gradients, but the step is skipped and the state written back
    unchanged (`mpg-insert-loss-scaling`'s selects), as PyTorch's scaler
    skips `optimizer.step`.

    ```mlir
    // before (an update reading %g)
    %new = mpg.sgd %w, %g, %lr ...
    // after
    %sq = mpg.mul %g, %g ...
    %s = mpg.reduce_sum %sq axes [0, 1] ...
    %norm = mpg.sqrt %s : tensor<f32>
    %f = mpg.minimum %one, (%max / (%norm + 1e-6))
    %c = mpg.mul %g, %f ...
    %new = mpg.sgd %w, %c, %lr ...
    mpg.output "grad_norm" %norm : tensor<f32>
    ```
  }];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgGradientStats : Pass<"mpg-gradient-stats", "::mlir::mpg::GraphOp"> {
  let summary = "Adds outputs that describe the magnitudes of the gradients (telemetry)";
  let description = [{
    For the gradients the optimizer updates read (after unscaling, so the
    true values), two outputs computed on the device:

    - "grad_nonzero": how many gradient values are not zero (f32 count);
    - "grad_at_least": [48] counts of values with |g| >= 2^k for k = -40 ..
      7; differences of neighbours give the histogram of exponents, and
      `grad_nonzero - grad_at_least[15]` (k = -25: half of fp16's smallest
      subnormal 2^-24; smaller values round to zero) counts the values that
      fp16 without loss scaling would flush to zero: the paper's Figure 3.
      The counts are f32 sums, exact up to 2^24 per power of two.

    Opt-in (`mpc train --grad-stats`): it costs a reduction over every
    gradient per step. A graph without optimizer updates is left alone.
  }];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgMasterWeights : Pass<"mpg-master-weights", "::mlir::mpg::GraphOp"> {
  let summary = "Keeps fp32 master parameters with persistent fp16/bf16 working copies";
  let description = [{
    Runs after precision assignment (and loss scaling). A parameter stays an
    f32 master in persistent memory; where `mpg-assign-precision` cast it to
    f16 or bf16 for its users, they read instead a persistent working copy,
    the state `<name>.f16` (or `.bf16`) marked `mpg.cast_of = "<name>"`. When
    the step writes the parameter (its optimizer update, after the loss
    scaler's skip), it writes the working copy too, converted from the same
    new value, so the update kernel produces both and no step starts with a
    conversion of the weights. The runtime fills a working copy from its
    parameter at load and whenever the parameter is set or loaded, and
    leaves it out of checkpoints. The graph's `mpg.precision_summary` gets
    the count (`working_copies`). A graph whose precision was not assigned
    in fp16 or bf16 (no `mpg.precision_summary`: fp32 mode) is left alone,
    the author's own casts included.

    ```mlir
    // before
    %w = mpg.param "w" init(glorot_uniform) : tensor<16x4xf32>
    %wh = mpg.cast %w : tensor<16x4xf32> to tensor<16x4xf16>
    ...
    mpg.state_write %w, %w2 : tensor<16x4xf32>
    // after
    %w = mpg.param "w" init(glorot_uniform) : tensor<16x4xf32>
    %wh = mpg.state "w.f16" init(zeros) {mpg.cast_of = "w"} : tensor<16x4xf16>
    ...
    mpg.state_write %w, %w2 : tensor<16x4xf32>
    %w2h = mpg.cast %w2 : tensor<16x4xf32> to tensor<16x4xf16>
    mpg.state_write %wh, %w2h : tensor<16x4xf16>
    ```
  }];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgDecompose : Pass<"mpg-decompose", "::mlir::mpg::GraphOp"> {
  let summary = "Rewrites composite ops into the ops the kernel generator handles";
  let description = [{
    Some forward ops are compositions of others; expressing them that way
    lets `mpg-fuse` fuse their parts with their neighbours instead of giving
    each its own hand-written kernel:

    - `mse_loss(p, t)` becomes `reduce_mean((p - t) * (p - t))` over all axes;
    - `global_avg_pool(x)` becomes `reduce_mean(x)` over axes 2 and 3;
    - training-mode `batch_norm` becomes per-channel `reduce_mean`s for the
      batch mean and biased variance (in fp32 for f16/bf16 inputs), a
      pointwise normalisation with `rsqrt`,
      and the pointwise running-statistics update (unbiased variance, as in
      PyTorch);
    - the optimizer updates `sgd`, `adam` and `adamw` become their pointwise
      formulas (weight decay, momentum or moments, bias correction from the
      step counter), so each parameter's update is one fused kernel;
    - `layer_norm_grad` and `batch_norm_grad` become reductions and pointwise
      math in fp32 (the statistics are recomputed from the input);
    - `embedding_grad` becomes a GEMM: onehot(ids)^T x dy, with the one-hot
      matrix from comparing the ids against a constant row [0, V);
    - `all_finite` becomes a sum of `x * 0` per operand (NaN exactly when
      an element is inf or NaN), marked `mpg.finite_check`, and a comparison
      of the total with itself. An operand of at least
      `finite-check-split-elements` elements is summed in two stages where
      its leading axes hold 64 partial sums of at least 256 elements each:
      first over its trailing axes (a row per partial sum: many blocks on a
      GPU, where one block would stream the whole gradient), then over
      those, which is the marked sum. Sums of `x * 0` are 0 or NaN in any
      order, so the result is the same;
    - `update_loss_scale` becomes rank-0 selects, comparisons, min and max.

    Other ops are left alone.

    ```mlir
    // before
    %l = mpg.mse_loss %p, %t : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<f32>
    // after
    %d = mpg.sub %p, %t : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
    %s = mpg.mul %d, %d : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
    %l = mpg.reduce_mean %s axes [0, 1] : tensor<8x4xf32> -> tensor<f32>
    ```
  }];
  let options = [
    Option<"finiteCheckSplitElements", "finite-check-split-elements", "int64_t",
           /*default=*/"32768",
           "Sum all_finite operands of at least this many elements in two "
           "stages (0: never)">,
  ];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgFuse : Pass<"mpg-fuse", "::mlir::mpg::GraphOp"> {
  let summary = "Groups the ops of a graph into fusion groups, one kernel launch each";
  let description = [{
    Walks the graph in program order and puts every compute op into exactly
    one `mpg.fusion` group; each group becomes one kernel launch or library
    call. Inputs, parameters, state, constants, outputs and reshapes (views)
    stay outside groups.

    Legality rules:
    - A group never depends on itself through an op outside it: an op joins
      a group only if none of its operands from outside the group depends on
      the group (no cycles between kernels).
    - `pointwise`: pointwise ops (elementwise math, compare, select, cast,
      broadcast_to, scale/unscale) whose results all have the group's shape
      (the kernel's iteration space). An operand of a smaller shape comes
      from outside the group and is broadcast while indexing; an op whose
      result is larger than a group value it reads starts a new group. When
      an op joins a pointwise group, a pointwise group of the same shape
      that produces another of its operands and whose values no third group
      reads is absorbed, unless a third group lies between them; its values
      that outputs, state writes or later ops read become results of the
      merged kernel (so a parameter's whole Adam update, moments written to
      state and the step read by the parameter's update, is one kernel).
    - `reduction`: a `reduce_sum`/`reduce_mean`/`reduce_max` absorbs the
      pointwise group that produces its operand (prologue) when nothing
      outside reads that group; pointwise ops of the reduced shape that
      follow join it (epilogue), and the epilogue absorbs pointwise groups
      of that shape producing its operands as a pointwise group does (not
      those the reduction or its prologue reads): the loss scale's
      candidate next values are computed in the overflow check's kernel.
      A widening float cast (f16/bf16 to f32) that only a reduction reads
      leaves the pointwise group it joined and becomes the reduction's
      prologue, when others read that group too and the group holds the
      narrow value exactly (read from memory, zero, or chosen among such by
      select, relu, neg, abs, maximum, minimum; other intermediate values
      are f32 until stored). The group then writes the narrow value alone
      and the reduction widens it as it reads: a ReLU's gradient in bf16,
      whose bias gradient is summed in fp32, is no longer written twice.
    - `row`: `softmax`, `log_softmax`, `layer_norm` and
      `softmax_cross_entropy` each form a group of their own.
    - `gemm`: a `matmul`/`batch_matmul` keeps the epilogue cuBLASLt can apply
      — a bias added along the last dimension, then `relu` or `gelu
      approximate` (cuBLASLt's GELU is the tanh form), then a `cast` — when
      each intermediate value has no other use (option
      `gemm-epilogues`). Any other consumer starts a pointwise group that
      reads the GEMM's output. With the same option, an fp32 `matmul`'s
      product that only an `add` reads, adding it to a state
      tensor or to a `mul` of that state by a finite splat constant (read by
      nothing else), whose sum is written back to that state, takes the
      `mul` and the `add` as its last epilogue: the GEMM accumulates into
      the state (`C = product + beta * C`), as SGD's momentum buffer
      `m = m * mu + grad` does with a weight's gradient. Not for bf16 or
      fp16 operands (oneDNN's bf16 GEMMs on the CPU accumulate with a sum
      post-op that cost more than the update's pass saved; fp16 gradients
      are unscaled and checked first anyway).
    - `conv`: each `conv2d`, with a widening float cast (f16/bf16 to f32)
      of its result as its epilogue when nothing else reads the result
      (option `gemm-epilogues`): the GEMMs then write the f32 products a
      batch norm reads, instead of rounding them for a cast kernel to
      widen. `single`: every other op (pooling, transpose, slice, concat,
      embedding, ...) gets a kernel of its own.
    - Splat constants are cloned into the pointwise and reduction groups
      that use them (their kernels take them as literals).
    - Compute ops whose results nobody reads are removed (whole dead
      chains).
    - Outputs of, and state writes from, a parameter or state tensor that
      the step itself writes read a copy made at the start of the step
      (writes are copies at its end, after which the old value is gone).
    - The loss scaler's finite checks (the per-operand sums of
      `mpg-decompose`'s `all_finite`, marked `mpg.finite_check`, each over a
      gradient or over a large gradient's partial sums), each a reduction
      group of its own with one scalar result, move to just before the group
      that combines them, so that they are adjacent and the code generator
      launches them as one multi-tensor reduction (option
      `group-finite-checks`). What they read lives until then: the
      gradients until the updates at the end of the step anyway, partial
      sums a few bytes each.

    ```mlir
    // before
    %0 = mpg.matmul %x, %w : tensor<64x64xf32>, tensor<64x128xf32> -> tensor<64x128xf32>
    %1 = mpg.add %0, %b : tensor<64x128xf32>, tensor<128xf32> -> tensor<64x128xf32>
    %2 = mpg.relu %1 : tensor<64x128xf32>
    // after
    %2 = mpg.fusion gemm(%x, %w, %b : ...) -> tensor<64x128xf32> {
    ^bb0(%a: tensor<64x64xf32>, %c: tensor<64x128xf32>, %d: tensor<128xf32>):
      %0 = mpg.matmul %a, %c ...
      %1 = mpg.add %0, %d ...
      %2 = mpg.relu %1 ...
      mpg.yield %2 : tensor<64x128xf32>
    }
    ```
  }];
  let options = [
    Option<"gemmEpilogues", "gemm-epilogues", "bool", /*default=*/"true",
           "Fuse bias, relu/gelu and cast epilogues into GEMMs">,
    Option<"pointwiseFusion", "pointwise-fusion", "bool", /*default=*/"true",
           "Fuse chains of pointwise ops, reduction prologues and epilogues (off: one kernel per op, for debugging)">,
    Option<"groupFiniteChecks", "group-finite-checks", "bool", /*default=*/"true",
           "Move the loss scaler's per-gradient finite checks next to each other, before the group that combines them">
  ];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgRecomputePointwise : Pass<"mpg-recompute-pointwise", "::mlir::mpg::GraphOp"> {
  let summary = "Dissolves pointwise groups into the reductions and pointwise groups that read them";
  let description = [{
    Runs after `mpg-fuse`. A `pointwise` group whose results only
    `reduction` and `pointwise` groups read, each computing over the
    group's own iteration space (a pointwise group of the same shape, a
    reduction whose input has that shape: its prologue), is dissolved: each
    reader computes the values it read from the group's inputs, with a copy
    of the group's ops that those values need, and the group's results are
    never written to memory. A batch norm's backward pass is such a case:
    one group computes a ReLU's gradient and three products of it, each
    read by its own per-channel sum; dissolved, no f32 tensor of the
    activation's size is written, and the planned peak memory drops.

    Only when:
    - every result read is f32 (or f64): a stored f16/bf16 value is rounded,
      while the reader would compute it unrounded, so the results would
      change;
    - no reader is a loss-scaler finite check, an output, a state write, a
      view, or a group of another kind, and a reduction reads the values
      only in its prologue (the ops its input depends on);
    - each reader copies at most `max-ops` ops (splat constants not
      counted);
    - the bytes moved do not grow: the group's inputs, its results written
      and read back by each reader, against the group's inputs that each
      reader needs and does not read already.

    A reader that is a pointwise group may then be dissolved into its own
    readers in turn. The values are those of the stored results: f32 math
    in the same order. (On the GPU, NVRTC may contract a multiply and an
    add that a kernel boundary separated into one fused multiply-add, as
    it may within any fused kernel; the host's kernels are compiled
    without contraction.)

    ```mlir
    // before
    %p:2 = mpg.fusion pointwise(%m, %dy, %x : tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>)
        -> tensor<8x4xf32>, tensor<8x4xf32> {
    ^bb0(%a: tensor<8x4xi1>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>):
      %z = mpg.constant dense<0.0> : tensor<f32>
      %g = mpg.select %a, %b, %z : tensor<8x4xi1>, tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
      %gx = mpg.mul %g, %c : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
      mpg.yield %g, %gx : tensor<8x4xf32>, tensor<8x4xf32>
    }
    %s = mpg.fusion reduction(%p#1 : tensor<8x4xf32>) -> tensor<4xf32> {
    ^bb0(%a: tensor<8x4xf32>):
      %r = mpg.reduce_sum %a axes [0] : tensor<8x4xf32> -> tensor<4xf32>
      mpg.yield %r : tensor<4xf32>
    }
    // after (and likewise for the reader of %p#0)
    %s = mpg.fusion reduction(%m, %dy, %x : tensor<8x4xi1>, tensor<8x4xf32>, tensor<8x4xf32>)
        -> tensor<4xf32> {
    ^bb0(%a: tensor<8x4xi1>, %b: tensor<8x4xf32>, %c: tensor<8x4xf32>):
      %z = mpg.constant dense<0.0> : tensor<f32>
      %g = mpg.select %a, %b, %z : tensor<8x4xi1>, tensor<8x4xf32>, tensor<f32> -> tensor<8x4xf32>
      %gx = mpg.mul %g, %c : tensor<8x4xf32>, tensor<8x4xf32> -> tensor<8x4xf32>
      %r = mpg.reduce_sum %gx axes [0] : tensor<8x4xf32> -> tensor<4xf32>
      mpg.yield %r : tensor<4xf32>
    }
    ```
  }];
  let options = [
    Option<"maxOps", "max-ops", "int64_t", /*default=*/"8",
           "The most ops (splat constants not counted) a reader copies from a group; 0 turns the pass off">
  ];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def MpgPlanMemory : Pass<"mpg-plan-memory", "::mlir::mpg::GraphOp"> {
  let summary = "Assigns every buffer of a fused step an offset in one arena or in persistent memory";
  let description = [{
    Runs after `mpg-fuse`. The schedule is the order of the graph's ops; a
    buffer lives from the op that writes it to the last op that reads it.

    - Transient buffers — graph inputs (copied in each step) and the results
      of fusion groups — share one arena: buffers live at the same time never
      overlap, others reuse memory (greedy placement, largest first, then a
      bounded local search over the placement order that stops at the
      busiest position's bytes).
      Outputs, the loss of `mpg.minimize` and values written to state (copied
      when the step ends) live until the end of the step.
    - A value written to state that a pointwise group computes for that
      write alone, or that a gemm group accumulates into that state
      (`mpg-fuse`'s accumulation; later groups may read it too, from the
      state's memory), with the state's type, is written straight into the
      state's memory when nothing reads the old value after the group's
      launch (the start of its multi-tensor run); the group then carries
      `mpg.state_offsets` and the value no arena offset (-1), and the step
      ends without its copy (option `state-in-place`). Otherwise a gemm
      group's accumulation starts from a copy of the state in the arena.
    - A `pointwise` group may write a result in place of an input of the same
      type whose last read is that group (option `in-place`).
    - `mpg.reshape` is a view: its result aliases its operand, whose live
      range extends to the reshape's last use.
    - Parameters, state and non-splat constants live in persistent memory,
      laid out one after the other.

    - Groups that need scratch memory while they run (a convolution's
      im2col columns, a cross-entropy's per-row losses) get an arena buffer
      live only at their position (`mpg.scratch_offset`).

    Every offset and size is a multiple of `alignment` (256 bytes by
    default). The pass records the plan as attributes: `mpg.arena_offsets`
    (one per result) on inputs and fusion groups, `mpg.persistent_offset` on
    params, state and constants, and `mpg.arena_bytes` /
    `mpg.persistent_bytes` on the graph; with `report` it also emits a remark
    with the arena size, the peak of live bytes and the bytes a plan without
    reuse would need.

    ```mlir
    // after
    mpg.graph @g attributes {mpg.arena_bytes = 65536 : i64, mpg.persistent_bytes = 33280 : i64} {
      %x = mpg.input "x" {mpg.arena_offsets = array<i64: 0>} : tensor<64x64xf32>
      %w = mpg.param "w" init(zeros) {mpg.persistent_offset = 0 : i64} : tensor<64x128xf32>
      %y = mpg.fusion gemm(%x, %w : ...) -> tensor<64x128xf32>
          attributes {mpg.arena_offsets = array<i64: 16384>} { ... }
    }
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"256",
           "Alignment in bytes of every buffer (a power of two)">,
    Option<"inPlace", "in-place", "bool", /*default=*/"true",
           "Let pointwise groups write results over inputs they read last">,
    Option<"stateInPlace", "state-in-place", "bool", /*default=*/"true",
           "Let pointwise groups write the new value of a state straight into it when nothing reads the old value later">,
    Option<"report", "report", "bool", /*default=*/"false",
           "Emit a remark with arena and persistent sizes">
  ];
  let dependentDialects = ["::mlir::mpg::MpgDialect"];
}

def ConvertMpgToMpk : Pass<"convert-mpg-to-mpk", "::mlir::ModuleOp"> {
  let summary = "Lowers each planned mpg.graph to an mpk.program of kernels and library calls";
  let description = [{
    Runs after `mpg-fuse` and `mpg-plan-memory`. Every value with storage
    becomes an `mpk.buffer` at its planned offset (a reshape is a second view
    of its operand's buffer); inputs, outputs, parameters, state and
    constants are declared with `mpk.input`, `mpk.output`, `mpk.param` and
    `mpk.constant` (the loss of `mpg.minimize` is the output "loss"). Each
    fusion group becomes:

    | group       | mpk                                                          |
    |-------------|--------------------------------------------------------------|
    | `pointwise` | one `mpk.pointwise` whose body is the group's ops as scalar arith/math, broadcasts as indexing maps |
    | `reduction` | one `mpk.reduce` (prologue and epilogue bodies; a mean scales the sum in the epilogue) |
    | `row`       | `mpk.softmax` / `mpk.layer_norm`; softmax_cross_entropy: `mpk.cross_entropy` into scratch, then an `mpk.reduce` for the mean |
    | `gemm`      | one `mpk.gemm` with its epilogue (batched for batch_matmul) |
    | `conv`      | `mpk.im2col` into scratch, then one `mpk.gemm` per group of channels |
    | `single`    | pooling: `mpk.pool2d`; transpose and slice: an `mpk.pointwise` copy; concat: one copy per input; embedding: `mpk.gather`; conv2d_grad_input: per group a batched `mpk.gemm` of the transposed filter by the output gradient into scratch columns (compute type), then `mpk.col2im`; conv2d_grad_filter: `mpk.im2col` of the input into scratch, per group a batched `mpk.gemm` of the output gradient by the transposed columns into per-image partial sums (compute type, scratch), then an `mpk.reduce` over the images |

    State writes become `mpk.copy`s at the end of the program, but for values
    planned in their state's memory (`mpg.state_offsets`), which need none. Ops without a
    kernel yet (the training family, gradient ops) are reported as errors.
  }];
  let dependentDialects = ["::mlir::mpk::MpkDialect", "::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect"];
}

#endif // MPC_PASSES
