"""RL iteration mechanisms (llmcost.rl: engine efficiency, HF generate's static batching,
training passes through the step-time model, multi-node rollout TP, weight sync by bytes and
links) and the validation table data/rl_iterations.csv.

Sources: OpenRLHF/OpenRLHF benchmark/README.md @ 0baf3dd (phase latencies, A800) and
NVIDIA-NeMo/RL docs/about/performance-summary.md @ 06beed9 (v0.4) and @ 5fb5889 (v0.6) (GRPO
step times, DGX-H100 and, v0.6, GB200-NVL72) with the recipes they name; what each phase holds
from the frameworks' timing code (microsoft/DeepSpeedExamples DeepSpeed-Chat step-3 main.py @
6863634, OpenRLHF openrlhf/trainer/ppo_trainer.py @ 0baf3dd); link
bandwidths and achievable fractions from data/accelerators.csv and data/efficiency.csv.
"""

import math

import numpy as np
import pandas as pd
import pytest

import llmcost
from llmcost import rl
from llmcost.core.hardware import Cluster
from llmcost.core.stacks import DEFAULT_STACK
from llmcost.serving import inference
from llmcost.training import step
from llmcost.training.parallel import choose_plan, make_plan, stack_plan_search


def test_validation_table_has_sources_and_a_fixed_split():
    d = rl.load_rl_validation()
    assert d["id"].is_unique
    # every row is evaluated (the two Qwen3-235B rows since the plans express EP over TP·DP·CP,
    # MoE parallel folding); "not_evaluated" stays a split the table may use
    assert set(d["split"]) <= {"calibration", "heldout", "not_evaluated"}
    assert {"calibration", "heldout"} <= set(d["split"])
    assert d["source"].str.len().gt(20).all()
    assert d["source_ref"].str.contains(r"@ [0-9a-f]{40}").all()
    held = d[d["split"] == "heldout"]
    assert len(held) >= 8 and held["system"].nunique() >= 3
    # phase times conserve the end-to-end time in OpenRLHF's table (generation + training =
    # end-to-end; the 13B DeepSpeed-Chat row is 0.12 s over)
    ph = d.dropna(subset=["measured_generation_s"])
    two = ph[ph["phases_measured"] != "step"]
    assert np.allclose(two["measured_generation_s"] + two["measured_train_s"],
                       two["measured_iteration_s"], atol=0.15)
    # NeMo RL v0.3's blog (Table 1) times the refit apart: generation + (policy training +
    # get logprobs) falls short of the step by the refit and a few seconds (112 - 104 = 8 s
    # with a 5 s refit for Llama 3.1 8B)
    step = ph[ph["phases_measured"] == "step"]
    gap = step["measured_iteration_s"] - step["measured_generation_s"] - step["measured_train_s"]
    assert len(step) == 3 and ((gap > 0) & (gap < 0.12 * step["measured_iteration_s"])).all()
    assert set(d["optimizer_offload"].dropna()) == {"cpu"}
    assert (d[d["system"] != "NeMo RL"]["optimizer_offload"] == "cpu").all()


def test_measured_figures_are_the_quoted_cells():
    # Every compared figure is written in the row's quote of its source (the table's cells):
    # iteration, and where given generation and training latency.
    d = rl.load_rl_validation()
    for _, r in d.iterrows():
        for col in ("measured_iteration_s", "measured_generation_s", "measured_train_s"):
            if not pd.isna(r[col]):
                assert f"{r[col]:g}" in r["measured_quote"], (r["id"], col)
        assert r["phases_measured"] in rl.PHASES_MEASURED
        assert len(r["phase_definition"]) > 40
    # DeepSpeed-Chat's end-to-end leaves the experience forwards out (its main.py says so);
    # OpenRLHF's generation phase holds them (PPOTrainer.fit times make_experience).
    assert "we did not include, e.g., rw forward time" in _row(
        "openrlhf-bench-7b-dschat")["phase_definition"]
    assert "make_experience" in _row("openrlhf-bench-7b-openrlhf")["phase_definition"]


def test_validation_phases_follow_what_each_source_times():
    it = rl.rl_iteration("llama-2-7b", rl.a800(), algorithm="ppo", prompts_per_step=64,
                         samples_per_prompt=1, prompt_tokens=256, response_tokens=256,
                         reward="llama-2-7b", n_gpus=8, train_mfu=0.4)
    sync = it.parts_gpu_s["weight_sync"] / it.n_gpus
    total, gen, train = rl.validation_phases(it, "generate|update")
    assert (gen, train) == pytest.approx((it.generation_wall_s, it.update_wall_s + sync))
    assert total == pytest.approx(it.wall_s - it.experience_wall_s)   # forwards left out
    total, gen, train = rl.validation_phases(it, "experience|update")
    assert gen == pytest.approx(it.generation_wall_s + it.experience_wall_s)
    assert total == pytest.approx(it.wall_s)
    assert rl.validation_phases(it, "step") == (it.wall_s, it.generation_wall_s,
                                                it.train_wall_s)
    with pytest.raises(ValueError, match="phases='iteration'"):
        rl.validation_phases(it, "iteration")


def test_models_on_their_own_gpus_run_side_by_side():
    # OpenRLHF(ray+vllm), Llama-2-7B, GPU ratio ref:reward:actor:critic:vLLM = 1:1:2:2:2 on 8
    # A800s, 1,024 samples of 1,024 + 1,024 tokens (2,097,152 tokens), flat 40% MFU of 312 TFLOP/s.
    # By hand: the reference forward on its one GPU is the slowest experience pass,
    # 2·6.74e9·2,097,152 / (1·312e12·0.4) = 226.5 s (the actor's old log-probs on 2 GPUs take
    # half that); the actor's and the critic's updates, 6·6.74e9·2,097,152 / (2·312e12·0.4) =
    # 339.8 s each, run side by side, each plus its CPU-offloaded optimizer (--adam_offload):
    # 8 optimizer steps (1,024 / train_batch_size 128) of N / R_host + 2 bytes · N / 2 GPUs /
    # 32 GB/s, that shard going to the host and back between the g = 128 / (2·8) = 8
    # micro-batches of a step at ZeRO-2 (2·(g − 1) = 14 shards more; rl.optimizer_offload_time).
    n = rl.load_rl_validation().pipe(lambda d: d[d["id"] == "openrlhf-bench-7b-ray-vllm"])
    kw = rl.validation_setup(n.iloc[0])
    assert kw["role_gpus"] == dict(actor=2, critic=2, reference=1, reward=1)
    assert kw.pop("experience_interleaved")          # the row's setting, checked below
    policy, acc = kw.pop("policy"), kw.pop("accelerator")
    it = rl.rl_iteration(policy, acc, **{**kw, "train_mfu": 0.4})
    n_a = llmcost.load_model("llama-2-7b").n_active_params
    tokens = 1024 * 2048
    assert it.experience_wall_s == pytest.approx(2 * n_a * tokens / (312e12 * 0.4), rel=0.01)
    # OpenRLHF's Ray ranks wait only for their own batch's forwards (the row's setting,
    # rl.RLOptions.experience_interleaved): the reference's GPU serves 2 ranks, half exposed,
    # plus one request's queue per rank: 1,024 samples / (2 ranks × batches of 16) = m = 32
    # rounds, t/2 · (1 + 1/32)
    on = rl.rl_iteration(policy, acc, **{**kw, "train_mfu": 0.4, "experience_interleaved": True})
    assert on.experience_wall_s == pytest.approx(it.experience_wall_s / 2 * (1 + 1 / 32),
                                                 rel=1e-9)
    n = llmcost.load_model("llama-2-7b").n_params
    offload = 8 * (n / rl.CPU_ADAM_PARAMS_PER_S_PER_HOST + 15 * 2 * n / 2 / 32e9)
    # DeepSpeed 0.13.2's parameter copy back through a pageable temporary (the row's
    # offload_staged_copy): 2 B per parameter at 32 GB/s / 9 in place of 4 B at 32 GB/s
    offload += 8 * (2 * n / 2 / (32e9 / 9) - 4 * n / 2 / 32e9)
    assert it.update_wall_s == pytest.approx(6 * n_a * tokens / (2 * 312e12 * 0.4) + offload,
                                             rel=0.01)
    assert it.gpu_s == pytest.approx(it.wall_s * it.n_gpus, rel=1e-9)
    assert it.parts_gpu_s["idle"] > 0        # the 1-GPU models wait for each other
    with pytest.raises(ValueError, match="role_gpus"):
        rl.rl_iteration("llama-2-7b", "H100-SXM", n_gpus=8, role_gpus={"policy": 2})
    with pytest.raises(ValueError, match="must sum to at most n_gpus=8"):
        rl.rl_iteration("llama-2-7b", "H100-SXM", n_gpus=8, role_gpus={"actor": 6, "critic": 4})


def test_hf_generate_constant_is_its_calibration_fit():
    # The stored constant is the fit on the calibration rows (golden section) with the
    # generation phase as each source times it, DeepSpeed-Chat's SDPA steps overlapping host
    # and GPU and OpenRLHF's FlashAttention-2 steps adding them (rl.hf_host_overlaps), and
    # OpenRLHF's Ray ranks waiting only for their own experience forwards
    # (rl.RLOptions.experience_interleaved, with the queue of each rank's first micro-rollout
    # batch): 1.266 ms per layer per decode step (1.268 ms in the steady state, 1.231 ms
    # before the Ray ranks' interleaving; 0.881 ms before that reading of the attention; 1.285 ms
    # when OpenRLHF's generation phase was compared without its experience forwards, 1.093 ms
    # before HF generate's cache concatenation, 0.807 ms before the forward passes took the
    # step's HFU, 0.846 ms before the pooled serving constants were refitted with vLLM's
    # performance-benchmark A100 and H100 rows, 0.878 ms before MI300X's hbm_fraction
    # 0.90 -> 0.79 refitted them again).
    assert rl.fit_hf_generate_overhead() == pytest.approx(rl.HF_GENERATE_S_PER_LAYER_STEP,
                                                          rel=0.01)


def test_gb200_vllm_decode_factor_is_its_calibration_fit():
    # The stored factor is the golden-section fit on the calibration rows that generate with
    # vLLM on GB200-NVL72: NeMo RL's v0.5 GB200 BF16 rows (performance summary @ tag v0.5.0:
    # Llama 3.1 8B 91.0 s on 8 GPUs and 71.1 s 1-step off; Qwen3-30B-A3B 232 s on 16 GPUs and
    # 136 s 1-step off on 32), committed as calibration ("added" v4) before any of their errors
    # was computed. The held-out v0.6 GB200 rows are not read by the fit.
    d = rl.load_rl_validation()
    cal = d[(d["split"] == "calibration") & (d["accelerator"] == "GB200-NVL72")]
    assert sorted(cal["measured_iteration_s"]) == [71.1, 91.0, 136.0, 232.0]
    assert (cal["added"] == "v4").all() and (cal["engine"] == "vLLM").all()
    assert not d[(d["split"] == "heldout") & (d["added"] == "v4")].shape[0]
    assert rl.fit_vllm_decode_factor("GB200-NVL72") == pytest.approx(
        rl.VLLM_DECODE_FACTORS["GB200-NVL72"], rel=0.01)
    with pytest.raises(ValueError, match="accelerator='H100-SXM': no calibration row"):
        rl.fit_vllm_decode_factor("H100-SXM")
    # Judged on the held-out v0.6 GB200 rows (v0.6 summary @ 5fb5889: 108, 98.7, 61.7, 221 and
    # 301 s): each within 15% with the factor; without it the worst was 0.54 of published.
    v = rl.rl_validation("model", split="heldout").set_index("id")
    gb = v[v.index.str.contains("gb200")]
    assert len(gb) == 5 and ((gb["ratio"] - 1).abs() < 0.15).all()
    off = rl.rl_validation("model", split="heldout", change={"rollout_decode_factor": 1.0})
    assert off.set_index("id").loc[gb.index, "ratio"].min() < 0.55


def test_heldout_openrlhf_13b_ray_within_15_percent():
    # Held-out: OpenRLHF(ray), Llama-2-13B, 8 A800, HF generate on the actor's 4 GPUs,
    # end to end 3,671.61 s (benchmark README); generation phase (with the experience
    # forwards) 2,722.51 s: the iteration within 15%, the phase within 20% (the held-out goal
    # of benchmarks/validate_rl.py is 25% on average; OpenRLHF's FlashAttention-2 steps keep
    # the HF host cost summed with the GPU's, at the shared constant, rl.hf_host_overlaps).
    df = rl.rl_validation("model", split="heldout").set_index("id")
    r = df.loc["openrlhf-bench-13b-ray"]
    assert r["predicted_s"] == pytest.approx(3671.61, rel=0.15)
    assert r["predicted_gen_s"] == pytest.approx(2722.51, rel=0.20)
    # Regression pins (today's values, tight): 1.028 and 1.104 of the table (1.06 and 1.16 in
    # an earlier version of the model; 0.93 and 0.99 before the host cost's refit).
    assert r["predicted_s"] / 3671.61 == pytest.approx(1.028, abs=0.005)
    assert r["predicted_gen_s"] / 2722.51 == pytest.approx(1.104, abs=0.005)


def test_model_beats_before_on_heldout_rows():
    # Regression pin of the benchmark's headline (benchmarks/validate_rl.py) over the 16
    # held-out rows: mean |error| 46% (11 rows evaluated) -> 27% (16), worst factor 4.4x -> 1.9x
    # (the goals, 25% and 1.5x, are not met).
    # 38% -> 34% when the step model gained the MoE layer's host cost per micro-batch (the
    # MoE policies' training passes got slower, nearer the published iterations); 34% -> 27%,
    # worst 3.4x -> 1.9x, with NeMo RL's measured refit on its colocated rows (DeepSeek-V3's
    # 47.2 s, NeMo RL blog 2025-08-12 Table 1); 27% -> 23% when separate rollout GPUs receive
    # the whole model, not their shard (NeMo RL's and OpenRLHF's broadcast code): DeepSeek-V3's
    # asynchronous rows 0.56 -> 0.91 and 0.65 -> 1.07 of measured.
    # Then each source's phases were compared as its code times them (validation_phases:
    # DeepSpeed-Chat's end-to-end without the experience forwards, OpenRLHF's generation phase
    # with them), OpenRLHF Ray's models on their own GPUs and DeepSpeed-Chat's actor at ZeRO-2
    # (its script): the first 16 held-out rows 23% -> 24%; and five fresh rows (NeMo RL v0.6
    # GB200, "added" v2) were added before any of their errors was computed: 21 rows, 27%.
    # Then DeepSpeed-Chat's and OpenRLHF's CPU-offloaded optimizers (optimizer_offload_time,
    # decided after these rows had been seen; constants from DeepSpeed's ZenFlow blog, not
    # fitted): the 21 rows 26.6% -> 26.9% (the rows whose generation is over-predicted get
    # slower still), and three fresh NeMo RL v0.3 rows with published phases ("added" v3,
    # committed before any of their errors was computed, after Megatron's sequence padding to
    # a multiple of TP let their TP > 1 plans be priced): 24 rows, 25.5%; v3 alone 15%.
    # Then NeMo RL's per-step host swaps (nemo_rl_swap_bytes: the reference model swapped in,
    # colocated weights, gradients, Adam moments and vLLM weights out and back; read from its
    # code after these rows had been seen): 25.8% -> 25.0%, worst 2.08x -> 2.07x.
    # Then the update priced one optimizer step of train_global_batch sequences at a time, NeMo
    # RL's rows with sequence packing and, under pipeline parallelism, micro-batches padded to
    # the bin (rl.optimizer_batch, read from NeMo RL's megatron_policy_worker.train after these
    # rows had been seen): 25.0% -> 23.3%, worst 2.07x -> 1.90x; v1 23.9% -> 21.5%, v3 14.2% ->
    # 12.9%. Then ZeRO-2's offloaded gradient accumulation through the host (DeepSpeed v0.13.2,
    # read after these rows had been seen): 23.3% -> 23.4% (OpenRLHF's vLLM rows, whose
    # generation is over-predicted, get slower still; their training phases nearer). Then HF
    # generate's cache concatenation (rl.HF_GENERATE_KV_COPIES, the host constant refitted on
    # the calibration rows, 1.093 -> 0.807 ms): 23.4% -> 22.8%. Then each row's activation
    # recomputation as its configuration sets it (rl.row_recompute, the recompute column; read
    # from the configs after these rows had been seen) instead of full recomputation for all:
    # the Qwen3-30B-A3B and v0.3 rows run without it, their updates priced faster: 22.8% ->
    # 26.5%, worst 1.90x -> 2.33x (GB200 Qwen3-30B-A3B 1-step off-policy); v1 21.5% -> 23.0%,
    # v3 12.9% -> 23.2%. Then NeMo RL's colocated refit by the path of each row's version (the
    # v0.4 and v0.6 rows stream the weights, measured ~35 s for DeepSeek-V3 instead of v0.3's
    # 47.2 s: rl.row_refit) and its gradient buffers released rather than copied to the host
    # (both read from the code after these rows had been seen): 26.5% -> 28.8%, worst 2.33x.
    # Then the offload inside NeMo RL's colocated refit at its measured ~20 s for DeepSeek-V3
    # (rl.nemo_rl_offload_time, taken after these rows had been seen): 28.8% -> 25.4%; v1
    # 24.9% -> 22.1%, v3 23.5% -> 23.2%. Then the forward-only passes at the step's HFU (they
    # recompute nothing; rl.training_mfu, read after these rows had been seen) and the HF
    # generate constant refitted on the calibration rows (0.807 -> 0.846 ms): 25.4% -> 25.9%,
    # v1 22.1% -> 22.8%. Then NeMo RL v0.4/v0.6's separate-GPU refit at its measured 14 s for
    # DeepSeek-V3 (overlapped NCCL broadcast, NVIDIA-NeMo/RL pull 1379; it replaces the 28 s
    # estimate by links; read after these rows had been seen): 25.9% -> 28.0%, worst 2.34x;
    # v1 22.8% -> 24.6%. Then no padding of packed bins without pipeline parallelism (a rank's
    # last bin only shorter; a source review): 28.0% -> 28.1%. Then the v0.4 Qwen3-30B-A3B
    # 1-step off-policy row's set-up read from the recipe at tag v0.4.0 (rollout TP 4, training
    # TP 2 PP 1 EP 8; NVIDIA-NeMo/RL grpo-qwen3-30ba3b-4n8g-async-1off.yaml @ c751f811; the
    # table's columns are the recipe after pull 1526, whose description puts the run at '903 -->
    # ~1341 Token/sec/gpu', the table's 864 the level before it): 28.1% -> 26.6% (before mode
    # 54.5% -> 55.0%); v1 24.6% -> 22.5%. Then NCCL's ring LL latency across nodes for rollout
    # TP beyond one scale-up domain (rl.cross_domain_ll_step_latency: NVIDIA/nccl
    # src/graph/tuning.cc @ 01afd20a, 2.7 us per inter-node step and the NVLink step x 1.8;
    # the DeepSeek-V3 rows' vLLM TP 32 on 8-GPU nodes; added after these rows had been seen):
    # 26.6% -> 24.9%; v1 22.5% -> 19.9%. Then the cheaper of NCCL's Ring/LL and Tree/LL for
    # that all-reduce, as NCCL 2.7.5's tuner picks it (same file, l.145-147: TP 32 over four
    # nodes 37.5 us by Tree against 67.2 us by Ring): the DeepSeek-V3 rollouts faster,
    # 24.9% -> 26.4%; v1 19.9% -> 22.1%. Then vLLM's default cap on concurrent sequences for
    # the engine object each NeMo RL recipe builds (rl.row_max_concurrent: AsyncLLM 128, LLM
    # 1024 on H100/GB200; read from the recipes and vLLM 0.10.0/0.17.1 after these rows had been
    # seen): the asynchronous Qwen3-30B-A3B rows' replicas hold 128 sequences, not 241-512,
    # 26.4% -> 25.1% (before mode 55.0% -> 52.8%: the cap is a set-up input); v1 22.1% -> 20.2%.
    # Then NeMo RL v0.4/v0.6's lengths as the summary counts them (rl.row_lengths: "G-Average Seq
    # len" is the mean generated length, the prompt the row's tokens/s/GPU cell implies, ~100-160
    # tokens; read from NeMo RL's code and the tables after these rows had been seen): the
    # responses 256 tokens longer, DeepSeek-V3's 445 -> 701; 25.1% -> 21.9% (before mode 52.8%
    # -> 51.2%), worst 2.34x; v1 20.2% -> 16.9%.
    # Then the vLLM and pooled serving constants refitted with vLLM's performance-benchmark
    # A100-80GB and H100 builds (train rows of data/serving_benchmarks.csv; vLLM η_d 0.548 ->
    # 0.733, per-step overhead 0.04 -> 1.57 ms) and the HF generate constant refitted with them
    # (0.846 -> 0.878 ms): 21.9% -> 23.3%, worst 2.34x; v1 16.9%, v3 23.6% -> 29.6%.
    # Then MI300X's hbm_fraction set from its own BabelStream Copy (0.90 -> 0.79; its OCI vLLM
    # train rows refit vLLM η_d 0.733 -> 0.746, overhead 1.57 -> 1.66 ms, pooled η_d 0.758 ->
    # 0.769) and the HF generate constant refitted (0.878 -> 0.881 ms): 23.3% -> 23.5%; v1
    # 16.9% -> 17.0%, v3 29.6% -> 29.9% (regression pins of the model's output).
    # Then the step's MFU taken to the 6N basis of the passes' FLOPs (rl.six_n_share: step_time
    # counts attention and the LM head, F(s); the passes count 6N, so the update ran F / 6N
    # shorter than the step model's step; a basis mismatch found in a review after these rows
    # had been seen, not fitted): 23.5% -> 21.1%, worst 2.34x -> 1.86x; v1 17.0% -> 15.2%,
    # v3 29.9% -> 26.9%.
    # Then vLLM's decode on GB200 at rl.VLLM_DECODE_FACTORS["GB200-NVL72"] = 2.459 times the
    # Hopper-era engine fit, fitted on four NeMo RL v0.5 GB200 rows committed as calibration
    # ("added" v4) before any of their errors was computed (an empirical factor; added after
    # the held-out GB200 rows had been seen): 21.1% -> 14.6%, worst 1.86x -> 1.47x; v2 (the
    # v0.6 GB200 rows) 36.2% -> 5.3%; v1 and v3 unchanged (no GB200 row).
    # Then the two NeMo RL v0.4 Qwen3-32B rows evaluated, held-out, once Qwen3-32B entered
    # data/models.csv (their figures recorded before; prompts x generations and the generation
    # GPUs read from NeMo RL v0.4.0's recipes): 24 -> 26 held-out rows, 13.7% -> 13.6%, their
    # ratios 0.815 and 0.935; "before" 19 -> 21 rows, 51.3% -> 48.8%.
    # Then the experts' tensor parallelism as NeMo RL's configurations set it (train_etp 1,
    # MoE parallel folding; read from the configs after the held-out errors had been seen):
    # the three TP2 Qwen3-30B-A3B rows run their expert all-to-all on one node instead of two
    # (0.834 -> 0.649, 1.094 -> 0.741, 0.698 -> 0.568 of published), and the two Qwen3-235B
    # rows, whose EP 16 exceeds DP x CP, are evaluated, held-out (0.720, 0.807): 26 -> 28
    # held-out rows, 13.6% -> 16.1%, worst 1.45x -> 1.76x (the v0.3 Qwen3-30B-A3B row, its
    # training phase 0.66 of published, as the step model's H100 Qwen3-30B-A3B pre-training
    # rows are optimistic); "before" 21 -> 22 rows.
    # Then vLLM's piecewise CUDA graphs on the MoE policies of the rows whose vLLM is V1 before
    # v0.11.0 (NeMo RL v0.3's 0.9.0, v0.4's 0.10.0: rl.VLLM_PIECEWISE_S_PER_STEP, from
    # vLLM's own A/B in pull request 25444; looked for after the held-out rows had been seen,
    # nothing fitted): the v0.3 Qwen3-30B-A3B row 0.568 -> 0.710, 16.1% -> 12.6%, worst 1.76x
    # -> 1.45x (now the v0.6 Qwen3-30B-A3B on-policy row, 0.690); v1 16.5% -> 12.4%, v3 30.9%
    # -> 26.1%; the share gap's worst (14.7 points, DeepSpeed-Chat 13B) unchanged.
    before = rl.validation_summary(rl.rl_validation("before", split="heldout"))
    df = rl.rl_validation("model", split="heldout")
    after = rl.validation_summary(df)
    assert after["mean_abs_error"] < before["mean_abs_error"]
    assert after["worst_factor"] < before["worst_factor"]
    assert (before["evaluated"], after["evaluated"]) == (22, 28)
    assert before["mean_abs_error"] == pytest.approx(0.484, abs=0.02)
    assert after["mean_abs_error"] == pytest.approx(0.126, abs=0.02)
    assert after["worst_factor"] == pytest.approx(1.45, abs=0.05)
    v1 = rl.validation_summary(df[df["added"] == "v1"])
    assert v1["mean_abs_error"] == pytest.approx(0.124, abs=0.02)
    v2 = rl.validation_summary(df[df["added"] == "v2"])
    assert v2["mean_abs_error"] == pytest.approx(0.053, abs=0.02)
    v3 = rl.validation_summary(df[df["added"] == "v3"])
    assert v3["mean_abs_error"] == pytest.approx(0.261, abs=0.02)


