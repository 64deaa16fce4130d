"""A TF 1.x code base's own C++/CUDA ops: the lines of their sources, their
build scripts and their loading that TensorFlow 2.21 refuses.

Each severity was measured by building a TF 1.x-style op library
(tests/legacy_scripts/interp_op) against TensorFlow 2.21 with g++ 12, one
TF 1.x line at a time (tests/test_custom_ops.py repeats it):

- ``-std=c++11`` (or 14): 2.21's headers stop at ``#error "C++ versions less
  than C++17 are not supported."``;
- ``Status::OK()``: ``'OK' is not a member of 'tensorflow::Status'`` (Status
  is absl's now); ``::tensorflow::Status()`` is OK on TF 1.x and 2.x alike;
- ``-ltensorflow_framework``, ``-l:libtensorflow_framework.so.1`` or a path to
  ``libtensorflow_framework.so`` (CMake's): the link fails (TensorFlow 2 ships
  ``libtensorflow_framework.so.2`` only);
- ``-D_GLIBCXX_USE_CXX11_ABI=0`` (TF 1.x's wheels were built so): it builds,
  and ``tf.load_op_library`` then raises ``undefined symbol``;
- ``tensorflow/core/util/cuda_kernel_helper.h`` and its two neighbours (TF
  1.13 and before): TensorFlow 1.14 renamed them ``gpu_*.h``; 2.21 has no file
  of the old names.

C++ sources and build scripts are read line by line (comments skipped; a
script's command continued with a backslash whole); a flag that TensorFlow's
own compile flags follow on its command is theirs to override; a Python
file's string constants that read as command lines are read for the build flags (setup.py's
``extra_compile_args``, a program that runs nvcc itself, as StyleGAN2 does).
"""

import ast
import pathlib
import re
from typing import Dict, Iterator, List, NamedTuple, Sequence, Set, Tuple

from tf1_train.port.rules import BREAKS, _rule

ROW_LIBRARY = "a custom op library and its build"
ROW_SOURCE = "a custom op's C++ source"
SOURCES = (".cc", ".cpp", ".cxx", ".cu", ".h", ".hpp", ".cuh")
SCRIPTS = (".sh", ".mk", ".cmake")
SCRIPT_NAMES = ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt")
LOADERS = ("load_op_library", "load_library")
SYSCONFIG = "tf.sysconfig.get_compile_flags() and get_link_flags()"
NOT_READ = "leaves it unchanged and reports nothing (it reads only .py files)"

LOAD = _rule(
    "load-op-library",
    BREAKS,
    "rebuild the library from its sources against the TensorFlow that runs it, with the flags "
    f"of {SYSCONFIG} (C++17, -D_GLIBCXX_USE_CXX11_ABI=1, -l:libtensorflow_framework.so.2): one "
    "built for TF 1.x does not load ({library}); the lines of its sources and build script "
    "this TensorFlow refuses are reported on their own",
    "leaves it unchanged and reports nothing",
    ROW_LIBRARY,
)
ABI = _rule(
    "op-build-abi",
    BREAKS,
    "-D_GLIBCXX_USE_CXX11_ABI=1 (TensorFlow 2.21's; take the flags from "
    f"{SYSCONFIG}): a library built with TF 1.x's old C++ ABI builds, then fails to load with "
    "'undefined symbol'",
    NOT_READ,
    ROW_LIBRARY,
)
STANDARD = _rule(
    "op-build-std",
    BREAKS,
    "-std=c++17: TensorFlow 2.21's headers stop at '#error \"C++ versions less than C++17 are "
    f"not supported.\"' (take the flags from {SYSCONFIG})",
    NOT_READ,
    ROW_LIBRARY,
)
FRAMEWORK = _rule(
    "op-build-framework",
    BREAKS,
    "-l:libtensorflow_framework.so.2 (from tf.sysconfig.get_link_flags()): TensorFlow 2 ships "
    "that name only, so the link fails ('cannot find' the library named)",
    NOT_READ,
    ROW_LIBRARY,
)
STATUS_OK = _rule(
    "op-status-ok",
    BREAKS,
    "return ::tensorflow::Status(); (an OK status on TF 1.x and 2.x alike) or absl::OkStatus(): "
    "TensorFlow's Status is absl::Status now, which has no OK()",
    NOT_READ,
    ROW_SOURCE,
)
CUDA_HEADER = _rule(
    "op-cuda-header",
    BREAKS,
    '#include "tensorflow/core/util/{header}": TensorFlow 1.14 renamed the cuda_*.h helpers '
    "gpu_*.h (CudaLaunchConfig, CUDA_1D_KERNEL_LOOP and the other CUDA names stay)",
    NOT_READ,
    ROW_SOURCE,
)

