"""The scan table's last lines (tf1_train/port/scan_cli.py): renames leave
the exit status 0, so a line says what they do as written."""

from tf1_train.port import scan_cli


def test_renames_end_with_the_line_saying_they_raise_as_written(tmp_path, capsys):
    (tmp_path / "a.py").write_text("import tensorflow as tf\ny = tf.to_float(x)\n")
    assert scan_cli.main([str(tmp_path / "a.py")]) == 0
    last = capsys.readouterr().out.rstrip().splitlines()[-1]
    assert last.startswith("(1 rename: names TensorFlow 2 moved") and "--v1" in last
    assert scan_cli.main(["--v1", str(tmp_path / "a.py")]) == 0
    assert "rename:" not in capsys.readouterr().out
