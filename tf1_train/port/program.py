"""Facts about a whole program that change what one line of it does: graph
mode switched on somewhere, TF 1.x's shapes or variables switched back, the
compat runner installed. scan.py gathers them once from every resolved API
path; ``adjust`` turns a rule's severity into the one this program gets.
"""

from typing import NamedTuple, Optional, Sequence, Tuple

from tf1_train.port.hub_rules import tf1_hub_installed
from tf1_train.port.rules import BREAKS, V1, WORKS

SESSION_NAMES = ("placeholder", "Session", "InteractiveSession")
V1_GRAPH_NAMES = SESSION_NAMES + (
    "get_variable",
    "variable_scope",
    "get_collection",
    "add_to_collection",
    "GraphKeys",
    "train.Saver",
    "global_variables_initializer",
    "train.MonitoredTrainingSession",
)
# disable_v2_behavior() switches each of these back too
V1_SHAPES = {"disable_v2_behavior", "disable_v2_tensorshape"}
V1_VARIABLES = {"disable_v2_behavior", "disable_resource_variables"}
V1_CONTROL_FLOW = {"disable_v2_behavior", "disable_control_flow_v2"}
# What counts a sparse gradient otherwise than a dense one: the global norm, and
# the optimizers that update only a sparse gradient's rows (loop_rules.py)
SPARSE_SENSITIVE = (
    "global_norm",
    "clip_by_global_norm",
    "MomentumOptimizer",
    "RMSPropOptimizer",
    "AdadeltaOptimizer",
    "FtrlOptimizer",
    "AdagradDAOptimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "optimize_loss",
    "create_train_op",
)


class Program(NamedTuple):
    eager_off: bool  # disable_eager_execution or disable_v2_behavior() somewhere
    v1_shapes: bool  # disable_v2_behavior() / disable_v2_tensorshape(): Dimension objects
    v1_graph: bool  # builds a v1 graph (sessions, get_variable, collections)
    graph_context: bool  # enters some `<graph>.as_default()`
    partitioned: bool = False  # uses a variable partitioner (sharded variables)
    compat_installed: bool = False  # calls tf1_train.compat.install()
    v1_variables: bool = False  # reference variables (disable_resource_variables)
    v1_control_flow: bool = False  # Switch/Merge conds (disable_control_flow_v2)
    named_step: bool = False  # tf.Variable(0, name='global_step') outside GLOBAL_STEP
    sparse_sensitive: bool = False  # names global_norm or a row-wise sparse optimizer
    tf2_summary_writer: bool = False  # writes TF 2 summaries itself (SimCLR's v1 graph)
    # attribute names every assignment of which, in any file, makes a variable: (name, rule)
    variable_attributes: Tuple[Tuple[str, str], ...] = ()
    # (variable, op) by last name: op updates variable (minimize(global_step=), assign)
    updates: Tuple[Tuple[str, str], ...] = ()
    variable_names: Tuple[str, ...] = ()  # names given to variables (tf.Variable(name=))
    merged_fetched: bool = False  # a run fetches merge_all()'s result (summary_rules.py)
    # the flags its DEFINE_* calls make; None: none, or not all known (flag_rules.py)
    defined_flags: Optional[Tuple[str, ...]] = None
    graph_seeded: bool = False  # sets a graph-level seed (shuffle_rules.py)


# What tf1_train.compat.install() makes work: the legacy layers and RNN cells, tf-slim's
# batch_norm and moved names, np.int and np.float_ (tf.contrib's paths: scan._kept).
INSTALL_FIXES = (
    "initialized-value",
    "isinstance-v1-variable",
    "variable-truth",
    "tensorboard-summary-v1",
    "layers",
    "rnn-cell",
    "layers-batch-norm",
    "python-layers-batch-norm",
    "slim-batch-norm",
    "numpy-builtin-alias",
    "numpy-removed-alias",
    "scipy-moved",
    "scipy-private-module",
    "pillow-removed-alias",
    "slim-moved-names",
    "global-step-by-name",
    "global-step-supervisor",
    "keras-wrapper-legacy-layer",
    "ema-regularization-losses",
    "regularizer-side-effects",
    "import-meta-graph",
    "batch-norm-epsilon-floor",
)
V1_VARIABLES_NOTE = (
    "works only with TF 1.x's reference variables{also} on (python -m tf1_train.compat "
    "--v1_variables, or disable_v2_behavior())"
)


