"""Scenario files and the shared parameter vocabulary."""

from pathlib import Path

import pytest

import llmcost
from llmcost.bill.scenario import PARAMETERS, ScenarioError, load_scenario, validate_parameters
from llmcost.core import diskcache
from llmcost.core.catalog import SCENARIO_DIR


def test_every_scenario_file_loads():
    files = sorted(llmcost.SCENARIO_DIR.glob("*.yaml"))
    assert {f.stem for f in files} >= {"default", "llama-3.1-405b"}
    for f in files:
        sc = load_scenario(f)
        assert sc["model"] and sc["accelerator"]


def test_yaml_12_floats(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("train_tokens: 2e12\nn_gpus: 2048\nmfu: .4\n")
    sc = load_scenario(f)
    assert sc == {"train_tokens": 2e12, "n_gpus": 2048, "mfu": 0.4}
    assert isinstance(sc["n_gpus"], int)


@pytest.mark.parametrize("text, hint", [
    # a lecturer's class wrote "7 billion" and was told "write 7", seven tokens: 7 × 10^9
    ("train_tokens: 7 billion", "(write 7e+09 for 7 billion)"),
    ("train_tokens: 2.5 trillion", "(write 2.5e+12 for 2.5 trillion)"),
    # thousands separators: YAML 1.1 integers take underscores, not commas (yaml.org/type/int)
    ("train_tokens: 7,000,000,000", "(write 7000000000 for 7,000,000,000: a number with "
                                    "commas is text to YAML)"),
    # a currency sign with them (a finance trial's budget; the CLI flag said it, the file not)
    ('ledger_budget_usd: "$1,500,000"', "(write 1500000 for $1,500,000: a number with a "
                                        "currency sign and commas is text to YAML)"),
    # a quoted number is a YAML string: '"8"' was told only "must be a whole number"
    ('n_gpus: "8"', "(write 8 without quotes: a number in quotes is text)"),
    # a unit after the magnitude word, and two magnitude words (a review: "7 billion tokens"
    # was told "write 7"): 2 × 10^3 × 10^9
    ("train_tokens: 7 billion tokens", "(write 7e+09 for 7 billion tokens)"),
    ("train_tokens: 2 thousand billion", "(write 2e+12 for 2 thousand billion)"),
    # every digit kept (":g" wrote 1.23457e+12, another number): 1.23456789 × 10^12
    ("train_tokens: 1.23456789 trillion", "(write 1234567890000 for 1.23456789 trillion)"),
    # no hint where the unquoted number still breaks the rule, or is no number to YAML
    ('n_gpus: "8.5"', "n_gpus='8.5' must be a whole number"),
    ('n_gpus: "٨"', "n_gpus='٨' must be a whole number"),
    # a magnitude word on a count that is still no whole number: no hint, and not "write 1.2345"
    ("n_gpus: 1.2345 thousand", "n_gpus='1.2345 thousand' must be a whole number"),
])
def test_a_number_written_as_text_says_how_to_write_it(tmp_path, text, hint):
    f = tmp_path / "s.yaml"
    f.write_text(text + "\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario(f)
    assert str(e.value).endswith(hint)


def test_a_yaml_boolean_where_a_word_goes_names_the_words(tmp_path):
    # A trial's `recompute: yes` read "recompute=True must be a string": PyYAML's SafeLoader,
    # which load_scenario extends, resolves YAML 1.1 booleans (yes|no|on|off among them,
    # yaml.org/type/bool.html), so the word arrived as True. The error names the words the
    # key takes and why the value became a boolean.
    f = tmp_path / "s.yaml"
    f.write_text("recompute: yes\n")
    with pytest.raises(ScenarioError, match=r"recompute=True must be one of 'none', 'selective', "
                       r"'full', 'auto' \(YAML reads an unquoted yes, no, on or off as true or "
                       r"false\)"):
        load_scenario(f)
    f.write_text("recompute: 'full'\n")
    assert load_scenario(f) == {"recompute": "full"}


def test_the_readme_sends_python_readers_to_load_scenario():
    # A new-user trial read a scenario with yaml.safe_load and built the bill: PyYAML resolves
    # YAML 1.1, whose float pattern needs a dot ([-+]?([0-9][0-9_]*)?\.[0-9.]*([eE][-+][0-9]+)?,
    # yaml.org/type/float.html), so 8e12 is a string and the bill refuses it. The README says to
    # use llmcost.load_scenario (YAML 1.2 numbers).
    import yaml
    assert yaml.safe_load("train_tokens: 8e12") == {"train_tokens": "8e12"}
    with pytest.raises(ScenarioError, match="train_tokens='8e12' must be a number"):
        llmcost.build_ledger({"train_tokens": "8e12"})
    readme = (Path(llmcost.__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    assert "llmcost.load_scenario" in readme and "yaml.safe_load" in readme


@pytest.mark.parametrize("text, message", [
    ("n_gpus: 0\n", "n_gpus=0 must be > 0"),
    ("n_gpus: -8\n", "n_gpus=-8 must be > 0"),
    ("n_gpus: 8.5\n", "n_gpus=8.5 must be a whole number"),
    ("n_gpus: lots\n", "n_gpus='lots' must be a whole number"),
    # the hint writes out the number the suffix stands for (k 1e3, T 1e12, % 0.01)
    ("n_gpus: 2k\n", r"n_gpus='2k' must be a whole number \(write 2000 for 2k\)"),
    ("train_tokens: 15T\n", r"train_tokens='15T' must be a number \(write 1\.5e\+13 for 15T\)"),
    # a context length's k is 1,024 tokens (Llama 3.1: max_position_embeddings 131,072 = 128K);
    # other keys keep k = 1,000 (a trial wrote the suggested 16000 for 16k, and the default
    # batch of 8,388,608 = 2²³ tokens then held no whole sequence)
    ("seq_len: 16k\n", r"seq_len='16k' must be a whole number \(write 16384 for 16k: a context "
     r"length's k is 1,024 tokens\)"),
    # a negative count is a slip, said as one, with what 0 bills
    ("train_tokens: -4.0e12\n", r"train_tokens=-4e\+12 must be >= 0: a count of tokens \(0 "
     r"bills post-training alone"),
    ("price_usd_per_gpu_hour: 0\n", r"price_usd_per_gpu_hour=0.0 must be > 0 \(hardware already "
     r"bought: pricing: owned with ledger_owned_usd_per_gpu"),
    # 0 bills post-training alone, and must give some (ledger.post_training_only)
    ("train_tokens: 0\n", r"train_tokens=0 bills post-training alone \(the base model taken as "
     r"trained\), and the scenario gives none: give ledger_sft_tokens"),
    ("mfu: 40\n", r"mfu=40.0 must be in \(0, 1\]: a fraction of peak \(40% is 0.40\)"),
    ("n_gpus: 4096\nmfu: 0.4\nn_gpus: 8\n", "key 'n_gpus' appears twice \\(line 3\\)"),
    ("n_gpu: 8\n", "unknown parameter 'n_gpu'; did you mean 'n_gpus'"),
    # a key a scenario may not set is never suggested (trial 49: `mfuu` was told "did you mean
    # 'mfu', 'mfu_band'?", and mfu_band is refused in a scenario)
    ("mfuu: 0.4\n", r"unknown parameter 'mfuu'; did you mean 'mfu'\? \("),
    # mfu: null beside a pilot: the pilot sets the MFU, so mfu is left out (trial 49)
    ("mfu: null\npilot: [{n_gpus: 8, tokens_per_s_per_gpu: 9000}]\n",
     r"mfu=null beside a pilot: leave mfu out, the pilot's measured throughput sets the MFU"),
    ("mfu: null\nledger_pilot_tokens_per_s_per_gpu: 9000\nledger_pilot_n_gpus: 8\n",
     r"mfu=null beside a pilot: leave mfu out, the pilot's measured throughput sets the MFU"),
    # an empty pilot list is no pilot: mfu: null is told what mfu may be
    ("mfu: null\npilot: []\n", r"mfu=null must be a number \(0.40 for 40%\)"),
    ("model: no/such/config.json\n", "model='.*no/such/config.json': no config.json found"),
    # a Hugging Face repository id is no file: the catalogue's name for it is suggested (a trial)
    ("model: Qwen/Qwen3-30B-A3B\n", r"model='.*Qwen/Qwen3-30B-A3B': no config.json found; did "
                                     r"you mean 'qwen3-30b-a3b' \(the catalogue's"),
    ("mfu: 1.2\n", r"mfu=1.2 must be in \(0, 1\]"),
    ("mfu: 0\n", r"mfu=0.0 must be in \(0, 1\]"),
    ("mfu: predicted\n", "mfu='predicted' must be a number"),
    # YAML's null said as YAML writes it, and what mfu may be (a trial read "mfu=None must be a
    # number", Python's spelling, with no word of ranges or predict)
    ("mfu: null\n", r"mfu=null must be a number \(0.40 for 40%\), a range such as "
     r"\[0.35, 0.45\], or predict"),
    # a near miss of `predict` names the word (difflib's ratio 'predcit' ~ 'predict' 0.86)
    ("mfu: predcit\n", r"mfu='predcit' must be a number in \(0, 1\], or the word `predict` "
     r"\(the step-time model's prediction for the scenario's plan\); did you mean `mfu: predict`\?"),
    ("mfu: fast\n", r"mfu='fast' must be a number \(0.40 for 40%\), a range such as "
     r"\[0.35, 0.45\], or predict$"),
    ("phases: [{name: lc, tokens: 1.0e11, seq_len: 32768, mfu: predict}]\n",
     r"phases\[0\].mfu='predict': a phase's MFU is not predicted \(`mfu: predict` is the main "
     r"run's\); leave the phase's mfu out to price it at the main run's MFU and plan"),
    ("model: gpt-5\n", "model='gpt-5' is not in the catalogue"),
    ("accelerator: H100\n", "accelerator='H100' is not in the catalogue"),
    ("interactive: false\n", "interactive cannot be set in a scenario"),
    ("dtype: fp4\n", "dtype='fp4' must be one of"),
    ("pricing: free\n", "pricing='free' must be one of"),
    ("trian_tokens: 1e12\n", "unknown parameter 'trian_tokens'"),
    # a field of the model, not a parameter: the message says where it is set (DeepSeek-V3's
    # config.json key for its MTP depth), not "did you mean 'comm_tp_overlap'"
    ("mtp_depth: 1\n", r"'mtp_depth' is a property of the model \(ModelSpec.mtp_depth\), not a "
     r"scenario parameter: the scenario's `model` sets it.*'num_nextn_predict_layers'"),
    ("n_layers: 61\n", r"'n_layers' is a property of the model"),
    ("accelerator: A100-80GB\ndtype: fp8\n", "A100-80GB has no fp8 peak"),
    ("accelerator: MI325X\nprice_usd_per_gpu_hour: null\npricing: spot\n", "no spot price"),
    # cp fixed, tp and pp free: the message names what the scenario fixes (a new-user trial
    # read "tp=1 × pp=1 × cp=3" of a scenario that gave neither tp nor pp)
    ("model: llama-3.1-70b\nn_gpus: 1024\nseq_len: 32768\nglobal_batch_tokens: 16777216\n"
     "cp: 3\n", r"cp=3 must divide n_gpus=1024 \(n_gpus = dp × tp × pp × cp\); tp and pp left "
     r"free \(0\) are chosen by the plan search"),
    ("model: llama-3.1-70b\nn_gpus: 1024\nseq_len: 32768\nglobal_batch_tokens: 16777216\n"
     "tp: 8\ncp: 3\n", r"tp=8 × cp=3 = 24 must divide n_gpus=1024 .*; pp left free"),
    ("- a\n- b\n", "must be a non-empty mapping"),
    ("a: [\n", "not valid YAML at line 2"),
])
def test_bad_scenarios_name_key_and_rule(tmp_path, text, message):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ScenarioError, match=message):
        load_scenario(f)


def test_missing_file_or_folder(tmp_path):
    with pytest.raises(ScenarioError) as e:
        load_scenario("no/such/file.yaml")
    # the file named once, with the folder a relative path is read against (a trial read
    # "path='nope.yaml': scenario file 'nope.yaml' does not exist")
    assert str(e.value) == ("path='no/such/file.yaml': no such scenario file (a path relative "
                            f"to {Path.cwd()}); `llmcost list scenarios` lists the shipped ones")
    with pytest.raises(ScenarioError, match=r"^path='/no/such\.yaml': no such scenario file; "):
        load_scenario("/no/such.yaml")
    with pytest.raises(ScenarioError, match="is not a file"):
        load_scenario(tmp_path)


@pytest.mark.parametrize("name", ["default", "default.yaml", "default.yml",
                                  "data/scenarios/default.yaml"])
def test_missing_bare_name_points_at_the_shipped_scenario(name, monkeypatch, tmp_path):
    # a new user typed `llmcost report --scenario default`: the error names the shipped file
    # (data/scenarios/default.yaml, which exists in the repository) instead of only the command
    # that lists the shipped ones
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ScenarioError) as e:
        load_scenario(name)
    assert str(e.value).endswith(f"the shipped scenario of that name is "
                                 f"{SCENARIO_DIR / 'default.yaml'}")
    with pytest.raises(ScenarioError, match="`llmcost list scenarios` lists the shipped ones$"):
        load_scenario("no-such-shipped-name")


def test_model_from_a_config_path_relative_to_the_scenario(tmp_path):
    cfg = tmp_path / "configs" / "tiny.json"
    cfg.parent.mkdir()
    cfg.write_text('{"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, '
                   '"num_key_value_heads": 4, "num_hidden_layers": 22, "vocab_size": 32000, '
                   '"intermediate_size": 5632, "max_position_embeddings": 2048}')
    sc = tmp_path / "s.yaml"
    sc.write_text("model: configs/tiny.json\n")
    model = load_scenario(sc)["model"]
    assert model == str(cfg.resolve())
    spec = llmcost.load_model(model)  # works from any working directory
    assert spec.name == "tiny" and spec.n_params == 1_100_048_384  # TinyLlama-1.1B's count
    # the synthetic-data generator too (it was read from the working folder instead)
    sc.write_text("model: llama-2-7b\nledger_synthetic_model: configs/tiny.json\n")
    assert load_scenario(sc)["ledger_synthetic_model"] == str(cfg.resolve())


def test_a_model_folder_is_kept_as_its_config_json(tmp_path):
    # A downloaded checkpoint's folder holds config.json beside the weights (Hugging Face's
    # layout); only config.json is read (model.read_hf_config), so the scenario keeps that file,
    # and a cached result's key (core.diskcache: a named folder enters with every file's bytes,
    # hundreds of GB for a checkpoint) does not read the weights.
    folder = tmp_path / "TinyLlama-1.1B"
    folder.mkdir()
    (folder / "config.json").write_text(
        '{"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, '
        '"num_key_value_heads": 4, "num_hidden_layers": 22, "vocab_size": 32000, '
        '"intermediate_size": 5632, "max_position_embeddings": 2048}')
    (folder / "model.safetensors").write_bytes(b"weights")
    model = validate_parameters(model=str(folder))["model"]
    assert model == str(folder.resolve() / "config.json")
    spec = llmcost.load_model(model)
    assert spec.name == "TinyLlama-1.1B" and spec.n_params == 1_100_048_384  # as the folder's
    key = diskcache.input_digest({"model": model})
    (folder / "model.safetensors").write_bytes(b"other weights")
    assert diskcache.input_digest({"model": model}) == key
    (folder / "config.json").write_text((folder / "config.json").read_text().replace("22", "24"))
    assert diskcache.input_digest({"model": model}) != key  # an edited config is a new key


def test_interactive_is_still_a_notebook_parameter():
    assert validate_parameters(interactive=False) == {"interactive": False}
    with pytest.raises(ScenarioError, match="interactive='yes' must be true or false"):
        validate_parameters(interactive="yes")


def test_validate_parameters_normalises():
    p = validate_parameters(model="LLAMA-2-70B", n_gpus=2048.0, train_tokens=2_000_000_000_000)
    assert p == {"model": "llama-2-70b", "n_gpus": 2048, "train_tokens": 2e12}
    assert isinstance(p["n_gpus"], int) and isinstance(p["train_tokens"], float)


def test_every_parameter_is_documented():
    for p in PARAMETERS.values():
        assert p.doc and p.kind


def test_resolve_price():
    assert llmcost.resolve_price("H100-SXM", 2.5) == (2.5, "given as price_usd_per_gpu_hour")
    price, where = llmcost.resolve_price("H100-SXM", None, "reserved")
    assert "reserved" in where
    # the median of the current reserved H100 SXM rows of data/prices.csv, read by hand: one
    # row, Hyperstack's reserved rate card (2026-08), $2.72, below the on-demand median (so no
    # cap applies)
    from llmcost.core.catalog import list_prices
    rows = list_prices("H100-SXM", "reserved", current_only=True)
    assert list(rows["provider"]) == ["Hyperstack"]
    assert price == pytest.approx(float(rows["price_usd_per_gpu_hour"].median()), rel=1e-12)
    assert price == pytest.approx(2.72, abs=1e-9)  # regression pin: the row above
    # owned hardware without a price: amortised as Cottier et al. 2024 where the workbook has a
    # sourced purchase price (H100 SXM; hand derivation in tests/test_ledger.py), else an error
    price, where = llmcost.resolve_price("H100-SXM", None, "owned")
    assert 2.0 < price < 2.3 and "Cottier" in where
    with pytest.raises(ScenarioError, match="pricing='owned' on A100-80GB needs"):
        llmcost.resolve_price("A100-80GB", None, "owned")


# ----------------------------------------------------------------------------- random scenarios
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_KEYS = list(llmcost.PARAMETERS) + ["title", "description", "interactive", "n_gpu", "mfu "]
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-10, 10**7), st.floats(allow_nan=True,
                                                                 allow_infinity=True),
    st.text(max_size=12), st.sampled_from(["predict", "Predict", "llama-2-70b", "H100-SXM", "auto",
                                           "1f1b", "bf16", "2k", "40%"]),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(),
                                                         max_size=2))
