"""Bad input to `python -m tf1_train.port check` and `convert`: one `error:`
line naming the flag or file and what is valid, exit status 2, no traceback.

Each row is checked before any side process starts, so the rows run in this
process through the dispatcher's ``main``. ``--help`` is not bad input: usage,
exit status 0.
"""

import json
import pathlib
import subprocess
import sys

import pytest

from tf1_train.port.__main__ import main

ROOT = pathlib.Path(__file__).resolve().parents[1]
CHECK = ["check", "--tf1=mlp"]
PORT = "--tf2=tests.port_models:keras_port"
CONVERT = ["convert", "{tmp}/model.ckpt-1", "{tmp}/out.weights.h5", "--to=keras", PORT,
           "--input_shape=8,8,1", "--num_classes=10"]  # fmt: skip


def _file(name, text):
    def setup(tmp):
        (tmp / name).write_text(text)

    return setup


ROWS = [  # id, argv, the flag or file named, what is valid, setup
    ("tf1 module missing", ["check", "--tf1=no_such_pkg.model:build"],
     "--tf1=no_such_pkg.model:build", "not found", None),
    ("tf2 module missing", CHECK + ["--tf2=no_such_pkg.port:build"],
     "--tf2=no_such_pkg.port:build", "not found", None),
    ("tf1 missing", ["check", "--steps=3"], "--tf1", "required", None),
    ("name_map missing", CHECK + ["--name_map={tmp}/none.json"],
     "--name_map={tmp}/none.json", "cannot read it", None),
    ("name_map not json", CHECK + ["--name_map={tmp}/m.json"],
     "--name_map={tmp}/m.json", "not JSON", _file("m.json", "{rules:")),
    ("name_map bad keys", CHECK + ["--name_map={tmp}/m.json"], "--name_map={tmp}/m.json",
     'expected {"pairs"', _file("m.json", json.dumps({"rename": {}}))),
    ("name_map bad rule", CHECK + ["--name_map={tmp}/m.json"], "--name_map={tmp}/m.json",
     "is not [regex, replacement]", _file("m.json", json.dumps({"rules": [["a"]]}))),
    ("name_map bad regex", CHECK + ["--name_map={tmp}/m.json"], "--name_map={tmp}/m.json",
     "bad regex", _file("m.json", json.dumps({"rules": [["(", "x"]]}))),
    ("name_map bad cell", CHECK + ["--name_map={tmp}/m.json"], "--name_map={tmp}/m.json",
     '"kind": "lstm"|"gru"|"gru_block"|"simple_rnn"|"conv_lstm"',
     _file("m.json", json.dumps({"cells": [{"tf2": "lstm/lstm_cell", "tf1": "rnn/lstm_cell",
                                            "kind": "peephole_lstm"}]}))),
    ("name_map cells not a list", CHECK + ["--name_map={tmp}/m.json"], "--name_map={tmp}/m.json",
     "'cells' must be a list", _file("m.json", json.dumps({"cells": {"tf2": "lstm"}}))),
    ("convert cells with optimizer", CONVERT + ["--name_map={tmp}/m.json", "--optimizer=adam"],
     "--optimizer=adam with RNN cells in --name_map", "convert without --optimizer",
     _file("m.json", json.dumps({"cells": [{"tf2": "lstm/lstm_cell", "tf1": "rnn/lstm_cell",
                                            "kind": "lstm"}]}))),
    ("tf2_optimizer", CHECK + ["--tf2_optimizer=adamw"], "--tf2_optimizer", "choose from", None),
    ("optimizer", CHECK + ["--optimizer=lbfgs"], "--optimizer", "choose from", None),
    ("input_shape", CHECK + ["--input_shape=24x24"], "--input_shape=24x24", "expected H,W,C", None),
    ("steps", CHECK + ["--steps=0"], "--steps=0", "at least 1", None),
    ("allow regex", CHECK + ["--allow=("], "--allow=(", "bad regex", None),
    ("unknown flag", CHECK + ["--towers=2"], "--towers=2", "unrecognized arguments", None),
    ("convert to", CONVERT[:3] + ["--to=onnx"] + CONVERT[4:], "--to", "choose from", None),
    ("convert src", CONVERT, "SRC {tmp}/model.ckpt-1", "no such file", None),
    ("convert dst", CONVERT[:2] + ["{tmp}/out.h5"] + CONVERT[3:], "DST {tmp}/out.h5",
     "must end with .weights.h5", _file("model.ckpt-1.index", "")),
    ("convert shape", CONVERT[:-2] + ["--input_shape=8,8", "--num_classes=10"],
     "--input_shape=8,8", "expected H,W,C", None),
    ("subcommand", ["compare"], "'compare'", "valid: check, convert, scan", None),
    ("precision", CHECK + ["--precision=fp8"], "--precision", "choose from", None),
    ("loss_scale with bf16", CHECK + ["--precision=bf16", "--loss_scale=128"], "--loss_scale",
     "fp16 only", None),
    ("loss_scale<1", CHECK + ["--precision=fp16", "--loss_scale=0.5"], "--loss_scale",
     "a number >= 1", None),
    ("fixed loss_scale with keras", CHECK + ["--precision=fp16", "--loss_scale=128",
     "--tf2_optimizer=keras"], "--loss_scale=128", "use --loss_scale=dynamic or", None),
]  # fmt: skip


@pytest.mark.parametrize("row", ROWS, ids=[r[0] for r in ROWS])
def test_bad_port_input_is_one_clear_line(row, tmp_path, capsys):
    _, argv, names, valid, setup = row
    if setup:
        setup(tmp_path)
    before = sorted(tmp_path.iterdir())
    status = main([a.format(tmp=tmp_path) for a in argv])
    out = capsys.readouterr()
    lines = [x for x in (out.out + out.err).splitlines() if x.strip()]
    assert status == 2 and len(lines) == 1, lines
    assert lines[0].startswith("error: ") and "Traceback" not in out.err
    assert names.format(tmp=tmp_path) in lines[0] and valid in lines[0]
    assert sorted(tmp_path.iterdir()) == before  # nothing written


@pytest.mark.parametrize("argv", [["--help"], ["-h"], ["scan", "--help"], ["scan", "-h"]])
def test_help_is_usage_on_stdout_and_exit_0_without_loading_tensorflow(argv):
    """A porter's first command; scan's help does not wait for TensorFlow."""
    code = (
        "import sys\nfrom tf1_train.port.__main__ import main\n"
        f"status = main({argv!r})\nassert 'tensorflow' not in sys.modules\nsys.exit(status)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=ROOT)  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.startswith("usage: python -m tf1_train.port ")
    for word in ("scan", "check", "convert") if argv[0] != "scan" else ("--json", "--v1_shapes"):
        assert word in proc.stdout
