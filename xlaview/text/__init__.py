"""Syntax highlighting for the texts a dump holds (pure Python, no Qt).

Pygments lexers, registered as the pygments plugins ``hlo`` and ``mlir`` once
xlaview is installed (``pygmentize -l hlo module.txt``):

>>> from xlaview.text import HloLexer
>>> tokens = list(HloLexer().get_tokens_unprocessed(text))
"""

from xlaview.text.lexer import HloLexer
from xlaview.text.mlir import MlirLexer

__all__ = ["HloLexer", "MlirLexer"]
