"""What matplotlib removed that TF1-era programs use to plot: a colormap
looked up through ``cm.get_cmap`` (hwalsuklee's VAE latent plot), a figure
turned into an image summary through ``canvas.tostring_rgb()``,
``plt.hold``, ``mlab.normpdf``, ``hist(normed=...)``, ``gca(projection=
'3d')``, ``matplotlib.use('Agg', warn=False)`` in headless trainers,
``plt.style.use('seaborn')``. matplotlib does not come with TensorFlow; a
code base's requirements name it, and pip installs the newest. Each entry
was checked on the matplotlib versions before and after the removal
(2.1.2 to 3.11.2, 2026-12-07); tests/test_port_scan_matplotlib.py runs each
reported line on the matplotlib the tests install and sees it raise.
"""

import ast
from typing import Dict, Iterator, Tuple

from tf1_train.port.names import Aliases, chain_root, imported_names
from tf1_train.port.rules import BREAKS, _rule

ROW = "matplotlib's removals"
# removed path -> (the fix, the matplotlib that removed it)
NAMES = {
    "matplotlib.cm.get_cmap": ("matplotlib.pyplot.get_cmap(name, lut), the same colormap", "3.11"),
    "matplotlib.pyplot.cm.get_cmap": ("plt.get_cmap(name, lut), the same colormap", "3.11"),
    "matplotlib.cm.register_cmap": ("matplotlib.colormaps.register(cmap, name=name)", "3.9"),
    "matplotlib.pyplot.register_cmap": ("matplotlib.colormaps.register(cmap, name=name)", "3.9"),
    "matplotlib.pyplot.hold": ("drop it: axes always keep what was drawn", "3.0"),
    "matplotlib.pyplot.ishold": ("drop it: axes always keep what was drawn", "3.0"),
    "matplotlib.mlab.normpdf": ("scipy.stats.norm.pdf(x, mu, sigma)", "3.1"),
    "matplotlib.mlab.bivariate_normal": (
        "scipy.stats.multivariate_normal([mux, muy], [[sx**2, sxy], [sxy, sy**2]]).pdf",
        "3.1",
    ),
}
# removed method -> (the fix, the matplotlib that removed it)
METHODS = {
    "tostring_rgb": (
        "np.asarray(canvas.buffer_rgba())[..., :3], the same pixels after canvas.draw()",
        "3.10",
    ),
    "set_axis_bgcolor": ("ax.set_facecolor(color)", "2.2"),
}
# (method, removed keyword) -> (the fix, the matplotlib that removed it)
KEYWORDS = {
    ("hist", "normed"): ("density=, the same normalisation", "3.2"),
    ("gca", "projection"): ("fig.add_subplot(projection=...)", "3.6"),
    ("use", "warn"): ("drop warn=", "3.3"),
    ("savefig", "frameon"): ("facecolor= or transparent=True", "3.6"),
    ("subplot", "axisbg"): ("facecolor=", "2.2"),
    ("add_subplot", "axisbg"): ("facecolor=", "2.2"),
    ("axes", "axisbg"): ("facecolor=", "2.2"),
}
STYLE = ("style 'seaborn-v0_8...', the same sheet under its new name", "3.8")

_rule(
    "matplotlib-removed",
    BREAKS,
    "{fix}: matplotlib {version} removed {old}, so the line raises (AttributeError, TypeError "
    "or, for a style, OSError); matplotlib comes with the code base's requirements, not "
    "TensorFlow, and pip installs the newest",
    "leaves it unchanged and reports nothing (it does not read matplotlib names)",
    ROW,
)


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each removed name (read or
    imported), method, keyword or style sheet in a file that imports matplotlib."""
    plots = Aliases(tree, roots=("matplotlib",))
    if plots.names:
        yield from _names(tree, plots)
        yield from _calls(tree, plots, imported_names(tree))


def _names(tree: ast.AST, plots: Aliases) -> Iterator[Tuple]:
    """`plt.cm.get_cmap` read (the outermost attribute), `from matplotlib.mlab import normpdf`."""
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for path in (f"{node.module}.{a.name}" for a in node.names):
                if path in NAMES:
                    yield _found(node, path, *NAMES[path])
        elif isinstance(node, ast.Attribute) and id(node) not in inner:
            if (plots.resolve(node) or "") in NAMES:
                yield _found(node, ast.unparse(node), *NAMES[plots.resolve(node)])


def _calls(tree: ast.AST, plots: Aliases, modules: set) -> Iterator[Tuple]:
    """A removed method of an object (not a module's function), a removed
    keyword, a renamed style sheet."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    for node in (c for c in calls if isinstance(c.func, ast.Attribute)):
        name = node.func.attr
        if name in METHODS and chain_root(node.func.value) not in modules:
            yield _found(node, f".{name}()", *METHODS[name])
        for keyword in node.keywords:
            if (name, keyword.arg) in KEYWORDS:
                yield _found(node, f"{name}({keyword.arg}=...)", *KEYWORDS[name, keyword.arg])
        if _old_seaborn(node, plots):
            yield _found(node, ast.unparse(node), *STYLE)


def _found(node: ast.AST, old: str, fix: str, version: str):
    return node, "matplotlib-removed", old, {"old": old, "fix": fix, "version": version}


def _old_seaborn(call: ast.Call, plots: Aliases) -> bool:
    """`plt.style.use('seaborn-whitegrid')`: the sheets matplotlib 3.6 renamed."""
    if (plots.resolve(call.func) or "") not in (
        "matplotlib.pyplot.style.use",
        "matplotlib.style.use",
    ):
        return False
    first = call.args[0] if call.args else None
    text = first.value if isinstance(first, ast.Constant) else None
    return isinstance(text, str) and text.startswith("seaborn") and "v0_8" not in text
