"""Our parser against XLA's own, on real dumps and on the peer corpus.

For every text XLA accepts, every computation, instruction name, opcode and
operand list must be XLA's; for every text it rejects, we either parse or raise
`HloSyntaxError` with a line, never anything else.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from oracle import corpus_hlo_texts, differences, parse_with_xla

from xlaview.hlo import HloSyntaxError, parse_module

REPORT_SUFFIXES = ("-buffer-assignment", "-live-range", "-memory-usage-report")


def hlo_texts_of(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.txt") if not any(s in p.name for s in REPORT_SUFFIXES))


def read(path: Path) -> str:
    return path.read_text(encoding="utf-8", errors="surrogateescape")


def compare(paths: list[Path]) -> tuple[dict[str, list[str]], dict[str, dict]]:
    """(mismatches by file, XLA's results by file)."""
    xla = parse_with_xla(str(p) for p in paths)
    mismatches: dict[str, list[str]] = {}
    for path in paths:
        result = xla[str(path)]
        try:
            module = parse_module(read(path))
        except HloSyntaxError as err:
            if result["ok"]:
                mismatches[path.name] = [f"we reject a text XLA accepts: {err}"]
            else:
                assert isinstance(err.line, int) and err.line >= 1, path
            continue
        if result["ok"]:
            problems = differences(module, result)
            if problems:
                mismatches[path.name] = problems
    return mismatches, xla


@pytest.mark.slow
@pytest.mark.parametrize("program", ["attention", "mlp_grad", "scan", "cond", "conv", "spmd"])
def test_every_pass_file_matches_xla(zoo: dict[str, Path], program: str) -> None:
    paths = hlo_texts_of(zoo[program])
    assert len(paths) > 10, f"{program}: expected a dump of every pass, got {len(paths)} files"
    mismatches, xla = compare(paths)
    assert all(r["ok"] for r in xla.values()), "XLA rejects its own dump?"
    assert not mismatches, "\n".join(f"{f}: {p}" for f, ps in mismatches.items() for p in ps[:3])


@pytest.mark.slow
def test_peer_corpus_parses_like_xla(corpus: Path) -> None:
    paths = corpus_hlo_texts(corpus)
    assert len(paths) > 700
    mismatches, xla = compare(paths)
    accepted = sum(r["ok"] for r in xla.values())
    assert accepted > 500, f"XLA accepted only {accepted} texts: is jax broken?"
    assert not mismatches, "\n".join(f"{f}: {p}" for f, ps in mismatches.items() for p in ps[:3])


@pytest.mark.slow
def test_texts_that_crash_xla_are_reported_not_fatal(corpus: Path) -> None:
    """XLA CHECK-fails on a bad mesh axis name (parser test 210); we never do."""
    text = read(corpus / "parser_tests" / "210.hlo")
    xla = parse_with_xla([str(corpus / "parser_tests" / "210.hlo")])
    assert xla[str(corpus / "parser_tests" / "210.hlo")].get("crashed"), "XLA no longer aborts"
    try:
        module = parse_module(text)
    except HloSyntaxError as err:
        assert err.line >= 1
    else:
        assert module.computations
