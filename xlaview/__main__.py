"""``python -m xlaview``: the same as the ``xlaview`` command."""

import sys

from xlaview.cli import main

sys.exit(main())
