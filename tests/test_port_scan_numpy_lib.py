"""Names inside NumPy's submodules that NumPy 2 removed or made private
(scan rule numpy-removed, tf1_train/port/numpy_rules.py): ``np.lib.pad``
(Kyubyong's transformer, tf1.2_legacy/data_load.py), which TF 1.15.5's NumPy
1.18 ran (measured: ``[1 2 0 0]`` from /tmp's reproducer), and NumPy 1.x's
public ``numpy.lib`` modules. The scan's lines are held to the lines that
raise on the installed NumPy; under the runner, which puts numpy.lib's
aliases back, ``np.lib.pad`` works."""

import numpy as np
from conftest import COMPAT, raising_lines, run_cli

from tf1_train.port import scan

TRIGGER = (
    "import numpy as np\n"
    "a = np.lib.pad(np.array([1, 2]), [0, 2], 'constant')\n"
    "from numpy.lib import pad\n"
    "from numpy.lib.arraypad import _as_pairs\n"
    "import numpy.lib.function_base\n"
    "r = np.lib.index_tricks.r_\n"
)
TWIN = (
    "import numpy as np\n"
    "a = np.pad(np.array([1, 2]), [0, 2], 'constant')\n"
    "from numpy.lib.stride_tricks import as_strided\n"
    "import numpy.lib.format\n"
    "v = np.lib.stride_tricks.as_strided(a)\n"
    "n = np.linalg.norm(a)\n"
)


def _lines(tmp_path, source):
    (tmp_path / "a.py").write_text(source)
    found = scan.scan([str(tmp_path / "a.py")]).findings
    return {f.line for f in found if f.rule == "numpy-removed"}


def test_the_lines_the_scan_reports_are_the_lines_that_raise_on_numpy_2(tmp_path):
    assert np.__version__.startswith("2.")
    assert _lines(tmp_path, TRIGGER) == raising_lines(TRIGGER) == {2, 3, 4, 5, 6}
    assert _lines(tmp_path, TWIN) == raising_lines(TWIN) == set()


def test_np_lib_pad_runs_under_the_runner_and_the_scans_np_pad_gives_tf_1_15_5s_row(tmp_path):
    script = tmp_path / "pad.py"
    script.write_text(TRIGGER.splitlines()[0] + "\nprint(np.lib.pad(np.array([1, 2]), [0, 2]))\n")
    (finding,) = scan.scan([str(script)]).findings
    assert finding.severity == "breaks" and finding.fix.startswith("np.pad (the same function)")
    (finding,) = scan.scan([str(script)], v1=True).findings
    assert finding.severity == "works"  # install() puts numpy.lib's aliases back
    for source in (script.read_text(), script.read_text().replace("np.lib.pad", "np.pad")):
        script.write_text(source)
        out = run_cli(["--v1", str(script)], module=COMPAT, cwd=tmp_path)
        assert out.stdout.split()[-4:] == ["[1", "2", "0", "0]"]  # TF 1.15.5's NumPy 1.18
