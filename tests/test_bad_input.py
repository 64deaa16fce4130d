"""Bad input of every kind through the real command line (docs/RELIABILITY.md).

Each row runs the entry point ``tf1_train.main`` (a few: ``tf1_train.tf2.main``)
in a process of its own and asserts what the spec promises: exit status 2, no
Python traceback, exactly one ``error:`` line that names the flag or file
(``names``) and says what would be valid (``valid``), and an already trained
train_dir whose files (checkpoints, state file, events, run_summary.json)
keep their bytes and mtimes, as does every other file the row made (a
flagfile, a file given as train_dir).

The trained train_dir is made once per module and copied into each row's
own directory. The rows run two at a time (the machine's two cores) in a
module fixture, each in a child forked after TensorFlow's import
(tests/conftest.py ``run_cli``, tests/warm_cli.py: the entry point's own
``run`` on the row's argv and environment; a fresh ``python -m`` spent
over 3 s importing TensorFlow, most of the table's time); rows that use
the shared ports or TF_CONFIG run one at a time after the others. Each row's test then checks
its own outcome. Rows are cheap: most fail in config validation, the rest
at the first check that needs TensorFlow (GPU count, data, the checkpoint),
before any step runs. In ``args``, ``{run}`` is the row's copy of the
trained train_dir and ``{tmp}`` its tmp_path; a row without
``--train_dir`` gets ``--train_dir={run}``.
"""

from __future__ import annotations

import concurrent.futures
import fcntl
import os
import re
import shutil
import socket
import stat

import pytest

from tests.bad_input_cluster_rows import CLUSTER
from tests.bad_input_rows import DATA, Bad, _data, _write
from tests.bad_input_rule_rows import RULES
from tests.bad_input_user_rows import USER_CODE
from tests.conftest import run_cli, small_config
from tf1_train import lock, train
from tf1_train.cluster import spec

TF2_MAIN = "tf1_train.tf2.main"
BASE = ["--model=mlp", "--optimizer=sgd", "--batch_size=8", "--train_steps=6", "--device=cpu"]