_FLAG_PATTERNS = (
    (ABI, re.compile(r"_GLIBCXX_USE_CXX11_ABI\s*=\s*0\b|define\s+_GLIBCXX_USE_CXX11_ABI\s+0\b")),
    (
        STANDARD,
        re.compile(
            r"(?<![\w-])--?std[= ]?(?:c|gnu)\+\+(?:98|03|0x|11|1y|14)\b"
            r"|CMAKE_(?:CXX|CUDA)_STANDARD\s+(?:98|11|14)\b"
        ),
    ),
    # -l, or a path to the library but TensorFlow 2's .so.2 (CMake's ${TF_LIB}/...so)
    (FRAMEWORK, re.compile(r"-ltensorflow_framework\b|libtensorflow_framework\.so(?!\.2\b)")),
)
_SOURCE_PATTERNS = (
    (STATUS_OK, re.compile(r"\bStatus::OK\s*\(\s*\)")),
    (
        CUDA_HEADER,
        re.compile(
            r"#\s*include\s*[<\"]tensorflow/core/util/"
            r"(cuda_kernel_helper|cuda_launch_config|cuda_device_functions)\.h[>\"]"
        ),
    ),
)
_TF_COMPILE_EXPANSION = re.compile(r"TF_CFLAGS|get_compile_flags")
_COMPILER = re.compile(r"\s*(?:nvcc|g\+\+|gcc|c\+\+|clang\+\+)(?:\s|$)")
_GPU_NAMES = {
    "cuda_kernel_helper": "gpu_kernel_helper.h",
    "cuda_launch_config": "gpu_launch_config.h",
    "cuda_device_functions": "gpu_device_functions.h",
}


class Line(NamedTuple):
    """Where a native finding is: what ``scan._finding`` reads of an ast node."""

    lineno: int
    col_offset: int


def is_native(path: pathlib.Path) -> bool:
    """A C++/CUDA source or a build script, which the scan reads as text."""
    return path.suffix in SOURCES + SCRIPTS or path.name in SCRIPT_NAMES


def native_files(root: pathlib.Path) -> List[pathlib.Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and is_native(p))


def _code(line: str, source: bool) -> str:
    """The line without its comment (``//`` in C++; ``#`` in scripts, CMake and makefiles)."""
    if source:
        return line.split("//", 1)[0]
    return "" if line.lstrip().startswith("#") else line.split(" #", 1)[0]


def text_findings(text: str, source: bool) -> Iterator[Tuple[Line, str, str, Dict[str, str]]]:
    """(where, rule, construct, fill-ins) of each refused line of a source or
    build script. A script's command continued with ``\\`` is read whole, and a
    C++ standard or ABI flag that TensorFlow's own compile flags follow on it
    (``${TF_CFLAGS[@]}`` of TensorFlow's guide to new ops) is not reported: the
    compiler takes the last one, TensorFlow's."""
    patterns = _SOURCE_PATTERNS + _FLAG_PATTERNS if source else _FLAG_PATTERNS
    for command, starts in _commands(text, source):
        for key, pattern in patterns:
            for match in pattern.finditer(command):
                if key in (ABI, STANDARD) and _TF_COMPILE_EXPANSION.search(command, match.end()):
                    continue
                number = max(n for n, at in starts if at <= match.start())
                col = match.start() - dict(starts)[number]
                fills = {"header": _GPU_NAMES.get(match.groups()[0], "")} if match.groups() else {}
                yield Line(number, col), key, match.group(0), fills


def _commands(text: str, source: bool) -> Iterator[Tuple[str, List[Tuple[int, int]]]]:
    """Each command without its comments, and where each of its physical lines starts in it."""
    command, starts = "", []
    for number, line in enumerate(text.splitlines(), start=1):
        code = _code(line, source)
        starts.append((number, len(command)))
        if not source and code.rstrip().endswith("\\"):
            command += code.rstrip()[:-1] + " "
            continue
        yield command + code, starts
        command, starts = "", []
    if starts:
        yield command, starts


def file_findings(path: pathlib.Path):
    """Findings of one native file, or an ``error:`` line when it cannot be read."""
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as e:
        return [], f"error: {path}: cannot be read: {e}"
    return list(text_findings(text, path.suffix in SOURCES)), None


