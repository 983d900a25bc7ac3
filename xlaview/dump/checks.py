"""Quick checks that find broken files of a dump without parsing them: a few
bytes at each end of each file."""

from __future__ import annotations

from xlaview.dump.files import DumpReadError, read_head_tail
from xlaview.dump.naming import routinely_empty
from xlaview.dump.records import DumpFile, DumpIndex
from xlaview.errors import Problem

_SNIFF_HEAD = 4096
_SNIFF_TAIL = 256


def sniff(index: DumpIndex) -> list[Problem]:
    """Broken HLO and report files, found from a few bytes at each end of each
    file: binary data, and HLO text cut short (it always ends with ``}``)."""
    problems: list[Problem] = []
    for module in index.modules:
        hlo_files = [(f, True) for _, f in module.timeline()]  # stages included
        reports = [(f, False) for _, f in module.reports.items() if f]
        for f, is_hlo in hlo_files + reports:
            if f.size == 0:
                continue  # reported by the index
            try:
                head, tail = read_head_tail(f.path, _SNIFF_HEAD, _SNIFF_TAIL)
            except DumpReadError as err:
                problems.append(Problem(f.rel, err.message, err.line))
                continue
            if b"\0" in head or b"\0" in tail:
                problems.append(Problem(f.rel, "binary data, not a text dump"))
            elif is_hlo and not tail.rstrip().endswith(b"}"):
                problems.append(Problem(f.rel, "HLO text cut short: it does not end with '}'"))
    return problems


def empty_files(index: DumpIndex) -> list[tuple[DumpFile, str]]:
    """The files of the index's modules that XLA writes empty as a matter of
    course (TPU ``sdc_metadata.txt``, the PTX of a module of library calls only),
    each with why: listed as empty, not as problems (`naming.routinely_empty`)."""
    found = []
    for module in index.modules:
        for f in module.other_files:
            if f.size == 0 and (why := routinely_empty(f.name)) is not None:
                found.append((f, why))
    return found
