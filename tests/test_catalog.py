"""The catalogues: required rows, sourced figures, dense peaks, lookups."""

import dataclasses
import json
import re
from pathlib import Path

import pytest

import llmcost
from llmcost import catalog
from llmcost.bill.checks import context_warning, price_network_warning

DATA = Path(__file__).parent / "data"

REQUIRED_ACCELERATORS = ["A100-40GB", "A100-80GB", "H100-SXM", "H800", "H200", "B200", "MI300X",
                         "MI325X", "TPU v4", "TPU v5e", "TPU v5p", "Gaudi 3", "Teaching-1PF"]
REQUIRED_MODELS = ["gpt-3-175b", "opt-175b", "bloom-176b", "llama-2-7b", "llama-2-13b",
                   "llama-2-70b", "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "mistral-7b",
                   "mixtral-8x7b", "deepseek-v3", "qwen2.5-72b", "chinchilla-70b", "gopher-280b",
                   "palm-540b", "nemotron-4-340b"]


def test_required_accelerators_present_and_sourced():
    df = llmcost.list_accelerators().set_index("name")
    for name in REQUIRED_ACCELERATORS:
        assert name in df.index
        assert df.loc[name, "source"].strip()
        assert df.loc[name, "peak_bf16_flops_per_s"] > 0


@pytest.mark.parametrize("name, bf16_tflops", [
    # Dense BF16 peaks (datasheet sparse figures halved): A100 312, H100/H200 989.4, B200 2250
    # (HGX, 1000 W), MI300X 1307.4, TPU v4 275, TPU v5p 459.
    ("A100-80GB", 312), ("H100-SXM", 989.4), ("H200", 989.4), ("B200", 2250),
    ("MI300X", 1307.4), ("TPU v4", 275), ("TPU v5p", 459), ("Teaching-1PF", 1000),
])
def test_dense_bf16_peaks(name, bf16_tflops):
    assert llmcost.load_accelerator(name).peak_bf16_flops_per_s == pytest.approx(bf16_tflops * 1e12)


@pytest.mark.parametrize("name, ridge", [
    # test vector 5.j: H100 SXM BF16 295, A100-80 153, A100-40 201, H200 206, B200 281 FLOP/B.
    ("H100-SXM", 295), ("A100-80GB", 153), ("A100-40GB", 201), ("H200", 206), ("B200", 281),
])
def test_ridge_points(name, ridge):
    assert llmcost.load_accelerator(name).ridge_point("bf16") == pytest.approx(ridge, abs=1)


def test_l40s_is_its_datasheet():
    # NVIDIA L40S datasheet (dense | sparse*): FP32 91.6 TF, TF32 183 | 366*, BF16 and FP16
    # 362.05 | 733*, FP8 733 | 1,466* TFLOPS; 48 GB GDDR6 at 864 GB/s; PCIe Gen4 x16 64 GB/s
    # bidirectional, no NVLink; 350 W.
    a = llmcost.load_accelerator("L40S")
    assert a.peak_fp32_flops_per_s == pytest.approx(91.6e12)
    assert a.peak_tf32_flops_per_s == pytest.approx(366e12 / 2)
    assert a.peak_bf16_flops_per_s == pytest.approx(362.05e12)   # 733* / 2 = 366.5, printed 362.05
    assert a.peak_fp8_flops_per_s == pytest.approx(1466e12 / 2)
    assert a.peak_fp4_flops_per_s is None
    assert a.hbm_bytes == 48 * 2**30 and a.hbm_bytes_per_s == pytest.approx(864e9)
    assert a.scaleup_bytes_per_s_per_dir == pytest.approx(64e9 / 2)   # PCIe, per direction
    assert a.scaleout_bytes_per_s_per_dir is None and a.tdp_w == 350
    assert "NVLink support: no" in a.source
    # ridge point by hand: 362.05e12 / 864e9 = 419.0 FLOP per byte
    assert a.ridge_point("bf16") == pytest.approx(419.0, abs=0.1)
    # no measurement of its own: the catalogue's rule, the generic default row, said so
    assert llmcost.load_efficiency("L40S").accelerator == "default"
    assert "default row applies" in a.notes


def test_h100_fp8_ridge_point():
    assert llmcost.load_accelerator("H100-SXM").ridge_point("fp8") == pytest.approx(591, abs=1)


