"""python -m tf1_train.compat SCRIPT.py [ARGS...]: run an unmodified legacy
``tf.layers`` program on Keras 3, as ``__main__`` with ``sys.argv`` set to
``[SCRIPT.py, ARGS...]``, after ``tf1_train.compat.install()``, in graph mode
as under TF1. ``python -m tf1_train.compat -m PACKAGE.MODULE [ARGS...]``
runs a module of a package the way ``python -m`` does (the current directory
first on ``sys.path``, relative imports working): code bases such as
TensorFlow's NMT (``python -m nmt.nmt``) were started so. A notebook
(``NOTEBOOK.ipynb``) runs its code cells in order and compares their outputs
with the ones it stored (_notebook.py). With ``--v1``
first, ``import tensorflow as tf`` in the program's own files means the v1
API, as on TensorFlow 1.x (_v1_imports.py); with ``--v1_shapes``, shapes
hold TF 1.x's ``Dimension`` objects (``x.shape[-1].value``, BERT's and NMT's
idiom, works): process-wide, since TensorFlow keeps one switch for it, so
opt-in; with ``--v1_variables``, TF 1.x's reference variables and its
control flow (a ``cond`` of ``Switch``/``Merge`` ops, which can read a
reference variable: TF 2's branch functions cannot), so graph rewrites that
name their ops work (the freeze scripts' ``RefSwitch`` fix, ``'/read'``
tensors), also process-wide; with ``--v1_control_flow``, TF 1.x's control
flow alone (a lookup made inside a loop then has TF 1.x's sparse gradient,
port/loop_rules.py); with ``--v1_seeds``, TF 1.x's op seeds for random ops
given none under a graph seed (_v1_seeds.py); with ``--gpus_as_cpus=N``, a
multi-GPU program's ``/gpu:i`` towers run on N virtual CPU devices (_gpus_as_cpus.py); with
``--v1_packages=NAME[,NAME...]``, installed TF 1.x libraries the program
uses (stable-baselines) get the v1 API as the program's own files do; with
``--v1_root=DIR[,DIR...]``, the program's own files outside the script's
directory do too (a code base whose scripts put ``..`` on ``sys.path`` to
import its shared package).

Graph mode because a TF1 program that builds inside ``with
tf.Graph().as_default():`` and never disables eager execution (tf-slim's
``train_image_classifier.py``) ran every thread in graph mode on TF1; on TF 2
a thread outside that block is eager, and ``tf.train.Supervisor``'s step
counter thread (``slim.learning.train``) then fails reading the global step
("is out of scope and cannot be used here") and training stops at step 0."""

import importlib.util
import os
import runpy
import sys
import traceback
from typing import NamedTuple, Optional, Tuple


def _eigen_for_v1_seeds(argv: list) -> bool:
    """``--v1_seeds`` turns oneDNN's CPU kernels off, before TensorFlow loads.

    It asks for TF 1.x's numbers, and TF 1.x's pip packages computed them with
    Eigen's kernels; TensorFlow 2.21 turns oneDNN's on by itself on CPUs with
    AVX-512 VNNI/BF16 or AMX, whose matmuls round otherwise (a graph-seeded
    regression of the TensorFlow cookbook drew TF 1.15.5's weights, then left
    its path at step 3's gradient). A TF_ENABLE_ONEDNN_OPTS already set is kept.
    """
    for arg in argv:
        if not arg.startswith("--"):
            return False  # the program and its own arguments
        if arg == "--v1_seeds" and "TF_ENABLE_ONEDNN_OPTS" not in os.environ:
            os.environ["TF_ENABLE_ONEDNN_OPTS"] = "0"
            return True
    return False


EIGEN_NOTE = (
    "note: --v1_seeds: oneDNN's CPU kernels off (TF_ENABLE_ONEDNN_OPTS=0), as TF 1.x's pip "
    "packages computed, so the steps keep TF 1.15.5's round-off; TF_ENABLE_ONEDNN_OPTS=1 "
    "keeps them on (faster convolutions, other round-off)"
)
_EIGEN = __name__ == "__main__" and _eigen_for_v1_seeds(sys.argv[1:])

from tf1_train.compat import _horovod, _numpy_scalars, _v1_notes, install  # noqa: E402

USAGE = (
    "usage: python -m tf1_train.compat [--v1] [--v1_shapes] [--v1_variables] "
    "[--v1_control_flow] [--v1_seeds] [--gpus_as_cpus=N] [--v1_packages=NAME,...] "
    "[--v1_root=DIR,...] "
    "SCRIPT.py|NOTEBOOK.ipynb [ARGS...] | -m MODULE [ARGS...]"
)


def _module_error(name: str) -> Optional[str]:
    """Why ``-m name`` cannot run, or None (python -m's own checks)."""
    if not name or name.startswith("-"):
        return f"-m needs a module name; {USAGE}"
    sys.path.insert(0, os.getcwd())
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as e:  # a parent package that is missing or fails
        return f"-m {name}: {e}"
    if spec is None:
        return (f"-m {name}: no such module (run from the directory that holds its "
                "package, or put it on PYTHONPATH)")  # fmt: skip
    return None