def string_findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """Build flags in a Python file's string constants (setup.py, a program
    that runs nvcc). A standard or ABI flag that TensorFlow's compile flags
    follow in the same expression (``['-std=c++11'] + get_compile_flags()``,
    ``[..., *get_compile_flags()]``) is not reported, as on a command line."""
    overridden = _followed_by_tf_flags(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if not _flag_like(node.value):
                continue
            for _, key, construct, fills in text_findings(node.value, source=False):
                if not (key in (ABI, STANDARD) and id(node) in overridden):
                    yield node, key, construct, fills


def _followed_by_tf_flags(tree: ast.AST) -> Set[int]:
    """ids of the string constants that a call of TensorFlow's compile flags
    follows: the left of a ``+`` whose right calls it, or an earlier item of
    a list or tuple a later item of which calls it."""
    found: Set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            before = [node.left] if _calls_tf_flags(node.right) else []
        elif isinstance(node, (ast.List, ast.Tuple)):
            # each item read once (a data table's list may be long): up to the last call
            last = max((i for i, e in enumerate(node.elts) if _calls_tf_flags(e)), default=0)
            before = node.elts[:last]
        else:
            continue
        found.update(id(n) for b in before for n in ast.walk(b) if isinstance(n, ast.Constant))
    return found


def _calls_tf_flags(node: ast.AST) -> bool:
    return any(
        isinstance(n, ast.Call) and _TF_COMPILE_EXPANSION.search(ast.unparse(n.func))
        for n in ast.walk(node)
    )


def _flag_like(text: str) -> bool:
    """A command line or flags, not prose: at least half its words are flags,
    paths or assignments (a warning that names a flag is not a build); a
    sentence's closing period or comma does not make a word a path."""
    words = [w.strip("'\"").rstrip(".,;:!?") for w in text.split()]
    flags = [w for w in words if w.startswith("-") or any(c in w for c in "/.=$+")]
    return bool(words) and 2 * len(flags) >= len(words)


def load_findings(tree: ast.AST, resolve, here: pathlib.Path):
    """Each ``tf.load_op_library``/``tf.load_library`` call: breaks unless the
    library it names, found under ``here``, links TensorFlow 2's framework."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        path = resolve(node.func) or ""
        if path.startswith("tensorflow.") and path.rsplit(".", 1)[-1] in LOADERS:
            yield node, LOAD, ast.unparse(node.func), _library_fills(node, tree, here)


def _library_fills(call: ast.Call, tree: ast.AST, here: pathlib.Path) -> Dict[str, str]:
    names = [n for arg in _argument_values(call, tree) for n in _library_names(arg)]
    if not names and _runs_a_compiler(tree):
        return {
            "library": "a library the program builds",
            "works": "the program builds the library as it runs (StyleGAN2's nvcc line): it "
            "loads once its build flags are TensorFlow 2.21's, which the scan checks where "
            "the program writes them",
        }
    if not names:
        return {"library": "the library's name is computed as the program runs: check it"}
    found = [p for name in names for p in _found(here, name)]
    if not found:
        return {"library": f"{names[0]}: not found under {here}"}
    needs = set(re.findall(rb"libtensorflow_framework\.so(?:\.\d+)?", found[0].read_bytes()))
    if needs == {b"libtensorflow_framework.so.2"}:
        return {
            "library": found[0].name,
            "works": f"{found[0]} links libtensorflow_framework.so.2: built against a "
            "TensorFlow 2, it loads into the version it was built for (TensorFlow keeps no "
            "C++ ABI between versions: rebuild after each upgrade)",
        }
    if needs:
        need = sorted(needs)[0].decode()
        return {"library": f"{found[0]}: built for TF 1.x, it needs {need}, which TF 2 lacks"}
    return {"library": f"{found[0]}: it links no libtensorflow_framework.so.2"}


def _runs_a_compiler(tree: ast.AST) -> bool:
    """Whether the file writes out a compiler command (``'nvcc ' + opts``): it builds as it runs."""
    return any(
        isinstance(n, ast.Constant) and isinstance(n.value, str) and _COMPILER.match(n.value)
        for n in ast.walk(tree)
    )


def _argument_values(call: ast.Call, tree: ast.AST) -> List[ast.AST]:
    """The call's arguments, and what the file assigns to a name passed as one
    (``lib = os.path.join(BASE_DIR, 'x.so')``, then ``tf.load_op_library(lib)``)."""
    names = {a.id for a in call.args if isinstance(a, ast.Name)}
    assigned = [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id in names for t in n.targets)
    ]
    return list(call.args) + assigned


def _library_names(node: ast.AST) -> List[str]:
    """File names of libraries written out in ``node`` (not a bare '.so' suffix)."""
    found = [n.value for n in ast.walk(node) if isinstance(n, ast.Constant)]
    names = [pathlib.PurePath(v).name for v in found if isinstance(v, str)]
    return [n for n in names if n.endswith((".so", ".dylib", ".dll")) and not n.startswith(".")]


def _found(here: pathlib.Path, name: str) -> Sequence[pathlib.Path]:
    return sorted(p for p in here.rglob(name) if p.is_file())[:1]
