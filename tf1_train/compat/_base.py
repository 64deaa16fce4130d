"""The part every legacy layer shares: how it picks its variable scope, makes
its variables and files its losses and updates into the graph collections.

Checkpoints written by TF1 programs name variables after the scopes the old
``tf.layers`` opened, so this module opens them in the same order and with the
same calls: an unnamed layer takes ``variable_scope(None, default_name=base)``
(``dense``, ``dense_1``, ... counted per enclosing scope), a named one or one
built with ``reuse`` takes ``variable_scope(name)``; ops go under the scope's
original name scope. Regularization terms are built under
``<layer>/<weight>/Regularizer`` and activity terms under
``<layer>/ActivityRegularizer`` (divided by the batch size), and land in
``REGULARIZATION_LOSSES`` only when the variable is new, as before.
"""

import contextlib
import re
from typing import Any, Callable, Optional

import tensorflow as tf

# TF 1.x's own InputSpec and its check (tf.layers.InputSpec was this class),
# still in TensorFlow 2.21's private Keras 2 copy.
from tensorflow.python.keras.engine.input_spec import (  # noqa: F401  (InputSpec: layers.py)
    InputSpec,
    assert_input_compatibility,
)

v1 = tf.compat.v1
# The legacy defaults for biases, betas, gammas and moving statistics.
ZEROS = v1.zeros_initializer()
ONES = v1.ones_initializer()
# How batch norm's statistics are made: not trainable, read per replica and
# averaged (SyncOnRead, MEAN), as the legacy layer made them.
STATISTIC = dict(
    synchronization=tf.VariableSynchronization.ON_READ,
    aggregation=tf.VariableAggregation.MEAN,
    trainable=False,
)

_ACTIVATIONS = {
    "linear": None,
    "relu": tf.nn.relu,
    "relu6": tf.nn.relu6,
    "elu": tf.nn.elu,
    "selu": tf.nn.selu,
    "sigmoid": tf.sigmoid,
    "tanh": tf.tanh,
    "softplus": tf.nn.softplus,
    "softsign": tf.nn.softsign,
    "softmax": tf.nn.softmax,
}


# Initializer names the legacy layers accepted, as v1 initializers with the
# Keras definitions (variance scaling: scale, mode, distribution).
_SCALING = {
    "glorot_uniform": (1.0, "fan_avg", "uniform"),
    "glorot_normal": (1.0, "fan_avg", "truncated_normal"),
    "he_uniform": (2.0, "fan_in", "uniform"),
    "he_normal": (2.0, "fan_in", "truncated_normal"),
    "lecun_uniform": (1.0, "fan_in", "uniform"),
    "lecun_normal": (1.0, "fan_in", "truncated_normal"),
}


def get_initializer(initializer: Any):
    """None (the scope's, else Glorot uniform), a callable, or a Keras name."""
    if not isinstance(initializer, str):
        return initializer
    if initializer in ("zeros", "ones"):
        return ZEROS if initializer == "zeros" else ONES
    if initializer in _SCALING:
        scale, mode, distribution = _SCALING[initializer]
        return v1.variance_scaling_initializer(scale, mode, distribution)
    valid = sorted(["zeros", "ones", *_SCALING])
    raise ValueError(f"unknown initializer {initializer!r}; valid: a callable or {valid}")


def get_activation(activation: Any) -> Optional[Callable]:
    """Callable, None, or one of the common Keras activation names."""
    if activation is None or callable(activation):
        return activation
    if activation in _ACTIVATIONS:
        return _ACTIVATIONS[activation]
    raise ValueError(
        f"unknown activation {activation!r}; valid: a callable or {sorted(_ACTIVATIONS)}"
    )


def smart_cond(pred, true_fn, false_fn):
    """``tf.cond`` unless ``pred`` is a Python bool or a constant tensor."""
    if isinstance(pred, tf.Variable):
        return tf.cond(pred, true_fn, false_fn)
    return tf.__internal__.smart_cond.smart_cond(pred, true_fn, false_fn)


def constant_value(pred):
    """True/False when ``pred`` is known while building, else None."""
    if isinstance(pred, tf.Tensor):
        return tf.get_static_value(pred)
    if isinstance(pred, tf.Variable):
        return None
    return bool(pred)


def add_to_collection(elements, key: str) -> None:
    """Append to a graph collection, skipping what is already there."""
    collection = v1.get_collection_ref(key)
    present = {id(e) for e in collection}
    for element in elements:
        if id(element) not in present:
            collection.append(element)
            present.add(id(element))


