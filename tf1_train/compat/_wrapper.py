"""``tf.keras.layers.Wrapper`` as TF 1.x had it: a layer that holds a ``tf.layers`` layer.

On TF 1.x the legacy layers were Keras 2 layers, so code bases subclassed
``tf.keras.layers.Wrapper`` around ``tf.layers.Conv1D`` and friends:
Tacotron-2's WaveNet vocoder builds its weight-normalised causal
convolutions so (``WeightNorm``, ``CausalConv1D``, ``ResidualConv1DGLU``),
calling ``self.layer.build(shape)``, ``self.layer.add_variable(...)`` and
``self.layer.call(inputs)`` itself and tracking the layer with
``_track_checkpointable``. Keras 3's ``Wrapper`` takes only Keras 3 layers
(ValueError: "... isn't a supported layer type") and has none of those
methods. Under ``install()`` the name is this class, which does what TF
1.x's did: holds the layer, builds it on the first call if the subclass did
not, and calls under the wrapper's name scope only; no variable scope of its
own, so the wrapped layer's variables keep the names they had on TF 1.x.
The wrapped layer may be any object with ``build``, ``call`` and ``built``,
so a subclass around a Keras 3 layer runs too.
"""

import tensorflow as tf

# Keras 2's own input check and default names (weight_norm, weight_norm_1, ...
# counted per graph), still in TensorFlow 2.21's private Keras 2 copy.
from tensorflow.python.keras.backend import unique_object_name
from tensorflow.python.keras.engine.input_spec import assert_input_compatibility
from tensorflow.python.keras.utils.generic_utils import to_snake_case

from tf1_train.compat._base import Layer

v1 = tf.compat.v1
# What Keras 2's Layer took besides these (TF 1.x's Wrapper passed **kwargs on).
_ACCEPTED = {"input_shape", "batch_input_shape", "batch_size", "weights", "autocast"}


class Wrapper(Layer):
    """Holds ``layer``; subclasses implement ``call`` (and usually ``build``)."""

    def __init__(self, layer, name=None, trainable=True, dtype=None, activity_regularizer=None,
                 **kwargs):  # fmt: skip
        unknown = set(kwargs) - _ACCEPTED
        if unknown:
            raise TypeError(f"Keyword argument not understood: {sorted(unknown)[0]}")
        self.layer = layer
        name = name or unique_object_name(to_snake_case(type(self).__name__), zero_based=True)
        super().__init__(trainable, name, dtype, activity_regularizer)
        self.input_spec = None

    @property
    def activity_regularizer(self):
        """The wrapper's own, else the wrapped layer's (TF 1.x's Wrapper gave the latter)."""
        return self._activity_regularizer or getattr(self.layer, "activity_regularizer", None)

    @activity_regularizer.setter
    def activity_regularizer(self, value) -> None:
        self._activity_regularizer = value

    def build(self, input_shape=None) -> None:
        if not self.layer.built:
            self.layer.build(input_shape)
            self.layer.built = True
        self.built = True

    def __call__(self, inputs, *args, **kwargs):
        """Name scope, input check, build on the first call, call: TF 1.x's
        Keras order, with no variable scope (the variables are the layer's)."""
        with v1.name_scope(self.name):
            inputs = tf.nest.map_structure(tf.convert_to_tensor, inputs)
            assert_input_compatibility(self.input_spec, inputs, self.name)
            if not self.built:
                self.build(tf.nest.map_structure(lambda x: x.shape, inputs))
                self.built = True
            outputs = self.call(inputs, *args, **kwargs)
            if self._activity_regularizer is not None:  # its own only, as on TF 1.x
                self._regularize_activity(outputs)
        return outputs

    @property
    def weights(self) -> list:
        """The wrapper's own variables, then the wrapped layer's."""
        inner = getattr(self.layer, "weights", None) or getattr(self.layer, "variables", [])
        own = list(self.variables)
        return own + [v for v in inner if all(v is not o for o in own)]

    @property
    def trainable_weights(self) -> list:
        return [v for v in self.weights if v.trainable] if self.trainable else []

    @property
    def non_trainable_weights(self) -> list:
        trainable = self.trainable_weights
        return [v for v in self.weights if all(v is not t for t in trainable)]

    trainable_variables = trainable_weights
    non_trainable_variables = non_trainable_weights
