"""``python -m tf1_train.compat NOTEBOOK.ipynb`` (tf1_train/compat/_notebook.py):
tests/notebooks/tf1_notebook.ipynb, a TF 1.x notebook of our own writing
whose outputs TensorFlow 1.15.5 stored in a Jupyter kernel
(scripts/make_tf115_notebook.py), run on TensorFlow 2.21 as a user would.

As written it stops at cell_11, which sums weights that cell_10 fetched with
``get_tensor_by_name("hidden/kernel:0")``: on TF 2 that is the resource
variable's handle (scan rule variable-tensor-name, which names cell_10:4).
Under ``--v1_variables`` every compared cell gives TF 1.15.5's output: the
losses and accuracies of 20 epochs, the logits, the predictions, the kernel's
sum to 4.8e-7 (measured 2026-12-07); the two cells that ran IPython's own
lines are named as not compared."""

import json
import re
import shutil

from conftest import COMPAT, ROOT, run_cli

from tf1_train.compat import _notebook_outputs
from tf1_train.port import scan

NOTEBOOK = f"{ROOT}/tests/notebooks/tf1_notebook.ipynb"


def _run(tmp_path, *options, notebook=NOTEBOOK):
    shutil.copy(notebook, tmp_path / "tf1_notebook.ipynb")
    args = [*options, str(tmp_path / "tf1_notebook.ipynb")]
    return run_cli(args, module=COMPAT, cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})


def _summary(stderr: str) -> str:
    return re.findall(r"^notebook: .*tf1_notebook.ipynb: (.*)$", stderr, re.M)[-1]


def test_under_v1_variables_every_compared_cell_gives_tf_1_15_5s_output(tmp_path):
    out = _run(tmp_path, "--v1", "--v1_variables")
    assert out.returncode == 0, out.stderr[-3000:]
    summary = _summary(out.stderr)
    assert summary.startswith("10 cells stored an output; 10 ran: ")
    assert summary.endswith(" 0 differ, 0 other text, 2 not compared"), summary
    assert "notebook: cell_3: not compared: its IPython lines printed into it" in out.stderr
    assert "notebook: cell_9: not compared: not Python (%%bash), not run" in out.stderr
    assert (
        f"note: {tmp_path}/tf1_notebook.ipynb: 5 IPython lines not run (not Python): "
        "cell_2:2 %matplotlib inline, cell_2:6 %tensorflow_version 1.x, cell_3:1 !nvidia-smi -L, "
        "cell_8:1 %%time, cell_9:1 %%bash"
    ) in out.stderr
    assert "15 loss: 0.19175434 accuracy: 0.96875" in out.stdout  # TF 1.15.5's last epoch
    assert (tmp_path / "tf1_notebook_helper.py").read_text() == "SCALE = 3\n"  # %%writefile


def test_as_written_it_stops_at_the_handle_and_the_scan_names_the_lookup(tmp_path):
    out = _run(tmp_path, "--v1")
    assert out.returncode == 1
    assert 'tf1_notebook.ipynb:cell_11", line 2, in <module>' in out.stderr
    assert "    W.shape, float(W.sum())" in out.stderr  # the cell's own line, as a kernel shows it
    assert _summary(out.stderr).endswith("; 3 not run (the run stopped)")
    found = [f for f in scan.scan([NOTEBOOK], v1=True).findings if f.rule == "variable-tensor-name"]
    assert [(f.file, f.line, f.severity) for f in found] == [
        (f"{NOTEBOOK}:cell_10", 4, "changes numbers")
    ]
    fixed = scan.scan([NOTEBOOK], v1=True, v1_variables=True).findings
    assert [f.severity for f in fixed if f.rule == "variable-tensor-name"] == ["works"]


def test_a_number_other_than_the_stored_one_is_named(tmp_path):
    book = json.loads(open(NOTEBOOK).read())
    cells = [c for c in book["cells"] if c["cell_type"] == "code"]
    (stream,) = [o for o in cells[6]["outputs"] if "0.27093127" in "".join(o.get("text", []))]
    stream["text"] = [t.replace("0.27093127", "0.27193127") for t in stream["text"]]
    changed = tmp_path / "changed.ipynb"
    changed.write_text(json.dumps(book))
    out = _run(tmp_path, "--v1", "--v1_variables", notebook=changed)
    assert out.returncode == 0, out.stderr[-3000:]
    assert ("notebook: cell_8: differs: 1 of 12 numbers differ, the most by 3.7e-03 relative "
            "(stored 0.27193127, now 0.27093127)") in out.stderr  # fmt: skip
    assert " 1 differ, " in _summary(out.stderr)


