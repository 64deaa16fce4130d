"""Programs over ``tf.contrib.opt``, run on TensorFlow 1.15.5 itself by
scripts/make_contrib_opt_goldens.py (Python 3.7: no newer syntax here) and
on tf1_train.compat by tests/test_compat_contrib_opt.py, which holds the
second to the first.

A case is ``fn(opt, tf) -> {name: array}``: ``opt`` is the module
``tensorflow.contrib.opt``, ``tf`` the v1 API. Every case builds its own
graph and gives each trainable variable values drawn from its name, so the
two sides start from the same weights. TF 1.15.5 runs on its default
reference variables (ScipyOptimizerInterface fed points to them), the
compat side on TensorFlow 2's resource variables.

The optimizer cases train a model with an embedding (a sparse gradient,
``IndexedSlices``, repeated ids included) and a dense layer for a few steps
and return each step's loss and every variable after, the slots included.
The SciPy cases minimize a small physics-informed network's loss (the
network's second derivative in it, through ``tf.gradients``), a bounded
problem and a constrained one, and return the loss at every evaluation
(``loss_callback``), the points of every step (``step_callback``) and the
variables after.
"""

import numpy as np
from contrib_tf115_cases import value_for  # weights drawn from a variable's name

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _initialize(tf, sess):
    sess.run(tf.global_variables_initializer())
    for v in tf.trainable_variables():
        v.load(value_for(v.op.name, v.shape), sess)


def _everything(tf, sess, arrays):
    every = sorted(tf.global_variables(), key=lambda v: v.op.name)
    arrays.update({"after/" + v.op.name: np.asarray(a) for v, a in zip(every, sess.run(every))})
    return arrays


def _embedding_model(tf):
    """A loss over an embedding looked up by repeated ids and a dense layer."""
    ids = tf.constant([[1, 3, 3], [0, 3, 5]], name="ids")
    table = tf.get_variable("embedding", [7, 4])
    x = tf.reduce_mean(tf.nn.embedding_lookup(table, ids), axis=1)
    w = tf.get_variable("dense/kernel", [4, 3])
    b = tf.get_variable("dense/bias", [3])
    logits = tf.matmul(x, w) + b
    labels = tf.constant([2, 0])
    return tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    )


def _train(tf, make_optimizer, steps=4, with_step=False):
    """``steps`` of ``make_optimizer()`` on the embedding model; ``with_step``:
    a global step, given to ``make_optimizer(step)`` and advanced by minimize."""
    graph = tf.Graph()
    with graph.as_default():
        loss = _embedding_model(tf)
        if with_step:
            step = tf.train.get_or_create_global_step()
            train = make_optimizer(step).minimize(loss, global_step=step)
        else:
            train = make_optimizer().minimize(loss)
        with tf.Session(graph=graph) as sess:
            _initialize(tf, sess)
            losses = [sess.run([loss, train])[0] for _ in range(steps)]
            return _everything(tf, sess, {"losses": np.array(losses)})


@case
def lazy_adam(opt, tf):
    return _train(tf, lambda: opt.LazyAdamOptimizer(0.1))


@case
def nadam(opt, tf):
    return _train(tf, lambda: opt.NadamOptimizer(0.05, beta1=0.8))


@case
def adamax(opt, tf):
    return _train(tf, lambda: opt.AdaMaxOptimizer(0.05))


def _train_two_runs(tf, make_optimizer, steps=4, decay_only=None):
    """As ``_train``, each step's gradient computed in a run of its own, then
    applied in the next: TF 1.15's decoupled weight decay raced the step's
    reads of the variable when both were in one run (another loss sequence
    from run to run), not when the gradient is given."""
    graph = tf.Graph()
    with graph.as_default():
        loss = _embedding_model(tf)
        optimizer = make_optimizer()
        grads_and_vars = optimizer.compute_gradients(loss)
        fed = [_placeholder_like(tf, g) for g, _ in grads_and_vars]
        decay = [v for v in tf.trainable_variables() if v.op.name == decay_only]
        train = optimizer.apply_gradients(
            [(f, v) for f, (_, v) in zip(fed, grads_and_vars)], decay_var_list=decay or None
        )
        with tf.Session(graph=graph) as sess:
            _initialize(tf, sess)
            losses = []
            for _ in range(steps):
                value, grads = sess.run([loss, [g for g, _ in grads_and_vars]])
                losses.append(value)
                sess.run(train, feed_dict=_feed(tf, fed, grads))
            return _everything(tf, sess, {"losses": np.array(losses)})


