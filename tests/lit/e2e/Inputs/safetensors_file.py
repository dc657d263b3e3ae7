"""The tests' scripts read safetensors files (checkpoints of mpc train or
mpc run) with the benchmarks' module, bench/gpt2/safetensors_file.py:
`from safetensors_file import read` (this folder is on their path)."""
import importlib.util
import os

_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "bench",
                     "gpt2", "safetensors_file.py")
_SPEC = importlib.util.spec_from_file_location("mpc_bench_safetensors_file", _PATH)
_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MODULE)
read, write, DTYPES = _MODULE.read, _MODULE.write, _MODULE.DTYPES
