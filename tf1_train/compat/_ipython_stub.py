"""Stand-ins for ``IPython.display`` when IPython is not installed, for the
notebook runner (_notebook.py): notebooks import its display classes
(Hvass-Labs' tutorials: ``from IPython.display import Image``) and would stop
there, though the runner needs no Jupyter. Each stand-in shows nothing and is
shown as IPython showed it as text (``<IPython.core.display.Image object>``);
the runner says once that they are stand-ins. With IPython installed, its own
module is used.
"""

import importlib.util
import sys
import types

NAMES = ("Image", "HTML", "Markdown", "SVG", "Math", "Latex", "JSON", "Javascript", "IFrame")
NAMES += ("YouTubeVideo", "Audio", "Video", "FileLink", "DisplayHandle")


class _Shown:
    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def __repr__(self):
        return f"<IPython.core.display.{type(self).__name__} object>"


def _get_ipython():
    """None, as IPython's ``get_ipython()`` answers outside a shell: matplotlib
    (``pyplot``'s backend switch, every new canvas) asks whether a shell is
    there to hook into whenever ``IPython`` is imported, and with None draws as
    in a script."""
    return None


def install(display) -> bool:
    """Puts the stand-ins in sys.modules if IPython is missing; whether it did."""
    if "IPython" in sys.modules or importlib.util.find_spec("IPython") is not None:
        return False
    shown = types.ModuleType("IPython.display", "stand-ins (tf1_train.compat's notebook runner)")
    for name in NAMES:
        setattr(shown, name, type(name, (_Shown,), {}))
    shown.display = display
    shown.clear_output = lambda wait=False: None
    shown.set_matplotlib_formats = lambda *formats, **kwargs: None
    core = types.ModuleType("IPython.core")
    core.display = shown
    package = types.ModuleType("IPython", "stand-in: IPython is not installed")
    package.display, package.core, package.__path__ = shown, core, []
    package.get_ipython = _get_ipython
    package.version_info = (0, 0, 0, "stand-in")  # matplotlib reads it; no real version
    core.__path__ = []
    sys.modules.update(
        {
            "IPython": package,
            "IPython.display": shown,
            "IPython.core": core,
            "IPython.core.display": shown,
        }  # fmt: skip
    )
    return True