def test_mi300x_hbm_fraction_is_its_measured_babelstream_copy():
    # Two independent BabelStream (HIP) runs on MI300X; Copy counts bytes read + written.
    # AMD, Instinct MI300X customer acceptance test guide (ROCm/system-acceptance-docs
    # docs/mi300x/performance-bench.rst @b754ce7): example output 4,255,995.148 and
    # 4,269,126.275 MB/s on two GPUs, pass threshold 4,177,285 MB/s.
    # Microsoft Azure AI benchmarking guide, Azure_Results/ND_MI300X_v5_results.md
    # (samuel-bohman/AI-benchmarking-guide @2b25b69): Copy 4.15 TB/s on an ND MI300X v5 VM.
    # Datasheet: 5.3 TB/s (AMD Instinct MI300X data sheet).
    # The two sources agree within 3 % (4.263 / 4.15 = 1.027); the catalogue's figure is
    # checked against each below.
    amd = (4_255_995.148e6 + 4_269_126.275e6) / 2
    azure = 4.15e12
    eff = llmcost.load_efficiency("MI300X")
    achieved = eff.hbm_fraction * llmcost.load_accelerator("MI300X").hbm_bytes_per_s
    for measured in (amd, azure, 4_177_285e6):
        assert achieved == pytest.approx(measured, rel=0.05)
    # by hand: (4.2626 + 4.15) / 2 / 5.3 = 0.794, catalogued at two figures as 0.79
    assert eff.hbm_fraction == pytest.approx((amd + azure) / 2 / 5.3e12, abs=0.005)
    assert "system-acceptance-docs" in eff.source and "AI-benchmarking-guide" in eff.source
    # MI325X has no measurement of its own and takes MI300X's (same CDNA 3 dies), saying so
    mi325 = llmcost.load_efficiency("MI325X")
    assert mi325.hbm_fraction == eff.hbm_fraction and "hbm: as MI300X" in mi325.source


def test_required_models_present_sourced_and_close_to_official():
    df = llmcost.list_models().set_index("name")
    for name in REQUIRED_MODELS:
        assert name in df.index and df.loc[name, "source"].strip()
    official = df.dropna(subset=["official_params"])
    rel = (official["n_params"] / official["official_params"] - 1).abs()
    # Published totals are often rounded (Mistral's "7.3B" for 7.24B is the loosest, 0.8%).
    assert rel.max() < 0.01, rel.sort_values().tail(3)


def test_prices_are_sourced_and_valid():
    df = llmcost.list_prices()
    names = set(llmcost.list_accelerators()["name"])
    assert set(df["accelerator"]) <= names
    assert set(df["pricing"]) <= set(catalog.PRICING_MODES)
    assert (df["price_usd_per_gpu_hour"] > 0).all()
    assert all(re.fullmatch(r"20\d\d-[01]\d", d) for d in df["date"])
    assert df["source"].str.strip().astype(bool).all()
    for acc in ["A100-80GB", "H100-SXM", "H200", "B200", "MI300X", "TPU v5e", "TPU v5p"]:
        assert not llmcost.list_prices(acc, "on_demand").empty, acc


def test_catalogue_price_uses_current_rows_only():
    price, where = llmcost.catalogue_price("H100-SXM", "on_demand")
    current = llmcost.list_prices("H100-SXM", "on_demand", current_only=True)
    assert price == pytest.approx(current["price_usd_per_gpu_hour"].median())
    assert "2023-07" not in where  # the pre-cut AWS P5 price is history, not current
    with pytest.raises(ValueError, match="no spot price for MI325X"):
        llmcost.catalogue_price("MI325X", "spot")



def test_mi300x_digitalocean_prices_by_date():
    # DigitalOcean docs, Droplet Pricing (validated 2026-05-28): "AMD MI300X $1.99 per hour",
    # "AMD MI300X (8x) $15.92 per hour" = $1.99 per GPU. The later collection of the same 1x
    # droplet (DigitalOcean API, 2026-10-07) lists $2.59: the current row, the older one history
    rows = llmcost.list_prices("MI300X", "on_demand")
    do = rows[rows["provider"] == "DigitalOcean"].set_index("date")
    assert do.loc["2026-05", "price_usd_per_gpu_hour"] == pytest.approx(15.92 / 8, abs=0.005)
    assert not do.loc["2026-05", "current"] and do.loc["2026-10", "current"]
    price, where = llmcost.catalogue_price("MI300X", "on_demand")
    assert price == pytest.approx(2.59) and "2026-05" not in where

