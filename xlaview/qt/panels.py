"""Analysis panels: what a pass changed, where the traffic goes, memory over
time, search, and the comparison of two dumps. Each shows a core result and
turns clicks into instruction selections."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QMouseEvent, QPainter, QPainterPath, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QToolTip,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from xlaview.analysis.compare import ModuleComparison
from xlaview.analysis.diff import ModuleDiff
from xlaview.analysis.history import Event
from xlaview.analysis.memory import BufferBar, MemoryTimeline
from xlaview.analysis.search import Hit
from xlaview.analysis.traffic import Traffic
from xlaview.qt import theme
from xlaview.qt.labels import steady_label
from xlaview.qt.inspector import human_bytes

_ROLE = Qt.ItemDataRole.UserRole


class RowsModel(QAbstractTableModel):
    """Rows of text with a sort key per cell: a table of thousands of rows
    costs nothing to fill (a QTableWidget makes an item per cell). ``numeric``:
    the columns of figures, aligned right."""

    def __init__(self, headers: list[str], parent: QWidget | None = None,
                 numeric: tuple[int, ...] = ()) -> None:
        super().__init__(parent)
        self.headers = headers
        self.numeric = numeric
        self.rows: list[tuple[tuple[str, ...], tuple[object, ...], object]] = []
        self.highlight: set[int] = set()

    def set_rows(self, rows: list[tuple[tuple[str, ...], tuple[object, ...], object]],
                 highlight: set[int] | None = None) -> None:
        """Each row: (texts, sort keys, payload). ``highlight``: row numbers to tint."""
        self.beginResetModel()
        self.rows = rows
        self.highlight = highlight or set()
        self.endResetModel()

    def rowCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: QModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.headers)

    def data(self, index: QModelIndex, role: int = Qt.ItemDataRole.DisplayRole):
        row = self.rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row[0][index.column()]
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in self.numeric:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.BackgroundRole and id(row) in self.highlight:
            return QColor("#fff4e6")
        return None

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole):
        if role == Qt.ItemDataRole.DisplayRole and orientation == Qt.Orientation.Horizontal:
            return self.headers[section]
        return None

    def sort(self, column: int, order: Qt.SortOrder = Qt.SortOrder.AscendingOrder) -> None:
        self.layoutAboutToBeChanged.emit()
        self.rows.sort(key=lambda r: (r[1][column] is None, r[1][column]),
                       reverse=order == Qt.SortOrder.DescendingOrder)
        self.layoutChanged.emit()

    def payload(self, row: int) -> object:
        return self.rows[row][2]


def _view(model: RowsModel, parent: QWidget, object_name: str,
          on_pick: Callable[[object], None]) -> QTableView:
    """A sortable table of ``model``; a click hands its row's payload to ``on_pick``."""
    view = QTableView(parent)
    view.setObjectName(object_name)
    view.setModel(model)
    view.verticalHeader().hide()
    view.verticalHeader().setDefaultSectionSize(22)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setAlternatingRowColors(True)
    view.horizontalHeader().setStretchLastSection(True)
    view.setWordWrap(False)
    view.setSortingEnabled(True)
    view.clicked.connect(lambda index: on_pick(model.payload(index.row())))
    return view


def _table(headers: list[str], parent: QWidget) -> QTableWidget:
    table = QTableWidget(0, len(headers), parent)
    table.setHorizontalHeaderLabels(headers)
    table.verticalHeader().hide()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setAlternatingRowColors(True)
    table.horizontalHeader().setStretchLastSection(True)
    table.setWordWrap(False)
    return table


# ============================================================================ changes


