"""Following the open folder while a program writes it: a burst of file
events becomes one re-index, which the view model merges into what is shown.
The folders of the dump are watched (a file added or removed), and the file
of the pass shown (rewritten, cut short, emptied in place)."""

from __future__ import annotations

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer

from xlaview.dump.records import DumpIndex
from xlaview.qt.model.records import TextShown
from xlaview.qt.model.view_model import ViewModel

REFRESH_DELAY_MS = 400  # gather a burst of file events into one re-index


class FolderFollower(QObject):
    def __init__(self, model: ViewModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        self.watcher = QFileSystemWatcher(self)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(REFRESH_DELAY_MS)
        self._timer.timeout.connect(model.folder.reindex)
        self.watcher.directoryChanged.connect(lambda _path: self._timer.start())
        self.watcher.fileChanged.connect(lambda _path: self._timer.start())
        model.index_changed.connect(self._watch)
        model.pass_shown.connect(self._watch_file)
        self._file: str | None = None

    def _watch_file(self, shown: TextShown) -> None:
        path = str(shown.file.path)
        if path == self._file:
            return
        if self._file is not None:
            self.watcher.removePath(self._file)
        self._file = path if self.watcher.addPath(path) else None

    def _watch(self, index: DumpIndex | None) -> None:
        old = self.watcher.directories() + self.watcher.files()
        if old:
            self.watcher.removePaths(old)
        self._file = None
        if index is not None and index.root.is_dir():
            folders = {str(index.root)} | {str(index.root / d) for d in index.dumps if d}
            self.watcher.addPaths(sorted(folders))
