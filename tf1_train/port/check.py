"""`python -m tf1_train.port check`: does a TF2 port train like the TF1 code?

    python -m tf1_train.port check --tf1=pkg.model:build --tf2=pkg.model_keras:build \
        --num_gpus=2 --optimizer=momentum --steps=20 --json=report.json

The TF1 side (tf1_train's towers) and the TF2 side run in separate processes
(sides.py, user_side.py) on the same batches from the same initial weights;
this process only compares their files (compare.py), names the first tensor
that diverges and the known TF1 -> TF2 differences that explain it
(hints.py). Exit 0: everything agrees within tolerance (``--allow`` accepts
named differences, which are still listed); 1: something diverges, or the
inventory fails (then no TF2 step runs); 2: bad input, one ``error:`` line.
The JSON report is written in every case but bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tf1_train.errors import UserError
from tf1_train.port import compare, hints, name_map, spec


class SideFailed(Exception):
    """A side's process failed; ``line`` is its last ``error:`` line, if any."""

    def __init__(self, returncode: int, stderr: str):
        lines = [x for x in stderr.splitlines() if x.startswith("error: ")]
        self.returncode, self.stderr, self.line = returncode, stderr, lines[-1] if lines else ""
        super().__init__(self.line or stderr[-3000:])


SideRunner = Callable[[str, str, str, float], Tuple[int, str]]


def run_side_process(side: str, cases_file: str, out_dir: str, timeout: float) -> Tuple[int, str]:
    """One side in a fresh interpreter (a TF1 graph and a TF2 program never
    share one): (its exit status, its stderr)."""
    command = [sys.executable, "-m", "tf1_train.port.sides", side, cases_file, out_dir]
    proc = subprocess.run(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=timeout
    )
    return proc.returncode, proc.stderr


def run_chains(cases: List[Dict], out_dir: str, shards: int = 1, sides=("tf1", "tf2"),
               timeout: float = 900, run_side: SideRunner = run_side_process) -> None:  # fmt: skip
    """Runs the sides of ``cases`` as ``shards`` parallel chains (tf1, then
    the others, which read tf1's files; a chain stops at its first failure),
    each within ``timeout`` seconds; raises SideFailed. ``run_side``: how
    one side runs (a test harness may fork it from a loaded interpreter)."""
    failures: List = [None] * shards

    def chain(k: int, cases_file: str) -> None:
        deadline = time.monotonic() + timeout
        try:
            for side in sides:
                code, stderr = run_side(side, cases_file, out_dir, deadline - time.monotonic())
                if code != 0:
                    failures[k] = SideFailed(code, stderr)
                    return
        except Exception as e:  # a timeout: raised in the caller's thread
            failures[k] = e

    threads = []
    for k in range(shards):
        cases_file = os.path.join(out_dir, f"cases{k}.json")
        with open(cases_file, "w") as f:
            json.dump(cases[k::shards], f)
        threads.append(threading.Thread(target=chain, args=(k, cases_file), daemon=True))
        threads[-1].start()
    for thread in threads:
        thread.join()
    failed = next((f for f in failures if f is not None), None)
    if failed is not None:
        raise failed


def load(case: Dict, out_dir: str, other: str = "tf2"):
    """(tf1 npz, other side's npz, the TF2 side's json or {}) of a finished case."""
    base = os.path.join(out_dir, case["id"])
    info_file = f"{base}_tf2.json"
    info = {}
    if os.path.exists(info_file):
        with open(info_file) as f:
            info = json.load(f)
    return np.load(f"{base}_tf1.npz"), np.load(f"{base}_{other}.npz"), info


DEFAULT_TOLERANCE = compare.Tolerance()


def report(case: Dict, out_dir: str, tol=DEFAULT_TOLERANCE, allow: Sequence[str] = ()) -> Dict:
    """The report of a finished case: inventory, rows, first divergence, hints."""
    case = spec.complete(case)
    tf1, tf2, info = load(case, out_dir)
    info.setdefault("inventory", {"failed": False, "shape_mismatches": []})
    ctx = hints.Context(case, info, tf1, tf2)
    out = {"case": case, "tolerance": tol._asdict(), "inventory": info["inventory"], "rows": []}
    if info["inventory"]["failed"]:
        first = {"phase": "inventory", "step": 0, "tensor": "(variables)", "ok": False}
        out.update(first_divergence=first, per_step=[], accepted=[], hints=hints.find(first, ctx))
        out["ok"] = False
        return out
    mapped = {v: k for k, v in info.get("names", {}).items()}
    rows = compare.rows(tf1, tf2, mapped, case["steps"], tol, list(allow))
    first = compare.first_divergence(rows)
    accepted, seen = [], set()
    for r in rows:
        if r["allowed"] and r["tensor"] not in seen:
            seen.add(r["tensor"])
            accepted.append({**r, "hints": hints.find(r, ctx)})
    out.update(
        rows=rows, per_step=compare.per_step(rows), first_divergence=first, accepted=accepted
    )
    out["hints"] = hints.find(first, ctx) if first else []
    out["ok"] = first is None
    return out