# on/off options, before the program
SWITCHES = ("--v1", "--v1_shapes", "--v1_variables", "--v1_control_flow", "--v1_seeds")
SWITCH_FIELDS = ("v1", "v1_shapes", "v1_variables", "v1_control_flow", "v1_seeds", "v1_packages")
SWITCH_FIELDS += ("v1_root",)


class Options(NamedTuple):
    """What comes before the program: ``--v1``, ``--v1_shapes``, ``--v1_variables``,
    ``--v1_control_flow``, ``--gpus_as_cpus=N``, ``--v1_packages=NAME,...``,
    ``--v1_root=DIR,...``."""

    v1: bool = False
    v1_shapes: bool = False
    v1_variables: bool = False
    v1_control_flow: bool = False
    v1_seeds: bool = False
    gpus: int = 0  # N, 0 for none
    v1_packages: Tuple[str, ...] = ()  # the paths of the packages named
    v1_root: Tuple[str, ...] = ()  # more folders of the program's own files
    refused: str = ""  # why an option's value cannot run, the first such


def _options(argv: list) -> Tuple[Options, list]:
    """The runner's options before the program, in any order, and the rest."""
    options = Options()
    valued = ("--gpus_as_cpus=", "--v1_packages", "--v1_root")
    while argv and (argv[0] in (*SWITCHES, "--gpus_as_cpus") or argv[0].startswith(valued)):
        option, argv = argv[0], argv[1:]
        if option in SWITCHES:
            options = options._replace(**{option[2:]: True})
            continue
        if option.startswith("--v1_root"):
            roots, why = _roots(option.partition("=")[2])
            options = options._replace(v1_root=roots, refused=options.refused or why)
            continue
        if option.startswith("--v1_packages"):
            from tf1_train.compat._v1_imports import package_paths

            names = [n for n in option.partition("=")[2].split(",") if n]
            paths, why = package_paths(names or [""])
            options = options._replace(v1_packages=tuple(paths), refused=options.refused or why)
            continue
        from tf1_train.compat._gpus_as_cpus import parse

        value = option.partition("=")[2]
        why = parse(value) or ""
        options = options._replace(gpus=0 if why else int(value), refused=options.refused or why)
    return options, argv


def _roots(value: str) -> Tuple[Tuple[str, ...], str]:
    """``--v1_root``'s folders, absolute, or why they cannot be served."""
    roots = [r for r in value.split(",") if r]
    missing = [r for r in roots if not os.path.isdir(r)]
    if not roots or missing:
        what = f"no such folder {missing[0]!r}" if missing else "no folder given"
        give = "give the folders of the program's own files outside the script's directory"
        return (), f"--v1_root: {what} ({give}, comma-separated: --v1_root=..)"
    return tuple(os.path.abspath(r) for r in roots), ""


