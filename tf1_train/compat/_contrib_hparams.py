"""``tf.contrib.training.HParams`` and ``parse_values``, as TF 1.15 behaved.

HParams was TF1 code bases' hyperparameter object (Magenta, Tacotron, NMT
forks, TF-slim's NASNet): typed attributes whose type is fixed by the first
value, overridden from a ``--hparams="lr=0.1,layers=[64,32]"`` string, a
dict or JSON. It was pure Python and went with ``tf.contrib``; here it is
again, written from its documented behaviour and held by
tests/test_compat_contrib_hparams.py to TF 1.15's own class on the same
programs, quirks included (``parse("arr[1]=3")`` is refused, a float is
refused for an int, ``1``/``0`` parse as booleans). ``HParamDef`` protos are
the exception: one line says to pass the values instead.
"""

from __future__ import annotations

import json
import numbers
import re
from typing import Any, Dict

# One clause of a values string: name, an optional [index], '=', then one
# token (no comma or '[') or a bracketed list; then the end or a comma.
_CLAUSE = re.compile(
    r"(?P<name>[a-zA-Z][\w.]*)(\[\s*(?P<index>\d+)\s*\])?\s*=\s*"
    r"((?P<val>[^,\[]*)|\[(?P<vals>[^\]]*)\])($|,\s*)"
)
_PROTO = (
    "tf1_train.compat's tf.contrib.training.HParams does not read or write HParamDef "
    "protos (their module went with tf.contrib): pass the values as keyword arguments, "
    "or keep them as JSON (to_json / parse_json)"
)


def _could_not_parse(name: str, kind: type, value: str, values: str) -> ValueError:
    kind_name = kind.__name__
    return ValueError(
        f"Could not parse hparam '{name}' of type '{kind_name}' with value '{value}' in {values}"
    )


def _twice(name: str, values: str) -> ValueError:
    return ValueError(f"Multiple assignments to variable '{name}' in {values}")


def _parser(name: str, kind: type, values: str):
    """The function that turns one token into a value of ``kind``."""
    if kind is not bool:
        return kind

    def boolean(token: str) -> bool:
        if token in ("true", "True"):
            return True
        if token in ("false", "False"):
            return False
        try:
            return bool(int(token))
        except ValueError:
            raise _could_not_parse(name, kind, token, values) from None

    return boolean


def _assign_token(found: Dict, name: str, parse, kind, clause: Dict, values: str) -> None:
    try:
        value = parse(clause["val"])
    except ValueError:
        raise _could_not_parse(name, kind, clause["val"], values) from None
    if clause["index"] is None:
        if name in found:
            raise _twice(name, values)
        found[name] = value
        return
    if name in found and not isinstance(found[name], dict):
        raise _twice(name, values)
    slots = found.setdefault(name, {})
    index = int(clause["index"])
    if index in slots:
        raise _twice(f"{name}[{index}]", values)
    slots[index] = value


def _assign_list(found: Dict, name: str, parse, kind, clause: Dict, values: str) -> None:
    if clause["index"] is not None:
        raise ValueError("Assignment of a list to a list index.")
    if name in found:
        raise _twice(name, values)
    try:
        found[name] = [parse(t) for t in re.split("[ ,]", clause["vals"]) if t]
    except ValueError:
        raise _could_not_parse(name, kind, clause["vals"], values) from None


def parse_values(values: str, type_map: Dict[str, type], ignore_unknown: bool = False) -> Dict:
    """``"x=5,L=[1,2],arr[1]=3"`` -> ``{'x': 5, 'L': [1, 2], 'arr': {1: 3}}``,
    each token parsed as its name's type in ``type_map``."""
    found: Dict[str, Any] = {}
    pos = 0
    while pos < len(values):
        match = _CLAUSE.match(values, pos)
        if not match:
            raise ValueError(f"Malformed hyperparameter value: {values[pos:]}")
        pos = match.end()
        clause = match.groupdict()
        name = clause["name"]
        if name not in type_map:
            if ignore_unknown:
                continue
            raise ValueError(f"Unknown hyperparameter type for {name}")
        kind = type_map[name]
        parse = _parser(name, kind, values)
        if clause["val"] is not None:
            _assign_token(found, name, parse, kind, clause, values)
        elif clause["vals"] is not None:
            _assign_list(found, name, parse, kind, clause, values)
        else:
            raise _could_not_parse(name, kind, "", values)
    return found


