"""House rules that keep the code base readable, checked like behaviour."""

import ast
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tf1_train"


def test_ruff_lint_and_format_are_clean():
    for args in (["check"], ["format", "--check"]):
        out = subprocess.run(
            [sys.executable, "-m", "ruff", *args, "tf1_train", "tests", "scripts", "setup.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stdout + out.stderr


def test_flags_are_read_only_in_main():
    # Library code takes arguments; FLAGS only in main.py (PITFALLS 20).
    for path in PACKAGE.rglob("*.py"):
        if path.name == "main.py":
            continue
        text = path.read_text()
        assert "FLAGS" not in text and "absl import flags" not in text, path


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
    # PITFALLS 1, 15, 18: code, not comments, is checked.
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
    assert users == ["tf1_train/main.py"]


def test_flags_dir_holds_flagfiles_only():
    assert all(p.suffix == ".flags" for p in (ROOT / "flags").iterdir())
