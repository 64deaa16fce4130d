"""What SciPy removed that TF1-era programs use: install() puts back each
name and module path SciPy still has under another name, as that object;
the scanner reports every use where it raises, the rest with its fix."""

import importlib
import pathlib
import warnings

import pytest
from conftest import ROOT, raising_lines, run_legacy_script

from tf1_train.compat import _scipy_removed
from tf1_train.port import scan as scanner

GCN_STYLE = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "gcn_style.py"


def _get(path: str):
    module, name = path.rsplit(".", 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # scipy.misc's
        return getattr(importlib.import_module(module), name, None)


def test_every_name_is_gone_from_this_scipy_and_every_home_is_here():
    # Else the scanner would call working code broken, or install() fail.
    for old, (new, _) in _scipy_removed.MOVED.items():
        assert _get(old) is None and callable(_get(new)), old
    for old in _scipy_removed.GONE:
        assert _get(old) is None, old
    for old, new in _scipy_removed.MODULES.items():
        with pytest.raises(ImportError):
            importlib.import_module(old)
        importlib.import_module(new)


def test_install_puts_back_the_same_functions_and_uninstall_takes_them_away(installed):
    import scipy.integrate
    import scipy.signal
    import scipy.sparse.linalg
    import scipy.special
    from scipy.sparse.linalg.eigen.arpack import eigsh

    assert eigsh is scipy.sparse.linalg.eigsh
    assert scipy.integrate.trapz is scipy.integrate.trapezoid
    assert scipy.signal.hann is scipy.signal.windows.hann
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import scipy.misc
    assert scipy.misc.logsumexp is scipy.special.logsumexp
    assert not hasattr(scipy.misc, "imread")  # GONE: not put back
    import tf1_train.compat

    tf1_train.compat.uninstall()
    assert not hasattr(scipy.integrate, "trapz") and not hasattr(scipy.misc, "comb")
    with pytest.raises(ImportError, match="is not a package"):
        importlib.import_module("scipy.sparse.linalg.eigen.arpack")
    tf1_train.compat.install()  # SciPy already loaded: put back at once
    assert scipy.signal.hamming is scipy.signal.windows.hamming


SOURCE = (
    "import scipy.misc\n"
    "from scipy import integrate, signal\n"
    "from scipy.sparse.linalg.eigen.arpack import eigsh\n"
    "from scipy.misc import imread\n"
    "s = scipy.misc.logsumexp([1.0, 2.0])\n"
    "t = integrate.trapz([1.0, 2.0]) + integrate.cumtrapz([1.0, 2.0])[-1]\n"
    "a = integrate.simps([1.0, 2.0, 3.0])\n"
    "w = signal.hann(8)\n"
    "small = scipy.misc.imresize(None, (2, 2))\n"
    "fine = integrate.trapezoid([1.0, 2.0]) + signal.windows.hann(4)[0]\n"
)


def test_the_scan_breaks_exactly_where_scipy_raises(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(SOURCE)
    errors = (AttributeError, ImportError, NameError)
    plain = {f.line for f in scanner.scan([str(path)]).findings if f.severity == "breaks"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert plain == raising_lines(SOURCE, errors) == {3, 4, 5, 6, 7, 8, 9}
        under = {f.line for f in scanner.scan([str(path)], compat=True).findings
                 if f.severity == "breaks"}  # fmt: skip
        import tf1_train.compat

        tf1_train.compat.install()
        try:
            assert under == raising_lines(SOURCE, errors) == {4, 7, 9}  # imread, simps, imresize
        finally:
            tf1_train.compat.uninstall()


def test_a_gcn_style_program_runs_as_written(tmp_path):
    # tests/legacy_scripts/gcn_style.py under --v1: eigen.arpack's eigsh,
    # SciPy sparse normalization, tf.sparse_placeholder and
    # sparse_tensor_dense_matmul. Measured: the GCN finds both communities
    # from 10 labelled nodes (1.0 on the other 110); ARPACK's largest
    # Laplacian eigenvalue (1.419038) equals LAPACK's on the dense matrix.
    gcn = run_legacy_script("--v1", tmp_path, str(GCN_STYLE), "--model=gcn")
    assert float(gcn["test_accuracy"]) > 0.95
    cheby = run_legacy_script("--v1", tmp_path, str(GCN_STYLE), "--model=gcn_cheby")
    assert cheby["largest_eigval"] == cheby["dense_largest_eigval"]
    assert float(cheby["last_loss"]) < float(cheby["first_loss"]) / 10
