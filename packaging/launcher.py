"""Entry script of the PyInstaller bundle: the ``xlaview`` command."""

import sys

from xlaview.cli import run
from xlaview.helper import FROZEN_HELPER_ARG, serve

if __name__ == "__main__":
    if sys.argv[1:] == [FROZEN_HELPER_ARG]:  # the helper process that colours text
        serve()
        sys.exit(0)
    run()
