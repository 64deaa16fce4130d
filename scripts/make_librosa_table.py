"""Write tf1_train/port/librosa_table.py's POSITIONAL table: the librosa
functions a TF1-era program could call with positional arguments that
librosa 0.10 and later take only by name.

It compares librosa 0.8.1's source (the last release whose functions took
every argument by position) with the signatures of the librosa installed
here. 0.8.1 stays outside the repository:

    pip download --no-deps librosa==0.8.1 -d /tmp/librosa081
    unzip -o /tmp/librosa081/librosa-0.8.1-py3-none-any.whl 'librosa/*' -d /tmp/librosa081
    python scripts/make_librosa_table.py /tmp/librosa081/librosa

tests/test_port_scan_librosa.py holds the table to the installed librosa.
"""

import ast
import importlib
import inspect
import itertools
import pathlib
import sys
import textwrap

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODULES = ("librosa", "librosa.feature", "librosa.filters", "librosa.effects", "librosa.onset",
           "librosa.beat", "librosa.decompose", "librosa.segment", "librosa.sequence",
           "librosa.util")  # fmt: skip
SKIP = ("deprecated", "example", "ex", "moved", "rename_kw")  # librosa's own helpers


def old_positional(source: pathlib.Path) -> dict:
    """{function name: its parameters a caller could pass by position} in 0.8.1."""
    found = {}
    for path in sorted(source.rglob("*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
                args = node.args.posonlyargs + node.args.args
                found.setdefault(node.name, [a.arg for a in args])
    return found


def rows(old: dict) -> dict:
    """{public path: (positional parameters now, 0.8.1's further ones)}."""
    table = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for name in sorted(dir(module)):
            if name.startswith("_") or name in SKIP or name not in old:
                continue
            try:
                function = getattr(module, name)
                signature = inspect.signature(function)
            except (ImportError, TypeError, ValueError):  # librosa.display without matplotlib
                continue
            if inspect.isclass(function) or not function.__module__.startswith("librosa"):
                continue
            params = list(signature.parameters.values())
            kinds = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            now = sum(p.kind in kinds for p in params)
            was, by_name = old[name], {p.name for p in params if p.kind == p.KEYWORD_ONLY}
            later = list(itertools.takewhile(by_name.__contains__, was[now:]))
            if later and was[:now] == [p.name for p in params[:now]]:  # up to a name now gone
                table[f"{module_name}.{name}"] = (now, " ".join(later))
    return table


def _row(path: str, now: int, names: str) -> str:
    """One table line, wrapped as ruff's 100 columns want."""
    head = f'    "{path}": ({now}, '
    chunks = textwrap.wrap(names, 100 - len(head) - 4)
    quoted = [f'"{c} "' for c in chunks[:-1]] + [f'"{chunks[-1]}"']
    return head + ("\n" + " " * len(head)).join(quoted) + "),"


def main(source: str) -> None:
    import librosa

    table = rows(old_positional(pathlib.Path(source)))
    lines = [_row(path, now, names) for path, (now, names) in sorted(table.items())]
    target = ROOT / "tf1_train" / "port" / "librosa_table.py"
    text = target.read_text()
    opening = "POSITIONAL: Dict[str, Tuple[int, str]] = {\n"
    head, rest = text.split(opening, 1)
    tail = rest.split("}  # end of POSITIONAL", 1)[1]
    body = "".join(line + "\n" for line in lines)
    target.write_text(head + opening + body + "}  # end of POSITIONAL" + tail)
    print(f"{len(table)} functions, librosa {librosa.__version__}")


if __name__ == "__main__":
    main(sys.argv[1])
