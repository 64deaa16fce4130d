"""Your eval metrics: an Estimator's ``eval_metric_ops``, on both entry points.

``--eval_metrics=package.module:function`` names ``fn(labels, logits) ->
{name: (value, update_op)}``: the dict a ``model_fn`` returned as
``eval_metric_ops`` in EVAL mode, built with ``tf.compat.v1.metrics.*`` (or
your own local variables). It is called on the eval replica's int32 labels
``[batch]`` and float32 logits ``[batch, num_classes]``, positionally, or
by name when every parameter it needs is one of ``ARGUMENTS``: BERT's
``metric_fn(per_example_loss, label_ids, logits, is_real_example)`` runs
as written (the data loss per example; 1.0 for every example, as tf1_train
evaluates the test split unpadded). Before each eval
its local variables are reset, its update ops run on every test batch, and
its values are read after the last one: what ``Estimator.evaluate`` did,
over the whole test split.

Why not Keras metrics on the TF2 side: the point is the same numbers from
the same code. ``tf.compat.v1.metrics`` refuse eager execution, so the TF2
path (``Fed``) builds your function in a graph of its own and feeds it the
twin's logits batch by batch; the TF1 path builds it in the training graph.
A metric whose variables are global would be saved in checkpoints and never
reset: refused, as are non-scalar values, placeholders and anything but the
dict of pairs.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, NamedTuple, Optional, Tuple

import numpy as np
import tensorflow as tf

from tf1_train import models
from tf1_train.errors import UserError

v1 = tf.compat.v1
FLAG = "eval_metrics"


class EvalMetrics(NamedTuple):
    """The user's metrics in a graph: read ``values`` after running
    ``reset`` once and ``update`` on every batch."""

    values: Dict[str, tf.Tensor]
    update: tf.Operation
    reset: tf.Operation


# What a metric function is given by parameter name.
ARGUMENTS = ("labels", "logits", "label_ids", "probabilities", "per_example_loss",
             "is_real_example")  # fmt: skip


def build(ref, labels: tf.Tensor, logits: tf.Tensor, loss_fn=None) -> EvalMetrics:
    """Calls the user's function in the default graph and checks what it made
    (``loss_fn``: --loss, for a ``per_example_loss`` parameter)."""
    what = f"--{FLAG}={getattr(ref, '__name__', ref) if callable(ref) else ref}"
    fn: Callable = models.resolve(ref, FLAG)
    graph = v1.get_default_graph()
    before = len(graph.get_operations())
    local_before = set(map(id, v1.local_variables()))
    global_before = set(map(id, v1.global_variables()))
    with tf.name_scope("eval_metrics"):
        given = _given(fn, what, labels, logits, loss_fn)
        try:
            out = fn(**given) if given else fn(labels, logits)
        except UserError:
            raise
        except Exception as e:
            raise UserError(f"{what}: {models.describe_failure(e)}") from None
    fed = [op.name for op in graph.get_operations()[before:] if op.type == "Placeholder"]
    if fed:
        called = f"given {', '.join(given)}" if given else "called as fn(labels, logits)"
        raise UserError(
            f"{what}: makes placeholder {fed[0]!r}, which nothing feeds: the function is "
            f"{called}; compute from those"
        )
    made_global = [v for v in v1.global_variables() if id(v) not in global_before]
    if made_global:
        raise UserError(
            f"{what}: made global variable {made_global[0].op.name!r}, which checkpoints "
            "would save and no eval would reset; make metric variables local "
            "(collections=[tf.compat.v1.GraphKeys.LOCAL_VARIABLES]), as "
            "tf.compat.v1.metrics.* do"
        )
    values, updates = _checked_pairs(out, what)
    made_local = [v for v in v1.local_variables() if id(v) not in local_before]
    with tf.name_scope("eval_metrics/"):
        return EvalMetrics(
            values,
            tf.group(*updates, name="update"),
            v1.variables_initializer(made_local, name="reset"),
        )


def _given(fn: Callable, what: str, labels, logits, loss_fn) -> Dict[str, tf.Tensor]:
    """The keyword arguments when ``fn`` asks by name (every parameter it
    needs is in ARGUMENTS); ``{}``: call it as ``fn(labels, logits)``."""
    params = named_parameters(fn)
    needed = [name for name, required in params if required]
    classic = len(needed) == 2 and not set(needed) & set(ARGUMENTS[2:])  # (labels, logits)
    if classic or not set(ARGUMENTS) & set(dict(params)):
        return {}  # fn(labels, logits) by position, whatever it calls them
    if not all(name in ARGUMENTS for name in needed):
        odd = next(n for n in needed if n not in ARGUMENTS)
        raise UserError(
            f"{what}: takes {odd!r}, which tf1_train cannot give it: a metric function is "
            f"fn(labels, logits), or takes by name any of {', '.join(ARGUMENTS)}"
        )
    make = {
        "labels": lambda: labels,
        "label_ids": lambda: labels,
        "logits": lambda: logits,
        "probabilities": lambda: tf.nn.softmax(logits),
        "per_example_loss": lambda: _per_example_loss(labels, logits, loss_fn, what),
        "is_real_example": lambda: tf.ones_like(labels, tf.float32),
    }
    return {name: make[name]() for name, _ in params if name in ARGUMENTS}


def named_parameters(fn: Callable):
    """(name, required) of the parameters a call can fill by name."""
    import inspect

    try:
        found = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return []
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [(p.name, p.default is p.empty) for p in found if p.kind in kinds]


def _per_example_loss(labels, logits, loss_fn, what: str) -> tf.Tensor:
    """The data loss of each example: softmax cross-entropy, or --loss when
    it returns one value per example."""
    if loss_fn is None:
        return tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    from tf1_train.models import outputs

    loss = (
        None if outputs.takes_end_points(loss_fn) else tf.convert_to_tensor(loss_fn(labels, logits))
    )
    if loss is None or loss.shape.rank != 1:
        raise UserError(
            f"{what}: takes per_example_loss, and --loss returns the batch's mean (or needs "
            "the model's end_points, which eval does not keep): compute it in the metric "
            "from labels and logits"
        )
    return tf.cast(loss, tf.float32)


def _checked_pairs(out, what: str) -> Tuple[Dict[str, tf.Tensor], list]:
    if not isinstance(out, dict) or not out:
        kind = "an empty dict" if isinstance(out, dict) else _kind(out)
        raise UserError(
            f"{what}: returned {kind}; expected {{name: (value, update_op)}}, "
            "an Estimator's eval_metric_ops (e.g. tf.compat.v1.metrics.accuracy(...))"
        )
    values, updates = {}, []
    for name, pair in out.items():
        where = f"{what}: {name!r}"
        if not isinstance(name, str) or not name:
            raise UserError(f"{what}: key {name!r} is not a metric name (a non-empty str)")
        if not isinstance(pair, (tuple, list)) or len(pair) != 2:
            raise UserError(
                f"{where} is {_kind(pair)}, not a pair (value, update_op) "
                "as tf.compat.v1.metrics.* return"
            )
        value, update = pair
        if not isinstance(value, (tf.Tensor, tf.Variable)) or not (
            value.dtype.is_floating or value.dtype.is_integer
        ):
            raise UserError(f"{where}: its value is not a number tensor ({value!r})")
        if value.shape.rank != 0:
            raise UserError(f"{where}: its value has shape {value.shape}; a metric is a scalar")
        if not isinstance(update, (tf.Tensor, tf.Variable, tf.Operation)):
            raise UserError(f"{where}: its update_op is {_kind(update)}, not an op")
        values[name] = value
        updates.append(update.op if isinstance(update, tf.Variable) else update)
    return values, updates


def _kind(obj) -> str:
    if isinstance(obj, tf.Tensor):
        return f"a tensor ({obj.dtype.name}, shape {obj.shape})"
    return f"a {type(obj).__name__}"


def as_numbers(values: Dict[str, np.ndarray]) -> Dict[str, Optional[float]]:
    """Python numbers for printing and JSON (NaN/Inf become None: not JSON)."""
    numbers = {}
    for name, value in values.items():
        number = float(value) if np.issubdtype(np.asarray(value).dtype, np.floating) else int(value)
        numbers[name] = number if math.isfinite(number) else None
    return numbers


def line(values: Dict[str, Optional[float]]) -> str:
    """'; recall_at_5 0.9911, examples 540' for the eval line (empty: none)."""
    if not values:
        return ""
    shown = ("nan" if v is None else f"{v:.6g}" for v in values.values())
    return "; " + ", ".join(f"{name} {value}" for name, value in zip(values, shown))


def scalars(values: Dict[str, Optional[float]]) -> Dict[str, float]:
    """TensorBoard tags, next to test_accuracy: ``eval/<name>``."""
    return {f"eval/{k}": (math.nan if v is None else v) for k, v in values.items()}


def describe(ref: str, metrics: EvalMetrics) -> str:
    return (
        f"eval metrics (--{FLAG}={ref}): {', '.join(metrics.values)}; reset before each "
        "eval, updated on every test batch"
    )


class Fed:
    """The user's function in a graph of its own, fed labels and logits
    computed elsewhere (the TF2 path: v1 metrics do not run eagerly)."""

    def __init__(self, ref: str, num_classes: int, loss_fn=None):
        self.graph = tf.Graph()
        with self.graph.as_default():
            self.labels = v1.placeholder(tf.int32, [None], name="labels")
            self.logits = v1.placeholder(tf.float32, [None, num_classes], name="logits")
            self.metrics = build(ref, self.labels, self.logits, loss_fn)
        config = v1.ConfigProto(device_count={"GPU": 0})
        self.sess = v1.Session(graph=self.graph, config=config)

    def reset(self) -> None:
        self.sess.run(self.metrics.reset)

    def update(self, labels, logits) -> None:
        self.sess.run(self.metrics.update, {self.labels: labels, self.logits: logits})

    def result(self) -> Dict[str, Optional[float]]:
        return as_numbers(self.sess.run(self.metrics.values))

    def close(self) -> None:
        self.sess.close()
