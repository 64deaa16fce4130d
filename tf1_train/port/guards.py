"""Where a program already protects itself from what a finding raises.

Code written across TensorFlow versions probes before it leans:
``try: import tensorflow.contrib.slim as slim / except ImportError: ...``;
``try: image_summary = tf.image_summary / except: image_summary =
tf.summary.image`` (carpedm20's DCGAN, and the many projects copied from
it); ``if "concat_v2" in dir(tf): ... tf.concat_v2 ...``; ``if
LooseVersion(tf.VERSION) >= LooseVersion('0.12.0'):`` (version_tests.py). On TensorFlow
2.21 such a line raises, or never runs, and the program takes the other
branch: reporting it as ``breaks`` would send a porter to fix code that
already copes. The other branch is scanned like any code (a TF 2
``tf.summary.image`` there still changes numbers).
"""

from __future__ import annotations

import ast
from typing import Dict, List, Optional, Sequence, Tuple

from tf1_train.port.version_tests import TF_VERSION, VersionTests

# Rules whose construct raises AttributeError when it is reached (a name
# TensorFlow 2.21 lacks both ways, anything below tf.contrib or tf.estimator).
ATTRIBUTE_RULES = ("unknown-name", "contrib", "estimator", "private-path")
IMPORTS = ("ImportError", "ModuleNotFoundError")
BROAD = ("Exception", "BaseException")
CAUGHT = "guarded by try/except"  # a line that raises, caught
IMPORT_GUARD = CAUGHT + " ImportError"
# Severities whose line raises when it runs: a TF1 name outside tf.compat.v1
# (`rename`) is an AttributeError on `import tensorflow as tf`.
RAISE = ("breaks", "rename")


class Guards:
    """Notes for the nodes of one file's tree that sit in a ``try`` body
    whose handler carries on, or under an ``if hasattr(...)`` / ``"name" in
    dir(...)`` test of the name they use."""

    def __init__(self, tree: ast.AST):
        self._caught: Dict[int, frozenset] = {}  # node id -> exception names caught
        self._probed: Dict[int, set] = {}  # node id -> names an enclosing `if` probes
        self._fallbacks: List[Tuple[set, set, str]] = []  # (body lines, handler lines, caught)
        # (import line, names it binds, lines after it in its try body)
        self._imports: List[Tuple[int, set, set]] = []
        self._skipped: Dict[int, str] = {}  # line -> why it does not run on TensorFlow 2.21
        versions = VersionTests(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Try):
                self._fallbacks += _fallbacks(node)
                caught = frozenset(e for h in node.handlers for e in _carries_on(h))
                if caught:
                    for inner in (n for b in node.body for n in ast.walk(b)):
                        self._caught[id(inner)] = self._caught.get(id(inner), frozenset()) | caught
                if caught & set(IMPORTS + BROAD):
                    self._after_imports(node.body)
            elif isinstance(node, ast.If):
                name = _probed_name(node.test)
                if name:
                    for inner in (n for b in node.body for n in ast.walk(b)):
                        self._probed.setdefault(id(inner), set()).add(name)
                self._version_branch(node, versions.outcome(node.test))

    def _version_branch(self, node: ast.If, outcome: Optional[Tuple[bool, bool]]) -> None:
        """The lines of the branch a version test skips on TensorFlow 2.21."""
        if outcome is None:
            return
        skipped = node.orelse if outcome[0] else node.body
        why = f"guarded by the version test `{ast.unparse(node.test)}`: on TensorFlow "
        why += f"{TF_VERSION} this branch does not run"
        if outcome[0] != outcome[1]:
            why += " (TensorFlow 1.15 ran it: the other branch runs instead)"
        for line in _lines(skipped) if skipped else ():
            self._skipped.setdefault(line, why)

    def _after_imports(self, body) -> None:
        """Each import in a ``try`` body whose handler catches ImportError,
        with the lines after it there: if the import raises, they never run
        (OpenSeq2Seq's ``import horovod.tensorflow as hvd`` then ``hvd.init()``)."""
        for i, statement in enumerate(body):
            if isinstance(statement, (ast.Import, ast.ImportFrom)) and body[i + 1 :]:
                names = {(a.asname or a.name).split(".")[0] for a in statement.names}
                self._imports.append((statement.lineno, names, _lines(body[i + 1 :])))

    def _after_failed_import(self, finding, failed: set) -> bool:
        root = finding.construct.split(" = ", 1)[0].split(".", 1)[0]
        return any(
            line in failed and finding.line in after and root in names
            for line, names, after in self._imports
        )

    def unreached(self, findings: Sequence) -> List:
        """``findings`` (with ``line``, ``rule``, ``severity``), those in a
        fallback made ``works`` when nothing in its ``try`` body breaks: on
        TensorFlow 2.21 the body does not raise. An ``except AttributeError``
        fallback (``try: tf.nn.conv2d_transpose(...) except AttributeError:
        tf.nn.deconv2d(...)``, "for versions before 0.7"), or an ``except
        ImportError`` one after imports that still import (StyleGAN's ``try:
        from tensorflow.python.ops import nccl_ops`` / ``except: import
        tensorflow.contrib.nccl as nccl_ops``, for TensorFlow before 1.13).
        Those in the branch a version test skips on 2.21 are ``works`` first."""
        findings = [
            f._replace(severity="works", fix=f"{self._skipped[f.line]}; {f.fix}")
            if f.line in self._skipped and f.severity != "works"
            else f
            for f in findings
        ]
        raising = {f.line for f in findings if f.severity in RAISE or f.fix.startswith(CAUGHT)}
        failed = {f.line for f in findings if f.fix.startswith(IMPORT_GUARD)}
        out = []
        for f in findings:
            if f.severity in RAISE and self._after_failed_import(f, failed):
                note = f"{IMPORT_GUARD}: it runs only if the import above it succeeds"
                f = f._replace(severity="works", fix=f"{note}; {f.fix}")
            fallback = next(((b, k) for b, h, k in self._fallbacks if f.line in h), None)
            if (
                fallback is not None
                and f.severity == "breaks"
                and f.rule.startswith(ATTRIBUTE_RULES)
                and not raising & fallback[0]
            ):
                note = f"an except {fallback[1]} fallback: on TensorFlow 2.21 its try body "
                f = f._replace(severity="works", fix=f"{note}does not raise; {f.fix}")
            out.append(f)
        return out

    def note(self, node: ast.AST, key: str, construct: str, is_import: bool) -> Optional[str]:
        """Why the finding ``key`` on ``node`` does not stop the program, or None."""
        caught = self._caught.get(id(node), frozenset())
        broad = bool(caught & set(BROAD))
        if is_import and (broad or caught & set(IMPORTS)):
            return f"{IMPORT_GUARD}: the program goes on without it"
        if is_import or not key.startswith(ATTRIBUTE_RULES):
            return None
        if broad or "AttributeError" in caught:
            return CAUGHT + ": on TensorFlow 2.21 the except branch runs instead"
        name = construct.split(" = ", 1)[0].rsplit(".", 1)[-1]
        if name in self._probed.get(id(node), ()):
            return f"guarded by a test for {name!r}: on TensorFlow 2.21 this branch does not run"
        return None


