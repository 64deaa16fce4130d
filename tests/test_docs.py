"""The docs make claims by naming tests; those tests must exist."""

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`|`(test_\w+)`")


def _test_names(path: pathlib.Path):
    tree = ast.parse(path.read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _rows(markdown: str):
    for line in markdown.splitlines():
        if line.startswith("|") and not set(line) <= set("|- "):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if cells[0] not in ("TF1 construct", "capability"):
                yield cells


def _check_references(doc: str, text: str, min_rows: int):
    rows = list(_rows(text))
    assert len(rows) >= min_rows, f"{doc}: {len(rows)} rows"
    for cells in rows:
        last_file = None
        refs = REF.findall(cells[-1])
        assert refs, f"{doc}: row names no test: {cells[0]}"
        for file, name, bare in refs:
            if file:
                last_file = ROOT / file
                assert last_file.exists(), f"{doc}: {file} does not exist"
            assert last_file is not None, f"{doc}: {bare} without a file before it"
            test = name or bare
            assert test in _test_names(last_file), f"{doc}: {last_file.name}::{test}"


def test_every_porting_row_names_an_existing_test():
    _check_references("PORTING.md", (ROOT / "docs" / "PORTING.md").read_text(), min_rows=14)


def test_every_readme_feature_names_an_existing_test():
    text = (ROOT / "README.md").read_text()
    table = text.split("## Features", 1)[1].split("\n## ", 1)[0]
    _check_references("README.md", table, min_rows=10)