def test_cpu_offloaded_optimizer_by_hand():
    # DeepSpeed's ZenFlow blog (deepspeedai/DeepSpeed blogs/deepspeed-zenflow/README.md @
    # cda3f9628): Llama-2-7B on 4 A100s with ZeRO-Offload, "the CPU path can take longer than 4s",
    # and the step inflates "from 0.5s to over 7s". By hand, 7e9 parameters on one host of 4
    # GPUs: 6.74e9 / 1.685e9 = 4.0 s of CPU path + each rank's BF16 gradient shard over PCIe
    # Gen4, 2 · 6.74e9 / 4 / 32e9 = 0.105 s: 4.105 s, above the CPU path's 4 s and below the 6.5 s the
    # offload added to the 0.5 s step (the rest is its gradient traffic and stalls not priced).
    n7 = 6.74e9
    t = rl.optimizer_offload_time(n7, 4, "A100-80GB")
    assert t == pytest.approx(4.0 + 2 * n7 / 4 / 32e9, rel=1e-9)
    assert 4.0 < t < 7.0 - 0.5
    # two hosts share the CPU work; PCIe Gen5 (H100) halves the transfer; k steps cost k times
    assert rl.optimizer_offload_time(n7, 16, "A100-80GB") == pytest.approx(
        2.0 + 2 * n7 / 16 / 32e9, rel=1e-9)
    assert rl.optimizer_offload_time(n7, 4, "H100-SXM") == pytest.approx(
        4.0 + 2 * n7 / 4 / 64e9, rel=1e-9)
    assert rl.optimizer_offload_time(n7, 4, "A100-80GB", 8) == pytest.approx(8 * t, rel=1e-9)
    # the offloaded rows: DeepSpeed-Chat Llama-2-7B, actor and critic (6.74e9 each) on the same
    # 8 GPUs one after the other, 1,024 samples in steps of 128: 8 · 2 · (N / R + 2N / 8 / B),
    # the shard also to the host and back once between the g = 2 micro-batches of a step (ZeRO-2)
    row = _row("openrlhf-bench-7b-dschat")
    on = rl.validation_iteration(row, **rl.PINNED_OFFLOAD)
    off = rl.validation_iteration(row, optimizer_offload=False)
    n = llmcost.load_model("llama-2-7b").n_params
    assert on.update_wall_s - off.update_wall_s == pytest.approx(
        8 * 2 * (n / (6.74e9 / 4) + 3 * 2 * n / 8 / 32e9), rel=1e-6)
    assert on.generation_wall_s == off.generation_wall_s
    assert rl.validation_setup(_row("nemo-rl-v0.4-llama3.1-8b-on"))["optimizer_offload"] is False
    o = rl.RLOptions(prompts_per_step=64, samples_per_prompt=16, train_global_batch=128,
                     ppo_epochs=2)
    assert o.optimizer_steps == 16 and rl.RLOptions(ppo_epochs=3).optimizer_steps == 3


@pytest.mark.parametrize("call, match", [
    (lambda: rl.optimizer_offload_time(7e9, 0, "A100-80GB"), "n_gpus=0"),
    (lambda: rl.optimizer_offload_time(-1, 8, "A100-80GB"), "n_params"),
    (lambda: rl.optimizer_offload_time(7e9, 8, "A100-80GB", 0), "optimizer_steps=0"),
    (lambda: rl.optimizer_offload_time(7e9, 8, "TPU v5e"), "host-link"),
    (lambda: rl.RLOptions(train_global_batch=0), "train_global_batch=0"),
    (lambda: rl.RLOptions(optimizer_offload="cpu"), "optimizer_offload='cpu'"),
])
def test_offload_bad_input_is_refused_with_the_field_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_pageable_offload_on_the_model_by_hand():
    # DeepSpeed-Chat's --offload with no pin_memory (dschat/utils/ds_utils.py @ 6863634;
    # DeepSpeed v0.13.2 offload_config.py: False), Llama-2-7B actor (ZeRO-2) and critic (ZeRO-3,
    # llama_7b.sh @ 0baf3dd) on 8 A800: k = 1,024 / 128 = 8 optimizer steps of g = 128 / (8 · 8)
    # = 2 micro-batches, P = N / 8. Host buffers (pageable, 32 GB/s / 9): actor k (4g + 2) P =
    # 80 P, critic k (2g + 1) 2P = 80 P; the critic's parameter fetches (pinned, 32 GB/s)
    # k g 3 · 2P = 96 P; in place of the pinned model's k · 3 · 2P = 48 P per model:
    # added = (160 · 9 + 96 − 96) P / 32e9 = 1,440 P / 32e9 = 37.9 s on the update.
    row = _row("openrlhf-bench-7b-dschat")
    n = llmcost.load_model("llama-2-7b").n_params
    on = rl.validation_iteration(row)
    pinned = rl.validation_iteration(row, **rl.PINNED_OFFLOAD)
    assert rl.validation_setup(row)["offload_pageable"] is True
    assert rl.validation_setup(row)["critic_zero_stage"] == 3
    assert on.update_wall_s - pinned.update_wall_s == pytest.approx(1440 * n / 8 / 32e9, rel=1e-6)
    assert on.update_wall_s - pinned.update_wall_s == pytest.approx(37.9, abs=0.1)
    assert on.update_wall_s - pinned.update_wall_s == pytest.approx(
        rl.unpinned_offload_seconds(row.to_dict())["added_s"], rel=1e-9)
    assert on.generation_wall_s == pinned.generation_wall_s
    # OpenRLHF pins (openrlhf/utils/deepspeed_utils.py @ 0baf3dd): its rows keep the nominal rate
    ray = _row("openrlhf-bench-13b-ray")
    assert rl.validation_setup(ray)["offload_pageable"] is False
    assert rl.validation_iteration(ray).update_wall_s == pytest.approx(
        rl.validation_iteration(ray, **rl.PINNED_OFFLOAD).update_wall_s, rel=1e-12)
    with pytest.raises(ValueError, match="critic_zero_stage=4 must be"):
        rl.RLOptions(critic_zero_stage=4)
    with pytest.raises(ValueError, match="offload_pageable"):
        rl.RLOptions(offload_pageable="yes")
    with pytest.raises(ValueError, match="offload_pageable needs a given plan"):
        rl.rl_iteration("llama-2-7b", "A100-80GB", rl.RLOptions(
            algorithm="ppo", critic="llama-2-7b", reward="llama-2-7b", optimizer_offload=True,
            offload_pageable=True, train_plan="auto", prompts_per_step=64, samples_per_prompt=1,
            response_tokens=256, prompt_tokens=256))


def _row(row_id):
    d = rl.load_rl_validation()
    return d[d["id"] == row_id].iloc[0]


#: Each validation row's activation recomputation as its configuration sets it, read at the
#: commit the row cites (path @ commit, the line, what it says): NVIDIA-NeMo/RL recipes set
#: ``policy.megatron_cfg.activation_checkpointing`` (true -> Megatron's full, uniform, 1 layer:
#: nemo_rl/models/policy/megatron_policy_worker.py @ c751f811 l. 601-604, nemo_rl/models/
#: megatron/setup.py @ 5fb5889 l. 470-473) or inherit their base's false; OpenRLHF's and
#: DeepSpeed-Chat's scripts pass --gradient_checkpointing (Hugging Face: every layer recomputed).
RECOMPUTE_AS_RUN = {
    # OpenRLHF/OpenRLHF benchmark/deepspeed-chat/llama_7b.sh, llama_13b.sh @ 0baf3dd, l. 47-48:
    # --actor_gradient_checkpointing, --critic_gradient_checkpointing
    "openrlhf-bench-7b-dschat": ("full", "llama_7b.sh @ 0baf3dd"),
    "openrlhf-bench-13b-dschat": ("full", "llama_13b.sh @ 0baf3dd"),
    # OpenRLHF examples/scripts/train_ppo_llama.sh l. 30, train_ppo_llama_ray.sh l. 37,
    # train_ppo_llama_ray_70b.sh l. 40 @ 0baf3dd: --gradient_checkpointing
    **{k: ("full", "train_ppo_llama_ray.sh") for k in (
        "openrlhf-bench-7b-openrlhf", "openrlhf-bench-7b-ray", "openrlhf-bench-7b-ray-vllm",
        "openrlhf-bench-13b-ray", "openrlhf-bench-13b-ray-vllm", "openrlhf-bench-70b-ray-vllm")},
    # grpo-llama3.1-8b-instruct-2n8g.yaml @ c751f811 l. 25: activation_checkpointing: true
    "nemo-rl-v0.4-llama3.1-8b-on": ("full", "grpo-llama3.1-8b-instruct-2n8g.yaml @ c751f811"),
    "nemo-rl-v0.4-llama3.1-8b-off1": ("full", "grpo-llama3.1-8b-instruct-2n8g.yaml @ c751f811"),
    # grpo-deepseek-v3-32n8g.yaml @ c751f811 and @ 5fb5889, l. 28: true (every DeepSeek-V3
    # recipe derives from it)
    "nemo-rl-v0.4-deepseek-v3-on": ("full", "grpo-deepseek-v3-32n8g.yaml @ c751f811"),
    "nemo-rl-v0.4-deepseek-v3-off1": ("full", "grpo-deepseek-v3-32n8g.yaml @ c751f811"),
    **{k: ("full", "grpo-deepseek-v3-32n8g.yaml @ 5fb5889") for k in (
        "nemo-rl-v0.6-deepseek-v3-on-256", "nemo-rl-v0.6-deepseek-v3-on-512",
        "nemo-rl-v0.6-deepseek-v3-off1", "nemo-rl-v0.6-gb200-deepseek-v3-on-128",
        "nemo-rl-v0.6-gb200-deepseek-v3-on-256", "nemo-rl-v0.6-gb200-deepseek-v3-off1")},
    # grpo-qwen3-235b-16n8g.yaml @ c751f811 l. 31: true
    "nemo-rl-v0.4-qwen3-235b-on": ("full", "grpo-qwen3-235b-16n8g.yaml @ c751f811"),
    "nemo-rl-v0.4-qwen3-235b-off1": ("full", "grpo-qwen3-235b-16n8g.yaml @ c751f811"),
    # grpo-qwen3-30ba3b-4n8g.yaml, grpo-qwen3-32b-4n8g.yaml @ c751f811: no key; base
    # examples/configs/grpo_math_1B.yaml @ c751f811 l. 90: false
    "nemo-rl-v0.4-qwen3-30b-a3b-on": ("none", "grpo_math_1B.yaml @ c751f811"),
    "nemo-rl-v0.4-qwen3-30b-a3b-off1": ("none", "grpo_math_1B.yaml @ c751f811"),
    "nemo-rl-v0.4-qwen3-32b-on": ("none", "grpo_math_1B.yaml @ c751f811"),
    "nemo-rl-v0.4-qwen3-32b-off1": ("none", "grpo_math_1B.yaml @ c751f811"),
    # grpo-qwen3-30ba3b-4n8g.yaml, -4n4g.yaml and their async children @ 5fb5889: no key; base
    # grpo_math_1B.yaml @ 5fb5889 l. 133: false
    **{k: ("none", "grpo_math_1B.yaml @ 5fb5889") for k in (
        "nemo-rl-v0.6-qwen3-30b-a3b-on", "nemo-rl-v0.6-qwen3-30b-a3b-off1",
        "nemo-rl-v0.6-qwen3-30b-a3b-off8", "nemo-rl-v0.6-gb200-qwen3-30b-a3b-on",
        "nemo-rl-v0.6-gb200-qwen3-30b-a3b-off1")},
    # v0.3.0 (b1c86a8): grpo_math_8B/70B/qwen30ba3b_megatron.yaml set no megatron key; base
    # grpo_math_1B_megatron.yaml @ b1c86a8 l. 75: false
    **{k: ("none", "grpo_math_1B_megatron.yaml @ b1c86a8") for k in (
        "nemo-rl-v0.3-llama3.1-8b", "nemo-rl-v0.3-llama3.1-70b", "nemo-rl-v0.3-qwen3-30b-a3b")},
    # v0.5.0 (6c70893): grpo-llama3.1-8b-instruct-2n4g.yaml l. 27: true (its async child keeps
    # it); grpo-qwen3-30ba3b-4n4g.yaml and its async child: no key, base grpo_math_1B.yaml
    # @ 6c70893 l. 97: false
    **{k: ("full", "grpo-llama3.1-8b-instruct-2n4g.yaml @ 6c70893") for k in (
        "nemo-rl-v0.5-gb200-llama3.1-8b-on", "nemo-rl-v0.5-gb200-llama3.1-8b-off1")},
    **{k: ("none", "grpo_math_1B.yaml @ 6c70893") for k in (
        "nemo-rl-v0.5-gb200-qwen3-30b-a3b-on", "nemo-rl-v0.5-gb200-qwen3-30b-a3b-off1")},
}


def test_each_row_recomputes_as_its_config_sets_it():
    d = rl.load_rl_validation()
    assert set(d["id"]) == set(RECOMPUTE_AS_RUN)
    for _, r in d.iterrows():
        mode, cited = RECOMPUTE_AS_RUN[r["id"]]
        assert r["recompute"] == mode, r["id"]
        assert r["recompute_source"].startswith(mode + ":"), r["id"]
        assert cited.split(" @ ")[0] in r["recompute_source"], r["id"]
        if " @ " in cited:
            assert cited.split(" @ ")[1] in r["recompute_source"], r["id"]
        if r["split"] != "not_evaluated":        # no catalogue model to price
            assert rl.validation_setup(r)["train_plan"]["recompute"] == mode
    bad = {**_row("nemo-rl-v0.3-llama3.1-8b").to_dict(), "recompute": "yes"}
    with pytest.raises(ValueError, match="recompute='yes' must be one of"):
        rl.validation_setup(bad)


#: The vLLM engine object each NeMo RL row's recipe builds, read at the commit the row cites:
#: (api, the file that decides it, the line of its ``async_engine`` setting). AsyncLLM where
#: the recipe (or a recipe it inherits from) sets ``policy.generation.vllm_cfg.async_engine:
#: true``; LLM where none does and the base grpo_math_1B.yaml's ``false`` holds.
VLLM_API_AS_RUN = {
    "nemo-rl-v0.4-llama3.1-8b-on": ("LLM", "grpo_math_1B.yaml @ c751f811", 210),
    "nemo-rl-v0.4-llama3.1-8b-off1": ("AsyncLLM",
                                      "grpo-llama3.1-8b-instruct-2n8g-async-1off.yaml @ c751f811",
                                      19),
    "nemo-rl-v0.4-deepseek-v3-on": ("AsyncLLM", "grpo-deepseek-v3-32n8g.yaml @ c751f811", 47),
    "nemo-rl-v0.4-deepseek-v3-off1": ("AsyncLLM",
                                      "grpo-deepseek-v3-64n8g-async-1off.yaml @ c751f811", 26),
    "nemo-rl-v0.4-qwen3-30b-a3b-on": ("LLM", "grpo_math_1B.yaml @ c751f811", 210),
    "nemo-rl-v0.4-qwen3-30b-a3b-off1": ("AsyncLLM",
                                        "grpo-qwen3-30ba3b-4n8g-async-1off.yaml @ c751f811", 24),
    "nemo-rl-v0.4-qwen3-32b-on": ("LLM", "grpo_math_1B.yaml @ c751f811", 210),
    "nemo-rl-v0.4-qwen3-32b-off1": ("AsyncLLM", "grpo-qwen3-32b-8n8g-async-1off.yaml @ c751f811",
                                    23),
    "nemo-rl-v0.4-qwen3-235b-on": ("AsyncLLM", "grpo-qwen3-235b-16n8g.yaml @ c751f811", 49),
    "nemo-rl-v0.4-qwen3-235b-off1": ("AsyncLLM",
                                     "grpo-qwen3-235b-32n8g-async-1off.yaml @ c751f811", 28),
    "nemo-rl-v0.6-deepseek-v3-on-256": ("AsyncLLM", "grpo-deepseek-v3-32n8g.yaml @ 5fb5889", 49),
    "nemo-rl-v0.6-deepseek-v3-on-512": ("AsyncLLM", "grpo-deepseek-v3-32n8g.yaml @ 5fb5889", 49),
    "nemo-rl-v0.6-deepseek-v3-off1": ("AsyncLLM",
                                      "grpo-deepseek-v3-64n8g-async-1off.yaml @ 5fb5889", 26),
    "nemo-rl-v0.6-qwen3-30b-a3b-on": ("LLM", "grpo_math_1B.yaml @ 5fb5889", 292),
    "nemo-rl-v0.6-qwen3-30b-a3b-off1": ("AsyncLLM",
                                        "grpo-qwen3-30ba3b-4n8g-async-1off.yaml @ 5fb5889", 24),
    "nemo-rl-v0.6-qwen3-30b-a3b-off8": ("AsyncLLM",
                                        "grpo-qwen3-30ba3b-24n8g-async-8off.yaml @ 5fb5889", 24),
    "nemo-rl-v0.6-gb200-deepseek-v3-on-128": ("AsyncLLM", "grpo-deepseek-v3-32n8g.yaml @ 5fb5889",
                                              49),
    "nemo-rl-v0.6-gb200-deepseek-v3-on-256": ("AsyncLLM", "grpo-deepseek-v3-32n8g.yaml @ 5fb5889",
                                              49),
    "nemo-rl-v0.6-gb200-deepseek-v3-off1": ("AsyncLLM",
                                            "grpo-deepseek-v3-64n8g-async-1off.yaml @ 5fb5889",
                                            26),
    "nemo-rl-v0.6-gb200-qwen3-30b-a3b-on": ("LLM", "grpo_math_1B.yaml @ 5fb5889", 292),
    "nemo-rl-v0.6-gb200-qwen3-30b-a3b-off1": (
        "AsyncLLM", "grpo-qwen3-30ba3b-4n4g-async-1off.yaml @ 5fb5889", 24),
    **{k: ("LLM", "grpo_math_1B.yaml @ b1c86a8", 111) for k in (
        "nemo-rl-v0.3-llama3.1-8b", "nemo-rl-v0.3-llama3.1-70b", "nemo-rl-v0.3-qwen3-30b-a3b")},
    # v0.5.0 (6c70893): the on-policy recipes set no async_engine, base grpo_math_1B.yaml
    # l. 229 false; the async children set it true
    **{k: ("LLM", "grpo_math_1B.yaml @ 6c70893", 229) for k in (
        "nemo-rl-v0.5-gb200-llama3.1-8b-on", "nemo-rl-v0.5-gb200-qwen3-30b-a3b-on")},
    "nemo-rl-v0.5-gb200-llama3.1-8b-off1": (
        "AsyncLLM", "grpo-llama3.1-8b-instruct-2n4g-async-1off.yaml @ 6c70893", 23),
    "nemo-rl-v0.5-gb200-qwen3-30b-a3b-off1": (
        "AsyncLLM", "grpo-qwen3-30ba3b-8n4g-async-1off.yaml @ 6c70893", 24),
}


