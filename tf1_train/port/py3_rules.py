"""Python 3 standard-library names that Pythons after TF 1.x's removed.

TF 1.15 ran on Python 3.5-3.7; TensorFlow 2.21 runs on 3.10-3.13 (the
Pythons it publishes wheels for). In between, the standard library dropped
names TF1-era code used without a second thought: ``time.clock()`` around a
training step (gone in 3.8), ``collections.Iterable`` (3.10, tensorflow/nmt's
``format_text``), ``inspect.getargspec`` (3.11), ``import imp`` to load a
config file and ``self.assertEquals`` in tests (3.12), ``imghdr`` to check
downloaded images and ``pipes.quote`` (3.13). Each raises only when its line
runs. tf_upgrade_v2 reads TensorFlow names only; py2_rules.py covers
Python 2's names.

Each entry carries the version that removed it, measured by importing it on
CPython 3.6 to 3.13 (tests/test_port_scan_python3_names.py repeats that on
every interpreter it finds). A name removed after the Python that runs the
scan is still a finding: the same program on a later Python TensorFlow 2.21
supports raises. ``distutils`` (removed in 3.12) is not one: TensorFlow
depends on setuptools, whose copy is imported in its place. A use is left
alone where the program provides for it, as in py2_rules.py.
"""

import ast
import sys
from typing import Dict, Iterator, Tuple

from tf1_train.port.names import Aliases
from tf1_train.port.py2_rules import VERSION_TESTS, _provided_for
from tf1_train.port.rules import BREAKS, _rule

ROW = "Python 3 names later Pythons removed"
_rule(
    "python3-removed",
    BREAKS,
    "{fix}: Python {removed} removed {name}, so the line raises {error} on {pythons}; {here}",
    "leaves it unchanged and reports nothing (it reads TensorFlow names only)",
    ROW,
)
TF_PYTHONS = ((3, 10), (3, 13))  # tensorflow-cpu 2.21.0 has wheels for these and between

