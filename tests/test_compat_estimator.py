"""tf.estimator after tf1_train.compat.install(), served from tensorflow-estimator
2.15.0 (tf1_train/compat/_estimator.py): TF 1.x's API in every spelling, its
Estimator code running as written, what needs Keras 2 refused in one line."""

import importlib
import json
import os
import pathlib
import sys

import numpy as np
import pytest
import tensorflow as tf
from conftest import ROOT, raising_lines, run_legacy_script
from data_files import write_digits_as_mnist

from tf1_train.compat import _estimator, _estimator_bridge
from tf1_train.port import scan as scanner

SCRIPT = pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "estimator_cnn_style.py"
DISTRIBUTED = SCRIPT.with_name("estimator_distributed_style.py")
BERT_STYLE = SCRIPT.with_name("bert_classifier_style.py")


def test_tf_estimator_is_tf1s_on_the_v1_api_and_tf2s_on_tensorflow(installed):
    # As TF 2.15 had them: a TF 2 program's tf.estimator is TF 2's, a v1 one's TF 1.x's.
    import tensorflow.compat.v1 as v1
    import tensorflow_estimator._api.v1.estimator as tf1_api
    import tensorflow_estimator._api.v2.estimator as tf2_api

    assert v1.estimator is tf1_api and tf.compat.v1.estimator is tf1_api
    assert tf.estimator is tf2_api and tf.compat.v2.estimator is tf2_api
    assert v1.estimator.Estimator.__module__ == "tensorflow_estimator.python.estimator.estimator"
    assert v1.estimator.inputs.numpy_input_fn  # TF 1.x's API (not in the v2 one)
    names = {}
    exec(
        "from tensorflow.estimator import RunConfig, ModeKeys\n"
        "from tensorflow.compat.v1.estimator.export import ServingInputReceiver\n"
        "import tensorflow.compat.v1.estimator as e\n",
        names,
    )
    assert names["RunConfig"] is tf1_api.RunConfig and names["e"] is tf1_api
    assert names["ServingInputReceiver"] is tf1_api.export.ServingInputReceiver
    assert tf2_api.Estimator.__name__ == "EstimatorV2"


def test_without_install_or_the_package_it_is_missing_as_on_tf2(monkeypatch):
    import tensorflow.compat.v1 as v1

    import tf1_train.compat

    assert not hasattr(tf, "estimator") and not hasattr(v1, "estimator")
    monkeypatch.setattr(_estimator, "available", lambda: False)
    tf1_train.compat.install()
    try:  # hasattr / except AttributeError fallbacks still fall back
        assert not hasattr(tf, "estimator") and not hasattr(v1, "estimator")
        assert _estimator.scan_verdict("tensorflow.estimator.Estimator") == (
            False,
            _estimator.INSTALL_HINT,
        )
    finally:
        tf1_train.compat.uninstall()


def _refusal(api: str, name: str) -> str:
    """The one line ``<api>.<name>(3)`` raises (``api``: the package's v1 or v2 API)."""
    where = importlib.import_module(f"tensorflow_estimator._api.{api}.estimator")
    for part in name.split("."):
        where = getattr(where, part)
    with pytest.raises(NotImplementedError) as raised:
        where(3)
    assert "\n" not in str(raised.value)
    return str(raised.value)


@pytest.mark.parametrize("name", _estimator.KERAS2)
def test_what_needs_keras_2_raises_one_line(installed, name):
    assert _refusal("v1", name).startswith(f"tf.estimator.{name} is built on Keras 2")


@pytest.mark.parametrize("name", _estimator.GONE)
def test_tf_1_15s_boosted_trees_which_the_package_lost_raise_one_line(installed, name):
    assert "is not in tensorflow-estimator 2.15" in _refusal("v1", name)