def test_each_nemo_rl_row_runs_the_vllm_engine_its_recipe_builds():
    d = rl.load_rl_validation()
    nemo = d[d["system"] == "NeMo RL"]
    assert set(nemo["id"]) == set(VLLM_API_AS_RUN)
    assert d[d["system"] != "NeMo RL"]["vllm_api"].isna().all()
    for _, r in nemo.iterrows():
        api, cited, line = VLLM_API_AS_RUN[r["id"]]
        assert r["vllm_api"] == api, r["id"]
        src = r["vllm_api_source"]
        assert src.startswith(api + ":") and f"(line {line})" in src, r["id"]
        assert cited.split(" @ ")[0] in src and cited.split(" @ ")[1] in src, r["id"]
        assert pd.isna(r["gen_micro_batch"])          # no recipe sets max_num_seqs
        if r["split"] != "not_evaluated":
            # vLLM 0.10.0 / 0.17.1: AsyncLLM's ENGINE_CONTEXT falls back to the scheduler's 128;
            # LLM_CLASS on a GPU of >= 70 GiB that is not an A100 (H100, GB200): 1024
            want = 128 if api == "AsyncLLM" else 1024
            assert rl.validation_setup(r)["max_concurrent"] == want, r["id"]
    # OpenRLHF's and DeepSpeed-Chat's rows keep their table's micro-batch
    assert rl.validation_setup(_row("openrlhf-bench-13b-ray-vllm"))["max_concurrent"] == 8
    bad = {**_row("nemo-rl-v0.3-llama3.1-8b").to_dict(), "vllm_api": "AsyncLLMEngine"}
    with pytest.raises(ValueError, match="vllm_api='AsyncLLMEngine' must be one of"):
        rl.validation_setup(bad)


def test_vllm_default_max_num_seqs_by_hand():
    # vllm/engine/arg_utils.py (0.10.0 l. 1584-1603, 0.17.1 l. 1974-1993): "if device_memory >=
    # 70 * GiB_bytes and 'a100' not in device_name" -> LLM_CLASS 1024, else 256; AsyncLLM's
    # ENGINE_CONTEXT is in neither table -> SchedulerConfig's 128 (0.17.1
    # vllm/config/scheduler.py l. 43 DEFAULT_MAX_NUM_SEQS = 128; 0.10.0 vllm/config.py l. 2389).
    assert rl.vllm_default_max_num_seqs("LLM", "H100-SXM") == 1024        # 80 GiB
    assert rl.vllm_default_max_num_seqs("LLM", "GB200-NVL72") == 1024     # 186 GiB
    assert rl.vllm_default_max_num_seqs("LLM", "A100-80GB") == 256        # an A100
    assert rl.vllm_default_max_num_seqs("LLM", "A100-40GB") == 256
    for acc in ("H100-SXM", "GB200-NVL72", "A100-40GB"):
        assert rl.vllm_default_max_num_seqs("AsyncLLM", acc) == 128
    with pytest.raises(ValueError, match="vllm_api='vllm' must be one of"):
        rl.vllm_default_max_num_seqs("vllm", "H100-SXM")


