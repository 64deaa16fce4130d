"""Write tests/goldens/hub_tf115_module/: a TF1 Hub format module exported
by TensorFlow 1.15.5 with tensorflow-hub 0.8.0 (a text-embedding-style
module: a lookup table of 5 words, an embedding, a dense layer, a default
and a named signature), and what TF 1.15.5 computes from it
(``expected.json``: its outputs, and the losses of 3 fine-tuning steps, by
tests/legacy_scripts/hub_module_style.py's own functions),
which tests/test_compat_hub.py holds TensorFlow 2.21 with tensorflow-hub
0.15.0 to. Run it with TensorFlow 1.15.5, in an
environment of its own outside the repository:

    python3.7 -m venv /tmp/tf115-venv
    /tmp/tf115-venv/bin/pip install tensorflow==1.15.5 'numpy<1.19' 'protobuf<3.21'
    /tmp/tf115-venv/bin/pip install --target /tmp/hub080 tensorflow-hub==0.8.0 --no-deps
    PYTHONPATH=/tmp/hub080 /tmp/tf115-venv/bin/python scripts/make_hub_tf115_module.py
"""

import json
import os
import shutil
import sys

import numpy as np
import tensorflow as tf
import tensorflow_hub as hub

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "legacy_scripts"))
from hub_module_style import SENTENCES, fine_tune, use  # noqa: E402 (the test's own code)

OUT = os.path.join(ROOT, "tests", "goldens", "hub_tf115_module")
WORDS = ["<unk>", "good", "bad", "movie", "plot"]


def module_fn():
    words = tf.placeholder(tf.string, [None, 2])
    table = tf.contrib.lookup.index_table_from_tensor(tf.constant(WORDS), default_value=0)
    start = np.arange(len(WORDS) * 4, dtype=np.float32).reshape(len(WORDS), 4) / 10.0
    embeddings = tf.get_variable("embeddings", initializer=tf.constant(start))
    vectors = tf.reduce_mean(tf.nn.embedding_lookup(embeddings, table.lookup(words)), axis=1)
    kernel = np.arange(12, dtype=np.float32).reshape(4, 3) / 10.0 - 0.5
    dense = tf.layers.dense(vectors, 3, kernel_initializer=tf.constant_initializer(kernel))
    hub.add_signature(inputs=words, outputs=dense)
    hub.add_signature("lookup", inputs=words, outputs={"ids": table.lookup(words)})


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    spec = hub.create_module_spec(module_fn)
    with tf.Graph().as_default():
        module = hub.Module(spec)
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            module.export(OUT, sess)
    expected = {"sentences": SENTENCES, **use(OUT), "fine_tuned_losses": fine_tune(OUT)}
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
    print(json.dumps(expected, sort_keys=True))


if __name__ == "__main__":
    main()