@pytest.mark.parametrize("name", _estimator.KERAS2_V2)
def test_tf2s_canned_models_and_heads_raise_one_line_naming_the_v1_class(installed, name):
    message = _refusal("v2", name)
    assert message.startswith(f"tf.estimator.{name} ")
    if name.startswith("experimental.RNN"):  # no TF 1.x class to name
        assert "TF 1.x had no such class" in message
    elif name not in _estimator.KERAS2:  # what differs in the v1 class it names
        v1_class = importlib.import_module("tensorflow_estimator._api.v1.estimator")
        assert isinstance(getattr(v1_class, name), type)  # served, as the line says
        assert f"tf.compat.v1.estimator.{name} is served" in message
        assert "SUM_OVER_BATCH_SIZE" in message


def test_uninstall_puts_tensorflows_names_back():
    import tensorflow_estimator._api.v1.estimator as tf1_api
    from tensorflow.python.util import tf_export

    import tf1_train.compat

    tf1_train.compat.install()
    tf1_train.compat.uninstall()
    assert not hasattr(tf, "estimator") and "estimator" not in tf_export.API_ATTRS
    assert not hasattr(tf.compat.v2, "estimator")
    assert _estimator.BRIDGE not in sys.modules and "tensorflow.estimator" not in sys.modules
    assert isinstance(tf1_api.DNNClassifier, type)  # the package's own class again
    import tensorflow_estimator._api.v2.estimator as tf2_api

    assert isinstance(tf2_api.DNNClassifier, type)


def _mirrored():
    return tf.distribute.MirroredStrategy(["/cpu:0"])


