"""What a tenth new-user trial (helper trialB's share) found in the plan search's refusals and
advice, the names of models read from a config.json and the catalogue's suggestions, each
checked against a hand derivation or the source it cites."""

from __future__ import annotations

import math
import re
import warnings

import pytest
from _cli import scenario_refusal

import llmcost
from llmcost import stacks
from llmcost.training import parallel, step

#: The trial's scenario (/tmp/trial1/odd/nofit_tp.yaml): Llama 3.1 70B on A100-40GB with tp 1
#: and pp 1 fixed; the default stack (megatron-core-2024) and batch (512 sequences of 8,192).
NOFIT_TP = ("train_tokens: 1e12\nseq_len: 8192\nn_gpus: {n}\nmodel: llama-3.1-70b\n"
            "accelerator: A100-40GB\nmfu: 0.4\n")


def _refusal(tmp_path, text: str) -> str:
    return scenario_refusal(tmp_path, text)


def test_fixed_tp_and_pp_that_never_fit_are_named_as_the_cause(tmp_path):
    # The trial: with tp: 1, pp: 1 fixed the refusal advised "use more GPUs" at 64 GPUs (176 GB
    # needed) and at 512 (161 GB), and "use 512 GPUs" at 4,096. By hand: Llama 3.1 70B has
    # 70,553,706,496 parameters (the released safetensors, data/models.csv), 2 bytes each in
    # BF16 = 141.1 GB of weights; the default stack megatron-core-2024 has ZeRO stages 0-1
    # (data/stacks.csv: DDP and the distributed optimizer), none of which shards the weights over data parallelism (Rajbhandari
    # et al. 2020, ZeRO §5), so at tp·pp = 1 every GPU holds all 141.1 GB, against
    # 42,949,672,960 B × (1 − 0.10 reserve) = 38.7 GB usable on an A100-40GB: no GPU count fits.
    # The batch, 4,194,304 tokens = 512 sequences of 8,192, splits over at most dp = 512.
    weights, usable = 70_553_706_496 * 2, 42_949_672_960 * 0.9
    assert weights / 1e9 == pytest.approx(141.1, abs=0.05) and usable / 1e9 == pytest.approx(
        38.65, abs=0.01)
    msg = _refusal(tmp_path, NOFIT_TP.format(n=64) + "tp: 1\npp: 1\n")
    assert "the fixed tp: 1, pp: 1 are the cause: more GPUs do not help (even 512 GPUs" in msg
    assert "the stack megatron-core-2024 has no ZeRO-3 to shard the weights" in msg
    need = float(re.search(r"even 512 GPUs, [^:]*, need ([0-9,]+) GB per GPU", msg)[1])
    # ZeRO-1 (Megatron's distributed optimizer, NVIDIA/Megatron-LM dist_optimizer.md: 6 + 12/d
    # bytes per parameter with bf16 parameters and fp32 gradients) keeps the BF16 weights and
    # the FP32 gradients whole: 70.55e9 x 6 = 423.3 GB, plus 12/512 B of optimizer shard and
    # the activations
    assert 3 * weights / 1e9 <= need < 3.5 * weights / 1e9
    # what fits: the smallest tp·pp must at least split the weights below the usable memory,
    # 141.1 / 38.65 = 3.65 → 4, and the plan it names must then fit (no refusal)
    k, t, q = map(int, re.search(r"tp·pp = (\d+) fits on these 64 GPUs \(tp: (\d+), pp: (\d+)",
                                 msg).groups())
    assert k == t * q >= math.ceil(weights / usable) == 4
    from llmcost.present.report import estimate_ledger
    for fixed in (f"tp: {t}\npp: {q}\n", ""):   # the named tp·pp, and tp and pp left free
        path = tmp_path / "fits.yaml"
        path.write_text(NOFIT_TP.format(n=64) + fixed)
        assert estimate_ledger(path).total_usd > 0
    assert "use more GPUs" not in msg
    # at 512 GPUs, the most the batch splits over, it says so instead of quoting itself
    msg = _refusal(tmp_path, NOFIT_TP.format(n=512) + "tp: 1\npp: 1\n")
    assert "the batch splits over no more than these 512 GPUs with them" in msg
    assert "use more GPUs" not in msg
    # at 4,096 GPUs the count does not split (dp ≤ 512); the counts it names do not fit either
    msg = _refusal(tmp_path, NOFIT_TP.format(n=4096) + "tp: 1\npp: 1\n")
    assert "use 512 GPUs" in msg
    assert ("but with the fixed tp: 1, pp: 1 no plan fits on any GPU count the batch splits "
            "over: on 512 GPUs") in msg
    assert "leave tp and pp free (0) or fix a larger tp·pp" in msg


