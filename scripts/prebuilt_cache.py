"""Build, or check, the repository's prebuilt cache entries (``prebuilt/``): the results every
report computes whatever its scenario (the step model's validation over the published runs, the
RL and serving validation tables, the kernel tables, the scenario-free figures and tables of the
notebooks), so that the first report after a fresh clone reads them instead of computing them.

How they are found: ``llmcost report`` is run for three scenarios that differ in everything a
scenario sets (model, accelerator, GPU count, tokens, sequence length, stack, ZeRO stage, price,
MFU given or predicted), each with an empty cache folder of its own and the prebuilt folder off;
the entries all three folders hold (``diskcache.shared_entries``: the same name is the same call
with the same arguments, code, data and libraries) are copied to ``prebuilt/`` with a manifest
(``diskcache.write_prebuilt``). The figures' SVG and math-text layouts among them are keyed on
the fonts matplotlib knows (``plots._fonts_digest``: its own by their place in its data folder,
``plots.font_place``, others by their path), so they are read where the same fonts are listed,
wherever the virtual environment lies. A scenario's own results (its plan, sweep, levers, bill)
are never among them. Every entry's key holds ``diskcache.source_fingerprint()``: after any
change to the code or data the folder is stale, never read wrong (a report then computes what it
would have read; ``--check`` says so). Rebuild before a commit lands (about a minute on 2
cores): ``make prebuilt``.

Usage:
    python scripts/prebuilt_cache.py            # rebuild prebuilt/
    python scripts/prebuilt_cache.py --check    # exit 1 when prebuilt/ (or the folder
                                                # $LLMCOST_PREBUILT_DIR names) is not current
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

from llmcost import SCENARIO_DIR
from llmcost.core import diskcache
from llmcost.core.cachedir import PREBUILT_DIR, prebuilt_dir


def a100_scenario(folder: Path) -> Path:
    """The third scenario: the default one changed in everything a scenario sets (a 7B model
    on 256 A100s, 2,048-token sequences, 200B tokens, FSDP2 with ZeRO-3, its MFU predicted, its
    own price), written to ``folder``."""
    sc = yaml.safe_load((SCENARIO_DIR / "default.yaml").read_text())
    sc.update({"title": "7B dense model, 200B tokens, 256 × A100 (prebuilt cache's third)",
               "description": "A Llama 2 7B run on 256 A100s with FSDP2, its MFU predicted: the "
                              "third scenario scripts/prebuilt_cache.py reports",
               "model": "llama-2-7b", "accelerator": "A100-80GB", "n_gpus": 256,
               "train_tokens": 2.0e11, "seq_len": 2048, "global_batch_tokens": 1048576,
               "mfu": "predict", "price_usd_per_gpu_hour": 1.79, "stack": "pytorch-fsdp2-2024",
               "zero_stage": 3})
    path = folder / "a100-7b.yaml"
    path.write_text(yaml.safe_dump(sc, sort_keys=False))
    return path


def report(scenario: Path, cache: Path, out: Path) -> float:
    """Run `llmcost report` for ``scenario`` with the empty cache ``cache`` and no prebuilt
    entries; its seconds."""
    env = {**os.environ, "LLMCOST_CACHE_DIR": str(cache), "LLMCOST_PREBUILT_DIR": "off"}
    for name in ("LLMCOST_CACHE_LOG", "PYTHONWARNINGS"):  # the builder's own filters: none
        env.pop(name, None)
    t0 = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "llmcost", "report", "--scenario", str(scenario),
                          "--out", str(out), "--overwrite"], capture_output=True, text=True,
                         env=env)
    if run.returncode != 0:
        sys.exit(f"`llmcost report --scenario {scenario}` failed (exit {run.returncode}):\n"
                 f"{run.stderr[-3000:]}")
    return time.perf_counter() - t0


def build() -> None:
    work = Path(tempfile.mkdtemp(prefix="prebuilt-"))
    try:
        scenarios = [SCENARIO_DIR / "default.yaml", SCENARIO_DIR / "llama-3.1-405b.yaml",
                     a100_scenario(work)]
        caches = []
        for i, sc in enumerate(scenarios):
            caches.append(work / f"cache-{i}")
            s = report(sc, caches[-1], work / f"out-{i}")
            print(f"[{i + 1}/{len(scenarios)}] {sc.name}: {s:.1f} s, "
                  f"{len(list(caches[-1].glob('*.pickle')))} entries", flush=True)
        names = diskcache.shared_entries(caches)
        manifest = diskcache.write_prebuilt(caches[0], names, PREBUILT_DIR,
                                            [sc.name for sc in scenarios])
        print(f"prebuilt/: {manifest['entries']} entries shared by the three reports, "
              f"{manifest['bytes'] / 1e6:.1f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="say whether prebuilt/ is current; exit 1 when it is not")
    args = ap.parse_args()
    if args.check:
        folder = prebuilt_dir()  # $LLMCOST_PREBUILT_DIR where set
        if folder is None:
            print("prebuilt cache off (LLMCOST_PREBUILT_DIR=off or LLMCOST_CACHE_DIR=off): "
                  "nothing prebuilt is read")
            sys.exit(1)
        current, sentence = diskcache.prebuilt_state(folder)
        print(("prebuilt cache: " if current else "prebuilt cache stale: ") + sentence)
        sys.exit(0 if current else 1)
    build()