class ChangesPanel(QWidget):
    """The diff of the current pass against the dump before it, and the history
    of the selected instruction over the whole timeline."""

    instruction_requested = Signal(str)
    point_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("changes")
        self.title = steady_label(self, lines=2)
        self.tree = QTreeWidget(self)
        self.tree.setObjectName("diffTree")
        self.tree.setHeaderLabels(["instruction", "what"])
        self.tree.header().setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        self.tree.itemActivated.connect(self._on_item)
        self.tree.itemClicked.connect(self._on_item)
        self.history_title = steady_label(self)
        self.history = QTreeWidget(self)
        self.history.setObjectName("historyList")
        self.history.setHeaderLabels(["pass", "event"])
        self.history.setRootIsDecorated(False)
        self.history.itemClicked.connect(lambda item, _c: self.point_requested.emit(item.data(0, _ROLE)))
        split = QSplitter(Qt.Orientation.Vertical, self)
        top = QWidget(split)
        top_layout = QVBoxLayout(top)
        top_layout.setContentsMargins(0, 0, 0, 0)
        top_layout.addWidget(self.title)
        top_layout.addWidget(self.tree, 1)
        bottom = QWidget(split)
        bottom_layout = QVBoxLayout(bottom)
        bottom_layout.setContentsMargins(0, 0, 0, 0)
        bottom_layout.addWidget(self.history_title)
        bottom_layout.addWidget(self.history, 1)
        split.addWidget(top)
        split.addWidget(bottom)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)
        self.set_diff(None, "")
        self.set_history(None, [], {})

    def set_diff(self, diff: ModuleDiff | None, title: str) -> None:
        self.tree.clear()
        if diff is None:
            self.title.setText(title or "No pass selected.")
            return
        if diff.empty:
            self.title.setText(f"<b>{title}</b>: no change")
            return
        self.title.setText(
            f"<b>{title}</b>: <span style='color:#2b8a3e'>{len(diff.added)} added</span>, "
            f"<span style='color:#c92a2a'>{len(diff.removed)} removed</span>, "
            f"<span style='color:#e67700'>{len(diff.changed)} changed</span>"
            + (f", {len(diff.computations_added)} new computations" if diff.computations_added else "")
        )
        groups = [("Added", "#2b8a3e"), ("Removed", "#c92a2a"), ("Changed", "#e67700")]
        parents = {}
        for name, colour in groups:
            item = QTreeWidgetItem([name, ""])
            item.setForeground(0, QColor(colour))
            parents[name] = item
            self.tree.addTopLevelItem(item)
        for a in diff.added:
            what = f"{a.opcode} {a.shape}"
            child = QTreeWidgetItem([a.name, what])
            child.setData(0, _ROLE, a.name)
            for absorbed in a.absorbed:
                grandchild = QTreeWidgetItem([absorbed, "absorbed"])
                child.addChild(grandchild)
            if a.absorbed:
                child.setText(1, f"{what} — took in {len(a.absorbed)}")
            parents["Added"].addChild(child)
        for r in diff.removed:
            child = QTreeWidgetItem([r.name, f"into {r.absorbed_into}" if r.absorbed_into else
                                     f"{r.opcode} {r.shape}"])
            if r.absorbed_into:
                child.setData(0, _ROLE, r.absorbed_into)
            parents["Removed"].addChild(child)
        for c in diff.changed:
            child = QTreeWidgetItem([c.name, ", ".join(c.aspects) + (f" (was {c.old_name})" if c.old_name else "")])
            child.setToolTip(1, f"before: {c.before}\nafter:  {c.after}")
            child.setData(0, _ROLE, c.name)
            parents["Changed"].addChild(child)
        for name, _ in groups:
            item = parents[name]
            item.setText(1, str(item.childCount()))
            item.setExpanded(item.childCount() <= 40)
        self.tree.resizeColumnToContents(0)

    def set_history(self, name: str | None, events: list[Event], titles: dict[str, str]) -> None:
        self.history.clear()
        if name is None:
            self.history_title.setText("Select an instruction to see the passes that made it.")
            return
        self.history_title.setText(f"History of <b>{name}</b>")
        for event in events:
            item = QTreeWidgetItem([titles.get(event.point, event.point), event.what])
            item.setData(0, _ROLE, event.point)
            self.history.addTopLevelItem(item)
        if not events:
            self.history.addTopLevelItem(QTreeWidgetItem(["", "unchanged over every dump"]))

    def _on_item(self, item: QTreeWidgetItem, _column: int = 0) -> None:
        name = item.data(0, _ROLE)
        if name:
            self.instruction_requested.emit(name)


# ============================================================================ traffic