def test_run_config_sets_strategies_and_clusters_as_tf_2_15(installed, monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    strategy = _mirrored()
    config = tf.estimator.RunConfig(train_distribute=strategy)
    assert config.train_distribute is strategy and config._distribute_coordinator_mode is None
    cluster = {"chief": ["127.0.0.1:1"], "worker": ["127.0.0.1:2"], "ps": ["127.0.0.1:3"]}
    task = {"type": "worker", "index": 0}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": cluster, "task": task}))
    config = tf.estimator.RunConfig()  # between-graph replication: RunConfig's own reading
    assert (config.num_ps_replicas, config.num_worker_replicas) == (1, 2)
    assert (config.task_type, config.is_chief, config.master) == ("worker", False,
                                                                  "grpc://127.0.0.1:2")  # fmt: skip
    config = tf.estimator.RunConfig(train_distribute=strategy)  # the coordinator's mode
    assert config._distribute_coordinator_mode == "independent_worker"
    assert config.cluster_spec.as_dict() == cluster and config.task_type == "worker"
    estimator = tf.estimator.Estimator(lambda features, labels, mode: None, config=config)
    with pytest.raises(ValueError, match=r"Estimator.train\(\) with a strategy on a TF_CONFIG"):
        estimator.train(lambda: ({"x": [[1.0]]}, [0]), steps=1)  # TF 2.15: train_and_evaluate
    from tensorflow.python.distribute.distribute_config import DistributeConfig  # contrib's

    remote = DistributeConfig(train_distribute=strategy, remote_cluster=cluster)
    with pytest.raises(NotImplementedError) as raised:
        tf.estimator.RunConfig(experimental_distribute=remote)
    assert str(raised.value) == _estimator_bridge.STANDALONE
    master = {"master": ["127.0.0.1:1"], "ps": ["127.0.0.1:3"]}
    task = {"type": "master", "index": 0}
    monkeypatch.setenv("TF_CONFIG", json.dumps({"cluster": master, "task": task}))
    config = tf.estimator.RunConfig(train_distribute=strategy)
    assert config.is_chief and config._distribute_coordinator_mode is None


def test_a_cnn_mnist_estimator_program_trains_resumes_exports_and_serves(tmp_path):
    # cnn_mnist.py's flow and what code bases added to it, run unmodified through
    # python -m tf1_train.compat --v1. numpy_input_fn(shuffle=True) feeds a
    # shuffling queue from a thread, so batches (as on TF 1.x) and accuracies
    # vary per run: 0.94-0.97 after 200 steps, 0.925-0.975 after 100 more from
    # the checkpoint in 12 runs; the SavedModel's probabilities equal predict()'s.
    (tmp_path / "MNIST-data").mkdir()
    write_digits_as_mnist(str(tmp_path / "MNIST-data"))
    model_dir = tmp_path / "model"
    values = run_legacy_script("--v1", tmp_path, str(SCRIPT), f"--model_dir={model_dir}",
                               "--steps=200")  # fmt: skip
    assert float(values["first_accuracy"]) > 0.85 and values["first_step"] == "200"
    assert values["final_step"] == "300"  # resumed from the first Estimator's checkpoint
    assert float(values["final_accuracy"]) > 0.85
    assert values["served_classes_equal"] == "True" and float(values["served_max_diff"]) < 1e-6
    assert float(values["predict_accuracy20"]) >= 0.8
    assert (model_dir / "checkpoint").exists() and list(model_dir.glob("events.out.tfevents.*"))


def test_tpu_estimator_without_a_tpu_trains_as_an_estimator(installed, tmp_path):
    # BERT's run_classifier route: TPUEstimator(use_tpu=False) on a CPU.
    rng = np.random.RandomState(0)
    x = rng.randn(256, 4).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)

    def model_fn(features, labels, mode, params):
        logits = tf.compat.v1.layers.dense(features["x"], 2)
        loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)
        opt = tf.compat.v1.train.GradientDescentOptimizer(0.5)
        train_op = opt.minimize(loss, global_step=tf.compat.v1.train.get_global_step())
        return tf.compat.v1.estimator.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    def input_fn(params):
        data = tf.data.Dataset.from_tensor_slices(({"x": x}, y))
        return data.repeat().batch(params["batch_size"], drop_remainder=True)

    tpu = tf.compat.v1.estimator.tpu  # TF 1.x's (TF 2's tf.estimator had no tpu)
    config = tpu.RunConfig(model_dir=str(tmp_path), tpu_config=tpu.TPUConfig(10))
    estimator = tpu.TPUEstimator(model_fn=model_fn, config=config, use_tpu=False,
                                              train_batch_size=32, eval_batch_size=32)  # fmt: skip
    with tf.Graph().as_default():
        estimator.train(input_fn, max_steps=60)
        result = estimator.evaluate(input_fn, steps=4)
    assert result["global_step"] == 60 and result["loss"] < 0.3
    from tensorflow.python.tpu import tpu_embedding

    with pytest.raises(NotImplementedError, match="TPU embedding .* no CPU meaning"):
        tpu_embedding.AdagradParameters(0.1)


def test_a_bert_style_program_trains_evaluates_and_predicts_from_its_checkpoint(tmp_path):
    # BERT's run_classifier.py route, use_tpu=False: tf.contrib.tpu's TPUEstimator,
    # RunConfig, TPUConfig, TPUEstimatorSpec(eval_metrics=(metric_fn, ...)),
    # tf.contrib.data.map_and_batch, tf.contrib.layers.layer_norm,
    # init_from_checkpoint (RunConfig's tf_random_seed, which BERT leaves unset:
    # unseeded, eval accuracy was 0.95-1.0 and one suite run failed; seeded, 1.0
    # in 2 runs; predictions from --init_checkpoint 1.0, from a fresh start 0.44);
    # BERT's shape[-1].value, under --v1_shapes.
    program = ("--v1", tmp_path, "--v1_shapes", str(BERT_STYLE))
    trained = run_legacy_script(
        *program, f"--output_dir={tmp_path / 'a'}", "--do_train", "--do_eval"
    )
    assert trained["global_step"] == "150" and float(trained["eval_accuracy"]) > 0.85
    checkpoint = tmp_path / "a" / "model.ckpt-150"
    restored = run_legacy_script(*program, f"--output_dir={tmp_path / 'b'}", "--do_predict",
                                 f"--init_checkpoint={checkpoint}")  # fmt: skip
    assert float(restored["predict_accuracy"]) > 0.8


