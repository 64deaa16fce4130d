"""Python 3 names later Pythons removed (``time.clock()``, ``collections.Iterable``
in tensorflow/nmt, ``inspect.getargspec``, ``import imp``, ``self.assertEquals``,
``imghdr``): on every CPython this machine has (pyenv's 3.6 to 3.13 here, at
least the one running the tests), the lines that raise are exactly the
scan's findings removed in that Python or before, and each table entry is
present exactly on the Pythons before the one it names. A file that provides
for both (a guarded import, a version test, a ``hasattr`` probe of the
module) gets no finding."""

import glob
import json
import os
import re
import subprocess
import sys

import pytest

from tf1_train.port import py3_rules, scan

# One statement a line, each run on its own after the ones above (conftest.raising_lines).
PROGRAM = (
    "import collections, configparser, inspect, io, os, threading, time, unittest\n"
    "import xml.etree.ElementTree as ET\n"
    "start = time.clock()\n"
    "errno = os.errno\n"
    "alive = threading.Thread(target=print).isAlive()\n"
    "found = ET.fromstring('<a><object/></a>').getiterator('object')\n"
    "ok = isinstance([], collections.Iterable)\n"
    "from collections import Mapping\n"
    "spec = inspect.getargspec(lambda a, b=1: a)\n"
    "import imp\n"
    "self = unittest.TestCase()\n"
    "self.assertEquals(1, 1)\n"
    "configparser.ConfigParser().readfp(io.StringIO('[s]'))\n"
    "import imghdr\n"
    "suite = unittest.makeSuite(unittest.TestCase)\n"
    "start = time.perf_counter()\n"
    "ok = isinstance([], collections.abc.Iterable)\n"
    "spec = inspect.getfullargspec(lambda a, b=1: a)\n"
    "self.assertEqual(1, 1)\n"
    "alive = threading.Thread(target=print).is_alive()\n"
)
PROVIDED_FOR = """\
import sys
import time
try:
    from collections.abc import Iterable
except ImportError:
    from collections import Iterable
if sys.version_info >= (3, 3):
    clock = time.perf_counter
else:
    clock = time.clock
timer = time.clock if hasattr(time, "clock") else time.perf_counter
try:
    import imp
except ImportError:
    imp = None
ok = isinstance([], Iterable)
"""
RUNNER = """
import json, sys, warnings
warnings.simplefilter("ignore")
names, raised = {}, []
for number, line in enumerate(open(sys.argv[1]).read().splitlines(), 1):
    try:
        exec(line, names)
    except (AttributeError, ImportError, NameError):
        raised.append(number)
print(json.dumps(raised))
"""
PROBE = """
import importlib, json, sys, warnings
warnings.simplefilter("ignore")
def has(path):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for name in parts[i:]:
                obj = getattr(obj, name)
            return True
        except AttributeError:
            return False
    return False
print(json.dumps({p: has(p) for p in json.loads(sys.argv[1])}))
"""


def _pythons():
    """A param (version, executable) for each CPython 3 found: this one and pyenv's."""
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    found = {sys.version_info[:2]: sys.executable}
    for exe in glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3")):
        version = re.match(r"3\.(\d+)", os.path.basename(os.path.dirname(os.path.dirname(exe))))
        if version:
            found.setdefault((3, int(version.group(1))), exe)
    return [pytest.param(v, exe, id=f"{v[0]}.{v[1]}") for v, exe in sorted(found.items())]


def _run(exe, code, *args):
    # -I: no site-packages, so nothing but the standard library answers (distutils from
    # setuptools would); -S too: no .pth hooks.
    out = subprocess.run([exe, "-I", "-S", "-c", code, *args], capture_output=True, text=True,
                         timeout=120, check=True)  # fmt: skip
    return json.loads(out.stdout)


def _version(text):
    return tuple(int(p) for p in text.split("."))


def _findings(tmp_path, source):
    (tmp_path / "prog.py").write_text(source)
    return [f for f in scan.scan([str(tmp_path)]).findings if f.rule == "python3-removed"]


@pytest.mark.parametrize("version,exe", _pythons())
def test_the_scan_breaks_exactly_where_each_python_raises(tmp_path, version, exe):
    found = _findings(tmp_path, PROGRAM)
    removed = {f.line: _version(re.search(r"Python (\d+\.\d+) removed", f.fix).group(1))
               for f in found}  # fmt: skip
    assert sorted(removed) == [*range(3, 11), *range(12, 16)]
    assert all(f.severity == "breaks" for f in found)
    raised = set(_run(exe, RUNNER, str(tmp_path / "prog.py")))
    assert raised == {line for line, gone in removed.items() if gone <= version}


@pytest.mark.parametrize("version,exe", _pythons())
def test_each_entry_is_there_exactly_before_the_python_that_removed_it(version, exe):
    entries = {**{m: r for m, (r, _) in py3_rules.MODULES.items()},
               **{a: r for a, (r, _) in py3_rules.ATTRIBUTES.items()},
               **{f"{o}.{m}": r for m, (r, _, o) in py3_rules.METHODS.items()}}  # fmt: skip
    present = _run(exe, PROBE, json.dumps(sorted(entries)))
    wrong = {p for p, r in entries.items() if present[p] != (version < _version(r))}
    assert wrong == set()


def test_the_fix_says_whether_this_python_raises_and_which_pythons_do(tmp_path):
    found = {f.line: f.fix for f in _findings(tmp_path, PROGRAM)}
    here = ".".join(map(str, sys.version_info[:2]))
    assert found[3].startswith("time.perf_counter() for elapsed time")
    assert "Python 3.8 removed time.clock, so the line raises AttributeError on every " in found[3]
    assert f"this Python, {here}, is one of them" in found[3]
    assert "raises ModuleNotFoundError on Python 3.12 and later" in found[10]
    still = f"this Python, {here}, still has it, deprecated"
    assert (still in found[14]) == (sys.version_info[:2] < (3, 13))
    assert "unittest.TestCase.assertEquals" in found[12] and ".assertEqual()" in found[12]


def test_a_file_that_provides_for_old_and_new_pythons_runs_and_has_no_finding(tmp_path):
    exec(compile(PROVIDED_FOR, "provided_for.py", "exec"), {"__name__": "provided_for"})
    assert _findings(tmp_path, PROVIDED_FOR) == []


def test_a_hasattr_probe_of_something_else_does_not_hide_a_removed_name(tmp_path):
    # tensorflow/nmt's format_text: the probe tests the words, not the Python.
    source = (
        "import collections\n"
        "def format_text(words):\n"
        "    if not hasattr(words, '__len__') and not isinstance(words, collections.Iterable):\n"
        "        words = [words]\n"
        "    return words\n"
        "format_text(iter([b'a']))\n"
    )
    assert [(f.line, f.construct) for f in _findings(tmp_path, source)] == [
        (3, "collections.Iterable")
    ]
    with pytest.raises(AttributeError):
        exec(source, {})


def test_unittest_names_are_reported_on_self_only_and_distutils_not_at_all(tmp_path):
    source = (
        "from distutils.version import LooseVersion\n"
        "report.failIf(x)\n"
        "self.failIf(x)\n"
        "self.assertRaisesRegexp(ValueError, 'x')\n"  # tf.test.TestCase defines it again
    )
    assert [f.line for f in _findings(tmp_path, source)] == [3]
