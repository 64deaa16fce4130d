"""Rules that need more than a name: call arguments, shapes, and what the whole program does.

A "program" is every file given to one scan: whether eager execution is turned
off, or a v1 graph is built, is decided anywhere in it (usually the entry
point), and changes what a construct in another file does.
"""

import ast
from typing import Dict, Iterator, Optional, Tuple

from tf1_train.port import arg_order, device_rules, shape_rules
from tf1_train.port.program import SESSION_NAMES, Program, in_api
from tf1_train.port.rules import (
    BREAKS,
    CHANGES,
    RENAME,
    ROW_ARGS,
    ROW_DEVICE,
    ROW_DIMENSION,
    ROW_EAGER,
    ROW_KERAS_IN_V1,
    ROW_SUMMARY,
    ROW_TF_KERAS,
    V1,
    _rule,
)

_rule(
    "dimension-value",
    BREAKS,
    "{fix} (shape[i] is an int or None in TF 2), or tf.compat.v1.dimension_value(shape[i]) "
    "for code that must run both ways; unedited: python -m tf1_train.compat --v1_shapes",
    "leaves it unchanged and reports nothing",
    ROW_DIMENSION,
)
_rule(
    "tf2-summary-in-v1-graph",
    CHANGES,
    "tf.compat.v1.summary.{name}: the TF 2 op returns a bool tensor, adds nothing to the "
    "SUMMARIES collection, so merge_all() returns None and merge() raises TypeError",
    "reports 'converted to tf.compat.v1.summary.*' (INFO) but leaves tf.summary.{name} as it is",
    ROW_SUMMARY,
)
_rule(
    "device-function",
    BREAKS,
    "tf.compat.v1.device(fn): TF 2's tf.device raises 'tf.device does not support functions'",
    "leaves it unchanged (renames replica_device_setter inside it to tf.compat.v1)",
    ROW_DEVICE,
)
_rule(
    "eager-placeholder",
    BREAKS,
    "call tf.compat.v1.disable_eager_execution once at the top of the entry point, or build "
    "everything inside `with tf.Graph().as_default():`",
    "adds no disable_eager_execution",
    ROW_EAGER,
)
_rule(
    "keras-layers-in-v1-graph",
    CHANGES,
    "tf1_train.compat.layers (get_variable-based): Keras 3 layers create new variables in "
    "every tower (variable_scope reuse does not share them) and put no regularization "
    "losses in REGULARIZATION_LOSSES",
    "leaves it unchanged and reports nothing",
    ROW_KERAS_IN_V1,
)
_rule(
    "keras-bn-in-v1-graph",
    CHANGES,
    "tf1_train.compat.layers.batch_normalization: Keras 3 BatchNormalization in a v1 graph "
    "adds nothing to UPDATE_OPS, so its moving statistics stay 0 and 1",
    "leaves it unchanged and reports nothing",
    ROW_KERAS_IN_V1,
)
_rule(
    "dropout-positional",
    CHANGES,
    "tf.nn.dropout(x, rate=1 - keep_prob), or tf.compat.v1.nn.dropout: TF 2 reads the second "
    "argument as the drop rate, so keep_prob=0.9 drops 90%",
    "rewrites it to rate=1 - (keep_prob) (INFO): right",
    ROW_ARGS,
)
_rule(
    "keras-input-tensor",
    BREAKS,
    "call the layers on the tensor itself (tf1_train.compat.layers in a v1 graph), or tf_keras "
    "with TF_USE_LEGACY_KERAS=1: Keras 3's Input(tensor=...) raises 'must be a KerasTensor'",
    "leaves it unchanged and reports nothing",
    ROW_TF_KERAS,
)
_rule(
    "image-resize-v1",
    CHANGES,
    "tf.compat.v1.image.resize (TF 1.x's tf.image.resize was resize_images: corner-aligned "
    "sampling); TF 2's tf.image.resize samples at half-pixel centres and gives other pixels "
    "(nearest-neighbour upscaling by a whole factor is the one case that stays the same)",
    "leaves it unchanged without a message; after `import tensorflow.compat.v1 as tf` it "
    "rewrites the import, which turns v1's resize into TF 2's",
    ROW_ARGS,
)
_rule(
    "v2-initializer-defaults",
    CHANGES,
    "pass {missing} explicitly, or use tf.compat.v1.{name}: in a TF1 program `tf.{name}` "
    "is now TF 2's class, whose defaults are stddev=0.05 and [-0.05, 0.05) where v1 had "
    "stddev=1.0 and [0, 1)",
    "leaves it unchanged and reports nothing",
    ROW_ARGS,
)
_rule(
    "sharded-embedding-lookup",
    CHANGES,
    "tf.compat.v1.nn.{name} (partition_strategy='mod' by default, as in TF1), or pass "
    "partition_strategy explicitly to it: TF 2's tf.nn.{name} always splits ids 'div'-wise "
    "over sharded params, so a TF1 checkpoint's rows come back for other ids",
    "leaves it unchanged and reports nothing",
    ROW_ARGS,
)
_rule(
    "renamed-args",
    RENAME,
    "{rename}",
    "renames the keyword (keep_dims, keep_prob, ... checked)",
    ROW_ARGS,
)