def format_report(rep: Dict) -> str:
    """The report as the table printed on stdout."""
    c, inv = rep["case"], rep["inventory"]
    lines = [
        f"port check: TF1 {c['model']} vs TF2 {c['tf2'] or c['model']}: {c['towers']} tower(s) x "
        f"{c['batch']}, {c['optimizer']} lr {c['lr']}, {c['steps']} steps, "
        f"TF2 optimizer {c['tf2_optimizer']}{_precision(c)}, rtol {rep['tolerance']['rtol']:g} "
        f"atol {rep['tolerance']['atol']:g}",
    ]
    if "tf1_variables" in inv:
        lines.append(
            f"inventory: {inv['tf1_variables']} TF1 and {inv['tf2_variables']} TF2 variables"
            + (": all matched, shapes equal" if not inv["failed"] else ": FAILED")
        )
        for key in ("unmatched_tf1", "unmatched_tf2", "claimed_twice"):
            lines += [f"  {key.replace('_', ' ')}: {n}" for n in inv.get(key, [])]
        lines += [
            f"  shape: {m['tf1']} {m['tf1_shape']} vs {m['tf2']} {m['tf2_shape']}"
            for m in inv.get("shape_mismatches", [])
        ]
        lines += [f"  {p}" for p in inv.get("cell_problems", [])]
        if inv.get("cells") and not inv["failed"]:
            lines.append(f"  RNN cells paired by the name map: {', '.join(inv['cells'])}")
    fwd = [r for r in rep["rows"] if r["phase"] in ("forward", "gradient")]
    if fwd:
        worst = max(fwd, key=lambda r: r["excess"])
        lines.append(
            f"forward + gradients (first batch): {len(fwd)} tensors, worst {worst['tensor']} "
            f"({worst['phase']}) max abs {worst['max_abs']:.3g} max rel {worst['max_rel']:.3g}, "
            f"{worst['excess']:.2f} of the tolerance"
        )
    if rep["per_step"]:
        lines.append(
            f"{'step':>5}  {'loss abs diff':>13}  {'loss rel diff':>13}  "
            "worst tensor (max rel; share of tolerance)"
        )
        for s in rep["per_step"]:
            share = f"{s.get('worst_rel', 0):.3g}; {s.get('worst_excess', 0):.2f}"
            worst = f"{s.get('worst', '-')} ({share})"
            lines.append(f"{s['step']:>5}  {s['loss_abs']:>13.3g}  {s['loss_rel']:>13.3g}  {worst}")
    for a in rep["accepted"]:
        lines.append(
            f"accepted (--allow): {a['tensor']} from step {a['step']} ({a['phase']}), "
            f"max abs {a['max_abs']:.3g} max rel {a['max_rel']:.3g}"
        )
        lines += [f"  hint [{h['id']}]: {h['evidence']}" for h in a["hints"]]
    first = rep["first_divergence"]
    if first:
        where = f"step {first['step']}" if first["phase"] == "step" else first["phase"]
        detail = ""
        if "max_abs" in first:
            gap = f"max abs {first['max_abs']:.3g} max rel {first['max_rel']:.3g}"
            detail = f" (TF2 {first['tf2']}): {gap}"
        lines.append(f"first divergence: {where}, {first['tensor']}{detail}")
        lines += [f"  hint [{h['id']}]: {h['evidence']}" for h in rep["hints"]]
        if not rep["hints"]:
            lines.append("  no known difference explains it: see docs/PORT_CHECK.md")
    lines.append("result: " + ("agree" if rep["ok"] else "DIVERGED"))
    return "\n".join(lines)


def _precision(c: Dict) -> str:
    if c["precision"] == "fp32":
        return ""
    scale = f" (loss scale {c['loss_scale'] or 'dynamic'})" if c["precision"] == "fp16" else ""
    return f", {c['precision']}{scale}"


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2, no usage block
        raise UserError(f"port check: {message}")


