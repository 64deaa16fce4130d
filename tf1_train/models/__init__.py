"""The model registry: the one list of models, built in and the user's own.

A model is data (as tensorpack's ``ModelDesc`` and tf_cnn_benchmarks'
``register_model``), not a name this package owns:

* ``tf1``: the TF1 model function ``build(images, is_training, num_classes)
  -> logits`` (and ``labels=`` when it has that parameter: calls.py). It
  creates variables with ``tf.compat.v1.get_variable`` (see layers.py), so
  building it again under ``reuse=True`` shares them across towers.
* ``tf2`` (optional): its TF2 twin, ``factory(image_shape, num_classes)`` ->
  a ``tf.Module`` called as ``module(images, training)`` -> logits.
* ``keras`` (optional): a Keras ``Model.fit`` twin (tf1_train/tf2/keras_fit.py).

Each is a callable or a ``"package.module:attribute"`` string imported on
first use, so this module imports no TensorFlow and config validation can
read the names. ``--model`` takes a registered name or
``package.module:function`` (the user's package found through ``PYTHONPATH``
or installed packages); programs calling tf1_train's API use ``register``.
"""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING, Callable, Dict, NamedTuple, Optional, Tuple, Union

from tf1_train.errors import UserError
from tf1_train.models import hints

if TYPE_CHECKING:  # tensorflow is imported when a model is built, not with this module
    import tensorflow as tf

ModelFn = Callable  # (images, is_training, num_classes) -> logits
Ref = Union[str, Callable]  # "package.module:attribute" or the object itself


class ModelSpec(NamedTuple):
    name: str
    tf1: Ref
    tf2: Optional[Ref] = None
    keras: Optional[Ref] = None


_BUILT_IN = (
    ModelSpec(
        "mlp",
        "tf1_train.models.mlp:build",
        "tf1_train.tf2.models:MLP",
        "tf1_train.tf2.keras_fit:mlp_layers",
    ),
    ModelSpec(
        "lenet5",
        "tf1_train.models.lenet5:build",
        "tf1_train.tf2.models:LeNet5",
        "tf1_train.tf2.keras_fit:lenet5_layers",
    ),
    ModelSpec(
        "resnet20", "tf1_train.models.resnet:build_resnet20", "tf1_train.tf2.models:resnet20"
    ),
    ModelSpec(
        "resnet32", "tf1_train.models.resnet:build_resnet32", "tf1_train.tf2.models:resnet32"
    ),
    ModelSpec(
        "resnet56", "tf1_train.models.resnet:build_resnet56", "tf1_train.tf2.models:resnet56"
    ),
)
BUILT_IN: Tuple[str, ...] = tuple(s.name for s in _BUILT_IN)
_REGISTRY: Dict[str, ModelSpec] = {s.name: s for s in _BUILT_IN}


def register(name: str, build_fn: Ref, tf2: Optional[Ref] = None, keras: Optional[Ref] = None):
    """Makes ``--model=name`` (and ``Config(model=name)``) mean ``build_fn``.

    Registering a built-in name again replaces it for this process only.
    """
    if not name or ":" in name:
        raise ValueError(f"model name {name!r}: must be non-empty and without ':'")
    _REGISTRY[name] = ModelSpec(name, build_fn, tf2, keras)


def names() -> Tuple[str, ...]:
    """Every name ``--model`` accepts without ``:``, built-in ones first."""
    return tuple(_REGISTRY)


def with_tf2() -> Tuple[str, ...]:
    return tuple(n for n, s in _REGISTRY.items() if s.tf2 is not None)


def with_keras() -> Tuple[str, ...]:
    return tuple(n for n, s in _REGISTRY.items() if s.keras is not None)


def is_import_path(name: str) -> bool:
    return ":" in name