def test_async_engine_cap_on_the_qwen3_one_step_off_row_by_hand():
    # NeMo RL v0.6, Qwen3-30B-A3B 1-step off-policy on 32 H100 (grpo-qwen3-30ba3b-4n8g-async-1off
    # .yaml @ 5fb5889): 16 generation GPUs at vLLM TP 2 = 8 replicas, 64 x 32 = 2,048 responses
    # per step, 256 per replica. Without a cap the replica holds as many as its KV cache allows
    # at the mean context (231 of the 256); vLLM's AsyncLLM runs at most 128, so a replica
    # decodes its responses in waves and the generation takes longer (regression pin of the
    # two generation times beside the hand counts: 119.8 s -> 136.7 s with the serving constants
    # refitted on vLLM's A100/H100/H200 benchmark builds; 141.6 s -> 162.7 s before).
    r = _row("nemo-rl-v0.6-qwen3-30b-a3b-off1")
    kw = rl.validation_setup(r)
    assert kw["max_concurrent"] == 128
    assert (kw["rollout_gpus"] // kw["rollout_tp"], 2048 // 8) == (8, 256)
    capped = rl.validation_iteration(r)
    free = rl.validation_iteration(r, max_concurrent=None)
    assert capped.generation_wall_s > 1.1 * free.generation_wall_s
    assert free.generation_wall_s == pytest.approx(119.8, rel=0.05)
    assert capped.generation_wall_s == pytest.approx(136.7, rel=0.05)


#: NeMo RL's "Tokens / sec / GPU" cells (performance-summary.md: the v0.4 table @ 06beed9, the
#: v0.6 H100 BF16 and GB200 BF16 tables @ 5fb5889, the v0.5 GB200 BF16 table @ 6c70893),
#: transcribed by hand from the tables.
TOKENS_PER_S_PER_GPU = {
    "nemo-rl-v0.4-llama3.1-8b-on": "1,562", "nemo-rl-v0.4-llama3.1-8b-off1": "2,161",
    "nemo-rl-v0.4-deepseek-v3-on": "11", "nemo-rl-v0.4-deepseek-v3-off1": "11.0",
    "nemo-rl-v0.4-qwen3-30b-a3b-on": "925", "nemo-rl-v0.4-qwen3-30b-a3b-off1": "864",
    "nemo-rl-v0.4-qwen3-32b-on": "540", "nemo-rl-v0.4-qwen3-32b-off1": "494",
    "nemo-rl-v0.4-qwen3-235b-on": "45.7", "nemo-rl-v0.4-qwen3-235b-off1": "52.2",
    "nemo-rl-v0.6-deepseek-v3-on-256": "12.1", "nemo-rl-v0.6-deepseek-v3-on-512": "7.24",
    "nemo-rl-v0.6-deepseek-v3-off1": "12.8", "nemo-rl-v0.6-qwen3-30b-a3b-on": "1102",
    "nemo-rl-v0.6-qwen3-30b-a3b-off1": "1414", "nemo-rl-v0.6-qwen3-30b-a3b-off8": "1025",
    "nemo-rl-v0.6-gb200-deepseek-v3-on-128": "30.2",
    "nemo-rl-v0.6-gb200-deepseek-v3-on-256": "16.4",
    "nemo-rl-v0.6-gb200-deepseek-v3-off1": "26.7",
    "nemo-rl-v0.6-gb200-qwen3-30b-a3b-on": "1,910",
    "nemo-rl-v0.6-gb200-qwen3-30b-a3b-off1": "1,406",
    # v0.5 GB200 BF16 table @ 6c70893 (tag v0.5.0)
    "nemo-rl-v0.5-gb200-llama3.1-8b-on": "3,359", "nemo-rl-v0.5-gb200-llama3.1-8b-off1": "4,463",
    "nemo-rl-v0.5-gb200-qwen3-30b-a3b-on": "1,822",
    "nemo-rl-v0.5-gb200-qwen3-30b-a3b-off1": "1,558",
}


def test_nemo_rl_lengths_as_the_summary_counts_them():
    d = rl.load_rl_validation()
    cells = d.dropna(subset=["tokens_per_s_per_gpu"]).set_index("id")
    assert set(cells.index) == set(TOKENS_PER_S_PER_GPU)
    for rid, cell in TOKENS_PER_S_PER_GPU.items():
        assert cells.loc[rid, "tokens_per_s_per_gpu"] == pytest.approx(
            float(cell.replace(",", ""))), rid
        assert f"Tokens / sec / GPU {cell} (" in cells.loc[rid, "tokens_per_s_per_gpu_quote"], rid
    # By hand, v0.6 DeepSeek-V3 on 256 H100 (12.1 tokens/s/GPU, 134 s, 32 x 16 = 512 samples,
    # G-Average Seq len 701, T-Max 1,536): 12.1 x 134 x 256 / 512 = 810.7 tokens per sample,
    # prompt 811 - 701 = 110, mean response 701, longest 1,536 - 110 = 1,426.
    assert rl.row_lengths(_row("nemo-rl-v0.6-deepseek-v3-on-256")) == (110, 701.0, 1426.0)
    kw = rl.validation_setup(_row("nemo-rl-v0.6-deepseek-v3-on-256"))
    assert (kw["prompt_tokens"], kw["response_tokens"], kw["response_tokens_max"]) \
        == (110, 701.0, 1426.0)
    # The evidence that "G-Average Seq len" leaves the prompt out: over the evaluated rows the
    # summary's token count per sample exceeds it by a near-constant prompt (98-157 tokens:
    # OpenMathInstruct-2 problems in a chat template) while the ratio runs 1.03 (Qwen3-30B-A3B,
    # ~3,200 tokens) to 1.16 (DeepSeek-V3, ~700): an added prompt, not an averaging error.
    ev = d[d["tokens_per_s_per_gpu"].notna() & (d["split"] != "not_evaluated")]
    prompts = np.array([rl.row_lengths(r)[0] for _, r in ev.iterrows()])
    g = ev["avg_sequence_tokens"].to_numpy()
    ratio = (prompts + g) / g
    # on-policy rows 98-132; the asynchronous ones, whose table averages five steps, up to
    # 599 (Qwen3-235B one step off: 52.2 x 241 x 256 / 512 = 6,290 - 5,691), as
    # rl.row_lengths' docstring says
    on = ev["on_policy"].to_numpy() == 1
    assert prompts[on].min() >= 95 and prompts[on].max() <= 160
    assert prompts[~on].min() >= 95 and prompts[~on].max() <= 1059
    assert ratio.min() < 1.04 and ratio.max() > 1.15
    # v0.3 rows (no throughput cell): the blog's mean generated tokens, the assumed prompt
    p = rl.ASSUMED_PROMPT_TOKENS
    assert rl.row_lengths(_row("nemo-rl-v0.3-qwen3-30b-a3b")) == (p, 3251.0, 4096.0 - p)
    # OpenRLHF: the limits
    assert rl.row_lengths(_row("openrlhf-bench-13b-ray")) == (1024, 1024.0, None)
    bad = {**_row("nemo-rl-v0.6-qwen3-30b-a3b-on").to_dict(), "tokens_per_s_per_gpu": 900.0}
    with pytest.raises(ValueError, match="tokens_per_s_per_gpu=900 gives"):
        rl.row_lengths(bad)


def test_full_recomputation_by_hand():
    # Full recomputation repeats each layer's forward (2N per token) in the backward: 8N
    # instead of 6N per token, 4/3 of the time when every FLOP runs at one rate; the optimizer
    # step and the gradient all-reduce are not recomputed, so a dense data-parallel update is
    # a little under 4/3 slower. The forward-only passes (log-probabilities) recompute nothing:
    # they run at the step's hardware-FLOPs rate (HFU), the same either way (to the step's
    # small non-FLOP parts). NeMo RL v0.3's Llama-3.1-8B row (DP 8, no recomputation):
    row = _row("nemo-rl-v0.3-llama3.1-8b")
    plan = {**rl.validation_setup(row)["train_plan"], "recompute": "full"}
    full, none = rl.validation_iteration(row, train_plan=plan), rl.validation_iteration(row)
    assert 1.2 < full.update_wall_s / none.update_wall_s < 4 / 3 + 0.01
    assert full.experience_wall_s / none.experience_wall_s == pytest.approx(1.0, abs=0.02)


def test_asynchronous_depth_keeps_k_iterations_in_flight():
    # NeMo RL v0.6, Qwen3-30B-A3B, 8-step off-policy on 192 H100s (64 generate, 128 train):
    # 34.5 s per step (performance summary). With one iteration in flight each of the 32
    # rollout replicas holds 64 sequences and waits for its longest (~2x the published step);
    # with k = 8 iterations in flight the slots the long responses leave are refilled.
    # k = 8 gives 34.4 s (with vLLM's default cap of 128 sequences per AsyncLLM replica and the
    # responses as the summary counts them; 0.80 of the step before those two readings), within
    # 25 % of the published step; k = 1 stays above 1.5x it.
    row = _row("nemo-rl-v0.6-qwen3-30b-a3b-off8")
    k8 = rl.validation_iteration(row).wall_s
    k1 = rl.validation_iteration(row, off_policy_steps=1).wall_s
    assert k8 == pytest.approx(34.5, rel=0.25)
    assert k1 > 1.5 * 34.5
    # synchronous runs ignore the depth
    kw = dict(prompts_per_step=8, samples_per_prompt=4, prompt_tokens=64, response_tokens=64,
              response_tokens_max=512, train_mfu=0.4)
    a = rl.rl_iteration("llama-3.1-8b", "H100-SXM", off_policy_steps=1, **kw)
    b = rl.rl_iteration("llama-3.1-8b", "H100-SXM", off_policy_steps=4, **kw)
    assert a.wall_s == b.wall_s


def test_validation_rows_take_the_recipes_engine_memory_and_pipeline_split():
    # NeMo RL's base GRPO config gives vLLM gpu_memory_utilization 0.6 (colocated), its async
    # recipes 0.8: the rest of the HBM is the rollout reserve. DeepSeek-V3's recipe splits its
    # 61 layers over PP 16 unevenly (first stage 3 layers, last 2): the row is priced, not refused.
    on = rl.validation_setup(_row("nemo-rl-v0.4-llama3.1-8b-on"))
    off = rl.validation_setup(_row("nemo-rl-v0.4-llama3.1-8b-off1"))
    assert on["rollout_reserve_fraction"] == pytest.approx(0.4)
    assert off["rollout_reserve_fraction"] == pytest.approx(0.2)
    assert rl.validation_setup(_row("openrlhf-bench-13b-ray-vllm"))[
        "rollout_reserve_fraction"] == pytest.approx(0.1)   # vLLM's default 0.9
    ds = rl.validation_setup(_row("nemo-rl-v0.4-deepseek-v3-on"))
    assert ds["train_plan"]["pp_split"] == "uneven"
    assert rl.validation_iteration(_row("nemo-rl-v0.4-deepseek-v3-on")).wall_s > 0


def test_auto_training_plan_fits_and_is_the_fastest_the_step_model_finds():
    # Llama-2-70B on 64 H100s: the default plan (ZeRO-1, TP 1) would hold 70e9 × (2 bytes
    # weights + 2 bytes gradients) = 280 GB per GPU, more than 80 GB; "auto" picks a plan that
    # fits (parallel.choose_plan among the default stack's plans, parallel.stack_plan_search,
    # ranked by step.time_ranking).
    m, acc = llmcost.load_model("llama-2-70b"), llmcost.load_accelerator("H100-SXM")
    auto = rl.train_step(m, acc, 64, 512, 1536, train_plan="auto")
    cluster = Cluster(acc, 64)
    plan = choose_plan(m, cluster, 512, 1536, **stack_plan_search(DEFAULT_STACK),
                       rank=step.time_ranking(m, cluster, 1536))
    assert plan.describe() == auto.plan
    assert bool(llmcost.memory_per_gpu(m, plan, seq_len=1536).fits(acc.hbm_bytes))
    default = make_plan(m, 64, 512, seq_len=1536, zero_stage=1, micro_batch_size=1,
                        recompute="full")
    assert not bool(llmcost.memory_per_gpu(m, default, seq_len=1536).fits(acc.hbm_bytes))
    with pytest.raises(ValueError, match="train_plan"):
        rl.train_step(m, acc, 64, 512, 1536, train_plan="fastest")


def test_training_passes_use_the_step_time_model_unless_overridden():
    kw = dict(prompts_per_step=16, samples_per_prompt=4, prompt_tokens=256,
              response_tokens=256, n_gpus=8, engine="roofline", weight_sync_s=0.0)
    it = rl.rl_iteration("llama-3.1-8b", "H100-SXM", **kw)
    m, acc = llmcost.load_model("llama-3.1-8b"), llmcost.load_accelerator("H100-SXM")
    plan = make_plan(m, 8, 64, zero_stage=1, micro_batch_size=1, recompute="full", seq_len=512)
    bd = llmcost.step_time(m, Cluster(acc, 8), plan, 512)
    # reference + update = 2N + 6N per token on 8 GPUs of 989.4 TFLOP/s: the update at the
    # step's MFU, the reference's forward (no recomputation) at its HFU (rl.training_mfu)
    # both on the passes' 6N basis (rl.six_n_share: step_time's MFU counts F(s) per token)
    k = rl.six_n_share(m, 512)
    expect = (2 / bd.hfu + 6 / bd.mfu) / k * m.n_active_params * 64 * 512 / (8 * 989.4e12)
    assert bd.hfu > bd.mfu
    assert it.train_wall_s == pytest.approx(expect, rel=1e-6)
    flat = rl.rl_iteration("llama-3.1-8b", "H100-SXM", train_mfu=0.4, **kw)
    assert flat.train_wall_s == pytest.approx(8 * m.n_active_params * 64 * 512
                                              / (8 * 989.4e12 * 0.4), rel=1e-6)


def test_hf_generate_is_slower_than_vllm_and_vllm_than_the_roofline():
    kw = dict(prompts_per_step=16, samples_per_prompt=4, prompt_tokens=256,
              response_tokens=512, response_tokens_max=2048, n_gpus=8, max_concurrent=8,
              train_mfu=0.4)
    g = {e: rl.rl_iteration("llama-3.1-8b", "H100-SXM", engine=e, **kw).generation_wall_s
         for e in ("roofline", "vLLM", "HF generate")}
    assert g["roofline"] < g["vLLM"] < g["HF generate"]


def test_static_batching_waits_for_the_longest_of_each_micro_batch():
    # Engine order 0, 2, 1, 3 (rollout_time's interleaving): micro-batches of 2 are (10, 1) and
    # (10, 1) -> 2 × 10 decode steps, against 11 with continuous batching of 2 slots (the
    # short ones free a slot at once: 10 on one slot, 1 + 10 on the other).
    lengths = [10, 10, 1, 1]
    st = rl.rollout_time("llama-3.1-8b", "H100-SXM", 16, lengths, max_concurrent=2,
                         engine="HF generate")
    cb = rl.rollout_time("llama-3.1-8b", "H100-SXM", 16, lengths, max_concurrent=2,
                         engine="vLLM")
    assert st["steps"] == 20
    assert cb["steps"] == 11


def test_rollout_tp_across_nodes_is_priced_at_the_scale_out_links():
    # TP 16 on 8-GPU H100 nodes: two nodes per replica, accepted, and slower per step than TP 8
    # inside one node would be at equal work per GPU (all-reduces over 50 GB/s NICs instead of
    # 450 GB/s NVLink).
    kw = dict(prompts_per_step=8, samples_per_prompt=4, prompt_tokens=256, response_tokens=256,
              train_mfu=0.4, engine="roofline")
    it = rl.rl_iteration("llama-3.1-70b", "H100-SXM", n_gpus=16, rollout_tp=16, **kw)
    assert "across 2 scale-up domains" in it.notes
    acc = llmcost.load_accelerator("H100-SXM")
    assert acc.scaleout_bytes_per_s_per_dir < acc.scaleup_bytes_per_s_per_dir


def test_weight_sync_by_bytes_and_links():
    # Llama-3.1-8B bf16 (2 bytes × 8.03e9) to rollout TP 1: colocated over NVLink (450 GB/s per
    # direction) vs separate over one 400 Gb/s NIC (50 GB/s), each at its achievable fraction.
    acc = llmcost.load_accelerator("H100-SXM")
    eff = llmcost.load_efficiency("H100-SXM")
    w = 2 * llmcost.load_model("llama-3.1-8b").n_params
    co = rl.weight_sync_time("llama-3.1-8b", "H100-SXM", colocated=True)
    sep = rl.weight_sync_time("llama-3.1-8b", "H100-SXM", colocated=False)
    assert co == pytest.approx(w / (acc.scaleup_bytes_per_s_per_dir * eff.scaleup_fraction),
                               rel=0.02)
    assert sep == pytest.approx(w / (acc.scaleout_bytes_per_s_per_dir * eff.scaleout_fraction),
                                rel=0.02)
    # a training group spanning nodes (PP 16) re-lays out over the NICs even when colocated
    span = rl.weight_sync_time("llama-3.1-8b", "H100-SXM", colocated=True,
                               train_plan={"pp": 16})
    assert span == pytest.approx(sep, rel=1e-9)
    # Separate rollout GPUs receive every tensor whole (NeMo RL v0.4's
    # broadcast_weights_for_collective exports full HF tensors and broadcasts them from rank 0;
    # OpenRLHF's _broadcast_to_vllm broadcasts each full parameter): DeepSeek-V3's 671e9 × 2 B
    # = 1,342 GB cross one 400 Gb/s NIC whatever the rollout TP, ≈ 30 s at 90 %; colocated, the
    # re-layout moves only each GPU's shard (W / TP).
    w3 = 2 * llmcost.load_model("deepseek-v3").n_params
    nic = acc.scaleout_bytes_per_s_per_dir * eff.scaleout_fraction
    for tp in (1, 8, 32):
        assert rl.weight_sync_time("deepseek-v3", "H100-SXM", colocated=False, rollout_tp=tp) \
            == pytest.approx(w3 / nic, rel=1e-9)
    assert w3 / nic == pytest.approx(1342e9 / (50e9 * eff.scaleout_fraction), rel=0.01)
    assert rl.weight_sync_time("llama-3.1-8b", "H100-SXM", colocated=True, rollout_tp=8) \
        == pytest.approx(co / 8, rel=1e-9)


def test_nemo_rl_refit_is_the_measured_one_scaled_by_bytes():
    # NeMo RL blog (2025-08-12), Table 1, NeMo-RL v0.3, DeepSeek V3 (EP64PP8 -> TP64): policy
    # parameter gather 12.2 s + IPC handle transfer 33.5 s + generation update 1.5 s = 47.2 s.
    assert rl.nemo_rl_refit_time("deepseek-v3") == pytest.approx(12.2 + 33.5 + 1.5, rel=1e-9)
    # by hand, by bytes: Qwen3-30B-A3B's checkpoint holds 30,532,122,624 bf16 parameters
    # (safetensors total_size 61,064,245,248 B) against DeepSeek-V3's 671B (its report), so
    # 47.2 × 30.53 / 671 = 2.15 s (the catalogue's counts differ from these by < 0.1 % and
    # 2 % (DeepSeek-V3's count beside the MTP module): 2 % two-sided)
    assert rl.nemo_rl_refit_time("qwen3-30b-a3b") == pytest.approx(47.2 * 30.532 / 671,
                                                                   rel=0.02)
    # From v0.4.0 NeMo RL streams the weights (grpo.py refit_policy_generation @ c751f811 l. 801:
    # stream_weights_via_ipc_zmq; @ b1c86a8, v0.3.0, l. 428: get_weights_ipc_handles), whose
    # author measured "~35 seconds" for DeepSeek-V3 (NVIDIA-NeMo/RL pull 1267, 2025-10-18):
    # 35 s, and 35 × 30.53 / 671 = 1.59 s for Qwen3-30B-A3B; the v0.4 / v0.6 rows take it.
    assert rl.nemo_rl_refit_time("deepseek-v3", "nemo-rl-v0.4") == pytest.approx(35.0, rel=1e-9)
    assert rl.nemo_rl_refit_time("qwen3-30b-a3b", "nemo-rl-v0.4") == pytest.approx(
        35.0 * 30.532 / 671, rel=0.02)
    with pytest.raises(ValueError, match="refit='links'"):
        rl.nemo_rl_refit_time("deepseek-v3", "links")
    refits = {r["id"]: rl.row_refit(r) for _, r in rl.load_rl_validation().iterrows()}
    assert refits["nemo-rl-v0.3-llama3.1-8b"] == "nemo-rl"
    assert refits["nemo-rl-v0.4-deepseek-v3-on"] == refits["nemo-rl-v0.6-deepseek-v3-on-256"] \
        == "nemo-rl-v0.4"
    assert refits["nemo-rl-v0.6-deepseek-v3-off1"] == "nemo-rl-v0.4"
    assert refits["openrlhf-bench-7b-dschat"] == "links"
    # Separate rollout GPUs from v0.4.0 on: the overlapped NCCL broadcast, measured 34 s -> 14 s
    # for DeepSeek-V3 (NVIDIA-NeMo/RL pull 1379; NRL_REFIT_NUM_BUFFERS in
    # nemo_rl/utils/packed_tensor.py @ c751f811 l. 36): 14 s, 14 × 30.53 / 671 = 0.64 s for
    # Qwen3-30B-A3B; the v0.6 DeepSeek-V3 1-step off-policy row syncs in 14 s.
    assert rl.nemo_rl_refit_time("deepseek-v3", "nemo-rl-v0.4", colocated=False) \
        == pytest.approx(14.0, rel=1e-9)
    assert rl.nemo_rl_refit_time("qwen3-30b-a3b", "nemo-rl-v0.4", colocated=False) \
        == pytest.approx(14 * 30.532 / 671, rel=0.02)
    it = rl.validation_iteration(_row("nemo-rl-v0.6-deepseek-v3-off1"))
    assert it.parts_gpu_s["weight_sync"] / it.n_gpus == pytest.approx(14.0, rel=1e-9)
    with pytest.raises(ValueError, match="colocated=False"):
        rl.nemo_rl_refit_time("deepseek-v3", "nemo-rl", colocated=False)
    # colocated NeMo RL iterations pay it whatever the GPU count (it does not shrink with GPUs);
    # separate rollout GPUs fall back to the links; the default prices by links
    kw = dict(prompts_per_step=8, samples_per_prompt=4, prompt_tokens=128, response_tokens=128,
              rollout_tp=1, train_mfu=0.4)
    a = rl.rl_iteration("llama-3.1-8b", "H100-SXM", n_gpus=8, refit="nemo-rl", **kw)
    b = rl.rl_iteration("llama-3.1-8b", "H100-SXM", n_gpus=16, refit="nemo-rl", **kw)
    sync = rl.nemo_rl_refit_time("llama-3.1-8b")
    assert a.parts_gpu_s["weight_sync"] == pytest.approx(8 * sync)
    assert b.parts_gpu_s["weight_sync"] == pytest.approx(16 * sync)
    links = rl.rl_iteration("llama-3.1-8b", "H100-SXM", n_gpus=8, **kw)
    assert links.parts_gpu_s["weight_sync"] == pytest.approx(
        8 * rl.weight_sync_time("llama-3.1-8b", "H100-SXM", colocated=True))
    sep = rl.rl_iteration("llama-3.1-8b", "H100-SXM", n_gpus=16, rollout_gpus=8,
                          refit="nemo-rl", **kw)
    assert sep.parts_gpu_s["weight_sync"] == pytest.approx(
        16 * rl.weight_sync_time("llama-3.1-8b", "H100-SXM", colocated=False))


@pytest.mark.parametrize("kw, field", [
    (dict(engine="tgi"), "engine"),
    (dict(train_plan={"tq": 2}), "train_plan"),
    (dict(train_plan={"tp": 3}), "train_plan"),
    (dict(train_plan=[1]), "train_plan"),
    (dict(train_mfu=1.5), "train_mfu"),
    (dict(hf_s_per_layer_step=-1.0, engine="HF generate"), "hf_s_per_layer_step"),
    (dict(refit="ipc"), "refit"),
    (dict(refit=None), "refit"),
])
def test_bad_input_is_refused_with_the_field_named(kw, field):
    with pytest.raises(ValueError, match=field):
        rl.rl_iteration("llama-3.1-8b", "H100-SXM", prompts_per_step=4, samples_per_prompt=2,
                        prompt_tokens=64, response_tokens=64, n_gpus=8, **kw)


def test_validation_modes_refused():
    row = rl.load_rl_validation().iloc[0]
    with pytest.raises(ValueError, match="mode"):
        rl.validation_iteration(row, mode="after")
    assert isinstance(rl.rl_validation("model", split="calibration"), pd.DataFrame)


def test_validation_variants_are_the_validation_ratios():
    # the "model" variant is rl_validation's ratio row by row (NaN where a run is not priced)
    v = rl.validation_variants({"model": {}, "flat MFU": dict(train_mfu=rl.DEFAULT_TRAIN_MFU)})
    ref = rl.rl_validation("model", split="heldout").set_index("id")["ratio"]
    assert list(v.columns) == ["model", "flat MFU"]
    assert v["model"].to_dict() == pytest.approx(ref.to_dict(), rel=1e-12, nan_ok=True)
    assert (v["flat MFU"] != v["model"]).any()  # the variant changes the prediction


def test_generation_share_gaps_by_hand():
    # A run of 100 s with a published 60 s generation phase, priced at 90 s generation and 30 s
    # rest (120 s): share 0.75 vs 0.60, a gap of 15 points. With the published generation the
    # model's share is 60 / (60 + 30) = 0.667 (the generation error adds 8.3 points); with the
    # published rest (40 s), 90 / (90 + 40) = 0.692 (the rest's error adds 5.8 points).
    df = pd.DataFrame({"id": ["x", "no-phases"], "system": ["s", "s"], "split": ["heldout"] * 2,
                       "measured_s": [100.0, 50.0], "measured_gen_s": [60.0, np.nan],
                       "predicted_s": [120.0, 40.0], "predicted_gen_s": [90.0, 20.0]})
    g = rl.generation_share_gaps(df)
    assert list(g["id"]) == ["x"]
    r = g.iloc[0]
    assert r["measured_share"] == pytest.approx(0.60)
    assert r["model_share"] == pytest.approx(0.75)
    assert r["gap_points"] == pytest.approx(15.0)
    assert r["gen_ratio"] == pytest.approx(1.5)
    assert r["rest_ratio"] == pytest.approx(30 / 40)
    assert r["share_gen_fixed"] == pytest.approx(60 / 90)
    assert r["share_rest_fixed"] == pytest.approx(90 / 130)
    assert r["gap_from_gen"] == pytest.approx(100 * (0.75 - 60 / 90))
    assert r["gap_from_rest"] == pytest.approx(100 * (0.75 - 90 / 130))


def test_share_gap_comes_from_training_on_deepspeed_rows():
    # Regression pin of the diagnosis (the model's own outputs, not a check against the world):
    # DeepSpeed-Chat's 13B row's share gap, 14.9 points (20.4 before its offload's pageable
    # copies, rl.RLOptions.offload_pageable; 22.3 before its SDPA steps overlapped HF generate's
    # host cost with the GPU's work, rl.hf_host_overlaps; 24.1 before HF generate's cache
    # concatenation, rl.HF_GENERATE_KV_COPIES), owes more of it to the training phase the model
    # under-prices (0.55 of published) than to its generation.
    g = rl.generation_share_gaps(rl.rl_validation("model")).set_index("id")
    r = g.loc["openrlhf-bench-13b-dschat"]
    assert r["gap_points"] == pytest.approx(14.9, abs=1.0)
    assert r["gap_from_rest"] > r["gap_from_gen"] > 0


def test_nemo_rl_host_swaps_by_hand():
    # NeMo RL's Megatron policy worker (NVIDIA-NeMo/RL @ 06beed9 megatron_policy_worker.py,
    # grpo.py): per step the reference swap moves 3 BF16 copies of the policy shard S
    # (policy out, reference in, policy back); colocated, the weights go out and back (2
    # copies), the Adam moments (8 B per parameter, sharded over the trainer GPUs) out and back,
    # and vLLM's weights (sleep level 1, wake_up) out and back. The BF16 gradient buffers are
    # released and re-zeroed, not copied (Megatron-Core _ParamAndGradBuffer.offload_to_cpu /
    # reload_from_cpu, terrykong/Megatron-LM param_and_grad_buffer.py @ 17433c1e).
    # Llama-3.1-8B (dense), TP 1 PP 1 on 8 colocated GPUs, vLLM TP 1: S = N.
    m = llmcost.load_model("llama-3.1-8b")
    n = float(m.n_params)
    b = rl.nemo_rl_swap_bytes(m, dict(tp=1, pp=1), n_train_gpus=8, rollout_tp=1)
    assert b["reference"] == pytest.approx(3 * 2 * n)
    assert b["colocation"] == pytest.approx(2 * 2 * n + 2 * 8 * n / 8 + 2 * 2 * n)
    # over H100's PCIe Gen5 x16 (64 GB/s per direction): 8.03e9 · (6 + 10) B / 64e9 ≈ 2.0 s
    o = rl.RLOptions.build(n_gpus=8, train_plan=dict(tp=1, pp=1), host_swaps=True)
    t = rl.host_swap_times(m, llmcost.load_accelerator("H100-SXM"), o)
    assert t["reference"] + t["colocation"] == pytest.approx(16 * n / 64e9)
    assert 1.8 < t["reference"] + t["colocation"] < 2.2
    assert rl.host_swap_times(m, llmcost.load_accelerator("H100-SXM"),
                              o.replace(host_swaps=False)) == {"reference": 0.0,
                                                                "colocation": 0.0}
    # MoE: the routed experts are sharded over ETP·EP, the rest over TP·PP; separate rollout
    # GPUs keep the reference swap only. NeMo RL's configurations set
    # expert_tensor_parallel_size 1 (grpo_math_1B.yaml @ c751f81, line 93): TP2 · EP8 holds
    # 1/8 of the experts; Megatron-Core's default ETP = TP holds 1/16
    q = llmcost.load_model("qwen3-30b-a3b")
    n, n_e = float(q.n_params), float(q.param_breakdown["ffn_routed_experts"])
    for etp, s in ((1, (n - n_e) / 2 + n_e / 8), (None, (n - n_e) / 2 + n_e / 16)):
        b = rl.nemo_rl_swap_bytes(q, dict(tp=2, ep=8, etp=etp), n_train_gpus=16,
                                  rollout_tp=2, colocated=False)
        assert b == {"reference": pytest.approx(6 * s), "colocation": 0.0}
    # GB200's host link: NVLink-C2C 900 GB/s bidirectional shared by two GPUs
    assert rl.pcie_bytes_per_s(llmcost.load_accelerator("GB200-NVL72")) == 225e9
    # B200 (a trial's NeMo RL campaign on B200 was refused for want of it): its hosts' PCIe
    # Gen5 CPUs (NVIDIA DGX B200 User Guide), an x16 Gen5 link: 32 GT/s x 16 lanes x 128/130
    # / 8 = 63.0 GB/s, the table's nominal 64 as for H100 and H200
    assert rl.pcie_bytes_per_s(llmcost.load_accelerator("B200")) == 64e9
    assert 32e9 * 16 * 128 / 130 / 8 == pytest.approx(64e9, rel=0.02)


def test_nemo_rl_colocated_offload_by_hand():
    # NVIDIA-NeMo/RL pull 638 (2025-07-10): DeepSeek-V3's 55 s refit held "~20s" of offload
    # (offload_before_refit: Adam moments out; vLLM's weights woken; offload_after_refit:
    # weights out; grpo.py @ b1c86a8 l. 411-462 inside the prepare_for_generation timer).
    # Scaled by weight bytes as the refit: 20 s for DeepSeek-V3, 20 × 30.53 / 671 = 0.91 s for
    # Qwen3-30B-A3B (its checkpoint's 30,532,122,624 parameters; catalogue counts within 2 %).
    assert rl.nemo_rl_offload_time("deepseek-v3") == pytest.approx(20.0, rel=1e-9)
    assert rl.nemo_rl_offload_time("qwen3-30b-a3b") == pytest.approx(20 * 30.532 / 671,
                                                                      rel=0.02)
    # The colocated sync of a NeMo RL row = refit + that offload + the other direction of the
    # colocated round trips at the host link (half of the colocation swaps): NeMo RL v0.6,
    # DeepSeek-V3 on 256 H100s (PP 16, EP 16, vLLM TP 32): refit 35 s (streamed), offload 20 s;
    # S = (N − N_e)/16 + N_e/256, colocation bytes 2·2·S + 2·8·N/256 + 2·2·N/32 over 64 GB/s.
    row = _row("nemo-rl-v0.6-deepseek-v3-on-256")
    it = rl.validation_iteration(row)
    m = llmcost.load_model("deepseek-v3")
    n, n_e = float(m.n_params), float(m.param_breakdown["ffn_routed_experts"])
    shard = (n - n_e) / 16 + n_e / 256
    half = (2 * 2 * shard + 2 * 8 * n / 256 + 2 * 2 * n / 32) / 2 / 64e9
    assert it.parts_gpu_s["weight_sync"] / it.n_gpus == pytest.approx(35 + 20 + half,
                                                                      rel=1e-6)
    assert 0.5 < half < 1.5
    # without host swaps, neither the offload nor the swaps
    off = rl.validation_iteration(row, host_swaps=False)
    assert off.parts_gpu_s["weight_sync"] / off.n_gpus == pytest.approx(35.0, rel=1e-9)


def test_nemo_rl_v03_refit_and_offload_add_without_double_count():
    # NeMo RL v0.3 (grpo.py @ b1c86a8, refit_policy_generation): offload_before_refit (l. 412),
    # then the loop the blog's Table 1 times in three steps (l. 419-433: gather 12.2 s + IPC
    # handle transfer 33.5 s + generation update 1.5 s = 47.2 s, DeepSeek-V3 EP64PP8 -> TP64),
    # then offload_after_refit (l. 454); the prepare_for_generation timer (l. 542) holds all of
    # it, and pull 638 (in v0.3.0: commit 8f7d71efd) measured the offload in it at ~20 s. So a
    # colocated v0.3 DeepSeek-V3 refit with host swaps = 47.2 + 20 s + half the colocation
    # swaps at the host link; without host swaps the blog's 47.2 s alone.
    from llmcost.serving import inference as inf
    m = inf.serving_model("deepseek-v3")
    acc = inf.serving_accelerator("H100-SXM")
    o = rl.RLOptions.build(refit="nemo-rl", n_gpus=256, rollout_tp=32,
                           train_plan=dict(pp=16, ep=16))
    assert o.colocated
    assert rl.sync_time(m, acc, o.replace(host_swaps=False)) == pytest.approx(47.2, rel=1e-9)
    on = o.replace(host_swaps=True)
    half = rl.host_swap_times(m, acc, on)["colocation"] / 2
    # by hand as for the v0.6 DeepSeek-V3 row above (same layout: 256 GPUs, PP 16, EP 16,
    # vLLM TP 32; 64 GB/s PCIe Gen5 per GPU)
    n, n_e = float(m.n_params), float(m.param_breakdown["ffn_routed_experts"])
    shard = (n - n_e) / 16 + n_e / 256
    assert half == pytest.approx((2 * 2 * shard + 2 * 8 * n / 256 + 2 * 2 * n / 32) / 2 / 64e9,
                                 rel=1e-6)
    assert rl.sync_time(m, acc, on) == pytest.approx(47.2 + 20.0 + half, rel=1e-9)


def test_nemo_rl_host_swaps_refuse_bad_input():
    m = "llama-3.1-8b"
    with pytest.raises(ValueError, match="n_train_gpus"):
        rl.nemo_rl_swap_bytes(m, None, n_train_gpus=0)
    with pytest.raises(ValueError, match="rollout_tp"):
        rl.nemo_rl_swap_bytes(m, None, n_train_gpus=8, rollout_tp=1.5)
    with pytest.raises(ValueError, match="colocated"):
        rl.nemo_rl_swap_bytes(m, None, n_train_gpus=8, colocated="yes")
    with pytest.raises(ValueError, match="host_swaps"):
        rl.RLOptions.build(host_swaps="yes")


def test_optimizer_batch_packing_by_hand():
    # NeMo RL's Megatron policy worker (NVIDIA-NeMo/RL @ c751f811, megatron_policy_worker.train):
    # one forward_backward_func per global batch of train_global_batch_size sequences; with
    # sequence packing each micro-batch is one bin of train_mb_tokens = 4096 x 1 tokens; with
    # PP > 1 every packed micro-batch padded to the longest (pad_full_seq_to). By hand, 2,048
    # samples of 1,060 tokens on 16 GPUs, PP 2 (dp 8), T-GBS 512: k = floor(4096 / 1060) = 3
    # sequences per bin, each priced at ceil(4096 / 3) = 1,366 tokens; 512 sequences pad to
    # ceil(512 / 24) * 24 = 528; fill = 1060 / 1366 * 512 / 528 = 0.7525.
    o = rl.RLOptions(prompts_per_step=64, samples_per_prompt=32, n_gpus=16,
                     train_plan=dict(pp=2), train_global_batch=512, pack_tokens=4096,
                     prompt_tokens=256, response_tokens=804, response_tokens_max=3840)
    b, plan, priced, fill = rl.optimizer_batch(o, 1060)
    assert (b, plan["micro_batch_size"], priced) == (512, 3, 1366)
    assert fill == pytest.approx(1060 / 1366 * 512 / 528, rel=1e-12)
    # Without pipeline parallelism nothing is padded (pad_full_seq_to is None): priced at the
    # sequence's length, and a rank's last bin is only shorter, so 512 sequences over dp 16 fill
    # 32 whole per rank (fill 1); 500 sequences round up to whole ranks, 32 x 16 = 512.
    b, plan, priced, fill = rl.optimizer_batch(o.replace(train_plan=dict(pp=1)), 1060)
    assert (priced, plan["micro_batch_size"], fill) == (1060, 3, 1.0)
    fill = rl.optimizer_batch(o.replace(train_plan=dict(pp=1), train_global_batch=500), 1060)[3]
    assert fill == pytest.approx(500 / 512, rel=1e-12)
    # A sequence longer than the bin is a bin of its own; no packing keeps the plan as given.
    assert rl.optimizer_batch(o, 5000)[1]["micro_batch_size"] == 1
    b, plan, priced, fill = rl.optimizer_batch(o.replace(pack_tokens=None), 1060)
    assert (b, plan, priced, fill) == (512, {"pp": 2}, 1060, 1.0)
    with pytest.raises(ValueError, match="pack_tokens=0"):
        rl.RLOptions(pack_tokens=0)


def test_zero2_offload_gradient_round_trips_by_hand():
    # DeepSpeed @ v0.13.2 (OpenRLHF's benchmark version), stage_1_and_2.py
    # async_accumulate_grad_in_cpu_via_gpu: at ZeRO-2 with an offloaded optimizer, every
    # micro-batch but the first copies the rank's host gradient buffer to the GPU and every one
    # but the last copies the sum back, 16-bit, on the compute stream (overlap_comm is off below
    # ZeRO-3). OpenRLHF's Llama-2-13B Ray + vLLM row: actor on 2 A800s, micro-batch 4,
    # train_batch_size 128 -> g = 128 / (2 x 4) = 16 micro-batches per optimizer step. By hand,
    # one step: 13e9 / 1.685e9 s of CPU Adam + (1 + 2 x 15) x 2 B x 6.5e9 / 32e9 B/s over PCIe.
    o = rl.RLOptions(algorithm="ppo", prompts_per_step=1024, samples_per_prompt=1,
                     train_plan=dict(zero_stage=2, micro_batch_size=4), train_global_batch=128)
    assert rl.accumulation_steps(o, 2) == 16
    assert rl.accumulation_steps(o.replace(train_plan=dict(zero_stage=3, micro_batch_size=4)),
                                 2) == 1
    t = rl.optimizer_offload_time(13e9, 2, "A100-80GB", 1, 16)
    assert t == pytest.approx(13e9 / rl.CPU_ADAM_PARAMS_PER_S_PER_HOST + 31 * 2 * 6.5e9 / 32e9,
                              rel=1e-9)
    assert t - rl.optimizer_offload_time(13e9, 2, "A100-80GB") == pytest.approx(
        30 * 2 * 6.5e9 / 32e9, rel=1e-9)
    with pytest.raises(ValueError, match="accumulation_steps=0"):
        rl.optimizer_offload_time(13e9, 2, "A100-80GB", 1, 0)


def test_hf_generate_cache_concatenation_by_hand(monkeypatch):
    # Hugging Face generate's dynamic cache grows by torch.cat every step (transformers
    # cache_utils.py @ 004999d, DynamicLayer.update): the whole cache read once more and written
    # once, 2 x the KV read at the engine's KV-read fraction. By hand, one static micro-batch
    # of 2 sequences of 4 tokens after a 512-token prompt: the difference from no copies is
    # 2 x sum over the 4 steps of the KV read time at context 512..515 / kv_read_fraction.
    from llmcost.serving import inference as inf
    m, acc = inf.serving_model("llama-2-7b"), inf.serving_accelerator("A100-80GB")
    eng = inf.load_engine_efficiency("HF generate")
    kw = dict(engine="HF generate", max_concurrent=2, hf_s_per_layer_step=0.0)
    with_copies = rl.rollout_time(m, acc, 512, [4, 4], **kw)["decode_s"]
    monkeypatch.setattr(rl, "HF_GENERATE_KV_COPIES", 0.0)
    without = rl.rollout_time(m, acc, 512, [4, 4], **kw)["decode_s"]
    kv = sum(float(inf.decode_kv_read_s(inf.decode_step(m, acc, 2.0, 512.0 + t), m))
             for t in range(4))
    assert with_copies - without == pytest.approx(2 * kv / eng.kv_read_fraction, rel=1e-9)
    assert with_copies > without > 0


def test_zero3_param_offload_bytes_and_time_by_hand():
    # DeepSpeed @ v0.13.2: every ZeRO-3 fetch copies the rank's shard to the GPU
    # (partition_parameters.py all_gather_coalesced, param_ds_tensor.to(device)); with
    # Hugging Face gradient checkpointing a layer is gathered 3 times per micro-batch (forward,
    # recomputed forward, backward); stage3.py partition_grads (l. 1417-1471): micro-step 0
    # copies the reduced gradient shard to the host buffer and back to the GPU
    # (grad_buffer.to(device)), each later one brings the host buffer to the GPU, adds, sends it
    # again, and the step's boundary copies the shard once more into the FP32 host gradient
    # (fp32_grad_tensor.copy_(grad_buffer)): 2g + 1 copies a step.
    # By hand, N = 8e9 on 8 GPUs in FP16: shard 2 · 1e9 = 2e9 bytes; 64 micro-batches in steps
    # of g = 8: parameters 64 · 3 · 2e9 = 3.84e11 bytes, gradients 64 / 8 · (2·8 + 1) · 2e9 =
    # 2.72e11 bytes; over PCIe Gen4 x16 (32 GB/s per direction): 6.56e11 / 32e9 = 20.5 s.
    p, g = rl.zero3_param_offload_bytes(8e9, 8, 64, 8)
    assert p == pytest.approx(3.84e11, rel=1e-12) and g == pytest.approx(2.72e11, rel=1e-12)
    assert rl.zero3_param_offload_time(8e9, 8, "A100-80GB", 64, 8) == pytest.approx(20.5, rel=1e-9)
    # one micro-batch per step: there and back, then the boundary's copy (2g + 1 = 3)
    assert rl.zero3_param_offload_bytes(8e9, 8, 64, 1)[1] == pytest.approx(64 * 3 * 2e9,
                                                                         rel=1e-12)
    # PCIe Gen5 (H100) halves it
    assert rl.zero3_param_offload_time(8e9, 8, "H100-SXM", 64, 8) == pytest.approx(10.25,
                                                                                   rel=1e-9)


@pytest.mark.parametrize("call, match", [
    (lambda: rl.zero3_param_offload_bytes(8e9, 8, 0), "micro_batches=0"),
    (lambda: rl.zero3_param_offload_bytes(8e9, 0, 64), "n_gpus=0"),
    (lambda: rl.zero3_param_offload_bytes(-1, 8, 64), "n_params"),
    (lambda: rl.zero3_param_offload_bytes(8e9, 8, 64, 0), "accumulation_steps=0"),
    (lambda: rl.zero3_param_offload_time(8e9, 8, "TPU v5e", 64), "host-link"),
])
def test_zero3_param_offload_bad_input_is_refused_with_the_field_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_zero3_critic_check_on_deepspeed_chat_rows():
    # OpenRLHF/OpenRLHF benchmark/deepspeed-chat/llama_13b.sh @ 0baf3dd:
    # --per_device_training_batch_size 2 on 8 GPUs, 1,024 samples per iteration (the README's
    # rollout_batch_size), train_batch_size 128 (2 · 8 · --gradient_accumulation_steps 8):
    # 1024 / 16 = 64 micro-batches per GPU, g = 128 / 16 = 8; llama_7b.sh: 8 per device,
    # --gradient_accumulation_steps 2: 1024 / 64 = 16 micro-batches, g = 2.
    t, out = rl.zero3_critic_check()
    t = t.set_index("id")
    assert set(t.index) == {"openrlhf-bench-7b-dschat", "openrlhf-bench-13b-dschat"}
    assert tuple(t.loc["openrlhf-bench-13b-dschat", ["micro_batches", "accumulation"]]) == (64, 8)
    assert tuple(t.loc["openrlhf-bench-7b-dschat", ["micro_batches", "accumulation"]]) == (16, 2)
    n13 = llmcost.load_model("llama-2-13b").n_params
    r = t.loc["openrlhf-bench-13b-dschat"]
    assert r["param_bytes"] == pytest.approx(64 * 3 * 2 * n13 / 8, rel=1e-9)
    assert r["pcie_s"] == pytest.approx((64 * 3 + 8 * 17) * 2 * n13 / 8 / 32e9, rel=1e-9)
    # the published training phase (benchmark/README.md @ 0baf3dd, 1,218.76 s) minus the model's
    assert r["measured_train_s"] == pytest.approx(1218.76)
    assert r["lacking_s"] == pytest.approx(1218.76 - r["predicted_train_s"])
    assert r["gather_s"] >= 0.0
    # regression pin of the verdict (benchmarks/validate_rl.py): at the datasheet link rate the
    # priced seconds close less than a tenth of what the 13B row lacks, and would need the host
    # link to run below 1/10 of its 32 GB/s to close it alone; the check moves the held-out
    # share gap by about a point (1.03; 0.9 before rl.hf_host_overlaps) and leaves the
    # iteration errors as they were within 0.5 %
    assert (r["pcie_s"] + r["gather_s"]) / r["lacking_s"] < 0.1
    assert r["rate_to_close"] < 3.2e9
    w0, w1 = out["heldout"]
    assert 0.0 < w0["worst_share_gap_points"] - w1["worst_share_gap_points"] < 1.5
    assert w1["mean_abs_error"] == pytest.approx(w0["mean_abs_error"], abs=0.005)


def test_deepspeed_offload_bytes_and_time_by_hand():
    # deepspeedai/DeepSpeed @ v0.13.2, CPU offload, 16-bit training, P = N / n = 1e9 elements
    # (N = 8e9 on 8 GPUs), one optimizer step of g = 8 micro-batches:
    # ZeRO-2 (stage_1_and_2.py): 7 copies of the 16-bit accumulated gradient to the host
    # (async_accumulate_grad_in_cpu_via_gpu, every micro-batch but the last) and 7 back (every
    # one but the first), 2 bytes each; the FP32 gradient at the boundary
    # (async_inplace_copy_grad_to_fp32_buffer_from_gpu, src.float() on the GPU: 4 bytes); the
    # updated partition back after CPU Adam (step l. 1866, blocking, converted on the CPU:
    # 2 bytes): (7 · 2 + 7 · 2 + 4 + 2) · 1e9 = 34e9 bytes, all in pageable buffers when
    # pin_memory is False (offload_config.py l. 70). At the A100's host link over the pinned :
    # pageable ratio (PyTorch pull 138018: 12.6 / 1.4 GB/s), 32e9 / 9 B/s: 34e9 · 9 / 32e9 =
    # 9.5625 s.
    assert rl.deepspeed_offload_bytes(8e9, 8, 2, 1, 8) == pytest.approx((34e9, 0.0), rel=1e-12)
    assert rl.pageable_bytes_per_s("A100-80GB") == pytest.approx(32e9 * 1.4 / 12.6, rel=1e-12)
    assert rl.deepspeed_offload_time(8e9, 8, "A100-80GB", 2, 1, 8) == pytest.approx(9.5625,
                                                                                    rel=1e-9)
    # no accumulation: only the boundary's FP32 gradient and the parameters back, 6 bytes
    assert rl.deepspeed_offload_bytes(8e9, 8, 1, 3, 1)[0] == pytest.approx(3 * 6e9, rel=1e-12)
    # ZeRO-3 (stage3.py partition_grads): 2g + 1 = 17 gradient copies of 2 bytes, pageable;
    # 3 parameter fetches per micro-batch from the pinned flat buffer (stage3.py l. 655):
    # 8 · 3 · 2e9 = 48e9 bytes at the nominal 32 GB/s: 34e9 · 9 / 32e9 + 48e9 / 32e9 = 11.0625 s
    assert rl.deepspeed_offload_bytes(8e9, 8, 3, 1, 8) == pytest.approx((34e9, 48e9), rel=1e-12)
    assert rl.deepspeed_offload_time(8e9, 8, "A100-80GB", 3, 1, 8) == pytest.approx(11.0625,
                                                                                    rel=1e-9)
    # pinned buffers (OpenRLHF's pin_memory True): everything at 32 GB/s, (34 + 48)e9 / 32e9
    assert rl.deepspeed_offload_time(8e9, 8, "A100-80GB", 3, 1, 8, pinned=True) == \
        pytest.approx(2.5625, rel=1e-9)
    # the measured absolute rate instead (1.4 GB/s): 34e9 / 1.4e9 + 1.5 s
    assert rl.deepspeed_offload_time(8e9, 8, "A100-80GB", 3, 1, 8, pageable_rate=1.4e9) == \
        pytest.approx(34e9 / 1.4e9 + 1.5, rel=1e-9)
    # the model's own link term (optimizer_offload_time): (1 + 2 · 7) · 2 bytes · P a step
    assert rl.offload_link_bytes(8e9, 8, 8) == pytest.approx(30e9, rel=1e-12)


@pytest.mark.parametrize("call, match", [
    (lambda: rl.deepspeed_offload_bytes(8e9, 8, 0), "zero_stage=0"),
    (lambda: rl.deepspeed_offload_bytes(8e9, 0, 2), "n_gpus=0"),
    (lambda: rl.deepspeed_offload_bytes(8e9, 8, 2, 0), "optimizer_steps=0"),
    (lambda: rl.deepspeed_offload_bytes(8e9, 8, 2, 1, 0), "accumulation_steps=0"),
    (lambda: rl.deepspeed_offload_time(8e9, 8, "A100-80GB", 2, pageable_rate=0.0),
     "pageable_rate"),
    (lambda: rl.deepspeed_offload_time(8e9, 8, "TPU v5e", 2), "host-link"),
])
def test_deepspeed_offload_bad_input_is_refused_with_the_field_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_unpinned_offload_on_the_13b_deepspeed_chat_row_by_hand():
    # OpenRLHF/OpenRLHF benchmark/deepspeed-chat/llama_13b.sh @ 0baf3dd: actor ZeRO-2, critic
    # ZeRO-3, --offload (dschat/utils/ds_utils.py @ 6863634: offload_param and
    # offload_optimizer "cpu", no pin_memory), 8 A800s, per-device training batch 2, gradient
    # accumulation 8, 1,024 sequences: k = 1024 / (2 · 8 · 8) = 8 optimizer steps of g = 8.
    # P = N / 8 (Llama-2-13B). Bytes per GPU per iteration:
    #   actor  ZeRO-2: 8 · (4 · 8 + 2) · P = 272 P pageable
    #   critic ZeRO-3: 8 · (2 · 8 + 1) · 2 · P = 272 P pageable, 8 · 8 · 3 · 2 · P = 384 P pinned
    # the model's copies (optimizer_offload_time, both models at ZeRO-2, g = 8, 32 GB/s):
    #   8 · 2 · (1 + 2 · 7) · 2 · P = 480 P
    # added = 544 P · 9 / 32e9 + 384 P / 32e9 - 480 P / 32e9 = 4800 P / 32e9 s
    n = llmcost.load_model("llama-2-13b").n_params
    p = n / 8
    row = rl.load_rl_validation().set_index("id").loc["openrlhf-bench-13b-dschat"]
    z = rl.unpinned_offload_seconds(row.to_dict() | {"id": "openrlhf-bench-13b-dschat"})
    assert (z["optimizer_steps"], z["accumulation"]) == (8, 8)
    assert z["actor_host_bytes"] == pytest.approx(272 * p, rel=1e-9)
    assert z["critic_host_bytes"] == pytest.approx(272 * p, rel=1e-9)
    assert z["critic_pinned_bytes"] == pytest.approx(384 * p, rel=1e-9)
    assert z["model_s"] == pytest.approx(480 * p / 32e9, rel=1e-9)
    assert z["added_s"] == pytest.approx(4800 * p / 32e9, rel=1e-9)
    # 244 s: under the 793 s the phase lacks (1,218.76 s published, benchmark/README.md)
    assert 200.0 < z["added_s"] < 300.0


def test_unpinned_offload_check_moves_deepspeed_chat_rows_only():
    # OpenRLHF pins its offload buffers (openrlhf/utils/deepspeed_utils.py @ 0baf3dd:
    # "pin_memory": True): its rows stay as the model has them; only DeepSpeed-Chat's move.
    t, out = rl.unpinned_offload_check()
    t = t.set_index("id")
    moved = t.index[(t["ratio_with"] - t["ratio_without"]).abs() > 1e-12]
    assert set(moved) == {"openrlhf-bench-7b-dschat", "openrlhf-bench-13b-dschat"}
    assert (t.loc[moved, "train_ratio_with"] > t.loc[moved, "train_ratio_without"]).all()
    # regression pins of the verdict (benchmarks/validate_rl.py): the 13B row's share gap
    # 20.4 -> 14.9 points and its training phase 0.35 -> 0.55 of published, both still short;
    # its iteration 0.965x -> 1.029x of published: the held-out mean |error| 14.03% -> 14.01%,
    # no held-out goal worse, so the rule puts it on (share gap 15.3 since OpenRLHF's Ray ranks'
    # interleaved experience refitted HF generate's host cost; before DeepSpeed-Chat's SDPA steps
    # overlapped HF generate's host cost, rl.hf_host_overlaps, its generation was 1.53x over and
    # the mean worsened 14.59% -> 14.85%: off)
    # (since DeepSpeed's exposed 16-bit reduction went on, rl.deepspeed_overlap_check: 14.9 and
    # 0.567; before it 15.3 and 0.549; since DeepSpeed's ZeRO-2 all-reduce went on,
    # rl.deepspeed_allreduce_check: 14.67 and 0.575)
    r = t.loc["openrlhf-bench-13b-dschat"]
    assert r["share_gap_with"] == pytest.approx(14.67, abs=0.05)
    assert r["train_ratio_with"] == pytest.approx(0.575, abs=0.002)
    w0, w1 = out["heldout"]
    assert w1["worst_share_gap_points"] < w0["worst_share_gap_points"]
    assert w1["worst_factor"] == pytest.approx(w0["worst_factor"], rel=1e-9)
    # with OpenRLHF's Ray experience interleaving on (HF generate's host cost refitted 1.231 ->
    # 1.268 ms, the 13B row's generation over by more), its mean |error| alone worsens,
    # 13.41% -> 13.60% (regression pin; 13.41% -> 13.64% with DeepSpeed's exposed reduction and
    # staged parameter copy on, over the 26 held-out rows with the two Qwen3-32B rows; 13.50%
    # -> 13.72% over 24 before them; 15.85% -> 16.06% over the 28 with the two Qwen3-235B rows
    # and NeMo RL's expert TP 1; 12.40% -> 12.61% with vLLM's piecewise CUDA graphs on NeMo RL
    # v0.3/v0.4's MoE rows); the two mechanisms against neither worsen no held-out goal
    # (the rule's test of the pair, rl.experience_interleave_check with PINNED_OFFLOAD)
    assert (w0["mean_abs_error"], w1["mean_abs_error"]) == (
        pytest.approx(0.1240, abs=0.0005), pytest.approx(0.1261, abs=0.0005))
    _, _, both = rl.experience_interleave_check(rl.PINNED_OFFLOAD)
    b0, b1 = both["heldout"]
    for k in ("mean_abs_error", "worst_factor", "worst_share_gap_points"):
        assert b1[k] <= b0[k] + 1e-12, k


@pytest.fixture(scope="module")
def eos_check():
    return rl.eos_length_check()


def test_eos_length_check_fits_lengths_the_roofline_allows(eos_check):
    # OpenRLHF/OpenRLHF benchmark/README.md @ 0baf3dd, LLama2-7B / OpenRLHF(ray+vllm): Generation
    # Latency 481.86 s. Its generation stops at the end-of-sequence token (experience_maker.py
    # _generate_vllm: SamplingParams with max_tokens only) and the roofline at 1,024-token
    # responses exceeds that phase (rl.validation_generation_bound): the fitted mean response
    # must lie below the 1,024-token limit, and the row's roofline at it below the published
    # phase (lengths a GPU could have generated).
    mu, c, t, out = eos_check
    assert 32.0 < mu < 1024.0
    d = rl.load_rl_validation().set_index("id")
    row = d.loc["openrlhf-bench-7b-ray-vllm"].to_dict() | {"id": "openrlhf-bench-7b-ray-vllm"}
    assert row["measured_generation_s"] == pytest.approx(481.86)
    kw = rl.validation_setup(row)
    pol, acc = kw.pop("policy"), kw.pop("accelerator")
    kw.update(response_tokens=mu, response_tokens_max=1024.0)
    roof = rl.rl_iteration(pol, acc, **{**kw, "engine": "roofline"})
    full = rl.rl_iteration(pol, acc, **{**kw, "engine": "roofline", "response_tokens": 1024.0,
                                        "response_tokens_max": None})
    assert roof.generation_wall_s < 481.86 < full.generation_wall_s
    # the fit meets its one vLLM calibration row's published generation phase (± 1 %)
    r = t.set_index("id").loc["openrlhf-bench-7b-ray-vllm"]
    assert r["gen_ratio_with"] == pytest.approx(1.0, abs=0.01)
    # only OpenRLHF's rows and the HF generate rows move; NeMo RL's rows are as the model has them
    nemo = t[t["id"].str.startswith("nemo")]
    assert np.allclose(nemo["ratio_with"], nemo["ratio_without"], equal_nan=True)
    assert set(out) == {"calibration", "heldout"} and all(len(v) == 3 for v in out.values())


def test_eos_length_check_reads_calibration_rows_only(monkeypatch, eos_check):
    # the fits never read a held-out row: doubling every held-out measurement leaves them as
    # they were
    mu, c = eos_check[:2]
    d = rl.load_rl_validation().copy()
    held = d["split"] == "heldout"
    for k in ("measured_iteration_s", "measured_generation_s", "measured_train_s"):
        d.loc[held, k] = d.loc[held, k] * 2
    monkeypatch.setattr(rl, "load_rl_validation", lambda: d)
    mu2, c2 = rl.eos_length_check()[:2]
    assert (mu2, c2) == (pytest.approx(mu, rel=1e-12), pytest.approx(c, rel=1e-12))
    # regression pin (the code's own output, beside the checks above): 598 tokens, 1.517 ms (595
    # tokens, 1.519 ms before the prefill's LM head ran on the last prompt token only outside HF
    # generate, inference.logit_tokens, which refitted the engines' constants; 590
    # tokens, 1.523 ms before MI300X's xGMI links were priced at AMD's usable 75%, which refitted
    # the serving engines' pooled constants; 593 tokens, 1.524 ms with the Ray ranks' experience
    # wait in its steady state, without the first micro-rollout batch's queue; 508 tokens, 1.555 ms
    # before OpenRLHF's Ray ranks' experience forwards interleaved,
    # rl.RLOptions.experience_interleaved; 1.298 ms before DeepSpeed-Chat's SDPA steps overlapped
    # host and GPU, rl.hf_host_overlaps)
    assert mu == pytest.approx(597.7, abs=1.0) and c * 1e3 == pytest.approx(1.517, abs=0.005)


@pytest.fixture(scope="module")
def call_check():
    return rl.per_call_check()


def test_per_call_check_fits_calibration_rows_and_is_left_off(call_check):
    # OpenRLHF/OpenRLHF @ 0baf3dd: each actor rank blocks on one vLLM call per micro-rollout
    # batch (trainer/ppo_utils/experience_maker.py _generate_vllm), so a call ends with its
    # longest response. The benchmark table (benchmark/README.md @ 0baf3dd) gives the calls'
    # sizes: 16 on the 7B Ray + vLLM row (calibration), 8 on the 13B, 4 on the 70B.
    theta, mean, c, t, out = call_check
    d = rl.load_rl_validation().set_index("id")
    assert [int(d.loc[f"openrlhf-bench-{k}-ray-vllm", "gen_micro_batch"])
            for k in ("7b", "13b", "70b")] == [16, 8, 4]
    # the mean response θ·(1 − (1 − 1/θ)^1024) lies below the limit, and the fit meets its one
    # vLLM calibration row's published generation phase (481.86 s) within 1 %
    assert mean == pytest.approx(theta * (1 - (1 - 1 / theta) ** 1024), rel=1e-12)
    assert 16 < mean < 1024
    r = t.set_index("id")
    assert d.loc["openrlhf-bench-7b-ray-vllm", "measured_generation_s"] == pytest.approx(481.86)
    assert r.loc["openrlhf-bench-7b-ray-vllm", "gen_ratio_with"] == pytest.approx(1.0, abs=0.01)
    # NeMo RL's rows are as the model has them
    nemo = t[t["id"].str.startswith("nemo")]
    assert np.allclose(nemo["ratio_with"], nemo["ratio_without"], equal_nan=True)
    # regression pin of the verdict validate_rl prints (why it is left off): the held-out worst
    # factor passes the 1.5x goal in both readings, and the worst share gap does not fall
    w0, w_with, w_gen = out["heldout"]
    assert w_with["worst_factor"] > 1.5 and w_gen["worst_factor"] > 1.5
    assert min(w_with["worst_share_gap_points"], w_gen["worst_share_gap_points"]) \
        >= w0["worst_share_gap_points"]


def test_per_call_check_reads_calibration_rows_only(monkeypatch, call_check):
    # doubling every held-out measurement leaves the fits as they were
    theta, _, c = call_check[:3]
    d = rl.load_rl_validation().copy()
    held = d["split"] == "heldout"
    for k in ("measured_iteration_s", "measured_generation_s", "measured_train_s"):
        d.loc[held, k] = d.loc[held, k] * 2
    monkeypatch.setattr(rl, "load_rl_validation", lambda: d)
    theta2, _, c2 = rl.per_call_check()[:3]
    assert (theta2, c2) == (pytest.approx(theta, rel=1e-12), pytest.approx(c, rel=1e-12))
    # regression pin (the code's own output, beside the checks above): θ 272 tokens, HF generate's
    # host cost 1.590 ms per layer per step (θ 270, 1.596 ms before the prefill's LM head ran on
    # the last prompt token only outside HF generate, refitting the engines' constants; θ 266,
    # 1.606 ms before MI300X's xGMI links were priced
    # at AMD's usable 75%, refitting the engines' pooled constants; θ 268, 1.604 ms with the Ray
    # ranks' experience wait in its steady state; θ 225, 1.715 ms before OpenRLHF's Ray ranks'
    # experience forwards interleaved, rl.RLOptions.experience_interleaved; 1.498 ms before
    # DeepSpeed-Chat's SDPA steps overlapped host and GPU, rl.hf_host_overlaps)
    assert theta == pytest.approx(271.8, abs=1.0) and c * 1e3 == pytest.approx(1.590, abs=0.005)


def test_benchmark_phases_reproduce_their_published_tflops():
    # DeepSpeed-Chat's step-3 print (microsoft/DeepSpeedExamples applications/DeepSpeed-Chat/
    # dschat/utils/perf.py @ 6863634, print_throughput_step3): Generation TFLOPs = 24 · B · s ·
    # L · h² · (1 + s/(6h) + V/(16 L h)) / (generate_time · GPUs · 1e12), B = per-device
    # generation batch · GPUs, s = 1,024 + 1,024, generate_time ONE batch's time (main.py l. 571:
    # e2e = training_time + generate_time · generation_batches). By hand, Llama-2-7B (L 32,
    # h 4096, V 32,000), 8 per device on 8 GPUs, 16 batches, the table's 697.12 s
    # (OpenRLHF/OpenRLHF benchmark/README.md @ 0baf3dd) / 16 = 43.57 s per batch:
    f = 24 * 64 * 2048 * 32 * 4096 ** 2 * (1 + 2048 / (6 * 4096) + 32000 / (16 * 32 * 4096))
    assert f / (697.12 / 16 * 8e12) == pytest.approx(5.32, abs=0.005)   # the table's cell
    # ... while the sum of 16 batches in 697.12 s would print 16x less
    assert f / (697.12 * 8e12) == pytest.approx(5.32 / 16, rel=0.01)
    t = rl.benchmark_phase_reading().set_index("id")
    d = rl.load_rl_validation()
    assert set(t.index) == set(d[d["id"].str.startswith("openrlhf-bench")]["id"])
    assert rl.dschat_flops(llmcost.load_model("llama-2-7b"), 1, 64, 2048) == pytest.approx(f)
    assert list(t.loc[["openrlhf-bench-7b-dschat", "openrlhf-bench-13b-dschat"],
                      "generation_batches"]) == [16, 64]
    # OpenRLHF (openrlhf/utils/perf.py @ 0baf3dd) times the whole rollout of 1,024 on every
    # GPU: 24 · 1024 · 2048 · 32 · 4096² · (...) / (920.81 s · 8e12) = 4.03, its 7B cell
    assert 16 * f / (920.81 * 8e12) == pytest.approx(4.03, abs=0.005)
    # every published TFLOPs cell (two decimals) is reproduced from the latencies but one: the
    # Ray + vLLM 7B row's training cell, 75.02, the Ray row's above it (its own latency, 403.29
    # s, gives 73.61 and its end-to-end cell, 37.73 TFLOPs over 885.16 s, agrees with that)
    for col in ("gen_tflops", "train_tflops"):
        off = (t[col] - t[f"{col}_published"]).abs() > 0.005
        assert list(t.index[off]) == ([] if col == "gen_tflops"
                                      else ["openrlhf-bench-7b-ray-vllm"]), col
    e2e = (2 * rl.dschat_flops(llmcost.load_model("llama-2-7b"), 4, 1024, 2048) + 16 * f) \
        / (885.16 * 8e12)
    assert e2e == pytest.approx(37.73, abs=0.005)
    assert t.loc["openrlhf-bench-7b-ray-vllm", "train_tflops"] == pytest.approx(73.61, abs=0.01)
    # training, by DeepSpeed-Chat's own formula: 13B actor + critic, factor 4, 1,024 x 2,048
    # tokens in 1,218.76 s on 8 GPUs = 46.61 TFLOPs, 14.9 % of the A800's 312 TFLOPs
    assert t.loc["openrlhf-bench-13b-dschat", "train_peak_share"] == pytest.approx(
        46.61 / 312, abs=0.001)
    # per decode step at the 1,024-token limit: 2,590.72 / 64 / 1,024 s for 2 sequences of
    # Llama-2-13B, below 697.12 / 16 / 1,024 s for 8 of Llama-2-7B
    assert t.loc["openrlhf-bench-13b-dschat", "step_ms"] == pytest.approx(
        1e3 * 2590.72 / 64 / 1024)
    assert t.loc["openrlhf-bench-13b-dschat", "step_ms"] < t.loc["openrlhf-bench-7b-dschat",
                                                                  "step_ms"]


def test_hf_host_overlap_by_hand():
    # With the host cost overlapping the GPU's work, a host-bound decode step costs the host's
    # c · layers alone: HF generate's static batches of 4 at 100 tokens each, c = 1 s per layer
    # (far above any GPU step) -> 2 batches x 100 steps x 32 layers x 1 s.
    kw = dict(engine="HF generate", max_concurrent=4, hf_s_per_layer_step=1.0)
    on = rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, hf_host_overlap=True, **kw)
    off = rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, **kw)
    assert on["decode_s"] == pytest.approx(2 * 100 * 32 * 1.0, rel=1e-12)
    assert off["decode_s"] > on["decode_s"]   # the sum: GPU time added on top
    # vLLM's steps are untouched
    v = dict(engine="vLLM", max_concurrent=4)
    assert rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, hf_host_overlap=True,
                           **v)["decode_s"] == pytest.approx(
        rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, **v)["decode_s"])
    with pytest.raises(ValueError, match="hf_host_overlap"):
        rl.RLOptions(hf_host_overlap="yes")
    with pytest.raises(ValueError, match="hf_host_overlap"):
        rl.RolloutSetup(hf_host_overlap=1)


