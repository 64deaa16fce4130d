"""TF 1.x's ``'acc'`` key for ``metrics=['accuracy']`` (scan rule keras-accuracy-key,
tf1_train/port/keras_metric_rules.py). TensorFlow 1.15.5's tf.keras logged
``['acc', 'loss']`` for this program's fit (measured 2026-12-07); Keras 3 logs
``'accuracy'``, so the program's two reads of ``'acc'`` fail, where the scan says."""

import numpy as np
import pytest

from tf1_train.port import scan

PROGRAM = (
    "import numpy as np\n"
    "from tensorflow import keras\n"
    "model = keras.Sequential([keras.layers.Dense(2, activation='softmax')])\n"
    "model.compile(optimizer='adam', loss='categorical_crossentropy', metrics=['accuracy'])\n"
    "x, y = np.ones((8, 3), np.float32), np.eye(2, dtype=np.float32)[[0, 1] * 4]\n"
    "history = model.fit(x, y, epochs=2, verbose=0)\n"
    "last = history.history.get('acc')\n"
    "first = history.history['acc'][0]\n"
    "loss = history.history['loss'][0]\n"
)


def test_keras_3_logs_accuracy_under_its_own_name_where_the_scan_says(tmp_path):
    (tmp_path / "prog.py").write_text(PROGRAM)
    found = [(f.line, f.severity) for f in scan.scan([str(tmp_path)]).findings
             if f.rule == "keras-accuracy-key"]  # fmt: skip
    assert found == [(7, "breaks"), (8, "breaks")]
    names = {}
    exec("\n".join(PROGRAM.splitlines()[:7]), names)
    assert names["last"] is None and "accuracy" in names["history"].history
    with pytest.raises(KeyError):
        exec(PROGRAM.splitlines()[7], names)
    assert np.isfinite(names["history"].history["loss"][0])