def to_tuple(value, n: int, what: str) -> tuple:
    """An int or an n-sequence of ints, as the legacy layers accepted."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(int(v) for v in value)
    if len(value) != n:
        raise ValueError(f"{what} must be an int or {n} ints, got {value}")
    return value


def check_padding(padding: str, causal: bool = False) -> str:
    """'valid' or 'same'; 'causal' too where the legacy layer took it (Conv1D)."""
    padding = padding.lower()
    valid = ("valid", "same", "causal") if causal else ("valid", "same")
    if padding not in valid:
        names = " or ".join(repr(v) for v in valid)
        raise ValueError(f"padding must be {names}, got {padding!r}")
    return padding


def check_data_format(data_format: str) -> str:
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(
            f"data_format must be 'channels_last' or 'channels_first', got {data_format!r}"
        )
    return data_format


def default_name(cls: type) -> str:
    """A layer's default scope name: its ``base_name`` for tf1_train's own
    classes, and for a program's subclass TF 1.x's, the class name in snake
    case (``TpuBatchNormalization`` -> ``tpu_batch_normalization``: the
    variable names of EfficientNet's and MnasNet's checkpoints)."""
    if cls.__module__.split(".")[0] == "tf1_train":
        return cls.base_name
    words = re.sub("(.)([A-Z][a-z0-9]+)", r"\1_\2", cls.__name__)
    snake = re.sub("([a-z])([A-Z])", r"\1_\2", words).lower()
    return snake if not snake.startswith("_") else "private" + snake


class Layer:
    """Scope, variables and collections of one legacy layer.

    Subclasses set ``base_name`` and implement ``build(input_shape)`` and
    ``call(inputs, ...)``. A layer object called twice reuses its variables
    and its name scope, as the old class forms did.
    """

    base_name = "layer"

    def __init__(
        self,
        trainable: bool = True,
        name: Optional[str] = None,
        dtype=None,
        activity_regularizer: Optional[Callable] = None,
        _scope=None,
        _reuse=None,
    ):
        self.trainable = trainable
        self.name = name
        self.dtype = tf.as_dtype(dtype) if dtype is not None else None
        self.activity_regularizer = activity_regularizer
        self.built = False
        self.updates: list = []
        self.variables: list = []
        self._reuse = _reuse
        self._base = name or default_name(type(self))
        self._scope = None
        if _scope:
            with v1.variable_scope(_scope) as captured:
                self._scope = captured

    @property
    def trainable_variables(self) -> list:
        return [v for v in self.variables if v.trainable]

    def _set_scope(self, scope=None) -> None:
        if self._scope is not None:
            return
        if self._reuse:
            with v1.variable_scope(scope if scope is not None else self._base) as captured:
                self._scope = captured
        else:
            with v1.variable_scope(scope, default_name=self._base) as captured:
                self._scope = captured
        if self.name is None:
            self.name = self._scope.name.split("/")[-1]

    @contextlib.contextmanager
    def _own_scope(self, scope=None):
        """The layer's variable scope (reused once built) and its original
        name scope, as TF 1.x's layers entered them to call and to add weights."""
        self._set_scope(scope)
        reuse = True if self.built else self._reuse
        with v1.variable_scope(self._scope, reuse=reuse, auxiliary_name_scope=False):
            with tf.name_scope(self._scope.original_name_scope):
                yield

    def __call__(self, inputs, *args, **kwargs):
        with self._own_scope(kwargs.pop("scope", None)):
            inputs = tf.convert_to_tensor(inputs)
            assert_input_compatibility(getattr(self, "input_spec", None), inputs, self.name)
            if self.dtype is None:  # also when a wrapper built the layer itself
                self.dtype = inputs.dtype.base_dtype
            if not self.built:
                self.build(inputs.shape)
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
            self._regularize_activity(outputs)
        if self.trainable:  # this graph's: not a Keras model's trace of its call (EfficientNet)
            graph = v1.get_default_graph()
            add_to_collection(
                [u for u in self.updates if getattr(u, "graph", graph) is graph],
                v1.GraphKeys.UPDATE_OPS,
            )
        return outputs

    def apply(self, inputs, *args, **kwargs):
        """The legacy alias of ``__call__``."""
        return self(inputs, *args, **kwargs)

    def build(self, input_shape: tf.TensorShape) -> None:
        del input_shape

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError

    def add_weight(
        self,
        name: str,
        shape,
        initializer=None,
        regularizer: Optional[Callable] = None,
        trainable: bool = True,
        constraint: Optional[Callable] = None,
        dtype=None,
        **kwargs,
    ):
        """``get_variable`` in the layer's scope; the regularizer term is built
        under ``<weight>/Regularizer`` only for a variable this call created.
        Called outside ``__call__`` (a wrapper calling ``layer.build(shape)``
        itself), it enters the layer's scope first, as TF 1.x's did."""
        inside = self._scope is not None and v1.get_variable_scope().name == self._scope.name
        with contextlib.nullcontext() if inside else self._own_scope():
            return self._add_weight(name, shape, initializer, regularizer, trainable, constraint,
                                    dtype, **kwargs)  # fmt: skip

    def _add_weight(self, name, shape, initializer, regularizer, trainable, constraint, dtype,
                    **kwargs):  # fmt: skip
        existing = set(v1.global_variables())
        dtype = tf.as_dtype(dtype or self.dtype or tf.float32)
        variable = v1.get_variable(
            name,
            shape=shape,
            dtype=dtype,
            initializer=get_initializer(initializer),
            trainable=trainable and self.trainable,
            constraint=constraint,
            **kwargs,
        )
        self.variables.append(variable)
        if regularizer and variable not in existing:
            with tf.name_scope(name + "/Regularizer"):
                loss = regularizer(variable)
                if loss is not None and not tf.is_tensor(loss):
                    loss = tf.convert_to_tensor(loss, dtype=tf.float32)
            if loss is not None:
                add_to_collection([loss], v1.GraphKeys.REGULARIZATION_LOSSES)
        return variable

    add_variable = add_weight  # the older name legacy custom layers call

    def _track_checkpointable(self, checkpointable, name: str, overwrite: bool = False):
        """TF 1.x's object-graph tracking, which custom layers of the time
        called on what they held: a no-op here, the variables being saved by
        name (``tf.train.Saver``), as the programs that called it saved them."""
        del name, overwrite
        return checkpointable

    _track_trackable = _track_checkpointable  # its name from TF 1.14

    def add_update(self, update) -> None:
        self.updates.append(update if isinstance(update, tf.Operation) else update.op)

    def _regularize_activity(self, outputs) -> None:
        if self.activity_regularizer is None:
            return
        with tf.name_scope("ActivityRegularizer"):
            for output in tf.nest.flatten(outputs):
                loss = tf.convert_to_tensor(self.activity_regularizer(output))
                batch = tf.cast(tf.shape(output)[0], loss.dtype)
                add_to_collection([loss / batch], v1.GraphKeys.REGULARIZATION_LOSSES)
