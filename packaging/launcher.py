"""Entry script of the PyInstaller bundle: the ``xlaview`` command."""

import sys

from xlaview.cli import main

if __name__ == "__main__":
    sys.exit(main())
