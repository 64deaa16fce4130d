"""What a TF1 code base hits on TF 2.16+: the findings of `python -m tf1_train.port
scan` (its command line and output formats: scan_cli.py).

Reads Python files with `ast` (never runs them), resolves import aliases, and
reports each construct that breaks, changes numbers, needs a rename, or is
known to work on TensorFlow 2.21 with Keras 3, with the fix, what tf_upgrade_v2
does with it and the docs/PORTING.md row that explains it. ``compat``: the
program runs unmodified through ``python -m tf1_train.compat``; ``v1``,
``v1_shapes``, ``v1_variables``: through it with that option.
"""

import ast
import pathlib
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from tf1_train.compat import _contrib, _estimator, _horovod, _tutorial_mnist
from tf1_train.compat._contrib import PACKAGE
from tf1_train.port import (
    api_names,
    checks,
    contrib_rules,  # noqa: F401 (registers its rules)
    feed_rules,
    fetch_rules,
    flag_rules,
    global_step_rules,
    native_rules,
    paths,
    private_paths,
    programs,
    python2,
    runtime_rules,
    sources,
    summary_rules,
    tensor_name_rules,
    tree_rules,
)
from tf1_train.port.guards import Guards
from tf1_train.port.names import Aliases, canonical, dotted_uses
from tf1_train.port.program import V1_GRAPH_NAMES, Program, adjust, program_facts
from tf1_train.port.rules import BREAKS, RENAME, RULES, V1, WORKS

# Rules reported at the import line too: there the import itself raises (or is the point).
IMPORT_RULES = (
    "contrib",
    "estimator",
    "horovod",
    "private-path",
    "python-layers",
    "slim-batch-norm",
    "unknown-name",
)


class Finding(NamedTuple):
    file: str
    line: int
    col: int
    rule: str
    severity: str
    construct: str
    fix: str
    tf_upgrade_v2: str
    porting_row: str


class Report(NamedTuple):
    files: List[str]
    findings: List[Finding]
    errors: List[str]


class _Parsed(NamedTuple):
    file: str
    tree: ast.AST
    aliases: Aliases
    uses: List[Tuple[ast.AST, str, str]]
    source: sources.Source  # the file as read: a notebook's cells joined


def _parse(path: pathlib.Path, v1: bool = False) -> Tuple[Optional[_Parsed], List[str]]:
    source, errors = sources.read(path)
    if source is None:
        return None, errors
    try:
        tree = ast.parse(source.text, filename=str(path))
    except SyntaxError as e:
        hint = python2.hint(e)
        return None, [f"error: {path}:{e.lineno}: does not parse as Python 3: {e.msg}{hint}"]
    except ValueError as e:
        return None, [f"error: {path}: cannot be read: {e}"]
    aliases = Aliases(tree, v1=v1)
    uses = list(dotted_uses(tree, aliases))
    return _Parsed(str(path), tree, aliases, uses, source), errors


def scan(
    args: Sequence[str],
    compat: bool = False,
    v1: bool = False,
    v1_shapes: bool = False,
    v1_variables: bool = False,
    v1_control_flow: bool = False,
) -> Report:
    """Findings for the files under ``args``; ``compat``: the program will run
    through ``python -m tf1_train.compat`` (install() and graph mode); ``v1``:
    with ``--v1`` (``import tensorflow`` is the v1 API), ``v1_shapes``: with
    ``--v1_shapes`` (TF 1.x's ``Dimension`` shapes), ``v1_variables``: with
    ``--v1_variables`` (its reference variables and control flow),
    ``v1_control_flow``: with ``--v1_control_flow`` (its control flow); each
    implies ``compat``."""
    compat = compat or v1 or v1_shapes or v1_variables or v1_control_flow
    files, errors = sources.python_files(args)
    parsed = []
    for path in files:
        result, problems = _parse(path, v1)
        errors.extend(problems)
        parsed.extend([result] if result else [])
    switches = dict(compat=compat, v1_shapes=v1_shapes, v1_variables=v1_variables,
                    v1_control_flow=v1_control_flow)  # fmt: skip
    found: Dict[int, list] = {}
    for group in programs.groups([(f.file, f.tree) for f in parsed]):
        program = _program([parsed[i] for i in group], **switches)
        found.update({i: _file_findings(parsed[i], program) for i in group})
    findings = [x for i in sorted(found) for x in found[i]]
    native = sources.native_files(args)
    program = _program(parsed, **switches) if native else None  # the code base's, as one
    for path in native:
        found, error = native_rules.file_findings(path)
        errors.extend([error] if error else [])
        findings.extend(_finding(str(path), *f, program) for f in found)
    return Report([f.file for f in parsed] + [str(p) for p in native], findings, errors)