def test_a_fixed_recompute_that_keeps_plans_from_fitting_is_named(tmp_path):
    # The same run with tp and pp free fits on 64 A100-40GB (the test above); fixing
    # recompute: none keeps every plan's activations, and the refusal names that field as the
    # cause and the plan the search finds with it free (which fits: the scenario without it is
    # priced), instead of "use more GPUs"
    from llmcost.present.report import estimate_ledger
    msg = _refusal(tmp_path, NOFIT_TP.format(n=64) + "recompute: none\n")
    assert "the fixed recompute: none is the cause: with recompute left free, the search " \
        "finds " in msg and "use more GPUs" not in msg
    path = tmp_path / "free.yaml"
    path.write_text(NOFIT_TP.format(n=64))
    assert estimate_ledger(path).total_usd > 0


def test_a_misfit_with_nothing_fixed_still_advises_more_gpus(tmp_path):
    # Llama 3.1 405B on 8 H100s, nothing fixed: 405e9 × 2 bytes = 810 GB of BF16 weights over 8
    # GPUs is 101 GB each, more than 85,899,345,920 B (80 GiB) × 0.9 = 77.3 GB usable, whatever
    # the plan; more GPUs are the remedy, and no fixed field is blamed
    assert 405e9 * 2 / 8 > 85_899_345_920 * 0.9
    msg = _refusal(tmp_path, "train_tokens: 1e12\nseq_len: 8192\nn_gpus: 8\nmodel: "
                             "llama-3.1-405b\naccelerator: H100-SXM\nmfu: 0.4\n")
    assert "use more GPUs" in msg and "are the cause" not in msg


def test_megatron_stacks_keep_tp_to_a_divisor_of_the_kv_heads(tmp_path):
    # The trial: a 1,048,576-token context of Llama 3.1 8B on 64 H100s (/tmp/trial1/odd/
    # ctx1m.yaml) chose "TP32 · PP2" on megatron-core-2024. Llama 3.1 8B has 32 query heads and
    # 8 KV heads (its config.json: num_attention_heads 32, num_key_value_heads 8). Megatron-Core
    # raises "num_query_groups (8) must be a multiple of tensor_model_parallel_size" when
    # 8 % tp != 0 (NVIDIA/Megatron-LM@10ceb4dc4c77, megatron/core/transformer/
    # transformer_config.py; attention.py divide(num_query_groups, world_size)), until
    # NVIDIA/Megatron-LM@f7dfb9979519 (2025-12-06, core_v0.16.0) lets tp be a multiple. So on
    # 64 GPUs the tp that divide the 32 heads and 64 are 1, 2, 4, 8, 16, 32; with replication
    # all six run, without it only 1, 2, 4, 8.
    from llmcost.core.catalog import load_model, scenario_cluster
    from llmcost.core.stacks import load_stack
    from llmcost.training import parallel as P
    m = load_model("llama-3.1-8b")
    assert (m.n_heads, m.n_kv_heads) == (32, 8)
    assert [load_stack(s).tp_kv_replication for s in (
        "megatron-core-2024", "megatron-core-2025", "megatron-core-2026")] == [False, False, True]
    cluster = scenario_cluster({"accelerator": "H100-SXM", "n_gpus": 64})
    tps = {repl: sorted(set(P.enumerate_plans(
        m, cluster, 64, 8192, pp=(1,), zero_stage=(1,), recompute=("full",),
        micro_batch_size=(1,), tp_kv_replication=repl)["tp"])) for repl in (True, False)}
    assert tps == {True: [1, 2, 4, 8, 16, 32], False: [1, 2, 4, 8]}
    # the trial's scenario: its search (cp fixed to 1 by default) now keeps tp | 8; no such plan
    # fits a 1M-token sequence, so it is refused, with the advice to search context parallelism
    msg = _refusal(tmp_path, "train_tokens: 1e12\nseq_len: 1048576\nn_gpus: 64\nmodel: "
                             "llama-3.1-8b\naccelerator: H100-SXM\nmfu: 0.4\n")
    tp = int(re.search(r"\(plan TP(\d+) ", msg)[1])
    assert 8 % tp == 0 and "set cp: 0 to let the search choose context parallelism" in msg
    # an explicit tp 16 is refused on megatron-core-2024 naming tp, the KV heads and the rule,
    # and runs on megatron-core-2026 (KV heads replicated on 16 / 8 = 2 ranks)
    base = ("train_tokens: 1e12\nseq_len: 8192\nn_gpus: 64\nmodel: llama-3.1-8b\n"
            "accelerator: H100-SXM\nmfu: 0.4\ntp: 16\n")
    msg = _refusal(tmp_path, base)
    assert ("tp=16 must divide n_kv_heads=8 (llama-3.1-8b) on the megatron-core-2024 stack"
            in msg and "rule tp_kv_heads" in msg)
    with pytest.raises(P.PlanError) as err:
        P.check_tp_kv_heads(m, 16, replication=False)
    assert err.value.rule == "tp_kv_heads"
    P.check_tp_kv_heads(m, 16)   # replicated: valid
    from llmcost.present.report import estimate_ledger
    path = tmp_path / "tp16.yaml"
    path.write_text(base + "stack: megatron-core-2026\n")
    assert estimate_ledger(path).total_usd > 0


