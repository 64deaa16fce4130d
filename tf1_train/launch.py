"""``python -m tf1_train.launch``: starts a ps/worker job on 127.0.0.1.

The launcher lives in tf1_train/cluster/launch.py; this module keeps the
documented entry point.

    python -m tf1_train.launch --num_ps=1 --num_workers=2 -- --flagfile=flags/launch.flags
"""

import sys

from tf1_train.cluster.launch import main

if __name__ == "__main__":
    sys.exit(main())
