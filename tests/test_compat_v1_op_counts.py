"""``--v1_seeds``: constructions TensorFlow 2 builds in another number of ops
than TF 1.15 did, so a graph-seeded program's later draws moved
(tf1_train/compat/_v1_ops_linalg.py, _v1_ops_parsing.py, _core.py's dropout):
``tf.linspace`` (dopamine's C51, Rainbow and IQN support: 74 ops for TF
1.15's 4), ``tf.eye`` and the ``matrix_diag`` family, ``tf.einsum`` (XLNet's
attention), ``tf.zeros`` of a shape holding a tensor (NumPy 1.x multiplied
it), ``parse_single_example``, dropout at rate 0 and with a ``noise_shape``
(GPT-1's classifier; one holding None raised). Each builds TF 1.15.5's ops, the
``random_uniform`` after it draws TF 1.15.5's numbers, and it computes TF
1.15.5's values (tests/legacy_scripts/v1_op_counts_style.py, run on TF 1.15.5
into tests/goldens/v1_op_counts*_tf115.json)."""

import json
import pathlib

from conftest import ROOT, run_cli

from tf1_train.compat.__main__ import SEEDS_WITHOUT_VARIABLES

SCRIPT = str(pathlib.Path(ROOT) / "tests" / "legacy_scripts" / "v1_op_counts_style.py")
GOLDENS = pathlib.Path(ROOT) / "tests" / "goldens"
REFUSED = "einsum_trace"  # 'ii->i': TF 1.15 refused it; TF 2's einsum builds it


def _run(tmp_path, *args, variables: bool = False) -> dict:
    flags = ["--v1_seeds", "--v1_variables"] if variables else ["--v1_seeds"]
    out = run_cli([*flags, SCRIPT, *args], module="tf1_train.compat", cwd=tmp_path,
                  env={"TF_CPP_MIN_LOG_LEVEL": "2"})  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    # without --v1_variables, one note says the draws after a variable move
    assert (f"note: {SEEDS_WITHOUT_VARIABLES}" in out.stderr) != variables
    return json.loads(out.stdout.strip().splitlines()[-1])


def _golden(name: str) -> dict:
    return json.loads((GOLDENS / name).read_text())


def test_each_builds_tf_1_15_5s_ops_so_the_next_draw_is_tf_1_15_5s(tmp_path):
    ours, tf115 = _run(tmp_path), _golden("v1_op_counts_tf115.json")
    assert tf115.pop(REFUSED)[0] == "raises" and ours.pop(REFUSED)[0] == 2
    assert ours == tf115


def test_each_computes_tf_1_15_5s_values(tmp_path):
    ours = _run(tmp_path, "values", variables=True)
    tf115 = _golden("v1_op_counts_values_tf115.json")
    assert ours.pop(REFUSED)[1] == [[1.0, 1.0, 1.0]]
    del tf115[REFUSED]
    assert ours == tf115