def test_verdicts_compare_numbers_as_printed_and_text_as_text():
    verdict = _notebook_outputs.verdict
    assert verdict("Epoch 100 MSE = 0.7145004\n", "Epoch 100 MSE = 0.71450037\n")[0] == "same"
    assert verdict("[[ 1.5  -2.  ]]\n", "[[ 1.5 -2. ]]\n") == ("same", "")  # column widths
    assert verdict("42\n", "np.int32(42)\n") == ("same", "")
    assert verdict("<tf.Variable 'x:0' shape=(?, 3) dtype=float32_ref>",
                   "<tf.Variable 'x:0' shape=(None, 3) dtype=float32>") == ("same", "")  # fmt: skip
    assert verdict("0.51234\n", "0.51237\n")[0] == "close"
    assert verdict("0.5\n", "0.50003\n")[0] == "same"  # to the coarser printed precision
    assert verdict("0\n", "532\n")[1].endswith("the most by 1.0e+00 relative (stored 0, now 532)")
    assert verdict("<a.Estimator at 0x7fb8>", "<b.Estimator object at 0x7fc3>") == ("same", "")
    assert verdict("<function a.f.<locals>.g>", "<function f.<locals>.g at 0x7f1>")[0] == "same"
    assert verdict("{'acc': 0.9, 'loss': 0.5}", "{'loss': 0.5, 'acc': 0.9}") == ("same", "")
    notice = "WARNING:tensorflow:From x:2: f is deprecated.\nInstructions for updating:\n\n"
    notice += "Future major versions will allow\ngradients to flow.\n\nSee g.\n"
    assert verdict(notice + "7\n", "7\n") == ("same", "")  # instructions over several lines
    assert verdict("43\n", "42\n")[0] == "differs"
    assert verdict("loss 0.5\n", "cost 0.5\n")[0] == "text"
    stored = "WARNING:tensorflow:From x.py:3: dense (from ...) is deprecated.\n"
    stored += "Instructions for updating:\nUse keras.layers.Dense instead.\nCPU times: user 1 s\n"
    assert verdict(stored + "7\nWall time: 2 s\n", "7\n") == ("same", "")


