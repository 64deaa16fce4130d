"""Trigger and twin snippets (rule, trigger, clean) for a model's loss
terms on TensorFlow 2: a regularizer that does more than return its loss
(tf1_train/port/regularizer_rules.py) and ``ExponentialMovingAverage.apply``
over REGULARIZATION_LOSSES (tf1_train/port/ema_rules.py), TF 0.x's positional
sparse cross entropy (tf1_train/port/arg_order.py: pathak22/noreward-rl's
inverse model); joined to
tests/port_scan_cases.py's CASES. Snippets are never run."""

TF = "import tensorflow as tf\n"

LOSSES = [
    (
        "xent-positional-sparse",
        TF + "inv = tf.nn.sparse_softmax_cross_entropy_with_logits(logits, aindex)"
        "  # expect: xent-positional-sparse\n",
        TF + "inv = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=aindex, logits=logits)\n",
    ),
    (
        "regularizer-side-effects",
        TF + "import tf_slim as slim\n"
        "def decay(w):\n"
        "    loss = tf.multiply(0.004, tf.nn.l2_loss(w), name='weight_loss')\n"
        "    tf.add_to_collection('losses', loss)\n"
        "    return loss\n"
        "def tracked(scale):\n"
        "    def regularizer(w):\n"
        "        loss = scale * tf.nn.l2_loss(w)\n"
        "        tf.summary.scalar('decay', loss)\n"
        "        return loss\n"
        "    return regularizer\n"
        "w = tf.get_variable('w', [3], regularizer=decay)  # expect: regularizer-side-effects\n"
        "with tf.variable_scope('net', regularizer=tracked(0.1)):"
        "  # expect: regularizer-side-effects\n"
        "    y = slim.conv2d(x, 8, 3, weights_regularizer=lambda w: tf.losses.add_loss(w))"
        "  # expect: regularizer-side-effects\n",
        TF + "import tf_slim as slim\n"
        "def decay(w):\n"
        "    return tf.multiply(0.004, tf.nn.l2_loss(w), name='weight_loss')\n"
        "def tracked(scale):\n"
        "    tf.add_to_collection('scales', scale)\n"
        "    return tf.contrib.layers.l2_regularizer(scale)\n"
        "w = tf.get_variable('w', [3], regularizer=decay)\n"
        "with tf.variable_scope('net', regularizer=tracked(0.1)):\n"
        "    y = slim.conv2d(x, 8, 3, weights_regularizer=slim.l2_regularizer(0.1))\n"
        "tf.add_to_collection('losses', tf.add_n(tf.losses.get_regularization_losses()))\n"
        "layer = Mine(regularizer=decay_with_summary)\n",
    ),
    (
        "ema-regularization-losses",
        TF + "ema = tf.train.ExponentialMovingAverage(0.9)\nk = tf.GraphKeys\n"
        "ema.apply(tf.get_collection(k.REGULARIZATION_LOSSES))"
        "  # expect: ema-regularization-losses\n"
        "def f(total):\n"
        "    losses = tf.get_collection('losses')\n"
        "    losses += tf.compat.v1.losses.get_regularization_losses()\n"
        "    avg = tf.compat.v1.train.ExponentialMovingAverage(0.9, name='avg')\n"
        "    return avg.apply(losses + [total])  # expect: ema-regularization-losses\n"
        "terms = []\nterms.extend(tf.get_collection('regularization_losses'))\n"
        "op = tf.train.ExponentialMovingAverage(0.9).apply(var_list=[*terms])"
        "  # expect: ema-regularization-losses\n",
        TF + "ema = tf.train.ExponentialMovingAverage(0.9)\n"
        "ema.apply(tf.get_collection('losses') + [total])\n"
        "ema.apply([tf.add_n(tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))])\n"
        "terms = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)\n"
        "def f(terms):\n    return ema.apply(tf.trainable_variables())\n"
        "averages = {}\naverages.apply(terms)\n",
    ),
]
