"""SciPy names that TF1-era programs read and that SciPy has since removed.
SciPy releases that run with TensorFlow 2.21's NumPy 2 are 1.13 and later,
so each of these raises where the program ran for years. Some examples:
tkipf/gcn's ``from scipy.sparse.linalg.eigen.arpack import eigsh``,
``scipy.misc.logsumexp``, ``scipy.integrate.trapz`` and ``scipy.signal.hann``.

Where today's SciPy keeps the very function under another name, install()
puts the old name back as that object, when the program imports it
(``MOVED``, ``MODULES``), so nothing computes differently. What has no such
twin stays a scanner finding with its fix (``GONE``). The image functions
of ``scipy.misc`` are one example: ``imread``, ``imresize`` and ``imsave``
byte-scaled and resampled through PIL in ways no SciPy function does now.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys

# old name -> (where today's SciPy keeps the same function, the SciPy that removed the old one)
MOVED = {
    "scipy.misc.logsumexp": ("scipy.special.logsumexp", "1.3"),
    "scipy.misc.comb": ("scipy.special.comb", "1.3"),
    "scipy.misc.factorial": ("scipy.special.factorial", "1.3"),
    "scipy.misc.factorial2": ("scipy.special.factorial2", "1.3"),
    "scipy.misc.factorialk": ("scipy.special.factorialk", "1.3"),
    "scipy.integrate.trapz": ("scipy.integrate.trapezoid", "1.14"),
    "scipy.integrate.cumtrapz": ("scipy.integrate.cumulative_trapezoid", "1.14"),
    **{
        f"scipy.signal.{w}": (f"scipy.signal.windows.{w}", "1.13")
        for w in (
            "barthann",
            "bartlett",
            "blackman",
            "blackmanharris",
            "bohman",
            "boxcar",
            "chebwin",
            "cosine",
            "exponential",
            "flattop",
            "gaussian",
            "general_gaussian",
            "hamming",
            "hann",
            "kaiser",
            "nuttall",
            "parzen",
            "triang",
            "tukey",
        )
    },  # fmt: skip
}
# module path that is gone -> the module that holds the same code now
MODULES = {
    "scipy.sparse.linalg.eigen.arpack": "scipy.sparse.linalg._eigen.arpack",
    "scipy.sparse.linalg.eigen.lobpcg": "scipy.sparse.linalg._eigen.lobpcg",
}
_IMAGE = "SciPy 1.3 removed it with the rest of scipy.misc's PIL helpers"
# old name -> (the fix, why it cannot be put back as it was)
GONE = {
    "scipy.misc.imread": (
        "imageio.v2.imread(path), or np.asarray(PIL.Image.open(path).convert(mode)) for mode=; "
        "flatten=True was convert('F')",
        _IMAGE,
    ),
    "scipy.misc.imsave": (
        "imageio.v2.imwrite(path, x) with x already uint8: imsave byte-scaled a float image "
        "from its own min..max to 0..255",
        _IMAGE,
    ),
    "scipy.misc.imresize": (
        "np.asarray(PIL.Image.fromarray(u8).resize((width, height), PIL.Image.BILINEAR)) with "
        "u8 = ((x - x.min()) * (255.0 / (x.max() - x.min())) + 0.5).astype(np.uint8) for a float "
        "image (PIL refuses a float RGB array), or tf.image.resize: imresize took (height, "
        "width), a float fraction or an int percent, and byte-scaled a float image to uint8 "
        "first, so its values were 0..255 whatever the input's",
        _IMAGE,
    ),
    "scipy.misc.imrotate": (
        "np.asarray(PIL.Image.fromarray(x).rotate(angle, resample=PIL.Image.BILINEAR)) "
        "(imrotate byte-scaled floats to uint8 first)",
        _IMAGE,
    ),
    "scipy.misc.imfilter": ("PIL.ImageFilter on PIL.Image.fromarray(x)", _IMAGE),
    "scipy.misc.toimage": (
        "PIL.Image.fromarray(x) with x already uint8 (toimage byte-scaled floats from their "
        "min..max to 0..255)",
        _IMAGE,
    ),
    "scipy.misc.fromimage": ("np.asarray(image)", _IMAGE),
    "scipy.misc.bytescale": (
        "((x - x.min()) * (255.0 / (x.max() - x.min())) + 0.5).astype(np.uint8), the default "
        "it computed",
        _IMAGE,
    ),
    "scipy.misc.imshow": ("matplotlib.pyplot.imshow(x)", _IMAGE),
    "scipy.ndimage.imread": ("imageio.v2.imread(path)", "SciPy 1.3 removed it"),
    "scipy.misc.derivative": (
        "a central difference, (f(x + dx) - f(x - dx)) / (2 * dx), which is what "
        "derivative(f, x, dx) computed with its default order=3 and n=1",
        "SciPy 1.12 removed it; scipy.differentiate.derivative has another interface",
    ),
    "scipy.integrate.simps": (
        "scipy.integrate.simpson(y, x=x): the same for an odd number of samples; for an even "
        "number it uses another rule than simps's default, so the result differs",
        "SciPy 1.14 removed it",
    ),
}


def put_back(module) -> list:
    """The MOVED names ``module`` lacks, set to today's objects, a
    ``__path__`` on a module that MODULES' old paths sit under (the import
    system looks for submodules only in packages), and ``scipy.signal.lfilter``
    taking object arrays again; (module, name) of each, with the object
    replaced if there was one."""
    done = []
    for old, (new, _) in MOVED.items():
        parent, name = old.rsplit(".", 1)
        if parent == module.__name__ and name not in module.__dict__:
            home, attribute = new.rsplit(".", 1)
            setattr(module, name, getattr(importlib.import_module(home), attribute))
            done.append((module, name))
    if module.__name__ in _MODULE_PARENTS and not hasattr(module, "__path__"):
        module.__path__ = []
        done.append((module, "__path__"))
    if module.__name__ == "scipy.signal" and hasattr(module, "lfilter"):
        from tf1_train.compat._scipy_object_filter import wrapped

        old = module.lfilter
        if wrapped(old) is not old:
            module.lfilter = wrapped(old)  # SciPy 1.x's object arrays (_scipy_object_filter.py)
            done.append((module, "lfilter", old))
    return done


_MODULE_PARENTS = frozenset(old.rsplit(".", 1)[0] for old in MODULES)
PATCHED = frozenset(old.rsplit(".", 1)[0] for old in MOVED) | _MODULE_PARENTS | {"scipy.signal"}


class Finder(importlib.abc.MetaPathFinder):
    """First on sys.meta_path once install() ran: serves MODULES' old paths
    as today's modules, and puts MOVED's names into their modules as SciPy
    loads them (SciPy is never imported before the program imports it)."""

    def __init__(self, record) -> None:
        self.record = record  # called with each (module, name) put back
        self.loaded: list = []  # MODULES' old paths served (uninstall forgets them)

    def find_spec(self, name, path=None, target=None):
        if name in MODULES:
            self.loaded.append(name)
            return importlib.util.spec_from_loader(name, _Alias(MODULES[name]))
        if name not in PATCHED:
            return None
        spec = next((s for s in (f.find_spec(name, path, target) for f in self._others()) if s),
                    None)  # fmt: skip
        if spec is not None and spec.loader is not None:
            spec.loader = _PuttingBack(spec.loader, self.record)
        return spec

    def _others(self):
        return [f for f in sys.meta_path if f is not self and hasattr(f, "find_spec")]


class _Alias(importlib.abc.Loader):
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module) -> None:
        pass


class _PuttingBack(importlib.abc.Loader):
    def __init__(self, loader, record) -> None:
        self.loader, self.record = loader, record

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        for done in put_back(module):
            self.record(*done)

    def __getattr__(self, name: str):  # get_source, is_package, get_resource_reader, ...
        return getattr(self.loader, name)
