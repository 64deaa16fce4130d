"""Trigger and twin snippets (rule, trigger, clean) for the rules on the
tf.contrib submodules tf1_train.compat keeps (tf1_train/port/contrib_rules.py),
joined to tests/port_scan_cases.py's CASES. Snippets are never run."""

KEPT_CONTRIB = [
    (
        "legacy-seq2seq",
        "from tensorflow.contrib import legacy_seq2seq\n"
        "out, state = legacy_seq2seq.rnn_decoder(x, s, cell)  # expect: legacy-seq2seq\n",
        # the TF2 twin
        "from tf1_train.tf2 import seq2seq\n"
        "out, state = seq2seq.RNNDecoder(params, cell, depth)(x, s)\n",
    ),
    (
        "contrib-crf",
        "import tensorflow as tf\n"
        "ll, trans = tf.contrib.crf.crf_log_likelihood(x, y, n)  # expect: contrib-crf\n",
        "import numpy as np\nbest = np.argmax(scores, 1)\n",
    ),
    (
        "contrib-seq2seq",
        "import tensorflow as tf\n"
        "out, state, n = tf.contrib.seq2seq.dynamic_decode(decoder)  # expect: contrib-seq2seq\n",
        "import tensorflow as tf\nout, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)\n",
    ),
    (
        "contrib-opt",
        "import tensorflow as tf\n"
        "opt = tf.contrib.opt.ScipyOptimizerInterface(loss)  # expect: contrib-opt\n",
        # the TF2 twin
        "from tf1_train.tf2.scipy_optimizer import ScipyMinimizer\n"
        "ScipyMinimizer(loss_fn, variables, method='L-BFGS-B').minimize()\n",
    ),
    (
        "contrib-metrics",
        "import tensorflow as tf\n"
        "auc, up = tf.contrib.metrics.streaming_auc(probs, labels)  # expect: contrib-metrics\n",
        # the port: labels first
        "import tensorflow as tf\nauc, up = tf.compat.v1.metrics.auc(labels, probs)\n",
    ),
]
