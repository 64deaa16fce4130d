"""``tf.compat.v1.keras.initializers`` as TF 1.15 had it: the v1
``init_ops`` classes, whose unseeded draws follow the graph seed.

On TensorFlow 2.21 that path is Keras 3's ``keras.initializers``: its
``VarianceScaling`` draws from a seed of its own, so a TF 1.x program that
seeds its graph (``tf.set_random_seed(4568)``) and builds its weights with
``tf.compat.v1.keras.initializers.VarianceScaling(...)`` (Mozilla's
DeepSpeech, train.py) gets other weights on every run, where TF 1.15.5 gave
the same ones each time. TF 1.15's module (and TF 2.15's, with Keras 2) held
``init_ops``' classes and, for ``RandomNormal``, ``RandomUniform`` and
``TruncatedNormal``, Keras 1's subclasses of them with smaller defaults
(stddev 0.05, -0.05 to 0.05); ``he_normal`` and the other lowercase
functions made a ``VarianceScaling``. install() serves that module as the
v1 API's ``keras.initializers`` (so also as ``tf.keras.initializers`` under
``--v1``, whose ``tf`` is the v1 API, as on TF 1.15); ``keras`` itself and
TF 2's ``tf.keras`` keep Keras 3's. Keras 3 layers take these initializers
(a callable of a shape and dtype).
"""

from __future__ import annotations

import types

from tensorflow.python.framework import dtypes
from tensorflow.python.ops import init_ops


class RandomNormal(init_ops.RandomNormal):
    """Keras 1's: stddev 0.05."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)


class RandomUniform(init_ops.RandomUniform):
    """Keras 1's: -0.05 to 0.05."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(minval=minval, maxval=maxval, seed=seed, dtype=dtype)


class TruncatedNormal(init_ops.TruncatedNormal):
    """Keras 1's: stddev 0.05."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None, dtype=dtypes.float32):
        super().__init__(mean=mean, stddev=stddev, seed=seed, dtype=dtype)


def _saveable(cls):
    """``cls`` registered with Keras 3's serialization (package ``tf1_train``):
    a Keras 3 model built with it saves its config (``dtype`` included, as TF
    1.15's) and loads it back as this class; Keras 3's own class of the same
    name takes no ``dtype`` and could not."""
    import keras

    served = type(cls.__name__, (cls,), {"__module__": __name__, "__doc__": cls.__doc__})
    return keras.saving.register_keras_serializable(package="tf1_train")(served)


Constant, Identity, Ones, Orthogonal, Zeros = (
    _saveable(c)
    for c in (
        init_ops.Constant,
        init_ops.Identity,
        init_ops.Ones,
        init_ops.Orthogonal,
        init_ops.Zeros,
    )
)
VarianceScaling, GlorotNormal, GlorotUniform = (
    _saveable(c) for c in (init_ops.VarianceScaling, init_ops.GlorotNormal, init_ops.GlorotUniform)
)
RandomNormal, RandomUniform, TruncatedNormal = (
    _saveable(c) for c in (RandomNormal, RandomUniform, TruncatedNormal)
)


def he_normal(seed=None):
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed=None):
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


def lecun_normal(seed=None):
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


# TF 1.15.5's names in tf.compat.v1.keras.initializers, and what each was
NAMES = {
    "Constant": Constant,
    "Identity": Identity,
    "Initializer": init_ops.Initializer,
    "Ones": Ones,
    "Orthogonal": Orthogonal,
    "RandomNormal": RandomNormal,
    "RandomUniform": RandomUniform,
    "TruncatedNormal": TruncatedNormal,
    "VarianceScaling": VarianceScaling,
    "Zeros": Zeros,
    "constant": Constant,
    "glorot_normal": GlorotNormal,
    "glorot_uniform": GlorotUniform,
    "he_normal": he_normal,
    "he_uniform": he_uniform,
    "identity": Identity,
    "lecun_normal": lecun_normal,
    "lecun_uniform": lecun_uniform,
    "normal": RandomNormal,
    "ones": Ones,
    "orthogonal": Orthogonal,
    "random_normal": RandomNormal,
    "random_uniform": RandomUniform,
    "truncated_normal": TruncatedNormal,
    "uniform": RandomUniform,
    "zeros": Zeros,
}


def serialize(initializer) -> dict:
    """Keras 2's form: ``{'class_name': ..., 'config': get_config()}``."""
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config, custom_objects=None):
    """An initializer from a name (``'he_normal'``) or a serialized dict."""
    known = {**NAMES, **(custom_objects or {})}
    name = config if isinstance(config, str) else config["class_name"]
    if name not in known:
        raise ValueError(f"Unknown initializer:{name}")
    if isinstance(config, str):
        return known[name]()
    return known[name].from_config(config.get("config", {}))


def get(identifier):
    """None, a name, a serialized dict, or a callable (kept), as TF 1.15 took them."""
    if identifier is None:
        return None
    if isinstance(identifier, (str, dict)):
        return deserialize(identifier)
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier}")


def module() -> types.ModuleType:
    """The module served as ``tensorflow.compat.v1.keras.initializers``."""
    served = types.ModuleType(
        "tensorflow.compat.v1.keras.initializers", "TF 1.15's (tf1_train.compat)"
    )
    served.__dict__.update(NAMES, serialize=serialize, deserialize=deserialize, get=get)
    return served


class KerasV1(types.ModuleType):
    """The v1 API's ``keras``: Keras 3's module (read through), but
    ``initializers``, TF 1.15's."""

    def __init__(self, keras, initializers: types.ModuleType):
        super().__init__("tensorflow.compat.v1.keras", getattr(keras, "__doc__", None))
        self.__dict__.update(_keras=keras, initializers=initializers)

    def __getattr__(self, name: str):
        return getattr(self.__dict__["_keras"], name)

    def __dir__(self):
        return sorted(set(dir(self.__dict__["_keras"])) | {"initializers"})


def install(set_attribute, v1_apis) -> None:
    """Serves TF 1.15's module in every copy of the v1 API (``v1_apis``:
    (name, module)), Keras 3 still loaded only when first read."""
    import sys

    served = None
    for name, api in v1_apis:
        keras = api.__dict__.get("keras", None)
        if keras is None or isinstance(keras, KerasV1):
            continue
        served = served or module()
        set_attribute(api, "keras", KerasV1(keras, served))
        set_attribute(sys.modules, name + ".keras.initializers", served)
