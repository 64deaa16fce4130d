"""More programs over ``tf.contrib.opt``, registered in contrib_opt_cases.CASES
(run on TensorFlow 1.15.5 by scripts/make_contrib_opt_goldens.py, Python 3.7:
no newer syntax here): LARS, AddSign and PowerSign with the sign decays of
``tensorflow.contrib.opt.python.training.sign_decay`` (the path programs
imported them by), RegAdagrad, the Adams that read the global step and the
stale-gradient wrapper.

The embedding model of contrib_opt_cases gives each optimizer a sparse
gradient (``IndexedSlices``, repeated ids) besides the dense ones: TF 1.15
ran it on its reference variables, where some of these optimizers take
paths of their own (LARS falls back to momentum, AddSign and PowerSign decay
every row of their moment).
"""

import importlib

import numpy as np
from contrib_opt_cases import _embedding_model, _everything, _initialize, _train, case


def _sign_decay():
    return importlib.import_module("tensorflow.contrib.opt.python.training.sign_decay")


def _train_with_step(tf, make_optimizer):
    return _train(tf, make_optimizer, steps=5, with_step=True)


@case
def lars_skip_list_nesterov(opt, tf):
    """The kernel scaled by its trust ratio with weight decay, the bias
    skipped (momentum at the base rate, no decay), the embedding's sparse
    gradient on momentum at the base rate."""
    return _train(
        tf,
        lambda: opt.LARSOptimizer(
            0.5, momentum=0.9, weight_decay=0.01, eeta=0.02, epsilon=1e-5,
            skip_list=["bias"], use_nesterov=True,
        ),
    )  # fmt: skip


@case
def lars_defaults(opt, tf):
    return _train(tf, lambda: opt.LARSOptimizer(2.0))


@case
def addsign_linear_decay(opt, tf):
    decay = _sign_decay().get_linear_decay_fn(3)
    return _train_with_step(
        tf, lambda step: opt.AddSignOptimizer(0.1, alpha=0.5, beta=0.8, sign_decay_fn=decay)
    )


@case
def addsign_defaults(opt, tf):
    return _train(tf, lambda: opt.AddSignOptimizer())


@case
def powersign_cosine_decay(opt, tf):
    decay = _sign_decay().get_cosine_decay_fn(4, num_periods=1, zero_after=0.75)
    return _train_with_step(
        tf, lambda step: opt.PowerSignOptimizer(0.05, base=2.0, beta=0.7, sign_decay_fn=decay)
    )


@case
def powersign_restart_decay(opt, tf):
    decay = _sign_decay().get_restart_decay_fn(4, num_periods=2)
    return _train_with_step(tf, lambda step: opt.PowerSignOptimizer(sign_decay_fn=decay))


@case
def sign_decays(opt, tf):
    """Each decay function at global steps 0-9."""
    sd = _sign_decay()
    graph = tf.Graph()
    with graph.as_default():
        step = tf.placeholder(tf.int64, [])
        fns = {
            "linear": sd.get_linear_decay_fn(6),
            "cosine": sd.get_cosine_decay_fn(6),
            "cosine_zero_after": sd.get_cosine_decay_fn(6, num_periods=2, zero_after=1.5),
            "restart": sd.get_restart_decay_fn(6, num_periods=1.5),
            "restart_zero_after": sd.get_restart_decay_fn(6, num_periods=2, zero_after=1),
        }
        decayed = {name: fn(step) for name, fn in fns.items()}
        with tf.Session(graph=graph) as sess:
            values = [sess.run(decayed, {step: s}) for s in range(10)]
    return {name: np.array([v[name] for v in values]) for name in fns}


@case
def reg_adagrad_regularizer_leaves_the_slots(opt, tf):
    """The loss updates the accumulators (the embedding's sparsely), an L2
    term's update in a run of its own does not (avoid_updating_slots)."""
    graph = tf.Graph()
    with graph.as_default():
        loss = _embedding_model(tf)
        reg = 0.05 * tf.add_n([tf.reduce_sum(tf.square(v)) for v in tf.trainable_variables()])
        optimizer = opt.RegAdagradOptimizer(0.2, initial_accumulator_value=0.3)
        loss_update = optimizer.minimize(loss)
        with optimizer.avoid_updating_slots():
            reg_update = optimizer.minimize(reg)
        with tf.Session(graph=graph) as sess:
            _initialize(tf, sess)
            losses = []
            for _ in range(3):
                losses.append(sess.run([loss, loss_update])[0])
                sess.run(reg_update)
            return _everything(tf, sess, {"losses": np.array(losses)})


@case
def adam_gs(opt, tf):
    return _train_with_step(
        tf, lambda step: opt.AdamGSOptimizer(global_step=step, learning_rate=0.05, beta1=0.8)
    )


@case
def lazy_adam_gs(opt, tf):
    return _train_with_step(
        tf, lambda step: opt.LazyAdamGSOptimizer(global_step=step, learning_rate=0.1)
    )


@case
def drop_stale_gradients(opt, tf):
    """Momentum under DropStaleGradientOptimizer(staleness=1): the worker's
    step (the global step it read before its gradients) fed as if it had
    read it 0-3 steps back; gradients more than one step old are dropped
    and counted, the global step left where it was."""
    graph = tf.Graph()
    with graph.as_default():
        loss = _embedding_model(tf)
        step = tf.train.get_or_create_global_step()
        wrapped = opt.DropStaleGradientOptimizer(tf.train.MomentumOptimizer(0.1, 0.9), 1)
        train = wrapped.minimize(loss, global_step=step)
        summaries = [s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES)]
        with tf.Session(graph=graph) as sess:
            _initialize(tf, sess)
            seen = []
            for behind in (0, 1, 2, 0, 3, 1):
                feed = {wrapped._local_step: sess.run(step) - behind}
                seen.append(sess.run([loss, train], feed))
            arrays = {"losses_and_counts": np.array(seen), "summaries": np.array(summaries)}
            return _everything(tf, sess, arrays)