def lookup(name: str) -> ModelSpec:
    """The spec of a registered name, or of ``package.module:function``."""
    if is_import_path(name):
        return ModelSpec(name, name)
    if name not in _REGISTRY:
        raise UserError(
            f"--model={name}: not a built-in or registered model; "
            f"valid: {', '.join(names())}, or package.module:function"
        )
    return _REGISTRY[name]


def get_model(name: str) -> ModelFn:
    """The TF1 build function of ``name``."""
    return resolve(lookup(name).tf1, "model")


def checked(fn: Callable, flag_value: str, flag: str = "model") -> Callable:
    """``fn`` whose exceptions and non-tensor results become one UserError
    line naming ``--flag=flag_value`` and where in the user's code it failed."""

    def call(*args, **kwargs):  # kwargs: labels= (calls.py)
        import tensorflow as tf

        from tf1_train.models import outputs

        graph = tf.compat.v1.get_default_graph()
        before = len(graph.get_operations())
        try:
            out = fn(*args, **kwargs)
        except UserError:
            raise
        except Exception as e:
            raise UserError(f"--{flag}={flag_value}: {describe_failure(e)}") from None
        pair = flag == "model" and outputs.is_pair(out)  # (logits, end_points): outputs.py
        if not pair and not isinstance(out, (tf.Tensor, tf.Variable)):
            raise UserError(f"--{flag}={flag_value}: returned a {type(out).__name__}, not a tensor")
        made = graph.get_operations()[before:]
        _refuse_placeholders(made, f"--{flag}={flag_value}")
        if flag == "model":
            _refuse_uncollected_variables(made, f"--{flag}={flag_value}")
            _check_logits(outputs.logits_of(out), args[2], f"--{flag}={flag_value}")
        elif flag == "loss":
            _check_loss(out, args[0], args[1], f"--{flag}={flag_value}")
        return out

    call.flag_value = flag_value  # for errors raised after the call (towers.py)
    call.__wrapped__ = fn  # its signature: does --loss take end_points (outputs.py)
    return call


# What tf-slim's nets return, and the change a porting user makes.
_SQUEEZE_HINT = (
    " (the [batch, 1, 1, classes] of a tf-slim net's 1x1 conv logits: "
    "return tf.squeeze(logits, [1, 2]), what its spatial_squeeze did)"
)


def check_logits_shape(logits, num_classes: int, what: str) -> None:
    """Float ``[batch, num_classes]`` logits (both paths' models)."""
    shape = logits.shape
    if not logits.dtype.is_floating:
        raise UserError(f"{what}: returned {logits.dtype.name} logits; expected float ones")
    if shape.rank != 2 or shape[-1] not in (None, num_classes):
        raise UserError(
            f"{what}: returned logits of shape {shape.as_list() if shape.rank else shape}; "
            f"expected [batch, {num_classes}] ({num_classes} classes in the dataset)"
            + (_SQUEEZE_HINT if shape.rank == 4 and shape[1:3].as_list() == [1, 1] else "")
        )


def _check_logits(logits, num_classes: int, what: str) -> None:
    """Logits the loss can take, said before a step fails on them: float,
    ``[batch, num_classes]``, from a model with trainable variables."""
    import tensorflow as tf

    check_logits_shape(logits, num_classes, what)
    if not tf.compat.v1.trainable_variables():
        raise UserError(
            f"{what}: makes no trainable variable (make them with "
            "tf.compat.v1.get_variable, so the towers share them)"
        )


def _refuse_placeholders(ops, what: str) -> None:
    """A TF1 script fed its placeholders (``keep_prob``, ``is_training``) in
    ``feed_dict``; nothing feeds one made inside the model, so the first
    step would fail deep in TensorFlow. Say so before anything runs."""
    fed = [op for op in ops if op.type == "Placeholder"]
    if not fed:
        return
    op = fed[0]
    name = op.name.split("/")[-1]
    if "label" in name.lower():  # CapsNet's masks, a margin head: the labels are given
        fix = (
            "a model that reads the labels takes them as a parameter, "
            "fn(images, is_training, num_classes, labels=None): each tower is given its own"
        )
    else:
        fix = (
            "the model is called as fn(images, is_training, num_classes); derive the value "
            "from is_training (e.g. keep_prob = 0.5 if is_training else 1.0) or use "
            "tf.compat.v1.placeholder_with_default(value, shape)"
        )
    dtype = op.get_attr("dtype").name
    raise UserError(
        f"{what}: makes placeholder {name!r} ({dtype}){_made_at(op)}, which nothing feeds: {fix}"
    )


