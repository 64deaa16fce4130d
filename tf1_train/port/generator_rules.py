"""``raise StopIteration`` to end a generator, which Python 3.7 turned into a
RuntimeError (PEP 479: "generator raised StopIteration").

TF1-era input pipelines ended their batch generators so, written for Python
2.7 or 3.5-3.6, where the exception quietly ended the loop: bilm-tf's
``get_sentence`` stops when ``_load_random_shard()`` raises it, which ends 4
of its own tests on TensorFlow 1.15.5's Python 3.7 as on 3.11. TensorFlow
2.21 runs on Python 3.10-3.13, so every such generator raises where it used to
end. Found: ``raise StopIteration`` in a generator's own body, and a call
there of a function or method of the same file that raises it, unless a
``try`` around it catches StopIteration (or everything).
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.rules import BREAKS, _rule
from tf1_train.port.variable_rules import _own

ROW = "`raise StopIteration` in a generator"
_rule(
    "generator-stopiteration",
    BREAKS,
    "end the generator with `return` ({fix}): since Python 3.7 (PEP 479) a StopIteration "
    "raised in a generator's body, or in a function it calls, becomes RuntimeError: "
    "generator raised StopIteration, where Python 2.7 and 3.5-3.6 ended the loop",
    "leaves it unchanged and reports nothing (it reads TensorFlow names only)",
    ROW,
)
_CATCH_ALL = ("StopIteration", "Exception", "BaseException")


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
    raisers = {f.name for f in functions if any(map(_raises_stop, _own(f)))}
    for function in functions:
        body = _own(function)
        if not any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in body):
            continue
        caught = _caught(function)
        for node in body:
            if id(node) in caught:
                continue
            if _raises_stop(node):
                yield node, "generator-stopiteration", ast.unparse(node), {"fix": "here"}
            called = _called_name(node)
            if called in raisers and called != function.name:
                fix = f"in {called}(), or catch StopIteration around this call and return"
                yield node, "generator-stopiteration", ast.unparse(node.func), {"fix": fix}


def _raises_stop(node: ast.AST) -> bool:
    if not isinstance(node, ast.Raise) or node.exc is None:
        return False
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return isinstance(exc, ast.Name) and exc.id == "StopIteration"


def _called_name(node: ast.AST) -> str:
    """``f`` for ``f(...)`` and ``self.f(...)``."""
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    own = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
    return func.attr if own and func.value.id in ("self", "cls") else ""


def _caught(function: ast.AST) -> Set[int]:
    """Ids of the nodes inside a ``try`` whose handlers catch StopIteration."""
    out: Set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Try) and any(map(_catches_stop, node.handlers)):
            out.update(id(n) for b in node.body for n in ast.walk(b))
    return out


def _catches_stop(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(isinstance(n, ast.Name) and n.id in _CATCH_ALL for n in names)
