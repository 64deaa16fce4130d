"""Integers TF 1.15 took in another type and TensorFlow 2.21 refuses, after
install(): a NumPy integer as ``Dataset.prefetch``'s buffer size, a bool or a
float as a shape's dimension. NVIDIA's StyleGAN has the first two, Mozilla's
DeepSpeech the float.

- ``prefetch``: TF 1.x programs size buffers with NumPy arithmetic (StyleGAN:
  ``(prefetch_mb << 20) // bytes_per_item + 1`` over an ``np.prod`` of the
  image shape, an ``np.int64``). TensorFlow 2.21's ``prefetch`` compares the
  size with ``AUTOTUNE`` and hands the op the result, a ``np.bool_`` for a
  NumPy integer, which it refuses: ``TypeError: Expected bool for argument
  'legacy_autotune' not np.False_`` (``shuffle``, ``batch``, ``repeat`` and
  the rest take NumPy integers as before).
- A bool dimension: StyleGAN's noise inputs have the shape ``[1, use_noise,
  res, res]`` with ``use_noise=True``. TF 1.15's ``Dimension`` stored
  ``int(value)``, 1; TensorFlow 2.21's keeps the bool (a bool is an int to
  Python), and the protobuf library it runs with refuses a bool in a shape:
  ``get_variable``, ``placeholder`` and every other op given such a shape
  raise ``TypeError: ... Dim.size: Expected an int, got a boolean``.

- A float dimension: DeepSpeech's ``audio_window_samples`` is ``16000 * (32 /
  1000)``, 512.0, and its ``placeholder`` and ``get_variable`` shapes hold it.
  TF 1.15's ``Dimension`` stored ``int(value)`` when that equalled the value
  and raised ``ValueError: Ambiguous dimension: 512.5`` when not; TensorFlow
  2.21's takes only what has ``__index__``: ``TypeError: ... Dimension value
  must be integer or None or have an __index__ method, got value '512.0'``.
  Every shape TF 1.15 took through ``Dimension`` (``TensorShape``,
  ``placeholder``, ``get_variable``, ``set_shape``, ``ensure_shape``, and
  ``zeros``/``ones`` of 1000 elements or more) takes it again; the shapes TF
  1.15 made a tensor of (``fill``, ``reshape``, ``random_normal``, ``tile``)
  refused a float then and still do.

- A NumPy integer narrower than int32 in a shape a random op makes a tensor of:
  the TensorFlow cookbook counts its classes as ``np.max(labels) + 1`` over
  MNIST's uint8 labels. NumPy 1.x made that sum an int64 (value-based
  casting); NumPy 2 (NEP 50) keeps it uint8, and ``tf.truncated_normal([1024,
  target_size])`` refuses the uint8 tensor of its shape: ``TypeError: Value
  passed to parameter 'shape' has DataType uint8 not in list of allowed
  values: int32, int64``.

install() passes each on as the Python int TF 1.15 made of it, so the buffer
and the shape are the ones the program asked for.
"""

import numbers

import numpy as np


def _as_tf1_int(value):
    """What TF 1.15's ``Dimension`` made of a bool or a float: ``int(value)``
    (which raises for inf and nan, as there), and its ``ValueError`` for a
    float with a fraction."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral):
        if int(value) != value:
            raise ValueError(f"Ambiguous dimension: {value}")
        return int(value)
    return value


def _narrow(value) -> bool:
    """A NumPy integer scalar narrower than int32, or a uint32."""
    if not isinstance(value, np.integer):
        return False
    return value.dtype.itemsize < 4 or value.dtype == np.uint32


def _wide_shape(shape):
    """A list or tuple ``shape`` with its narrow NumPy integers as Python ints (an array
    of them stays: TF 1.15 refused a uint8 array too)."""
    if isinstance(shape, (list, tuple)) and any(_narrow(d) for d in shape):
        return type(shape)(int(d) if _narrow(d) else d for d in shape)
    return shape


def _install_shape_tensor(set_attribute) -> None:
    from tensorflow.python.ops import shape_util

    original = getattr(shape_util.shape_tensor, "_tf1_train_original", shape_util.shape_tensor)

    def shape_tensor(shape):
        return original(_wide_shape(shape))

    shape_tensor._tf1_train_original = original
    set_attribute(shape_util, "shape_tensor", shape_tensor)


def install(set_attribute) -> None:
    """The conversions, through ``set_attribute`` (_install._set)."""
    from tensorflow.python.data.ops import prefetch_op
    from tensorflow.python.framework import tensor_shape

    _install_shape_tensor(set_attribute)

    prefetch = getattr(prefetch_op._prefetch, "_tf1_train_original", prefetch_op._prefetch)

    def _prefetch(input_dataset, buffer_size, name=None):
        if isinstance(buffer_size, numbers.Integral) and not isinstance(buffer_size, (int, bool)):
            buffer_size = int(buffer_size)
        return prefetch(input_dataset, buffer_size, name=name)

    dimension = tensor_shape.Dimension.__init__
    dimension = getattr(dimension, "_tf1_train_original", dimension)

    def __init__(self, value):
        dimension(self, _as_tf1_int(value))

    _prefetch._tf1_train_original = prefetch
    __init__._tf1_train_original = dimension
    set_attribute(prefetch_op, "_prefetch", _prefetch)
    set_attribute(tensor_shape.Dimension, "__init__", __init__)