_MAPPINGS = st.dictionaries(st.sampled_from(_KEYS), _VALUES, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(_MAPPINGS)
def test_random_scenarios_give_a_clean_error_or_a_valid_scenario(tmp_path, mapping):
    import yaml
    path = tmp_path / "random.yaml"
    path.write_text(yaml.safe_dump(mapping))
    try:
        scenario = llmcost.load_scenario(path)
    except llmcost.ScenarioError as e:
        message = str(e)
        assert message.startswith(str(path)) and "\n" not in message.strip()
        return
    # valid: every key is known and every value passes its own rule again
    for key, value in scenario.items():
        if key in ("title", "description") or (key == "mfu" and value == "predict"):
            continue
        assert llmcost.validate_parameter(key, value) == value



def test_a_whole_float_beyond_the_limit_is_refused_at_load(tmp_path):
    """Found by the random-scenario property: ``1e30`` for an int key becomes the int
    1000000000000000019884624838656 (the nearest double), which is 31 digits and so above the
    1e30 limit; it is refused when the file is read, naming the key, not later."""
    path = tmp_path / "big.yaml"
    path.write_text("ledger_lora_rank: 1.0e+30\n")
    with pytest.raises(llmcost.ScenarioError, match=r"ledger_lora_rank: a 31-digit number is out of range"):
        llmcost.load_scenario(path)


def test_a_choice_in_another_case_is_read_as_the_choice():
    # A trial: `model: llama-3.1-8B` was read as llama-3.1-8b, but `dtype: FP8` was refused. A
    # scenario's choice that differs only in case is the choice, in the workbook's spelling; a
    # value that is none of them is still refused with the choices.
    from llmcost.bill.scenario import validate_parameter
    assert validate_parameter("dtype", "FP8") == "fp8"
    assert validate_parameter("pricing", "Spot") == "spot"
    assert validate_parameter("recompute", "SELECTIVE") == "selective"
    with pytest.raises(ScenarioError, match=r"dtype='fp16' must be one of 'bf16', 'fp8'"):
        validate_parameter("dtype", "fp16")


@pytest.mark.parametrize("key, value, words", [
    # a percent written for a fraction: 119 % of development compute is 1.19 (Cottier et al.
    # 2024's median, data/ledger_defaults.csv); a PUE of 110 % is 1.10
    ("ledger_exploratory_fraction", 119, "119% is 1.19"),
    ("ledger_exploratory_fraction", -0.1, "be in [0, 10]"),
    ("ledger_pue", 110, "110% is 1.10"),
    # PUE is facility power over IT power: 1 at best (The Green Grid's definition)
    ("ledger_pue", 0.9, "1 at best"),
])
def test_a_percent_slip_is_refused_with_the_rule(key, value, words):
    with pytest.raises(ScenarioError, match=key) as e:
        validate_parameters(**{key: value})
    assert f"{key}={float(value)!r}" in str(e.value) and words in str(e.value)
    # the published ends pass: Cottier et al.'s 0.2-3.0, and PUE 1.1-1.25 (their App. A.4)
    assert validate_parameters(ledger_exploratory_fraction=3.0, ledger_pue=1.25)


@pytest.mark.parametrize("key, given, read", [
    ("fsdp_shard_size", "FULL", "full"), ("fsdp_shard_size", "Auto", "auto"),
    ("comm_pp_overlap", "AUTO", "auto"), ("comm_tp_overlap", "Auto", "auto"),
    ("stack", "MEGATRON-CORE-2024", "megatron-core-2024"),
    ("dtype", "FP8", "fp8"), ("pricing", "Spot", "spot")])
def test_a_word_differing_only_in_case_is_that_word(key, given, read):
    # dtype: FP8 and pricing: Spot were read as fp8 and spot while FULL, AUTO and
    # MEGATRON-CORE-2024 were refused: every word a key takes is read whatever its case.
    from llmcost.bill.scenario import validate_parameter
    assert validate_parameter(key, given) == read


def test_a_true_false_or_auto_key_states_its_rule_for_a_number():
    from llmcost.bill.scenario import validate_parameter
    with pytest.raises(ScenarioError, match=r"^comm_pp_overlap=1 must be true, false or 'auto'$"):
        validate_parameter("comm_pp_overlap", 1)
    with pytest.raises(ScenarioError, match=r"^comm_pp_overlap='yes' must be true, false or "):
        validate_parameter("comm_pp_overlap", "yes")


@pytest.mark.parametrize("given, number", [("2.5 $/h", "2.5"), ("$2.50", "2.50"),
                                           ("3 USD", "3")])
def test_a_price_written_with_its_unit_is_refused_with_the_number_to_write(given, number):
    # mfu: 40% and train_tokens: 15T are refused with what to write; a price with its unit
    # ("2.5 $/h") said only "must be a number".
    from llmcost.bill.scenario import validate_parameter
    with pytest.raises(ScenarioError) as e:
        validate_parameter("price_usd_per_gpu_hour", given)
    assert str(e.value) == (f"price_usd_per_gpu_hour={given!r} must be a number (write {number}: "
                            "the number alone, in the key's unit, USD per accelerator-hour)")
    # a magnitude suffix is not a unit: "2k GPUs" is not 2 GPUs, and no hint is made up
    with pytest.raises(ScenarioError) as e:
        validate_parameter("n_gpus", "2k GPUs")
    assert "write 2:" not in str(e.value)


def test_a_nested_field_written_with_its_unit_names_no_empty_unit():
    from llmcost.bill.scenario import validate_parameter
    # A new user's `ledger_people: [{role: research, fte: "8 FTE"}]` was told "(write 8: the
    # number alone, in the key's unit, )": a nested field has no unit text of its own.
    with pytest.raises(ScenarioError) as e:
        validate_parameter("ledger_people", [{"role": "research", "fte": "8 FTE", "months": 6}])
    assert str(e.value).endswith("ledger_people[0].fte='8 FTE' must be a number "
                                 "(write 8: the number alone)")


def test_the_readme_lists_the_ledger_keys_a_range_is_refused_on():
    # README's "Ranges" said every `ledger_` line input may be a range, while 15 are refused:
    # the paragraph now names them, and the list is the parameters' own truth.
    import re
    from llmcost.bill.ranges import NOT_YET_RANGEABLE_KEYS, RANGEABLE_KEYS
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    para = readme.split("### Ranges", 1)[1].split("```", 1)[0]
    named = set(re.findall(r"`(ledger_[a-z_0-9]+)`", para))
    refused = {k for k in PARAMETERS if k.startswith("ledger_") and k not in RANGEABLE_KEYS}
    assert named == refused and len(refused) == 15
    assert set(re.findall(r"`((?:rl|serve)_[a-z_]+)`", para)) == set(NOT_YET_RANGEABLE_KEYS)
    from llmcost.bill.scenario import validate_ranged_parameters
    for k in refused:
        with pytest.raises(ScenarioError):
            validate_ranged_parameters(**{k: [1, 2]})


def test_fsdp_shard_size_takes_what_the_readme_says():
    from llmcost.bill.scenario import validate_parameter
    assert [validate_parameter("fsdp_shard_size", v) for v in ("full", "auto", 0, 8)] == \
        ["full", "auto", 0, 8]
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "`auto` or `0`: chosen among the sizes the stack offers" in readme


def test_every_bad_key_of_a_file_is_named_in_one_refusal(tmp_path):
    # A trial: a file with n_gpus: -5 and mfu: 2 was refused for n_gpus only; fixed, the next
    # run refused mfu. Every key is checked before the refusal, which names the first bad key's
    # rule, then the others'
    path = tmp_path / "two.yaml"
    path.write_text("model: llama-3.1-8b\nn_gpus: -5\nmfu: 2\nseq_len: 8192\n")
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    said = str(e.value)
    assert said.startswith(f"{path}: n_gpus=-5 must be > 0 (and 1 more bad key: mfu=2")
    assert "must be in (0, 1]" in said
    three = tmp_path / "three.yaml"
    three.write_text("n_gpus: -5\nmfu: 2\ntrain_tokens: -1\n")
    with pytest.raises(ScenarioError, match=r"\(and 2 more bad keys: mfu=2.*; train_tokens=-1"):
        load_scenario(three)
    # one bad key reads as before; the notebooks' validate_parameters names every bad one too
    with pytest.raises(ScenarioError, match=r"n_gpus=-5 must be > 0$"):
        llmcost.validate_parameters(n_gpus=-5, mfu=0.4)
    with pytest.raises(ScenarioError, match=r"n_gpus=-5 must be > 0 \(and 1 more bad key: mfu="):
        llmcost.validate_parameters(n_gpus=-5, mfu=2)


def test_an_other_tools_name_is_pointed_at_its_key():
    # A trial's `learning_rate: 3e-4` was told "did you mean 'ledger_lora_tokens',
    # 'scaling_fit'?" (spelling); the names Megatron-LM and Hugging Face use point at the key
    from llmcost.bill.scenario import OTHER_TOOLS_NAMES, PARAMETERS, ScenarioError, \
        validate_parameter
    assert set(OTHER_TOOLS_NAMES.values()) <= set(PARAMETERS)
    assert not set(OTHER_TOOLS_NAMES) & set(PARAMETERS)
    with pytest.raises(ScenarioError, match=r"unknown parameter 'learning_rate'; did you mean "
                                            r"'batch_base_lr'\?"):
        validate_parameter("learning_rate", 3e-4)
    with pytest.raises(ScenarioError, match=r"did you mean 'tp'\?"):
        validate_parameter("tensor_model_parallel_size", 8)


def test_a_batch_too_small_for_its_gpus_counts_tp_by_the_stacks_kv_rule():
    # A trial: 100M GPUs for a 256-sequence batch of Llama 3.1 8B (32 heads, 8 KV heads, 32
    # layers) was told one sequence spreads over "at most 34,816 GPUs (tp ≤ 32 heads ...)",
    # where the default stack (megatron-core-2024) keeps tp dividing the 8 KV heads:
    # 8 × (32 + 2) × 32 = 8,704; on a stack that replicates KV heads, 32 × 34 × 32 = 34,816
    from llmcost.bill.scenario import ScenarioError, validate_parameters
    base = dict(model="llama-3.1-8b", accelerator="H100-SXM", n_gpus=100_000_000,
                train_tokens=1e11, seq_len=4096, mfu=0.4, global_batch_tokens=1048576)
    with pytest.raises(ScenarioError, match=r"at most 8,704 GPUs \(tp ≤ 8 KV heads on the "
                       r"megatron-core-2024 stack × pp ≤ 34 × cp ≤ 32\)"):
        validate_parameters(**base)
    with pytest.raises(ScenarioError, match=r"at most 34,816 GPUs \(tp ≤ 32 heads × pp"):
        validate_parameters(**base, stack="megatron-core-2026")


def test_a_range_inside_a_record_says_where_a_range_goes(tmp_path):
    # A finance trial gave ledger_people[0].fte: [1, 3] (and months, usd_per_year as ranges)
    # and read "must be a number". A record's field takes one number; a role without months
    # takes ledger_project_months, which is a rangeable key (llmcost.ranges.RANGEABLE_KEYS)
    from llmcost.bill.ranges import RANGEABLE_KEYS
    from llmcost.bill.scenario import ScenarioError, load_scenario
    assert "ledger_project_months" in RANGEABLE_KEYS and "ledger_people" not in RANGEABLE_KEYS
    base = "model: llama-2-70b\nmfu: 0.4\nledger_people:\n"
    for field, text in (("fte", "[1, 3]"), ("months", "{low: 5, high: 8}"),
                        ("usd_per_year", "[300000, 500000]")):
        f = tmp_path / f"{field}.yaml"
        extra = "" if field == "fte" else ", fte: 2"
        f.write_text(base + f"  - {{role: staff, {field}: {text}{extra}}}\n")
        with pytest.raises(ScenarioError, match=rf"ledger_people\[0\]\.{field}=.* must be one "
                                                r"number: a range is not taken inside "
                                                r"ledger_people's records.*ledger_project_months"):
            load_scenario(f)
    f = tmp_path / "ok.yaml"  # the range where it goes: priced
    f.write_text(base + "  - {role: staff, fte: 2}\nledger_project_months: [5, 8]\n")
    assert isinstance(load_scenario(f)["ledger_project_months"], llmcost.Range)


def test_a_model_folder_beside_the_scenario_is_read_as_its_config_json(tmp_path, monkeypatch):
    # A small-lab trial wrote `model: cfgdir` for a folder holding its config.json beside the
    # scenario and read "not in the catalogue"; `model: cfgdir/config.json` was read. The folder
    # is read as its config.json (ModelSpec.from_hf_config takes a folder), a catalogue name
    # still wins over a folder of the same name.
    import json
    cfg = {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192,
           "num_hidden_layers": 16, "num_attention_heads": 32, "num_key_value_heads": 8,
           "vocab_size": 128256, "max_position_embeddings": 131072, "hidden_act": "silu"}
    for folder in ("cfgdir", "llama-2-7b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "config.json").write_text(json.dumps(cfg))
    f = tmp_path / "s.yaml"
    f.write_text("model: cfgdir\n")
    assert load_scenario(f)["model"] == str((tmp_path / "cfgdir" / "config.json").resolve())
    f.write_text("model: llama-2-7b\n")
    assert load_scenario(f)["model"] == "llama-2-7b"
    # a bare name on the command line (`check --model cfgdir`) is told the path to give
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="a folder 'cfgdir' holding a config.json is here: "
                                         "give its path, cfgdir/config.json"):
        llmcost.load_model("cfgdir")


def test_optimizer_recipe_help_says_the_recipe_a_null_takes_on_each_generation():
    # A trial read `list params`' "null: fp8_mixed for dtype fp8", wrote it out, and got
    # another plan and MFU: on Hopper the null takes fp8_mixed_transpose (Transformer Engine
    # keeps the cached FP8 weight and its transpose, memory.scenario_recipe_name).
    from llmcost.training.memory import scenario_recipe_name
    doc = PARAMETERS["optimizer_recipe"].doc
    assert "fp8_mixed_transpose on Hopper" in doc and "fp8_mixed on other hardware" in doc
    assert scenario_recipe_name({"dtype": "fp8", "accelerator": "H100-SXM"}) == \
        "fp8_mixed_transpose"
    assert scenario_recipe_name({"dtype": "fp8", "accelerator": "B200"}) == "fp8_mixed"
    assert scenario_recipe_name({"dtype": "bf16", "accelerator": "H100-SXM"}) == \
        "bf16_adam_fp32_grads"


def test_a_choice_written_with_a_hyphen_or_a_space_is_that_choice():
    # A procurement trial wrote `pricing: on-demand` (the word's usual spelling) and was told
    # only the four choices; case, hyphens and spaces do not make another choice.
    from llmcost.bill.scenario import validate_parameter
    assert validate_parameter("pricing", "on-demand") == "on_demand"
    assert validate_parameter("pricing", "On Demand") == "on_demand"
    with pytest.raises(ScenarioError, match="pricing='ondemand' must be one of 'on_demand'"):
        validate_parameter("pricing", "ondemand")
