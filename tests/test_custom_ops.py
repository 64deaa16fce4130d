"""A TF 1.x program with its own C++ op (tests/legacy_scripts/interp_op: a
point-cloud interpolation op, its TF 1.x build script and Python wrapper):
what the scan reports, that TensorFlow 2.21 refuses each reported line as the
scan says (built with g++ against the installed TensorFlow), that after
install() a library built for TF 1.x says why it does not load, and that the
program rebuilt with the fixes trains to TensorFlow 1.15.5's losses
(tests/goldens/interp_op_tf115.json, scripts/make_custom_op_goldens.py), as
does its TF 2 port on the same library (train_interp_tf2.py)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
import tensorflow as tf

from tests.conftest import run_legacy_script
from tf1_train.compat import _op_libraries
from tf1_train.port import scan
from tf1_train.port.rules import BREAKS, WORKS

ROOT = pathlib.Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "tests" / "legacy_scripts" / "interp_op"
GOLDEN = ROOT / "tests" / "goldens" / "interp_op_tf115.json"
SOURCE, SCRIPT = "tf_interp.cpp", "tf_interp_compile.sh"
LIBRARY = "tf_interp_so.so"
# The scan's fixes, as a user applies them (file -> (TF 1.x text, TensorFlow 2.21 text)).
FIXES = {
    SOURCE: [("Status::OK()", "Status()")],
    SCRIPT: [
        ("-std=c++11", "-std=c++17"),
        ("-l:libtensorflow_framework.so.1", "-l:libtensorflow_framework.so.2"),
        ("_GLIBCXX_USE_CXX11_ABI=0", "_GLIBCXX_USE_CXX11_ABI=1"),
    ],
}
COMPILE = tf.sysconfig.get_compile_flags()
LINK = tf.sysconfig.get_link_flags()


def _gxx(*args, cwd):
    assert shutil.which("g++"), "these tests build a custom op: install g++"
    env = {**os.environ, "LC_ALL": "C"}  # g++'s quotes in ASCII
    return subprocess.run(
        ["g++", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _copy(tmp_path, fixed):
    here = tmp_path / "interp_op"
    shutil.copytree(PROGRAM, here)
    for name, edits in FIXES.items() if fixed else []:
        text = (here / name).read_text()
        for old, new in edits:
            assert old in text, (name, old)
            text = text.replace(old, new)
        (here / name).write_text(text)
    return here


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    """The program with the scan's fixes, built by its own (fixed) script, as a user would."""
    here = _copy(tmp_path_factory.mktemp("rebuilt"), fixed=True)
    path = os.pathsep.join([str(pathlib.Path(sys.executable).parent), os.environ["PATH"]])
    env = {**os.environ, "PATH": path}  # the script's `python` is this one
    out = subprocess.run(
        ["bash", str(here / SCRIPT)], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0 and (here / LIBRARY).is_file(), out.stderr[-3000:]
    return here


def _found(paths, compat=False):
    report = scan.scan([str(p) for p in paths], compat=compat)
    return sorted((pathlib.Path(f.file).name, f.line, f.rule, f.severity) for f in report.findings)


@pytest.mark.parametrize("compat", [False, True], ids=["scan", "scan --compat"])
def test_the_scan_reports_each_line_tensorflow_2_21_refuses(tmp_path, compat):
    here = _copy(tmp_path, fixed=False)
    found = [f for f in _found([here], compat) if f[2].startswith(("op-", "load-op"))]
    ops = [(SOURCE, line, "op-status-ok", BREAKS) for line in (23, 36, 47)]
    assert found == ops + [
        ("tf_interp.py", 11, "load-op-library", BREAKS),
        (SCRIPT, 8, "op-build-std", BREAKS),
        (SCRIPT, 9, "op-build-framework", BREAKS),
        (SCRIPT, 10, "op-build-abi", BREAKS),
    ]


def test_each_line_it_reports_is_refused_as_it_says(tmp_path):
    """The flags one at a time (the preprocessor, the compiler, the linker); the
    old C++ ABI, which builds and then fails to load, is the next test's."""
    here = _copy(tmp_path, fixed=False)
    older = [f for f in COMPILE if not f.startswith("--std")] + ["-std=c++11", "-E"]
    preprocessed = _gxx(*older, SOURCE, "-o", "/dev/null", cwd=here).stderr
    assert "C++ versions less than C++17 are not supported" in preprocessed
    # TensorFlow's guide to new ops puts its compile flags after: the last -std and -D win
    guide = ["-std=c++11", "-D_GLIBCXX_USE_CXX11_ABI=0", *COMPILE, "-dM", "-E", SOURCE]
    macros = _gxx(*guide, cwd=here)
    assert macros.returncode == 0 and "#define _GLIBCXX_USE_CXX11_ABI 1" in macros.stdout
    as_written = _gxx(*COMPILE, "-fsyntax-only", SOURCE, cwd=here)
    assert "'OK' is not a member of 'tensorflow::Status'" in as_written.stderr
    (here / "stub.c").write_text("int anything;\n")
    for library in ("-ltensorflow_framework", "-l:libtensorflow_framework.so.1"):
        linked = _gxx("-shared", "stub.c", "-o", "x.so", LINK[0], library, cwd=here)
        assert f"cannot find {library}" in linked.stderr
    assert _gxx("-shared", "stub.c", "-o", "x.so", *LINK, cwd=here).returncode == 0


def test_after_install_a_library_built_for_tf1_says_why_it_does_not_load(tmp_path, installed):
    """Three libraries TF 1.x's flags made: needing libtensorflow_framework.so.1
    (pip's TF 1.15) or .so (earlier wheels; PointNet++ commits one), each linked
    against a stand-in of that name, and one of TF 1.x's C++ ABI."""
    here = _copy(tmp_path, fixed=False)
    (here / "stub.c").write_text("int tf1_framework_stand_in;\n")
    keep = "-Wl,--no-as-needed"  # kept though nothing of it is used, as TF 1.x ops used it
    frameworks = {"tf1.so": "libtensorflow_framework.so.1", "tf14.so": "libtensorflow_framework.so"}
    for name, framework in frameworks.items():
        assert _gxx("-shared", "-fPIC", "stub.c", "-o", framework, cwd=here).returncode == 0
        linked = _gxx(
            "-shared", "stub.c", "-o", name, keep, f"-L{here}", f"-l:{framework}", cwd=here
        )
        assert linked.returncode == 0, linked.stderr
    abi0 = [f.replace("ABI=1", "ABI=0") for f in COMPILE]
    source = here / SOURCE
    source.write_text(source.read_text().replace("Status::OK()", "Status()"))
    built = _gxx(*abi0, "-O0", "-shared", "-fPIC", SOURCE, "-o", "abi0.so", *LINK, cwd=here)
    assert built.returncode == 0, built.stderr[-2000:]
    said = {}
    for name in ("tf1.so", "tf14.so", "abi0.so"):
        with pytest.raises(tf.errors.NotFoundError) as raised:
            tf.load_op_library(str(here / name))
        said[name] = raised.value.message
    assert "libtensorflow_framework.so.1: cannot open" in said["tf1.so"]
    assert (
        "tf1.so was built against TensorFlow 1.x (it needs libtensorflow_framework.so.1)"
        in said["tf1.so"]
    )
    assert (
        "tf14.so was built against TensorFlow 1.x (it needs libtensorflow_framework.so)"
        in said["tf14.so"]
    )
    assert "undefined symbol" in said["abi0.so"] and "-D_GLIBCXX_USE_CXX11_ABI=0" in said["abi0.so"]
    for message in said.values():
        assert message.endswith("this TensorFlow refuses)") and " ".join(COMPILE + LINK) in message
    with pytest.raises(tf.errors.NotFoundError, match="No such file or directory$"):
        tf.load_op_library(str(here / "missing.so"))


def test_without_install_the_message_is_tensorflows_own():
    assert not hasattr(tf.load_op_library, _op_libraries.MARK)
    with pytest.raises(tf.errors.NotFoundError) as raised:
        tf.load_op_library(str(PROGRAM / "no_such_library.so"))
    assert "rebuild" not in raised.value.message


def test_rebuilt_with_the_fixes_it_trains_to_tensorflow_1_15_5s_losses(rebuilt):
    golden = json.loads(GOLDEN.read_text())
    got = run_legacy_script("--v1", rebuilt, str(rebuilt / "train_interp.py"))
    assert golden["tensorflow"] == "1.15.5" and sorted(got) == sorted(golden["printed"])
    for key, want in golden["printed"].items():
        np.testing.assert_allclose(float(got[key]), float(want), rtol=1e-6, err_msg=key)


def test_once_rebuilt_the_scan_finds_nothing_that_breaks(rebuilt):
    found = _found([rebuilt], compat=True)
    assert [f for f in found if f[3] == BREAKS] == []
    assert ("tf_interp.py", 11, "load-op-library", WORKS) in found


def test_the_scan_tells_a_library_built_for_tf1_from_one_built_for_tf2(tmp_path):
    (tmp_path / "stub.c").write_text("int anything;\n")
    so1 = ["-shared", "-fPIC", "stub.c", "-o", "libtensorflow_framework.so.1"]
    assert _gxx(*so1, cwd=tmp_path).returncode == 0
    keep = "-Wl,--no-as-needed"  # the op used the library; the stub does not
    tf1 = ["-shared", "stub.c", "-o", "tf1_ops.so", keep, f"-L{tmp_path}", "-l:" + so1[-1]]
    assert _gxx(*tf1, cwd=tmp_path).returncode == 0
    assert _gxx("-shared", "stub.c", "-o", "tf2_ops.so", keep, *LINK, cwd=tmp_path).returncode == 0
    head = "import os\nimport tensorflow as tf\nHERE = os.path.dirname(__file__)\n"
    programs = {
        "tf1.py": "tf1 = tf.load_op_library(os.path.join(HERE, 'tf1_ops.so'))\n",
        "tf2.py": "lib = os.path.join(HERE, 'tf2_ops.so')\ntf2 = tf.load_op_library(lib)\n",
        "built.py": "cmd = 'nvcc ' + opts\nbuilt = tf.load_op_library(build(cmd, source))\n",
        "named.py": "named = tf.load_op_library(os.path.join(HERE, name + ext))\n",
    }
    for name, text in programs.items():
        (tmp_path / name).write_text(head + text)
    found = scan.scan([str(tmp_path / name) for name in programs]).findings
    verdicts = {
        pathlib.Path(f.file).name: (f.line, f.severity, f.fix)
        for f in found
        if f.rule == "load-op-library"
    }
    assert (
        verdicts["tf1.py"][:2] == (4, BREAKS)
        and "tf1_ops.so: built for TF 1.x" in verdicts["tf1.py"][2]
    )
    assert (
        verdicts["tf2.py"][:2] == (5, WORKS)
        and ".so links libtensorflow_framework.so.2" in verdicts["tf2.py"][2]
    )
    assert (
        verdicts["built.py"][:2] == (5, WORKS) and "builds the library" in verdicts["built.py"][2]
    )
    assert verdicts["named.py"][:2] == (4, BREAKS) and "name is computed" in verdicts["named.py"][2]


def test_the_tf2_port_on_the_same_library_trains_as_the_tf1_program(rebuilt):
    """train_interp_tf2.py: the op and its registered gradient under a
    tf.function and a GradientTape, Keras' Adam. Keras' Adam rounds TF 1.x's
    formula in other steps: measured within 8e-6 of TF 1.15.5's losses."""
    golden = json.loads(GOLDEN.read_text())["printed"]
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    script = str(rebuilt / "train_interp_tf2.py")
    out = subprocess.run(
        [sys.executable, script], env=env, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    got = dict(line.split(" = ", 1) for line in out.stdout.splitlines() if " = " in line)
    assert sorted(got) == sorted(golden)
    for key, want in golden.items():
        np.testing.assert_allclose(float(got[key]), float(want), rtol=2e-5, err_msg=key)
