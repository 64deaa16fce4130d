"""The checks every config section uses: one ``UserError`` line naming the
flag and what is valid. No absl, no TensorFlow."""

from __future__ import annotations

from typing import Tuple

from tf1_train.errors import UserError


def check(ok: bool, flag: str, message: str) -> None:
    if not ok:
        raise UserError(f"--{flag}: {message}")


def choice(value: str, flag: str, choices: Tuple[str, ...]) -> None:
    check(value in choices, flag, f"got {value!r}; valid: {', '.join(choices)}")


def positive_int(value: int, flag: str) -> None:
    check(value >= 1, flag, f"got {value}; must be a whole number >= 1")
