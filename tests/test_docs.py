"""The docs make claims by naming tests, files, pages and flags; those must exist.

Pages are README.md and docs/*.md. A test is named as
`tests/test_x.py::test_name`; in a table's last cell, bare `test_name`s
that follow refer to the last file named before them in that cell.
"""

import ast
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PORTING = ROOT / "docs" / "PORTING.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`|`(test_\w+)`")
FULL_REF = re.compile(r"(tests/[\w/]+\.py)::(\w+)")
CODE_SPAN = re.compile(r"`([^`\n]+)`")
REPO_DIRS = ("tests/", "tf1_train/", "scripts/", "flags/", "docs/", "examples/")
LINK = re.compile(r"\]\(([^)\s]+)\)")
PITFALL_HEADING = re.compile(r"^### P(\d+)\. \S", re.M)
PITFALL_REF = re.compile(r"PORTING\.md (P\d+(?:,? (?:and )?P\d+)*)")
SOURCE_DIRS = ("tf1_train", "tests", "scripts", "docs")
TEXT_SUFFIXES = {".py", ".md", ".txt", ".flags", ".toml", ".cfg", ".sh"}
# What pointed outside the repository: a numbered entry of an external pitfall
# list, a section of an external spec, or a file next to the checkout.
OUTSIDE = re.compile(r"PITFALLS?\s*\d+|SPEC\s+section|\.\./shared", re.I)


def _test_names(path: pathlib.Path):
    tree = ast.parse(path.read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}


def _rel(path: pathlib.Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _cells(line: str):
    return [c.strip() for c in line.strip("|").split("|")]


def _rows(markdown: str, proofs_only: bool = False):
    """A table's body rows; with ``proofs_only``, only of tables whose last
    column names tests ("proved by", "tested by")."""
    header = None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            header = None
        elif set(line) <= set("|- "):
            continue
        elif header is None:
            header = _cells(line)
        elif not proofs_only or header[-1].endswith(" by"):
            yield _cells(line)


def _resolve_cell(doc: str, cell: str):
    """Checks every test a table cell names; returns how many it named."""
    last_file = None
    refs = REF.findall(cell)
    for file, name, bare in refs:
        if file:
            last_file = ROOT / file
            assert last_file.exists(), f"{doc}: {file} does not exist"
        assert last_file is not None, f"{doc}: {bare} without a file before it"
        test = name or bare
        assert test in _test_names(last_file), f"{doc}: {last_file.name}::{test}"
    return len(refs)


def _check_references(doc: str, text: str, min_rows: int):
    rows = list(_rows(text))
    assert len(rows) >= min_rows, f"{doc}: {len(rows)} rows"
    for cells in rows:
        assert _resolve_cell(doc, cells[-1]), f"{doc}: row names no test: {cells[0]}"


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: pathlib.Path):
    return {_slug(m) for m in re.findall(r"^#+ (.+)$", path.read_text(), re.M)}


def _source_files():
    yield README
    for top in SOURCE_DIRS:
        for path in sorted((ROOT / top).rglob("*")):
            if path.suffix in TEXT_SUFFIXES and ".venv" not in path.parts:
                yield path


def _defined_flags():
    """Names of the absl flags the entry points define, from their source."""
    names = []
    for path in sorted((ROOT / "tf1_train").rglob("main.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr.startswith("DEFINE")
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
            ):
                names.append(node.args[0].value)
    return names


def test_every_porting_row_names_an_existing_test():
    _check_references("PORTING.md", PORTING.read_text(), min_rows=14)


def test_every_readme_feature_names_an_existing_test():
    _check_references("README.md", _section(README.read_text(), "Features"), min_rows=10)


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_test_a_page_names_exists(page):
    text = page.read_text()
    for file, name in FULL_REF.findall(text):
        path = ROOT / file
        assert path.exists(), f"{_rel(page)}: {file} does not exist"
        assert name in _test_names(path), f"{_rel(page)}: {file}::{name} does not exist"
    for cells in _rows(text, proofs_only=True):
        _resolve_cell(_rel(page), cells[-1])


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_file_and_link_a_page_names_exists(page):
    for span in CODE_SPAN.findall(page.read_text()):
        if span.startswith(REPO_DIRS):
            path = re.split(r"::|\s", span)[0]
            assert (ROOT / path).exists(), f"{_rel(page)}: `{span}` names a missing path"
    prose = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    for target in LINK.findall(prose):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        assert dest.exists(), f"{_rel(page)}: link to missing {target}"
        if anchor:
            assert anchor in _anchors(dest), f"{_rel(page)}: no heading for #{anchor}"


def test_every_docs_page_is_linked_from_the_readme():
    text = README.read_text()
    missing = [p.name for p in PAGES[1:] if f"](docs/{p.name}" not in text]
    assert not missing, f"README.md links none of {missing}"


def test_readme_is_short_and_starts_with_the_two_commands():
    lines = README.read_text().splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines"
    head = lines[:40]
    assert any(re.match(r"\./run\.sh\s*(#|$)", line) for line in head), "no ./run.sh"
    assert any(line.startswith("./run.sh test") for line in head), "no ./run.sh test"


def test_every_flag_is_in_the_readme_flags_table():
    names = _defined_flags()
    assert len(names) >= 40, f"only {len(names)} flags found: were they moved?"
    table = _section(README.read_text(), "Flags")
    listed = {f for cells in _rows(table) for f in re.findall(r"`--(\w+)`", cells[0])}
    missing = sorted(set(names) - listed)
    assert not missing, f"README.md '## Flags' lacks {missing}"


def test_pitfalls_are_numbered_in_order():
    numbers = [int(n) for n in PITFALL_HEADING.findall(PORTING.read_text())]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 21, numbers


def test_every_pitfall_reference_resolves():
    known = set(PITFALL_HEADING.findall(PORTING.read_text()))
    within = re.findall(r"\bP(\d+)\b", _section(PORTING.read_text(), "Constructs"))
    assert set(within) <= known, f"PORTING.md table: P{sorted(set(within) - known)}"
    for path in _source_files():
        for group in PITFALL_REF.findall(path.read_text()):
            for n in re.findall(r"\d+", group):
                assert n in known, f"{_rel(path)}: PORTING.md P{n} has no heading"


def test_no_reference_points_outside_the_repository():
    found = [
        f"{_rel(path)}:{text[: m.start()].count(chr(10)) + 1}: {m.group(0)}"
        for path in _source_files()
        for text in [path.read_text()]
        for m in OUTSIDE.finditer(text)
    ]
    assert not found, "references outside the repository:\n" + "\n".join(found)
