"""What a module is called: the framework's name for the program, from the
HLO module name (`xlaview.dump.module_names.display_name`)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from xlaview.dump.module_names import display_name
from xlaview.dump.naming import parse_file_name

# TensorFlow's tf.function(jit_compile=True): the Python function's name shows.
TF_FUNCTIONS = {
    "a_inference_step_90__XlaMustCompile_true_config_proto_13561319589895757934"
    "_executor_type_11160318154034397263_.5": "step",
    "a_inference_train_step_1234__XlaMustCompile_true_config_proto_6_executor_type_7_.1017": (
        "train_step"
    ),
    "a_inference_layer_2_41__XlaMustCompile_true_config_proto_1_executor_type_2_.8": "layer_2",
    "a_inference___call___87__XlaMustCompile_true_config_proto_1_executor_type_2_.30": "__call__",
    "__inference_f_12.3": "f",
    "a_inference_f_12": "f",
}
# Names that show as they are: TF clusters, JAX, PyTorch/XLA, hand-written.
AS_THEY_ARE = [
    "cluster_0__XlaCompiledKernel_true__XlaNumConstantArgs_0__XlaNumResourceArgs_0_.65",
    "jit_f",
    "jit__normal",
    "pjit__wrapped_step_fn",
    "SyncTensorsGraph.105381",
    "IrToHlo.3979",
    "a_inference_without_a_number",
    "test",
]


@pytest.mark.parametrize(("name", "shown"), TF_FUNCTIONS.items())
def test_a_tensorflow_function_shows_as_its_python_function(name: str, shown: str) -> None:
    assert display_name(name) == shown


@pytest.mark.parametrize("name", AS_THEY_ARE)
def test_other_frameworks_names_show_as_they_are(name: str) -> None:
    assert display_name(name) == name


def test_no_name_is_no_name() -> None:
    assert display_name(None) is None and display_name("") == ""


def test_real_names_of_the_corpus(corpus: Path) -> None:
    """Every module name of the corpus' dumps (file names, MANIFEST.tsv) and
    every HloModule line of its real dumps: JAX's and TF clusters' names, which
    show as they are."""
    names: set[str] = set()
    with open(corpus / "MANIFEST.tsv", encoding="utf-8") as f:
        for row in csv.DictReader(f, delimiter="\t"):
            parsed = parse_file_name(row["local_path"].rsplit("/", 1)[-1])
            if parsed is not None and parsed.module_name:
                names.add(parsed.module_name)
            if row["local_path"].startswith("real_dumps/") and row["kind"] == "hlo-module":
                head = (corpus / row["local_path"]).read_text(errors="replace")[:2000]
                m = re.search(r"HloModule\s+([^\s,]+)", head)
                if m:
                    names.add(m.group(1))
    assert any(n.startswith("jit_") for n in names)
    assert any(n.startswith("cluster_") for n in names), "TF's 2020 dumps name clusters"
    tf_functions = {n for n in names if "inference_" in n}
    for name in names - tf_functions:
        assert display_name(name) == name
    for name in tf_functions:
        shown = display_name(name)
        assert shown and "XlaMustCompile" not in shown and not shown.endswith(".")
