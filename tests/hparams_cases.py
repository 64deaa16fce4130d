"""HParams programs for tests/test_compat_contrib_hparams.py, run by
scripts/make_hparams_goldens.py with TF 1.15's own HParams to make the
goldens: each case is the constructor's keyword arguments and a list of
operations; every operation's outcome (its value's repr, or the error's type
and message) is compared. This module imports nothing."""

BASE = {
    "learning_rate": 0.1,
    "num_layers": 2,
    "activation": "relu",
    "use_bias": True,
    "widths": [64, 32],
    "rates": [0.5, 0.25],
    "names": ["a", "b"],
    "flags": [True, False],
}

CASES = {
    "reads": (
        BASE,
        [
            ("attr", "learning_rate"),
            ("values",),
            ("str",),
            ("repr",),
            ("contains", "num_layers"),
            ("contains", "missing"),
            ("get", "missing", 3),
            ("get", "num_layers", None),
            ("to_json", {}),
            ("to_json", {"sort_keys": True}),
            ("to_json", {"indent": 2, "sort_keys": True}),
        ],
    ),  # fmt: skip
    "parse_scalars": (
        BASE,
        [
            ("parse", "learning_rate=0.01,num_layers=4"),
            ("values",),
            ("parse", "activation=tanh, use_bias=false"),
            ("values",),
            ("parse", "use_bias=1"),
            ("attr", "use_bias"),
            ("parse", "use_bias=True"),
            ("attr", "use_bias"),
            ("parse", "learning_rate=3"),
            ("attr", "learning_rate"),
            ("parse", "learning_rate=-.5e-3"),
            ("attr", "learning_rate"),
            ("parse", ""),
            ("values",),
        ],
    ),  # fmt: skip
    "parse_lists": (
        BASE,
        [
            ("parse", "widths=[128,64,16]"),
            ("attr", "widths"),
            ("parse", "rates=[1, 2e-1]"),
            ("attr", "rates"),
            ("parse", "names=[x y z]"),
            ("attr", "names"),
            ("parse", "flags=[true,0,False]"),
            ("attr", "flags"),
            ("parse", "widths=[]"),
            ("attr", "widths"),
        ],
    ),  # fmt: skip
    "parse_errors": (
        BASE,
        [
            ("parse", "num_layers=1.5"),
            ("parse", "nope=1"),
            ("parse", "num_layers=1,num_layers=2"),
            ("parse", "use_bias=maybe"),
            ("parse", "use_bias=2.5"),
            ("parse", "use_bias=2"),
            ("attr", "use_bias"),
            ("parse", "widths[1]=3"),
            ("parse", "widths=5"),
            ("parse", "num_layers=[1,2]"),
            ("parse", "widths[0]=[1]"),
            ("parse", "=3"),
            ("parse", "learning_rate=0.5 junk"),
            ("parse", "activation="),
            ("values",),
        ],
    ),  # fmt: skip
    "set_and_cast": (
        BASE,
        [
            ("set", "learning_rate", 1),
            ("attr", "learning_rate"),
            ("set", "num_layers", 2.0),
            ("set", "num_layers", True),
            ("set", "use_bias", 1),
            ("set", "activation", 3),
            ("set", "widths", [1, 2]),
            ("attr", "widths"),
            ("set", "widths", 3),
            ("set", "num_layers", [3]),
            ("set", "rates", [1, 2]),
            ("attr", "rates"),
            ("set", "missing", 1),
            ("values",),
        ],
    ),  # fmt: skip
    "add_and_delete": (
        BASE,
        [
            ("add", "dropout", 0.3),
            ("attr", "dropout"),
            ("add", "dropout", 0.4),
            ("add", "values", 1),
            ("add", "parse", 1),
            ("add", "empty", []),
            ("add", "shape", (3, 4)),
            ("attr", "shape"),
            ("set", "shape", [5, 6]),
            ("attr", "shape"),
            ("del", "dropout"),
            ("contains", "dropout"),
            ("del", "dropout"),
            ("values",),
        ],
    ),  # fmt: skip
    "override_and_json": (
        BASE,
        [
            ("override", {"num_layers": 5, "widths": [1]}),
            ("values",),
            ("override", {"num_layers": "5"}),
            ("override", {"nope": 1}),
            ("parse_json", '{"learning_rate": 0.2, "names": ["q"]}'),
            ("values",),
            ("parse_json", "{bad json"),
            ("get", "learning_rate", 1),
            ("get", "learning_rate", "x"),
            ("get", "widths", [1, 2]),
            ("get", "widths", 3),
            ("get", "use_bias", 0),
        ],
    ),  # fmt: skip
    "none_and_ints": (
        {"path": None, "steps": 10, "big": 2**40},
        [
            ("parse", "steps=20"),
            ("attr", "steps"),
            ("set", "path", "x"),
            ("attr", "path"),
            ("parse", "big=3"),
            ("attr", "big"),
            ("parse", "steps=0x10"),
            ("values",),
        ],
    ),  # fmt: skip
    "dotted_names": (
        {"a": 1},
        [
            ("add", "model.depth", 3),
            ("parse", "model.depth=4"),
            ("getattr", "model.depth"),
            ("values",),
        ],
    ),  # fmt: skip
}


def _outcome(fn):
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - the outcome is the error
        return ["error", type(e).__name__, str(e)]
    return ["ok", repr(value)]


def run(hparams_class, kwargs, operations):
    """Every operation's outcome, in order, on one object of ``hparams_class``."""
    made = _outcome(lambda: hparams_class(**kwargs))
    if made[0] == "error":
        return [made]
    hp = hparams_class(**kwargs)
    do = {
        "attr": lambda name: getattr(hp, name),
        "getattr": lambda name: getattr(hp, name),
        "values": lambda: hp.values(),
        "str": lambda: str(hp),
        "repr": lambda: repr(hp),
        "contains": lambda key: key in hp,
        "get": lambda key, default: hp.get(key, default),
        "to_json": lambda kw: hp.to_json(**kw),
        "parse": lambda text: hp.parse(text),
        "set": lambda name, value: hp.set_hparam(name, value),
        "add": lambda name, value: hp.add_hparam(name, value),
        "del": lambda name: hp.del_hparam(name),
        "override": lambda values: hp.override_from_dict(dict(values)),
        "parse_json": lambda text: hp.parse_json(text),
    }
    return [_outcome(lambda op=op: do[op[0]](*op[1:])) for op in operations]