SUMMARY_OPS = ("scalar", "histogram", "image", "audio", "text")
EMBEDDING_LOOKUPS = tuple(
    "tensorflow.nn." + n
    for n in ("embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse")
)
KERAS_INPUTS = tuple(
    p + name for p in ("tensorflow.", V1, "") for name in ("keras.Input", "keras.layers.Input")
)
_REDUCE = {"keep_dims": "keepdims", "reduction_indices": "axis"}
RENAMED_ARGS: Dict[str, Dict[str, str]] = {
    **{f"tensorflow.reduce_{op}": _REDUCE for op in ("sum", "mean", "max", "min", "prod", "all")},
    "tensorflow.reduce_any": _REDUCE,
    "tensorflow.nn.conv2d": {"filter": "filters", "use_cudnn_on_gpu": "(removed)"},
    "tensorflow.nn.max_pool": {"value": "input"},
    "tensorflow.nn.avg_pool": {"value": "input"},
    "tensorflow.argmax": {"dimension": "axis"},
    "tensorflow.argmin": {"dimension": "axis"},
    "tensorflow.squeeze": {"squeeze_dims": "axis"},
    "tensorflow.expand_dims": {"dim": "axis"},
    "tensorflow.nn.moments": {"keep_dims": "keepdims"},
    "tensorflow.nn.softmax": {"dim": "axis"},
    "tensorflow.nn.log_softmax": {"dim": "axis"},
    "tensorflow.nn.dropout": {"keep_prob": "rate=1 - keep_prob"},
    "tensorflow.nn.depthwise_conv2d": {"rate": "dilations"},
    **{
        "tensorflow." + init: {"dtype": "(removed: TF 2's initializers take dtype when called)"}
        for init in (
            "random_normal_initializer random_uniform_initializer constant_initializer "
            "zeros_initializer ones_initializer"
        ).split()
    },
}
# TF 2 initializers that kept a v1 name but not its defaults: (argument, position) pairs
# whose v1 default differs.
_NORMAL = (("stddev", 1),)
_UNIFORM = (("minval", 0), ("maxval", 1))
INIT_DEFAULTS = {
    "tensorflow.random_normal_initializer": _NORMAL,
    "tensorflow.initializers.random_normal": _NORMAL,
    "tensorflow.initializers.truncated_normal": _NORMAL,
    "tensorflow.random_uniform_initializer": _UNIFORM,
    "tensorflow.initializers.random_uniform": _UNIFORM,
}


LOSS_SCALE_OPTIMIZERS = tuple(
    p + m + ".LossScaleOptimizer"
    for p in ("tensorflow.keras.", "keras.")
    for m in ("mixed_precision", "optimizers")
)
KERAS2_LOSS_SCALE_METHODS = ("get_scaled_loss", "get_unscaled_gradients")
UNKNOWN_FIX = "test shape[i] is None: TF 2 prints an unknown dimension as 'None', not TF 1.x's '?'"
AMP_VARIABLE = "TF_ENABLE_AUTO_MIXED_PRECISION"  # and its _GRAPH_REWRITE, _LOSS_SCALING kin


def _device_function(arg: ast.AST, functions: set, path: Optional[str]) -> bool:
    if isinstance(arg, ast.Lambda):
        return True
    if isinstance(arg, ast.Name) and arg.id in functions:
        return True
    name = path or ast.unparse(arg.func if isinstance(arg, ast.Call) else arg)
    return any(w in name for w in ("device_setter", "device_fn", "device_function"))


