"""Rules for what a TF1 training program hits when it runs, beyond TensorFlow's
API table: ``tf.train.Supervisor`` (and ``slim.learning.train``, which builds
one) in eager mode, tf-slim
functions that read private TensorFlow names 2.21 moved (TF 1.4's flags:
flag_rules.py), and TF 1.x's graph-level seed, from which TensorFlow 2 derives other
op seeds (GraphSAGE and GAE: every loss and metric of theirs moves; given
TF 1.15.5's op seeds, all 12 of their configurations tried agreed to 1e-5).

The first two were found running tensorflow/models' TF-slim trainer on TensorFlow 2.21:
the scan called the Supervisor ``works`` and said nothing of ``np.int`` (now
numpy_rules.py's) or of ``slim.tfexample_decoder.Image``, and the program stopped at import, in its
data provider and at step 0.
"""

from typing import Dict, Optional, Tuple

from tf1_train.port.rules import BREAKS, CHANGES, ROW_SLIM, ROW_SUPERVISOR, V1, _rule

GRAPH_MODE = (
    "call tf.compat.v1.disable_eager_execution at the top of the entry point "
    "(python -m tf1_train.compat script.py does)"
)

_rule(
    "supervisor-eager",
    BREAKS,
    "with eager execution on, the Supervisor's step-counter thread (started when it has a "
    "logdir) runs outside `with tf.Graph().as_default():` and so eagerly: it raises "
    "'global_step:0 ... is out of scope' and training stops at step 0; " + GRAPH_MODE,
    "adds no disable_eager_execution",
    ROW_SUPERVISOR,
)
_rule(
    "slim-moved-names",
    BREAKS,
    "tf-slim 1.1.0 reads private TensorFlow names that TF 2.21 moved (control_flow_ops.case "
    "and cond in tfexample_decoder.Image, array_ops.stack in BoundingBox, ops.Tensor in "
    "optimize_loss, variable_scope.variable in local_variable/global_variable): AttributeError "
    "when it runs; tf1_train.compat.install() puts them back",
    "leaves it unchanged and reports nothing",
    ROW_SLIM,
)

ROW_SEED = "`tf.compat.v1.set_random_seed` + op seeds"
_rule(
    "graph-seed",
    CHANGES,
    "give each random op and initializer a seed of its own (seed=...: those draw TF 1.x's "
    "numbers on TF 2 too), or compare the program with its port from one checkpoint: an op "
    "without one takes a seed derived from this graph seed, which TF 1.x derived from the "
    "number of ops built before it and TensorFlow 2 from a count of the graph's draws, so "
    "every unseeded initializer, dropout, shuffle and random op draws other numbers than on "
    "TF 1.x from the first variable on, with the same seed set (PORTING P6); unedited: python "
    "-m tf1_train.compat --v1_seeds --v1_variables takes the op count again (TF 1.15.5's "
    "draws where the graph before each draw has TF 1.x's ops, as tf.layers' and "
    "tf.nn.dropout's, dynamic_rnn's of legacy cells, tf.split's, tf.random_uniform's, "
    "tf.random_gamma's, tf.tensordot's, tf.linspace's, tf.eye's, tf.einsum's, parse_single_"
    "example's and an initializable tf.data iterator's do; not after a minimize or "
    "tf.gradients or a fused contrib LSTM: compare from one checkpoint there)",
    "renames it to tf.compat.v1.set_random_seed and reports nothing of the draws",
    ROW_SEED,
)

SUPERVISORS = (V1 + "train.Supervisor", "tensorflow.train.Supervisor", "tf_slim.learning.train")
GRAPH_SEEDS = tuple(
    p + n for p in (V1, "tensorflow.") for n in ("set_random_seed", "random.set_random_seed")
)


def path_rule(path: str, eager_off: bool) -> Optional[Tuple[str, Dict[str, str]]]:
    """``supervisor-eager`` for a Supervisor in a program that never leaves eager mode;
    ``graph-seed`` for TF 1.x's graph-level seed."""
    if not eager_off and path in SUPERVISORS:
        return "supervisor-eager", {}
    return ("graph-seed", {}) if path in GRAPH_SEEDS else None