def test_hf_host_overlaps_by_attention_and_system():
    # transformers v4.38.2 modeling_llama.py: FlashAttention-2 on a padded batch calls
    # _get_unpad_data in every layer (torch.nonzero and .max().item(): host-GPU syncs), SDPA and
    # eager attention none inside the step: host and GPU add with the first, overlap with the
    # others. DeepSpeed-Chat @ 6863634 (create_hf_model sets no attn_implementation: SDPA under
    # torch 2.1.2) and OpenRLHF @ 0baf3dd (Actor: "flash_attention_2" with --flash_attn).
    assert rl.hf_host_overlaps("sdpa") and rl.hf_host_overlaps("eager")
    assert not rl.hf_host_overlaps("flash_attention_2")
    with pytest.raises(ValueError, match="attention='flash_attention_3' must be one of"):
        rl.hf_host_overlaps("flash_attention_3")
    d = rl.load_rl_validation()
    got = {r["id"]: rl.row_hf_host_overlap(r) for _, r in d.iterrows()}
    assert {i for i, v in got.items() if v} == {"openrlhf-bench-7b-dschat",
                                                "openrlhf-bench-13b-dschat"}
    hf_openrlhf = d[(d["engine"] == "HF generate") & (d["system"] == "OpenRLHF")]["id"]
    assert len(hf_openrlhf) == 3 and not any(got[i] for i in hf_openrlhf)
    row = d.set_index("id").loc["openrlhf-bench-7b-dschat"].to_dict()
    with pytest.raises(ValueError, match="system='TRL' generates with HF generate"):
        rl.row_hf_host_overlap(row | {"id": "x", "system": "TRL"})
    assert rl.validation_setup(row)["hf_host_overlap"] is True