def test_a_split_hint_on_a_megatron_stack_counts_only_tp_dividing_the_kv_heads():
    # splitting_gpu_counts with tp_kv_replication false: Llama 3.1 8B, a 1-sequence batch
    # (dp 1), pp and cp fixed to 1: the GPU counts are the tp dividing both 32 heads and 8 KV
    # heads, 1, 2, 4, 8; with replication also 16 and 32
    from llmcost.core.catalog import load_model
    from llmcost.training import parallel as P
    m = load_model("llama-3.1-8b")
    fixed = {"pp": 1, "cp": 1}
    assert P.splitting_gpu_counts(m, 1, 8192, "even", fixed) == [1, 2, 4, 8, 16, 32]
    assert P.splitting_gpu_counts(m, 1, 8192, "even", {**fixed, "tp_kv_replication": False}) \
        == [1, 2, 4, 8]


#: The trial's config.json (/tmp/trial1/hf/config.json): Llama 3.2 3B's shape, no
#: ``_name_or_path``, in a folder named "hf".
LLAMA_32_3B = {"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 3072,
               "intermediate_size": 8192, "num_attention_heads": 24, "num_key_value_heads": 8,
               "num_hidden_layers": 28, "vocab_size": 128256, "max_position_embeddings": 131072,
               "tie_word_embeddings": True, "rope_theta": 500000.0, "head_dim": 128}


def test_a_config_json_in_an_uninformative_folder_is_named_by_its_type_and_size(tmp_path):
    # The trial: "hf on 32 x H100-SXM", the model named after its folder. By hand, Llama 3.2 3B
    # (d 3,072, 28 layers, 24 heads and 8 KV heads of 128, FFN 8,192, vocabulary 128,256, tied
    # embeddings): per layer 2·3072² + 2·3072·1024 (Q, O; K, V) + 3·3072·8192 (gated FFN) +
    # 2·3072 (norms) = 100,669,440; × 28 + 128,256·3,072 (embedding) + 3,072 (final norm) =
    # 3,212,749,824, "3.2B" (Meta's model card: 3.21B)
    import json

    from llmcost.core.model import ModelSpec
    from llmcost.present.report import estimate_ledger
    layer = 2 * 3072**2 + 2 * 3072 * 1024 + 3 * 3072 * 8192 + 2 * 3072
    count = 28 * layer + 128256 * 3072 + 3072
    assert count == 3_212_749_824
    (tmp_path / "hf").mkdir()
    (tmp_path / "hf" / "config.json").write_text(json.dumps(LLAMA_32_3B))
    spec = ModelSpec.from_hf_config(tmp_path / "hf" / "config.json")
    assert spec.n_params == count and spec.name == "llama (3.2B parameters)"
    sc = tmp_path / "s.yaml"
    sc.write_text("model: hf/config.json\naccelerator: H100-SXM\nn_gpus: 32\ntrain_tokens: 9e12\n"
                  "seq_len: 8192\nmfu: 0.4\n")
    assert estimate_ledger(sc).figures["model"] == "llama (3.2B parameters)"   # estimate's line
    # a Hugging Face cache's layout: the snapshot folder is a commit hash; the repository above
    # it names the model
    snap = tmp_path / "models--meta-llama--Llama-3.2-3B" / "snapshots" / ("0cb88a4f" * 5)
    snap.mkdir(parents=True)
    (snap / "config.json").write_text(json.dumps(LLAMA_32_3B))
    assert ModelSpec.from_hf_config(snap / "config.json").name == "Llama-3.2-3B"
    # the config's own _name_or_path, where the folder says nothing
    (tmp_path / "hf" / "config.json").write_text(json.dumps(
        {**LLAMA_32_3B, "_name_or_path": "meta-llama/Llama-3.2-3B"}))
    assert ModelSpec.from_hf_config(tmp_path / "hf" / "config.json").name == "Llama-3.2-3B"
    # an informative folder is kept (a download's folder)
    (tmp_path / "Llama-3.2-3B-base").mkdir()
    (tmp_path / "Llama-3.2-3B-base" / "config.json").write_text(json.dumps(LLAMA_32_3B))
    assert ModelSpec.from_hf_config(tmp_path / "Llama-3.2-3B-base").name == "Llama-3.2-3B-base"


