"""The scan's matplotlib rule (tf1_train/port/matplotlib_rules.py) against
the matplotlib the tests install (setup.py's test extra): every line it
says breaks raises there and no other line does, and each fix it names
runs and gives what the old call gave where both exist (checked by hand on
matplotlib 3.7.5 and 3.9.4: tostring_rgb's pixels, cm.get_cmap's colours,
the renamed seaborn sheets; hist's normed= on 3.1.3)."""

import matplotlib
import numpy as np
from conftest import raising_lines

from tf1_train.port import scan

matplotlib.use("Agg")

PROGRAM = """\
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
import matplotlib.cm as cm
from matplotlib import mlab
import numpy as np
fig = plt.figure(figsize=(2, 2))
ax = fig.add_subplot(111)
matplotlib.use('Agg', warn=False)
colors = plt.cm.get_cmap('jet', 10)
viridis = cm.get_cmap('viridis')
cm.register_cmap(name='mine', cmap=plt.get_cmap('jet'))
plt.hold(True)
y = mlab.normpdf(np.zeros(3), 0, 1)
axes3d = fig.gca(projection='rectilinear')
counts = ax.hist([1, 2, 2], normed=True)
ax.set_axis_bgcolor('w')
plt.subplot(111, axisbg='w')
pixels = np.frombuffer(fig.canvas.tostring_rgb(), dtype=np.uint8)
plt.style.use('seaborn-whitegrid')
plt.savefig('/dev/null', format='png', frameon=False)
from matplotlib.mlab import bivariate_normal
"""

FIXED = """\
import matplotlib
matplotlib.use('Agg')
import matplotlib.pyplot as plt
import numpy as np
fig = plt.figure(figsize=(2, 2))
ax = fig.add_subplot(111)
colors = plt.get_cmap('jet', 10)
counts = ax.hist([1, 2, 2], density=True)
ax.set_facecolor('w')
fig.canvas.draw()
pixels = np.asarray(fig.canvas.buffer_rgba())[..., :3]
plt.style.use('seaborn-v0_8-whitegrid')
plt.savefig('/dev/null', format='png', transparent=True)
"""


def test_each_line_the_scan_says_breaks_raises_on_todays_matplotlib(tmp_path):
    path = tmp_path / "plots.py"
    path.write_text(PROGRAM)
    found = {f.line for f in scan.scan([str(path)]).findings if f.rule == "matplotlib-removed"}
    assert found == raising_lines(
        PROGRAM, (AttributeError, TypeError, OSError, ImportError, NameError)
    )
    assert len(found) == 14


def test_the_fixes_run_and_the_scan_is_quiet(tmp_path):
    names = {}
    exec(FIXED, names)
    assert names["pixels"].shape[-1] == 3 and names["pixels"].dtype == np.uint8
    path = tmp_path / "plots.py"
    path.write_text(FIXED)
    assert scan.scan([str(path)]).findings == []
