"""Run tests/notebooks/tf1_notebook.ipynb on TensorFlow 1.15.5 in a Jupyter
kernel and store its outputs in it, as a porter's notebook holds what it
printed on TF 1.x (losses, arrays, the tensors it showed, TF 1.x's
deprecation notices on stdout, %%time's timings). tests/test_compat_notebook.py
runs the notebook on TensorFlow 2.21 through ``python -m tf1_train.compat``
and holds its cells to these outputs. Run it with TensorFlow 1.15.5 and
Jupyter in an environment of their own, outside the repository:

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/pip install --target /tmp/nbdeps37 'nbconvert<7.7' \\
        'ipykernel<6.17' 'jupyter_client<8' 'matplotlib<3.6'
    rm -rf /tmp/nbdeps37/numpy*   # TensorFlow 1.15.5's own NumPy
    PYTHONPATH=/tmp/nbdeps37 /tmp/tf115-venv/bin/python scripts/make_tf115_notebook.py

The kernel runs in a temporary directory (the notebook writes a checkpoint
and a helper module beside itself); only the notebook is written back.
"""

import os
import shutil
import sys
import tempfile

import nbformat
import tensorflow as tf
from nbconvert.preprocessors import ExecutePreprocessor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOK = os.path.join(ROOT, "tests", "notebooks", "tf1_notebook.ipynb")


def main():
    if not tf.__version__.startswith("1.15"):
        sys.exit("error: run this with TensorFlow 1.15 (found " + tf.__version__ + ")")
    book = nbformat.read(NOTEBOOK, as_version=4)
    work = tempfile.mkdtemp()
    try:
        ExecutePreprocessor(timeout=600, kernel_name="python3").preprocess(
            book, {"metadata": {"path": work}}
        )
    finally:
        shutil.rmtree(work)
    book.metadata["tf1_train_note"] = "outputs stored by TensorFlow " + tf.__version__
    nbformat.write(book, NOTEBOOK)
    print("wrote", NOTEBOOK)


if __name__ == "__main__":
    main()