def test_deepspeed_chat_generation_with_sdpa_overlap_against_the_table():
    # OpenRLHF/OpenRLHF benchmark/README.md @ 0baf3dd, DeepspeedChat rows: Generation Latency
    # 697.12 s (Llama-2-7B, calibration) and 2,590.72 s (Llama-2-13B, held out); end to end
    # 1,189.13 s and 3,809.36 s. With DeepSpeed-Chat's SDPA steps priced max(GPU, host)
    # (rl.hf_host_overlaps), the 7B phase is within 10% and the 13B within 30%; the 13B
    # iteration within 10%. With the host cost summed instead, both 13B figures are further off.
    df = rl.rl_validation("model").set_index("id")
    r7, r13 = df.loc["openrlhf-bench-7b-dschat"], df.loc["openrlhf-bench-13b-dschat"]
    assert r7["predicted_gen_s"] == pytest.approx(697.12, rel=0.10)
    assert r13["predicted_gen_s"] == pytest.approx(2590.72, rel=0.30)
    assert r13["predicted_s"] == pytest.approx(3809.36, rel=0.10)
    row = rl.load_rl_validation().set_index("id").loc["openrlhf-bench-13b-dschat"].to_dict()
    total, summed, _ = rl.validation_phases(rl.validation_iteration(row, hf_host_overlap=False),
                                            "generate|update")
    assert abs(math.log(summed / 2590.72)) > abs(math.log(r13["predicted_gen_s"] / 2590.72))
    assert abs(math.log(total / 3809.36)) > abs(math.log(r13["predicted_s"] / 3809.36))
    # Regression pins (today's values, tight): the 13B phase 1.290x and iteration 1.061x with
    # the overlap (1.26x and 0.97x in an earlier version of the model); 1.922x and 1.491x with
    # the sum (1.53x and 1.15x then).
    assert r13["predicted_gen_s"] / 2590.72 == pytest.approx(1.290, abs=0.005)
    assert r13["predicted_s"] / 3809.36 == pytest.approx(1.061, abs=0.005)
    assert summed / 2590.72 == pytest.approx(1.922, abs=0.005)
    assert total / 3809.36 == pytest.approx(1.491, abs=0.005)


def test_hf_overlap_check_fits_calibration_rows_and_is_left_off(monkeypatch):
    c, t, out = rl.hf_overlap_check()
    # refitted on the HF generate calibration rows only: doubling every held-out measurement
    # leaves it as it was
    d = rl.load_rl_validation().copy()
    held = d["split"] == "heldout"
    for k in ("measured_iteration_s", "measured_generation_s", "measured_train_s"):
        d.loc[held, k] = d.loc[held, k] * 2
    with monkeypatch.context() as mp:
        mp.setattr(rl, "load_rl_validation", lambda: d)
        assert rl.fit_hf_generate_overhead(hf_host_overlap=True) == pytest.approx(c, rel=1e-12)
    # vLLM and NeMo RL rows are as the model has them
    other = t[~t["id"].isin(rl.load_rl_validation().query("engine == 'HF generate'")["id"])]
    assert np.allclose(other["ratio_with"], other["ratio_without"], equal_nan=True)
    # regression pin of the verdict validate_rl prints (why it is left off): it worsens the
    # held-out mean error and the worst share gap (the 13B DeepSpeed-Chat row's generation,
    # 40 layers at batch 2, is host-bound, so it grows with the refitted host cost); the
    # refitted cost 1.769 ms per layer per step (1.775 ms with the Ray ranks' experience wait
    # in its steady state; 1.687 ms before OpenRLHF's Ray ranks'
    # experience forwards interleaved, rl.RLOptions.experience_interleaved)
    w0, w1, _ = out["heldout"]
    assert w1["mean_abs_error"] > w0["mean_abs_error"]
    assert w1["worst_share_gap_points"] > w0["worst_share_gap_points"]
    assert c * 1e3 == pytest.approx(1.769, abs=0.005)


def test_shared_host_adam_by_hand_and_left_off():
    # OpenRLHF Ray, Llama-2-13B, actor 2 GPUs and critic 2 GPUs of one 8-GPU A800 host
    # (benchmark/README.md @ 0baf3dd, GPU ratio 1:1:2:2:2), 1,024 samples, 128 per optimizer
    # step: 8 steps. Shared, each model's CPU term per step goes from N / R_host (its own host)
    # to 2N / R_host (one host for both, ceil(4 / 8) = 1): + 8 · N / R_host each.
    d = rl.load_rl_validation().set_index("id")
    r = d.loc["openrlhf-bench-13b-ray-vllm"].to_dict() | {"id": "openrlhf-bench-13b-ray-vllm"}
    kw = rl.validation_setup(r)
    m, acc = llmcost.load_model(kw.pop("policy")), kw.pop("accelerator")
    o = rl.RLOptions.build(None, **kw)
    off = rl.offload_times(m, acc, o)
    on = rl.offload_times(m, acc, o.replace(offload_host_shared=True))
    add = 8 * m.n_params / rl.CPU_ADAM_PARAMS_PER_S_PER_HOST
    assert on["actor"] - off["actor"] == pytest.approx(add, rel=1e-9)
    assert on["critic"] - off["critic"] == pytest.approx(add, rel=1e-9)
    # no effect where the models share the GPUs (colocated rows) or nothing is offloaded
    r7 = d.loc["openrlhf-bench-7b-openrlhf"].to_dict() | {"id": "openrlhf-bench-7b-openrlhf"}
    kw7 = rl.validation_setup(r7)
    m7, acc7 = llmcost.load_model(kw7.pop("policy")), kw7.pop("accelerator")
    o7 = rl.RLOptions.build(None, **kw7)
    assert rl.offload_times(m7, acc7, o7.replace(offload_host_shared=True)) \
        == rl.offload_times(m7, acc7, o7)
    with pytest.raises(ValueError, match="offload_host_shared"):
        rl.RLOptions(offload_host_shared=1)
    # regression pin of the verdict validate_rl prints: it brings the Ray rows' training
    # phases nearer (every one up), but the held-out mean error worsens, so it stays off
    t, out = rl.shared_host_adam_check()
    ray = t[t["id"].str.contains("-ray")]
    assert (ray["train_ratio_with"] > ray["train_ratio_without"]).all()
    w0, w1 = out["heldout"]
    assert w1["mean_abs_error"] > w0["mean_abs_error"]
    # (the worst share gap is the 13B DeepSpeed-Chat row's, 15.3 points, which it leaves
    # alone, since OpenRLHF's Ray ranks interleave their experience forwards; before that it
    # fell from the 13B Ray + vLLM row's 15.4 to 14.9, and was equal before the pageable
    # offload went on)
    assert w1["worst_share_gap_points"] <= w0["worst_share_gap_points"]


def test_deepspeed_overlap_comm_default_from_the_config_rule():
    # deepspeedai/DeepSpeed @ v0.13.2 zero/config.py overlap_comm_valid: unset -> stage == 3
    assert [rl.deepspeed_dp_overlap(z) for z in range(4)] == [False, False, False, True]
    assert rl.deepspeed_dp_overlap(2, overlap_comm=True) is True
    assert rl.deepspeed_dp_overlap(3, overlap_comm=False) is False
    for bad, match in ((4, "zero_stage"), (True, "zero_stage"), (2.0, "zero_stage")):
        with pytest.raises(ValueError, match=match):
            rl.deepspeed_dp_overlap(bad)
    with pytest.raises(ValueError, match="overlap_comm"):
        rl.deepspeed_dp_overlap(2, overlap_comm="yes")
    with pytest.raises(ValueError, match="train_dp_overlap"):
        rl.RLOptions(train_dp_overlap=0)
    with pytest.raises(ValueError, match="train_recipe"):
        rl.RLOptions(train_recipe="fp4_adam")
    d = rl.load_rl_validation().set_index("id")

    def row(i):
        return d.loc[i].to_dict() | {"id": i}

    # DeepSpeed-Chat's and OpenRLHF's ZeRO-2 trainers reduce on the compute stream, in 16 bits;
    # OpenRLHF's 70B row trains at ZeRO-3 (overlapped); NeMo RL's Megatron rows keep the stack's
    assert rl.row_deepspeed_reduction(row("openrlhf-bench-13b-dschat")) == {
        "train_dp_overlap": False, "train_recipe": "bf16_adam", "deepspeed_allreduce": True}
    assert rl.row_deepspeed_reduction(row("openrlhf-bench-70b-ray-vllm"))["train_dp_overlap"]
    assert rl.row_deepspeed_reduction(row("nemo-rl-v0.3-llama3.1-8b")) == {}


def test_deepspeed_reduction_exposed_by_hand_and_on_by_the_share_rule():
    # DeepSpeed-Chat, Llama-2-13B on 8 A800 (OpenRLHF benchmark/deepspeed-chat/llama_13b.sh @
    # 0baf3dd): ZeRO-2, micro-batch 2, 128 sequences per optimizer step -> m = 128 / (8 · 2) = 8
    # micro-batches. Without overlap_comm each micro-batch's fp16 gradient reduce-scatter and
    # the step's weight all-gather are exposed, each moving (p - 1)/p · 2 B · N per GPU over
    # NVLink at the scale-up bandwidth × its achievable fraction:
    #   (m + 1) · 7/8 · 2 · N / (B_up · f_up) = 9 · 7/8 · 2 · 13.016e9 / (200e9 · 0.767) ≈ 1.34 s
    d = rl.load_rl_validation().set_index("id")
    i = "openrlhf-bench-13b-dschat"
    r = d.loc[i].to_dict() | {"id": i}
    kw = rl.validation_setup(r)
    m, acc = llmcost.load_model(kw.pop("policy")), kw.pop("accelerator")
    o = rl.RLOptions.build(None, **kw)
    eff = o.efficiency
    hand = 9 * 7 / 8 * 2 * m.n_params / (acc.scaleup_bytes_per_s_per_dir * eff.scaleup_fraction)
    assert 1.30 < hand < 1.38
    plan = dict(o.train_plan)
    base = rl.train_step(m, acc, 8, 128, 2048, train_plan=plan, efficiency=eff)
    ds = rl.train_step(m, acc, 8, 128, 2048, train_plan=plan, efficiency=eff,
                       dp_overlap=False, recipe=rl.DEEPSPEED_RECIPE)
    assert base.dp_comm_s == 0.0                    # the stack hides it behind the backward
    assert ds.dp_comm_s == pytest.approx(hand, rel=0.02)
    # the row carries it (rl.validation_setup); the update's MFU falls by the step's growth;
    # the forward-only passes keep their rate
    assert (o.train_dp_overlap, o.train_recipe) == (False, rl.DEEPSPEED_RECIPE)
    lengths = rl.sample_lengths(o)
    u0, f0, _ = rl.training_mfu(m, acc, o.replace(**rl.DEEPSPEED_REDUCTION_OFF), lengths)
    u1, f1, _ = rl.training_mfu(m, acc, o, lengths)
    assert u0 / u1 == pytest.approx(ds.step_time_s / base.step_time_s, rel=1e-6)
    assert f1 == pytest.approx(f0, rel=1e-12)
    # regression pin of the verdict validate_rl prints: every DeepSpeed ZeRO-2 row's training
    # phase nearer the published one and the held-out worst share gap smaller (15.3 -> 14.9
    # points); the held-out mean error worse (13.64% -> 13.72%: the 13B DeepSpeed-Chat and
    # Ray + vLLM iterations are already over), by less than the share goal's rule allows (half
    # a point), the worst factor within 1.5x: on
    t, out = rl.deepspeed_overlap_check()
    z2 = t[t["id"].str.startswith("openrlhf-bench") & ~t["id"].str.contains("70b")]
    assert (z2["train_ratio_with"] > z2["train_ratio_without"]).all()
    w0, w1 = out["heldout"]
    assert w1["worst_share_gap_points"] < w0["worst_share_gap_points"]
    # (14.67 since DeepSpeed's ZeRO-2 all-reduce went on: without the exposed reduction it is
    # not priced either, rl.deepspeed_allreduce_excess_s)
    assert w1["worst_share_gap_points"] == pytest.approx(14.67, abs=0.05)
    assert 0.0 < w1["mean_abs_error"] - w0["mean_abs_error"] < 0.005
    # the share goal's rule on the worst factor: within 1.5x, or no larger where rows the
    # mechanism does not move put it beyond (1.76x, NeMo RL v0.3's Qwen3-30B-A3B row)
    assert w1["worst_factor"] <= max(1.5, w0["worst_factor"] + 1e-9)


def test_staged_copy_excess_by_hand_against_deepspeed_pr_5301():
    # DeepSpeed v0.13.2 copies the pageable FP32 master partition into the 16-bit GPU weights
    # with one blocking cross-dtype copy: 2 B per parameter through a pageable temporary, at
    # the host link / PAGEABLE_COPY_SLOWDOWN; DeepSpeed pull request 5301 (v0.14.1) pins the
    # partition and copies it as FP32 (4 B at the link's rate). Its measured speed-up on an
    # 8-GPU node, "4-5x", brackets the ratio of the two copies:
    #   (2 / (32e9 / 9)) / (4 / 32e9) = 9 / 2 = 4.5
    ratio = (2 / rl.pageable_bytes_per_s(rl.a800())) / (4 / rl.pcie_bytes_per_s(rl.a800()))
    assert 4.0 <= ratio <= 5.0
    assert ratio == pytest.approx(4.5, rel=1e-12)
    # by hand: Llama-2-13B's critic on OpenRLHF's 2 Ray GPUs, 8 optimizer steps,
    # P = N / 2 = 6.508e9 parameters:
    # 8 · (2 · P / 3.556e9 − 4 · P / 32e9) = 8 · (3.661 − 0.814)
    n = llmcost.load_model("llama-2-13b").n_params
    p = n / 2
    assert 6.4e9 < p < 6.6e9
    hand = 8 * (2 * p / (32e9 / 9) - 4 * p / 32e9)
    assert 22.0 < hand < 23.5
    assert rl.staged_copy_excess_time(n, 2, rl.a800(), 8) == pytest.approx(hand, rel=1e-12)
    for bad, match in ((dict(n_gpus=0), "n_gpus"), (dict(optimizer_steps=0), "optimizer_steps"),
                       (dict(n_params=-1.0), "n_params")):
        kw = dict(n_params=n, n_gpus=2, accelerator=rl.a800(), optimizer_steps=8) | bad
        with pytest.raises(ValueError, match=match):
            rl.staged_copy_excess_time(**kw)


def test_staged_copy_on_openrlhf_rows_only_and_on_by_the_share_rule():
    d = rl.load_rl_validation().set_index("id")

    def row(i):
        return d.loc[i].to_dict() | {"id": i}

    # OpenRLHF pins its offload (deepspeed_utils.py @ 0baf3dd "pin_memory": True) on DeepSpeed
    # 0.13.2: the staged copy; DeepSpeed-Chat prices every host copy pageable already
    assert rl.row_offload(row("openrlhf-bench-13b-ray-vllm"))["offload_staged_copy"]
    assert rl.row_offload(row("openrlhf-bench-70b-ray-vllm"))["offload_staged_copy"]
    assert not rl.row_offload(row("openrlhf-bench-13b-dschat"))["offload_staged_copy"]
    assert not rl.row_offload(row("nemo-rl-v0.3-llama3.1-8b"))["offload_staged_copy"]
    with pytest.raises(ValueError, match="offload_staged_copy"):
        rl.RLOptions(offload_staged_copy=1)
    # offload_times adds the excess to each trained model, on its own GPUs (13B Ray + vLLM:
    # actor 2, critic 2), nothing when the offload is priced pageable throughout
    kw = rl.validation_setup(row("openrlhf-bench-13b-ray-vllm"))
    m, acc = llmcost.load_model(kw.pop("policy")), kw.pop("accelerator")
    o = rl.RLOptions.build(None, **kw)
    on, off = rl.offload_times(m, acc, o), rl.offload_times(m, acc, o.replace(
        **rl.STAGED_COPY_OFF))
    excess = rl.staged_copy_excess_time(m.n_params, 2, acc, o.optimizer_steps)
    for role in ("actor", "critic"):
        assert on[role] - off[role] == pytest.approx(excess, rel=1e-12)
    pageable = o.replace(offload_pageable=True)
    assert rl.offload_times(m, acc, pageable) == rl.offload_times(
        m, acc, pageable.replace(**rl.STAGED_COPY_OFF))
    # regression pin of the verdict validate_rl prints: only OpenRLHF's rows move, each
    # training phase longer; held-out mean |error| 13.68% -> 13.72% (under the half point the
    # share goal's rule allows), worst 1.45x, mean share gap 8.75 -> 8.53 points
    t, out = rl.staged_copy_check()
    t = t.set_index("id")
    moved = t.index[(t["ratio_with"] - t["ratio_without"]).abs() > 1e-12]
    assert set(moved) == {i for i in d.index if i.startswith("openrlhf-bench")
                          and "dschat" not in i and d.loc[i, "split"] != "not_evaluated"}
    assert (t.loc[moved, "train_ratio_with"] > t.loc[moved, "train_ratio_without"]).all()
    w0, w1 = out["heldout"]
    assert 0.0 < w1["mean_abs_error"] - w0["mean_abs_error"] < 0.005
    # the share goal's rule on the worst factor: within 1.5x, or no larger where rows the
    # mechanism does not move put it beyond (1.76x, NeMo RL v0.3's Qwen3-30B-A3B row)
    assert w1["worst_factor"] <= max(1.5, w0["worst_factor"] + 1e-9)
    assert w1["mean_share_gap_points"] < w0["mean_share_gap_points"]