def parse(argv: Sequence[str]) -> argparse.Namespace:
    p = _Parser(prog="python -m tf1_train.port check", add_help=True)
    p.add_argument(
        "--tf1", required=True, help="TF1 model: built-in name or package.module:function"
    )
    p.add_argument("--tf2", default="", help="TF2 side: built-in name or package.module:object")
    p.add_argument(
        "--v1",
        action="store_true",
        help="the TF1 side's code is in TF 1.x's names (python -m tf1_train.compat --v1's "
        "rule: the v1 API in the files under the working directory)",
    )
    p.add_argument("--name_map", default="", help="JSON file: pairs and regex rules, TF2 -> TF1")
    p.add_argument("--input_shape", default="", help="H,W,C: synthetic input of this shape")
    p.add_argument("--num_classes", type=int, default=10)
    p.add_argument("--dataset", default="digits", choices=["digits", "mnist", "cifar10"])
    p.add_argument("--use_synthetic_data", action="store_true")
    p.add_argument("--preprocess", default="")
    p.add_argument("--loss", default="", help="TF1 data loss package.module:function")
    p.add_argument("--tf2_loss", default="", help="TF2 data loss package.module:function")
    p.add_argument("--batch_size", type=int, default=16, help="per tower")
    p.add_argument("--num_gpus", type=int, default=1, help="towers")
    p.add_argument(
        "--optimizer", default="sgd", choices=["sgd", "momentum", "adam", "rmsprop", "adagrad"]
    )
    p.add_argument("--learning_rate", type=float, default=0.01)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--adam_epsilon", type=float, default=1e-8)
    p.add_argument("--tf2_optimizer", default="v1", choices=["v1", "keras"])
    p.add_argument("--precision", default="fp32", choices=["fp32", "bf16", "fp16"])
    p.add_argument("--loss_scale", default="", help="fp16: dynamic (default) or a number >= 1")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--rtol", type=float, default=1e-5)
    p.add_argument("--atol", type=float, default=1e-6)
    p.add_argument(
        "--allow", action="append", default=[], help="regex of tensors whose difference is accepted"
    )
    p.add_argument("--json", default="", help="where to write the JSON report")
    p.add_argument(
        "--work_dir", default="", help="where the sides write (default: a temporary directory)"
    )
    return p.parse_args(list(argv))


def case_from_flags(a: argparse.Namespace) -> Dict:
    """The flags as a case; bad values are one UserError line naming the flag."""
    import importlib.util
    import re

    for flag in ("tf1", "tf2", "preprocess", "loss", "tf2_loss"):
        ref = getattr(a, flag)
        if ref and ":" in ref:
            module = ref.partition(":")[0]
            try:
                found = importlib.util.find_spec(module)
            except (ImportError, ValueError):
                found = None
            if found is None:
                raise UserError(
                    f"--{flag}={ref}: module {module!r} not found (is its directory on PYTHONPATH?)"
                )
    for flag in ("steps", "batch_size", "num_gpus", "num_classes"):
        if getattr(a, flag) < 1:
            raise UserError(f"--{flag}={getattr(a, flag)}: must be at least 1")
    shape = None
    if a.input_shape:
        if not re.fullmatch(r"\d+,\d+,\d+", a.input_shape):
            raise UserError(
                f"--input_shape={a.input_shape}: expected H,W,C (three positive integers)"
            )
        shape = [int(x) for x in a.input_shape.split(",")]
    for pattern in a.allow:
        try:
            re.compile(pattern)
        except re.error as e:
            raise UserError(f"--allow={pattern}: bad regex ({e})") from None
    _check_precision(a)
    rules = {"momentum": a.momentum, "adam_epsilon": a.adam_epsilon}
    return spec.complete({
        "id": "check", "model": a.tf1, "tf2": a.tf2, "towers": a.num_gpus, "batch": a.batch_size,
        "steps": a.steps, "optimizer": a.optimizer, "lr": a.learning_rate, "dataset": a.dataset,
        "synthetic": a.use_synthetic_data, "input_shape": shape, "num_classes": a.num_classes,
        "preprocess": a.preprocess, "loss": a.loss, "tf2_loss": a.tf2_loss, "rules": rules,
        "seed": a.seed, "tf2_optimizer": a.tf2_optimizer, "record": "all",
        "precision": a.precision, "loss_scale": a.loss_scale, "v1": a.v1,
        "name_map": name_map.load(a.name_map) if a.name_map else {},
    })  # fmt: skip


def _check_precision(a: argparse.Namespace) -> None:
    """--loss_scale as the entry points take it; Keras' scale is dynamic only."""
    from tf1_train.config import PrecisionConfig

    PrecisionConfig(a.precision, a.loss_scale).validate()  # raises UserError, naming the flag
    if a.loss_scale not in ("", "dynamic") and a.tf2_optimizer == "keras":
        raise UserError(
            f"--loss_scale={a.loss_scale}: Keras 3's LossScaleOptimizer (--tf2_optimizer=keras) "
            "has no fixed scale; use --loss_scale=dynamic or --tf2_optimizer=v1"
        )


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        args = parse(sys.argv[1:] if argv is None else argv)
        case = case_from_flags(args)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="port_check_") as tmp:
        out_dir = args.work_dir or tmp
        os.makedirs(out_dir, exist_ok=True)
        try:
            run_chains([case], out_dir)
        except SideFailed as e:
            print(
                e.line or f"error: a side of the check failed:\n{e.stderr[-3000:]}", file=sys.stderr
            )
            return 2 if e.line else 1
        tol = compare.Tolerance(args.rtol, args.atol)
        rep = report(case, out_dir, tol, args.allow)
    print(format_report(rep))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {k: v for k, v in rep.items() if k != "rows"} | {"rows": rep["rows"]}, f, indent=1
            )
    return 0 if rep["ok"] else 1
