"""What google-research's FixMatch (d4985a1) hit on TensorFlow 2.21 beyond
its TF 1.x names, held to the program and to the scanner: its EMA getter's
``ema_var if ema_var else var`` (a variable as a condition), Pillow 10's
removed ``Image.ANTIALIAS``, and a generator given to ``np.stack``.

tests/legacy_scripts/ema_getter_style.py is such a trainer, written for
these tests; on TensorFlow 1.15.5 (one tower, checked by hand) it read the
averages of all 6 weights in evaluation, as it does here."""

import pathlib

from conftest import ROOT, raising_lines, run_legacy_script

from tf1_train.compat import _pillow_removed
from tf1_train.port import scan as scanner

SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "ema_getter_style.py"


def test_the_ema_getter_program_runs_as_written_on_two_towers(tmp_path):
    out = run_legacy_script("--v1", tmp_path, "--gpus_as_cpus=2", str(SCRIPT))
    assert out["towers"] == "2"
    # The evaluation model reads every weight's average and no weight itself:
    # the getter's test of ema_var took the average, as on TF 1.x.
    assert out["ema_variables_read"] == "6 of 6" and out["raw_weights_read"] == "0"
    assert out["ema_equals_swapped"] == "True" and out["raw_differs"] == "True"
    assert float(out["last_loss"]) < float(out["first_loss"]) / 3


def test_the_scan_reports_both_lines_until_install_runs():
    # Under --v1 (python -m tf1_train.compat, so install() runs) nothing breaks;
    # without it, among the TF 1.x names, exactly the two lines break.
    under = scanner.scan([str(SCRIPT)], compat=True, v1=True).findings
    assert not [f for f in under if f.severity == "breaks"]
    rules = ("variable-truth", "pillow-removed-alias")
    plain = {(f.rule, f.line) for f in scanner.scan([str(SCRIPT)]).findings if f.rule in rules}
    text = SCRIPT.read_text().splitlines()
    getter = next(i for i, t in enumerate(text, 1) if "return ema_var if ema_var" in t)
    resize = next(i for i, t in enumerate(text, 1) if "Image.ANTIALIAS)" in t)
    assert plain == {("variable-truth", getter), ("pillow-removed-alias", resize)}


SOURCE = (
    "import numpy as np\n"
    "from PIL import Image, ImageDraw, ImageFont\n"
    "from PIL.Image import ANTIALIAS\n"
    "img = Image.new('RGB', (8, 8))\n"
    "small = img.resize((4, 4), Image.ANTIALIAS)\n"
    "filters = (Image.LINEAR, Image.CUBIC, Image.BICUBIC)\n"
    "batch = np.stack(np.zeros(2) + i for i in range(3))\n"
    "total = np.sum(len(x) for x in ['ab', 'c'])\n"
    "w, h = ImageDraw.Draw(img).textsize('ab', font=ImageFont.load_default())\n"
    "fine = np.stack([np.zeros(2)]), img.resize((4, 4), Image.LANCZOS), sum(x for x in [1])\n"
)


def test_the_scan_breaks_exactly_where_pillow_and_numpy_raise(tmp_path):
    path = tmp_path / "program.py"
    path.write_text(SOURCE)
    errors = (AttributeError, ImportError, NameError, TypeError)
    plain = {f.line for f in scanner.scan([str(path)]).findings if f.severity == "breaks"}
    assert plain == raising_lines(SOURCE, errors) == {3, 5, 6, 7, 8, 9}
    under = {f.line for f in scanner.scan([str(path)], compat=True).findings
             if f.severity == "breaks"}  # fmt: skip
    import tf1_train.compat

    tf1_train.compat.install()
    try:
        assert under == raising_lines(SOURCE, errors) == {7, 8, 9}  # np.stack, np.sum, textsize
    finally:
        tf1_train.compat.uninstall()


def test_install_puts_back_the_same_values_and_uninstall_takes_them_away(installed):
    import PIL
    from PIL import Image

    assert (Image.ANTIALIAS, Image.LINEAR, Image.CUBIC) == (
        Image.LANCZOS,
        Image.BILINEAR,
        Image.BICUBIC,
    )
    assert PIL.PILLOW_VERSION == PIL.__version__
    import tf1_train.compat

    tf1_train.compat.uninstall()
    assert not any(hasattr(Image, n) for n in _pillow_removed.IMAGE)
    assert not hasattr(PIL, "PILLOW_VERSION")
    tf1_train.compat.install()


def test_every_name_is_gone_from_this_pillow_and_every_home_is_here():
    # Else the scanner would call working code broken, or install() fail.
    import PIL
    from PIL import Image, ImageDraw, ImageFont

    for old, new in _pillow_removed.IMAGE.items():
        assert old not in vars(Image) and hasattr(Image, new), old
    assert "PILLOW_VERSION" not in vars(PIL)
    classes = (ImageDraw.ImageDraw, ImageFont.FreeTypeFont, ImageFont.ImageFont)
    for name in _pillow_removed.METHODS:
        assert not any(hasattr(c, name) for c in classes), name
