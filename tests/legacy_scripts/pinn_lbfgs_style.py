"""A legacy TF1 physics-informed network (PINN) trained by SciPy's L-BFGS-B,
written as the PINN code of 2017-19 was: a class that builds placeholders, a
tanh network over (x, t) from ``tf.Variable``s with Xavier-scaled truncated
normal weights, the PDE residual from ``tf.gradients`` (here viscous
Burgers: u_t + u u_x - nu u_xx), and ``tf.contrib.opt.ScipyOptimizerInterface``
with L-BFGS-B and a ``loss_callback`` that prints, optionally after some
Adam steps (``--adam_steps``).

The data are NumPy draws (pinn_data.py: a smooth initial condition and
boundary values) and the weights come from op-seeded draws, which TensorFlow 1.15.5
and 2.21 make alike, so TF 1.15.5 itself runs it to the same numbers:
scripts/make_pinn_goldens.py writes what it printed there to
tests/goldens/pinn_lbfgs_tf115.json. Not changed for TensorFlow 2: tests run
it through ``python -m tf1_train.compat``; its TF2 port is
pinn_lbfgs_style_tf2.py.

Prints ``evaluations``, ``loss_<k>`` for every 10th evaluation and the
last, ``final_loss``, ``error_u`` and ``weights_norm``; with ``--save``, the
first evaluation's loss and gradient and the final weights, by name, to an
``.npz`` file.
"""

import numpy as np
import tensorflow as tf
from pinn_data import LAYERS, NU, make_data, test_points

flags = tf.app.flags
flags.DEFINE_integer("maxiter", 40, "L-BFGS-B iterations.")
flags.DEFINE_integer("adam_steps", 0, "Adam steps before L-BFGS-B.")
flags.DEFINE_string("save", "", "Write the first loss, its gradient and the weights here.")
FLAGS = flags.FLAGS


class PhysicsInformedNN:
    def __init__(self, x_u, u, x_f, layers):
        self.lb, self.ub = np.array([-1.0, 0.0]), np.array([1.0, 1.0])
        self.x_u, self.u, self.x_f = x_u, u, x_f
        self.weights, self.biases = self.initialize_nn(layers)
        self.sess = tf.Session()
        self.x_u_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.t_u_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.u_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.x_f_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.t_f_tf = tf.placeholder(tf.float32, shape=[None, 1])
        self.u_pred = self.net_u(self.x_u_tf, self.t_u_tf)
        self.f_pred = self.net_f(self.x_f_tf, self.t_f_tf)
        self.loss = tf.reduce_mean(tf.square(self.u_tf - self.u_pred)) + tf.reduce_mean(
            tf.square(self.f_pred)
        )
        self.optimizer = tf.contrib.opt.ScipyOptimizerInterface(
            self.loss,
            method="L-BFGS-B",
            options={
                "maxiter": FLAGS.maxiter,
                "maxfun": 50000,
                "maxcor": 50,
                "maxls": 50,
                "ftol": 1.0 * np.finfo(float).eps,
            },
        )
        self.adam = tf.train.AdamOptimizer(0.01).minimize(self.loss)
        self.grads = tf.gradients(self.loss, self.weights + self.biases)
        self.sess.run(tf.global_variables_initializer())
        self.losses = []

    def initialize_nn(self, layers):
        weights, biases = [], []
        for k in range(len(layers) - 1):
            weights.append(self.xavier_init([layers[k], layers[k + 1]], seed=k + 1))
            biases.append(tf.Variable(tf.zeros([1, layers[k + 1]], dtype=tf.float32)))
        return weights, biases

    def xavier_init(self, size, seed):
        stddev = np.sqrt(2.0 / (size[0] + size[1]))
        return tf.Variable(tf.truncated_normal(size, stddev=stddev, seed=seed), dtype=tf.float32)

    def neural_net(self, x):
        h = 2.0 * (x - self.lb) / (self.ub - self.lb) - 1.0
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            h = tf.tanh(tf.add(tf.matmul(h, w), b))
        return tf.add(tf.matmul(h, self.weights[-1]), self.biases[-1])

    def net_u(self, x, t):
        return self.neural_net(tf.concat([x, t], 1))

    def net_f(self, x, t):
        u = self.net_u(x, t)
        u_t = tf.gradients(u, t)[0]
        u_x = tf.gradients(u, x)[0]
        u_xx = tf.gradients(u_x, x)[0]
        return u_t + u * u_x - NU * u_xx

    def callback(self, loss):
        self.losses.append(loss)

    def feed(self):
        return {
            self.x_u_tf: self.x_u[:, 0:1],
            self.t_u_tf: self.x_u[:, 1:2],
            self.u_tf: self.u,
            self.x_f_tf: self.x_f[:, 0:1],
            self.t_f_tf: self.x_f[:, 1:2],
        }

    def train(self, adam_steps):
        for _ in range(adam_steps):
            self.sess.run(self.adam, self.feed())
        self.optimizer.minimize(
            self.sess, feed_dict=self.feed(), fetches=[self.loss], loss_callback=self.callback
        )

    def predict(self, x_star):
        return self.sess.run(
            self.u_pred, {self.x_u_tf: x_star[:, 0:1], self.t_u_tf: x_star[:, 1:2]}
        )


def main(_):
    tf.set_random_seed(1234)
    x_u, u, x_f = make_data()
    model = PhysicsInformedNN(x_u, u, x_f, LAYERS)
    first = model.sess.run([model.loss, model.grads], model.feed())
    model.train(FLAGS.adam_steps)
    final = model.sess.run(model.loss, model.feed())
    x_star, u_star = test_points()
    error_u = np.linalg.norm(model.predict(x_star) - u_star)
    weights = model.sess.run(model.weights + model.biases)
    print(f"evaluations = {len(model.losses)}")
    for k, loss in enumerate(model.losses):
        if k % 10 == 0 or k == len(model.losses) - 1:
            print(f"loss_{k} = {loss:.9g}")
    print(f"final_loss = {final:.9g}")
    print(f"error_u = {error_u:.9g}")
    print(f"weights_norm = {np.sqrt(sum(float(np.sum(w * w)) for w in weights)):.9g}")
    if FLAGS.save:
        arrays = {"loss": np.array(first[0]), "losses": np.array(model.losses)}
        arrays.update({f"grad_{k}": g for k, g in enumerate(first[1])})
        arrays.update({f"weight_{k}": w for k, w in enumerate(weights)})
        np.savez(FLAGS.save, **arrays)


if __name__ == "__main__":
    tf.app.run()
