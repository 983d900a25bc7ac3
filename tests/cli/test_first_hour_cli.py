"""What a newcomer's first hour with the command line tripped on (issue 30):
tables that hid how many rows there are, help texts that disagreed with the README."""

from __future__ import annotations

import re

import pytest
from commands import xlaview

from xlaview.resources import sample_dump, sample_dump_default_flags

SAMPLE = str(sample_dump())
LIMITED = re.compile(r"^top (\d+) of (\d+) (.+) \(--top N for more, --all for every one\)$", re.M)


@pytest.mark.parametrize(
    ("command", "noun"),
    [("cost", "ops"), ("traffic", "intermediates"), ("boundaries", "boundaries")],
)
def test_a_table_says_how_many_rows_it_leaves_out(command: str, noun: str) -> None:
    limited = xlaview(command, SAMPLE, "--top", "3").stdout
    (found,) = [m for m in LIMITED.finditer(limited) if m.group(3) == noun]
    shown, total = int(found.group(1)), int(found.group(2))
    assert shown == 3 and total > 3, found.group(0)
    every = xlaview(command, SAMPLE, "--all").stdout
    assert not [m for m in LIMITED.finditer(every) if m.group(3) == noun], "--all shows them all"
    assert len(every.splitlines()) >= len(limited.splitlines()) + total - shown - 1


def test_the_values_inside_a_library_kernel_say_it_too() -> None:
    out = xlaview("boundaries", str(sample_dump_default_flags()), "--top", "2").stdout
    assert re.search(r"^top 2 of \d+ values inside library kernels", out, re.M), out


@pytest.mark.parametrize("command", ["cost", "traffic", "boundaries", "diff", "export"])
def test_every_module_help_names_the_readmes_default(command: str) -> None:
    text = " ".join(xlaview(command, "--help").stdout.split())
    assert "the program's main module, the one with the most instructions" in text, text
    assert "most passes" not in text


def test_a_pass_is_named_by_its_name_and_diff_leads_with_instructions() -> None:
    out = xlaview("diff", SAMPLE, "--from", "before", "--to", "fusion").stdout.splitlines()
    assert out[0].startswith("module_0000 jit_attention: before -> fusion:"), out[0]
    assert out[1].startswith("  ~ ") or out[1].startswith("  + main"), out[1]
    computations = [line for line in out if "computation" in line]
    assert len(computations) == 1 and "computations added:" in computations[0], computations
    assert computations[0].endswith("... and 1 more"), "a long list is cut, saying how much"
    once = xlaview("diff", SAMPLE, "--from", "before", "--to", "algsimp", check=False)
    assert once.returncode == 2 and "ran 3 times" in once.stderr, once.stderr
    assert "give the sequence number" in once.stderr


def test_summary_lists_the_passes_in_order_as_the_readme_says() -> None:
    out = xlaview("summary", SAMPLE).stdout
    assert "module_0000 jit_attention: 40 points in order" in out, out
    listed = out.split("points in order", 1)[1].splitlines()
    keys = [line.split()[0] for line in listed[3:] if line.strip()]
    assert (
        keys[0] == "before" and keys[-1] == "after" and keys[1:-1] == [str(k) for k in range(38)]
    ), keys
    assert "fusion" in out and "copy-insertion" in out
    wrong = xlaview("summary", SAMPLE, "--module", "nope", check=False)
    assert wrong.returncode == 2 and len(wrong.stderr.strip().splitlines()) == 1, wrong.stderr


def test_a_cpu_dump_names_its_memory_ram() -> None:
    after = next(sample_dump().glob("*cpu_after_optimizations.txt"))
    out = xlaview("inspect", str(after), "-i", "convert_exponential_fusion").stdout
    assert "layout: row-major, RAM" in out and "device memory" not in out, out
