"""A pygments lexer for MLIR, enough for the StableHLO modules JAX writes into dumps.

Registered as the pygments plugin ``mlir`` (``pygmentize -l mlir module.mlir``).

Token types follow the HLO lexer's where the ideas match: SSA values and block
labels are Name.Variable, symbols (``@main``) Name.Function, dialect operations
(``stablehlo.add``, ``func.return``) Name.Builtin, types Keyword.Type, attribute
aliases and dialect attributes (``#loc3``, ``#sdy.sharding``) Name.Decorator,
attribute names before ``=`` Name.Attribute, enum values (``DEFAULT``) Name.Constant.
"""

from __future__ import annotations

from typing import ClassVar

from pygments.lexer import RegexLexer, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from xlaview.text.lexer import STRING

__all__ = ["MlirLexer"]

# MLIR identifiers may hold '$', '.' and '-' after the first character.
IDENTIFIER = r"[A-Za-z_][\w$.-]*"
SUFFIX = r"[\w$.-]+"
# Builtin scalar types: i1, si32, ui8, f32, bf16, tf32, the f8/f6/f4 families, index.
BUILTIN_TYPE = r"(?:[su]?i\d+|bf16|tf32|f\d+(?:E\d+M\d+\w*)?|index|none)(?![\w$.-])"
# Types that take parameters in angle brackets, which may nest (``tensor<4xcomplex<f32>>``).
PARAMETRIC_TYPES = ("tensor", "memref", "vector", "complex", "tuple")


class MlirLexer(RegexLexer):  # type: ignore[misc]  # pygments has no type stubs: RegexLexer is Any
    """MLIR text: StableHLO, func, sdy and the other dialects found in XLA dumps."""

    name = "MLIR"
    aliases: ClassVar[list[str]] = ["mlir"]
    filenames: ClassVar[list[str]] = ["*.mlir"]
    mimetypes: ClassVar[list[str]] = ["text/x-mlir"]
    url = "https://mlir.llvm.org/docs/LangRef/"

    tokens: ClassVar[dict[str, list[tuple[object, ...]]]] = {
        "root": [
            (r"\s+", Whitespace),
            (r"//.*?$", Comment.Single),
            # ``%0``, ``%arg0``, and one result of a multi-result op: ``%0#1``.
            (rf"%{SUFFIX}(?:#\d+)?", Name.Variable),
            (rf"\^{SUFFIX}", Name.Variable),
            (rf"@{SUFFIX}|@{STRING}", Name.Function),
            (rf"#{SUFFIX}", Name.Decorator),
            (rf"!{SUFFIX}", Keyword.Type),
            (words(PARAMETRIC_TYPES, suffix="<"), Keyword.Type, "type"),
            # An operation in generic form, ``"stablehlo.add"(%a, %b)``; a ``loc("name"(#loc))``
            # string is preceded by '(' and stays a string.
            (rf'(?<!\()"{IDENTIFIER}"(?=\()', Name.Builtin),
            (STRING, String),
            (rf"{IDENTIFIER}(?=\s*=(?!=))", Name.Attribute),
            # Dialect operations are the only dotted bare words left: ``stablehlo.dot_general``.
            (r"[a-z_][\w$]*\.[\w$.]+", Name.Builtin),
            (
                words(
                    (
                        "module",
                        "func",
                        "return",
                        "call",
                        "attributes",
                        "loc",
                        "public",
                        "private",
                        "nested",
                        "applies",
                        "across",
                        "init",
                        "callsite",
                        "fused",
                        "unknown",
                        "at",
                        "to",
                        "step",
                        "iter_args",
                        "cond",
                        "do",
                        "dense",
                        "dense_resource",
                        "array",
                        "affine_map",
                        "sparse",
                        "distinct",
                    ),
                    suffix=r"(?![\w$.-])",
                ),
                Keyword,
            ),
            (BUILTIN_TYPE, Keyword.Type),
            (r"(?:true|false|unit)(?![\w$.-])", Keyword.Constant),
            (r"[A-Z][A-Z0-9_]*(?![\w$.-])", Name.Constant),
            (r"0x[0-9A-Fa-f]+|-?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?", Number),
            (r"->|=|[-+*]", Operator),
            (r"[()\[\]{}<>,:;?|.]", Punctuation),
            (IDENTIFIER, Name),
        ],
        # Inside ``tensor<...>``: shape and element type, one token per run.
        "type": [
            (r"[^<>\n]+", Keyword.Type),
            (r"<", Keyword.Type, "#push"),
            (r">", Keyword.Type, "#pop"),
        ],
    }
