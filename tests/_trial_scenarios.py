"""Scenarios new-user trials wrote, shared by the tests that check what those trials found."""

import shutil
from pathlib import Path

#: A dense 70B model in FP8 at 128k context with context parallelism on 1,024 H100s, as a trial
#: wrote it (its MFU given, not predicted).
LLAMA_70B_FP8_128K = """model: llama-3.1-70b
accelerator: H100-SXM
n_gpus: 1024
train_tokens: 1.0e12
seq_len: 131072
mfu: 0.35
dtype: fp8
price_usd_per_gpu_hour: 2.80
pricing: on_demand
global_batch_tokens: 16777216
tp: 8
cp: 8
pp: 0
"""

#: SmolLM-135M's config.json (HuggingFaceTB/SmolLM-135M), as a new-user trial gave it.
SMOLLM_135M = Path(__file__).parent / "data" / "trial_configs" / "smollm-135m.json"
#: The trial's scenario (135M on one 8 x H100 node), which printed a cheaper bill without
#: checkpoints ($4.54k, failures $10.49) than with them ($4.56k, failures $13.85).
TRIAL_8GPU = """model: smollm-135m-config.json
accelerator: H100-SXM
n_gpus: 8
train_tokens: 6.0e11
seq_len: 2048
mfu: [0.25, 0.45]
price_usd_per_gpu_hour: {low: 2.0, mode: 3.0, high: 4.5}
pricing: on_demand
global_batch_tokens: 1048576
rl_rollout_tp: 1
"""


def trial_8gpu_yaml(directory, extra: str = ""):
    """``TRIAL_8GPU`` (plus the YAML lines ``extra``) written to ``directory`` beside the model
    file it names; returns the scenario's path."""
    shutil.copyfile(SMOLLM_135M, directory / "smollm-135m-config.json")
    path = directory / "trial.yaml"
    path.write_text(TRIAL_8GPU + extra, encoding="utf-8")
    return path
