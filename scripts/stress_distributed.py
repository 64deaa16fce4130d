"""The distributed tests on a starved CPU: runs them repeatedly while
processes of this script burn every core.

    python scripts/stress_distributed.py [--runs 5] [--burners N] [-- pytest args]

By default the whole of tests/test_distributed.py and
tests/test_launcher_faults.py; after ``--``, other
pytest arguments (e.g. ``-k non_chief``). The burners are busy loops of this
script's own (one per core unless --burners says otherwise), stopped by pid
at the end. Prints each run's outcome and duration, then one line with the
pass count. Exit status 0 when every run passed.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BURN = "while True: pass"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--burners", type=int, default=os.cpu_count() or 2)
    argv = sys.argv[1:]
    split = argv.index("--") if "--" in argv else len(argv)
    args = parser.parse_args(argv[:split])
    pytest_args = argv[split + 1 :] or [
        "tests/test_distributed.py",
        "tests/test_launcher_faults.py",
    ]
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(args.burners)]
    passed = 0
    try:
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            out = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *pytest_args],
                cwd=ROOT,
                capture_output=True,
                text=True,
            )
            tail = (out.stdout.strip().splitlines() or ["(no output)"])[-1]
            passed += out.returncode == 0
            print(
                f"run {run}: {'passed' if out.returncode == 0 else 'FAILED'} in "
                f"{time.monotonic() - start:.0f} s ({tail})",
                flush=True,
            )
            if out.returncode:
                print(out.stdout[-4000:], flush=True)
    finally:
        for p in burners:
            p.send_signal(signal.SIGKILL)
            p.wait()
    what = " ".join(pytest_args)
    print(f"{passed}/{args.runs} runs passed with {args.burners} CPU burners ({what})")
    return 0 if passed == args.runs else 1


if __name__ == "__main__":
    sys.exit(main())
