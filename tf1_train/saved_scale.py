"""fp16's loss scale in checkpoints, for both paths: its names, and a checkpoint without it.

The dynamic loss scale is training state, like the optimizer's slots: a run
resumed at 2^15 would overflow and skip updates again while the scale comes
down, and end elsewhere than the uninterrupted run. So the TF1 graph
(precision.py, also for --auto_mixed_precision's v1 ``DynamicLossScale``)
and the TF2 twin (tf2/precision.py) save it under the same names, as a v1
``Saver`` saved v1's global loss-scale variables.

They are not the model's weights: ``--init_checkpoint`` and the export leave
them out, the "checkpoint of another model" check does not require them. A
checkpoint without them (an fp32 or bf16 run's, or an fp16 one from before
the scale was saved) still restores into an fp16 run: the scale starts at
its initial value and the run says so in one line. An fp32 or bf16 run
ignores them, as it ignores any entry it has no variable for.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, TypeVar

import numpy as np

SCOPE = "loss_scale"
SCALE = f"{SCOPE}/scale"
GOOD_STEPS = f"{SCOPE}/good_steps"  # finite steps since the scale last changed
SKIPPED = f"{SCOPE}/skipped_steps"  # cumulative over restarts

V = TypeVar("V")


def is_loss_scale(name: str) -> bool:
    """A checkpoint name of the loss scale's state."""
    return name.startswith(SCOPE + "/")


def absent(variables: Dict[str, V], names_in_checkpoint) -> List[str]:
    """The loss-scale names among ``variables`` that the checkpoint lacks."""
    return sorted(n for n in variables if is_loss_scale(n) and n not in names_in_checkpoint)


def without(variables: Dict[str, V], names: Sequence[str]) -> Dict[str, V]:
    return {n: v for n, v in variables.items() if n not in names}


def absent_line(path: str, missing: Sequence[str], initial: Optional[float]) -> str:
    """The one line a restore prints when the checkpoint lacks loss-scale state.
    ``initial``: the scale a fresh run starts at, if the scale itself is missing."""
    names = ", ".join(missing)
    if initial is None:
        return f"loss scale: checkpoint {path} has no {names}: counted from 0"
    return (
        f"loss scale: checkpoint {path} has no {names} (written by an fp32/bf16 run, "
        f"or by an fp16 run that did not save it): the scale starts at {initial:g}"
    )


def overridden(flag: float, saved: float) -> bool:
    """Does ``--loss_scale=flag`` replace the checkpoint's float32 ``saved``?"""
    return float(np.float32(flag)) != float(np.float32(saved))


def fixed_line(flag: float, saved: float) -> str:
    """--loss_scale=<number> resuming from a checkpoint whose scale differs."""
    return (
        f"--loss_scale={flag:g}: the fixed scale is used, not the checkpoint's loss scale {saved:g}"
    )
