"""The MNIST tutorials' ``input_data.read_data_sets`` and ``mnist`` model
(``tensorflow.examples.tutorials.mnist``, ``tf.contrib.learn.datasets``)
after tf1_train.compat.install(), held to TF 1.15's own source
(tests/goldens/contrib_learn_datasets.*, scripts/make_contrib_learn_datasets_goldens.py):
the same batches, dtypes, errors and model values; the import spellings TF1
programs used; a failed download and a truncated file named; a Mechanics
101-style program trains, saves and restores through ``python -m
tf1_train.compat --v1``, and the scanner agrees with what runs."""

import gzip
import json
import pathlib
import pickle
import socket

import contrib_learn_datasets_cases as cases
import numpy as np
import pytest
from conftest import ROOT, run_legacy_script
from data_files import write_digits_as_mnist, write_mnist

from tf1_train.compat import _contrib_learn_datasets as datasets
from tf1_train.compat import _tutorial_mnist
from tf1_train.port import scan as scanner

GOLDEN = pathlib.Path(ROOT) / "tests" / "goldens" / "contrib_learn_datasets.json"
SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "mnist_tutorial_style.py"


def test_reader_and_model_compute_what_tf115_computed(tmp_path, capsys):
    ours = json.loads(json.dumps(cases.compute(datasets, datasets, datasets, _tutorial_mnist,
                                               str(tmp_path))))  # fmt: skip
    golden = json.loads(GOLDEN.read_text())
    model, golden_model = ours.pop("model"), golden.pop("model")
    golden.pop("pickled")
    assert sorted(ours) == sorted(golden)
    for name in golden:  # every batch's bytes, every dtype and message
        assert ours[name] == golden[name], name
    for key in ("logits", "loss", "loss_after"):  # kernels may differ in the last bits by CPU
        np.testing.assert_allclose(model.pop(key), golden_model.pop(key), rtol=1e-5, atol=1e-6)
    assert model == golden_model  # variables, collections, counts right
    assert f"Extracting {tmp_path}/t10k-labels-idx1-ubyte.gz\n" in capsys.readouterr().out


def test_a_dataset_tf115_pickled_restores_and_reads_on(installed):
    restored = pickle.loads(GOLDEN.with_suffix(".pkl").read_bytes())
    assert type(restored) is datasets.DataSet  # TF 1.15's class path is ours
    assert cases.after_pickle(restored) == json.loads(GOLDEN.read_text())["pickled"]


def test_the_imports_tf1_programs_used_work_after_install(installed):
    import tensorflow.compat.v1 as v1

    names = {}
    exec(
        "from tensorflow.examples.tutorials.mnist import input_data, mnist\n"
        "import tensorflow.examples.tutorials.mnist.input_data as input_data2\n"
        "from tensorflow.contrib.learn.python.learn.datasets.mnist import read_data_sets\n"
        "from tensorflow.contrib.learn.python.learn.datasets import base\n",
        names,
    )
    assert names["input_data"].read_data_sets is datasets.read_data_sets
    assert names["input_data2"] is names["input_data"]
    assert names["read_data_sets"] is datasets.read_data_sets
    assert names["mnist"].inference is _tutorial_mnist.inference
    assert names["base"].load_csv_with_header is datasets.load_csv_with_header
    learn = v1.contrib.learn
    assert learn.datasets.load_dataset is datasets.load_dataset
    assert learn.datasets.mnist.DataSet is datasets.DataSet
    assert learn.datasets.base.Datasets is datasets.Datasets
    with pytest.raises(AttributeError, match="learn.datasets' MNIST reader"):
        learn.datasets.synthetic  # noqa: B018  (contrib's synthetic data: refused, one line)
    with pytest.raises(FileNotFoundError, match="data_path="):
        learn.datasets.load_iris()
    with pytest.raises(ValueError, match="dbpedia"):
        learn.datasets.load_dataset("dbpedia")
    with pytest.raises(ImportError):
        exec("from tensorflow.examples.tutorials.mnist import mnist_softmax", {})


def test_without_install_tensorflow_examples_is_missing_as_on_tf2():
    with pytest.raises(ModuleNotFoundError):
        __import__("tensorflow.examples.tutorials.mnist")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_missing_file_is_downloaded_or_named(tmp_path, capsys):
    source = tmp_path / "mirror"
    source.mkdir()
    write_mnist(str(source), compress=True, n_train=12, n_test=4)
    sets = datasets.read_data_sets(str(tmp_path / "data"), validation_size=2,
                                   source_url=source.as_uri() + "/")  # fmt: skip
    assert (sets.train.num_examples, sets.validation.num_examples) == (10, 2)
    assert capsys.readouterr().out.count("Successfully downloaded") == 4
    url = f"http://127.0.0.1:{_closed_port()}/"
    with pytest.raises(OSError) as raised:
        datasets.read_data_sets(str(tmp_path / "empty"), source_url=url)
    message = str(raised.value)
    assert "empty/train-images-idx3-ubyte.gz is missing" in message and url in message
    assert "put the file there" in message and "\n" not in message


def test_a_truncated_file_is_refused_with_its_name(tmp_path):
    write_mnist(str(tmp_path), compress=True, n_train=12, n_test=4)
    path = tmp_path / "t10k-images-idx3-ubyte.gz"
    path.write_bytes(gzip.compress(gzip.decompress(path.read_bytes())[:-5]))
    with pytest.raises(ValueError, match=r"t10k-images-idx3-ubyte.gz: truncated: .* the file "
                                         r"has 3131; download it again"):  # fmt: skip
        datasets.read_data_sets(str(tmp_path), validation_size=0)


def test_a_mechanics_101_program_trains_saves_and_restores(tmp_path):
    # The tutorial's flow on tf1_train's digits as MNIST files: input_data,
    # the tutorial's mnist model, feed dicts, tf.app.run, FileWriter, Saver,
    # then restored in a new graph. Measured: 2.34 -> 0.03 in 400 steps,
    # test precision 0.969 before and after the restore.
    data = tmp_path / "data"
    data.mkdir()
    write_digits_as_mnist(str(data))
    values = run_legacy_script("--v1", tmp_path, str(SCRIPT), f"--input_data_dir={data}",
                               f"--log_dir={tmp_path / 'logs'}")  # fmt: skip
    assert float(values["last_loss"]) < float(values["first_loss"]) / 10
    assert float(values["test_precision"]) > 0.9 and values["epochs"] == "21"
    assert values["restored_precision"] == values["test_precision"]
    assert list((tmp_path / "logs").glob("events.out.tfevents.*"))


def test_the_scanner_says_what_runs():
    plain = scanner.scan([str(SCRIPT)])
    broken = {(f.line, f.rule) for f in plain.findings if f.severity == "breaks"}
    line = SCRIPT.read_text().splitlines().index(
        "from tensorflow.examples.tutorials.mnist import input_data, mnist") + 1  # fmt: skip
    assert (line, "unknown-name") in broken  # the import line, without tf1_train.compat
    under_v1 = scanner.scan([str(SCRIPT)], v1=True)
    assert [f for f in under_v1.findings if f.severity == "breaks"] == []
    served = [f for f in under_v1.findings if f.rule == "unknown-name"]
    assert served and all(f.severity == "works" for f in served)
    assert "MNIST reader" in served[0].fix