def _lines(statements) -> set:
    return set(range(statements[0].lineno, statements[-1].end_lineno + 1))


def _fallbacks(node: ast.Try) -> List[Tuple[set, set, str]]:
    """(body lines, handler lines, what it catches) of each ``except
    AttributeError`` handler, and of each handler catching ImportError (or
    everything) after a body of imports none of which is below
    ``tensorflow.contrib`` (gone on 2.21, whatever the program imports next)."""
    out = []
    for h in node.handlers:
        caught = _carries_on(h)
        if caught == ("AttributeError",):
            out.append((_lines(node.body), _lines(h.body), "AttributeError"))
        elif set(caught) & set(IMPORTS + BROAD) and import_fallback_body(node):
            out.append((_lines(node.body), _lines(h.body), "ImportError"))
    return out


def import_fallback_body(node: ast.Try) -> bool:
    """Whether ``node``'s body only imports, nothing below ``tensorflow.contrib``:
    taken to import on TensorFlow 2.21 (a private module 2.21 lacks is still a
    finding in the body, which keeps the handler's findings as they are), so
    its handlers' imports do not run."""
    if not all(isinstance(b, (ast.Import, ast.ImportFrom)) for b in node.body):
        return False
    names = [a.name for b in node.body if isinstance(b, ast.Import) for a in b.names]
    names += [b.module or "" for b in node.body if isinstance(b, ast.ImportFrom)]
    return not any(n.startswith("tensorflow.contrib") for n in names)


def _carries_on(handler: ast.ExceptHandler) -> tuple:
    """The exception names a handler that does not re-raise catches
    (a bare ``except:`` catches everything: BaseException)."""
    if any(isinstance(n, ast.Raise) for n in ast.walk(handler)):
        return ()
    if handler.type is None:
        return ("BaseException",)
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(ast.unparse(n).rsplit(".", 1)[-1] for n in names)


def _probed_name(test: ast.expr) -> Optional[str]:
    """``hasattr(x, "name")`` or ``"name" in dir(x)``: the name; else None."""
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "hasattr"
        and len(test.args) == 2
        and isinstance(test.args[1], ast.Constant)
        and isinstance(test.args[1].value, str)
    ):
        return test.args[1].value
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Constant)
        and isinstance(test.left.value, str)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In)
        and isinstance(test.comparators[0], ast.Call)
        and isinstance(test.comparators[0].func, ast.Name)
        and test.comparators[0].func.id == "dir"
    ):
        return test.left.value
    return None
