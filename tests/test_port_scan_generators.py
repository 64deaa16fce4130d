"""A generator ended by ``raise StopIteration``, in its body or in a function
it calls (scan rule generator-stopiteration, tf1_train/port/generator_rules.py;
bilm-tf's ``get_sentence``): on the Python that runs the tests, as on every
Python TensorFlow 2.21 supports, the program raises RuntimeError where
Python 2.7 and 3.5-3.6 ended the loop, and the fix the scan names runs."""

import pytest

from tf1_train.port import scan

PROGRAM = """
class Reader:
    def __init__(self, shards):
        self.shards = list(shards)

    def _next_shard(self):
        if not self.shards:
            raise StopIteration
        return self.shards.pop()

    def sentences(self):
        while True:
            shard = self._next_shard()
            for sentence in shard:
                yield sentence


def batches(data):
    for x in data:
        yield x
    raise StopIteration
"""


def _run(source: str, part: str) -> list:
    names = {}
    exec(source, names)
    if part == "reader":
        return list(names["Reader"]([["a", "b"], ["c"]]).sentences())
    return list(names["batches"]([1, 2]))


def test_the_lines_reported_raise_runtime_error_and_the_fix_ends_the_loop(tmp_path):
    path = tmp_path / "reader.py"
    path.write_text(PROGRAM)
    found = [f.line for f in scan.scan([str(path)]).findings]
    lines = PROGRAM.splitlines()
    assert [lines[n - 1].strip() for n in found] == [
        "shard = self._next_shard()",
        "raise StopIteration",
    ]
    for part in ("reader", "batches"):
        with pytest.raises(RuntimeError, match="generator raised StopIteration"):
            _run(PROGRAM, part)
    fixed = PROGRAM.replace(
        "            shard = self._next_shard()",
        "            try:\n                shard = self._next_shard()\n"
        "            except StopIteration:\n                return",
    ).replace("        yield x\n    raise StopIteration", "        yield x\n    return")
    assert (_run(fixed, "reader"), _run(fixed, "batches")) == (["c", "a", "b"], [1, 2])
    path.write_text(fixed)
    assert scan.scan([str(path)]).findings == []
