"""A port-check case: what both sides train, as JSON-able data.

A case is a dict (so it crosses process boundaries as JSON): ``model`` (the
TF1 model: built-in name or ``package.module:function``), ``tf2`` (the TF2
side: a built-in name, or ``package.module:object``; "" for the built-in
twin of ``model``), ``towers``, ``batch`` (per tower), ``steps``,
``optimizer``, ``lr``, ``weight_decay``, ``dataset``, ``synthetic``,
``input_shape``/``num_classes`` (synthetic data of that shape),
``preprocess``, ``loss``/``tf2_loss``, ``rules`` (further config fields by
name), ``seed``, ``tf2_optimizer`` (``v1`` or ``keras``), ``name_map`` and
``record`` (``all``: every variable after every step; ``final``: the end),
``precision`` (``fp32``, ``bf16``, ``fp16``), ``loss_scale`` (fp16's:
``dynamic`` when empty, or a number) and ``v1`` (the TF1 side's code is in
TF 1.x's names: its process serves it the v1 API, as ``python -m
tf1_train.compat --v1`` does).

No TensorFlow here: the parent process of a check only reads numpy files.
"""

from __future__ import annotations

import dataclasses
from typing import Dict

from tf1_train import config as cfglib

DEFAULTS: Dict = {
    "tf2": "",
    "towers": 1,
    "batch": 16,
    "steps": 5,
    "optimizer": "sgd",
    "lr": 0.1,
    "weight_decay": 0.0,
    "dataset": "digits",
    "synthetic": False,
    "input_shape": None,
    "num_classes": None,
    "preprocess": "",
    "loss": "",
    "tf2_loss": "",
    "rules": {},
    "seed": 7,
    "data_seed": 3,
    "tf2_optimizer": "v1",
    "name_map": {},
    "record": "final",
    "precision": "fp32",
    "loss_scale": "",
    "v1": False,
}


def complete(case: Dict) -> Dict:
    """``case`` with every key, defaults filled in."""
    return {**DEFAULTS, **case}


def make_config(
    train_dir, model="mlp", towers=1, batch=16, steps=5, data_seed=3, run_seed=7, **kw
) -> cfglib.Config:
    """A short CPU run's Config; keyword args override sub-config fields by
    name (the first sub-config that has it: ``seed`` is the data's)."""
    sections = {
        "data": cfglib.DataConfig(batch_size=batch, seed=data_seed),
        "devices": cfglib.DeviceConfig(num_towers=towers, device="cpu"),
        "optimizer": cfglib.OptimizerConfig(optimizer="sgd", learning_rate=0.1),
        "run": cfglib.RunConfig(
            train_steps=steps,
            num_warmup_steps=0,
            display_every=1000,
            train_dir=str(train_dir),
            seed=run_seed,
        ),
        "precision": cfglib.PrecisionConfig(),
    }
    top = {k: kw.pop(k) for k in ("loss", "tf2_model", "hooks", "eval_metrics") if k in kw}
    for key, value in kw.items():
        for name, section in sections.items():
            if key in {f.name for f in dataclasses.fields(section)}:
                sections[name] = dataclasses.replace(section, **{key: value})
                break
        else:
            raise KeyError(key)
    return cfglib.Config(model=model, **top, **sections).validate()


def streamed(data_cfg):
    """``data_cfg`` reading its source through the input pipeline."""
    return dataclasses.replace(data_cfg, use_synthetic_data=False)


def config(case: Dict, train_dir: str) -> cfglib.Config:
    """The Config both sides of ``case`` train with. The TF1 side streams
    synthetic data through the real input pipeline (``streamed``), so that
    its batches can be recorded."""
    c = complete(case)
    return make_config(
        train_dir,
        model=c["model"],
        towers=c["towers"],
        batch=c["batch"],
        steps=c["steps"],
        data_seed=c["data_seed"],
        run_seed=c["seed"],
        optimizer=c["optimizer"],
        learning_rate=c["lr"],
        weight_decay=c["weight_decay"],
        dataset=c["dataset"],
        use_synthetic_data=bool(c["synthetic"] or c["input_shape"]),
        preprocess=c["preprocess"],
        loss=c["loss"],
        precision=c["precision"],
        loss_scale=c["loss_scale"],
        **c["rules"],
    )
