"""The validation rows' steps kept per process (``step_validation._KEPT_STEPS``): a what-if of
``mfu_validation`` (``physics``, ``moe_host``) reuses the step of a row whose engine inputs it
leaves unchanged (``step_validation._engine_inputs``). Checked against the full computation:
every table of the variants the report's notebooks price (notebook 04b's mechanism, CP-overlap
and straggler comparisons, with their MoE host-cost re-fits; the pilot validation's series) is
the same, value for value and type for type, priced with every step computed afresh."""

import pickle

import pandas as pd
import pytest

from llmcost.core import diskcache
from llmcost.core.catalog import load_accelerator
from llmcost.core.hardware import Cluster
from llmcost.core.stacks import StackFeatureWarning
from llmcost.training import accuracy, pilot_validation, step_validation as sv
from llmcost.training.step_validation import row_model, row_options, row_plan


@pytest.fixture
def no_disk_cache(monkeypatch):
    """Every table computed in this process (``LLMCOST_CACHE_DIR=off``), from no kept step."""
    monkeypatch.setenv("LLMCOST_CACHE_DIR", "off")
    monkeypatch.setattr(sv, "_KEPT_STEPS", {})
    # and no table an earlier test in this process kept in memory (their lru_caches): each
    # variant is computed here, whatever ran before on this worker
    accuracy.validation_table.cache_clear()
    accuracy.fa1_length_table.cache_clear()


def _report_variants(monkeypatch) -> tuple:
    """The ``(args, kwargs)`` of every table (``step_validation._validation_table``: the whole
    tables of ``mfu_validation``, the calibration rows of the MoE host-cost re-fits) and the
    ``physics`` of every re-fit (``calibrate_moe_host_overhead``) of the comparisons notebook
    04b (and 04) show and of the pilot validation's series, computed as the report computes
    them (the kept steps shared between the variants)."""
    calls, fits = [], []
    table, refit = sv._validation_table, sv.calibrate_moe_host_overhead

    def recording(*args, **kwargs):
        calls.append((args, kwargs))
        return table(*args, **kwargs)

    def recording_fit(*args, **kwargs):
        fits.append((args, kwargs))
        return refit(*args, **kwargs)

    monkeypatch.setattr(sv, "_validation_table", recording)
    monkeypatch.setattr(sv, "calibrate_moe_host_overhead", recording_fit)
    accuracy.mechanism_comparison.uncached()
    accuracy.cp_overlap_comparison.uncached()
    accuracy.straggler_comparison.uncached()
    pilot_validation.series_table()
    monkeypatch.setattr(sv, "_validation_table", table)
    monkeypatch.setattr(sv, "calibrate_moe_host_overhead", refit)
    return calls, fits


def test_every_report_variant_equals_its_full_computation(no_disk_cache, monkeypatch):
    calls, fits = _report_variants(monkeypatch)
    # the shipped table, the mechanisms off / alone / together with their MoE host re-fits,
    # the CP overlap off, the straggler wait off, and the re-fits' own tables (3 each)
    assert len(calls) >= 25 and len(fits) >= 6
    assert len(sv._KEPT_STEPS) > 0
    kept = [sv._validation_table(*a, **k) for a, k in calls]
    refits = [sv.calibrate_moe_host_overhead.uncached(*a, **k) for a, k in fits]
    monkeypatch.setattr(sv, "_engine_inputs", lambda *args: None)  # every step priced afresh
    for (args, kwargs), fast in zip(calls, kept):
        full = sv._validation_table(*args, **kwargs)
        pd.testing.assert_frame_equal(fast, full, check_exact=True)
        assert pickle.dumps(fast) == pickle.dumps(full), (args, kwargs)
    # a re-fit prices its calibration rows only: the constants are those fitted on the
    # whole tables, bit for bit
    table = sv._validation_table
    monkeypatch.setattr(sv, "_validation_table", lambda sets, physics=None, ke=None, mh=None,
                        rows=None: table(sets, physics, ke, mh))
    for (args, kwargs), fast in zip(fits, refits):
        full = sv.calibrate_moe_host_overhead.uncached(*args, **kwargs)
        assert pickle.dumps(fast) == pickle.dumps(full), (args, kwargs)