def test_published_runs_are_sourced_and_linked():
    df = llmcost.load_published_runs()
    assert df["source"].str.strip().astype(bool).all()
    for name in df["catalog_model"].dropna():
        llmcost.load_model(name)
    for name in df["catalog_accelerator"].dropna():
        llmcost.load_accelerator(name)


def test_lookup_is_case_insensitive_and_suggests():
    assert llmcost.load_model("LLAMA-3.1-405B").name == "llama-3.1-405b"
    assert llmcost.load_accelerator("h100-sxm").name == "H100-SXM"
    with pytest.raises(ValueError, match=r"model='llama-3-405b' is not in the catalogue; did you "
                                         r"mean 'llama-3.1-405b'"):
        llmcost.load_model("llama-3-405b")
    with pytest.raises(ValueError, match=r"accelerator='H100' is not in the catalogue; did you "
                                         r"mean .*'H100-SXM'.*`llmcost list accelerators`"):
        llmcost.load_accelerator("H100")


def test_fp8_missing_on_a100():
    with pytest.raises(ValueError, match="A100-80GB has no fp8 peak"):
        llmcost.load_accelerator("A100-80GB").peak_flops_per_s("fp8")
    # TPU v5p has no FP8 speed-up: Google's launch blog ("Introducing Cloud TPU v5p and AI
    # Hypercomputer", 2023-12-06) gives 459 TFLOPS bf16 and 918 TOPS int8 per chip, and the
    # later docs revision (docs.cloud.google.com/tpu/docs/v5p-training) lists FP8 at 459
    # TFLOPs, the BF16 rate. An FP8 run on it is refused (price it as BF16) rather than priced
    # at "1x its BF16 peak" with the casts of an FP8 recipe (a new-user trial)
    v5p = llmcost.load_accelerator("TPU v5p")
    assert v5p.peak_flops_per_s("bf16") == pytest.approx(459e12, rel=1e-3)
    assert "918 TOPS int8" in v5p.source and "(FP8) (TFLOPs) 459" in v5p.source
    with pytest.raises(ValueError, match="TPU v5p has no fp8 peak"):
        v5p.peak_flops_per_s("fp8")
    with pytest.raises(ValueError, match="dtype='int4' must be one of"):
        llmcost.load_accelerator("H100-SXM").peak_flops_per_s("int4")


def test_cluster_defaults_and_errors():
    acc = llmcost.load_accelerator("H100-SXM")
    c = llmcost.Cluster(acc, 1024)
    assert c.scaleup_domain_size == 8 and c.scaleout_bytes_per_s_per_dir == 5e10
    assert c.peak_flops_per_s == pytest.approx(1024 * 989.4e12)
    with pytest.raises(ValueError, match="n_gpus=0"):
        llmcost.Cluster(acc, 0)
    with pytest.raises(ValueError, match="scaleout_bytes_per_s_per_dir: MI325X has no value"):
        llmcost.Cluster(llmcost.load_accelerator("MI325X"), 16)
    # within one scale-up domain (8 GPUs) no byte crosses a NIC: no scale-out figure needed,
    # and none is made up (a trial's 4-GPU job on one L40S server was refused mfu: predict)
    one = llmcost.Cluster(llmcost.load_accelerator("MI325X"), 8)
    assert one.scaleout_bytes_per_s_per_dir is None
    with pytest.raises(ValueError, match="scaleup_bytes_per_s_per_dir=0"):
        llmcost.Cluster(acc, 8, scaleup_bytes_per_s_per_dir=0)


