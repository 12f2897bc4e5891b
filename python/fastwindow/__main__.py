"""``python -m fastwindow``: see :mod:`fastwindow.cli`."""

from .cli import main

if __name__ == "__main__":
    raise SystemExit(main())