LINES = (
    "from tensorflow.estimator import RunConfig\n"
    "config = tf.estimator.RunConfig(tf_random_seed=1)\n"
    "spec = tf.estimator.EstimatorSpec\n"
    "dnn = tf.estimator.DNNClassifier(hidden_units=[4], feature_columns=[])\n"
    "hook = tf.estimator.experimental.stop_if_no_decrease_hook\n"
    "head = tf.estimator.MultiClassHead(3)\n"
    "sdca = tf.estimator.experimental.LinearSDCA('e')\n"
    "trees = tf.estimator.BoostedTreesRegressor([], 4)\n"
)
# program: (its source, the lines that raise after install())
SCANNED = {
    "v1": ("import tensorflow.compat.v1 as tf\n" + LINES, {7, 8, 9}),
    "tf2": ("import tensorflow as tf\n" + LINES, {5, 7, 8, 9}),  # TF 2's DNNClassifier: Keras 2
}


@pytest.mark.parametrize("program", sorted(SCANNED))
def test_the_scan_breaks_exactly_where_the_installed_program_raises(program):
    source, raising = SCANNED[program]
    path = pathlib.Path(os.environ["TMPDIR"]) / f"estimator_lines_{program}.py"
    path.write_text(source)
    plain = {f.line for f in scanner.scan([str(path)]).findings if f.severity == "breaks"}
    assert plain == {2, 3, 4, 5, 6, 7, 8, 9}  # without tf1_train.compat, every use
    under = {f.line for f in scanner.scan([str(path)], compat=True).findings
             if f.severity == "breaks"}  # fmt: skip
    errors = (AttributeError, ImportError, NameError, NotImplementedError)
    import tf1_train.compat

    tf1_train.compat.install()
    try:
        assert under == raising_lines(source, errors) == raising
    finally:
        tf1_train.compat.uninstall()


def test_a_mirrored_strategy_estimator_on_two_cpu_towers_trains_as_one_device(tmp_path):
    # RunConfig(train_distribute=MirroredStrategy(...)), TF 1.x's multi-GPU
    # Estimator, on two virtual CPUs. The input_fn's batch is each tower's (TF
    # 1.x's rule): towers take consecutive batches of 50 and the v1 optimizer
    # scales each tower's loss by 1/2 before the sum, so two towers train what
    # one device does on batches of 100 (measured after 100 steps: evaluation
    # loss 0.47763028740882874 and accuracy 0.8833 on both).
    results = {}
    for towers in (1, 2):
        values = run_legacy_script("--v1", tmp_path, str(DISTRIBUTED), str(tmp_path / f"m{towers}"),
                                   "mirrored", str(towers), str(100 // towers))  # fmt: skip
        for i in range(towers):
            assert values[f"tower {i}"] == f"/replica:0/task:0/device:CPU:{i}"
        assert f"tower {towers}" not in values
        results[towers] = json.loads(values["result"])
    assert results[2]["global_step"] == 100 and results[2]["acc"] > 0.85
    np.testing.assert_allclose(results[2]["loss"], results[1]["loss"], rtol=1e-6)
    # TF 1.12-1.14's tf.contrib.distribute.MirroredStrategy(num_gpus=2), its GPUs
    # on the two CPUs: the same towers, the same numbers.
    contrib = run_legacy_script("--v1", tmp_path, "--gpus_as_cpus=2", str(DISTRIBUTED),
                                str(tmp_path / "c2"), "contrib_mirrored", "2", "50")  # fmt: skip
    assert json.loads(contrib["result"]) == results[2]
    assert results[2]["acc"] == results[1]["acc"]
