"""HLO text -> `xlaview.hlo.Module`.

`driver` parses a module: each computation printed as XLA prints it is parsed
in bulk (`printed`; small ones a run at a time, `runs`), anything else token by
token with error recovery (`tolerant`); a computation's parse is shared
(`parsed`), kept within a budget (`store`) and reused from the pass before
(`reuse`); `names` invents names as XLA's uniquifier does (for instructions
nested in operand lists), `inference` the shapes a text leaves out, as XLA's
parser infers them. Modules of this room import each other directly.
"""

from __future__ import annotations

from xlaview.hlo.parse.driver import ParseResult, parse_module, parse_module_tolerant
from xlaview.hlo.parse.store import ComputationStore

__all__ = ["ComputationStore", "ParseResult", "parse_module", "parse_module_tolerant"]