def test_measured_host_rate_by_hand_and_left_off():
    # PyTorch pull request 138018, one A100: ~12.6 GB/s pinned and ~1.4 GB/s pageable D2H; the
    # candidate prices every offload copy at the pinned figure and the pageable one at it / 9
    assert rl.PINNED_COPY_A100_BYTES_PER_S / rl.PAGEABLE_COPY_SLOWDOWN == pytest.approx(
        rl.PAGEABLE_COPY_A100_BYTES_PER_S, rel=1e-12)
    assert rl.host_link_rate(rl.a800()) == 32e9
    assert rl.host_link_rate(rl.a800(), 12.6e9) == 12.6e9
    with pytest.raises(ValueError, match="link_rate"):
        rl.host_link_rate(rl.a800(), 0.0)
    with pytest.raises(ValueError, match="host_link_rate"):
        rl.RLOptions(host_link_rate=-1.0)
    # by hand, ZeRO-2 with g = 16 micro-batches per step (OpenRLHF's 13B critic on 2 GPUs):
    # link bytes per step (1 + 2 · 15) · 2 B · P; at 12.6 GB/s instead of 32 the link term grows
    # by 32 / 12.6; the CPU Adam term stays
    n = llmcost.load_model("llama-2-13b").n_params
    cpu = 8 * n / rl.CPU_ADAM_PARAMS_PER_S_PER_HOST
    link = 8 * 31 * 2 * n / 2
    assert rl.optimizer_offload_time(n, 2, rl.a800(), 8, 16, 12.6e9) == pytest.approx(
        cpu + link / 12.6e9, rel=1e-12)
    assert rl.optimizer_offload_time(n, 2, rl.a800(), 8, 16) == pytest.approx(
        cpu + link / 32e9, rel=1e-12)
    # regression pin of the verdict validate_rl prints: every offloading row's training phase
    # nearer the published one and the held-out worst share gap within the goal (14.9 -> 9.7
    # points), but the held-out mean |error| worse by a point (13.7% -> 14.7%): left off
    t, out = rl.measured_host_rate_check()
    off = t[t["id"].str.startswith("openrlhf-bench")]
    assert (off["train_ratio_with"] > off["train_ratio_without"]).all()
    w0, w1 = out["heldout"]
    # (8.14 since NeMo RL's expert TP 1 and its two Qwen3-235B rows; 9.62 since vLLM's
    # piecewise CUDA graphs lengthened the v0.3 Qwen3-30B-A3B row's generation, its gap now
    # the worst)
    assert w1["worst_share_gap_points"] == pytest.approx(9.62, abs=0.05)
    assert w1["mean_abs_error"] - w0["mean_abs_error"] > 0.005


def test_shared_uplink_by_hand_and_left_off_by_the_rule():
    # Azure/azhpc-images topology/ndv4-topo.xml @ 4a4565a0 (ND A100 v4): four 16 GT/s x16
    # bridges, two GPUs under each; topology/ndv5-topo.xml @ d21d11e3 (ND H100 v5): one GPU
    # per 32 GT/s x16 bridge. One GPU's share while all copy: A800 32 / 2 = 16 GB/s, H100 64 / 1
    assert rl.HOST_UPLINK_GPUS == {"A100": 2, "A800": 2}
    assert rl.shared_uplink_bytes_per_s(rl.a800()) == 16e9
    assert rl.shared_uplink_bytes_per_s("A100-80GB") == 16e9
    assert rl.shared_uplink_bytes_per_s("H100-SXM") == 64e9
    assert "ndv4-topo.xml @ 4a4565a0" in rl.HOST_TOPOLOGY_SOURCE
    with pytest.raises(ValueError, match="host-link"):
        rl.shared_uplink_bytes_per_s("TPU v5e")
    # the pageable copies keep their ratio to the pinned one: DeepSpeed pull request 5301's
    # 8-GPU node, every GPU copying, measured the staged copy "4-5x" faster pinned; a shared
    # pinned rate with an unshared pageable one would give (2 · 9 / 32) / (4 · 2 / 32) = 2.25
    assert (2 * 9 / 32) / (4 * 2 / 32) == pytest.approx(2.25)
    # regression pin of the verdict validate_rl prints: every offloading row's training phase
    # nearer the published one, the held-out worst share gap 14.9 -> 9.9 points (within the
    # 10-point goal), but the held-out mean |error| 13.72% -> 14.38%, worse by 0.66 points,
    # more than the share goal's rule allows (0.5): left off
    t, out = rl.shared_uplink_check()
    off = t[t["id"].str.startswith("openrlhf-bench")]
    assert (off["train_ratio_with"] > off["train_ratio_without"]).all()
    w0, w1 = out["heldout"]
    # (14.67 -> 9.75 since DeepSpeed's ZeRO-2 all-reduce went on, rl.deepspeed_allreduce_check;
    # -> 9.69, NeMo RL v0.3's Qwen3-30B-A3B row, and the mean +0.57 points, since NeMo RL's
    # expert TP 1 and its two Qwen3-235B rows; -> 9.62 since MI300X's xGMI links were priced
    # at AMD's usable 75%, which refitted the serving engines' pooled constants)
    assert (w0["worst_share_gap_points"], w1["worst_share_gap_points"]) == (
        pytest.approx(14.67, abs=0.05), pytest.approx(9.62, abs=0.05))
    assert w1["mean_abs_error"] - w0["mean_abs_error"] == pytest.approx(0.0057, abs=0.0005)
    assert w1["mean_abs_error"] - w0["mean_abs_error"] > 0.005   # the rule's allowance


def test_offload_ablation_cells_reproduce_and_pin():
    # OpenRLHF benchmark/README.md @ dbdd43b0, DeepspeedChat(w/o offload), 8 GPUs: the TFLOPs
    # cells follow from the latencies by DeepSpeed-Chat's formula (perf.py @ 6863634), as the
    # validation row's do: training 2 · F(4, 1,024, 2,048) / (209.05 s · 8) = 142.01; generation
    # F(1, 4 · 8, 2,048) / ((975.36 s / 32 batches) · 8) = 3.80
    m = llmcost.load_model("llama-2-7b")
    no = rl.DSCHAT_7B_NO_OFFLOAD
    train = 2 * rl.dschat_flops(m, 4, 1024, 2048) / (no["training_s"] * 8e12)
    gen = rl.dschat_flops(m, 1, 4 * 8, 2048) / (no["generation_s"] / 32 * 8e12)
    # (the latencies are printed to 0.01 s: 142.003 against the cell's 142.01)
    assert train == pytest.approx(no["train_tflops"], abs=0.01)
    assert gen == pytest.approx(no["gen_tflops"], abs=0.01)
    # the end-to-end cell is the sum within 0.1 s (975.36 + 209.05 = 1,184.41 against the
    # cell's 1,184.31; the row with offload sums exactly: 697.12 + 492.01 = 1,189.13)
    assert no["generation_s"] + no["training_s"] == pytest.approx(no["iteration_s"], abs=0.15)
    # regression pins of the reading validate_rl prints: the published offload costs 283 s of
    # training, the model's offload terms about a third of it; without offload the model's
    # training is 0.74 of published; at half the batch the model's generation doubles (x1.98)
    # where the published grows x1.40
    f = rl.offload_ablation_reading()
    assert f.loc["with offload", "published_train_s"] - f.loc[
        "without offload", "published_train_s"] == pytest.approx(282.96, abs=0.01)
    assert f.loc["without offload", "train_ratio"] == pytest.approx(0.737, abs=0.005)
    assert f.loc["with offload", "train_ratio"] == pytest.approx(0.516, abs=0.005)
    assert f.loc["without offload", "model_gen_s"] / f.loc["with offload", "model_gen_s"] \
        == pytest.approx(1.98, abs=0.02)


def test_vllm_ray_step_overhead_by_hand_and_left_off():
    # vllm-project/vllm pull request 3763: llama-2-7b on 80GB A100s, 2,000 generated tokens,
    # TP=2 24.2 s, TP=2 without the per-step task scheduling 20.2 s -> 4.0 s / 2,000 = 2.0 ms
    assert rl.VLLM_RAY_STEP_S == pytest.approx(2.0e-3, rel=1e-12)
    d = rl.load_rl_validation().set_index("id")

    def row(i):
        return d.loc[i].to_dict() | {"id": i}

    # OpenRLHF's 70B Ray + vLLM row: 1,024 prompts over 2 engines of TP 2 (4 vLLM GPUs), calls
    # of the micro-rollout batch, 4, every response at the 1,024-token limit:
    #   512 / 4 = 128 calls x 1,024 steps = 131,072 steps x 2.0 ms = 262.1 s
    assert rl.ray_step_seconds(row("openrlhf-bench-70b-ray-vllm")) \
        == pytest.approx(131072 * 2.0e-3, rel=1e-9)
    # TP 1 engines (the 7B and 13B Ray + vLLM rows), HF generate and NeMo RL's newer vLLM: none
    for i in ("openrlhf-bench-7b-ray-vllm", "openrlhf-bench-13b-ray-vllm",
              "openrlhf-bench-13b-ray", "nemo-rl-v0.3-llama3.1-70b"):
        assert rl.ray_step_seconds(row(i)) == 0.0
    # regression pin of the verdict validate_rl prints: only the 70B row moves, up (0.99x ->
    # 1.02x of published, its generation already 1.11x), so the held-out mean error worsens:
    # left off
    t, out = rl.ray_step_check()
    moved = t[(t["ratio_with"] - t["ratio_without"]).abs() > 1e-12]
    assert list(moved["id"]) == ["openrlhf-bench-70b-ray-vllm"]
    assert (moved["ratio_with"] > moved["ratio_without"]).all()
    w0, w1 = out["heldout"]
    assert w1["mean_abs_error"] > w0["mean_abs_error"]
    assert w1["worst_share_gap_points"] == pytest.approx(w0["worst_share_gap_points"], abs=1e-9)


def _interleaved_schedule(ranks: int, helper_gpus: int, t: float, gen: float, m: int) -> float:
    """The OpenRLHF Ray experience schedule simulated event by event: each rank generates m
    batches of gen/m seconds, each followed by its request on helper GPU rank % helper_gpus (a
    queue served one request at a time, t·helper_gpus/(ranks·m) seconds each) and a wait for it;
    returns the last rank's end minus gen (the exposed experience time)."""
    tau = t * helper_gpus / (ranks * m)
    free = [0.0] * helper_gpus
    clock = [0.0] * ranks
    for _ in range(m):
        for r in sorted(range(ranks), key=lambda i: (clock[i], i)):
            ready = clock[r] + gen / m
            h = r % helper_gpus
            free[h] = max(free[h], ready) + tau
            clock[r] = free[h]
    return max(clock) - gen


@pytest.mark.parametrize("m", [1, 2, 4, 64])
@pytest.mark.parametrize("gen", [30.0, 5.0])
def test_experience_interleaved_matches_a_simulated_schedule(m, gen):
    # R = 4 ranks, one reference GPU of t = 10 s of forwards: the formula against the schedule
    # simulated request by request (m = 1, G = 30: 10 s, the four requests in turn; m = 4:
    # 2.5 + 3·0.625 = 4.375 s)
    t = {"scoring": 0.0, "reference": 10.0, "critic": 0.0, "old_logprobs": 0.0,
         "policy_update": 1.0, "critic_update": 0.0}
    roles = {"actor": 4, "critic": 4, "reference": 1, "reward": 4}
    o = rl.RLOptions(n_gpus=13, rollout_gpus=0, role_gpus=roles, experience_interleaved=True,
                     prompts_per_step=2 * m, samples_per_prompt=2, max_concurrent=1)
    assert rl.interleave_rounds(o) == m
    got = rl.update_walls(t, o, gen)[0]
    assert got == pytest.approx(_interleaved_schedule(4, 1, 10.0, gen, m), rel=1e-9)
    if (m, gen) == (1, 30.0):
        assert got == pytest.approx(10.0)
    if (m, gen) == (4, 30.0):
        assert got == pytest.approx(4.375)


def test_experience_interleaved_by_hand():
    # OpenRLHF @ 0baf3dd, Ray trainer: R = 2 actor ranks, the reference and the reward on 1 GPU
    # each (serving both ranks, one request at a time), the critic on 2. Each rank waits for its
    # own batch's forwards; a helper's forwards for the other rank run while that one generates:
    #   experience = max(max_x t_x · g_x / R, max_x t_x − G)
    t = {"scoring": 100.0, "reference": 100.0, "critic": 50.0, "old_logprobs": 50.0,
         "policy_update": 300.0, "critic_update": 280.0}
    roles = {"actor": 2, "critic": 2, "reference": 1, "reward": 1}
    o = rl.RLOptions(n_gpus=8, rollout_gpus=2, role_gpus=roles)
    assert rl.update_walls(t, o, 1000.0) == (100.0, 300.0)    # the slowest model, whole
    on = o.replace(experience_interleaved=True)
    # one micro-rollout batch per rank (no max_concurrent): both ranks queue on the reference
    # and reward GPUs: 100·1/2 + (2/1 − 1)·100·1/2 = 100 s; the critic's 2 GPUs, 50 s
    assert rl.update_walls(t, on, 1000.0) == (100.0, 300.0)
    # 4 rounds (2 ranks × 4 batches of 8 = the 64 samples): 50 + 1·100/(2·4) = 62.5 s
    on4 = on.replace(prompts_per_step=32, samples_per_prompt=2, max_concurrent=8)
    assert rl.interleave_rounds(on4) == 4
    assert rl.update_walls(t, on4, 1000.0) == (62.5, 300.0)
    # a helper loaded beyond the generation (G = 20 s): 100 − 20 + 20/4 = 85 s exposed
    assert rl.update_walls(t, on4, 20.0) == (85.0, 300.0)
    # colocated models (no role_gpus) keep the sum; asynchronous runs keep the slowest model
    assert rl.update_walls(t, rl.RLOptions(experience_interleaved=True), 1000.0) \
        == (300.0, 580.0)
    asy = on.replace(asynchronous=True, off_policy_steps=1)
    assert rl.update_walls(t, asy, 1000.0)[0] == 100.0
    with pytest.raises(ValueError, match="experience_interleaved"):
        rl.RLOptions(experience_interleaved=1)
    d = rl.load_rl_validation().set_index("id")

    def row(i):
        return d.loc[i].to_dict() | {"id": i}

    # on OpenRLHF's Ray rows only (read from its code)
    assert rl.row_experience_interleaved(row("openrlhf-bench-13b-ray-vllm"))
    assert rl.row_experience_interleaved(row("openrlhf-bench-7b-ray"))
    assert not rl.row_experience_interleaved(row("openrlhf-bench-7b-openrlhf"))
    assert not rl.row_experience_interleaved(row("openrlhf-bench-13b-dschat"))
    assert not rl.row_experience_interleaved(row("nemo-rl-v0.3-llama3.1-8b"))
    # the 13B Ray + vLLM row: reference and reward on 1 GPU for 2 ranks, actor and critic on 2,
    # same size; 1,024 samples over 2 ranks in micro-rollout batches of 8 (its gen_micro_batch):
    # m = 64 rounds, so half the reference's forwards are exposed, plus one request's queue
    # per rank, t/2 · (1 + 1/64) (its generation is 1,875 s)
    r = row("openrlhf-bench-13b-ray-vllm")
    assert rl.row_max_concurrent(r) == 8
    on_it = rl.validation_iteration(r)
    off_it = rl.validation_iteration(r, experience_interleaved=False)
    assert on_it.generation_wall_s == pytest.approx(off_it.generation_wall_s, rel=1e-12)
    assert on_it.experience_wall_s == pytest.approx(off_it.experience_wall_s / 2 * (1 + 1 / 64),
                                                    rel=1e-9)
    assert on_it.gpu_s == pytest.approx(on_it.wall_s * on_it.n_gpus, rel=1e-9)


def test_experience_interleaved_on_by_the_rule():
    # regression pin of the verdict validate_rl prints: with the host cost refitted each way,
    # the mean and worst factor no worse on either split (held-out mean 14.2% -> 13.7%, worst
    # 1.45x held by a NeMo RL row), every Ray row's generation phase shorter. Put on when no
    # held-out goal worsened (worst share gap 15.4 -> 15.3 points); since DeepSpeed's exposed
    # reduction and staged parameter copy went on, the higher host cost it refits raises the
    # 13B DeepSpeed-Chat row's generation and the held-out worst share gap, 14.5 -> 14.9: on by
    # the share goal's rule (mean |error| not worse by more than half a point, worst <= 1.5x)
    c0, t, out = rl.experience_interleave_check()
    assert c0 == pytest.approx(1.231e-3, rel=0.01)
    ray = t[t["id"].str.contains("-ray")]
    assert (ray["ratio_with"] < ray["ratio_without"]).all()
    for split in ("calibration", "heldout"):
        w0, w1 = out[split]
        for k in ("mean_abs_error", "worst_factor"):
            assert w1[k] <= w0[k] + 1e-12, (split, k)
    c0_, c1_ = out["calibration"]
    assert c1_["worst_share_gap_points"] < c0_["worst_share_gap_points"]
    w0, w1 = out["heldout"]
    # (0.161 over the 28 held-out rows with NeMo RL's expert TP 1 and its Qwen3-235B rows;
    # 0.126 with vLLM's piecewise CUDA graphs on NeMo RL v0.3/v0.4's MoE rows)
    assert w1["mean_abs_error"] == pytest.approx(0.126, abs=0.002)
    # (14.26 -> 14.67 since DeepSpeed's ZeRO-2 all-reduce went on, rl.deepspeed_allreduce_check)
    assert (w0["worst_share_gap_points"], w1["worst_share_gap_points"]) == (
        pytest.approx(14.26, abs=0.1), pytest.approx(14.67, abs=0.1))


def test_hf_batch_host_cost_by_hand():
    # The candidate's host cost per layer per decode step a + c · b: HF generate's static
    # batches of 4 at 100 tokens each, 8 sequences (2 batches), Llama-2-7B's 32 layers, host
    # overlapping the GPU (SDPA) and far above any GPU step: a = 1 s, c = 0.5 s per sequence
    #   2 batches x 100 steps x 32 layers x (1 + 0.5 · 4) s = 19,200 s
    kw = dict(engine="HF generate", max_concurrent=4, hf_host_overlap=True)
    got = rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, hf_s_per_layer_step=1.0,
                          hf_s_per_seq_layer_step=0.5, **kw)
    assert got["decode_s"] == pytest.approx(2 * 100 * 32 * (1.0 + 0.5 * 4), rel=1e-12)
    # in batches of 2 (4 batches): 4 x 100 x 32 x (1 + 0.5 · 2) = 25,600 s
    kw["max_concurrent"] = 2
    got = rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, hf_s_per_layer_step=1.0,
                          hf_s_per_seq_layer_step=0.5, **kw)
    assert got["decode_s"] == pytest.approx(4 * 100 * 32 * (1.0 + 0.5 * 2), rel=1e-12)
    # the default, 0, is the one constant; vLLM's steps are untouched
    base = dict(engine="HF generate", max_concurrent=4, hf_s_per_layer_step=1e-3)
    assert rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, **base)["decode_s"] \
        == rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8,
                           hf_s_per_seq_layer_step=0.0, **base)["decode_s"]
    v = dict(engine="vLLM", max_concurrent=4)
    assert rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8,
                           hf_s_per_seq_layer_step=1.0, **v)["decode_s"] == pytest.approx(
        rl.rollout_time("llama-2-7b", "A100-80GB", 128, [100] * 8, **v)["decode_s"])
    assert rl.RLOptions().hf_s_per_seq_layer_step == 0.0
    with pytest.raises(ValueError, match="hf_s_per_seq_layer_step=-1"):
        rl.RLOptions(hf_s_per_seq_layer_step=-1.0)
    with pytest.raises(ValueError, match="hf_s_per_seq_layer_step=-1"):
        rl.RolloutSetup(hf_s_per_seq_layer_step=-1.0)


def test_hf_batch_host_fit_is_stored():
    # (a, c) fitted on the calibration HF generate rows and DeepSpeed-Chat's 7B run without
    # offload (OpenRLHF benchmark/README.md @ dbdd43b0, micro-batch 4): 0.659 ms + 0.0656 ms
    # per sequence, per layer per decode step
    # per sequence, per layer per decode step. The search (rl.fit_hf_batch_host, 224 losses)
    # is not re-run here: the stored pair is its optimum to the tolerances of the stored
    # figures, a loss no larger than at a 1% step in a and a 2% step in c either way.
    a, c = rl.HF_BATCH_HOST_FIT
    at = rl.hf_batch_host_loss(a, c)
    for da, dc in ((1.01, 1.0), (0.99, 1.0), (1.0, 1.02), (1.0, 0.98)):
        assert rl.hf_batch_host_loss(a * da, c * dc) >= at, (da, dc)
    with pytest.raises(ValueError, match="c=-1.0 must be a finite number >= 0"):
        rl.hf_batch_host_loss(a, -1.0)


