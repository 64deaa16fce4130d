"""A file the scan cannot parse gets one error line; a Python 2 file (TF1
code bases of 2016-2018 often were) gets one that says so and how to
convert it (tf1_train/port/python2.py)."""

import pytest

from tf1_train.port import scan_cli


@pytest.mark.parametrize(
    "source, python2",
    [
        ('print "step", step\n', True),
        ("try:\n    run()\nexcept IOError, e:\n    pass\n", True),
        ('raise ValueError, "bad shape"\n', True),
        ("mode = 0755\n", True),
        ("total = 10L\n", True),
        ("s = `x`\n", True),
        ("def f(a, (b, c)):\n    pass\n", True),
        ("def broken(:\n", False),
        ("x = [1, 2\n", False),
    ],
)
def test_python_2_sources_get_one_line_that_says_so(tmp_path, capsys, source, python2):
    # TF1 code bases of 2016-2018 often were Python 2; the scan reads Python 3.
    (tmp_path / "old.py").write_text(source)
    assert scan_cli.main([str(tmp_path / "old.py")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"error: {tmp_path / 'old.py'}:")
    assert ("Python 2 source: convert the code base first" in err[0]) == python2
