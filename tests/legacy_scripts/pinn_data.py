"""The data and sizes shared by pinn_lbfgs_style.py (TF 1) and its TF 2 port
pinn_lbfgs_style_tf2.py: collocation points in [-1, 1] x [0, 1], the initial
condition u(x, 0) = -sin(pi x) and the boundary u(+-1, t) = 0 (NumPy-seeded)."""

import numpy as np

NU = 0.01 / np.pi
LAYERS = [2, 12, 12, 12, 1]


def make_data():
    rng = np.random.RandomState(1234)
    x0 = rng.uniform(-1, 1, (30, 1))
    tb = rng.uniform(0, 1, (20, 1))
    x_u = np.vstack([np.hstack([x0, 0 * x0]), np.hstack([np.sign(tb - 0.5), tb])])
    u = np.vstack([-np.sin(np.pi * x0), 0 * tb])
    x_f = np.hstack([rng.uniform(-1, 1, (300, 1)), rng.uniform(0, 1, (300, 1))])
    return x_u.astype(np.float32), u.astype(np.float32), x_f.astype(np.float32)


def test_points():
    """u at t = 0, where the exact solution is -sin(pi x)."""
    x = np.linspace(-1, 1, 11)[:, None]
    return np.hstack([x, 0 * x]).astype(np.float32), -np.sin(np.pi * x)
