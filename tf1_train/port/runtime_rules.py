"""Rules for what a TF1 training program hits when it runs, beyond TensorFlow's
API table: ``tf.train.Supervisor`` (and ``slim.learning.train``, which builds
one) in eager mode, tf-slim
functions that read private TensorFlow names 2.21 moved, and TF 1.4's
``_parse_flags()`` on the flag values (found in cnn-text-classification-tf's
eval.py).

Both were found running tensorflow/models' TF-slim trainer on TensorFlow 2.21:
the scan called the Supervisor ``works`` and said nothing of ``np.int`` (now
numpy_rules.py's) or of ``slim.tfexample_decoder.Image``, and the program stopped at import, in its
data provider and at step 0.
"""

import ast
from typing import Dict, Iterator, Optional, Tuple

from tf1_train.port.rules import BREAKS, ROW_SLIM, ROW_SUPERVISOR, V1, _rule

ROW_PARSE_FLAGS = "`_parse_flags()` on TF 1.4's flags"
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

_rule(
    "flags-parse-flags",
    BREAKS,
    "drop it: since TF 1.5 tf.flags is absl's, which has no _parse_flags (AttributeError) and "
    "parses the command line in tf.app.run(); a program that reads flags without "
    "tf.app.run() first calls its flag values object with sys.argv",
    "leaves it unchanged and reports nothing",
    ROW_PARSE_FLAGS,
)

SUPERVISORS = (V1 + "train.Supervisor", "tensorflow.train.Supervisor", "tf_slim.learning.train")


def path_rule(path: str, eager_off: bool) -> Optional[Tuple[str, Dict[str, str]]]:
    """``supervisor-eager`` for a Supervisor in a program that never leaves eager mode."""
    if not eager_off and path in SUPERVISORS:
        return "supervisor-eager", {}
    return None


def parse_flags_findings(tree: ast.AST) -> Iterator[Tuple[ast.AST, str, str, Dict[str, str]]]:
    """(node, rule, construct, fill-ins) for each ``._parse_flags()`` call (TF 1.4's
    flags, which the text CNNs' eval.py kept)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "_parse_flags":
                yield node, "flags-parse-flags", ast.unparse(node), {}
