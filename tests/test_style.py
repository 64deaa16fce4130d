"""House rules that keep the code base readable, checked like behaviour."""

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tf1_train"


def test_ruff_lint_and_format_are_clean():
    for args in (["check"], ["format", "--check"]):
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "ruff",
                *args,
                "tf1_train",
                "tests",
                "scripts",
                "examples",
                "setup.py",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stdout + out.stderr


def test_flags_are_read_only_in_main():
    # Library code takes arguments; FLAGS only in main.py (PORTING.md P20). Read
    # in code: the scanner's texts name TF 1.x programs' FLAGS (flag_rules.py).
    for path in PACKAGE.rglob("*.py"):
        if path.name == "main.py":
            continue
        text = path.read_text()
        names = {n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name)}
        names |= {n.attr for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Attribute)}
        assert "FLAGS" not in names and "absl import flags" not in text, path


def _dotted_names(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            parts = []
            while isinstance(node, ast.Attribute):
                parts.append(node.attr)
                node = node.value
            if isinstance(node, ast.Name):
                parts.append(node.id)
            yield ".".join(reversed(parts))


def test_no_api_that_breaks_on_keras3_or_mixes_modes():
    # PORTING.md P1, P15, P18: code, not comments, is checked.
    banned = ("disable_v2_behavior", "v1.layers", "contrib", "estimator")
    # tf1_train/compat/ installs its layers as tf.compat.v1.layers and
    # tf1_train/port/ names the legacy APIs it reports: both must spell them.
    exempt = (PACKAGE / "compat", PACKAGE / "port")
    for path in PACKAGE.rglob("*.py"):
        if any(d in path.parents for d in exempt):
            continue
        for name in _dotted_names(ast.parse(path.read_text())):
            assert not any(word in name for word in banned), f"{path}: {name}"


def test_only_the_tf1_entry_point_leaves_eager_mode():
    users = [
        p.relative_to(ROOT).as_posix()
        for p in PACKAGE.rglob("*.py")
        if "disable_eager_execution()" in p.read_text()
    ]
    # python -m tf1_train.compat runs legacy TF1 scripts, graph mode as in TF1.
    assert sorted(users) == ["tf1_train/compat/__main__.py", "tf1_train/main.py"]


def test_flags_dir_holds_flagfiles_only():
    assert all(p.suffix == ".flags" for p in (ROOT / "flags").iterdir())


def test_variable_update_modes_are_compared_only_in_their_module():
    # One class per mode (tf1_train/variable_update/): a mode lives in one place.
    compare = re.compile(r'variable_update ?[!=]=|[!=]= ?"(replicated|parameter_server)"')
    for path in PACKAGE.rglob("*.py"):
        if "variable_update" in path.parts:
            continue
        assert not compare.search(path.read_text()), path


def test_the_built_in_model_list_is_written_once():
    """No other module or test spells out the model names: they read
    tf1_train.models (BUILT_IN, with_tf2(), with_keras())."""
    from tf1_train import models

    built_in = set(models.BUILT_IN)
    lists = []
    for path in list(PACKAGE.rglob("*.py")) + list((ROOT / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.List, ast.Tuple, ast.Set, ast.Dict)):
                items = node.keys if isinstance(node, ast.Dict) else node.elts
                names = {getattr(e, "value", None) for e in items} & built_in
                if len(names) >= 3:
                    lists.append(path.relative_to(ROOT).as_posix())
    # tf1_train/models/__init__.py holds the one list, as ModelSpec entries.
    assert lists == []


def test_compat_code_reads_static_dimensions_both_ways():
    # Under `python -m tf1_train.compat --v1_shapes` a shape's element is a
    # Dimension, never None: `x.shape[i] is None` would read an unknown
    # dimension as known. tf.compat.dimension_value(x.shape[i]) reads both.
    unguarded = re.compile(r"shape\[[^\]]*\]\s+is\s+(not\s+)?None")
    for path in (PACKAGE / "compat").rglob("*.py"):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            assert not unguarded.search(line), f"{path}:{number}: {line.strip()}"
