"""The rules that read a file's syntax tree (each module owns one idea; scan.py
asks them all here, in the order their findings were first listed)."""

import ast
import pathlib

from tf1_train.port import (
    assign_rules,
    checks,
    class_rules,
    cond_rules,
    dataset_rules,
    ema_rules,
    epsilon_rules,
    feed_rules,
    fetch_rules,
    flag_rules,
    freeze_rules,
    generator_rules,
    global_step_rules,
    hub_rules,
    init_rules,
    keras2_rules,
    keras_cell_rules,
    keras_graph_rules,
    keras_image_rules,
    keras_metric_rules,
    keras_optimizer_rules,
    librosa_rules,
    loop_rules,
    matplotlib_rules,
    native_rules,
    numpy_rules,
    pillow_rules,
    placement_rules,
    py2_rules,
    py3_rules,
    regularizer_rules,
    reuse_rules,
    scipy_rules,
    self_cast_rules,
    shuffle_rules,
    tensor_name_rules,
    tensorboard_rules,
    variable_rules,
)
from tf1_train.port.program import Program


def findings(tree: ast.AST, resolve, uses, file: str, program: Program) -> list:
    """(node, rule key, construct, fill-ins) of every tree rule for one file."""
    raw: list = []
    raw.extend(checks.call_findings(tree, resolve, program))
    raw.extend(flag_rules.findings(tree, resolve, program.defined_flags))
    raw.extend(numpy_rules.findings(tree))
    raw.extend(dataset_rules.findings(tree, uses))
    raw.extend(shuffle_rules.findings(tree, resolve, program.graph_seeded))
    raw.extend(scipy_rules.findings(tree))
    raw.extend(pillow_rules.findings(tree))
    raw.extend(matplotlib_rules.findings(tree))
    raw.extend(hub_rules.findings(tree))
    raw.extend(tensorboard_rules.findings(tree))
    raw.extend(native_rules.string_findings(tree))
    here = pathlib.Path(file).parent
    raw.extend(native_rules.load_findings(tree, resolve, here))
    raw.extend(librosa_rules.findings(tree))
    raw.extend(keras2_rules.findings(tree))
    raw.extend(keras2_rules.wrapper_findings(tree, resolve))
    raw.extend(keras_graph_rules.findings(tree, resolve, program.eager_off))
    raw.extend(keras_optimizer_rules.findings(tree, resolve))
    raw.extend(keras_optimizer_rules.compile_findings(tree, resolve))
    raw.extend(keras_cell_rules.findings(tree, resolve))
    raw.extend(keras_image_rules.findings(tree, resolve))
    raw.extend(keras_metric_rules.findings(tree))
    raw.extend(py2_rules.findings(tree))
    raw.extend(py3_rules.findings(tree))
    raw.extend(generator_rules.findings(tree))
    raw.extend(freeze_rules.findings(tree))
    raw.extend(self_cast_rules.findings(tree))
    raw.extend(variable_rules.findings(tree, resolve))
    attributes = dict(program.variable_attributes)
    raw.extend(feed_rules.findings(tree, resolve, attributes))
    raw.extend(fetch_rules.findings(tree, program.updates))
    raw.extend(assign_rules.findings(tree))
    raw.extend(tensor_name_rules.findings(tree, program.variable_names))
    raw.extend(reuse_rules.findings(tree, resolve))
    raw.extend(ema_rules.findings(tree, resolve))
    raw.extend(regularizer_rules.findings(tree, resolve))
    raw.extend(loop_rules.findings(tree, resolve))
    raw.extend(cond_rules.findings(tree, resolve))
    raw.extend(epsilon_rules.findings(tree, resolve))
    raw.extend(init_rules.findings(tree, resolve))
    raw.extend(init_rules.initialized_value_findings(tree))
    raw.extend(class_rules.findings(tree, resolve))
    raw.extend(placement_rules.findings(tree, resolve))
    raw.extend(global_step_rules.findings(tree, resolve, program))
    return raw