def _placeholder_like(tf, grad):
    if isinstance(grad, tf.IndexedSlices):
        return tf.IndexedSlices(
            tf.placeholder(grad.values.dtype), tf.placeholder(grad.indices.dtype),
            grad.dense_shape,
        )  # fmt: skip
    return tf.placeholder(grad.dtype, grad.shape)


def _feed(tf, fed, grads):
    feed = {}
    for f, g in zip(fed, grads):
        if isinstance(f, tf.IndexedSlices):
            feed.update({f.values: g.values, f.indices: g.indices})
        else:
            feed[f] = g
    return feed


@case
def adamw(opt, tf):
    return _train_two_runs(tf, lambda: opt.AdamWOptimizer(0.01, learning_rate=0.05))


@case
def momentumw_nesterov(opt, tf):
    return _train_two_runs(tf, lambda: opt.MomentumWOptimizer(0.02, 0.1, 0.9, use_nesterov=True))


@case
def sgdw_extended_decay_var_list(opt, tf):
    """extend_with_decoupled_weight_decay, only the kernel decayed."""
    sgdw = opt.extend_with_decoupled_weight_decay(tf.train.GradientDescentOptimizer)
    return _train_two_runs(tf, lambda: sgdw(0.1, learning_rate=0.2), 3, "dense/kernel")


def _pinn_loss(tf):
    """A tanh network u(x, t) and a Burgers-like residual u_t + u u_x - nu u_xx
    at collocation points, plus u's misfit at a few boundary points."""
    rng = np.random.RandomState(5)
    xt = tf.constant(rng.uniform(-1, 1, (24, 2)).astype(np.float32))
    x, t = xt[:, :1], xt[:, 1:]
    boundary = tf.constant(rng.uniform(-1, 1, (6, 2)).astype(np.float32))
    target = tf.constant(rng.uniform(-1, 1, (6, 1)).astype(np.float32))
    sizes = [2, 8, 8, 1]
    layers = [
        (tf.get_variable(f"w{i}", sizes[i : i + 2]), tf.get_variable(f"b{i}", sizes[i + 1]))
        for i in range(3)
    ]

    def net(h):
        for i, (w, b) in enumerate(layers):
            h = tf.matmul(h, w) + b
            h = tf.tanh(h) if i < 2 else h
        return h

    u = net(tf.concat([x, t], 1))
    u_t = tf.gradients(u, t)[0]
    u_x = tf.gradients(u, x)[0]
    u_xx = tf.gradients(u_x, x)[0]
    residual = u_t + u * u_x - 0.01 * u_xx
    return tf.reduce_mean(tf.square(net(boundary) - target)) + tf.reduce_mean(tf.square(residual))


def _minimize(tf, build, **kwargs):
    """Runs ``build(tf) -> (loss, interface)``'s minimize; the losses seen,
    the steps' points and the variables after."""
    graph = tf.Graph()
    with graph.as_default():
        loss, interface = build(tf)
        seen, steps = [], []
        with tf.Session(graph=graph) as sess:
            _initialize(tf, sess)
            interface.minimize(
                sess,
                fetches=[loss],
                loss_callback=seen.append,
                step_callback=lambda xk: steps.append(np.array(xk)),
                **kwargs,
            )
            return _everything(tf, sess, {"seen": np.array(seen), "steps": np.array(steps)})


@case
def scipy_lbfgsb_pinn(opt, tf):
    def build(tf):
        loss = _pinn_loss(tf)
        options = {"maxiter": 25, "maxfun": 50, "maxcor": 50, "maxls": 50,
                   "ftol": 1.0 * np.finfo(float).eps}  # fmt: skip
        return loss, opt.ScipyOptimizerInterface(loss, method="L-BFGS-B", options=options)

    return _minimize(tf, build)


@case
def scipy_bounds_and_var_list(opt, tf):
    """L-BFGS-B with each element's bounds, over one of two variables."""

    def build(tf):
        a = tf.get_variable("a", [2, 3])
        c = tf.get_variable("c", [3])
        loss = tf.reduce_sum(tf.square(a - 2.0)) + tf.reduce_sum(tf.square(c * a[0] - 1.0))
        bounds = {a: (-np.inf, [[1.0], [0.5]])}
        return loss, opt.ScipyOptimizerInterface(
            loss, var_list=[a], var_to_bounds=bounds, options={"maxiter": 20}
        )

    return _minimize(tf, build)


