"""Which module a user means when they name none, or name several: the
program's own, not the tiny helper jits frameworks compile on the way
(``jnp.ones`` compiles ``jit_broadcast_in_dim`` before the program's first jit
runs), and of several that one name or id fits (two processes wrote the
folder, a program was compiled twice) the largest.
"""

from __future__ import annotations

from xlaview.dump.contents import estimate_instructions
from xlaview.dump.records import DumpIndex, DumpModule, ModuleLookupError

__all__ = ["JAX_HELPERS", "default_module", "module_size", "pick_module"]

# JAX's own jitted helpers: the private functions of jax/_src it compiles as
# modules of their own (``jit__multi_slice`` from device_put, ``jit__normal``
# from jax.random, ``jit__reduce_sum`` from an eager jnp.sum), as of JAX 0.4 to
# 0.10. A private function of the user's (``jit__full_run``) is not one of them.
_JAX_HELPER_FUNCTIONS = """
    argmax argmin average ball bernoulli beta binom binomial binomial_inversion
    broadcast_arrays btrs call_vectorized cauchy chisquare cho_solve cholesky conv
    cumsum_with_promotion diag dirichlet double_sided_maxwell eigh eigh_work exponential
    f flip gamma gamma_impl gamma_one generalized_normal geometric geomspace gumbel
    identity_fn in1d intersect1d_size intersect1d_sorted_mask laplace linspace logistic
    lognormal logspace lu lu_solve maxwell mean moveaxis multi_slice multivariate_normal
    nanargmax nanargmin normal normal_real normal_complex one_hot orthogonal pad pareto
    philox2x32_fold_in philox2x32_random_bits philox2x32_seed philox2x32_split
    philox4x32_fold_in philox4x32_random_bits philox4x32_seed philox4x32_split piecewise
    pinv poisson poisson_knuth poisson_rejection power ptp qr rademacher randint
    random_bits rayleigh reduce_all reduce_any reduce_bitwise_and reduce_bitwise_or
    reduce_bitwise_xor reduce_logical_and reduce_logical_or reduce_logical_xor
    reduce_max reduce_min reduce_prod reduce_sum reshape resize roll_dynamic roll_static
    scaled_matmul schur searchsorted_compare_all_impl searchsorted_scan_impl
    searchsorted_sort_impl setxor1d_size shuffle solve solve_triangular sqrtm squaring
    squeeze std svd t take threefry2x32 threefry4x32_fold_in threefry4x32_random_bits
    threefry4x32_seed threefry4x32_split threefry_fold_in threefry_random_bits
    threefry_random_bits_original threefry_seed threefry_split threefry_split_foldlike
    threefry_split_original triangular truncated_normal uniform unique_sorted_mask
    unstack var wald weibull_min where
    algorithm_11_1_1 calc_P_Q complex_loggamma_scipy gaussian_kernel_eval
    gen_associated_legendre gen_derivatives hyp1f1_a_derivative hyp1f1_b_derivative
    hyp1f1_x_derivative hyp2f1_a_derivative hyp2f1_b_derivative hyp2f1_c_derivative
    hyp2f1_x_derivative identity map_coordinates outer_loop polar_2d rfft_transpose
    roots_no_zeros roots_with_zeros rsf2csf_2d solve_sylvester_2d sph_harm sqrtm_triu
    squaring_precise stirling_approx_tail svd_tall_and_square_input
"""
JAX_HELPERS = frozenset("jit__" + name for name in _JAX_HELPER_FUNCTIONS.split())


def default_module(index: DumpIndex) -> DumpModule:
    """The main module of the last compiled program: among the modules of the
    newest dump of the folder (every module of a folder several processes
    wrote, their per-process folders included), the program (modules of one
    name) with the most instructions as written (its before-optimizations
    text: optimizations expand some small programs, an RNG's graph past the
    training step that uses it), JAX's own helpers (`JAX_HELPERS`) last; and
    of its modules the compiled one (after optimizations, most passes, the
    largest, the latest).

    Instructions are counted cheaply, as the indented lines of an HLO text,
    never parsed. Raises `ModuleLookupError` for a folder without modules.
    """
    if not index.modules:
        raise ModuleLookupError(f"{index.root}: no XLA module files here")
    candidates = _newest_dump(index.modules)
    if len(candidates) == 1:
        return candidates[0]
    size = {id(m): module_size(m) for m in candidates}
    written = {id(m): _written_size(m) or size[id(m)] for m in candidates}
    programs: dict[str, list[DumpModule]] = {}
    for m in candidates:
        programs.setdefault(m.name or m.ref, []).append(m)
    program = max(
        programs.values(),
        key=lambda ms: (
            (ms[0].name or "") not in JAX_HELPERS,
            max(written[id(m)] for m in ms),
            max(size[id(m)] for m in ms),
            max(m.id for m in ms),
        ),
    )
    return max(
        program,
        key=lambda m: (m.after_optimizations is not None, len(m.passes), size[id(m)], m.id),
    )


def pick_module(index: DumpIndex, key: str | int) -> tuple[DumpModule, str | None]:
    """The module ``key`` names (as :meth:`DumpIndex.module`), and where
    several fit it (an id two processes used, a name compiled twice), the
    largest of them, with a line saying so and how to name each; None
    when one fits. Raises `ModuleLookupError` when none does."""
    try:
        return index.module(key), None
    except ModuleLookupError as err:
        if not err.modules:
            raise
        found = err.modules
    size = {id(m): module_size(m) for m in found}
    chosen = max(
        found,
        key=lambda m: (
            size[id(m)],
            m.after_optimizations is not None,
            len(m.passes),
            _written(m),
            m.ref,
        ),
    )

    def named(m: DumpModule) -> str:
        shown = m.ref if m.name is None or m.name in m.ref else f"{m.ref} {m.name}"
        return f"{shown} ({size[id(m)]:,} instructions)"

    others = ", ".join(named(m) for m in found if m is not chosen)
    note = (
        f"{len(found)} modules match {str(key).strip()!r}: using the largest, {named(chosen)}; "
        f"the other{'s' * (len(found) > 2)}: {others}"
    )
    return chosen, note


def module_size(module: DumpModule) -> int:
    """About how many instructions the module's last HLO text holds (its
    after-optimizations dump, else its last pass dump), 0 without one."""
    points = module.timeline()
    final = module.after_optimizations or (points[-1][1] if points else None)
    return estimate_instructions(final) if final is not None else 0


def _written_size(module: DumpModule) -> int:
    """About how many instructions the module's before-optimizations text holds (0: none)."""
    before = module.before_optimizations
    return estimate_instructions(before) if before is not None else 0


def _written(module: DumpModule) -> int:
    return max((f.mtime_ns for _, f in module.timeline()), default=0)


def _run_of(module: DumpModule) -> str:
    """The dump a module belongs to for the newest-dump rule: its folder, or
    for a per-process folder (``<dump>/<module>/<host>_<pid>``) the one above them."""
    process = module.process
    if process and module.dump.endswith("/" + process):
        parts = module.dump.split("/")
        return "/".join(parts[:-2])
    return module.dump


def _newest_dump(modules: list[DumpModule]) -> list[DumpModule]:
    """The modules of the dump written last, when the folder holds several
    (runs or hosts side by side); all of them otherwise."""
    by_dump: dict[str, list[DumpModule]] = {}
    for m in modules:
        by_dump.setdefault(_run_of(m), []).append(m)
    if len(by_dump) == 1:
        return modules

    def written(dump: str) -> tuple[int, str]:
        return max(_written(m) for m in by_dump[dump]), dump

    return by_dump[max(by_dump, key=written)]
