"""Valid scenarios that stopped a report (a robustness sweep of about 70 generated scenarios):
each notebook named runs to its end here, in-process (tests/_inprocess.py).

* Notebook 05 compared serving at batch 1 and 32 where only 22 sequences of 1,250 tokens fit
  beside GPT-3 175B's weights on 8 A100-40GB (BatchDoesNotFit): it now compares batch 1 with
  the smaller of 32 and the most that fit (``ServingCost.max_batch``).
* Notebook 07's what-if row "a tenth" of a 100 MB/s storage made planned stops, a checkpoint
  and a restart of 1.9e5 s each at 0.87 a day, take all of the wall-clock time, and raised:
  the row is now kept with its reason (``reliability.scenario_checkpoint_cases``).
* Notebook 09 divided pre-training's bill by the cheapest route's, $0 when no token is served
  (``inference_tokens_lifetime: 0``), and printed "infx".

And, from a newcomer's walk through the README, a mistyped command or option is told the close
one (``cli._Parser``).
"""

import pytest
from _inprocess import run_in_process

from llmcost.present import report

GPT3 = """model: gpt-3-175b
accelerator: A100-40GB
n_gpus: 1024
train_tokens: 3.0e11
seq_len: 2048
mfu: 0.2
global_batch_tokens: 3145728
"""
SLOW_STORAGE = """model: llama-2-70b
accelerator: H100-SXM
n_gpus: 2048
train_tokens: 2.0e12
seq_len: 4096
mfu: 0.4
ckpt_storage_bytes_per_s: 1.0e8
"""

NOTHING_SERVED = """model: llama-3.1-8b
accelerator: H100-SXM
n_gpus: 256
train_tokens: 1.0e12
seq_len: 8192
mfu: 0.4
global_batch_tokens: 4194304
inference_tokens_lifetime: 0
"""


# GPT-3 175B's serving replica holds 22 sequences of 1,250 tokens beside its weights (the count
# the trial's refusal printed: inference.max_batch's; the line compares batch 1 with it)
@pytest.mark.parametrize("text, stem, said", [
    (GPT3, "05_rl_loop", "  at batch 22: "),
    (SLOW_STORAGE, "07_checkpoints", "at a tenth, 0.01 GB/s: the run never finishes: "),
    (NOTHING_SERVED, "09_savings", "(no ratio: the cheapest route costs $0 with "
                                   "inference_tokens_lifetime 0)"),
])
def test_the_notebook_runs_and_says_why(text, stem, said, tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    plan = report.plan_report(path, [stem[:2]])
    (nb,) = plan.notebooks
    printed = run_in_process(nb, report.notebook_parameters_for(nb, plan))
    assert said in printed


@pytest.mark.parametrize("argv, said", [
    (["estimat"], "did you mean 'estimate'?"),
    (["list", "model"], "did you mean 'models'?"),
    (["estimate", "--scenaro", "x.yaml"], "--scenaro is not an option: did you mean --scenario?"),
    (["estimate", "--scenario", "x.yaml", "--formt", "json"],
     "--formt is not an option: did you mean --format?"),
])
def test_a_mistyped_command_or_option_is_told_the_close_one(argv, said):
    # a newcomer's trial: `--scenaro` was told only that --scenario is required, `estimat` and
    # `list model` only the list of choices
    from _cli import run_cli
    res = run_cli(*argv)
    assert res.returncode == 2 and said in res.stderr


def test_a_job_the_default_batch_cannot_split_is_told_the_batch_was_not_given(tmp_path):
    # A compute-governance trial priced a 1e26-FLOP run, Llama 3.1 405B on 25,000 H100s at a
    # given MFU, without global_batch_tokens: refused at the default 4,194,304 tokens (512
    # sequences of 8,192; 25,000 = 2^3 × 5^5 GPUs leave dp at most 8) and told only to use
    # 4,096 GPUs; the refusal now says the batch was a default.
    text = ("model: llama-3.1-405b\naccelerator: H100-SXM\nn_gpus: 25000\n"
            "train_tokens: 4.1e13\nseq_len: 8192\nmfu: 0.4\nprice_usd_per_gpu_hour: 2.5\n")
    path = tmp_path / "big.yaml"
    path.write_text(text)
    with pytest.raises(report.ScenarioError) as e:
        report.estimate_ledger(path)
    assert "global_batch_tokens is not given: the default, 4,194,304 tokens (512 sequences of " \
           "8,192), the default scenario's for 2,048 GPUs, was used: give the run's own" in \
        str(e.value)
    # a batch the scenario gives is its own: no such clause
    path.write_text(text + "global_batch_tokens: 4194304\n")
    with pytest.raises(report.ScenarioError) as e:
        report.estimate_ledger(path)
    assert "do not split with a global batch" in str(e.value)
    assert "global_batch_tokens is not given" not in str(e.value)
