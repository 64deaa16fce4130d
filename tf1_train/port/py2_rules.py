"""Python 2 names in files Python 3 parses. TF1 code bases of 2016-2018 were
often written for both, and the lines only Python 2 ever ran are still in
them: facenet's ``stat.iteritems()`` after its last epoch, caffe-tensorflow's
``data_dict[op_name].iteritems()`` (ICNet, image captioning), ``xrange`` in
batch loops, ``import cPickle``, ``print >>sys.stderr, msg``. Each raises on
every Python TensorFlow 2.21 runs on, and only when the line is reached:
facenet's after its training finished. tf_upgrade_v2 reads TensorFlow names
only. python2.py is the other half: files Python 3 cannot parse at all.

A use is left alone where the program provides for it: a builtin the file
binds itself (``xrange = range``), a line in a ``try`` whose handler goes on,
or under a test of the Python version (``if six.PY2:``, ``sys.version_info``)
or a ``hasattr`` probe.
"""

import ast
from typing import Dict, Iterator, Set, Tuple

from tf1_train.port.guards import _carries_on
from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, _rule

ROW_PY2 = "Python 2 names in Python 3 source"
_rule(
    "python2-name",
    BREAKS,
    "{fix}: Python 3 has no {name}, so the line raises {error} when it runs (2to3 -f {fixer} "
    "rewrites it)",
    "leaves it unchanged and reports nothing (it reads TensorFlow names only)",
    ROW_PY2,
)

# name -> (replacement, 2to3 fixer)
METHODS = {
    "iteritems": ("d.items()", "dict"),
    "iterkeys": ("d.keys()", "dict"),
    "itervalues": ("d.values()", "dict"),
    "viewitems": ("d.items()", "dict"),
    "viewkeys": ("d.keys()", "dict"),
    "viewvalues": ("d.values()", "dict"),
    "has_key": ("key in d", "has_key"),
}
BUILTINS = {
    "xrange": ("range", "xrange"),
    "unicode": ("str", "unicode"),
    "basestring": ("str", "basestring"),
    "unichr": ("chr", "unicode"),
    "long": ("int", "long"),
    "raw_input": ("input", "raw_input"),
    "reduce": ("functools.reduce", "reduce"),
    "execfile": ("exec(open(path).read())", "execfile"),
    "file": ("open", "future"),
    "cmp": ("(a > b) - (a < b)", "future"),
    "intern": ("sys.intern", "intern"),
    "apply": ("f(*args, **kwargs)", "apply"),
    "buffer": ("memoryview", "buffer"),
    "reload": ("importlib.reload", "reload"),
}
ATTRIBUTES = {
    "string.letters": ("string.ascii_letters", "future"),
    "string.lowercase": ("string.ascii_lowercase", "future"),
    "string.uppercase": ("string.ascii_uppercase", "future"),
    "string.maketrans": ("str.maketrans (bytes.maketrans for bytes)", "future"),
    "string.join": ("sep.join(words)", "future"),
    "string.atoi": ("int", "future"),
    "sys.maxint": ("sys.maxsize", "future"),
    "os.getcwdu": ("os.getcwd", "getcwdu"),
    "itertools.izip": ("zip", "itertools"),
    "itertools.imap": ("map", "itertools"),
    "itertools.ifilter": ("filter", "itertools"),
    "itertools.izip_longest": ("itertools.zip_longest", "itertools_imports"),
    "urllib.urlretrieve": ("urllib.request.urlretrieve", "urllib"),
    "urllib.urlopen": ("urllib.request.urlopen", "urllib"),
    "urllib.urlencode": ("urllib.parse.urlencode", "urllib"),
    "urllib.quote": ("urllib.parse.quote", "urllib"),
    "urllib.unquote": ("urllib.parse.unquote", "urllib"),
}
MODULES = {
    "cPickle": "pickle",
    "cStringIO": "io.BytesIO / io.StringIO",
    "StringIO": "io.BytesIO / io.StringIO",
    "Queue": "queue",
    "ConfigParser": "configparser",
    "urllib2": "urllib.request",
    "urlparse": "urllib.parse",
    "httplib": "http.client",
    "HTMLParser": "html.parser",
    "Tkinter": "tkinter",
    "__builtin__": "builtins",
    "commands": "subprocess",
    "copy_reg": "copyreg",
    "cookielib": "http.cookiejar",
    "SocketServer": "socketserver",
    "BaseHTTPServer": "http.server",
}
ROOTS = ("string", "sys", "os", "itertools", "urllib")
ITERATORS = ("iter", "zip", "map", "filter", "enumerate", "reversed", "open")
# A handler that goes on after one of these lets the try body fail (BaseException: a bare except).
CAUGHT = {"NameError", "AttributeError", "ImportError", "ModuleNotFoundError", "Exception",
          "BaseException"}  # fmt: skip
