"""Trigger and twin snippets (rule, trigger, clean) for a seeded
``Dataset.shuffle(...)`` followed directly by ``repeat()``, which TF 1.x fused
(tf1_train/port/shuffle_rules.py: XLNet's run_classifier.py); joined to
tests/port_scan_cases_runtime.py's RUNTIME. Snippets are never run."""

TF = "import tensorflow as tf\n"

SHUFFLE = [
    (
        "dataset-shuffle-repeat",
        TF + "d = tf.data.Dataset.range(10)\n"
        "a = d.shuffle(100, seed=1).repeat(2).batch(4)  # expect: dataset-shuffle-repeat\n"
        "b = d.shuffle(buffer_size=9, seed=FLAGS.seed).repeat()  # expect: dataset-shuffle-repeat\n"
        "def input_fn(d, seed):\n"
        "    d = d.shuffle(1000, seed)\n"
        "    d = d.repeat()  # expect: dataset-shuffle-repeat\n"
        "    return d\n"
        "c = d.apply(tf.data.experimental.shuffle_and_repeat(100, None, 3))"
        "  # expect: dataset-shuffle-repeat\n"
        "def seeded_graph():\n"
        "    tf.set_random_seed(42)\n"
        "    return d.shuffle(100).repeat()  # expect: dataset-shuffle-repeat\n",
        TF + "d = tf.data.Dataset.range(10)\n"
        "a = d.shuffle(100).repeat(2)\n"
        "b = d.shuffle(100, seed=1, reshuffle_each_iteration=False).repeat()\n"
        "c = d.shuffle(100, seed=1).map(f).repeat()\nx = d.repeat().shuffle(100, seed=1)\n"
        "def input_fn(d, seed):\n"
        "    d = d.shuffle(1000, seed)\n"
        "    d = d.map(parse)\n"
        "    d = d.repeat()\n"
        "    return d\n"
        "e = d.apply(tf.data.experimental.shuffle_and_repeat(100))\n"
        "f = d.shuffle(100, None).repeat()\n",
    ),
]