def main(argv: Optional[list] = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    given, argv = _options(argv)
    if given.refused:
        print(f"error: {given.refused}", file=sys.stderr)
        return 2
    if given.v1_seeds and _EIGEN:
        print(EIGEN_NOTE, file=sys.stderr)
    if not argv:
        named = [f"--{n}" for n in SWITCH_FIELDS if getattr(given, n)]
        named = named or ["--gpus_as_cpus"]
        print(f"error: {named[0]} needs a program to run; {USAGE}", file=sys.stderr)
        return 2
    if given.gpus:
        from tf1_train.compat import _gpus_as_cpus

        root = os.getcwd() if argv[0] == "-m" else os.path.dirname(os.path.abspath(argv[0]))
        print(_gpus_as_cpus.install(given.gpus, [root]), file=sys.stderr)
    if argv[0] == "-m":
        return _run_module(argv[1] if len(argv) > 1 else "", argv[2:], given)
    script = argv[0]
    if not os.path.isfile(script):
        print(f"error: {script}: no such file; {USAGE}", file=sys.stderr)
        return 2
    program = _program(script)
    if isinstance(program, str):
        print(f"error: {script}: {program}", file=sys.stderr)
        return 2
    _graph_mode(os.path.dirname(os.path.abspath(script)) if given.v1 else None, given)
    sys.argv = [script, *argv[1:]]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    return _run(program, given)


def _program(script: str):
    """What runs ``script``: a notebook's cells (_notebook.py) or the file; a
    string says why a notebook cannot run."""
    if not script.endswith(".ipynb"):
        return lambda: runpy.run_path(script, run_name="__main__")
    from tf1_train import notebook
    from tf1_train.compat import _notebook

    try:
        notebook.read(script)
    except (OSError, ValueError) as e:
        return f"{e} (give a Python notebook, a .py script or -m MODULE)"

    return lambda: _notebook.run(script)


def _run_module(module: str, args: list, given: Options) -> int:
    """``-m module args``, as ``python -m`` runs it."""
    if given.v1 and module and not module.startswith("-"):
        _graph_mode(os.getcwd(), given)  # before finding it imports its parents
    error = _module_error(module)
    if error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    if not given.v1:
        _graph_mode(None, given)
    sys.argv = [module, *args]  # runpy sets argv[0] to the module's file
    return _run(lambda: runpy.run_module(module, run_name="__main__", alter_sys=True), given)


def _run(program, given: Options) -> int:
    """Runs the program; a TF 1.x name it reads from ``tensorflow`` where the
    v1 API is not served ends with its traceback and one note saying how to
    serve it there (GraphSAGE's package imported from a script elsewhere),
    also when a test program caught it and exited non-zero (_v1_notes.py); a
    one-element array NumPy 2 refuses as a number, with the edit
    (_numpy_scalars.py)."""
    _v1_notes.record()
    try:
        program()
    except _horovod.Refused as e:  # several processes launched: one `error:` line
        print(f"error: {e}", file=sys.stderr)
        return 2
    except (AttributeError, TypeError, ValueError) as e:
        note = _v1_note(e, given) or _numpy_scalars.note(e)
        if not note:
            raise
        traceback.print_exc()
        print(f"note: {note}", file=sys.stderr)
        return 1
    except SystemExit as e:
        miss = _v1_notes.first_recorded()
        note = _v1_notes.advice(miss, given.v1) if miss and e.code not in (0, None) else ""
        if note:
            print(f"note: {note}", file=sys.stderr)
        raise
    return 0


DIMENSION_NOTE = (
    "TF 1.x's Dimension.value read on a TensorFlow 2 shape, whose dimensions are ints or None: "
    "run with --v1_shapes (TF 1.x's Dimension and TensorShape), or read "
    "tf.compat.v1.dimension_value(shape[i]) instead of shape[i].value"
)


def _v1_note(error: BaseException, given: Options) -> str:
    """The note on an AttributeError a TF 1.x name raised, or on a
    ``shape[i].value`` without ``--v1_shapes`` (noreward-rl's
    ``x.get_shape()[1].value``), or ''."""
    if not isinstance(error, AttributeError):
        return ""
    if not given.v1_shapes and str(error) in _NO_VALUE:
        return DIMENSION_NOTE
    miss = _v1_notes.of_error(error)
    return _v1_notes.advice(miss, given.v1) if miss else ""


SEEDS_WITHOUT_VARIABLES = (
    "no --v1_variables: TF 2's resource variables (and, without --v1_control_flow, its "
    "tf.cond and while_loop) build other ops than TF 1.x, so the draws after the first "
    "variable or loop do not take TF 1.15.5's seeds under --v1_seeds; add --v1_variables"
)
_NO_VALUE = ("'int' object has no attribute 'value'", "'NoneType' object has no attribute 'value'")


def enter_v1(root: str) -> None:
    """What ``python -m tf1_train.compat --v1 -m MODULE`` does before it runs
    MODULE from ``root``: install(), graph mode, and the v1 API for the files
    under ``root`` (tf1_train's own and installed packages keep TensorFlow
    2's). The TF1 entry point's and port check's ``--v1`` (a user's model
    module in TF 1.x's names, docs/YOUR_MODEL.md)."""
    _graph_mode(os.path.abspath(root), Options(v1=True))


def _graph_mode(v1_root: Optional[str], given: Options) -> None:
    """install(), graph mode, with ``--v1`` the v1 API for the files under
    ``v1_root`` (and ``--v1_packages``' files), and with ``--v1_shapes`` TF
    1.x's shapes everywhere, with ``--v1_variables`` its reference variables
    and control flow, with ``--v1_control_flow`` its control flow."""
    install()
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    # TF 1.x's tensors hash by identity, also those made in a while loop's
    # body (a FuncGraph, which shares its collections with the graph): TF1
    # programs key dicts and sets on tensors (OpenAI's gradient checkpointing)
    tf.compat.v1.disable_tensor_equality()
    if given.v1_shapes:
        tf.compat.v1.disable_v2_tensorshape()
    if given.v1_variables:
        tf.compat.v1.disable_resource_variables()
    if given.v1_variables or given.v1_control_flow:
        tf.compat.v1.disable_control_flow_v2()
    if given.v1_seeds:
        from tf1_train.compat import _v1_seeds

        _v1_seeds.install()
        if not given.v1_variables:
            print(f"note: {SEEDS_WITHOUT_VARIABLES}", file=sys.stderr)
    if v1_root or given.v1_packages or given.v1_root:
        from tf1_train.compat._v1_imports import serve_v1_api

        roots = ([v1_root] if v1_root else []) + list(given.v1_root)
        serve_v1_api(roots, given.v1_packages)


if __name__ == "__main__":
    sys.exit(main())