def call_findings(
    tree: ast.AST, resolve, program: Program
) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule key, construct, fill-ins for the fix) for call- and shape-level rules."""
    functions = _plain_functions(tree)
    yield from device_rules.variable_op_tests(tree)
    for node in shape_rules.dimension_values(tree):
        fix = UNKNOWN_FIX if isinstance(node, ast.Compare) else "drop `.value`"
        yield node, "dimension-value", ast.unparse(node), {"fix": fix}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and str(node.value).startswith(AMP_VARIABLE):
            yield node, "amp-env-var", repr(node.value), {}
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in KERAS2_LOSS_SCALE_METHODS:
            yield node, "keras2-loss-scale", ast.unparse(func) + "(...)", {}
        path = resolve(func)
        if path in LOSS_SCALE_OPTIMIZERS and any(kw.arg == "dynamic" for kw in node.keywords):
            yield node, "keras2-loss-scale", ast.unparse(func) + "(dynamic=...)", {}
        if path == "tensorflow.device" and node.args:
            arg = node.args[0]
            arg_path = resolve(arg.func) if isinstance(arg, ast.Call) else resolve(arg)
            if _device_function(arg, functions, arg_path):
                yield node, "device-function", ast.unparse(node), {}
        if path in KERAS_INPUTS and any(kw.arg == "tensor" for kw in node.keywords):
            yield node, "keras-input-tensor", ast.unparse(node.func) + "(tensor=...)", {}
        yield from arg_order.findings(node, path)
        if program.v1_graph and path in INIT_DEFAULTS:
            given = {kw.arg for kw in node.keywords}
            missing = [a for a, i in INIT_DEFAULTS[path] if a not in given and len(node.args) <= i]
            if missing:
                fills = {"missing": " and ".join(missing), "name": path[len("tensorflow.") :]}
                yield node, "v2-initializer-defaults", ast.unparse(node), fills
        if path in EMBEDDING_LOOKUPS and _sharded(node, program):
            name = path.rsplit(".", 1)[-1]
            yield node, "sharded-embedding-lookup", ast.unparse(node.func) + "(...)", {"name": name}
        if path == "tensorflow.nn.dropout" and len(node.args) >= 2:
            yield node, "dropout-positional", ast.unparse(node.func) + "(x, keep_prob)", {}
        for kw in node.keywords:
            new = RENAMED_ARGS.get(path or "", {}).get(kw.arg or "")
            if new:
                construct = f"{ast.unparse(node.func)}({kw.arg}=...)"
                yield node, "renamed-args", construct, {"rename": f"{kw.arg} -> {new}"}


def _sharded(call: ast.Call, program: Program) -> bool:
    """Params given as a list of shards, or any lookup in a program that partitions variables."""
    params = call.args[0] if call.args else None
    if params is None:
        params = next(
            (k.value for k in call.keywords if k.arg in ("params", "embedding_weights")), None
        )
    return program.partitioned or isinstance(params, (ast.List, ast.ListComp))


def _plain_functions(tree: ast.AST) -> set:
    """Names of functions a bare name can mean: not methods, and never rebound by assignment.

    `clone_device = config.clone_device(i)` names a string, not the method.
    """
    methods = {
        id(f) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for f in c.body
    }  # fmt: skip
    stored = {
        n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }
    return {
        n.name
        for n in ast.walk(tree)
        if isinstance(n, ast.FunctionDef) and id(n) not in methods and n.name not in stored
    }


def path_rule(path: str, program: Program, is_call: bool) -> Optional[Tuple[str, Dict[str, str]]]:
    """Program-dependent rules on a resolved API path: (rule key, fill-ins) or None."""
    name = path.rsplit(".", 1)[-1]
    summaries = tuple("tensorflow.summary." + s for s in SUMMARY_OPS)
    if program.v1_graph and not program.tf2_summary_writer and path in summaries:
        merged = program.merged_fetched  # summary_rules.py: a run fetches merge_all()'s None
        return "tf2-summary-merge-fetched" if merged else "tf2-summary-in-v1-graph", {"name": name}
    if program.v1_graph and path == "tensorflow.image.resize":
        return "image-resize-v1", {}
    if not program.eager_off and in_api(path, SESSION_NAMES):
        return "eager-placeholder", {}
    keras = ("tensorflow.keras.layers.", "keras.layers.", V1 + "keras.layers.")
    if program.v1_graph and is_call and path.startswith(keras) and name[:1].isupper():
        if name == "BatchNormalization":
            return "keras-bn-in-v1-graph", {}
        if name not in ("Layer", "InputSpec", "Input"):
            return "keras-layers-in-v1-graph", {}
    return None
