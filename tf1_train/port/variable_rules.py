"""``v += x`` on a variable, which TF 1.x read as ``v = v + x`` and TF 2 refuses.

A TF 1.x variable was a reference variable, whose ``__iadd__`` returned
``self + other``: a new tensor bound to the name, the variable itself
unchanged (PointNet's ``biases += tf.constant(np.eye(K).flatten())`` in its
transform nets, copied into DGCNN, Frustum PointNets and PointNet++). TF 2's
resource variables raise RuntimeError on ``+=``, ``-=``, ``*=``, ``/=`` and
``**=`` (``//=`` and ``%=`` never had an in-place form: they make a tensor on
both). ``tf_upgrade_v2`` leaves the line as it is. The fix that keeps TF 1.x's
numbers is the plain assignment; ``v.assign_add(x)`` would change the variable,
which the program never did. tests/test_port_scan_variable_iadd.py runs each case.

Such a variable as a condition: ``ema_var if ema_var else var`` after
``ema_var = ema.average(var)`` (the EMA custom getter of MixMatch, FixMatch
and many GANs). TF 1.x's reference variable had no ``__bool__`` and was true;
a resource variable reads its value, which raises in a v1 graph.
"""

import ast
from typing import Dict, Iterator, List, Set, Tuple

from tf1_train.port.names import chain_root, imported_names
from tf1_train.port.rules import BREAKS, _rule

ROW_IADD = "`v += x` on a variable"
IN_PLACE = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**"}
# What made a TF 1.x (reference) variable; under --v1_variables they still do.
V1_MAKERS = tuple(
    p + n
    for p in ("tensorflow.compat.v1.", "tensorflow.")
    for n in ("get_variable", "get_local_variable", "Variable")
) + tuple(
    p + n
    for p in ("tensorflow.contrib.framework.", "tensorflow.contrib.slim.", "tf_slim.")
    for n in ("variable", "model_variable", "local_variable", "global_variable")
)
V2_MAKER = "tensorflow.Variable"  # TF 2's tf.Variable: a resource variable under any switch
UNEDITED = "unedited: python -m tf1_train.compat --v1_variables (TF 1.x's reference variables)"
FIX = (
    "{name} = {name} {op} ... (what TF 1.x did: a new tensor, the variable keeps its "
    "value; not {name}.assign_add, which would change the variable); "
)
NOTHING = "leaves it unchanged and reports nothing"
_rule("variable-iadd", BREAKS, FIX + UNEDITED, NOTHING, ROW_IADD)
_rule(
    "variable-iadd-v2",
    BREAKS,
    FIX + "unedited: python -m tf1_train.compat --v1 --v1_variables (tf.Variable is then "
    "TF 1.x's; TF 2's tf.Variable is a resource variable under any switch)",
    NOTHING,
    ROW_IADD,
)


ROW_TRUTH = "a variable as a condition"
_rule(
    "variable-truth",
    BREAKS,
    "`{name} is not None` (what TF 1.x's test meant: its reference variables were true as any "
    "object, and ExponentialMovingAverage.average() gives a variable or None): a resource "
    "variable as a condition reads its value, which raises OperatorNotAllowedInGraphError "
    "in a v1 graph (eagerly: the value's truth); unedited: tf1_train.compat.install()",
    NOTHING,
    ROW_TRUTH,
)


def findings(tree: ast.AST, resolve) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Each scope's first in-place operator on a name it binds only to a new
    variable (a maker's call, or a call of this file's function that returns one),
    and each test of such a name or of a moving average's ``average(var)``."""
    helpers = _helpers(tree, resolve)
    scopes = [tree] + [n for n in ast.walk(tree) if isinstance(n, _FUNCTIONS)]
    yield from _truth_findings(tree, scopes, resolve, helpers)
    for scope in scopes:
        latest: Dict[str, str] = {}  # name -> the rule key of its binding so far ('' if none)
        for node in sorted(_own(scope), key=_position):
            for name, key in _binds(node, resolve, helpers):
                latest[name] = key
            if not (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)):
                continue
            name, key = node.target.id, latest.get(node.target.id, "")
            latest[name] = ""  # after it, the name holds a tensor (TF 1.x) or it raised
            if key and type(node.op) in IN_PLACE:
                fills = {"name": name, "op": IN_PLACE[type(node.op)]}
                yield node, key, ast.unparse(node), fills