def _program(parsed: List[_Parsed], compat: bool, v1_shapes: bool, v1_variables: bool,
             v1_control_flow: bool) -> Program:  # fmt: skip
    """The facts of one program's files (programs.py), with the runner's switches."""
    program = program_facts(
        [p for f in parsed for _, p, _ in f.uses] + [p for f in parsed for p in _imports(f)],
        graph_context=any(_enters_a_graph(f.tree) for f in parsed),
        compat_installed=compat or any(_calls_compat_install(f.tree) for f in parsed),
    )
    if compat:
        program = program._replace(eager_off=True, v1_shapes=program.v1_shapes or v1_shapes)
    if v1_variables:
        program = program._replace(v1_variables=True, v1_control_flow=True)
    if v1_control_flow:
        program = program._replace(v1_control_flow=True)
    named = any(global_step_rules.names_a_step(f.tree, f.aliases.resolve) for f in parsed)
    collected = any(global_step_rules.collects_a_step(f.tree, f.aliases.resolve) for f in parsed)
    program = program._replace(named_step=named and not collected)
    trees = [(f.tree, f.aliases.resolve) for f in parsed]
    program = program._replace(variable_attributes=feed_rules.variable_attributes(trees))
    program = program._replace(updates=fetch_rules.updates([f.tree for f in parsed]))
    program = program._replace(variable_names=tensor_name_rules.variable_names(trees))
    every_path = [p for f in parsed for _, p, _ in f.uses]
    program = program._replace(merged_fetched=summary_rules.fetches_merged(trees, every_path))
    program = program._replace(defined_flags=flag_rules.defined_flags([f.tree for f in parsed]))
    seeded = any(p in runtime_rules.GRAPH_SEEDS for p in every_path)
    return program._replace(graph_seeded=seeded)


def _calls_compat_install(tree: ast.AST) -> bool:
    """Whether a file calls tf1_train.compat.install(), however it imported it:
    the fix the scan gives for legacy layers, so a rescan says they work."""
    ours = Aliases(tree, roots=("tf1_train",))
    return any(
        isinstance(n, ast.Call) and ours.resolve(n.func) == "tf1_train.compat.install"
        for n in ast.walk(tree)
    )


def _enters_a_graph(tree: ast.AST) -> bool:
    return any(isinstance(n, ast.Attribute) and n.attr == "as_default" for n in ast.walk(tree))


def _imports(parsed: _Parsed) -> List[str]:
    return [p for _, p in _import_paths(parsed.tree)]


