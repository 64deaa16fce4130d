"""The scan's librosa rules against the librosa installed here (0.10 or
later, what installs beside TensorFlow 2.21's NumPy 2).

tests/legacy_scripts/tacotron_audio_style.py (ours, in keithito/tacotron's
manner) is run as a user would: as written it stops at the positional
``filters.mel``; with the scan's keyword edit it runs, and its spectrogram's
first and last frames differ from librosa 0.8's STFT (computed here with
NumPy, as 0.8 did) until the scan's ``pad_mode='reflect'`` is passed too.
"""

import ast
import importlib
import importlib.util
import inspect
import json
import pathlib
import shutil
import subprocess
import sys

import librosa
import numpy as np
import pytest
import scipy.io.wavfile
import scipy.signal

from tf1_train.port import librosa_rules, scan
from tf1_train.port.librosa_table import DEFAULTS, POSITIONAL, REMOVED

SCRIPT = pathlib.Path(__file__).parent / "legacy_scripts" / "tacotron_audio_style.py"
N_FFT, HOP, WIN = 512, 128, 400


# librosa compiles its numba kernels (guvectorize and vectorize with
# signatures) as librosa.core, .onset and .beat import: 20-35 s on a fresh
# install, so on every CI run. The rows are Python functions whose signatures
# do not depend on those kernels: a child process reads them with numba's
# eager decorators leaving the kernels uncompiled.
_SIGNATURES = r"""
import inspect, json, sys
import numba
numba.guvectorize = numba.vectorize = lambda *args, **kwargs: (lambda kernel: kernel)
out = {}
for path in json.loads(sys.argv[1]):
    module, name = path.rsplit(".", 1)
    params = inspect.signature(getattr(__import__(module, fromlist=[name]), name)).parameters
    out[path] = [[p.name, p.kind.name, repr(p.default)] for p in params.values()]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def signatures():
    paths = sorted(set(POSITIONAL) | set(DEFAULTS) | {"librosa.feature.melspectrogram"})
    proc = subprocess.run(
        [sys.executable, "-c", _SIGNATURES, json.dumps(paths)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_the_child_reads_the_signatures_inspect_reads_here(signatures):
    for path in ("librosa.stft", "librosa.filters.mel", "librosa.feature.mfcc"):
        module, name = path.rsplit(".", 1)
        params = inspect.signature(getattr(importlib.import_module(module), name)).parameters
        assert signatures[path] == [[p.name, p.kind.name, repr(p.default)] for p in params.values()]


@pytest.mark.parametrize("path", sorted(POSITIONAL))
def test_each_row_is_the_installed_librosas_positional_limit(signatures, path):
    allowed, later = POSITIONAL[path]
    kinds = [kind for _, kind, _ in signatures[path]]
    assert sum(kind in ("POSITIONAL_ONLY", "POSITIONAL_OR_KEYWORD") for kind in kinds) == allowed
    keyword_only = {name for name, kind, _ in signatures[path] if kind == "KEYWORD_ONLY"}
    assert set(later.split()) <= keyword_only  # what a 0.8 caller passed by position after them


@pytest.mark.parametrize("path", sorted(DEFAULTS))
def test_each_changed_default_is_the_installed_librosas(signatures, path):
    params = {name: (kind, default) for name, kind, default in signatures[path]}
    melspectrogram = {name for name, _, _ in signatures["librosa.feature.melspectrogram"]}
    for argument, _old, new, _effect in DEFAULTS[path]:
        if argument and argument in params:
            assert params[argument][1] == new
        elif argument:  # mfcc, onset_strength: passed on to melspectrogram
            assert "VAR_KEYWORD" in {kind for kind, _ in params.values()}
            assert "pad_mode" in melspectrogram


def test_what_the_table_says_is_removed_is_gone():
    for path in REMOVED:  # librosa.output.write_wav: its module is gone
        module, name = path.rsplit(".", 1)
        if module == "librosa.display":  # it imports matplotlib and draws: read its source
            source = pathlib.Path(importlib.util.find_spec(module).origin).read_text()
            defined = {n.name for n in ast.parse(source).body if isinstance(n, ast.FunctionDef)}
            assert name not in defined and "waveshow" in defined, path
            continue
        assert not hasattr(importlib.import_module(module.replace(".output", "")), name), path
    assert not hasattr(librosa, "output")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("librosa.output")


def _tone(tmp_path) -> pathlib.Path:
    t = np.arange(int(16000 * 0.6)) / 16000
    y = 0.5 * np.sin(2 * np.pi * 330 * t) + 0.2 * np.sin(2 * np.pi * 1250 * t + 0.3)
    path = tmp_path / "tone.wav"
    scipy.io.wavfile.write(path, 16000, y.astype(np.float32))  # at the script's rate
    return path


def _stft_of_librosa_0_8(y):
    """librosa 0.8.1's stft(center=True, pad_mode='reflect', window='hann') in NumPy."""
    y = np.pad(y, N_FFT // 2, mode="reflect")
    window = scipy.signal.get_window("hann", WIN, fftbins=True)
    lpad = (N_FFT - WIN) // 2
    window = np.pad(window, (lpad, N_FFT - WIN - lpad))
    starts = range(0, len(y) - N_FFT + 1, HOP)
    frames = np.stack([y[s : s + N_FFT] * window for s in starts], axis=1)
    return np.abs(np.fft.rfft(frames, axis=0))


def _run(script: pathlib.Path, tmp_path):
    out = tmp_path / "out.npz"
    proc = subprocess.run(
        [sys.executable, str(script), str(_tone(tmp_path)), str(out)],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    return proc, out


def test_tacotron_style_preprocessing_stops_where_the_scan_says_and_its_edits_restore_0_8(
    tmp_path,
):
    work = tmp_path / "src"
    work.mkdir()
    script = work / SCRIPT.name
    shutil.copy(SCRIPT, script)
    source = script.read_text()
    report = scan.scan([str(work)])
    found = {(f.rule, source.splitlines()[f.line - 1].strip()) for f in report.findings}
    assert found == {
        ("librosa-default", "return librosa.core.load(path, sr=SAMPLE_RATE)[0]"),
        ("librosa-default",
         "return librosa.stft(y=y, n_fft=N_FFT, hop_length=HOP_LENGTH, win_length=WIN_LENGTH)"),
        ("librosa-keyword-only", "return librosa.filters.mel(SAMPLE_RATE, N_FFT, n_mels=N_MELS)"),
    }  # fmt: skip

    proc, _ = _run(script, tmp_path)  # as written
    assert proc.returncode != 0
    assert "mel() takes 0 positional arguments" in proc.stderr

    (keyword,) = [f for f in report.findings if f.rule == "librosa-keyword-only"]
    call = keyword.fix.split(": librosa 0.10")[0]
    assert call == "librosa.filters.mel(sr=SAMPLE_RATE, n_fft=N_FFT, n_mels=N_MELS)"
    script.write_text(
        source.replace("librosa.filters.mel(SAMPLE_RATE, N_FFT, n_mels=N_MELS)", call)
    )
    proc, out = _run(script, tmp_path)
    assert proc.returncode == 0, proc.stderr
    y = librosa.load(_tone(tmp_path), sr=16000)[0]
    expected = _stft_of_librosa_0_8(y)
    linear = np.load(out)["linear"]
    assert linear.shape == expected.shape
    scale = expected.max()
    np.testing.assert_allclose(linear[:, 4:-4], expected[:, 4:-4], atol=1e-5 * scale)
    assert np.abs(linear[:, 0] - expected[:, 0]).max() > 1e-2 * scale  # the padded ends

    (stft,) = [f for f in report.findings if "stft" in f.construct]
    assert "pass pad_mode='reflect'" in stft.fix
    edited = script.read_text().replace(
        "win_length=WIN_LENGTH)", "win_length=WIN_LENGTH, pad_mode='reflect')"
    )
    script.write_text(edited)
    proc, out = _run(script, tmp_path)
    assert proc.returncode == 0, proc.stderr
    np.testing.assert_allclose(np.load(out)["linear"], expected, atol=1e-5 * scale)


@pytest.mark.parametrize(
    "line, fixed",
    [
        ("m = librosa.filters.mel(22050, 2048, 80)",
         "librosa.filters.mel(sr=22050, n_fft=2048, n_mels=80)"),
        ("y = librosa.resample(x, 22050, 16000)",
         "librosa.resample(x, orig_sr=22050, target_sr=16000)"),
        ("c = mfcc(y, 16000, None, 13)", "mfcc(y=y, sr=16000, S=None, n_mfcc=13)"),
    ],
)  # fmt: skip
def test_the_keyword_edit_is_a_call_the_installed_librosa_takes(tmp_path, line, fixed):
    source = f"import librosa\nfrom librosa.feature import mfcc\n{line}\n"
    (tmp_path / "p.py").write_text(source)
    findings = scan.scan([str(tmp_path)]).findings
    (finding,) = [f for f in findings if f.rule == "librosa-keyword-only"]
    assert finding.fix.startswith(fixed + ": librosa 0.10 takes")
    x = y = np.sin(np.arange(4096) / 10.0).astype(np.float32)
    names = {"librosa": librosa, "mfcc": librosa.feature.mfcc, "x": x, "y": y}
    with pytest.raises(TypeError):
        eval(line.split("= ", 1)[1], names)  # as written
    eval(fixed, names)  # the scan's edit


def test_calls_that_pass_the_old_default_or_run_no_stft_are_not_reported():
    import ast

    for line in (
        "librosa.stft(y, n_fft=512, pad_mode='reflect')",
        "librosa.stft(y, n_fft=512, center=False)",
        "librosa.feature.melspectrogram(S=power, sr=16000)",
        "librosa.load(path, sr=None)",
        "librosa.stft(y, **options)",
    ):
        tree = ast.parse(f"import librosa\n{line}\n")
        assert [r for _, r, _, _ in librosa_rules.findings(tree)] == [], line
