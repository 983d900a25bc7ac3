"""``python -m xlaview``: the same as the ``xlaview`` command."""

from xlaview.cli import run

run()