def test_hf_batch_host_left_off_and_uplink_rejudged():
    # The published steps per layer (DeepSpeed-Chat greedy to the 1,024-token limit, its
    # generation latency one batch's time x the batches; OpenRLHF benchmark/README.md @ 0baf3dd
    # and @ dbdd43b0): 7B at 8 sequences 697.12 / 16 / 1,024 / 32 = 1.330 ms, at 4 975.36 / 32
    # / 1,024 / 32 = 0.930 ms, 13B at 2 2,590.72 / 64 / 1,024 / 40 = 0.988 ms: the held-out
    # point is dearer per layer than the 7B at twice its batch, so no slope fitted on the 7B
    # points prices it. The rows the fit reads hold those figures:
    base, without = rl.dschat_offload_rows()
    d = rl.load_rl_validation().set_index("id")
    held = d.loc["openrlhf-bench-13b-dschat"].to_dict() | {"id": "openrlhf-bench-13b-dschat"}

    def step_per_layer(r):
        batches = r["prompts_per_step"] * r["samples_per_prompt"] / (
            r["generation_gpus"] * r["gen_micro_batch"])
        layers = llmcost.load_model(r["catalog_model"]).n_layers
        return r["measured_generation_s"] / batches / 1024 / layers

    assert (step_per_layer(base), step_per_layer(without), step_per_layer(held)) == (
        pytest.approx(1.330e-3, abs=5e-7), pytest.approx(0.930e-3, abs=5e-7),
        pytest.approx(0.988e-3, abs=5e-7))
    # the fit prices the held-out batch of 2 at a + 2c = 0.659 + 2 x 0.0656 = 0.790 ms, 0.80 of
    # its published 0.988 ms
    a, c = rl.HF_BATCH_HOST_FIT
    assert (a + 2 * c) / step_per_layer(held) == pytest.approx(0.80, abs=0.01)
    # the fit meets both 7B DeepSpeed-Chat points within 10% (the one constant: 0.97 and 1.37)
    for r in (base, without):
        g = rl.validation_phases(rl.validation_iteration(r, **rl.hf_batch_host_change()),
                                 r["phases_measured"])[1] / r["measured_generation_s"]
        assert 0.90 < g < 1.10
    # the verdict: the candidate moves the HF generate rows only, and costs the held-out mean
    # |error| more than the share goal's rule allows (half a point): left off
    t, out = rl.hf_batch_host_check()
    t = t.set_index("id")
    assert t.loc["openrlhf-bench-13b-ray-vllm", "ratio_with"] == pytest.approx(
        t.loc["openrlhf-bench-13b-ray-vllm", "ratio_without"], rel=1e-12)
    w0, w1 = out["heldout"]
    assert w1["mean_abs_error"] - w0["mean_abs_error"] > 0.005
    # regression pin of the figure validate_rl prints: 13.64% -> 14.33%, +0.69 points over the
    # 26 held-out rows (13.72% -> 14.51%, +0.79, over the 24 before the Qwen3-32B rows)
    # (+0.64, 16.06% -> 16.70%, over 28 with NeMo RL's expert TP 1 and its Qwen3-235B rows)
    assert w1["mean_abs_error"] - w0["mean_abs_error"] == pytest.approx(0.0064, abs=0.0005)
    # on a model holding it, the shared uplink costs under half a point (+0.04, against +0.66
    # on the model) and brings the worst share gap within the goal's 10 points (9.9): within
    # the rule there, but its base is left off
    t, out = rl.hf_batch_uplink_check()
    w0, w1 = out["heldout"]
    assert abs(w1["mean_abs_error"] - w0["mean_abs_error"]) < 0.005
    assert w1["worst_share_gap_points"] < 10.0
    # regression pin of the figure validate_rl prints (9.93 before DeepSpeed's ZeRO-2 all-reduce
    # went on, rl.deepspeed_allreduce_check; 9.75 before NeMo RL's expert TP 1 made its v0.3
    # Qwen3-30B-A3B row the widest, 9.69 before the serving engines' pooled constants were
    # refitted with MI300X's xGMI links at AMD's usable 75%, 9.62)
    assert w1["worst_share_gap_points"] == pytest.approx(9.62, abs=0.05)


def test_rollout_prompt_tokens_moves_generation_only():
    # Prompts of mixed lengths: OpenRLHF @ 0baf3dd hands vLLM each prompt unpadded
    # (experience_maker.py l. 339-344) and pads the forwards' batch to its longest prompt
    # (l. 360-368), so the engine's prompt may be shorter than the forwards'. The engine's
    # prompt prices the generation as if the prompt were that long, and leaves the forwards
    # and the update at prompt_tokens: the generation equals an iteration at prompt_tokens =
    # 128, the rest an iteration at 1,024
    kw = dict(algorithm="ppo", prompts_per_step=64, samples_per_prompt=1,
              response_tokens=512, n_gpus=8, critic="llama-2-7b", reward="llama-2-7b")
    full = rl.rl_iteration("llama-2-7b", "A100-80GB", prompt_tokens=1024, **kw)
    short = rl.rl_iteration("llama-2-7b", "A100-80GB", prompt_tokens=128, **kw)
    got = rl.rl_iteration("llama-2-7b", "A100-80GB", prompt_tokens=1024,
                          rollout_prompt_tokens=128, **kw)
    assert got.generation_wall_s == pytest.approx(short.generation_wall_s, rel=1e-12)
    assert got.generation_wall_s < full.generation_wall_s
    assert got.experience_wall_s == pytest.approx(full.experience_wall_s, rel=1e-12)
    with pytest.raises(ValueError, match="rollout_prompt_tokens=2048 must be <= prompt_tokens"):
        rl.RLOptions(prompt_tokens=1024, rollout_prompt_tokens=2048)
    with pytest.raises(ValueError, match="rollout_prompt_tokens"):
        rl.RLOptions(rollout_prompt_tokens=0)


def test_unpadded_prompt_reading():
    # OpenRLHF @ 0baf3dd pads each batch's prompts to its longest (experience_maker.py
    # tokenize_fn, padding=True, l. 101-108; _generate_vllm l. 360-368), so with prompts of one
    # length the engine, the forwards and the update all see that length. Llama-2-7B's KV
    # cache holds 2 x 32 layers x 4,096 x 2 B = 0.5 MiB a token, Llama-2-70B's (8 KV heads of
    # 128) 2 x 80 x 1,024 x 2 B = 0.31 MiB: at 16 sequences of ~1,500 tokens the 7B step reads
    # about as much cache as weights (12 GB against 13.5 GB), the 70B step at 4 sequences
    # (TP 2) 1 GB against 70 GB, so a short prompt moves the 7B vLLM row far more
    assert inference.kv_cache_bytes_per_token(llmcost.load_model("llama-2-7b")) == 2 ** 19
    assert inference.kv_cache_bytes_per_token(llmcost.load_model("llama-2-70b")) == 327680
    t, out = rl.unpadded_prompt_check(1)
    t = t.set_index("id")
    moved = {i: t.loc[i, "ratio_with"] / t.loc[i, "ratio_without"]
             for i in ("openrlhf-bench-7b-ray-vllm", "openrlhf-bench-13b-ray-vllm",
                       "openrlhf-bench-70b-ray-vllm")}
    assert moved["openrlhf-bench-7b-ray-vllm"] < moved["openrlhf-bench-13b-ray-vllm"] \
        < moved["openrlhf-bench-70b-ray-vllm"] < 1.0
    # every OpenRLHF row's training phase is shorter (the forwards and the update at the
    # prompt's length); the DeepSpeed-Chat rows (padded to max_prompt_seq_len) and NeMo RL's
    # do not move
    d = rl.load_rl_validation().set_index("id")
    mine = t.index.isin(d.index[d["system"] == "OpenRLHF"])
    assert (t.loc[mine, "train_ratio_with"] < t.loc[mine, "train_ratio_without"]).all()
    other = t[~mine]
    assert (other["ratio_with"] == other["ratio_without"]).all()
    # the whole iteration at 1 token: the same as a row set at prompt_tokens = 1
    v7 = "openrlhf-bench-7b-ray-vllm"
    r = d.loc[v7].to_dict() | {"id": v7}
    it = rl.validation_iteration(r, prompt_tokens=1)
    total = rl.validation_phases(it, r["phases_measured"])[0]
    assert t.loc[v7, "ratio_with"] == pytest.approx(total / r["measured_iteration_s"],
                                                     rel=1e-12)
    # the 7B vLLM calibration row's generation phase (the rollout and the experience forwards)
    # comes nearer the published one, its training phase further away
    g = rl.validation_phases(it, r["phases_measured"])[1] / r["measured_generation_s"]
    g0 = rl.validation_phases(rl.validation_iteration(r), r["phases_measured"])[1] \
        / r["measured_generation_s"]
    assert abs(math.log(g)) < abs(math.log(g0))
    assert abs(math.log(t.loc[v7, "train_ratio_with"])) \
        > abs(math.log(t.loc[v7, "train_ratio_without"]))
    # regression pins of the reading validate_rl prints (prompts at 1 token, the bound): the
    # 7B vLLM row's generation 1.01x, training 0.91x -> 0.54x of published; the held-out mean
    # |error| 13.64% -> 14.73% over 26 rows (13.72% -> 14.96% over the 24 before the Qwen3-32B
    # rows; 16.06% -> 17.08% over 28 with NeMo RL's expert TP 1 and its Qwen3-235B rows;
    # 12.61% -> 13.62% with vLLM's piecewise CUDA graphs on NeMo RL v0.3/v0.4's MoE rows)
    assert (g, t.loc[v7, "train_ratio_with"]) == (pytest.approx(1.01, abs=0.01),
                                                  pytest.approx(0.538, abs=0.01))
    w0, w1 = out["heldout"]
    assert (w0["mean_abs_error"], w1["mean_abs_error"]) == (
        pytest.approx(0.1261, abs=0.0005), pytest.approx(0.1362, abs=0.0005))


def _dschat_options(row_id):
    d = rl.load_rl_validation().set_index("id")
    kw = rl.validation_setup(d.loc[row_id].to_dict() | {"id": row_id})
    m, acc = llmcost.load_model(kw.pop("policy")), kw.pop("accelerator")
    return m, acc, rl.RLOptions.build(None, **kw)


def test_deepspeed_allreduce_excess_by_hand():
    # deepspeedai/DeepSpeed @ v0.13.2 stage_1_and_2.py allreduce_and_scatter: ZeRO-2 all-reduces
    # every gradient bucket each micro-batch. OpenRLHF/OpenRLHF
    # benchmark/deepspeed-chat/llama_13b.sh @ 0baf3dd: 2 sequences per device on 8 GPUs,
    # --gradient_accumulation_steps 8 -> g = 128 / (8 · 2) = 8 micro-batches per step and
    # 1,024 / 128 = 8 steps. A ring all-reduce is a reduce-scatter plus an all-gather of the same
    # bytes (Patarasuk & Yuan 2009, §3), so the excess over the reduce-scatter is half the
    # all-reduce per micro-batch: 8 · 8 · AR / 2.
    m, acc, o = _dschat_options("openrlhf-bench-13b-dschat")
    assert (o.optimizer_steps, rl.micro_batches_per_step(o, 8)) == (8, 8)
    seq, b = 2048, 128
    plan = dict(o.train_plan)
    ar = rl.train_step(m, acc, 8, b, seq, train_plan={**plan, "zero_stage": 0},
                       efficiency=o.efficiency, dp_overlap=False, recipe=o.train_recipe).dp_comm_s
    z2 = rl.train_step(m, acc, 8, b, seq, train_plan=plan, efficiency=o.efficiency,
                       dp_overlap=False, recipe=o.train_recipe).dp_comm_s
    # the step model agrees with the ring identity: ZeRO-2's exposed traffic per step, 8
    # reduce-scatters and one weight all-gather, is 9 half all-reduces
    assert z2 == pytest.approx(9 * ar / 2, rel=0.02)
    # the 16-bit gradients of Llama-2-13B (2 bytes · 13.0e9) all-reduced in a ring over 8 GPUs
    # move 2 · 7/8 of them per GPU; at A800's 200 GB/s NVLink per direction that is >= 0.23 s,
    # and the achievable fraction keeps it within 2x of that
    n = m.n_params
    floor = 2 * 7 / 8 * 2 * n / 200e9
    assert floor <= ar <= 2 * floor
    assert rl.deepspeed_allreduce_excess_s(m, acc, o) == pytest.approx(8 * 8 * ar / 2, rel=1e-9)
    z3 = rl.RLOptions.build(o, train_plan={**plan, "zero_stage": 3})
    assert rl.deepspeed_allreduce_excess_s(m, acc, z3) == 0.0
    # with overlap_comm the all-reduce runs beside the backward: not priced
    hidden = rl.RLOptions.build(o, train_dp_overlap=True)
    assert rl.deepspeed_allreduce_excess_s(m, acc, hidden) == 0.0
    # on the model (validation_setup): the actor at ZeRO-2 takes it, the ZeRO-3 critic not
    t = rl.deepspeed_allreduce_times(m, acc, o)
    assert o.deepspeed_allreduce and o.critic_zero_stage == 3
    assert t == {"actor": pytest.approx(8 * 8 * ar / 2, rel=1e-9), "critic": 0.0}
    assert rl.deepspeed_allreduce_times(m, acc, rl.RLOptions.build(
        o, deepspeed_allreduce=False)) == {"actor": 0.0, "critic": 0.0}
    with pytest.raises(ValueError, match="deepspeed_allreduce"):
        rl.RLOptions.build(o, deepspeed_allreduce=1)
    with pytest.raises(ValueError, match="train_plan='auto'"):
        rl.deepspeed_allreduce_excess_s(m, acc, rl.RLOptions.build(o, train_plan="auto"))


def test_dschat_sourced_check_moves_deepspeed_chat_rows_only():
    # the two mechanisms of DeepSpeed-Chat's benchmark the engine leaves out, at their upper
    # bounds (benchmarks/validate_rl.py DSCHAT_SOURCE)
    t, (f, out) = rl.dschat_sourced_check()
    t = t.set_index("id")
    assert set(t.index) == {"openrlhf-bench-7b-dschat", "openrlhf-bench-13b-dschat"}
    assert (t[["gather_s", "attention_s"]] > 0).all().all()
    moved = f[(f["ratio_with"] - f["ratio_without"]).abs() > 1e-12]["id"]
    assert set(moved) == set(t.index)
    # regression pin of the reading (benchmarks/validate_rl.py): together they close 7.9% and
    # 10.0% of what the rows' training phases lack (published 492.01 s and 1,218.76 s,
    # benchmark/README.md @ 0baf3dd), and the held-out mean |error| moves by under half a point
    assert list(t.loc[["openrlhf-bench-7b-dschat", "openrlhf-bench-13b-dschat"], "closed"]) == \
        pytest.approx([0.079, 0.100], abs=0.005)
    w0, w1 = out["heldout"]
    assert abs(w1["mean_abs_error"] - w0["mean_abs_error"]) < 0.005
    assert w1["worst_factor"] == pytest.approx(w0["worst_factor"], rel=0.01)


def test_deepspeed_allreduce_check_moves_deepspeed_zero2_rows_only():
    # DeepSpeed v0.13.2 stage_1_and_2.py allreduce_and_scatter: every ZeRO-2 row of DeepSpeed-Chat
    # and OpenRLHF (benchmark/README.md @ 0baf3dd, deepspeed==0.13.2) takes the all-reduce; the
    # 70B Ray + vLLM row trains at ZeRO-3 (reduce-scatter) and NeMo RL trains with Megatron
    f, out = rl.deepspeed_allreduce_check()
    d = rl.load_rl_validation().set_index("id")
    moved = set(f[(f["ratio_with"] - f["ratio_without"]).abs() > 1e-12]["id"])
    zero2 = {i for i in d.index if d.loc[i, "system"] in rl.DEEPSPEED_SYSTEMS
             and d.loc[i, "zero_stage"] == 2}
    assert moved == zero2 and "openrlhf-bench-70b-ray-vllm" not in moved
    assert (f.loc[f["id"].isin(moved), "train_ratio_with"]
            > f.loc[f["id"].isin(moved), "train_ratio_without"]).all()
    # regression pin of the verdict (benchmarks/validate_rl.py): on by the rule, the held-out mean
    # |error| worse by under half a point, the worst factor unchanged within 1.5x
    w0, w1 = out["heldout"]
    assert 0.0 <= w1["mean_abs_error"] - w0["mean_abs_error"] < 0.005
    # the share goal's rule on the worst factor: within 1.5x, or no larger where rows the
    # mechanism does not move put it beyond (1.76x, NeMo RL v0.3's Qwen3-30B-A3B row)
    assert w1["worst_factor"] <= max(1.5, w0["worst_factor"] + 1e-9)
    assert w1["worst_share_gap_points"] < w0["worst_share_gap_points"]


def test_a_separate_set_up_inside_one_node_syncs_over_nvlink():
    # NCCL carries the ranks of one node over its P2P transport ("CUDA direct access between
    # GPUs, using NVLink or PCI", NCCL User Guide, NCCL_P2P_DISABLE), not the NIC: OpenRLHF's
    # Ray + vLLM 7B set-up (8 A800s: 4 rollout + 4 trainer GPUs in one node) moves Llama 2 7B's
    # 2 × 6.74e9 B = 13.5 GB whole over the A800's 200 GB/s NVLink per direction at the
    # achievable fraction: 13.5 / (200 × f) ≈ 0.07-0.08 s, against 13.5 / (25 × f) ≈ 0.56 s
    # over one 200 Gb/s NIC.
    acc = rl.a800()
    eff = rl.inf.serving_efficiency(None, acc)   # the fractions weight_sync_time takes
    w = 2 * llmcost.load_model("llama-2-7b").n_params
    inside = rl.weight_sync_time("llama-2-7b", acc, colocated=False, n_train_gpus=4,
                                 n_rollout_gpus=4)
    assert inside == pytest.approx(w / (acc.scaleup_bytes_per_s_per_dir * eff.scaleup_fraction),
                                   rel=1e-9)
    assert acc.scaleup_bytes_per_s_per_dir == pytest.approx(200e9, rel=0.01)
    assert 0.06 < inside < 0.09
    # one GPU past the domain: the NIC
    across = rl.weight_sync_time("llama-2-7b", acc, colocated=False, n_train_gpus=5,
                                 n_rollout_gpus=4)
    assert across == pytest.approx(w / (acc.scaleout_bytes_per_s_per_dir
                                        * eff.scaleout_fraction), rel=1e-9)
    assert across > 5 * inside


def test_an_unknown_split_is_refused_by_name():
    # 'held-out' (the MFU validation's spelling) selected no row and failed deep in pandas
    # (KeyError 'predicted_s'); the RL table's splits are 'calibration' and 'heldout'
    with pytest.raises(ValueError, match=r"split='held-out' must be None .* one of "
                                         r"\['calibration', 'heldout'\]"):
        rl.rl_validation(split="held-out")


def test_the_rl_time_factor_range_is_the_held_out_spread():
    # rl.RL_TIME_FACTOR_RANGE, the spread the bill draws rl_time_factor over, is the held-out
    # rows' least and largest measured ÷ predicted iteration time (1 / ratio) on the bill's own
    # path (the "scenario" mode: a row stated with a scenario's keys), rounded to two digits
    # (regression pin of the constant against its rule: a model change that moves the rows
    # must re-measure it). A trial billed NeMo RL v0.6's Qwen3-30B-A3B row at 100 s against its
    # published 192 s, outside the spread the "model" mode gave (0.86-1.45)
    lo, med, hi = rl.held_out_time_factors()
    assert rl.RL_TIME_FACTOR_RANGE == (pytest.approx(lo, abs=0.005), pytest.approx(hi, abs=0.005))
    assert rl.RL_TIME_FACTOR_MEDIAN == pytest.approx(med, abs=0.005)
    assert lo < 1 < med < hi       # the model runs short more often than long
    assert rl.held_out_time_factors("model")[2] < hi   # the recipes' settings close the gap
    # the scenario mode prices a row with the keys a scenario has, vLLM rows only
    d = rl.load_rl_validation().set_index("id")
    r = d.loc["nemo-rl-v0.6-qwen3-30b-a3b-on"].to_dict() | {"id": "nemo-rl-v0.6-qwen3-30b-a3b-on"}
    it, full = rl.validation_iteration(r, "scenario"), rl.validation_iteration(r, "model")
    assert it.flops["old_logprobs"] == full.flops["old_logprobs"] > 0   # GRPO's default
    # the weight sync by links (bytes over NVLink), not NeMo RL's measured refit
    assert it.parts_gpu_s["weight_sync"] < full.parts_gpu_s["weight_sync"]
    with pytest.raises(ValueError, match="HF generate"):
        rl.validation_iteration(d.loc["openrlhf-bench-13b-dschat"].to_dict(), "scenario")


def test_the_bill_centres_an_rl_campaign_on_the_published_runs_median():
    # rl.scenario_time_factor: a scenario that gives no rl_time_factor is billed at the median
    # measured ÷ predicted iteration time of the held-out published GRPO runs on the bill's own
    # path, as central_mfu centres a predicted MFU. Out of sample (each held-out row priced with
    # the median of the other 23, its published time the truth), the bill's point errs by 32% on
    # average against 77% at the model's own prediction (the figures its docstring states).
    r = 1.0 / rl.rl_validation("scenario", split="heldout")["ratio"].dropna().to_numpy()
    assert len(r) == 24
    loo = np.mean([abs(x / np.median(np.delete(r, i)) - 1) for i, x in enumerate(r)])
    own = np.mean(np.abs(r - 1))
    assert loo == pytest.approx(0.32, abs=0.01) and own == pytest.approx(0.77, abs=0.01)
    assert rl.scenario_time_factor({"rl_algorithm": "grpo"}) == rl.RL_TIME_FACTOR_MEDIAN
    assert rl.scenario_time_factor({"rl_algorithm": "ppo", "rl_time_factor": None}) == \
        rl.RL_TIME_FACTOR_MEDIAN
    # DPO: no rollout, refit or scoring of samples (where the runs part from the model)
    assert rl.scenario_time_factor({"rl_algorithm": "dpo"}) == 1.0
    assert rl.scenario_time_factor({"rl_algorithm": "dpo", "rl_time_factor": 1.3}) == 1.3
    assert rl.time_factor_words({"rl_algorithm": "grpo", "rl_time_factor": 1.0}) == ""
    assert "PPO extrapolated" in rl.time_factor_words({"rl_algorithm": "ppo"})
    for bad in (0, -1.0, float("nan"), True, "1.5"):
        with pytest.raises(ValueError, match=r"rl_time_factor=.* must be null or a number > 0"):
            rl.scenario_time_factor({"rl_time_factor": bad})


def test_the_checked_tail_share_is_the_largest_on_the_published_runs():
    """``rl.TAIL_SHARE_CHECKED``, beyond which the bill says the RL line rests on the response
    lengths' limit, is the largest tail share the model gives any published run of
    ``data/rl_iterations.csv``, at the run it names."""
    shares = {}
    for _, row in rl.load_rl_validation().iterrows():
        it = rl.validation_iteration(row)
        shares[row["id"]] = it.parts_gpu_s["tail"] / it.gpu_s
    worst = max(shares, key=shares.get)
    assert worst == rl.TAIL_SHARE_CHECKED_RUN
    assert shares[worst] == pytest.approx(rl.TAIL_SHARE_CHECKED, abs=5e-4)
