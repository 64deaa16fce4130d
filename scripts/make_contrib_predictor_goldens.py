"""Write tests/goldens/predictor_tf115/: a SavedModel TensorFlow 1.15.5 exported
(a dense layer and a softmax, two signatures) and what TF 1.15.5's own
tf.contrib.predictor.from_saved_model returned for a fixed batch
(expected.json), which tests/test_compat_contrib_predictor.py holds
tf1_train.compat's to. Run with a Python 3.7 that has tensorflow==1.15.5:

    python scripts/make_contrib_predictor_goldens.py
"""

import json
import pathlib
import shutil

import numpy as np
import tensorflow as tf

ROOT = pathlib.Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "goldens" / "predictor_tf115"
BATCH = np.linspace(-1, 1, 12).reshape(3, 4).astype(np.float32)

shutil.rmtree(str(OUT), ignore_errors=True)
with tf.Graph().as_default(), tf.Session() as sess:
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    init = tf.constant_initializer(np.arange(12).reshape(4, 3) / 10.0)
    logits = tf.layers.dense(x, 3, kernel_initializer=init, name="dense")
    probs = tf.nn.softmax(logits, name="probs")
    sess.run(tf.global_variables_initializer())
    builder = tf.saved_model.builder.SavedModelBuilder(str(OUT / "model"))
    serving = tf.saved_model.predict_signature_def({"x": x}, {"probs": probs, "logits": logits})
    argmax = tf.saved_model.predict_signature_def({"x": x}, {"class": tf.argmax(logits, 1)})
    builder.add_meta_graph_and_variables(
        sess, ["serve"], {"serving_default": serving, "classify": argmax}
    )
    builder.save()
expected = {}
for key in (None, "classify"):
    predict = tf.contrib.predictor.from_saved_model(str(OUT / "model"), signature_def_key=key)
    found = predict({"x": BATCH})
    expected[key or "serving_default"] = {k: v.tolist() for k, v in found.items()}
named = tf.contrib.predictor.from_saved_model(
    str(OUT / "model"), input_names={"x": "x:0"}, output_names={"p": "probs:0"}
)
expected["by_names"] = {k: v.tolist() for k, v in named({"x": BATCH}).items()}
expected["batch"] = BATCH.tolist()
expected["versions"] = {"tensorflow": tf.__version__}
(OUT / "expected.json").write_text(json.dumps(expected, sort_keys=True) + "\n")
print("wrote", OUT)