def in_api(path: str, names: Sequence[str]) -> bool:
    return any(path in (V1 + n, "tensorflow." + n) for n in names)


def program_facts(
    paths: Sequence[str], graph_context: bool, compat_installed: bool = False
) -> Program:
    """Facts about the whole program from every resolved API path in it."""
    off = {p.rsplit(".", 1)[-1] for p in paths if p.startswith(("tensorflow.", V1))}
    return Program(
        eager_off=bool(off & {"disable_eager_execution", "disable_v2_behavior"}),
        v1_shapes=bool(off & V1_SHAPES),
        v1_graph=any(in_api(p, V1_GRAPH_NAMES) for p in paths),
        graph_context=graph_context,
        partitioned=any(p.endswith("_partitioner") for p in off),
        compat_installed=compat_installed,
        v1_variables=bool(off & V1_VARIABLES),
        v1_control_flow=bool(off & V1_CONTROL_FLOW),
        sparse_sensitive=bool(off & set(SPARSE_SENSITIVE)),
        tf2_summary_writer=bool(off & {"create_file_writer", "all_v2_summary_ops"}),
    )


def adjust(key: str, severity: str, program: Program) -> Tuple[str, str]:
    """Severity after what the program does elsewhere, and a note saying why."""
    if key == "dimension-value" and program.v1_shapes:
        return WORKS, (
            "works only with TF 1.x's shapes on (python -m tf1_train.compat --v1_shapes, "
            "disable_v2_tensorshape() or disable_v2_behavior())"
        )
    reference = key in (
        "variable-iadd",
        "feed-variable",
        "isinstance-v1-variable",
        "variable-truth",
        "fetch-with-update",
        "variable-assign-on-reuse",
        "variable-tensor-name",
        "assign-validate-shape",
    )
    reference = reference or key.startswith("global-step-")
    if reference and program.v1_variables:
        return WORKS, V1_VARIABLES_NOTE.format(also="")
    if key == "freeze-ref-ops" and program.v1_variables and program.v1_control_flow:
        return WORKS, V1_VARIABLES_NOTE.format(also=" and control flow")
    if key == "cond-branch-variable" and program.v1_control_flow:
        return WORKS, (
            "works only with TF 1.x's control flow on (python -m tf1_train.compat "
            "--v1_control_flow or --v1_variables, disable_control_flow_v2() or "
            "disable_v2_behavior()): the branch's variables keep the cond's name"
        )
    if key == "loop-lookup-gradient" and program.v1_control_flow:
        return WORKS, (
            "works only with TF 1.x's control flow on (python -m tf1_train.compat "
            "--v1_control_flow or --v1_variables, disable_control_flow_v2() or "
            "disable_v2_behavior())"
        )
    if key == "loop-lookup-gradient" and not program.sparse_sensitive:
        return WORKS, (
            "the same numbers here: the program names neither tf.global_norm nor an optimizer "
            "that updates a sparse gradient's rows only (GradientDescent, Adam and Adagrad "
            "give a dense gradient TF 1.x's numbers)"
        )
    if key == "hub-tf1-format" and program.compat_installed and tf1_hub_installed():
        return WORKS, (
            "works: the tensorflow-hub installed has the TF1 Hub format, and "
            "tf1_train.compat.install() serves the tf.compat.v1.estimator it imports"
        )
    if key == "eager-placeholder" and program.graph_context:
        return WORKS, "runs only inside `with tf.Graph().as_default():` blocks"
    if key.startswith("feed-variable") and program.compat_installed:
        return WORKS, (
            "works through python -m tf1_train.compat or after tf1_train.compat.install(): the "
            "feed goes to the variable's reads, as TF 1.x's did (a read inside a TF 2 cond or "
            "loop cannot take it: one note names the variable; --v1_variables takes it there)"
        )
    if key.startswith("xent-positional") and program.compat_installed:
        return BREAKS, (
            "raises through python -m tf1_train.compat or after tf1_train.compat.install(), as "
            "on TF 1.x: ValueError: Only call ... with named arguments"
        )
    if key in INSTALL_FIXES and program.compat_installed:
        return WORKS, (
            "works: the program runs through python -m tf1_train.compat or calls "
            "tf1_train.compat.install() (before the model)"
        )
    return severity, ""