def test_a_reserved_default_is_never_above_the_on_demand_median():
    """A trial: B200 at pricing: reserved, price null, billed $14.21/GPU-h, data/prices.csv's
    one reserved B200 row (AWS EC2 Capacity Block, p6-b200.48xlarge $113.666/h / 8), about
    twice its on-demand rows (Lambda $6.69, CoreWeave $8.60). A reservation is a billing
    discount on on-demand use (AWS's reservation-models whitepaper), so the default is
    min(reserved median, on-demand median): by hand (6.69 + 8.60) / 2 = $7.645. H200 alike:
    AWS $7.895 against Hyperstack $3.99 and CoreWeave $6.305, median $5.1475. H100's reserved
    Hyperstack $2.72 is below its on-demand median and stays."""
    from llmcost.core.catalog import catalogue_price, discount_price_cap, list_prices
    rows = list_prices("B200", current_only=True)
    od = sorted(rows[rows["pricing"] == "on_demand"]["price_usd_per_gpu_hour"])
    (res,) = rows[rows["pricing"] == "reserved"]["price_usd_per_gpu_hour"]
    assert od == [6.69, 8.60] and res == pytest.approx(113.666 / 8, rel=1e-4)
    price, where = catalogue_price("B200", "reserved")
    assert price == pytest.approx((6.69 + 8.60) / 2, rel=1e-12) and price < res
    assert "$14.21" in where and "Lambda 2026-09 $6.69" in where and "lies above it" in where
    assert "one current reserved catalogue price (AWS" in where and "median $14.21" not in where
    # the price itself before the rows it is the median of (a review: the index cut the text
    # after the first row, which a reader took for the price)
    assert where.startswith(f"the on-demand median of 2 current catalogue prices, ${price:.2f} (")
    cap = discount_price_cap("B200", "reserved")
    assert (cap["listed"], cap["listed_n"], cap["on_demand_n"]) == (res, 1, 2)
    assert catalogue_price("H200", "reserved")[0] == pytest.approx((3.99 + 6.305) / 2,
                                                                   rel=1e-12)
    assert catalogue_price("H100-SXM", "reserved")[0] == 2.72
    assert discount_price_cap("H100-SXM", "reserved") is None
    assert discount_price_cap("B200", "on_demand") is None
    # the row and its source stay in the catalogue: a scenario can still price the block
    assert "capacityblocks" in rows[rows["pricing"] == "reserved"].iloc[0]["source"]


def test_a_reserved_price_counts_each_provider_once_at_its_shortest_term():
    """data/prices.csv holds GCP's TPU v5p committed-use rates, $2.94 per chip-hour for 1 year
    and $1.89 for 3 years (Google Cloud TPU pricing, the rows' source). The median of both,
    $2.415, is a price no buyer pays; the catalogue's reserved price is the provider's shortest
    published commitment, $2.94 (TPU v5e: $0.84, not the midpoint of $0.84 and $0.54)."""
    from llmcost.core.catalog import catalogue_price
    price, where = catalogue_price("TPU v5p", "reserved")
    assert price == 2.94 and "the one current reserved" in where and "$1.89" not in where
    assert catalogue_price("TPU v5e", "reserved")[0] == 0.84
    # the row left out is said (a trial read one price beside `list prices`' two current rows)
    assert where.endswith("(each provider at its shortest term: 1 longer-term row left out)")
    # a mode with one row per provider is unchanged: H100 on demand, the median of 5 providers
    h100, said = catalogue_price("H100-SXM", "on_demand")
    assert said.startswith("median of 5 current")
    # the median itself before the rows (a trial read the first row, cut short, as the price)
    assert said.startswith(f"median of 5 current on_demand catalogue prices, ${h100:.2f}: ")
    # a claim's price range reads the same rows (a review: it still took the $2.415 midpoint)
    from llmcost.bill import claims
    r = claims.price_range("TPU v5p", "reserved")
    assert (r["low"], r["median"], r["high"], r["n"]) == (2.94, 2.94, 2.94, 1)


@pytest.mark.parametrize("name", ["qwen3-4b", "qwen3-30b-a3b", "qwen3-235b-a22b"])
def test_qwen3_context_is_the_reports_and_the_configs(name):
    # Qwen3 Technical Report (arXiv:2505.09388) §3.2: stages S1 and S2 train at 4,096 tokens,
    # the long-context stage S3 at 32,768; Hugging Face config.json of Qwen/Qwen3-4B and
    # Qwen/Qwen3-30B-A3B (copies in tests/data/hf_configs) and of Qwen3-235B-A22B declare
    # max_position_embeddings 40960. A trial read a 32k phase of Qwen3-30B-A3B flagged as beyond
    # any context the catalogue records: the main pre-training length stays 4,096, and the
    # declared context makes 32,768 the model's own long-context stage.
    spec = llmcost.load_model(name)
    assert (spec.seq_len, spec.max_position_embeddings) == (4096, 40960)
    config = DATA / "hf_configs" / f"{name}.json"
    if config.exists():
        assert json.loads(config.read_text())["max_position_embeddings"] == 40960
    words = context_warning(spec, 32768, phase=True)
    assert "within its declared 40,960-token context" in words
    assert "records no longer context" not in words


