"""Dump folders (``--xla_dump_to``): file names, the module index, the memory
reports, and reading files (pure Python, no Qt)."""

from xlaview.dump.index import (
    DumpFile,
    DumpIndex,
    DumpModule,
    PassDump,
    Problem,
    index_dump,
    index_file,
)
from xlaview.dump.loader import (
    DumpReadError,
    LoadedModule,
    ModuleCache,
    ModuleReports,
    load_module,
    load_reports,
)
from xlaview.dump.naming import DumpFileName, FileKind, parse_file_name

__all__ = [
    "DumpFile", "DumpFileName", "DumpIndex", "DumpModule", "DumpReadError", "FileKind",
    "LoadedModule", "ModuleCache", "ModuleReports", "PassDump", "Problem", "index_dump",
    "index_file", "load_module", "load_reports", "parse_file_name",
]  # fmt: skip
