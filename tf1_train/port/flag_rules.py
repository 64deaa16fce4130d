"""TF 1.0-1.4's ``tf.flags``, which TF 1.5 replaced with absl's: what a program
written for them hits on TF 1.5-1.15 and on 2.x alike (measured on TF 1.15.5
and 2.21, the same on both).

- ``FLAGS._parse_flags()`` is gone (cnn-text-classification-tf's eval.py).
- ``FLAGS.__flags`` was the name -> value dict; it is now absl's dict of Flag
  objects, so DCGAN-tensorflow's ``pp.pprint(flags.FLAGS.__flags)`` prints
  objects and ``json.dumps`` of it raises. ``FLAGS.flag_values_dict()`` is the
  dict it was. Read in a class body, ``x.__flags`` is the class's own private
  name (Python mangles it), not the flags'.
- ``FLAGS.__dict__['__flags']`` is no key of the wrapper TF puts around absl's
  flags: KeyError. ``json.dumps(FLAGS.__flags)``: TypeError.
- TF 1.4 stored any name assigned on FLAGS; absl refuses one no ``DEFINE_*``
  made (``UnrecognizedFlagError``): carpedm20's deep-rl code sets
  ``conf.data_format``. The scan knows the program's flags only when every
  ``DEFINE_*`` of it names its flag with a string; otherwise it says nothing.
"""

import ast
from typing import Dict, Iterator, Optional, Sequence, Set, Tuple

from tf1_train.port.rules import BREAKS, CHANGES, _rule

ROW_PARSE_FLAGS = "`_parse_flags()` on TF 1.4's flags"
ROW_FLAG_VALUES = "`FLAGS.__flags` and TF 1.4's other flag idioms"
SINCE = "since TF 1.5 tf.flags is absl's (TF 1.5-1.15 raise too)"

_rule(
    "flags-parse-flags",
    BREAKS,
    "drop it: since TF 1.5 tf.flags is absl's, which has no _parse_flags (AttributeError) and "
    "parses the command line in tf.app.run(); a program that reads flags without "
    "tf.app.run() first calls its flag values object with sys.argv",
    "leaves it unchanged and reports nothing",
    ROW_PARSE_FLAGS,
)
_rule(
    "flags-private-dict",
    CHANGES,
    "FLAGS.flag_values_dict() (the name -> value dict TF 1.0-1.4's __flags was): "
    + SINCE
    + ", __flags holds absl's Flag objects, so printed it shows objects, json.dumps raises "
    "TypeError and a value read from it is a Flag",
    "leaves it unchanged and reports nothing",
    ROW_FLAG_VALUES,
)
_rule(
    "flags-dict-breaks",
    BREAKS,
    "FLAGS.flag_values_dict() (the name -> value dict TF 1.0-1.4 kept as __flags): "
    + SINCE
    + ": the FLAGS object TensorFlow gives wraps absl's, whose __dict__ has no '__flags' "
    "(KeyError), and absl's __flags holds Flag objects, which json cannot write (TypeError)",
    "leaves it unchanged and reports nothing",
    ROW_FLAG_VALUES,
)
_rule(
    "flags-undefined-assign",
    BREAKS,
    "define it (tf.app.flags.DEFINE_string('{name}', ...)) or keep the value in an object of "
    "the program's own: " + SINCE + ", which refuses to set a flag no DEFINE_* made "
    "(UnrecognizedFlagError: Unknown command line flag '{name}'); TF 1.0-1.4 stored any name",
    "leaves it unchanged and reports nothing",
    ROW_FLAG_VALUES,
)

# absl's own flags, set by some programs (FLAGS.alsologtostderr = True)
ABSL_FLAGS = frozenset(
    "logtostderr alsologtostderr log_dir v verbosity stderrthreshold showprefixforinfo "
    "logger_levels run_with_pdb pdb pdb_post_mortem run_with_profiling profile_file "
    "use_cprofile_for_profiling only_check_args helpfull helpshort helpxml flagfile undefok "
    "help".split()
)
Finding = Tuple[ast.AST, str, str, Dict[str, str]]


def defined_flags(trees: Sequence[ast.AST]) -> Optional[Tuple[str, ...]]:
    """The flags a program's ``DEFINE_*`` calls make, in every file; None when it
    makes none, or names one otherwise than with a string (not known then)."""
    names: Set[str] = set()
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _callee(node.func).startswith("DEFINE_"):
                given = [k.value for k in node.keywords if k.arg in ("name", "flag")]
                given += node.args[:1]
                if _callee(node.func) == "DEFINE_flag":
                    return None  # a Flag object made elsewhere
                if not given or not isinstance(given[0], ast.Constant):
                    return None
                names.add(str(given[0].value))
    return tuple(sorted(names)) if names else None


def findings(tree: ast.AST, resolve, defined: Optional[Sequence[str]]) -> Iterator[Finding]:
    """``_parse_flags()`` calls, ``__flags`` read off the flag values, the
    ``'__flags'`` key of their ``__dict__``, and flags set that no DEFINE_* made."""
    bound = _flag_value_names(tree, resolve)
    known = set(defined or ()) | ABSL_FLAGS
    mangled = {id(n) for c in ast.walk(tree) if isinstance(c, ast.ClassDef) for n in ast.walk(c)}
    dumped = {id(a) for c in ast.walk(tree) if _is_json_dump(c) for a in c.args}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            if node.func.attr == "_parse_flags":
                yield node, "flags-parse-flags", ast.unparse(node), {}
        elif isinstance(node, ast.Attribute) and node.attr == "__flags" and id(node) not in mangled:
            rule = "flags-dict-breaks" if id(node) in dumped else "flags-private-dict"
            yield node, rule, ast.unparse(node), {}
        elif isinstance(node, ast.Subscript) and _is_dict_key(node):
            yield node, "flags-dict-breaks", ast.unparse(node), {}
        elif isinstance(node, ast.Assign) and defined is not None:
            for target in node.targets:
                if _sets_a_flag(target, resolve, bound) and target.attr not in known:
                    name = {"name": target.attr}
                    yield target, "flags-undefined-assign", ast.unparse(target), name


def _sets_a_flag(target: ast.AST, resolve, bound: Set[str]) -> bool:
    return isinstance(target, ast.Attribute) and _is_flag_values(target.value, resolve, bound)


def _is_json_dump(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and ast.unparse(node.func) in ("json.dump", "json.dumps")


def _callee(func: ast.AST) -> str:
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _is_dict_key(node: ast.Subscript) -> bool:
    key = node.slice
    return (
        isinstance(node.value, ast.Attribute)
        and node.value.attr == "__dict__"
        and isinstance(key, ast.Constant)
        and key.value == "__flags"
    )


def _is_flag_values(node: ast.AST, resolve, bound: Set[str]) -> bool:
    """``tf.app.flags.FLAGS`` (however imported or aliased), or a name this file
    bound to it (``FLAGS = tf.flags.FLAGS``, ``conf = flags.FLAGS``)."""
    if isinstance(node, ast.Name) and node.id in bound:
        return True
    if not isinstance(node, ast.Attribute) or node.attr != "FLAGS":
        return False
    path = resolve(node) or ast.unparse(node)
    return path.endswith("flags.FLAGS")


def _flag_value_names(tree: ast.AST, resolve) -> Set[str]:
    """Names bound to the flag values, through chains (``conf = FLAGS``)."""
    bound: Set[str] = set()
    while True:
        more = {
            t.id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign) and _is_flag_values(node.value, resolve, bound)
            for t in node.targets
            if isinstance(t, ast.Name)
        }
        if more <= bound:
            return bound
        bound |= more