class TrafficPanel(QWidget):
    """Materialized intermediates ranked by traffic; per-op bytes; an overlay switch."""

    instruction_requested = Signal(str)
    overlay_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("traffic")
        self.summary = steady_label(self, lines=2)
        self.overlay = QCheckBox("Show on the graph", self)
        self.overlay.toggled.connect(self.overlay_toggled)
        self.model = RowsModel(["traffic", "bytes", "shape", "producer", "kind", "read by"], self,
                               numeric=(0, 1))
        self.table = _view(self.model, self, "trafficTable", self.instruction_requested.emit)
        row = QHBoxLayout()
        row.addWidget(self.summary, 1)
        row.addWidget(self.overlay)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)
        self.traffic: Traffic | None = None

    def set_traffic(self, traffic: Traffic | None) -> None:
        self.traffic = traffic
        if traffic is None:
            self.summary.setText("")
            self.model.set_rows([])
            return
        counts = ", ".join(f"{k} {v}" for k, v in traffic.fusion_counts.items() if v) or "no fusions"
        self.summary.setText(
            f"<b>{human_bytes(traffic.total_traffic_bytes)}</b> read and written by top-level ops; "
            f"<b>{human_bytes(traffic.intermediate_traffic_bytes)}</b> through "
            f"{len(traffic.intermediates)} intermediates materialized in memory. Fusions: {counts}."
        )
        rows = []
        big = set()
        for i in traffic.intermediates:  # already ranked by traffic
            row = ((human_bytes(i.traffic_bytes), human_bytes(i.bytes), i.shape, i.producer,
                    i.producer_kind, ", ".join(i.consumers)),
                   (i.traffic_bytes, i.bytes, i.shape, i.producer, i.producer_kind,
                    len(i.consumers)),
                   i.producer_instruction)
            rows.append(row)
            if i.bytes >= 64 << 20:
                big.add(id(row))
        self.model.set_rows(rows, big)
        self.table.horizontalHeader().setSortIndicator(0, Qt.SortOrder.DescendingOrder)
        for column, width in enumerate((90, 80, 170, 200, 80)):
            self.table.setColumnWidth(column, width)


# ============================================================================ memory