def _row(run_id: str):
    cfg = sv.validation_configs().set_index("run_id", drop=False)
    runs = sv.load_published_runs().set_index("run_id")
    c, r = cfg.loc[run_id], runs.loc[run_id]
    s = int(r["seq_len"])
    model = row_model(c, r, s)
    return (model, Cluster(load_accelerator(r["catalog_accelerator"]), int(r["n_accelerators"])),
            row_plan(c, r, model, s), s, row_options(c))


def test_engine_inputs_leave_out_only_what_the_engine_does_not_read():
    # a dense BF16 row (Narayanan et al. 2021 Table 1, 1.7B on 32 A100s): an FP8 mechanism
    # resolves to the same engine inputs (fp8_as_run only changes an FP8 row's LM head, router
    # and casts: StepOptions.resolve), and so do the MoE layer's host costs (a dense model has
    # no MoE layer) and the GEMM shape term (no kernel table for Ampere: gemm.gemm_shape is
    # None, the flat matmul_fraction with or without it)
    model, cluster, plan, s, opts = _row("megatron21-t1-1p7b")
    assert not model.is_moe and opts.dtype == "bf16"
    key = sv._engine_inputs(model, cluster, plan, s, opts)
    assert sv._engine_inputs(model, cluster, plan, s, opts.replace(fp8_as_run=False)) == key
    assert sv._engine_inputs(model, cluster, plan, s, opts.replace(
        moe_layer_host_s=1e-3, moe_expert_host_s=2e-4)) == key
    assert sv._engine_inputs(model, cluster, plan, s, opts.replace(gemm_shape=False)) == key
    # on the H100 (torchtitan's Llama 3 8B on 8 GPUs) the shape term is priced: another key
    model, cluster, plan, s, opts = _row("torchtitan-h100-8b-8gpu-1-fsdp-compile")
    assert sv._engine_inputs(model, cluster, plan, s, opts.replace(gemm_shape=False)) \
        != sv._engine_inputs(model, cluster, plan, s, opts)
    # an MoE row keeps its host costs in its key
    moe = sv.validation_configs().query("set == 'deepseek-v3-h800'")["run_id"].iloc[0]
    model, cluster, plan, s, opts = _row(moe)
    assert model.is_moe
    assert sv._engine_inputs(model, cluster, plan, s, opts.replace(moe_expert_host_s=2e-4)) \
        != sv._engine_inputs(model, cluster, plan, s, opts)


def test_a_kept_step_is_the_step_and_a_warning_step_is_not_kept(monkeypatch):
    store = {}
    model, cluster, plan, s, opts = _row("megatron21-t1-1p7b")

    def step(o):
        return lambda: sv.step_time(model, cluster, plan, s, options=o)

    key = sv._engine_inputs(model, cluster, plan, s, opts)
    b = diskcache.kept_if_quiet(store, key, step(opts))
    assert b == step(opts)() and list(store) == [key]
    other = opts.replace(fp8_as_run=False)  # the same engine inputs: the kept step
    assert diskcache.kept_if_quiet(store, sv._engine_inputs(model, cluster, plan, s, other),
                                   step(other)) is b
    # Llama 3's 405B on 16K H100s (Table 4): Meta's stack is not profiled, and the default
    # profile (megatron-core-2024) has no ZeRO-2 path, so step_time refuses it unless asked to
    # price it (missing_features="price", as mfu_validation does for every published run) and
    # then warns (StackFeatureWarning; mfu_validation hides it for such a row): priced again
    # under the caller's filters, its warning shown, nothing kept
    model, cluster, plan, s, opts = _row("llama3-405b")
    assert opts.stack is None and plan.zero_stage == 2
    with pytest.raises(ValueError, match="no ZeRO-2 path"):
        step(opts)()
    opts = opts.replace(missing_features="price")
    with pytest.warns(StackFeatureWarning, match="no ZeRO-2 path"):
        diskcache.kept_if_quiet(store, sv._engine_inputs(model, cluster, plan, s, opts),
                                step(opts))
    assert len(store) == 1