def _made_at(op) -> str:
    """`` (at file:line)`` of the user's code that made ``op``, if found."""
    mine = [f for f in op.traceback if "site-packages" not in f[0] and "/tf1_train/" not in f[0]]
    return f" (at {mine[-1][0]}:{mine[-1][1]})" if mine else ""


def _refuse_uncollected_variables(ops, what: str) -> None:
    """A variable made with ``collections=`` that leave out GLOBAL_VARIABLES
    and LOCAL_VARIABLES (``get_variable``, ``slim.variable``): no initializer
    covers it, so the first step failed on it uninitialized, with a
    traceback, and no checkpoint would hold it. Say so before anything runs."""
    import tensorflow as tf

    made = [op for op in ops if op.type in ("VarHandleOp", "VariableV2")]
    keys = (tf.compat.v1.GraphKeys.GLOBAL_VARIABLES, tf.compat.v1.GraphKeys.LOCAL_VARIABLES)
    known = {v.op.name for k in keys for v in (made[0].graph.get_collection(k) if made else [])}
    odd = [op for op in made if op.name not in known]
    if odd:
        raise UserError(
            f"{what}: variable {odd[0].name!r}{_made_at(odd[0])} is in neither the "
            "GLOBAL_VARIABLES nor the LOCAL_VARIABLES collection (collections= without "
            "tf.compat.v1.GraphKeys.GLOBAL_VARIABLES): nothing would initialize or checkpoint "
            "it; add GLOBAL_VARIABLES to its collections"
        )


def _check_loss(loss, labels, logits, what: str) -> None:
    """A data loss tf1_train can average: a float scalar (the batch mean) or
    a per-example vector, computed from the logits. A ``[batch, 1]`` column
    would be differentiated as its sum, batch-size times the mean's gradient."""
    if not loss.dtype.is_floating:
        raise UserError(f"{what}: returned a {loss.dtype.name} loss; expected a float one")
    rank, n = loss.shape.rank, labels.shape[0]
    if rank not in (0, 1) or (rank == 1 and None not in (loss.shape[0], n) and loss.shape[0] != n):
        shape = loss.shape.as_list() if rank is not None else "unknown"
        raise UserError(
            f"{what}: returned a loss of shape {shape}; expected a scalar (the batch mean) "
            f"or one value per example [{n}]"
        )
    if not depends_on(loss, logits):
        raise UserError(f"{what}: the loss it returns does not depend on the logits")


def depends_on(tensor: tf.Tensor, source: tf.Tensor) -> bool:
    """Whether ``source`` is among ``tensor``'s inputs, transitively."""
    return source.op in ancestors(tensor)


def ancestors(tensor: tf.Tensor) -> set:
    """Every op ``tensor`` is computed from, its own included."""
    seen, todo = set(), [tensor.op]
    while todo:
        op = todo.pop()
        if op not in seen:
            seen.add(op)
            todo.extend(t.op for t in op.inputs)
    return seen


def _import_failure(error: Exception) -> str:
    """The exception, with what to do when it is a TF1 script's flags: a
    module that defines --batch_size at import clashes with tf1_train's."""
    text = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
    text += hints.tf1_name(text) if isinstance(error, AttributeError) else ""
    found = re.search(r"The flag '([^']+)' is defined twice", str(error))
    if type(error).__name__ != "DuplicateFlagError" or not found:
        return text
    name = found.group(1)
    return (
        f"it defines --{name} at import, as TF1 scripts did, and tf1_train has that flag: "
        f"remove its DEFINE (tf1_train's --{name} is the one set), or define it only where "
        "absl has no flag of that name"
    )


