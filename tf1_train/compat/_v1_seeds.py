"""``python -m tf1_train.compat --v1_seeds``: TF 1.x's op seeds for random
ops that have none of their own, in a graph with a graph-level seed.

Most TF1 programs seeded only the graph (``tf.set_random_seed(42)``: the
MNIST tutorials, handson-ml's ``reset_graph()``, GraphSAGE). TF 1.x then
gave each random op without a seed the number of ops the graph held when the
op was built (``Graph._last_id``); TensorFlow 2 counts the graph's draws
instead, so every unseeded initializer, dropout and shuffle draws other
numbers than on TF 1.x (PORTING.md P6). With this option the op count is the
seed again.

That count is TF 1.x's only where the graph built before the draw has TF
1.x's ops: a TF 2 resource variable is made of other ops than a reference
variable, and a TF 2 loop body is a graph of its own, so the option is meant
with ``--v1_variables`` (TF 1.x's variables and loops). Ops that TF 2 builds
otherwise shift every later count, so the ops TF 2 stopped building come
back here (_v1_ops.py: ``random_uniform`` over [0, 1), ``split``, a
TensorArray's size, ``dropout``, ``random_gamma``, a scalar's reduction,
tf-slim's conv2d and flatten, ``tensordot``, an initializable iterator's
dataset options, ``parse_single_sequence_example``). Which others differ, docs/LEGACY_LAYERS.md
lists; a notebook's stored outputs or the port check show where.
"""

from typing import Callable, Optional, Tuple

from tf1_train.compat import _v1_ops

_original: Optional[Callable] = None


def install() -> None:
    """Makes ``random_seed.get_seed`` derive an unseeded graph op's seed from
    the op count (process-wide: TensorFlow reads it at every random op)."""
    global _original
    from tensorflow.python.framework import random_seed

    if _original is not None:
        return
    _original = random_seed.get_seed
    random_seed.get_seed = _get_seed
    _v1_ops.install(v1_dropout)  # TF 1.15's ops (tf.layers' dropout builds them too)


def v1_dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """``tf.compat.v1.nn.dropout`` as TF 1.15 built it: ``1 - keep_prob`` (ops
    of their own for a tensor), then its dropout's ops (_core.tf1_dropout)."""
    from tf1_train.compat._core import tf1_dropout

    if keep_prob is not None:
        rate = 1.0 - keep_prob
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return tf1_dropout(x, rate, noise_shape, seed, name)


def _get_seed(op_seed) -> Tuple[Optional[int], Optional[int]]:
    from tensorflow.python.eager import context
    from tensorflow.python.framework import ops

    if op_seed is None and not context.executing_eagerly():
        graph = ops.get_default_graph()
        if graph.seed is not None:
            op_seed = len(graph._nodes_by_id)  # TF 1.x's Graph._last_id: ops built so far
    return _original(op_seed)
