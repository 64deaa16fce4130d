"""Trigger and twin snippets (rule, trigger, clean) for two rules NVIDIA's
StyleGAN needed: the test for a variable against the v1 API's class
(tf1_train/port/class_rules.py) and TensorBoard 1.x's summary functions
(tf1_train/port/tensorboard_rules.py), joined to tests/port_scan_cases.py's
CASES. Snippets are never run."""

V1 = "import tensorflow.compat.v1 as tf\n"
TF = "import tensorflow as tf\n"

STYLEGAN = [
    (
        "isinstance-v1-variable",
        V1 + "def set_vars(values):\n"
        "    for var, value in values.items():\n"
        "        assert isinstance(var, tf.Variable)  # expect: isinstance-v1-variable\n"
        "ok = isinstance(x, (tf.Tensor, tf.Variable))  # expect: isinstance-v1-variable\n"
        "sub = issubclass(type(x), tf.compat.v1.Variable)  # expect: isinstance-v1-variable\n",
        # the twins: TF 2's class (every variable's base), and v1's Tensor
        TF + "assert isinstance(var, tf.Variable)\n"
        "ok = isinstance(x, tf.compat.v2.Variable)\n"
        "import tensorflow.compat.v1 as tf1\n"
        "t = isinstance(x, tf1.Tensor)\n",
    ),
    (
        "tensorboard-summary-v1",
        "from tensorboard import summary as summary_lib\n"
        "from tensorboard.summary import pr_curve  # expect: tensorboard-summary-v1\n"
        "layout = summary_lib.custom_scalar_pb(layout_pb)  # expect: tensorboard-summary-v1\n",
        # the twins: TensorBoard 1.x's module by its new name, and a name both modules have
        "from tensorboard.summary import v1 as summary_lib\n"
        "layout = summary_lib.custom_scalar_pb(layout_pb)\n"
        "import tensorboard.summary\n"
        "s = tensorboard.summary.scalar('loss', 1.0, step=0)\n",
    ),
]
