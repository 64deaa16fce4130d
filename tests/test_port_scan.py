"""`python -m tf1_train.port scan`: rules, aliases, exit codes, JSON, legacy-style excerpts, and
what TensorFlow 2.21 and tf_upgrade_v2 really do with the constructs (cited by docs/PORTING.md)."""

import json
import pathlib
import runpy
import sys
from unittest import mock

import numpy as np
import pytest
import tensorflow as tf

from tests.port_scan_cases import CASES, UPGRADE_TF, UPGRADE_V1, expected_lines
from tests.test_docs import _rows
from tf1_train.port import __main__ as port_main
from tf1_train.port import paths, scan_cli
from tf1_train.port import scan as scanner
from tf1_train.port.rules import BREAKS, CHANGES, RULES, SEVERITIES

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXCERPTS = ROOT / "tests" / "scan_excerpts"
v1 = tf.compat.v1


def _scan(tmp_path, text, name="snippet.py"):
    path = tmp_path / name
    path.write_text(text)
    return scanner.scan([str(path)])


def _lines(report, rule):
    return sorted({f.line for f in report.findings if f.rule == rule})


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.rule)
def test_each_rule_fires_on_its_trigger_and_not_on_its_twin(tmp_path, case):
    assert (
        _lines(_scan(tmp_path, case.trigger, case.name), case.rule)
        == expected_lines(case.trigger)[case.rule]
    )
    assert _lines(_scan(tmp_path, case.clean, case.name), case.rule) == []


def test_every_rule_has_cases_a_severity_and_exactly_one_porting_row():
    assert len(RULES) >= 30
    assert sorted(c.rule for c in CASES) == sorted(RULES)
    cells = [row[0] for row in _rows((ROOT / "docs" / "PORTING.md").read_text())]
    for rule in RULES.values():
        assert rule.severity in SEVERITIES, rule
        assert sum(rule.row in cell for cell in cells) == 1, rule


@pytest.mark.parametrize(
    "source, rule",
    [
        ("import tensorflow.compat.v1 as tf\ntf.layers.dense(x, 3)\n", "layers"),
        ("from tensorflow.compat import v1 as tf\ntf.layers.dense(x, 3)\n", "layers"),
        ("import tensorflow as tf\ntf = tf.compat.v1\ntf.layers.dense(x, 3)\n", "layers"),
        ("from tensorflow.compat.v1 import layers\nlayers.dense(x, 3)\n", "layers"),
        ("import tensorflow\ntensorflow.layers.dense(x, 3)\n", "layers"),
        ("from tensorflow.contrib import slim\nslim.conv2d(x, 3, 3)\n", "contrib-slim"),
        ("import tensorflow.contrib.slim as slim\nslim.conv2d(x, 3, 3)\n", "contrib-slim"),
        ("import tensorflow as tf\nslim = tf.contrib.slim\nslim.conv2d(x, 3, 3)\n", "contrib-slim"),
    ],
)
def test_import_aliases_are_resolved(tmp_path, source, rule):
    report = _scan(tmp_path, source)
    last = len(source.splitlines())
    assert last in _lines(report, rule)
    use = [f for f in report.findings if f.line == last]
    assert use[0].construct.split(" = ")[-1].startswith("tensorflow.")


def test_names_that_are_not_tensorflow_are_left_alone(tmp_path):
    source = "import mylib as tf\nfrom keras import layers\ntf.layers.dense(x, 3)\n"
    assert _scan(tmp_path, source + "tf.Session()\nlayers.Dense(3)(x)\n").findings == []


@pytest.mark.parametrize(
    "source, status",
    [
        ("import tensorflow as tf\ny = tf.constant(1)\n", 0),
        ("import tensorflow as tf\ny = tf.to_float(x)\n", 0),  # rename only
        ("import tensorflow as tf\ny = tf.nn.dropout(x, 0.9)\n", 0),  # changes numbers only
        ("import tensorflow as tf\ny = tf.layers.dense(x, 3)\n", 1),
        ("try:\n    import tensorflow.contrib\nexcept ImportError:\n    pass\n", 0),
        ("try:\n    import tensorflow.contrib\nexcept ImportError:\n    raise\n", 1),
    ],
)
def test_exit_status_is_1_only_when_something_breaks(tmp_path, capsys, source, status):
    (tmp_path / "a.py").write_text(source)
    assert scan_cli.main([str(tmp_path / "a.py")]) == status
    assert capsys.readouterr().err == ""


