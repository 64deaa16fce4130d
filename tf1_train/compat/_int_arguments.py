"""Integers TF 1.15 took in another type and TensorFlow 2.21 refuses, after
install(): a NumPy integer as ``Dataset.prefetch``'s buffer size, a bool as
a shape's dimension. NVIDIA's StyleGAN has both.

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

install() passes both on as the Python int TF 1.15 made of them, so the
buffer and the shape are the ones the program asked for.
"""

import numbers


def install(set_attribute) -> None:
    """Both conversions, through ``set_attribute`` (_install._set)."""
    from tensorflow.python.data.ops import prefetch_op
    from tensorflow.python.framework import tensor_shape

    prefetch = getattr(prefetch_op._prefetch, "_tf1_train_original", prefetch_op._prefetch)

    def _prefetch(input_dataset, buffer_size, name=None):
        if isinstance(buffer_size, numbers.Integral) and not isinstance(buffer_size, (int, bool)):
            buffer_size = int(buffer_size)
        return prefetch(input_dataset, buffer_size, name=name)

    dimension = tensor_shape.Dimension.__init__
    dimension = getattr(dimension, "_tf1_train_original", dimension)

    def __init__(self, value):
        dimension(self, int(value) if isinstance(value, bool) else value)

    _prefetch._tf1_train_original = prefetch
    __init__._tf1_train_original = dimension
    set_attribute(prefetch_op, "_prefetch", _prefetch)
    set_attribute(tensor_shape.Dimension, "__init__", __init__)