def test_a_file_that_is_no_notebook_is_one_error_line(tmp_path):
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{")
    out = run_cli([str(bad)], module=COMPAT, cwd=tmp_path)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert (
        out.stderr.strip()
        .splitlines()[-1]
        .startswith(f"error: {bad}: not a Jupyter notebook (not JSON: ")
    )


def test_a_tf_1_x_name_without_v1_ends_with_the_note_naming_the_cell(tmp_path):
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [],
              "source": "import tensorflow as tf\nx = tf.placeholder(tf.float32)"}]  # fmt: skip
    book = tmp_path / "v1.ipynb"
    book.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    out = run_cli([str(book)], module=COMPAT, cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 1
    assert (f"note: tf.placeholder in {book}:cell_1 is TF 1.x's: run with --v1 "
            "(python -m tf1_train.compat --v1 ...)") in out.stderr  # fmt: skip
    assert "stored no outputs: nothing to compare the run with" in out.stderr
    assert out.stderr.count("note: tf.placeholder") == 1


def test_ipython_display_is_stood_in_and_what_only_shows_is_not_compared(tmp_path):
    """Hvass-Labs' tutorials import IPython.display; IPython is not installed here."""
    image = {"output_type": "execute_result", "execution_count": 1, "metadata": {},
             "data": {"text/plain": "<IPython.core.display.Image object>"}}  # fmt: skip
    shown = {"output_type": "display_data", "metadata": {}, "data": {"text/plain": "{'a': 1}"}}
    version = {"output_type": "execute_result", "execution_count": 2, "metadata": {},
               "data": {"text/plain": "'1.9.0'"}}  # fmt: skip
    cells = [
        {"cell_type": "code", "metadata": {}, "outputs": [image],
         "source": "from IPython.display import Image, display\nImage('flowchart.png')"},
        {"cell_type": "code", "metadata": {}, "outputs": [shown], "source": "display({'a': 1})"},
        {"cell_type": "code", "metadata": {}, "outputs": [version],
         "source": "import numpy\nnumpy.__version__"},
    ]  # fmt: skip
    meta = {"kernelspec": {"name": "python2", "language": "python"}}
    book = tmp_path / "hvass.ipynb"
    book.write_text(json.dumps({"cells": cells, "metadata": meta, "nbformat": 4}))
    out = run_cli([str(book)], module=COMPAT, cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"note: {book}: IPython is not installed: IPython.display's display, Image" in out.stderr
    assert f"note: {book} was saved from a Python 2 kernel" in out.stderr
    assert "Traceback" not in out.stderr
    assert "notebook: cell_3: not compared: it shows a version" in out.stderr
    assert out.stderr.rstrip().endswith(
        "2 cells stored an output; 2 ran: 1 as stored, 0 within 0.0001 relative, 0 differ, "
        "0 other text, 1 not compared"  # display() shows, as an image does: not compared
    )


def test_a_python_2_cell_stops_the_run_at_its_line_without_the_runners_frames(tmp_path):
    code = {"cell_type": "code", "metadata": {}, "outputs": []}
    cells = [{**code, "source": "x = 1"}, {**code, "source": "print 'x', x"}]
    book = tmp_path / "py2.ipynb"
    book.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    out = run_cli([str(book)], module=COMPAT, cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert (
        out.returncode == 1 and "Traceback" not in out.stderr and "_notebook.py" not in out.stderr
    )
    assert f'File "{book}:cell_2", line 1' in out.stderr
    assert "SyntaxError: Missing parentheses in call to 'print'" in out.stderr


def test_a_matplotlib_cell_draws_as_in_a_script_with_ipython_stood_in(tmp_path):
    """hunkim's lab-10/lab-11 notebooks plot: pyplot asks ``IPython.get_ipython()``
    (whether a shell is there to hook into) on its first figure, which the
    stand-in once lacked, so every such notebook stopped there."""
    code = {"cell_type": "code", "metadata": {}, "execution_count": 1}
    drawn = {"output_type": "stream", "name": "stdout", "text": "drawn\n"}
    shown = {"output_type": "execute_result", "execution_count": 3, "metadata": {},
             "data": {"text/plain": "Text(0.5, 1.0, 'loss')"}}  # fmt: skip
    cells = [
        {**code, "outputs": [], "source": "%matplotlib inline\nimport matplotlib.pyplot as plt"},
        {**code, "outputs": [drawn],
         "source": "plt.imshow([[0, 1], [1, 0]], cmap='Greys')\nplt.show()\nprint('drawn')"},
        {**code, "outputs": [shown],
         "source": "plt.plot([3, 1])\nplt.savefig('loss.png')\nplt.title('loss')"},
    ]  # fmt: skip
    book = tmp_path / "plots.ipynb"
    book.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    out = run_cli([str(book)], module=COMPAT, cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert "Traceback" not in out.stderr and (tmp_path / "loss.png").stat().st_size > 1000
    assert out.stderr.rstrip().endswith("2 cells stored an output; 2 ran: 2 as stored, "
                                        "0 within 0.0001 relative, 0 differ, 0 other text, "
                                        "0 not compared")  # fmt: skip


def test_an_object_that_kept_an_earlier_cells_stdout_prints_into_the_cell_that_calls_it(tmp_path):
    """hunkim's lab-08 makes ``pp = pprint.PrettyPrinter(indent=4)`` in one cell
    (it keeps ``sys.stdout``) and calls ``pp.pprint`` in later ones."""
    code = {"cell_type": "code", "metadata": {}, "execution_count": 1}
    printed = {"output_type": "stream", "name": "stdout", "text": "[1, 2, 3]\nafter\n"}
    cells = [
        {**code, "outputs": [], "source": "import pprint\npp = pprint.PrettyPrinter(indent=4)"},
        {**code, "outputs": [printed], "source": "pp.pprint([1, 2, 3])\nprint('after')"},
        {**code, "outputs": [{**printed, "text": "[4]\n"}], "source": "pp.pprint([4])"},
    ]
    book = tmp_path / "pp.ipynb"
    book.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4}))
    out = run_cli([str(book)], module=COMPAT, cwd=tmp_path, env={"TF_CPP_MIN_LOG_LEVEL": "2"})
    assert out.returncode == 0, out.stderr[-3000:]
    assert "other text" not in out.stderr.replace(" 0 other text", "")
    assert out.stderr.rstrip().endswith("2 cells stored an output; 2 ran: 2 as stored, "
                                        "0 within 0.0001 relative, 0 differ, 0 other text, "
                                        "0 not compared")  # fmt: skip