def test_bad_input_is_one_error_line_each_and_the_rest_is_still_scanned(tmp_path, capsys):
    tree = tmp_path / "tree"
    (tree / "pkg").mkdir(parents=True)
    (tree / "pkg" / "good.py").write_text("import tensorflow as tf\ntf.layers.dense(x, 3)\n")
    (tree / "pkg" / "notes.txt").write_text("tf.layers.dense")
    (tree / "broken.py").write_text("def broken(:\n")
    missing = tmp_path / "missing.py"
    out = tmp_path / "out.json"
    assert scan_cli.main([str(missing), str(tree), "--json", str(out)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert [line.split(":")[0] for line in err] == ["error", "error"]
    assert str(missing) in err[0] and f"{tree / 'broken.py'}:1:" in err[1]
    data = json.loads(out.read_text())
    assert data["files"] == [str(tree / "pkg" / "good.py")]
    assert [(f["line"], f["rule"]) for f in data["findings"]] == [(2, "layers")]


@pytest.mark.parametrize(
    "argv, says",
    [
        ([], "no subcommand given; valid: check, convert, scan"),
        (["bogus"], "unknown subcommand 'bogus'; valid: check, convert, scan"),
        (["scan"], "scan needs at least one PATH"),
        (["scan", "a.py", "--json"], "--json needs a FILE"),
        (["scan", "--fast", "a.py"], "unknown option --fast; valid: --json FILE, --compat"),
        (["scan", __file__, "--json", "/no/such/dir/x.json"], "--json /no/such/dir/x.json: cannot"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(capsys, argv, says):
    assert port_main.main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and says in err


def test_module_entry_point_writes_json_to_stdout_and_the_table_to_stderr(tmp_path, capsys):
    (tmp_path / "a.py").write_text(CASES[0].trigger)
    argv = ["tf1_train.port", "scan", str(tmp_path), "--json", "-"]
    with mock.patch.object(sys, "argv", argv), pytest.raises(SystemExit) as status:
        runpy.run_module("tf1_train.port", run_name="__main__", alter_sys=True)
    out = capsys.readouterr()
    assert status.value.code == 1, out.err
    data = json.loads(out.out)
    assert set(data) == {"version", "files", "errors", "counts", "findings"}
    assert data["version"] == scan_cli.JSON_VERSION and data["errors"] == []
    assert sum(data["counts"].values()) == len(data["findings"]) > 0
    for finding in data["findings"]:
        assert list(finding) == list(scanner.Finding._fields)
        assert isinstance(finding["line"], int) and finding["severity"] in SEVERITIES
        assert all(isinstance(finding[k], str) and finding[k] for k in ("fix", "porting_row"))
    assert "| location | severity | construct | fix | tf_upgrade_v2 | PORTING.md row |" in out.err


@pytest.mark.parametrize("name", ["cifar10_multi_gpu_style.py", "convnet_builder_style.py"])
def test_legacy_excerpts_every_breaking_or_number_changing_line_is_found(name):
    path = EXCERPTS / name
    report = scanner.scan([str(path)])
    found = {(f.line, f.rule) for f in report.findings if f.severity in (BREAKS, CHANGES)}
    marks = expected_lines(path.read_text())
    assert found == {(line, rule) for rule, lines in marks.items() for line in lines}
    assert scan_cli.exit_status(report) == 1


def test_cifar10_style_excerpt_renames_and_working_constructs_are_reported():
    report = scanner.scan([str(EXCERPTS / "cifar10_multi_gpu_style.py")])
    rules = {f.rule for f in report.findings}
    assert {"v1-graph-api", "v1-optimizer", "tf-gfile", "tf-app", "random-ops"} <= rules
    assert {"queue-runners", "moving-average", "lr-decay", "eager-placeholder"} <= rules
    # the program enters tf.Graph().as_default(), so its Session runs without disabling eager
    assert {f.severity for f in report.findings if f.rule == "eager-placeholder"} == {"works"}


def _has(module, dotted):
    try:
        for part in dotted.split(".")[1:]:
            module = getattr(module, part)
    except Exception:  # AttributeError, or Keras 3's ImportError for legacy names
        return False
    return True


def test_generic_renames_are_exactly_the_names_tensorflow_2_21_lacks():
    table = [old for old in paths.tf_renames() if not old.startswith("tf.keras.")]
    assert len(table) > 500
    flagged = {old for old in table if paths.renamed("tensorflow." + old[len("tf.") :])}
    assert flagged == {old for old in table if not _has(tf, old)}


# ---- what TensorFlow 2.21 really does with the constructs the rules name ----


@pytest.mark.filterwarnings("ignore:`tf.layers:UserWarning")
def test_compat_v1_layers_raise_under_keras_3_but_the_private_legacy_layers_build():
    for name in ("dense", "conv2d", "BatchNormalization", "batch_normalization"):
        with pytest.raises(AttributeError, match="not available with Keras 3"):
            getattr(v1.layers, name)
    from tensorflow.python.layers import convolutional, core, normalization, pooling

    with tf.Graph().as_default():
        y = pooling.max_pooling2d(convolutional.conv2d(tf.zeros([1, 4, 4, 1]), 2, 3), 2, 2)
        core.dense(tf.reshape(y, [1, -1]), 3)
        names = [v.op.name for v in v1.global_variables()]
    assert names == ["conv2d/kernel", "conv2d/bias", "dense/kernel", "dense/bias"]
    with pytest.raises(ImportError, match="tf_keras"):
        normalization.BatchNormalization  # noqa: B018 (the attribute load is what fails)


def test_removed_modules_and_v1_only_names_are_gone_from_tf_2():
    gone = "contrib estimator layers Session placeholder app gfile logging flags to_float GraphKeys"
    assert [name for name in gone.split() if hasattr(tf, name)] == []
    assert not hasattr(v1, "estimator")
    pytest.raises(ModuleNotFoundError, __import__, "tensorflow.contrib")
    for name in ("Session", "placeholder", "app", "gfile", "logging", "flags", "GraphKeys"):
        assert hasattr(v1, name), name
    pytest.raises(ImportError, tf.keras.optimizers.legacy.SGD, 0.1).match("Keras 3")
    pytest.raises(AttributeError, lambda: v1.nn.rnn_cell.LSTMCell(4)).match("Keras 3")
    with pytest.raises(ValueError, match="KerasTensor"):
        tf.keras.layers.Input(tensor=tf.zeros([2, 3]))
    backends = dir(tf.keras.backend) + dir(v1.keras.backend)
    assert not {"get_session", "learning_phase"} & set(backends)


def test_supervisor_and_sync_replicas_still_run_under_compat_v1():
    with tf.Graph().as_default():
        step = v1.train.get_or_create_global_step()
        increment = step.assign_add(1)
        supervisor = v1.train.Supervisor(logdir=None)
        with supervisor.managed_session() as sess:
            sess.run(increment)
            assert sess.run(step) == 1
    with tf.Graph().as_default():  # tests/test_distributed.py runs it across processes
        w = v1.get_variable("w", initializer=[1.0])
        sync = v1.train.SyncReplicasOptimizer(v1.train.GradientDescentOptimizer(0.5), 1, 1)
        sync.minimize(tf.reduce_sum(w), global_step=v1.train.get_or_create_global_step())
        assert sync.make_session_run_hook(is_chief=True) is not None


def test_queue_runners_still_produce_batches_on_2_21(tmp_path):
    records = np.arange(40, dtype=np.uint8).reshape(10, 4)
    records.tofile(tmp_path / "data.bin")
    with tf.Graph().as_default():
        queue = v1.train.string_input_producer([str(tmp_path / "data.bin")])
        _, value = v1.FixedLengthRecordReader(record_bytes=4).read(queue)
        record = tf.reshape(tf.io.decode_raw(value, tf.uint8), [4])
        batch = v1.train.shuffle_batch([record], 3, capacity=10, min_after_dequeue=2)
        with v1.Session() as sess:
            coord = v1.train.Coordinator()
            threads = v1.train.start_queue_runners(sess, coord)
            rows = sess.run(batch)
            coord.request_stop()
            coord.join(threads)
    assert rows.shape == (3, 4)
    assert all(any((row == r).all() for r in records) for row in rows)


def test_moving_averages_restore_through_variables_to_restore(tmp_path):
    decay, trained = 0.5, 4.0
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=0.0)
        ema = v1.train.ExponentialMovingAverage(decay)
        with tf.control_dependencies([w.assign(trained)]):
            update = ema.apply([w])
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            sess.run(update)
            v1.train.Saver().save(sess, str(tmp_path / "model"))
    with tf.Graph().as_default():
        w = v1.get_variable("w", initializer=0.0)
        restore = v1.train.ExponentialMovingAverage(decay).variables_to_restore()
        with v1.Session() as sess:
            v1.train.Saver(restore).restore(sess, str(tmp_path / "model"))
            assert sess.run(w) == pytest.approx(decay * 0.0 + (1 - decay) * trained)


def test_staircase_decay_is_the_same_step_function_in_v1_and_keras():
    with tf.Graph().as_default():
        step = v1.train.get_or_create_global_step()
        old = v1.train.exponential_decay(0.1, step, 10, 0.5, staircase=True)
        new = tf.keras.optimizers.schedules.ExponentialDecay(0.1, 10, 0.5, staircase=True)(step)
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            for at in (0, 9, 10, 25):
                sess.run(step.assign(at))
                expected = np.float32(0.1) * np.float32(0.5) ** (at // 10)
                assert sess.run([old, new]) == pytest.approx([expected, expected], rel=1e-6)


def test_regularization_losses_come_from_get_variable_not_from_keras_layers():
    with tf.Graph().as_default():
        w = v1.get_variable(
            "w", initializer=[3.0, 4.0], regularizer=lambda v: 0.1 * tf.nn.l2_loss(v)
        )
        keras_reg = tf.keras.regularizers.l2(0.1)
        tf.keras.layers.Dense(2, kernel_regularizer=keras_reg)(tf.zeros([1, 2]))
        losses = v1.get_collection(v1.GraphKeys.REGULARIZATION_LOSSES)
        assert len(losses) == 1
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            total, keras_value = sess.run([v1.losses.get_regularization_loss(), keras_reg(w)])
    assert total == pytest.approx(0.1 * (3.0**2 + 4.0**2) / 2)
    assert keras_value == pytest.approx(2 * total)  # Keras' l2 has no 1/2


def test_dimension_value_raises_on_tf_2_shapes():
    with tf.Graph().as_default():
        x = v1.placeholder(tf.float32, [None, 3])
        assert x.shape[1] == 3 and x.shape[0] is None
        with pytest.raises(AttributeError, match="'int' object has no attribute 'value'"):
            x.get_shape()[1].value  # noqa: B018
        assert v1.dimension_value(x.shape[1]) == 3


def test_tf2_summaries_in_a_v1_graph_return_bool_and_merge_nothing():
    with tf.Graph().as_default():
        scalar = tf.summary.scalar("loss", tf.constant(1.0))
        histogram = tf.summary.histogram("h", tf.constant([1.0]))
        assert scalar.dtype == tf.bool and histogram.dtype == tf.bool
        assert v1.get_collection(v1.GraphKeys.SUMMARIES) == []
        assert v1.summary.merge_all() is None
        with pytest.raises(TypeError):
            v1.summary.merge([scalar, histogram])
        assert v1.summary.scalar("loss", tf.constant(1.0)).dtype == tf.string
        assert v1.summary.merge_all() is not None


def test_tf_device_refuses_the_functions_compat_v1_device_takes():
    with tf.Graph().as_default():
        setter = v1.train.replica_device_setter(ps_tasks=1)
        with pytest.raises(RuntimeError, match="tf.device does not support functions"):
            with tf.device(setter):
                pass
        with v1.device(setter):
            assert v1.get_variable("v", [1]).device == "/job:ps/task:0"


def test_keras_layers_in_a_v1_graph_are_not_shared_and_add_no_update_ops():
    with tf.Graph().as_default():
        x = tf.ones([4, 3])
        for tower in range(2):
            with v1.variable_scope("model", reuse=tower > 0):
                tf.keras.layers.Dense(2)(x)
        assert len(v1.trainable_variables()) == 2 * 2  # kernel + bias per tower, not shared
        tf.keras.layers.BatchNormalization()(x, training=True)
        assert v1.get_collection(v1.GraphKeys.UPDATE_OPS) == []


def test_renamed_arguments_raise_or_change_numbers():
    with pytest.raises(TypeError, match="keep_dims"):
        tf.reduce_mean(tf.ones([2]), keep_dims=True)
    with tf.Graph().as_default():
        v1.set_random_seed(1)
        x = tf.ones([20000])
        kept = [tf.reduce_mean(tf.cast(d > 0, tf.float32)) for d in (tf.nn.dropout(x, 0.9),)]
        kept.append(tf.reduce_mean(tf.cast(v1.nn.dropout(x, 0.9) > 0, tf.float32)))
        image = tf.reshape(tf.range(16.0), [1, 4, 4, 1])
        resized = [v1.image.resize_images(image, [6, 6]), tf.image.resize(image, [6, 6])]
        with v1.Session() as sess:
            (tf2_kept, v1_kept), (old, new) = sess.run([kept, resized])
    assert tf2_kept == pytest.approx(1 - 0.9, abs=0.02)  # TF 2 reads 0.9 as the drop rate
    assert v1_kept == pytest.approx(0.9, abs=0.02)
    assert np.abs(old - new).max() > 0.1


def test_placeholders_and_sessions_need_graph_mode():
    assert tf.executing_eagerly()  # TensorFlow 2's default, as in a fresh program
    with tf.Graph().as_default():
        x = tf.compat.v1.placeholder(tf.float32, [None])
        with tf.compat.v1.Session() as sess:
            assert sess.run(x * 2, {x: [1.0]})[0] == 2.0
    with pytest.raises(RuntimeError, match="not compatible with eager execution"):
        tf.compat.v1.placeholder(tf.float32)


def _upgrade(source):
    from tensorflow.tools.compatibility import ast_edits, tf_upgrade_v2

    # as the tf_upgrade_v2 command sets it up by default
    spec = tf_upgrade_v2.TFAPIChangeSpec(import_rename=False, upgrade_compat_v1_import=True)
    upgrader = ast_edits.ASTCodeUpgrader(spec)
    _, text, log, errors = upgrader.update_string_pasta(source, "legacy.py")
    return text, "\n".join(log + errors)


def test_tf_upgrade_v2_blind_spots():
    text, log = _upgrade(UPGRADE_TF)
    lines = text.splitlines()
    assert lines[1] == "h = tf.layers.dense(x, 10)" and "tf.layers.dense" not in log
    assert lines[2] == "b = tf.compat.v1.layers.batch_normalization(h, training=True)"
    assert lines[3] == "with tf.device(tf.compat.v1.train.replica_device_setter(ps_tasks=1)):"
    assert lines[4] == "    n = x.get_shape()[1].value"
    assert lines[5] == "tf.summary.scalar('loss', b)" and "converted to tf.compat.v1.summary" in log
    assert lines[6] == "opt = tf.keras.optimizers.legacy.Adam()"  # raises under Keras 3
    assert lines[7] == "r = tf.image.resize(x, [6, 6])"  # other numbers
    assert lines[9] == "k = tf.compat.v1.keras.backend.get_session()"  # Keras 3 has none
    assert "disable_eager_execution" not in text
    assert "tf_keras" not in log and "tf_slim" not in log
    text, log = _upgrade(UPGRADE_V1)
    assert text.splitlines() == ["import tensorflow as tf", *UPGRADE_V1.splitlines()[1:]]
    assert "contrib" not in log