def _truncate_only_checkpoint(tmp, run):
    """Leaves one checkpoint, its data file cut in half."""
    del tmp
    for f in run.glob("model.ckpt-2.*"):
        f.unlink()
    data = run / "model.ckpt-4.data-00000-of-00001"
    data.write_bytes(data.read_bytes()[: data.stat().st_size // 2])


_LOCKS = []  # fds of the locks rows hold for the rest of the module


def _hold_train_dir_lock(tmp, run):
    """This test process holds the run's lock, as a first run would."""
    del tmp
    fd = os.open(run / lock.LOCK_NAME, os.O_RDWR | os.O_CREAT)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    os.write(fd, f"pid {os.getpid()} on host {socket.gethostname()}\n".encode())
    _LOCKS.append(fd)


ENUMS = [
    Bad("model", ["--model=vgg"], "--model=vgg", "valid: mlp, lenet5, resnet20"),
    Bad("dataset", ["--dataset=imagenet"], "--dataset=imagenet", "valid: digits, mnist"),
    Bad("device", ["--device=tpu"], "--device=tpu", "valid: auto, gpu, cpu"),
    Bad("onednn", ["--onednn=yes"], "--onednn=yes", "valid: on, off"),
    Bad(
        "variable_update",
        ["--variable_update=horovod"],
        "--variable_update=horovod",
        "valid: parameter_server, replicated",
    ),
    Bad(
        "local_parameter_device",
        ["--local_parameter_device=tpu"],
        "--local_parameter_device=tpu",
        "valid: cpu, gpu",
    ),
    Bad("optimizer", ["--optimizer=lbfgs"], "--optimizer=lbfgs", "valid: sgd, momentum, adam"),
    Bad("lr_schedule", ["--lr_schedule=cosine"], "--lr_schedule=cosine", "valid: constant"),
]

COUNTS = [
    Bad("num_gpus=0", ["--num_gpus=0"], "--num_gpus", "must be a whole number >= 1"),
    Bad("batch_size=0", ["--batch_size=0"], "--batch_size", "must be a whole number >= 1"),
    Bad("batch_size<0", ["--batch_size=-3"], "--batch_size", "must be a whole number >= 1"),
    Bad("train_steps=0", ["--train_steps=0"], "--train_steps", "must be a whole number >= 1"),
    Bad("num_warmup_steps<0", ["--num_warmup_steps=-1"], "--num_warmup_steps", "must be >= 0"),
    Bad("display_every=0", ["--display_every=0"], "--display_every", ">= 1"),
    Bad("save_checkpoint_steps=0", ["--save_checkpoint_steps=0"], "--save_checkpoint", ">= 1"),
    Bad("save_summary_steps<0", ["--save_summary_steps=-5"], "--save_summary_steps", ">= 1"),
    Bad("eval_every<0", ["--eval_every=-1"], "--eval_every", "must be >= 0"),
    Bad("lr_decay_steps=0", ["--lr_decay_steps=0"], "--lr_decay_steps", ">= 1"),
    Bad("inter_op_threads<0", ["--inter_op_threads=-1"], "--inter_op_threads", "must be >= 0"),
    Bad("intra_op_threads<0", ["--intra_op_threads=-2"], "--intra_op_threads", "must be >= 0"),
    Bad("seed<0", ["--seed=-1"], "--seed", "must be in [0, 2**31)"),
    Bad("summary_verbosity=3", ["--summary_verbosity=3"], "--summary_verbosity", "valid: 0"),
]

NUMBERS = [
    Bad("learning_rate=0", ["--learning_rate=0"], "--learning_rate", "must be a finite number > 0"),
    Bad("learning_rate<0", ["--learning_rate=-0.5"], "--learning_rate", "> 0"),
    Bad("learning_rate=nan", ["--learning_rate=nan"], "--learning_rate", "> 0"),
    Bad("learning_rate=inf", ["--learning_rate=inf"], "--learning_rate", "finite"),
    Bad("momentum=1", ["--optimizer=momentum", "--momentum=1"], "--momentum", "in [0, 1)"),
    Bad("weight_decay<0", ["--weight_decay=-0.1"], "--weight_decay", "must be >= 0"),
    Bad("lr_decay_factor=0", ["--lr_decay_factor=0"], "--lr_decay_factor", "in (0, 1]"),
    Bad("gpu_memory_fraction>1", ["--gpu_memory_fraction=1.5"], "--gpu_memory_fraction", "(0, 1]"),
    Bad(
        "gpu_memory_fraction=nan", ["--gpu_memory_fraction=nan"], "--gpu_memory_fraction", "(0, 1]"
    ),
    Bad("batch_size=abc", ["--batch_size=abc"], "--batch_size=abc", "valid: an integer"),
    Bad("train_steps=1.5", ["--train_steps=1.5"], "--train_steps=1.5", "valid: an integer"),
    Bad("learning_rate=abc", ["--learning_rate=abc"], "--learning_rate=abc", "valid: a number"),
    Bad("deterministic=maybe", ["--deterministic=maybe"], "--deterministic=maybe", "--nodeterm"),
]

COMBINATIONS = [
    Bad(
        "allow_growth+gpu_memory_fraction",
        ["--allow_growth", "--gpu_memory_fraction=0.5"],
        "--allow_growth",
        "choose growth or a fixed fraction",
    ),
    Bad("piecewise without boundaries", ["--lr_schedule=piecewise"], "--lr_boundaries", "needs"),
    Bad("lr_boundaries not numbers", ["--lr_boundaries=10,x"], "--lr_boundaries", "whole numbers"),
    Bad("lr_boundaries decreasing", ["--lr_boundaries=20,10"], "--lr_boundaries", "increasing"),
    Bad("mnist without data_dir", ["--dataset=mnist"], "--data_dir", "or --use_synthetic_data"),
    Bad("digits with data_dir", ["--data_dir=/tmp"], "--data_dir", "digits is embedded"),
]

COMMAND_LINE = [
    Bad("unknown flag", ["--no_such_flag=1"], "--no_such_flag", "--helpshort lists"),
    Bad("misspelt flag", ["--modle=mlp"], "--modle", "did you mean --model?"),
    Bad("stray positional", ["stray"], "unexpected argument 'stray'", "all options are --flags"),
    Bad("missing flagfile", ["--flagfile={tmp}/no.flags"], "no.flags", "give an existing flags"),
    Bad("flagfile is a dir", ["--flagfile={tmp}"], "--flagfile", "give an existing flags file"),
    Bad(
        "flagfile with unknown flag",
        ["--flagfile={tmp}/x.flags"],
        "--bogus (in ",
        "x.flags): unknown flag",
        _write("x.flags", "--model=mlp\n--bogus=3\n"),
    ),
]

# These need TensorFlow (GPU count, data, the checkpoint) or the file system.
RUNTIME = [
    Bad("batch the data cannot fill", ["--batch_size=5000"], "--batch_size=5000", "lower"),
    Bad("device=gpu without GPU", ["--device=gpu"], "--device=gpu", "use --device=auto or cpu"),
    Bad(
        "train_dir is a file",
        ["--train_dir={tmp}/afile"],
        "afile",
        "give a directory",
        _write("afile"),
    ),
    Bad(
        "train_dir under a file",
        ["--train_dir={tmp}/afile/run"],
        "afile/run",
        "choose a writable directory",
        _write("afile"),
    ),
    Bad(
        "train_dir under /proc",
        ["--train_dir=/proc/tf1_train_bad_input/run"],
        "/proc/tf1_train_bad_input/run",
        "choose a writable directory",
    ),
    Bad("checkpoint of another model", ["--model=lenet5"], "different model", "another --train"),
    Bad(
        "checkpoint without this optimizer's slots",
        ["--optimizer=momentum"],
        "different model or optimizer",
        "the flags it was trained with",
    ),
    Bad(
        "only checkpoint truncated",
        [],
        "model.ckpt-4",
        "move its files away",
        _truncate_only_checkpoint,
    ),
    Bad(
        "trace_file in a missing dir",
        ["--trace_file={tmp}/no/t.json"],
        "--trace_file",
        "create it",
    ),
    Bad("trace_file is a dir", ["--trace_file={tmp}"], "--trace_file", "give a file name"),
    Bad(
        "train_dir locked by another run",
        [],
        "--train_dir={run}: in use by another run (pid ",
        "or choose another --train_dir",
        _hold_train_dir_lock,
    ),
]


# The TF2 entry point takes the same flags plus --route, and the same rules.
TF2 = [
    Bad("tf2 route", ["--route=fit"], "--route=fit", "valid: custom, keras", module=TF2_MAIN),
    Bad(
        "tf2 train_dir is a file",
        ["--train_dir={tmp}/afile"],
        "afile",
        "give a directory",
        _write("afile"),
        module=TF2_MAIN,
    ),
    Bad(
        "tf2 batch too large", ["--batch_size=5000"], "--batch_size=5000", "lower", module=TF2_MAIN
    ),
    Bad(
        "tf2 train_dir locked by another run",
        [],
        "--train_dir={run}: in use by another run (pid ",
        "or choose another --train_dir",
        _hold_train_dir_lock,
        module=TF2_MAIN,
    ),
]

BAD = (
    ENUMS
    + COUNTS
    + NUMBERS
    + COMBINATIONS
    + RULES
    + COMMAND_LINE
    + RUNTIME
    + DATA
    + CLUSTER
    + TF2
    + USER_CODE
)


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """Small train_dirs with two checkpoints (steps 2 and 4): mlp on digits,
    and mlp on the TFRecord files the tfrecord rows start from."""
    root = tmp_path_factory.mktemp("trained")
    data = root / "data"
    _data("tfrecord")(root, None)
    found = {}
    for name, extra in (("digits", {}), ("tfrecord", {"dataset": "tfrecord", "data_dir": data})):
        path = found[name] = root / name
        cfg = small_config(path, model="mlp", batch=8, steps=4, save_checkpoint_steps=2, **extra)
        train.run(cfg, gpus_found=0)
    return found


@pytest.fixture(scope="module")
def ports():
    """{busy}: a port held listening; {free0..2}: ports free when taken."""
    with socket.socket() as held:
        held.bind(("0.0.0.0", 0))
        held.listen()
        free = spec.free_ports(3)
        yield {"busy": held.getsockname()[1], **{f"free{i}": p for i, p in enumerate(free)}}


def snapshot(directory):
    """name -> (bytes, mtime_ns) of every file under directory; a FIFO or
    other special file counts by its mtime (opening a FIFO would block)."""
    found = {}
    for root, _, names in os.walk(directory):
        for name in names:
            path = os.path.join(root, name)
            st = os.lstat(path)
            content = b"<special>"
            if stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    content = f.read()
            found[os.path.relpath(path, directory)] = (content, st.st_mtime_ns)
    return found


def test_the_table_is_large_enough():
    assert len(BAD) >= 40 and len({row.id for row in BAD}) == len(BAD)


def _run_row(row, trained, ports, tmp_path):
    """(row's directory, format names, the CompletedProcess, snapshots before and after)."""
    run_dir = tmp_path / "run"
    shutil.copytree(trained["tfrecord" if row.mid_run else "digits"], run_dir)
    if row.setup:
        row.setup(tmp_path, run_dir)
    before = snapshot(tmp_path)  # the train_dir copy and every file a row made
    names = dict(tmp=tmp_path, run=run_dir, **ports)
    args = [a.format(**names) for a in row.args]
    if not any(a.startswith("--train_dir=") for a in args):
        args.append(f"--train_dir={run_dir}")
    out = run_cli(BASE + args, timeout=120, module=row.module, env=row.env)
    return names, out, before, snapshot(tmp_path)


# The module fixture runs every row (about 90 s on a quiet 2-core machine);
# a loaded machine (several test processes at once) must not time it out.
pytestmark = pytest.mark.timeout(900)


def _shares_ports(row) -> bool:
    return row.env is not None or any("{free" in a or "{busy" in a for a in row.args)


@pytest.fixture(scope="module")
def outcomes(trained, ports, tmp_path_factory):
    """row id -> _run_row's result (or the exception it raised), every row run."""

    def one(row):
        name = re.sub(r"\W+", "_", row.id)[:40]
        directory = tmp_path_factory.mktemp(name)
        try:
            return _run_row(row, trained, ports, directory)
        except Exception as e:  # reported by the row's own test
            return e

    alone = [row for row in BAD if _shares_ports(row)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        found = dict(zip([r.id for r in BAD if r not in alone],
                         pool.map(one, [r for r in BAD if r not in alone])))  # fmt: skip
    found.update({row.id: one(row) for row in alone})
    return found


@pytest.mark.parametrize("row", BAD, ids=[row.id for row in BAD])
def test_bad_input_is_one_clear_line_and_loses_nothing(row, outcomes):
    result = outcomes[row.id]
    if isinstance(result, Exception):
        raise result
    names, out, before, after = result
    assert any(name.startswith("run/model.ckpt-") for name in before)
    text = out.stdout + out.stderr
    assert out.returncode == 2, text[-3000:]
    assert "Traceback" not in text
    errors = [line for line in text.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, text[-3000:]
    assert row.names.format(**names) in errors[0]
    assert row.valid in errors[0]
    if row.mid_run:  # the row tests the error of a running input pipeline
        assert "train_dir:" in out.stdout
        after = {k: v for k, v in after.items() if k in before or "tfevents" not in k}
    assert after == before
