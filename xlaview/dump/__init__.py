"""Dump folders (``--xla_dump_to``), pure Python, no Qt.

- `naming`: the names XLA gives a dump's files; `index` builds the index of a
  folder from them (`records`: its files, modules and pass dumps; `points`: a
  module's timeline; `contents`: what the first few KB of a text say where
  names say nothing; `main_module`: the module a user means by none or by
  several; `processes`: which process wrote which files where several wrote
  one folder);
- `files`: the one way every reader opens a file (regular files only, never
  blocking, size-capped); `checks`: broken files found without parsing them;
- `modules`: HLO modules parsed once and kept within a memory budget;
- `readers/`: the memory reports XLA writes beside the final dump, one reader
  each; `reports`: a module's reports read together and joined;
- `kernels`: the other levels of a module (StableHLO, LLVM IR, PTX);
- `module_names`: what to call a module (its framework's name for it).

Modules of this room import each other directly, never this facade.
"""

from xlaview.dump.files import DumpReadError
from xlaview.dump.index import index_dump, index_file
from xlaview.dump.modules import LoadedModule, ModuleCache, load_module
from xlaview.dump.naming import DumpFileName, FileKind, parse_file_name
from xlaview.dump.records import DumpFile, DumpIndex, DumpModule, PassDump
from xlaview.dump.reports import ModuleReports, load_reports
from xlaview.errors import Problem

__all__ = [
    "DumpFile", "DumpFileName", "DumpIndex", "DumpModule", "DumpReadError", "FileKind",
    "LoadedModule", "ModuleCache", "ModuleReports", "PassDump", "Problem", "index_dump",
    "index_file", "load_module", "load_reports", "parse_file_name",
]  # fmt: skip