def test_a100_40gb_price_says_its_instance_network_is_not_the_modelled_one():
    # The AWS A100-40GB price is p4d.24xlarge (Lambda's 8x A100 SXM 40 GB, $1.99, records no
    # network figure): 400 Gbps EFA per instance of 8 A100
    # (https://aws.amazon.com/ec2/instance-types/p4/) = 400e9 / 8 GPUs / 8 bits = 6.25e9 B/s per
    # GPU; the catalogue's scale-out is DGX A100's 200 Gb/s HDR NIC per GPU = 2.5e10 B/s
    # (data/accelerators.csv). A trial found the price and the network from different machines.
    rows = llmcost.list_prices("A100-40GB", "on_demand", current_only=True)
    aws = rows[rows["provider"] == "AWS"].iloc[0]
    assert float(aws["scaleout_bytes_per_s_per_gpu"]) == pytest.approx(400e9 / 8 / 8, rel=1e-9)
    assert llmcost.load_accelerator("A100-40GB").scaleout_bytes_per_s_per_dir == \
        pytest.approx(200e9 / 8, rel=1e-9)
    s = {"accelerator": "A100-40GB", "price_usd_per_gpu_hour": None, "pricing": "on_demand"}
    words = price_network_warning(s)
    assert "differs from the 25 GB/s per GPU" in words and "6.25 GB/s per GPU" in words
    # the scenario that models the priced network, or gives its own price, is not warned
    assert price_network_warning({**s, "comm_scaleout_bytes_per_s": 6.25e9}) is None
    assert price_network_warning({**s, "price_usd_per_gpu_hour": 2.74}) is None
    # nor a job inside one 8-GPU HGX board, which sends nothing over the scale-out network (a
    # trial's 1-GPU and 8-GPU runs opened their page on this warning); 16 GPUs span two boards
    assert price_network_warning({**s, "n_gpus": 8}) is None
    assert "differs from the 25 GB/s" in price_network_warning({**s, "n_gpus": 16})


def test_a_compare_says_each_price_basis_where_they_differ():
    # A trial compared H100 and B200 at pricing: reserved, price null, and read
    # "price_usd_per_gpu_hour $2.72/GPU-h → $7.64/GPU-h": H100's reserved median against B200's
    # on-demand median ((6.69 + 8.60) / 2, its one reserved row above it: the test above).
    from llmcost.present.glance import compare_inputs
    bills = [llmcost.build_ledger({"accelerator": a, "pricing": "reserved",
                                   "price_usd_per_gpu_hour": None, "n_gpus": 64,
                                   "model": "llama-2-7b", "train_tokens": 1e11})
             for a in ("H100-SXM", "B200")]
    price = next(x for x in compare_inputs(bills) if x.startswith("price_usd_per_gpu_hour"))
    assert price == ("price_usd_per_gpu_hour $2.72/GPU-h (catalogue reserved median) → "
                     "$7.64/GPU-h (catalogue on-demand median: no reserved price below it)")
    # one basis on both sides: no words (two given prices)
    given = [llmcost.build_ledger({"accelerator": a, "price_usd_per_gpu_hour": p,
                                   "n_gpus": 64, "model": "llama-2-7b", "train_tokens": 1e11})
             for a, p in (("H100-SXM", 2.0), ("B200", 5.0))]
    assert "price_usd_per_gpu_hour $2.00/GPU-h → $5.00/GPU-h" in compare_inputs(given)


def test_a_config_json_model_is_named_without_its_authors_folder(tmp_path):
    # A trial: a report of a config.json model printed the author's absolute path
    # (/work/.../qwen2.5-3b.json) in the index's parameters, notebook 09 and the comparison,
    # where every other page says the model's name. A page names it by its model and file.
    from pathlib import Path

    from llmcost.core.catalog import load_model, model_words
    from llmcost.present.glance import compare_inputs
    cfg = Path(__file__).parent / "data" / "hf_configs" / "gemma-2-2b.json"
    name = load_model(str(cfg)).name
    assert model_words(str(cfg)) == f"{name} (gemma-2-2b.json)"
    assert str(cfg.parent) not in model_words(str(cfg))
    assert model_words("llama-2-70b") == "llama-2-70b"  # a catalogue name as it is
    bills = [llmcost.build_ledger({"model": m, "price_usd_per_gpu_hour": 3.0})
             for m in (str(cfg), "llama-2-7b")]
    assert compare_inputs(bills)[0] == f"model {name} (gemma-2-2b.json) → llama-2-7b"


