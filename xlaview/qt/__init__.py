"""The Qt layer: the only package that imports PySide6. It binds views to the
core's objects; all the work is done by the core."""

from xlaview.qt.main_window import MainWindow

__all__ = ["MainWindow"]