def test_an_unknown_model_suggests_the_same_family_and_size_by_nearest_version():
    # The trial: model 'llama-4-70b' suggested 'llama-2-70b', 'llama-2-7b', 'llama-1-7b' (by
    # spelling, one character from 'llama-2-7b') but not 'llama-3.1-70b'. The catalogue's
    # Llama 70B models are llama-2-70b and llama-3.1-70b (data/models.csv; chinchilla-70b is
    # another family); the nearest release to version 4 is 3.1 (|4 − 3.1| = 0.9 < |4 − 2| = 2),
    # so it comes first, then llama-2-70b, then the closest spelling
    import pandas as pd

    from llmcost.core.catalog import DATA_DIR, load_model, name_parts, suggest
    names = list(pd.read_csv(DATA_DIR / "models.csv")["name"])
    assert sorted(k for k in names if name_parts(k)[0] == "llama" and "70b" in k) == \
        ["llama-2-70b", "llama-3.1-70b"]
    assert name_parts("llama-3.1-70b") == ("llama", 3.1, frozenset({"70b"}))
    assert name_parts("qwen2.5-72b") == ("qwen", 2.5, frozenset({"72b"}))
    assert suggest("llama-4-70b", names) == ["llama-3.1-70b", "llama-2-70b", "llama-2-7b"]
    assert suggest("qwen3-72b", names)[0] == "qwen2.5-72b"   # Qwen's only 72B
    with pytest.raises(ValueError, match=r"did you mean 'llama-3.1-70b', 'llama-2-70b'"):
        load_model("llama-4-70b")
    # a name without a size keeps the spelling matches (a scenario key's typo)
    assert suggest("n_gpu", ["n_gpus", "seq_len", "tp"]) == ["n_gpus"]


def test_step_time_warns_of_a_tp_the_stack_cannot_split_over_the_kv_heads():
    # a plan given directly (not searched) is priced as the ZeRO-3 case is: with a
    # StackFeatureWarning naming tp, the KV heads and the rule (Megatron-Core before
    # core_v0.16.0 requires num_query_groups % tensor_model_parallel_size == 0)
    spec = llmcost.load_model("llama-3.1-70b")             # 8 KV heads
    plan = parallel.make_plan(spec, 64, 512, tp=16, pp=1, seq_len=4096, zero_stage=1)
    cluster = llmcost.Cluster(llmcost.load_accelerator("H100-SXM"), 64)
    with pytest.raises(ValueError, match=r"tp=16: the stack 'megatron-core-2024' .* model's 8 "
                       r"\(rule tp_kv_heads\)"):
        step.step_time(spec, cluster, plan, 4096, stack="megatron-core-2024")
    with pytest.warns(stacks.StackFeatureWarning,
                      match=r"tp=16: the stack 'megatron-core-2024' .* model's 8 \(rule "
                            r"tp_kv_heads\)"):
        step.step_time(spec, cluster, plan, 4096, stack="megatron-core-2024",
                       missing_features="price")
    with warnings.catch_warnings():
        warnings.simplefilter("error", stacks.StackFeatureWarning)
        step.step_time(spec, cluster, plan, 4096, stack="megatron-core-2026")
    with pytest.raises(ValueError, match="tp=0 must be a whole number >= 1"):
        parallel.check_tp_kv_heads(spec, 0)