def test_accelerators_per_host_are_the_vendors_host_sizes():
    # A trial read "2,048 × TPU v5p (8 per node)": a v5p VM holds 4 chips (Google Cloud TPU v5p
    # docs: topology 2x2x1 is 4 chips on 1 host, 8x8x16 is 1,024 chips on 256 hosts); a v4 VM
    # 4; a v5e host 8 ("Chips per host: 8"); an NVL72 rack is 18 compute trays of 4 GPUs
    # (NVIDIA GB200 / GB300 NVL72); an HGX board 8, the default (the domain up to 8).
    hosts = {name: llmcost.load_accelerator(name).per_host
             for name in ("TPU v4", "TPU v5p", "TPU v5e", "GB200-NVL72", "GB300-NVL72",
                          "H100-SXM", "A100-80GB", "MI300X", "Gaudi 3")}
    assert hosts == {"TPU v4": 4, "TPU v5p": 4, "TPU v5e": 8, "GB200-NVL72": 4,
                     "GB300-NVL72": 4, "H100-SXM": 8, "A100-80GB": 8, "MI300X": 8, "Gaudi 3": 8}
    assert 72 // hosts["GB200-NVL72"] == 18 and 1024 // hosts["TPU v5p"] == 256
    with pytest.raises(ValueError, match="accelerators_per_host"):
        dataclasses.replace(llmcost.load_accelerator("H100-SXM"), accelerators_per_host=0)


def test_a_checkpoint_write_uses_the_hosts_of_the_accelerator():
    # The hosts a job spans set its aggregate link to storage: n ÷ per_host hosts × the per-host
    # bandwidth (ckpt_node_bytes_per_s). With storage itself unlimited (1e15 B/s) and 1 GB/s
    # per host, 2,048 TPU v5p chips on 512 four-chip VMs write a checkpoint at 512 GB/s, 2,048
    # H100s on 256 eight-GPU servers at 256 GB/s: half the time on the TPUs, by hand.
    from llmcost.bill import levers
    speed = {}
    for acc, hosts in (("TPU v5p", 512), ("H100-SXM", 256)):
        plan = levers.checkpoint_plan_of(dict(
            model="llama-3.1-70b", accelerator=acc, n_gpus=2048, seq_len=8192,
            global_batch_tokens=16777216, train_tokens=15e12, mfu=0.4,
            ckpt_storage_bytes_per_s=1e15, ckpt_node_bytes_per_s=1e9))
        sz = plan.size
        total = sz.weights_bytes + sz.master_bytes + sz.optimizer_bytes + sz.loader_rng_bytes
        speed[acc] = total / plan.write_s
        assert speed[acc] == pytest.approx(hosts * 1e9, rel=1e-9)


@pytest.mark.parametrize("name, n_layers, d, params", [
    ("pythia-160m", 12, 768, 162_322_944), ("pythia-410m", 24, 1024, 405_334_016)])
def test_teaching_size_pythia_models_count_their_released_parameters(name, n_layers, d, params):
    # Pythia (Biderman et al. 2023, arXiv:2304.01373; EleutherAI/pythia models/*.yml): GPT-NeoX
    # blocks with biases everywhere, untied 50,304-token embeddings, d_ff = 4d. By hand:
    # 2 × 50,304 × d + L × (4d² + 4d + 8d² + 5d + 4d) + 2d; the released checkpoints hold
    # 162,322,944 and 405,334,016 parameters (their Hugging Face model cards)
    by_hand = 2 * 50_304 * d + n_layers * (12 * d * d + 13 * d) + 2 * d
    m = llmcost.load_model(name)
    assert by_hand == params and m.n_params == params
    # 143,000 steps × 1,024 sequences × 2,048 tokens (the training configs)
    assert m.train_tokens == 143_000 * 1024 * 2048


def test_a_name_typed_as_a_reader_writes_it_is_found_or_its_family_offered():
    # A journalist typed "DeepSeek V3" (refused, the right name suggested) and "H100 80GB"
    # (offered A100-80GB and A100-40GB, by spelling, never H100-SXM)
    from llmcost.core.catalog import list_accelerators, suggest
    assert llmcost.load_model("DeepSeek V3").name == "deepseek-v3"
    assert llmcost.load_accelerator("H100 SXM").name == "H100-SXM"
    acc = list_accelerators()["name"].tolist()
    assert suggest("H100 80GB", acc)[:2] == ["H100-SXM", "H100-96GB-500W"]
    with pytest.raises(ValueError, match=r"did you mean 'H100-SXM'"):
        llmcost.load_accelerator("H100 80GB")
