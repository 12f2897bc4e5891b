"""The benchmark suite's entry point from a checkout: same as ``python -m fastwindow bench``.

    python benchmarks/run.py --quick          # < 2 minutes: small partitions, main workloads
    python benchmarks/run.py                  # the full suite (all shapes, workloads, end-to-end)
    python benchmarks/run.py --list           # workloads and data shapes
    python benchmarks/run.py --help           # sizes, systems, repeats, output directory

The suite itself lives in the package (python/fastwindow/bench.py) so that it ships with the wheel.
"""

import sys

from fastwindow.bench import main

if __name__ == "__main__":
    sys.exit(main())