@case
def scipy_slsqp_constraints(opt, tf):
    """SLSQP with an equality and an inequality (TF 1.15's docstring example, grown)."""

    def build(tf):
        vector = tf.get_variable("vector", [3])
        loss = tf.reduce_sum(tf.square(vector)) + tf.reduce_sum(vector)
        equalities = [vector[1] - 1.0]
        inequalities = [vector[0] - 0.25, 2.0 - vector[2] * vector[2]]
        return loss, opt.ScipyOptimizerInterface(
            loss, equalities=equalities, inequalities=inequalities, method="SLSQP",
            options={"maxiter": 30},
        )  # fmt: skip

    return _minimize(tf, build)


@case
def moving_average_swapping_saver(opt, tf):
    """Momentum under MovingAverageOptimizer (decay 0.9, num_updates the
    step), then the swapping saver's checkpoint read back by name."""
    import shutil
    import tempfile

    graph = tf.Graph()
    with graph.as_default():
        loss = _embedding_model(tf)
        step = tf.train.get_or_create_global_step()
        wrapped = opt.MovingAverageOptimizer(
            tf.train.MomentumOptimizer(0.2, 0.9), average_decay=0.9, num_updates=step
        )
        train = wrapped.minimize(loss, global_step=step)
        saver = wrapped.swapping_saver()
        directory = tempfile.mkdtemp()
        try:
            with tf.Session(graph=graph) as sess:
                _initialize(tf, sess)
                for v in tf.trainable_variables():  # each average starts at its variable
                    wrapped._ema.average(v).load(sess.run(v), sess)
                losses = [sess.run([loss, train])[0] for _ in range(3)]
                arrays = _everything(tf, sess, {"losses": np.array(losses)})
                path = saver.save(sess, directory + "/model")
            reader = tf.train.load_checkpoint(path)
            for name in sorted(reader.get_variable_to_shape_map()):
                arrays["saved/" + name] = np.asarray(reader.get_tensor(name))
        finally:
            shutil.rmtree(directory)
    return arrays


@case
def variable_clipping(opt, tf):
    """The embedding clipped by rows (its sparse gradient's rows only), the
    kernel along dimension 0 (dense)."""
    graph = tf.Graph()
    with graph.as_default():
        loss = _embedding_model(tf)
        by_name = {v.op.name: v for v in tf.trainable_variables()}
        clip = {by_name["embedding"]: [1], by_name["dense/kernel"]: [0]}
        train = opt.VariableClippingOptimizer(
            tf.train.GradientDescentOptimizer(0.5), clip, max_norm=0.3
        ).minimize(loss)
        with tf.Session(graph=graph) as sess:
            _initialize(tf, sess)
            losses = [sess.run([loss, train])[0] for _ in range(3)]
            return _everything(tf, sess, {"losses": np.array(losses)})


@case
def multitask_and_zero_gradients(opt, tf):
    """A second task's head trained on the first step only (its gradient all
    zeros after): MultitaskOptimizerWrapper leaves it and its momentum alone,
    and clip_gradients_by_global_norm leaves it out of the norm (dense
    gradients: TF 1.15's function fails on an embedding's IndexedSlices, and
    so does this one)."""
    graph = tf.Graph()
    with graph.as_default():
        task_weight = tf.placeholder(tf.float32, [])
        x = tf.constant([[0.5, -1.0, 2.0, 0.1], [1.5, 0.3, -0.7, 0.9]])
        kernel = tf.get_variable("task_a/kernel", [4, 3])
        head = tf.get_variable("task_b/head", [3])
        task_a = tf.reduce_mean(tf.square(tf.matmul(x, kernel) - 0.5))
        loss = task_a + task_weight * tf.reduce_sum(tf.square(head - 1.0))
        optimizer = opt.MultitaskOptimizerWrapper(tf.train.MomentumOptimizer(0.1, 0.9))
        clipped, norm = opt.clip_gradients_by_global_norm(
            optimizer.compute_gradients(loss), clip_norm=0.5
        )
        train = optimizer.apply_gradients(clipped)
        with tf.Session(graph=graph) as sess:
            _initialize(tf, sess)
            seen = [sess.run([loss, norm, train], {task_weight: w})[:2] for w in (1.0, 0.0, 0.0)]
            return _everything(tf, sess, {"losses_and_norms": np.array(seen)})


import contrib_opt_more_cases  # noqa: E402, F401  (registers its cases in CASES)
