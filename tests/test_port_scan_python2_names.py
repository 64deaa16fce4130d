"""Python 2 names left in Python 3 source (facenet's ``stat.iteritems()``,
TensorFlow-Examples' ``urllib.urlretrieve``, ``xrange`` and
``os.walk(d).next()``): the scan's
breaks are exactly the lines Python 3 raises on, and a file that provides
for both Pythons (six, a guarded import, a version test, its own
``xrange``) runs and gets no finding."""

import sys

from conftest import raising_lines

from tf1_train.port import scan

ERRORS = (AttributeError, ImportError, NameError, TypeError)
# One statement a line: raising_lines runs each on its own, after the ones above.
PROGRAM = (
    "import itertools, os, string, sys, urllib\n"
    "stat = {'loss': [1.0], 'accuracy': [0.5]}\n"
    "names = [k for k, _ in stat.iteritems()]\n"
    "total = sum(xrange(3))\n"
    "import cPickle\n"
    "from urllib2 import urlopen\n"
    "letters = string.letters\n"
    "pairs = list(itertools.izip([1], [2]))\n"
    "print >>sys.stderr, 'saving statistics'\n"
    "known = stat.has_key('loss')\n"
    "big = sys.maxint\n"
    "retrieve = urllib.urlretrieve\n"
    "text = unicode('a')\n"
    "top = os.walk('.').next()\n"
    "kept = [k for k, _ in stat.items()]\n"
    "total = sum(range(3))\n"
    "import pickle\n"
    "letters = string.ascii_letters\n"
    "pairs = list(zip([1], [2]))\n"
    "print('saving statistics', file=sys.stderr)\n"
    "known = 'loss' in stat\n"
)
PROVIDED_FOR = """\
import sys
import six
try:
    import cPickle as pickle
except ImportError:
    import pickle
try:
    from urllib.request import urlopen
except ImportError:
    from urllib2 import urlopen
if sys.version_info[0] == 2:
    text_type = unicode
else:
    text_type = str
try:
    xrange
except NameError:
    xrange = range
stat = {'loss': [1.0]}
names = [k for k, _ in six.iteritems(stat)]
steps = list(xrange(3))
file = 'stats.h5'
opened = file.upper()
class Batches:
    def next(self):
        return [1]
batch = Batches().next()
top = next(iter([1]))
"""


def _breaks(tmp_path, source):
    (tmp_path / "prog.py").write_text(source)
    report = scan.scan([str(tmp_path)])
    return {f.line for f in report.findings if f.severity == "breaks"}, report


def test_the_scan_breaks_exactly_where_python_3_raises(tmp_path, capsys):
    breaks, report = _breaks(tmp_path, PROGRAM)
    assert breaks == raising_lines(PROGRAM, ERRORS) == set(range(3, 15))
    assert {f.rule for f in report.findings} == {"python2-name"}
    fixes = {f.line: f.fix for f in report.findings}
    assert fixes[3].startswith("d.items(): Python 3 has no .iteritems(), so the line raises ")
    assert "urllib.request.urlretrieve" in fixes[12] and "2to3 -f urllib" in fixes[12]
    assert "print(x, file=f)" in fixes[9] and "TypeError" in fixes[9]


def test_a_file_that_provides_for_both_pythons_runs_and_has_no_finding(tmp_path):
    exec(compile(PROVIDED_FOR, "provided_for.py", "exec"), {"__name__": "provided_for"})
    breaks, report = _breaks(tmp_path, PROVIDED_FOR)
    assert breaks == set() and [f for f in report.findings if f.rule == "python2-name"] == []


def test_each_name_the_rule_knows_is_gone_from_this_python():
    # Else the scan would call a working line broken.
    import builtins
    import importlib.util
    import itertools
    import os
    import string
    import urllib

    from tf1_train.port import py2_rules

    assert not any(hasattr(builtins, name) for name in py2_rules.BUILTINS)
    assert not any(importlib.util.find_spec(name) for name in py2_rules.MODULES)
    modules = {"string": string, "sys": sys, "os": os, "itertools": itertools, "urllib": urllib}
    for path in py2_rules.ATTRIBUTES:
        module, name = path.split(".")
        assert not hasattr(modules[module], name), path
    assert not any(hasattr(dict, name) for name in py2_rules.METHODS)
