"""``tf.train.Int64List(value=mask)`` with a NumPy bool array or NumPy bools,
after install(): TF 1.x programs store masks so (XLNet's ``data_utils.py``:
``_int64_feature(is_masked)`` of an ``np.array(..., dtype=np.bool)``). NumPy
1.x's ``np.bool_`` had ``__index__`` (deprecated since 1.17), so protobuf
took each as 0 or 1; NumPy 2 removed it, and the protobuf TensorFlow 2.21
runs with raises ``TypeError: 'numpy.bool' object cannot be interpreted as
an integer``. install() hands ``Int64List`` the ints TF 1.15 stored. The
message class itself cannot be subclassed (upb), so ``tf.train.Int64List``
becomes a class that builds the real message, and answers ``isinstance``
and its attributes (``FromString``, ``DESCRIPTOR``) as the real one.
``Int64List().value.extend(mask)`` on the repeated field is not reached."""

import numpy as np


def _ints(value):
    if isinstance(value, np.ndarray) and value.dtype == np.bool_:
        return value.astype(np.int64)
    if isinstance(value, (list, tuple)) and any(isinstance(v, np.bool_) for v in value):
        return [int(v) if isinstance(v, np.bool_) else v for v in value]
    return value


def _proxy(message):
    class _Meta(type):
        def __instancecheck__(cls, obj):
            return isinstance(obj, message)

        def __subclasscheck__(cls, sub):
            return issubclass(sub, message)

        def __getattr__(cls, name):
            return getattr(message, name)

        def __call__(cls, *args, **kwargs):
            if "value" in kwargs:
                kwargs["value"] = _ints(kwargs["value"])
            return message(*args, **kwargs)

    return _Meta("Int64List", (), {"__doc__": message.__doc__, "__module__": message.__module__})


def install(set_, apis) -> None:
    from tensorflow.core.example import feature_pb2

    proxy = _proxy(feature_pb2.Int64List)
    for api in apis:
        train = getattr(api, "train", None)
        if train is not None and getattr(train, "Int64List", None) is feature_pb2.Int64List:
            set_(train, "Int64List", proxy)
