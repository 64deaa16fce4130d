"""The TF 2 port of pinn_lbfgs_style.py, as a TF 2 user writes it: a
``tf.Module`` over ``tf.Variable``s, the PDE residual's derivatives from
nested ``tf.GradientTape``s instead of ``tf.gradients``, and
``tf1_train.tf2.scipy_optimizer.ScipyMinimizer`` where the TF 1 program
had ``tf.contrib.opt.ScipyOptimizerInterface``: the same SciPy call, the
same options, the variables in the TF 1 program's order (its
``tf.trainable_variables()``: each layer's weight, then its bias).

The weights are the same op-seeded draws (``tf.random.set_seed(1234)`` and
each draw's ``seed``, as TF 1's graph and op seeds), the data the same NumPy
draws. Prints what the TF 1 program prints, and ``--save`` writes the same
file (the first loss and gradient, every loss SciPy saw, the weights after).
"""

import argparse
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pinn_data import LAYERS, NU, make_data, test_points  # noqa: E402

from tf1_train.tf2.scipy_optimizer import ScipyMinimizer  # noqa: E402


class PINN(tf.Module):
    def __init__(self, layers):
        super().__init__()
        self.lb, self.ub = np.array([-1.0, 0.0]), np.array([1.0, 1.0])
        self.params = []
        for k in range(len(layers) - 1):
            stddev = np.sqrt(2.0 / (layers[k] + layers[k + 1]))
            draw = tf.random.truncated_normal([layers[k], layers[k + 1]], stddev=stddev, seed=k + 1)
            self.params += [tf.Variable(draw), tf.Variable(tf.zeros([1, layers[k + 1]]))]

    def __call__(self, xt):
        h = 2.0 * (xt - self.lb) / (self.ub - self.lb) - 1.0
        pairs = list(zip(self.params[::2], self.params[1::2]))
        for w, b in pairs[:-1]:
            h = tf.tanh(tf.add(tf.matmul(h, w), b))
        w, b = pairs[-1]
        return tf.add(tf.matmul(h, w), b)

    def residual(self, x, t):
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape(persistent=True) as inner:
                inner.watch([x, t])
                u = self(tf.concat([x, t], 1))
            u_t = inner.gradient(u, t)
            u_x = inner.gradient(u, x)
        u_xx = outer.gradient(u_x, x)
        return u_t + u * u_x - NU * u_xx


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--maxiter", type=int, default=40)
    parser.add_argument("--save", default="")
    args = parser.parse_args(argv)
    tf.random.set_seed(1234)
    x_u, u, x_f = make_data()
    model = PINN(LAYERS)
    x_f, t_f = tf.constant(x_f[:, 0:1]), tf.constant(x_f[:, 1:2])

    def loss_fn():
        misfit = tf.reduce_mean(tf.square(u - model(tf.constant(x_u))))
        return misfit + tf.reduce_mean(tf.square(model.residual(x_f, t_f)))

    options = {"maxiter": args.maxiter, "maxfun": 50000, "maxcor": 50, "maxls": 50,
               "ftol": 1.0 * np.finfo(float).eps}  # fmt: skip
    with tf.GradientTape() as tape:
        first = loss_fn()
    first_grads = tape.gradient(first, model.params)
    losses = []
    ScipyMinimizer(loss_fn, model.params, method="L-BFGS-B", options=options).minimize(
        loss_callback=losses.append
    )
    x_star, u_star = test_points()
    error_u = np.linalg.norm(model(tf.constant(x_star)).numpy() - u_star)
    print(f"evaluations = {len(losses)}")
    for k, loss in enumerate(losses):
        if k % 10 == 0 or k == len(losses) - 1:
            print(f"loss_{k} = {loss:.9g}")
    print(f"final_loss = {float(loss_fn()):.9g}")
    print(f"error_u = {error_u:.9g}")
    norm = np.sqrt(sum(float(np.sum(p.numpy() ** 2)) for p in model.params))
    print(f"weights_norm = {norm:.9g}")
    if args.save:  # in the TF 1 program's order: the weights, then the biases
        arrays = {"loss": first.numpy(), "losses": np.array(losses)}
        grads = first_grads[::2] + first_grads[1::2]
        arrays.update({f"grad_{k}": g.numpy() for k, g in enumerate(grads)})
        params = model.params[::2] + model.params[1::2]
        arrays.update({f"weight_{k}": p.numpy() for k, p in enumerate(params)})
        np.savez(args.save, **arrays)


if __name__ == "__main__":
    main()