def _cast(name: str, kind: type, value):
    """``value`` as ``kind`` where the legacy rules allow it: ints and
    floats widen to float, nothing crosses between bool, numbers and strings,
    a float never narrows to an int; a None-typed hparam takes anything."""
    if type(value) is kind or issubclass(kind, type(None)):
        return value
    refused = ValueError(f"Could not cast hparam '{name}' of type '{kind}' from value {value!r}")
    text = (str, bytes)
    if issubclass(kind, text) and not isinstance(value, text):
        raise refused
    if issubclass(kind, bool) != isinstance(value, bool):
        raise refused
    if issubclass(kind, numbers.Integral) and not isinstance(value, numbers.Integral):
        raise refused
    if issubclass(kind, numbers.Number) and not isinstance(value, numbers.Number):
        raise refused
    return kind(value)


class HParams:
    """Hyperparameters as attributes, each typed by its first value."""

    def __init__(self, hparam_def=None, model_structure=None, **kwargs):
        self._hparam_types: Dict[str, tuple] = {}
        self._model_structure = model_structure
        if hparam_def:
            raise ValueError(_PROTO)
        for name, value in kwargs.items():
            self.add_hparam(name, value)

    def add_hparam(self, name: str, value) -> None:
        """A new hyperparameter; a list or tuple is typed by its first element."""
        if getattr(self, name, None) is not None:
            raise ValueError(f"Hyperparameter name is reserved: {name}")
        if isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"Multi-valued hyperparameters cannot be empty: {name}")
            self._hparam_types[name] = (type(value[0]), True)
        else:
            self._hparam_types[name] = (type(value), False)
        setattr(self, name, value)

    def set_hparam(self, name: str, value) -> None:
        """A new value of the hyperparameter's type (KeyError if there is none)."""
        kind, is_list = self._hparam_types[name]
        if isinstance(value, list):
            if not is_list:
                raise ValueError(f"Must not pass a list for single-valued parameter: {name}")
            setattr(self, name, [_cast(name, kind, v) for v in value])
        elif is_list:
            raise ValueError(f"Must pass a list for multi-valued parameter: {name}.")
        else:
            setattr(self, name, _cast(name, kind, value))

    def del_hparam(self, name: str) -> None:
        if hasattr(self, name):
            delattr(self, name)
            del self._hparam_types[name]

    def parse(self, values: str) -> HParams:
        """Overrides from ``"name=value,list=[a,b]"`` (see parse_values)."""
        kinds = {name: kind for name, (kind, _) in self._hparam_types.items()}
        return self.override_from_dict(parse_values(values, kinds))

    def override_from_dict(self, values_dict: Dict) -> HParams:
        for name, value in values_dict.items():
            self.set_hparam(name, value)
        return self

    def set_from_map(self, values_map: Dict) -> HParams:
        """The old name of override_from_dict."""
        return self.override_from_dict(values_map)

    def set_model_structure(self, model_structure) -> None:
        self._model_structure = model_structure

    def get_model_structure(self):
        return self._model_structure

    def to_json(self, indent=None, separators=None, sort_keys: bool = False) -> str:
        return json.dumps(self.values(), indent=indent, separators=separators, sort_keys=sort_keys)

    def parse_json(self, values_json: str) -> HParams:
        return self.override_from_dict(json.loads(values_json))

    def values(self) -> Dict:
        return {name: getattr(self, name) for name in self._hparam_types}

    def get(self, key: str, default=None):
        """The value of ``key``, or ``default``, which must suit its type."""
        if key not in self._hparam_types:
            return default
        if default is not None:
            kind, is_list = self._hparam_types[key]
            shown = f"list<{kind}>" if is_list else str(kind)
            refused = f"Hparam '{key}' of type '{shown}' is incompatible with default={default}"
            if is_list != isinstance(default, list):
                raise ValueError(refused)
            try:
                for value in default if is_list else [default]:
                    _cast(key, kind, value)
            except ValueError as e:
                raise ValueError(f"{refused}. {e}") from None
        return getattr(self, key)

    def __contains__(self, key: str) -> bool:
        return key in self._hparam_types

    def __str__(self) -> str:
        return ",".join(f"{name}={value}" for name, value in self.values().items())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({sorted(self.values().items())})"

    def to_proto(self, export_scope=None):
        raise ValueError(_PROTO)

    @staticmethod
    def from_proto(hparam_def, import_scope=None):
        raise ValueError(_PROTO)
