"""Where a program reads ``.value`` from a shape's element (TF 1.x's
``Dimension``; TF 2's shapes hold ints or None), or tests its printed form
against TF 1.x's ``'?'`` (``str(x.shape[0]) != '?'``): ``x.shape[i].value``,
``shape[i].value`` after ``shape = x.get_shape()``, ``d.value`` for ``d``
walking a shape, ``p.value`` in ``map(lambda p: ..., shape)``
(lengstrom/fast-style-transfer's ``map(lambda i: i.value, layer.get_shape())``).

A name counts as a shape in the function that binds it (and in the functions
nested in it that do not bind it again), so ``s = x.get_shape().as_list()``
in one function does not hide ``s = x.shape`` in another (FixMatch's
``smart_shape`` and ``interleave`` in one file); ``s, t = x.shape,
tf.shape(x)`` binds ``s`` to a shape.
"""

import ast
from typing import Dict, Iterator, List, Set

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def dimension_values(tree: ast.AST) -> Iterator[ast.Attribute]:
    """Each ``.value`` read from a shape's element, scope by scope."""
    yield from _scope(tree, set())


def _scope(
    scope: ast.AST, outer: Set[str], mapped: Set[str] = frozenset()
) -> Iterator[ast.Attribute]:
    nodes = _own(scope)
    bound = _shape_names(nodes, outer)
    over: Dict[str, bool] = {}  # loop variable: whether every loop binding it walks a shape
    loops = [n for n in nodes if isinstance(n, (ast.For, ast.comprehension))]
    for n in loops:
        if isinstance(n.target, ast.Name):
            over[n.target.id] = over.get(n.target.id, True) and _is_shape(n.iter, bound)
    looped = {id(n.target) for n in loops}
    rebound = {n.id for n in nodes if isinstance(n, ast.Name)
               and isinstance(n.ctx, ast.Store) and id(n) not in looped}  # fmt: skip
    dims = {name for name, shape in over.items() if shape and name not in rebound} | mapped
    over_shape = _lambdas_mapped_over_shapes(nodes, bound)
    in_comprehension = _comprehension_values(nodes, bound)
    for node in nodes:
        if isinstance(node, _SCOPES):
            yield from _scope(node, bound - _parameters(node), over_shape.get(id(node), set()))
        if isinstance(node, ast.Compare) and _unknown_test(node, bound, dims):
            yield node
        if not (isinstance(node, ast.Attribute) and node.attr == "value"):
            continue
        sub = node.value
        if isinstance(sub, ast.Subscript) and not isinstance(sub.slice, ast.Slice):
            if _is_shape(sub.value, bound):
                yield node
        elif isinstance(sub, ast.Name) and (sub.id in dims or id(node) in in_comprehension):
            yield node


def _comprehension_values(nodes: List[ast.AST], bound: set) -> Set[int]:
    """ids of ``d.value`` in a comprehension whose ``d`` walks a shape: the
    comprehension's own name, whatever the function binds to ``d`` elsewhere
    (the inception-score snippet's ``for j, s in enumerate(shape)`` beside it)."""
    out = set()
    for node in nodes:
        if not isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp, ast.DictComp)):
            continue
        names = {g.target.id for g in node.generators
                 if isinstance(g.target, ast.Name) and _is_shape(g.iter, bound)}  # fmt: skip
        for n in ast.walk(node):
            if isinstance(n, ast.Attribute) and n.attr == "value":
                if isinstance(n.value, ast.Name) and n.value.id in names:
                    out.add(id(n))
    return out


def _unknown_test(node: ast.Compare, bound: set, dims: set) -> bool:
    """``str(shape[i]) != '?'`` (openai/glow's ``int_shape``): TF 1.x printed an
    unknown Dimension as '?'; TF 2's None prints 'None', so the test flips."""
    operands = [node.left, *node.comparators]
    if not any(isinstance(o, ast.Constant) and o.value == "?" for o in operands):
        return False
    for o in operands:
        if isinstance(o, ast.Call) and isinstance(o.func, ast.Name) and o.func.id == "str":
            arg = o.args[0] if len(o.args) == 1 else None
            if isinstance(arg, ast.Subscript) and not isinstance(arg.slice, ast.Slice):
                if _is_shape(arg.value, bound):
                    return True
            if isinstance(arg, ast.Name) and arg.id in dims:
                return True
    return False


def _lambdas_mapped_over_shapes(nodes: List[ast.AST], bound: set) -> Dict[int, Set[str]]:
    """For each `map(lambda d: ..., shape)`: the lambda's id and its one parameter's name."""
    out = {}
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id != "map" or len(node.args) != 2:
            continue
        function, iterable = node.args
        if isinstance(function, ast.Lambda) and _is_shape(iterable, bound):
            if len(function.args.args) == 1:
                out[id(function)] = {function.args.args[0].arg}
    return out


def _own(scope: ast.AST) -> List[ast.AST]:
    """The nodes of ``scope``: nested functions themselves, not their insides
    (a class body is walked, as Python resolves its names in the enclosing one)."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _parameters(function: ast.AST) -> Set[str]:
    args = function.args
    every = args.posonlyargs + args.args + args.kwonlyargs + [args.vararg, args.kwarg]
    return {a.arg for a in every if a is not None}


def _is_shape(node: ast.AST, bound: set) -> bool:
    """`x.get_shape()`, `x.shape`, a name only ever bound to one of them, or a slice of these:
    what TF 2 indexes and iterates as ints."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        node = node.value
    if isinstance(node, ast.Name):
        return node.id in bound
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return node.func.attr == "get_shape" and not node.args
    return isinstance(node, ast.Attribute) and node.attr == "shape"


def _shape_names(nodes: List[ast.AST], outer: Set[str]) -> Set[str]:
    """Names every assignment in the scope binds to a shape (`shape = x.get_shape()`,
    `s, t = x.shape, tf.shape(x)`), and the enclosing scope's it leaves alone."""
    bound: Dict[str, bool] = {}
    seen = set()  # the Name nodes of the targets below
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for name, value in _pairs(target, node.value):
                    if not _walks_itself(name, value):  # `shape = [s.value for s in shape]`
                        bound[name] = bound.get(name, True) and _is_shape(value, set())
                seen |= {id(n) for n in ast.walk(target)}
    for node in nodes:  # any other binding: `for s in ...`, `s += ...`, `with ... as s`
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and id(node) not in seen:
            bound[node.id] = False
    kept = {name for name in outer if name not in bound}
    return kept | {name for name, shape in bound.items() if shape}


def _walks_itself(name: str, value: ast.AST) -> bool:
    """A comprehension over ``name`` bound to ``name`` again (the inception-score
    snippet's ``shape = [s.value for s in shape]``): it walks the shape first."""
    if not isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        return False
    first = value.generators[0].iter
    return isinstance(first, ast.Name) and first.id == name


def _pairs(target: ast.AST, value: ast.AST):
    """(name, the value it gets) for `name = value` and `a, b = v, w`; a name
    unpacked from anything else gets None."""
    if isinstance(target, ast.Name):
        yield target.id, value
    elif isinstance(target, (ast.Tuple, ast.List)):
        values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
        if values is not None and len(values) == len(target.elts):
            for t, v in zip(target.elts, values):
                yield from _pairs(t, v)
        else:
            for n in ast.walk(target):
                if isinstance(n, ast.Name):
                    yield n.id, None
