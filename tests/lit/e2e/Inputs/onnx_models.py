"""Writes the small ONNX models that onnx.test imports, into FOLDER:

- mlp.onnx: Linear(64, 128) - ReLU - Linear(128, 10), batch dynamic
  ("batch"), exported for training (no constant folding);
- erf.onnx: a model with an Erf node, which mpc does not import;
- external.onnx: mlp.onnx with its initializers in external.bin beside it
  (onnx.save_model's external data), and external-missing.onnx whose data
  file is not there;
- truncated.onnx: the first 100 bytes of mlp.onnx;
- gelu_other_order.onnx: GELU written x * 0.5 * (1 + erf(x / sqrt 2)), the
  order other exporters use;
- buffer.onnx: a linear layer times a registered buffer "scale";
- bad_unsqueeze.onnx: an Unsqueeze whose axis is out of range (written with
  onnx.helper).

usage: onnx_models.py FOLDER
"""
import os
import sys

import onnx
import torch

folder = sys.argv[1]
at = lambda name: os.path.join(folder, name)  # noqa: E731
torch.manual_seed(0)
mlp = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
torch.onnx.export(mlp, torch.zeros(32, 64), at("mlp.onnx"), opset_version=17,
                  input_names=["pixels"], output_names=["logits"],
                  dynamic_axes={"pixels": {0: "batch"}, "logits": {0: "batch"}},
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


class WithErf(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 10)

    def forward(self, x):
        return torch.erf(self.fc(x))


torch.onnx.export(WithErf(), torch.zeros(32, 64), at("erf.onnx"), opset_version=17,
                  input_names=["pixels"], output_names=["logits"],
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)

model = onnx.load(at("mlp.onnx"))
onnx.save_model(model, at("external.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="external.bin", size_threshold=0)
model = onnx.load(at("mlp.onnx"))
onnx.save_model(model, at("external-missing.onnx"), save_as_external_data=True,
                all_tensors_to_one_file=True, location="missing.bin", size_threshold=0)
os.remove(at("missing.bin"))
with open(at("mlp.onnx"), "rb") as f:
    head = f.read(100)
with open(at("truncated.onnx"), "wb") as f:
    f.write(head)


class OtherOrder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 10)

    def forward(self, x):
        h = self.fc(x)
        return h * 0.5 * (1.0 + torch.erf(h / 1.4142135623730951))


torch.onnx.export(OtherOrder(), torch.zeros(32, 64), at("gelu_other_order.onnx"),
                  opset_version=17, input_names=["pixels"], output_names=["logits"],
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


class TanhGelu(torch.nn.Module):
    """GELU's tanh form: GPT-2's order of products, another, or (near) a
    cubic coefficient that is not GELU's."""

    def __init__(self, form):
        super().__init__()
        self.fc = torch.nn.Linear(64, 10)
        self.form = form

    def forward(self, x):
        h = self.fc(x)
        if self.form == "gpt2":
            return 0.5 * h * (1.0 + torch.tanh(0.7978845608 * (h + 0.044715 * h * h * h)))
        cubic = 0.05 if self.form == "near" else 0.044715
        return h * 0.5 * (torch.tanh((h + h * h * (h * cubic)) * 0.7978845608) + 1.0)


for form in ("gpt2", "other", "near"):
    torch.onnx.export(TanhGelu(form), torch.zeros(32, 64), at("tanh_gelu_%s.onnx" % form),
                      opset_version=17, input_names=["pixels"], output_names=["logits"],
                      training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


class WithBuffer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(64, 10)
        self.register_buffer("scale", torch.full((10,), 2.0))

    def forward(self, x):
        return self.fc(x) * self.scale


torch.onnx.export(WithBuffer(), torch.zeros(32, 64), at("buffer.onnx"), opset_version=17,
                  input_names=["pixels"], output_names=["logits"],
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)


class Attention(torch.nn.Module):
    """A linear layer on [B, T, C] (exported as Transpose + MatMul) and
    scores q @ k^T: both transposes become the matmuls' transpose_b; a
    transpose that something else reads too stays."""

    def __init__(self):
        super().__init__()
        self.q = torch.nn.Linear(8, 8)

    def forward(self, x):
        q = self.q(x)
        kt = x.transpose(-2, -1)
        return q @ kt, kt


torch.onnx.export(Attention(), torch.zeros(2, 4, 8), at("attention.onnx"), opset_version=17,
                  input_names=["x"], output_names=["scores", "keys"],
                  training=torch.onnx.TrainingMode.TRAINING, do_constant_folding=False)

from onnx import TensorProto, helper  # noqa: E402

graph = helper.make_graph(
    [helper.make_node("Unsqueeze", ["x", "axes"], ["y"], name="bad")], "bad",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    [helper.make_tensor("axes", TensorProto.INT64, [1], [5])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          at("bad_unsqueeze.onnx"))

# Slices of a known shape [2, 3, 4], folded at import as ONNX clamps them:
# reversed from a start past the end to INT64_MIN ([4, 3, 2]); from a start
# far below 0 with a negative step, which clamps to 0 ([2], then [2, 12]);
# from 1 with a step of INT64_MAX, which must not overflow ([3], then [3, 8]).
INT64_MIN, INT64_MAX = -2**63, 2**63 - 1
ints = lambda name, values: helper.make_tensor(name, TensorProto.INT64, [len(values)], values)  # noqa: E731
graph = helper.make_graph(
    [helper.make_node("Shape", ["x"], ["shape"]),
     helper.make_node("Slice", ["shape", "ten", "end_min", "axes", "minus_one"], ["reversed"]),
     helper.make_node("Reshape", ["x", "reversed"], ["y"]),
     helper.make_node("Slice", ["shape", "minus_ten", "end_min", "axes", "minus_one"], ["first"]),
     helper.make_node("Concat", ["first", "twelve"], ["z_shape"], axis=0),
     helper.make_node("Reshape", ["x", "z_shape"], ["z"]),
     helper.make_node("Slice", ["shape", "one", "end_max", "axes", "step_max"], ["second"]),
     helper.make_node("Concat", ["second", "eight"], ["w_shape"], axis=0),
     helper.make_node("Reshape", ["x", "w_shape"], ["w"])], "shape_slices",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
    [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in "yzw"],
    [ints("ten", [10]), ints("minus_ten", [-10]), ints("one", [1]), ints("end_min", [INT64_MIN]),
     ints("end_max", [INT64_MAX]), ints("axes", [0]), ints("minus_one", [-1]),
     ints("step_max", [INT64_MAX]), ints("twelve", [12]), ints("eight", [8])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]),
          at("shape_slices.onnx"))

# An op from a later opset than the model's: LayerNormalization (17) at 12.
graph = helper.make_graph(
    [helper.make_node("LayerNormalization", ["x", "scale"], ["y"], name="norm")], "too_new",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    [helper.make_tensor("scale", TensorProto.FLOAT, [3], [1.0, 1.0, 1.0])])
onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 12)]),
          at("too_new.onnx"))
print("written")