def _where(error: Exception) -> str:
    """' (at file.py:42)': the innermost frame in the user's own code, not in
    TensorFlow's, the import machinery's or ours; '' if there is none."""
    import traceback

    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if "site-packages" not in f.filename
        and "/tf1_train/" not in f.filename
        and "<frozen " not in f.filename  # importlib's own frames
        and "__autograph_generated" not in f.filename  # tf.function's copy of the user's code
    ]
    return f" (at {frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def describe_failure(error: Exception) -> str:
    """'raised ValueError: <first line> (at file.py:42)' for a user's exception."""
    import traceback

    stack = traceback.extract_tb(error.__traceback__)
    where = _where(error)
    message = str(error).strip().splitlines()[0] if str(error).strip() else ""
    if "pred must not be a Python bool" in message:  # tf.cond(is_training, ...)
        message += (
            " (is_training is a Python bool here: branch with `if is_training:`, or "
            "pass tf.constant(is_training) to tf.cond)"
        )
    if isinstance(error, NotImplementedError) and stack and stack[-1].name == "initialized_value":
        message = (  # TF 2.21's resource variables raise it bare
            "v.initialized_value() is not on TensorFlow 2's resource variables: use "
            "v.initial_value, or call tf1_train.compat.install() at the top of your module"
        )
    if isinstance(error, AttributeError):  # tf.variable_scope, tf.layers, tf.contrib...
        message += hints.tf1_name(message) + hints.dimension_value(message)
    if "not available with Keras 3" in message:  # tf.compat.v1.layers, rnn_cell
        message += (
            " (call tf1_train.compat.install() at the top of your module: docs/LEGACY_LAYERS.md)"
        )
    return f"raised {type(error).__name__}: {message}{where}"


def import_user_code(cfg, tf2: bool = False) -> None:
    """Imports every ``package.module:function`` the run names (model,
    preprocess, loss, hooks, eval metrics and, for the TF2 path, the twin)
    before anything is built or written: the first that fails is one
    UserError line."""
    get_model(cfg.model)
    refs = {
        "preprocess": cfg.data.preprocess,
        "loss": cfg.loss,
        "hooks": cfg.hooks,
        "eval_metrics": cfg.eval_metrics,
    }
    if tf2:
        refs["tf2_model"] = cfg.tf2_model
    for flag, ref in refs.items():
        if ref:
            resolve(ref, flag)


def resolve(ref: Ref, flag: str) -> Callable:
    """Imports ``"package.module:attribute"``; one UserError line naming
    ``--flag`` and what failed (module not found, no such attribute, not
    callable). A callable is returned as it is."""
    if callable(ref):
        return ref
    module_name, sep, attr = ref.partition(":")
    if not sep or not module_name or not attr:
        raise UserError(f"--{flag}={ref}: expected package.module:function")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as e:
        if hints.tf1_module(e.name):  # the user's module imports tensorflow.contrib
            raise UserError(
                f"--{flag}={ref}: importing {module_name!r} failed: "
                f"{hints.tf1_module(e.name)}{_where(e)}"
            ) from None
        raise UserError(
            f"--{flag}={ref}: module {e.name!r} not found "
            "(is its directory on PYTHONPATH, or its package installed?)"
        ) from None
    except Exception as e:  # the user's module failed while importing
        raise UserError(
            f"--{flag}={ref}: importing {module_name!r} failed: {_import_failure(e)}"
        ) from None
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise UserError(f"--{flag}={ref}: module {module_name!r} has no {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise UserError(f"--{flag}={ref}: {attr!r} is a {type(obj).__name__}, not callable")
    return obj