def test_the_split_hint_names_the_kv_heads_where_the_stack_needs_them():
    # a review: the split hint listed "tp (dividing the 32 heads)" where the stack also needs tp
    # to divide Llama 3.1 8B's 8 KV heads (Megatron-Core before core_v0.16.0)
    m = llmcost.load_model("llama-3.1-8b")
    strict = parallel.split_hint(m, 96, 4, 8192, fixed={"tp_kv_replication": False})
    assert "no tp (dividing the 32 heads and, on this stack, the 8 KV heads)" in strict
    assert "KV heads" not in parallel.split_hint(m, 96, 4, 8192)


def test_more_gpus_advice_names_the_fewest_count_that_runs(tmp_path):
    # "use more GPUs" alone left a user to guess how many. Llama 3.1 405B (126 layers, 8 KV
    # heads: data/models.csv, Llama Team 2024, arXiv:2407.21783 Table 3) on 100 H100s with the
    # default batch of 4,194,304 tokens = 512 sequences of 8,192: by hand, a count the plan rules
    # split with the layers split evenly is n = dp · tp · pp with dp dividing 512 (a power of
    # 2), tp dividing the 8 KV heads (1, 2, 4, 8) and pp dividing 126 = 2 · 3² · 7, so
    # n = 2^a · pp with pp in {1, 2, 3, 6, 7, 9, 14, 18, 21, 42, 63, 126}; near 100: pp 3 or 6
    # give 96 and 192, pp 7 or 14 give 112, pp 9 or 18 give 144, pp 21 or 42 give 84 and 168,
    # pp 63 or 126 give 126: between 100 and 112 none, and 112 = TP8 · PP14. At DP1 the GPUs
    # hold the weights, gradients and Adam states in 112 parts (the first and last stages also
    # the embedding and the head, so this is the average): 405.9e9 parameters × 18 B (BF16
    # weights 2 + FP32 gradients 4 + FP32 master, m, v 12: Rajbhandari et al. 2020 §3.1 with
    # FP32 gradients) ÷ 112 = 65.2 GB, under the 85,899,345,920 B × 0.9 = 77.3 GB usable, so 112
    # can fit; below 94.5 GPUs the states alone (405.9e9 × 18 ÷ 77.3e9) cannot.
    spec = llmcost.load_model("llama-3.1-405b")
    states_gb = spec.n_params * 18 / 112 / 1e9
    usable_gb = 85_899_345_920 * 0.9 / 1e9
    counts = parallel.splitting_gpu_counts(spec, 512, 8192, "even")
    assert [n for n in counts if 100 < n <= 112] == [112]  # the rules' counts, as by hand
    msg = _refusal(tmp_path, "train_tokens: 1e12\nseq_len: 8192\nn_gpus: 100\nmodel: "
                             "llama-3.1-405b\naccelerator: H100-SXM\nmfu: 0.4\n")
    got = re.search(r"use more GPUs: ([\d,]+) is the fewest above 100 that splits the layers "
                    r"evenly over the pipeline stages and on which the plan search finds a plan "
                    r"that fits \((TP\d+ · PP\d+)[^)]*, ([\d,]+) GB per GPU\) with a pipeline "
                    r"bubble of at most 10%", msg)
    assert got, msg
    assert got.group(1) == "112" and got.group(2) == "TP8 · PP14"
    assert states_gb <= float(got.group(3)) <= usable_gb  # states plus activations, fitting


