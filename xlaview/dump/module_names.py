"""What to call a module: the name its framework gave the program, not the
HLO module name XLA was handed (which `DumpModule.name` keeps).
"""

from __future__ import annotations

import re

# TensorFlow's ``tf.function(jit_compile=True)``: the graph function
# ``__inference_<fn>_<n>`` (the leading underscore made ``a`` where a name may
# not start with one), its attributes appended (``__XlaMustCompile_true_
# config_proto_..._executor_type_..._``) and XLA's ``.<id>`` after.
_TF_FUNCTION = re.compile(r"(?:a_|__)inference_(?P<fn>.+?)_\d+(?:__[A-Za-z].*?)?_?(?:\.\d+)?", re.S)


def display_name(name: str | None) -> str | None:
    """The name a user knows a module by, from its HLO module name (None: none).

    The frameworks name their modules so (``name`` -> what shows):

    - TensorFlow, ``tf.function(jit_compile=True)``:
      ``a_inference_<fn>_<n>__XlaMustCompile_true_config_proto_<hash>_executor_type_<hash>_.<id>``
      (or ``__inference_<fn>_<n>...``) -> ``<fn>``, the Python function:
      ``a_inference_step_90__XlaMustCompile_true_config_proto_1356..._executor_type_1116..._.5``
      -> ``step``;
    - TensorFlow auto-clustering and ``XlaCompiledKernel``s:
      ``cluster_<n>__XlaCompiledKernel_true__XlaNumConstantArgs_<k>__XlaNumResourceArgs_<r>_.<id>``,
      as it is (a cluster has no function name to show; its number tells clusters apart);
    - JAX: ``jit_<fn>``, ``pjit_<fn>`` (``jit__normal``, ``jit_train_step``), as it is;
    - PyTorch/XLA: ``SyncTensorsGraph.<n>``, ``IrToHlo.<n>``, as it is;
    - anything else (hand-written tests, other frameworks), as it is.
    """
    if not name:
        return name
    m = _TF_FUNCTION.fullmatch(name)
    if m is not None:
        return m.group("fn")
    return name
