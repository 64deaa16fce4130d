"""What librosa changed under TF1-era audio programs: Tacotron's and
WaveNet's preprocessing, speech models' MFCC features. The librosa that
installs beside TensorFlow 2.21's NumPy 2 is 0.10 or later, and three
things meet a program written for 0.5-0.8 there:

- positional arguments that 0.10 takes only by name raise TypeError
  (keithito/tacotron's ``librosa.filters.mel(hparams.sample_rate, n_fft,
  n_mels=...)``); the fix is the call with keywords, 0.8's names;
- defaults that 0.10 changed compute other numbers with no error: a
  centred STFT's ends padded with zeros, not reflected (``librosa.stft``,
  ``melspectrogram``, ``mfcc`` ...), and soxr's resampler where resampy's
  ran (``librosa.load(path, sr=...)``); the fix passes 0.8's value;
- what 0.6 to 0.9 removed: ``librosa.output.write_wav`` (ibab/tensorflow-wavenet's
  generate.py), ``feature.rmse`` (its audio reader), ``logamplitude``,
  and what 0.10 removed: ``display.waveplot`` (Tacotron-2's WaveNet plots).

The tables are tf1_train/port/librosa_table.py's.
"""

import ast
from typing import Dict, Iterator, Optional, Tuple

from tf1_train.port.librosa_table import DEFAULTS, POSITIONAL, REMOVED
from tf1_train.port.names import Aliases
from tf1_train.port.rules import BREAKS, CHANGES, _rule

ROW = "librosa 0.10's keyword-only arguments and defaults"
UPGRADE = "leaves it unchanged and reports nothing (it does not read librosa names)"

_rule(
    "librosa-keyword-only",
    BREAKS,
    "{call}: librosa 0.10 takes {names} only by name, so the positional call raises TypeError "
    "(librosa 0.8's order: {order})",
    UPGRADE,
    ROW,
)
_rule("librosa-default", CHANGES, "{fix}", UPGRADE, ROW)
_rule(
    "librosa-removed",
    BREAKS,
    "{new}: librosa {version} removed {old}, so it raises",
    UPGRADE,
    ROW,
)
_SPECTROGRAM_INPUTS = ("S", "C", "onset_envelope")  # given one, the function runs no STFT


def canonical(path: Optional[str]) -> Optional[str]:
    """librosa.core.spectrum.stft and librosa.core.stft are librosa.stft."""
    if not path or not path.startswith("librosa."):
        return None
    if path.startswith("librosa.core."):
        return "librosa." + path.rsplit(".", 1)[1]
    return path


def findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each librosa call or name that 0.10 refuses or
    computes differently."""
    librosa = Aliases(tree, roots=("librosa",))
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            path = canonical(librosa.resolve(node.func))
            if path in POSITIONAL:
                found = _positional(node, path)
                if found:
                    yield node, "librosa-keyword-only", ast.unparse(node.func), found
            fix = _changed_defaults(node, path) if path in DEFAULTS else ""
            if fix:
                yield node, "librosa-default", ast.unparse(node.func), {"fix": fix}
        for path in _named(node, librosa, inner):
            if path in REMOVED:
                new, version = REMOVED[path]
                yield node, "librosa-removed", path, {"new": new, "old": path, "version": version}


def _named(node: ast.AST, librosa: Aliases, inner) -> Iterator[str]:
    """The librosa paths an import or an outermost attribute read names."""
    if isinstance(node, ast.ImportFrom) and node.module and not node.level:
        paths = [f"{node.module}.{a.name}" for a in node.names]
        yield from [p for p in paths if p in REMOVED] or [node.module]
    elif isinstance(node, ast.Import):
        yield from (a.name for a in node.names)
    elif isinstance(node, ast.Attribute) and id(node) not in inner:
        path = canonical(librosa.resolve(node))
        if path in REMOVED or (path or "").rsplit(".", 1)[0] == "librosa.output":
            yield path if path in REMOVED else "librosa.output"


def _positional(call: ast.Call, path: str) -> Optional[Dict[str, str]]:
    """The fill-ins when `call` passes by position what librosa 0.10 takes by name."""
    allowed, later = POSITIONAL[path]
    names = later.split()
    extra = call.args[allowed:]
    if not extra or any(isinstance(a, ast.Starred) for a in call.args) or len(extra) > len(names):
        return None
    keywords = [ast.keyword(arg=n, value=a) for n, a in zip(names, extra)]
    fixed = ast.Call(func=call.func, args=call.args[:allowed], keywords=keywords + call.keywords)
    return {
        "call": ast.unparse(fixed),
        "names": ", ".join(names[: len(extra)]),
        "order": ", ".join(names),
    }


def _changed_defaults(call: ast.Call, path: str) -> str:
    """What the call gets from librosa 0.10's new defaults, and the argument that keeps
    0.8's numbers; '' when it passes them, or runs no STFT or resampling."""
    given = {k.arg for k in call.keywords}
    if None in given:  # **kwargs: cannot tell
        return ""
    allowed, later = POSITIONAL.get(path, (0, ""))
    given |= set(later.split()[: max(0, len(call.args) - allowed)])
    if given & set(_SPECTROGRAM_INPUTS) and "y" not in given:
        return ""
    parts = []
    for argument, old, new, effect in DEFAULTS[path]:
        if argument in given or _skipped(call, path, argument):
            continue
        if not argument:
            parts.append(f"librosa 0.10 changed what it computes: {effect}")
        else:
            parts.append(
                f"pass {argument}={old} for librosa 0.8-0.9's numbers: the default became "
                f"{new}, and {effect}"
            )
    return "; ".join(parts)


def _skipped(call: ast.Call, path: str, argument: str) -> bool:
    """No padding without centring (center=False); no resampling for load(sr=None)."""
    values = {k.arg: k.value for k in call.keywords}
    if argument == "pad_mode":
        center = values.get("center")
        return isinstance(center, ast.Constant) and center.value is False
    if argument == "res_type" and path == "librosa.load":
        sr = values.get("sr", call.args[1] if len(call.args) > 1 else None)
        return isinstance(sr, ast.Constant) and sr.value is None
    return False