def _import_paths(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node, canonical(alias.name)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                yield node, canonical(f"{node.module}.{alias.name}")


def _file_findings(parsed: _Parsed, program: Program) -> List[Finding]:
    calls = {id(n.func) for n in ast.walk(parsed.tree) if isinstance(n, ast.Call)}
    raw, guards = [], Guards(parsed.tree)
    for node, path in _import_paths(parsed.tree):
        for key, fills in _import_findings(path, program):
            if key.startswith(IMPORT_RULES):
                note = guards.note(node, key, path, is_import=True)
                fills = _kept(path, {**fills, "guarded": note} if note else fills, program)
                raw.append((node, key, f"import {path}", fills))
    for node, path, text in parsed.uses:
        for key, fills in _path_findings(path, program, id(node) in calls):
            fills = _kept(path, fills, program)
            shown = text if text.split(".", 1)[1:] == path.split(".", 1)[1:] else f"{text} = {path}"
            note = guards.note(node, key, shown, is_import=False)
            raw.append((node, key, shown, {**fills, "guarded": note} if note else fills))
    raw.extend(
        tree_rules.findings(parsed.tree, parsed.aliases.resolve, parsed.uses, parsed.file, program)
    )
    found = _deduplicated(guards.unreached([_finding(parsed.file, *r, program) for r in raw]))
    return [_located(f, parsed.source) for f in found]


def _located(finding: Finding, source: sources.Source) -> Finding:
    """A notebook's finding at its cell (``nb.ipynb:cell_3``) and its line there."""
    file, line = sources.location(source, finding.line)
    return finding._replace(file=file, line=line)


def _import_findings(path: str, program: Program):
    """What an import path finds; a name under tf.contrib whose use has a
    rule of its own (``from tensorflow.contrib.rnn import GRUCell``:
    rnn-cell) is a contrib import too, since that line raises first."""
    found = list(_path_findings(path, program, False))
    if path.startswith(PACKAGE + ".") and not any(k.startswith(IMPORT_RULES) for k, _ in found):
        found.append(("contrib", {"contrib": paths.submodule_fix(path)}))
    return found


def _kept(path: str, fills: Dict[str, str], program: Program):
    """The fill-ins of a finding on a tf.contrib path once the program runs
    after install(): marked as working exactly when the module install()
    serves has that name (`crf = tf.contrib.crf`, `tf.contrib.layers.conv2d`
    with tf-slim installed), as breaking otherwise, whatever the rule."""
    if program.compat_installed and _tutorial_mnist.served(path):
        return {**fills, "placeholder": path}
    verdict = _estimator.scan_verdict(path) if program.compat_installed else None
    if verdict:
        return {**fills, "estimator_works" if verdict[0] else "estimator_breaks": verdict[1]}
    if not program.compat_installed or not path.startswith(PACKAGE):
        return fills
    if path == PACKAGE or _placeholder(path):  # `import tensorflow.contrib as tc`
        return {**fills, "placeholder": path}
    return {**fills, "contrib_gone": path}


def _placeholder(path: str) -> bool:
    """A tf.contrib path that works after tf1_train.compat.install(): a
    submodule it makes importable, or a name that submodule keeps (any
    other name raises AttributeError, ``from module import name`` ImportError)."""
    if not path.startswith(PACKAGE + "."):
        return False
    submodule, *rest = path[len(PACKAGE) + 1 :].split(".")
    if not _contrib.importable(submodule):
        return False
    return not rest or _contrib.kept(submodule, *rest[:4])


def _what(construct: str, path: str) -> str:
    if construct.startswith("import "):
        return "the import"
    return "the module" if path.count(".") == 2 else "it"


def _placeholder_note(path: str) -> str:
    """What a program gets from a tf.contrib submodule (or the tutorials'
    MNIST modules) after install()."""
    if path.startswith(_tutorial_mnist.PACKAGE):
        return _tutorial_mnist.DESCRIBE
    if path == PACKAGE:
        return "the package; each submodule it is asked for works as reported on its own line"
    return _contrib.describe(path[len(PACKAGE) + 1 :].split(".")[0])


def _path_findings(path: str, program: Program, is_call: bool):
    """(rule key, fill-ins) for what a resolved API path is and what it does in this program."""
    found = checks.path_rule(path, program, is_call)
    if found:
        yield found
    supervisor = runtime_rules.path_rule(path, program.eager_off)
    if supervisor:
        yield supervisor
    hit = paths.match(path)
    if supervisor and hit and hit[0] == "supervisor" and path.startswith(V1):
        return  # not also `works` on the same line
    old_new = paths.renamed(path)
    if hit:
        key, v1_only = hit
        fills = {"contrib": paths.submodule_fix(path), "name": path.rsplit(".", 1)[-1]}
        fills["rename"] = old_new[1] if old_new else "see tf.io.gfile / tf.random"
        if v1_only and not path.startswith(V1):
            fills["v1"] = "tf.compat.v1." + path[len("tensorflow.") :]
        elif key == "rnn-cell" and program.compat_installed and path.startswith(TF2_RNN_CELL):
            # install() serves the v1 API's cells; TF 2's tf.nn has no rnn_cell (AttributeError)
            fills["v1"] = "tf.compat.v1." + path[len("tensorflow.") :]
        elif key == "horovod" and _horovod.served(path):
            fills["installed_works"] = _horovod.SERVED
        yield key, fills
    elif old_new:
        yield _rename_key(old_new[0]), {"rename": old_new[1]}
    elif not found:
        gone = api_names.missing(path)
        if gone:
            yield "unknown-name", {"old": api_names.old_name_fix(gone)}
        yield from private_paths.findings(path, program.compat_installed)


TF2_RNN_CELL = "tensorflow.nn.rnn_cell."


def _rename_key(old: str) -> str:
    if old.startswith("tf.train.") and old.endswith("Optimizer"):
        return "v1-optimizer"
    if old[len("tf.") :] in V1_GRAPH_NAMES:
        return "v1-graph-api"
    return "v1-rename"


def _finding(file, node, key, construct, fills, program) -> Finding:
    rule = RULES[key]
    severity, note = adjust(key, rule.severity, program)
    fix, upgrade = rule.fix, rule.upgrade
    for name, value in fills.items():
        fix, upgrade = (t.replace("{" + name + "}", value) for t in (fix, upgrade))
    if "v1" in fills:  # as written it raises; the v1 name runs as the rule says
        then = f"works ({note})" if severity == WORKS and note else fix
        severity, fix, note = RENAME, f"{fills['v1']}; then: {then}", ""
    if "contrib_gone" in fills:
        severity, note = BREAKS, ""
    if "guarded" in fills:
        severity, note = WORKS, fills["guarded"]
    if "works" in fills:
        severity, note = WORKS, fills["works"]
    if "installed_works" in fills and program.compat_installed:
        severity, note = WORKS, fills["installed_works"]
    if "placeholder" in fills:
        severity, note = (
            WORKS,
            f"{_what(construct, fills['placeholder'])} works after tf1_train.compat.install(): "
            + _placeholder_note(fills["placeholder"]),
        )
    if "estimator_works" in fills:
        severity, note = (
            WORKS,
            "works after tf1_train.compat.install(): " + fills["estimator_works"],
        )
    if "estimator_breaks" in fills:
        severity, note = BREAKS, fills["estimator_breaks"]
    if note:
        fix = f"{note}; {fix}"
    line, col = node.lineno, node.col_offset + 1
    return Finding(file, line, col, key, severity, construct, fix, upgrade, rule.row)


def _deduplicated(findings) -> List[Finding]:
    """Sorted; `works` and eager-mode findings once per file and rule, the rest all kept."""
    seen, kept = set(), []
    for f in sorted(findings, key=lambda f: (f.line, f.col, f.rule)):
        once = f.severity == WORKS or f.rule == "eager-placeholder"
        if once and f.rule in seen:
            continue
        seen.add(f.rule)
        kept.append(f)
    return kept