class MemoryChart(QWidget):
    """Live bytes over the schedule (XLA's accounting and the slices actually
    occupied), the peak marked, and every buffer as a bar placed at its offset
    in memory (like XProf's memory viewer). Click a bar to select its producer."""

    buffer_clicked = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memoryChart")
        self.setMouseTracking(True)
        self.setMinimumHeight(220)
        self.timeline: MemoryTimeline | None = None
        self.selected: str | None = None
        self._bars: list[tuple[QRectF, BufferBar]] = []
        self._hit_order: list[tuple[QRectF, BufferBar]] = []
        self._bases: dict[int | None, int] = {}
        self._total = 1

    def set_timeline(self, timeline: MemoryTimeline | None) -> None:
        self.timeline = timeline
        self._bases = {}
        self._total = 1
        if timeline is not None:
            # Allocations stacked, largest at the bottom: a bar's height is its
            # size, its place the allocation's base plus the value's offset.
            sizes: dict[int | None, int] = dict(timeline.allocation_sizes)
            for bar in timeline.buffers:
                sizes.setdefault(bar.allocation, bar.offset + bar.size)
            used = {bar.allocation for bar in timeline.buffers}
            base = 0
            for allocation, size in sorted(sizes.items(), key=lambda kv: -(kv[1] or 0)):
                if allocation in used:
                    self._bases[allocation] = base
                    base += size or 0
            self._total = max(1, base)
        self.update()

    def select(self, instruction: str | None) -> None:
        self.selected = instruction
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.fillRect(self.rect(), QColor("#ffffff"))
        t = self.timeline
        if t is None or not t.usage:
            painter.setPen(QColor("#868e96"))
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter,
                             "No live-range report for this module (only the after-optimizations "
                             "dump has one).")
            painter.end()
            return
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        margin_l, margin_r, margin_t, margin_b = 84, 12, 16, 22
        w = self.width() - margin_l - margin_r
        h = self.height() - margin_t - margin_b
        curve_h = h * 0.38
        bars_top = margin_t + curve_h + 14
        bars_h = h - curve_h - 14
        steps = len(t.usage)
        top_bytes = max(max(t.usage), max(t.occupied or [0]), 1)

        def x_of(step: float) -> float:
            return margin_l + w * step / max(1, steps)

        # Usage (XLA's accounting) as an area, occupancy as a line.
        area = QPainterPath()
        area.moveTo(x_of(0), margin_t + curve_h)
        for i, value in enumerate(t.usage):
            y = margin_t + curve_h - curve_h * value / top_bytes
            area.lineTo(x_of(i), y)
            area.lineTo(x_of(i + 1), y)
        area.lineTo(x_of(steps), margin_t + curve_h)
        area.closeSubpath()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor(77, 171, 247, 90))
        painter.drawPath(area)
        if t.occupied:
            line = QPainterPath()
            for i, value in enumerate(t.occupied):
                y = margin_t + curve_h - curve_h * value / top_bytes
                (line.moveTo if i == 0 else line.lineTo)(x_of(i), y)
                line.lineTo(x_of(i + 1), y)
            painter.setPen(QPen(QColor("#1864ab"), 1.5))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(line)
        # The peak XLA reports.
        px = x_of(t.peak_time + 0.5)
        painter.setPen(QPen(QColor("#e03131"), 1.2, Qt.PenStyle.DashLine))
        painter.drawLine(QPointF(px, margin_t), QPointF(px, margin_t + h))
        painter.setPen(QColor("#c92a2a"))
        label = f"XLA's peak: {human_bytes(t.peak_bytes)} at step {t.peak_time}"
        label_w = painter.fontMetrics().horizontalAdvance(label)
        lx = px + 4 if px + 4 + label_w < self.width() - margin_r else px - 4 - label_w
        painter.drawText(QPointF(lx, margin_t + 10), label)
        painter.setPen(QColor("#495057"))
        painter.drawText(QRectF(0, margin_t - 6, margin_l - 6, 16), Qt.AlignmentFlag.AlignRight,
                         human_bytes(top_bytes))
        painter.drawText(QRectF(0, margin_t + curve_h - 10, margin_l - 6, 16),
                         Qt.AlignmentFlag.AlignRight, "0")
        painter.drawText(QRectF(0, bars_top, margin_l - 6, 16), Qt.AlignmentFlag.AlignRight,
                         "buffers")
        # Buffers at their offsets.
        total = self._total
        self._bars = []
        for bar in t.buffers:
            if bar.size <= 0:
                continue
            base = self._bases.get(bar.allocation, 0)
            y1 = bars_top + bars_h - bars_h * (base + bar.offset) / total
            height = max(1.0, bars_h * bar.size / total)
            rect = QRectF(x_of(bar.start), y1 - height, max(2.0, x_of(bar.end + 1) - x_of(bar.start)),
                          height)
            self._bars.append((rect, bar))
        # Smallest on top: hits go to the smallest bar under the mouse.
        self._hit_order = sorted(self._bars, key=lambda rb: rb[1].size)
        for rect, bar in self._bars:  # in timeline.buffers' order: largest first
            live_at_peak = bar.start <= t.peak_time <= bar.end
            colour = QColor("#ffa94d" if live_at_peak else "#74c0fc")
            if bar.instruction == self.selected:
                colour = QColor(theme.SELECTION_BORDER)
            painter.setPen(QPen(colour.darker(140), 0.8))
            painter.setBrush(colour)
            painter.drawRect(rect)
        painter.setPen(QColor("#868e96"))
        painter.drawText(QRectF(margin_l, self.height() - margin_b + 4, w, 16),
                         Qt.AlignmentFlag.AlignLeft,
                         f"schedule step 0 … {steps - 1}: area = live values (XLA's count), "
                         "line = memory occupied (shared slices once), orange = live at the peak")
        painter.end()

    def _bar_at(self, pos: QPointF) -> BufferBar | None:
        for rect, bar in self._hit_order:
            if rect.contains(pos):
                return bar
        return None

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        bar = self._bar_at(event.position())
        if bar is not None and self.timeline is not None:
            share = self.timeline.share(bar) if bar.start <= self.timeline.peak_time <= bar.end else 0
            QToolTip.showText(
                event.globalPosition().toPoint(),
                f"{bar.key}  {bar.shape}\n{human_bytes(bar.size)}, allocation {bar.allocation}, "
                f"live {bar.start} … {bar.end}" + (f"\n{share:.1%} of the peak" if share else ""),
                self,
            )

    def mousePressEvent(self, event: QMouseEvent) -> None:
        bar = self._bar_at(event.position())
        if bar is not None:
            self.buffer_clicked.emit(bar.instruction)


