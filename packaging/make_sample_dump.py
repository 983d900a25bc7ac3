"""Regenerate the real dump bundled with xlaview (what ``xlaview`` opens with no argument).

The seed scenario: an attention block ``softmax(x@wq @ (x@wk).T) @ x`` at
sequence length 8192 in bf16, compiled (not run) by XLA for CPU with every pass
dumped. ``--xla_cpu_experimental_ynn_fusion_type=`` keeps XLA from fusing the
whole block into one custom fusion, so the [8192,8192] score matrix is
materialized between fusions: the case the tool exists to show.

    python packaging/make_sample_dump.py            # writes xlaview/resources/sample/
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SAMPLE = REPO / "xlaview" / "resources" / "sample"

PROGRAM = """
import jax, jax.numpy as jnp

def attention(x, wq, wk):
    scores = (x @ wq) @ (x @ wk).T
    return jax.nn.softmax(scores, axis=-1) @ x

seq, d = 8192, 64
spec = jax.ShapeDtypeStruct
jax.jit(attention).lower(
    spec((seq, d), jnp.bfloat16), spec((d, d), jnp.bfloat16), spec((d, d), jnp.bfloat16)
).compile()
"""

VARIANTS = {
    # folder: extra XLA flags
    "attention_cpu": "--xla_cpu_experimental_ynn_fusion_type=",
    "attention_cpu_default_flags": "",
}


def generate(out: Path, extra_flags: str) -> None:
    # The dump records the program's absolute path: make it a readable one.
    tmp = Path(tempfile.gettempdir()) / "xlaview-sample"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        script = tmp / "attention.py"
        script.write_text(PROGRAM)
        dump = tmp / "dump"
        env = {
            **os.environ,
            "JAX_PLATFORMS": "cpu",
            "XLA_FLAGS": f"--xla_dump_to={dump} --xla_dump_hlo_pass_re=.* {extra_flags}".strip(),
        }
        subprocess.run([sys.executable, str(script)], env=env, check=True, cwd=tmp)
        if out.exists():
            shutil.rmtree(out)
        shutil.copytree(dump, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--out", type=Path, default=SAMPLE)
    args = ap.parse_args()
    for folder, flags in VARIANTS.items():
        generate(args.out / folder, flags)
        files = list((args.out / folder).rglob("*"))
        print(f"{args.out / folder}: {len(files)} files")


if __name__ == "__main__":
    main()
