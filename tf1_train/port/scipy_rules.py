"""What SciPy removed that TF1-era programs use: ``scipy.misc``'s image
functions (``imread``, ``imresize``, ``imsave``: DCGAN-tensorflow's and the
style-transfer programs' image I/O), its special functions
(``scipy.misc.logsumexp``), ``scipy.integrate.trapz``/``simps``,
``scipy.signal``'s window functions, and private module paths such as
``scipy.sparse.linalg.eigen.arpack`` (tkipf/gcn's ``eigsh`` import). A SciPy
that runs with TensorFlow 2.21's NumPy 2 (1.13 and later) has none of them.
The tables are tf1_train.compat._scipy_removed's: what install() puts back
and what it cannot. A use is reported where it raises: the import line for
``from scipy.misc import imread``, the attribute for ``scipy.misc.imread``.
And one change of behaviour: ``interp1d(x, y, kind='slinear')`` refuses a
repeated ``x`` since SciPy 1.9 (facenet's validation rate at a given false
accept rate stopped so).
"""

import ast
from typing import Dict, Iterator, Optional, Tuple

from tf1_train.compat._scipy_removed import GONE, MODULES, MOVED
from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, _rule

ROW_SCIPY = "SciPy's removals"
INTERP1D = "scipy.interpolate.interp1d"
UPGRADE = "leaves it unchanged and reports nothing (it does not read SciPy names)"

_rule(
    "scipy-moved",
    BREAKS,
    "{new}, the same function: SciPy {version} removed {old}, so it raises; "
    "tf1_train.compat.install() puts it back as {new}",
    UPGRADE,
    ROW_SCIPY,
)
_rule(
    "scipy-private-module",
    BREAKS,
    "{new}: SciPy 1.8 made {module} private, and its old path no longer imports; "
    "tf1_train.compat.install() serves the old path as the private module",
    UPGRADE,
    ROW_SCIPY,
)
_rule("scipy-removed", BREAKS, "{fix} ({why})", UPGRADE, ROW_SCIPY)
ROW_INTERP = "`interp1d(x, y, kind='slinear')` with repeated `x`"
_rule(
    "scipy-interp-repeats",
    BREAKS,
    "{fix}, SciPy 1.8's value for x[0] <= x_new < x[-1] (x ascending): SciPy 1.9 refuses a "
    "repeated x in interp1d's spline kinds, so where x repeats a value (a false-accept rate "
    "over thresholds: facenet's calculate_val) it raises ValueError 'Expect x to not have "
    "duplicates'",
    UPGRADE,
    ROW_INTERP,
)
# interp1d's spline kinds SciPy 1.8 computed with repeated x (make_interp_spline's k=0 and
# k=1 cases took x as it came): the NumPy expression that gives the same values.
SPLINE_KINDS = {
    "slinear": "np.interp(x_new, x, y)",
    1: "np.interp(x_new, x, y)",
    "zero": "y[np.searchsorted(x, x_new, side='right') - 1]",
    0: "y[np.searchsorted(x, x_new, side='right') - 1]",
}


def _fills(path: str) -> Optional[Tuple[str, Dict[str, str]]]:
    """(rule, fill-ins) for a SciPy path that is gone, or None."""
    if path in MOVED:
        new, version = MOVED[path]
        return "scipy-moved", {"old": path, "new": new, "version": version}
    module = next((m for m in MODULES if path == m or path.startswith(m + ".")), None)
    if module:
        public = module.rsplit(".", 2)[0]  # scipy.sparse.linalg.eigen.arpack: scipy.sparse.linalg
        return "scipy-private-module", {"module": module, "new": public + path[len(module) :]}
    if path in GONE:
        fix, why = GONE[path]
        return "scipy-removed", {"fix": fix, "why": why}
    return None


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each import or attribute read of a
    SciPy name that is gone."""
    scipy = Aliases(tree, roots=("scipy",))
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{a.name}" for a in node.names]
            paths = [p for p in names if _fills(p)] or [node.module]  # each name that raises
        elif isinstance(node, ast.Import):
            paths = [a.name for a in node.names]
        elif isinstance(node, ast.Attribute) and id(node) not in inner and scipy.resolve(node):
            paths = [scipy.resolve(node)]
        else:
            continue
        for path in paths:
            found = _fills(path) if path.startswith("scipy.") else None
            if found:
                construct = ast.unparse(node) if isinstance(node, ast.Attribute) else path
                yield node, found[0], construct, found[1]
    for node in ast.walk(tree):
        kind = _spline_kind(node, scipy)
        if kind in SPLINE_KINDS:
            yield node, "scipy-interp-repeats", ast.unparse(node), {"fix": SPLINE_KINDS[kind]}


def _spline_kind(node: ast.AST, scipy: Aliases):
    """The constant ``kind`` of an ``interp1d(x, y, kind)`` call, else None."""
    if not (isinstance(node, ast.Call) and scipy.resolve(node.func) == INTERP1D):
        return None
    kinds = [k.value for k in node.keywords if k.arg == "kind"] + node.args[2:3]
    if kinds and isinstance(kinds[0], ast.Constant):
        return kinds[0].value
    return None
