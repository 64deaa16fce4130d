"""TF 1.x's private forwarding package for the Estimator,
``tensorflow.python.estimator`` (``from tensorflow.python.estimator import
estimator``: tensorflow/tpu's EfficientNet and MnasNet), which TensorFlow
2.16 dropped: after install() its modules are tensorflow-estimator's own,
the scan says the import works under ``--compat``, and uninstall() takes the
path away again."""

import sys

from tf1_train.port import scan

PROGRAM = (
    "import tensorflow.compat.v1 as tf\n"
    "from tensorflow.python.estimator import estimator\n"
    "from tensorflow.python.estimator import run_config\n"
)


def test_the_private_package_is_tensorflow_estimators_own_after_install(installed):
    import tensorflow.compat.v1 as tf
    from tensorflow.python.estimator import estimator, run_config
    from tensorflow_estimator.python.estimator import estimator as real

    assert estimator is real and estimator.Estimator is tf.estimator.Estimator
    assert run_config.RunConfig is tf.estimator.RunConfig


def test_uninstall_takes_it_away_and_the_scan_knows_where_it_works(tmp_path):
    import tf1_train.compat

    tf1_train.compat.install()
    assert "tensorflow.python.estimator.estimator" in sys.modules
    tf1_train.compat.uninstall()
    assert not any(n.startswith("tensorflow.python.estimator") for n in sys.modules)
    path = tmp_path / "trainer.py"
    path.write_text(PROGRAM)
    private = [f for f in scan.scan([str(path)]).findings if f.rule == "private-path"]
    assert [f.line for f in private] == [2, 3] and {f.severity for f in private} == {"breaks"}
    assert [f for f in scan.scan([str(path)], compat=True).findings if f.severity != "works"] == []