VERSION_TESTS = ("version_info", "PY2", "PY3", "sys.version", "python_version")

Finding = Tuple[ast.AST, str, str, Dict[str, str]]


def findings(tree: ast.AST) -> Iterator[Finding]:
    """(node, rule, construct, fill-ins) for each Python 2 name Python 3 lacks."""
    skip, bound = _provided_for(tree), _bound_names(tree)
    modules = Aliases(tree, roots=ROOTS)
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        found = _method(node, modules) or _print_chevron(node)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id in BUILTINS and node.id not in bound:
                found = (node.id, *BUILTINS[node.id], "NameError")
        elif isinstance(node, ast.Attribute) and modules.resolve(node) in ATTRIBUTES:
            path = modules.resolve(node)
            found = (path, *ATTRIBUTES[path], "AttributeError")
        for name in _imported(node):
            fills = _fills(name, MODULES[name], "imports", "ImportError")
            yield node, "python2-name", f"import {name}", fills
        if found:
            name, new, fixer, error = found
            yield node, "python2-name", ast.unparse(node), _fills(name, new, fixer, error)


def _fills(name: str, fix: str, fixer: str, error: str) -> Dict[str, str]:
    return {"name": name, "fix": fix, "fixer": fixer, "error": error}


def _method(node: ast.AST, modules: Aliases):
    """``d.iteritems()``, ``os.walk(d).next()``: (name, fix, fixer, error), else
    None (``six.iteritems(d)`` runs on Python 3 too)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return None
    name, owner = node.func.attr, node.func.value
    if name == "next" and not node.args and _iterator(owner, modules):
        return ".next()", "next(it)", "next", "AttributeError"
    if name not in METHODS or (isinstance(owner, ast.Name) and owner.id in ("six", "future")):
        return None
    return f".{name}()", *METHODS[name], "AttributeError"


def _iterator(node: ast.AST, modules: Aliases) -> bool:
    """Whether ``node`` is surely a Python 3 iterator (``os.walk(d)``,
    ``iter(x)``, a generator expression): ``.next()`` on other objects may be
    theirs (tf.contrib.eager's ``Iterator.next()``)."""
    if isinstance(node, ast.GeneratorExp):
        return True
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    if isinstance(func, ast.Name):
        return func.id in ITERATORS
    return (modules.resolve(func) or "").startswith(("os.walk", "itertools."))


def _print_chevron(node: ast.AST):
    """``print >>f, x``: Python 3 parses it as a tuple of a shift, which raises TypeError."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Tuple) and node.value.elts:
        first = node.value.elts[0]
        if (
            isinstance(first, ast.BinOp)
            and isinstance(first.op, ast.RShift)
            and isinstance(first.left, ast.Name)
            and first.left.id == "print"
        ):
            return "print >>f", "print(x, file=f)", "print", "TypeError"
    return None


def _imported(node: ast.AST) -> Iterator[str]:
    if isinstance(node, ast.Import):
        yield from (a.name for a in node.names if a.name in MODULES)
    elif isinstance(node, ast.ImportFrom) and not node.level and node.module in MODULES:
        yield node.module


def _bound_names(tree: ast.AST) -> Set[str]:
    """Every name the file binds anywhere (flow-insensitive: `xrange = range` under a test)."""
    bound = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return bound


def _provided_for(tree: ast.AST, probes=None) -> Set[int]:
    """Ids of the nodes in a try whose handler goes on (its body and its
    fallback: either is the other Python's), or in a Python version test or a
    ``hasattr`` probe (``probes``, by default _probes), test and branches."""
    probes = probes or _probes
    skip: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Try) and any(_goes_on(h) for h in node.handlers):
            parts = node.body + [n for h in node.handlers for n in h.body]  # and the fallback
            skip.update(id(n) for b in parts for n in ast.walk(b))
        elif isinstance(node, (ast.If, ast.IfExp)) and probes(node.test):
            skip.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.BoolOp) and any(probes(v) for v in node.values[:-1]):
            skip.update(id(n) for n in ast.walk(node))  # `PY2 and isinstance(x, unicode)`
    return skip


def _goes_on(handler: ast.ExceptHandler) -> bool:
    return bool(CAUGHT & set(_carries_on(handler)))


def _probes(test: ast.expr) -> bool:
    """A test of the Python version or a ``hasattr`` probe: its branches are for
    one Python each (``if hasattr(urllib, "quote"): urllib.quote``)."""
    text = ast.unparse(test)
    return any(word in text for word in VERSION_TESTS) or "hasattr(" in text