def _binds(node: ast.AST, resolve, helpers) -> Iterator[Tuple[str, str]]:
    """(name, rule key of a new variable, else '') for what ``node`` binds:
    the binding an in-place operator below it meets (bilm's ``train_perplexity
    = tf.get_variable(...)``, then ``+=`` in its tower loop, then rebound to
    a tensor further down)."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            lone = isinstance(target, ast.Name) and len(node.targets) == 1
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    yield name.id, _maker(node.value, resolve, helpers) if lone else ""
    targets = []
    if isinstance(node, (ast.For, ast.AsyncFor, ast.NamedExpr, ast.comprehension)):
        targets = [node.target]
    elif isinstance(node, (ast.With, ast.AsyncWith)):
        targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
    for name in (n for t in targets for n in ast.walk(t)):
        if isinstance(name, ast.Name):
            yield name.id, ""


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def _truth_findings(tree: ast.AST, scopes, resolve, helpers) -> Iterator[Tuple]:
    imported = imported_names(tree)

    def maker(call: ast.AST, resolve, helpers) -> str:
        return _maker(call, resolve, helpers) or _average(call, imported)

    for scope in scopes:
        nodes = _own(scope)
        made = _variables(nodes, resolve, helpers, maker)
        seen: Set[int] = set()
        for node in sorted(nodes, key=_position):
            for test, construct in _conditions(node):
                if isinstance(test, ast.Name) and test.id in made and id(test) not in seen:
                    seen.add(id(test))
                    yield test, "variable-truth", construct, {"name": test.id}


def _average(call: ast.AST, imported: Set[str]) -> str:
    """'average' for ``<object>.average(v)``: ExponentialMovingAverage's, which
    gives v's average variable or None (not ``np.average``: a module's)."""
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)):
        return ""
    plain = chain_root(call.func.value) not in imported
    return "average" if call.func.attr == "average" and len(call.args) == 1 and plain else ""


def _conditions(node: ast.AST) -> Iterator[Tuple[ast.AST, str]]:
    """What ``node`` tests for truth, and the construct to name (a ``BoolOp``'s
    last value is tested only where the whole is a condition)."""
    if isinstance(node, ast.IfExp):
        yield from ((t, ast.unparse(node)) for t in _tested(node.test))
    elif isinstance(node, ast.BoolOp):
        yield from ((t, ast.unparse(node)) for t in node.values[:-1])
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        yield from ((t, ast.unparse(node)) for t in _tested(node.operand))
    elif isinstance(node, (ast.If, ast.While, ast.Assert)):
        word = {ast.If: "if", ast.While: "while", ast.Assert: "assert"}[type(node)]
        construct = f"{word} {ast.unparse(node.test)}" + (":" if word != "assert" else "")
        yield from ((t, construct) for t in _tested(node.test))


def _tested(test: ast.AST) -> Iterator[ast.AST]:
    yield test
    if isinstance(test, ast.BoolOp):
        for value in test.values:
            yield from _tested(value)


def _own(scope: ast.AST) -> List[ast.AST]:
    """The nodes of ``scope`` outside its nested functions and classes."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _FUNCTIONS + (ast.ClassDef,)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _position(node: ast.AST) -> Tuple[int, int]:
    return getattr(node, "lineno", 0), getattr(node, "col_offset", 0)


def _maker(call: ast.AST, resolve, helpers: Dict[str, str]) -> str:
    """The rule key for a call that makes a resource variable, else ''."""
    if not isinstance(call, ast.Call):
        return ""
    if any(kw.arg == "use_resource" and _false(kw.value) for kw in call.keywords):
        return ""  # a reference variable on TF 2.21 too
    if isinstance(call.func, ast.Name) and call.func.id in helpers:
        return helpers[call.func.id]
    path = resolve(call.func)
    if path == V2_MAKER:
        return "variable-iadd-v2"
    return "variable-iadd" if path in V1_MAKERS else ""


def _false(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is False


def _variables(
    nodes: List[ast.AST], resolve, helpers: Dict[str, str], maker=None
) -> Dict[str, str]:
    """Names the scope binds, every time, to a new variable: name -> rule key."""
    maker = maker or _maker
    bound: Dict[str, List[str]] = {}
    skip = set()  # the target of a lone `name = ...` (seen there) and of `name += ...`
    for node in nodes:
        target = node.targets[0] if isinstance(node, ast.Assign) else None
        if isinstance(target, ast.Name) and len(node.targets) == 1:
            bound.setdefault(target.id, []).append(maker(node.value, resolve, helpers))
            skip.add(id(target))
        elif isinstance(node, ast.AugAssign):
            skip.add(id(node.target))
    for node in nodes:
        for name in _other_bindings(node) if id(node) not in skip else ():
            bound.setdefault(name, []).append("")
    return {n: keys[0] for n, keys in bound.items() if keys[0] and len(set(keys)) == 1}


def _other_bindings(node: ast.AST) -> Iterator[str]:
    """Names ``node`` binds otherwise: they may hold anything."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
        yield node.id  # any target but a lone `name = call(...)`, also `a = b = ...`
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        yield from node.names
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        yield from ((a.asname or a.name).split(".")[0] for a in node.names)
    elif isinstance(node, ast.ExceptHandler) and node.name:
        yield node.name
    elif isinstance(node, _FUNCTIONS[:2] + (ast.ClassDef,)):
        yield node.name


def _helpers(tree: ast.AST, resolve) -> Dict[str, str]:
    """This file's top-level functions whose every return is a new variable
    (PointNet's ``_variable_on_cpu``), to a fixed point: helper of a helper."""
    bodies = {f.name: _own(f) for f in ast.iter_child_nodes(tree) if isinstance(f, ast.FunctionDef)}
    helpers: Dict[str, str] = {}
    while True:
        found = dict(helpers)
        for name, nodes in bodies.items():
            made = _variables(nodes, resolve, helpers)
            returns = [n.value for n in nodes if isinstance(n, ast.Return)]
            keys = {_returned(r, made, resolve, helpers) for r in returns}
            if returns and len(keys) == 1 and "" not in keys:
                found[name] = keys.pop()
        if found == helpers:
            return helpers
        helpers = found


def _returned(value, made: Dict[str, str], resolve, helpers: Dict[str, str]) -> str:
    if isinstance(value, ast.Name):
        return made.get(value.id, "")
    return _maker(value, resolve, helpers)  # '' for a bare `return` (None)
