"""Inputs of unscale-reciprocal.mlir in DIR: gradients g spanning normal,
subnormal and special values (tiny ones that unscale to subnormals, inf,
NaN, zeros of both signs) and the scale s = 2^16."""
import sys

import numpy as np

rng = np.random.default_rng(7)
magnitudes = np.float32(2.0) ** rng.integers(-149, 127, size=256).astype(np.float32)
g = (magnitudes * rng.uniform(1, 2, size=256).astype(np.float32)
     * rng.choice(np.float32([-1, 1]), size=256)).astype(np.float32)
g[:6] = [np.inf, -np.inf, np.nan, 0.0, -0.0, np.float32(1.5e-38)]
np.save(sys.argv[1] + "/g.npy", g.reshape(4, 64))
np.save(sys.argv[1] + "/s.npy", np.float32(65536.0))