def test_the_rows_a_stack_runs_keep_its_tp_rule():
    # A trial: notebook 03's "top row the stack runs" for a model of 2 KV heads was TP8 on
    # megatron-core-2024, which refuses tp that does not divide the KV heads (its step then
    # raised a StackFeatureWarning on the page). By the rule (parallel.check_tp_kv_heads): on
    # that stack tp in {1, 2}; on megatron-core-2026, which replicates KV heads, also 4, 8
    import pandas as pd

    from llmcost.core.model import ModelSpec
    spec = ModelSpec(name="kv2", n_layers=24, d_model=2048, n_heads=16, n_kv_heads=2,
                     vocab_size=32000, d_ff=8192)
    rows = pd.DataFrame({"tp": [1, 2, 4, 8], "pp": 1, "cp": 1, "zero_stage": 1,
                         "schedule": "1f1b"})
    old = stacks.plan_options("megatron-core-2024")
    assert not old["tp_kv_replication"]
    assert list(rows[parallel.stack_runs(rows, old, spec)]["tp"]) == [1, 2]
    new = stacks.plan_options("megatron-core-2026")
    assert new["tp_kv_replication"]
    assert list(rows[parallel.stack_runs(rows, new, spec)]["tp"]) == [1, 2, 4, 8]
    # a ZeRO stage the stack lacks is not run either (megatron-core-2024: stages 0-1)
    rows["zero_stage"] = 3
    assert not parallel.stack_runs(rows, old, spec).any()


def test_more_gpus_advice_looks_beyond_64_times_a_tiny_job(tmp_path):
    # A trial: Llama 3.1 70B with tp 4 and pp 1 fixed on 4 A100-40GB was told only "use more
    # GPUs". By hand, the default stack (megatron-core-2024) has ZeRO stages 0-1 (DDP and the
    # distributed optimizer, NVIDIA/Megatron-LM dist_optimizer.md: 6 + 12/d bytes per parameter
    # with bf16 parameters and fp32 gradients), so every GPU keeps its TP shard of the BF16
    # weights and of the FP32 gradients, 70.55e9 × 6 / 4 = 105.8 GB, above the 42,949,672,960
    # B × 0.9 = 38.7 GB usable whatever dp: no GPU count fits with tp 4, pp 1, and the
    # refusal names them as the cause instead of advising more GPUs
    spec = llmcost.load_model("llama-3.1-70b")
    kept_gb = spec.n_params * 6 / 4 / 1e9
    usable_gb = 42_949_672_960 * 0.9 / 1e9
    assert kept_gb == pytest.approx(105.8, abs=0.05) and kept_gb > usable_gb
    msg = _refusal(tmp_path, "model: llama-3.1-70b\naccelerator: A100-40GB\ntrain_tokens: 1e11\n"
                             "seq_len: 4096\nmfu: 0.4\nglobal_batch_tokens: 4194304\nn_gpus: 4\n"
                             "tp: 4\npp: 1\n")
    assert "the fixed tp: 4, pp: 1 are the cause: more GPUs do not help" in msg, msg
    need = float(re.search(r"even 4,096 GPUs, [^:]*, need ([0-9,]+) GB per GPU", msg)[1])
    assert kept_gb <= need < kept_gb + 12 * spec.n_params / 4 / 1e9   # + at most the optimizer


def test_the_more_gpus_advice_names_the_fewest_that_fit_with_a_large_bubble(tmp_path):
    # A trial: DeepSeek-V3 on 160 H100 was told "1,024 is the fewest above 160 ... with a
    # pipeline bubble of at most 10%" while the same file on 256 GPUs is billed (with a warning
    # of its bubble). The advice now names both. By hand, the 256-GPU plan's 1F1B bubble:
    # (p − 1) / m = (16 − 1) / 64 = 23.4% (Narayanan et al. 2021 §2.2).
    msg = _refusal(tmp_path, "train_tokens: 1e11\nseq_len: 4096\nn_gpus: 160\nmodel: "
                             "deepseek-v3\naccelerator: H100-SXM\nmfu: 0.3\n")
    # regression pin (the GPU count the search finds; 1,024 while the default stack offered
    # ZeRO-2, which Megatron-Core's distributed optimizer is not; 2,048 then; 1,024 again since a
    # rank's all-to-all at TP > 1 sends its own x/tp tokens, Megatron-Core's alltoall
    # dispatcher, which makes TP2 · PP1 · DP512 · EP256 the fastest plan that fits there)
    assert "use more GPUs: 1,024 is the fewest above 160" in msg, msg
    got = re.search(r"a plan already fits on 256 \((TP\d+ · PP(\d+)(?: uneven)? · [^)]*m=(\d+)[^)]*), "
                    r"[\d,]+ GB per GPU\), with a pipeline bubble of (\d+)%", msg)
    assert got, msg
    p, m = int(got.group(2)), int(got.group(3))
    assert (p, m) == (16, 64) and int(got.group(4)) == round(100 * (p - 1) / m) == 23
