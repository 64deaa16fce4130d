"""Rules for a model that casts itself to float16: its own custom getter, and
the ``cast._ref = variable._ref`` line NVIDIA's getter carries.

Found running such models (official r1 ResNet's ``_custom_dtype_getter``,
NVIDIA ConvNets' ``model_variable_scope``, tf_cnn_benchmarks' ``--use_fp16``
getter) under tf1_train: the getter runs on TensorFlow 2.21 as written, but
its loss scale was the training script's, so tf1_train must be told
``--precision=fp16``; the ``_ref`` line raises.

A getter is told from tf1_train's own (which casts to the precision it was
built for) by what it casts to: the dtype the layers asked for (one of its
own arguments, or something computed from them) or a literal float16.
"""

import ast
from typing import Dict, Iterator, Optional, Set, Tuple

from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, LEAVES, WORKS, _rule

ROW_SELF_CAST = "a model function that casts itself"

_rule(
    "float16-custom-getter",
    WORKS,
    "runs on 2.21 as written (float32 variables, float16 casts of them), but its loss "
    "scale was the training script's and tf1_train is that script now: train with "
    "--precision=fp16 and give the script's loss scale as --loss_scale (official "
    "ResNet's --loss_scale, NVIDIA's --static_loss_scale, tf_cnn_benchmarks' "
    "--fp16_loss_scale; 128 for their fixed scale, the default is dynamic); the getter "
    "can stay; --precision=fp32 or bf16 is refused in one line",
    LEAVES,
    ROW_SELF_CAST,
)
_rule(
    "variable-ref",
    BREAKS,
    "TensorFlow 2.21 makes resource variables (tf1_train's towers do), which have no "
    "_ref (a reference variable's, made only by use_resource=False or "
    "disable_resource_variables()): reading it raises AttributeError; delete the line "
    "(NVIDIA's cast._ref = variable._ref) and any look-up of the cast by name "
    "(get_tensor_by_name(name + '/fp16_cast:0'))",
    LEAVES,
    ROW_SELF_CAST,
)

CASTS = ("tensorflow.cast", "tensorflow.compat.v1.cast", "tensorflow.saturate_cast")
FLOAT16 = ("tensorflow.float16", "tensorflow.half", "tensorflow.compat.v1.float16")
Raw = Tuple[ast.AST, str, str, Dict[str, str]]


def findings(tree: ast.AST) -> Iterator[Raw]:
    """(node, rule, construct, fill-ins) for both rules, in a file that imports TensorFlow."""
    tf = Aliases(tree, roots=("tensorflow",))
    if not tf.names:
        return
    if not _tpu_code(tree, tf):
        yield from _getter_findings(tree, tf)
    yield from _ref_findings(tree)


def _tpu_code(tree: ast.AST, tf: Aliases) -> bool:
    """Whether the file names bfloat16 and never float16. A getter casting to
    the dtype it was asked for casts to float16 in GPU code, to bfloat16 in
    TPU code, which needs no loss scale; a getter alone in its file names
    neither (NVIDIA's BERT ``float32_variable_storage_getter``, its caller
    asking for float16 elsewhere) and is reported."""
    named = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and node.value in ("float16", "half", "bfloat16"):
            named.add("bfloat16" if node.value == "bfloat16" else "float16")
        elif isinstance(node, ast.Attribute):
            path = tf.resolve(node) or ""
            if path in FLOAT16:
                named.add("float16")
            elif path.endswith(".bfloat16"):
                named.add("bfloat16")
    return named == {"bfloat16"}


def _getter_findings(tree: ast.AST, tf: Aliases) -> Iterator[Raw]:
    scopes = {}  # variable_scope(dtype=float16, custom_getter=...) calls
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            cast = _requested_cast(node, tf)
            if cast is not None:
                yield node, "float16-custom-getter", f"{node.name}: {ast.unparse(cast)}", {}
        elif isinstance(node, ast.Call) and _float16_scope(node, tf):
            scopes[node.lineno] = node
    for node in scopes.values():
        yield node, "float16-custom-getter", ast.unparse(node.func) + "(dtype=float16, ...)", {}


def _requested_cast(fn: ast.FunctionDef, tf: Aliases) -> Optional[ast.Call]:
    """The tf.cast of a custom getter (its first argument, after self, is
    called) to a literal float16 or to a dtype its arguments carry."""
    params = [a.arg for a in fn.args.posonlyargs + fn.args.args]
    if params[:1] in (["self"], ["cls"]):
        params = params[1:]
    if not params or not _calls(fn, params[0]):
        return None
    requested = _from_arguments(fn, set(params[1:]) | _star_names(fn))
    for node in ast.walk(fn):
        if isinstance(node, ast.Call) and tf.resolve(node.func) in CASTS:
            target = _dtype_argument(node)
            if target is None:
                continue
            if tf.resolve(target) in FLOAT16 or _mentions(target, requested):
                return node
    return None


def _calls(fn: ast.AST, name: str) -> bool:
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name
        for n in ast.walk(fn)
    )


def _star_names(fn: ast.FunctionDef) -> Set[str]:
    return {a.arg for a in (fn.args.vararg, fn.args.kwarg) if a} | {
        a.arg for a in fn.args.kwonlyargs
    }


def _from_arguments(fn: ast.FunctionDef, names: Set[str]) -> Set[str]:
    """``names`` and every local assigned from them (``requested = kwargs['dtype']``)."""
    names = set(names)
    for node in ast.walk(fn):
        if isinstance(node, ast.Assign) and _mentions(node.value, names):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _mentions(node: ast.AST, names: Set[str]) -> bool:
    return any(isinstance(n, ast.Name) and n.id in names for n in ast.walk(node))


def _dtype_argument(call: ast.Call) -> Optional[ast.AST]:
    for kw in call.keywords:
        if kw.arg == "dtype":
            return kw.value
    return call.args[1] if len(call.args) > 1 else None


def _float16_scope(call: ast.Call, tf: Aliases) -> bool:
    path = tf.resolve(call.func) or ""
    if not path.endswith(".variable_scope"):
        return False
    given = {kw.arg: kw.value for kw in call.keywords}
    dtype = given.get("dtype")
    if "custom_getter" not in given or dtype is None:
        return False
    return tf.resolve(dtype) in FLOAT16 or (
        isinstance(dtype, ast.Constant) and dtype.value == "float16"
    )


def _ref_findings(tree: ast.AST) -> Iterator[Raw]:
    """Each statement that writes or reads ``x._ref`` (not ``self._ref``: a
    class of its own that defines ``_ref``), once."""
    done: Set[int] = set()
    for node in ast.walk(tree):
        if id(node) in done:
            continue
        if isinstance(node, ast.Assign) and any(_is_ref(t) for t in node.targets):
            done |= {id(n) for n in ast.walk(node)}
            yield node, "variable-ref", ast.unparse(node), {}
        elif _is_ref(node):
            yield node, "variable-ref", ast.unparse(node), {}


def _is_ref(node: ast.AST) -> bool:
    if not isinstance(node, ast.Attribute) or node.attr != "_ref":
        return False
    return not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
