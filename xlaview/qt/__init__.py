"""The Qt layer: the only package that imports PySide6. It binds views to the
core's objects; all the work is done by the core.

`model/` owns the window's state (no widgets); `render/` builds what views
paint; `text/`, `graph/` and `panels/` are the views; `main_window` composes
them. The window is `xlaview.qt.main_window.MainWindow`.
"""