class MemoryPanel(QWidget):
    instruction_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("memory")
        self.chart = MemoryChart(self)
        self.chart.buffer_clicked.connect(self.instruction_requested)
        self.peak_model = RowsModel(["buffer", "bytes", "share of peak", "live"], self, numeric=(1, 2, 3))
        self.peak = _view(self.peak_model, self, "peakTable", self.instruction_requested.emit)
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self.chart)
        split.addWidget(self.peak)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        split.setSizes([900, 350])
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(split)

    def set_timeline(self, timeline: MemoryTimeline | None) -> None:
        self.chart.set_timeline(timeline)
        rows = []
        for bar in timeline.peak_buffers if timeline else ():  # largest first
            share = timeline.share(bar)
            rows.append(((bar.key, human_bytes(bar.size), f"{share:.1%}", f"{bar.start} … {bar.end}"),
                         (bar.key, bar.size, share, bar.start), bar.instruction))
        self.peak_model.set_rows(rows)
        self.peak.horizontalHeader().setSortIndicator(1, Qt.SortOrder.DescendingOrder)
        self.peak.setColumnWidth(0, 200)


# ============================================================================ search


class SearchPanel(QWidget):
    instruction_requested = Signal(str)
    query_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("search")
        self.edit = QLineEdit(self)
        self.edit.setObjectName("searchEdit")
        self.edit.setPlaceholderText("Search instructions: name, op:dot, shape:8192, meta:softmax, "
                                     "src:model.py:42")
        self.edit.setClearButtonEnabled(True)
        self.edit.returnPressed.connect(lambda: self.query_changed.emit(self.edit.text()))
        self.count = QLabel(self)
        self.model = RowsModel(["name", "opcode", "shape", "computation", "op_name", "source"], self)
        self.table = _view(self.model, self, "searchResults", self.instruction_requested.emit)
        row = QHBoxLayout()
        row.addWidget(self.edit, 1)
        row.addWidget(self.count)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addLayout(row)
        layout.addWidget(self.table, 1)

    def set_hits(self, hits: list[Hit]) -> None:
        rows = []
        for h in hits:
            texts = (h.name, h.opcode, h.shape, h.computation, h.op_name or "", h.source or "")
            rows.append((texts, texts, h.name))
        self.model.set_rows(rows)
        self.table.resizeColumnsToContents()
        self.count.setText(f"{len(hits)} found" + (" (first 500)" if len(hits) >= 500 else ""))


# ============================================================================ compare


class CompareView(QWidget):
    """Two dumps side by side: fusions, traffic, peak memory, what only one has."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("compare")
        self.title = QLabel(self)
        self.title.setWordWrap(True)
        self.table = _table(["", "left", "right"], self)
        self.table.setObjectName("compareTable")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.title)
        layout.addWidget(self.table, 1)

    def set_comparisons(self, left: str, right: str, results: list[ModuleComparison]) -> None:
        self.title.setText(f"<b>left</b> {left}<br><b>right</b> {right}")
        self.table.setRowCount(0)
        self.table.setHorizontalHeaderLabels(["", "left", "right"])
        if not results:
            self.title.setText(self.title.text() + "<br>No module of the same name in both dumps.")
        for result in results:
            d = result.to_json()
            rows = [(f"■ {result.name}", "", "")]
            for key, label in (("instructions", "instructions"),
                               ("total_traffic_bytes", "traffic (top-level ops)"),
                               ("intermediate_traffic_bytes", "through intermediates"),
                               ("peak_memory_bytes", "peak memory")):
                fmt = str if key == "instructions" else human_bytes
                rows.append((label, fmt(d["left"][key]), fmt(d["right"][key])))
            for kind in d["left"]["fusion_counts"]:
                rows.append((f"{kind} fusions", str(d["left"]["fusion_counts"][kind]),
                             str(d["right"]["fusion_counts"][kind])))
            rows.append(("largest intermediates", "\n".join(d["left"]["largest_intermediates"][:3]) or "–",
                         "\n".join(d["right"]["largest_intermediates"][:3]) or "–"))
            rows.append(("instructions only here", str(len(result.only_left)),
                         str(len(result.only_right))))
            for label, a, b in rows:
                r = self.table.rowCount()
                self.table.insertRow(r)
                for c, value in enumerate((label, a, b)):
                    item = QTableWidgetItem(value)
                    if a != b and c:
                        item.setBackground(QColor("#fff4e6"))
                    self.table.setItem(r, c, item)
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()