_ABCS = (
    "AsyncGenerator AsyncIterable AsyncIterator Awaitable ByteString Callable Collection "
    "Container Coroutine Generator Hashable ItemsView Iterable Iterator KeysView Mapping "
    "MappingView MutableMapping MutableSequence MutableSet Reversible Sequence Set Sized "
    "ValuesView"
).split()
_LOADER = "unittest.TestLoader()"
_SOUND = "soundfile (PyPI), which reads and writes AU, AIFF and WAV"
# module -> (removed in, what to use)
MODULES: Dict[str, Tuple[str, str]] = {
    "imp": ("3.12", "importlib: importlib.util.spec_from_file_location + module_from_spec "
                    "for imp.load_source, importlib.reload for imp.reload"),
    "imghdr": ("3.13", "PIL.Image.open(path).format, or tf.io.decode_image, which tells "
                       "JPEG, PNG, GIF and BMP itself"),
    "pipes": ("3.13", "shlex.quote for pipes.quote"),
    "cgi": ("3.13", "html.escape; urllib.parse.parse_qs for query strings"),
    "cgitb": ("3.13", "traceback or faulthandler"),
    "audioop": ("3.13", "NumPy on the samples (audioop-lts on PyPI is the old module)"),
    "sunau": ("3.13", _SOUND),
    "aifc": ("3.13", _SOUND),
    "sndhdr": ("3.13", "soundfile.info(path).format"),
    "crypt": ("3.13", "hashlib, or passlib (PyPI)"),
    "uu": ("3.13", "base64"),
    "telnetlib": ("3.13", "telnetlib3 (PyPI) or asyncio streams"),
    "lib2to3": ("3.13", "ast, or libcst (PyPI)"),
    "asyncore": ("3.12", "asyncio"),
    "asynchat": ("3.12", "asyncio"),
    "smtpd": ("3.12", "aiosmtpd (PyPI)"),
    "binhex": ("3.11", "base64"),
    "parser": ("3.10", "ast"),
    "symbol": ("3.10", "token"),
    "formatter": ("3.10", "your own text wrapping (textwrap)"),
    "dummy_threading": ("3.9", "threading"),
}  # fmt: skip
# module attribute -> (removed in, what to use)
ATTRIBUTES: Dict[str, Tuple[str, str]] = {
    "os.errno": ("3.7", "import errno"),
    "time.clock": ("3.8", "time.perf_counter() for elapsed time (time.process_time() for "
                          "the CPU time time.clock() gave on Linux)"),
    "platform.linux_distribution": ("3.8", "platform.freedesktop_os_release(), or distro (PyPI)"),
    "platform.dist": ("3.8", "platform.freedesktop_os_release(), or distro (PyPI)"),
    "cgi.escape": ("3.8", "html.escape(s, quote=False)"),
    "base64.encodestring": ("3.9", "base64.encodebytes"),
    "base64.decodestring": ("3.9", "base64.decodebytes"),
    "fractions.gcd": ("3.9", "math.gcd (never negative, where fractions.gcd took b's sign)"),
    "sys.setcheckinterval": ("3.9", "sys.setswitchinterval (seconds, not bytecodes)"),
    "sys.getcheckinterval": ("3.9", "sys.getswitchinterval"),
    "plistlib.readPlist": ("3.9", "plistlib.load"),
    "plistlib.writePlist": ("3.9", "plistlib.dump"),
    **{f"collections.{n}": ("3.10", f"collections.abc.{n}") for n in _ABCS},
    "inspect.getargspec": ("3.11", "inspect.getfullargspec, or inspect.signature"),
    "inspect.formatargspec": ("3.11", "str(inspect.signature(f))"),
    "asyncio.coroutine": ("3.11", "async def"),
    "configparser.SafeConfigParser": ("3.12", "configparser.ConfigParser"),
    "locale.format": ("3.12", "locale.format_string"),
    "ssl.wrap_socket": ("3.12", "ssl.create_default_context().wrap_socket"),
    "importlib.find_loader": ("3.12", "importlib.util.find_spec"),
    "unittest.makeSuite": ("3.13", f"{_LOADER}.loadTestsFromTestCase"),
    "unittest.findTestCases": ("3.13", f"{_LOADER}.loadTestsFromModule"),
    "unittest.getTestCaseNames": ("3.13", f"{_LOADER}.getTestCaseNames"),
}  # fmt: skip
_ALIASES_312 = {
    "assertEquals": "assertEqual", "assertNotEquals": "assertNotEqual",
    "assertAlmostEquals": "assertAlmostEqual", "assertNotAlmostEquals": "assertNotAlmostEqual",
    "assert_": "assertTrue", "failUnless": "assertTrue", "failIf": "assertFalse",
    "failUnlessEqual": "assertEqual", "failIfEqual": "assertNotEqual",
    "failUnlessAlmostEqual": "assertAlmostEqual", "failIfAlmostEqual": "assertNotAlmostEqual",
    "failUnlessRaises": "assertRaises", "assertRegexpMatches": "assertRegex",
    "assertNotRegexpMatches": "assertNotRegex",
}  # fmt: skip
# method -> (removed in, what to use, whose method): unittest's called on `self` only;
# not assertRaisesRegexp, which tf.test.TestCase defines again
METHODS: Dict[str, Tuple[str, str, str]] = {
    "isAlive": ("3.9", ".is_alive()", "threading.Thread"),
    "getiterator": ("3.9", ".iter()", "xml.etree.ElementTree.Element"),
    "readfp": ("3.12", ".read_file(f)", "configparser.RawConfigParser"),
    **{old: ("3.12", f".{new}()", "unittest.TestCase") for old, new in _ALIASES_312.items()},
}
ROOTS = tuple(sorted({p.split(".")[0] for p in ATTRIBUTES}))


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each removed name the file uses."""
    modules = Aliases(tree, roots=ROOTS)
    skip = _provided_for(tree, _probes)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        for path, construct, error in _imports(node):
            removed, fix = MODULES.get(path) or ATTRIBUTES[path]
            yield node, "python3-removed", construct, _fills(path, removed, fix, error)
        if isinstance(node, ast.Attribute) and modules.resolve(node) in ATTRIBUTES:
            path = modules.resolve(node)
            removed, fix = ATTRIBUTES[path]
            yield node, "python3-removed", path, _fills(path, removed, fix, "AttributeError")
        method = _method(node)
        if method:
            removed, fix, owner = METHODS[method]
            name = f"{owner}.{method}"
            fills = _fills(name, removed, fix, "AttributeError")
            yield node, "python3-removed", f".{method}()", fills


def _imports(node: ast.AST) -> Iterator[Tuple[str, str, str]]:
    """(removed path, construct, error) for ``import imp`` and ``from
    collections import Iterable``."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in MODULES:
                yield alias.name, f"import {alias.name}", "ModuleNotFoundError"
    elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
        if node.module in MODULES:
            yield node.module, f"from {node.module} import ...", "ModuleNotFoundError"
            return
        for alias in node.names:
            path = f"{node.module}.{alias.name}"
            if path in MODULES or path in ATTRIBUTES:
                yield path, f"from {node.module} import {alias.name}", "ImportError"


def _method(node: ast.AST):
    """``t.isAlive()``, ``root.getiterator('object')``, ``self.assertEquals(a, b)``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    name, owner = node.func.attr, node.func.value
    if name not in METHODS:
        return None
    if METHODS[name][2] == "unittest.TestCase":
        return name if isinstance(owner, ast.Name) and owner.id == "self" else None
    return name


def _fills(name: str, removed: str, fix: str, error: str) -> Dict[str, str]:
    """The rule's fill-ins: which Pythons TensorFlow 2.21 runs on raise, and
    whether the one running the scan does (a porter on 3.11 still has imp)."""
    version = tuple(int(p) for p in removed.split("."))
    supported = "-".join(map(_dotted, TF_PYTHONS))
    pythons = (
        f"every Python TensorFlow 2.21 runs on ({supported})"
        if version <= TF_PYTHONS[0]
        else f"Python {removed} and later (TensorFlow 2.21 runs on {supported})"
    )
    here = _dotted(sys.version_info[:2])
    raises = sys.version_info[:2] >= version
    state = "is one of them" if raises else "still has it, deprecated"
    return {"name": name, "removed": removed, "fix": fix, "error": error, "pythons": pythons,
            "here": f"this Python, {here}, {state}"}  # fmt: skip


def _dotted(version) -> str:
    return ".".join(map(str, version))


def _probes(test: ast.expr) -> bool:
    """A Python version test, or a ``hasattr`` probe of a module the table
    knows (``hasattr(time, "clock")``): ``hasattr(words, "__len__")`` is not one."""
    text = ast.unparse(test)
    if any(word in text for word in VERSION_TESTS):
        return True
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Name)
        and n.func.id == "hasattr"
        and n.args
        and ast.unparse(n.args[0]).split(".")[0] in ROOTS
        for n in ast.walk(test)
    )
