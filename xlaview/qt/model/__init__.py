"""The window's state, with no widgets in it: the view model (`view_model`)
and what it is made of: its jobs and their generations (`jobs`), the worker
thread and helper processes (`workers`), work deferred until a paint
(`paint_gate`), the work itself (`tasks`), caches (`view_cache`), the pass
prepared ahead (`prefetch`), big structures freed slowly (`release`), the
folder followed (`follower`), the records views are handed (`records`), and
its analyses (`analyses/`).

Imports QtCore and QtGui, never QtWidgets; tested on a bare QCoreApplication.
"""
