"""The glossary (data/glossary.csv, notebook 10_glossary) covers the notebooks' terms."""

import re

import nbformat
import pytest

from llmcost import glossary
from llmcost.present.numbering import numbered_files
from llmcost.present.report import NOTEBOOK_DIR, list_notebooks

#: Words with capitals in headings that are names, not terms (models, labs, units).
NOT_TERMS = {"DeepSeek", "USD", "GPT", "OpenAI", "NVIDIA", "AMD", "Llama", "PaLM", "YAML",
             "HTML", "JSON", "CSV",
             "II", "III"}  # Roman numerals of "Part II" headings
#: The terms the source material names with their Chinese names.
ISSUE_TERMS = {"total FLOPs": "总计算量", "MFU": "模型算力利用率", "GPU memory": "显存",
               "pipeline parallelism": "流水线并行", "tensor parallelism": "张量并行",
               "data parallelism": "数据并行", "expert parallelism": "专家并行",
               "checkpoint": "检查点", "resuming from a checkpoint": "断点续训",
               "gradient accumulation": "梯度累积", "pipeline bubble": "流水线气泡",
               "post-training": "后训练", "inference": "推理"}


def _all_names():
    return [n for _, r in glossary.load_glossary().iterrows() for n in glossary.names(r)]


def _heading_abbreviations():
    """(notebook, word) for every word of two or more capitals in a markdown heading."""
    out = []
    for nb_path in list_notebooks():
        nb = nbformat.read(nb_path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            for line in cell.source.splitlines():
                if line.lstrip().startswith("#"):
                    for w in re.findall(r"\b[A-Za-z0-9]*[A-Z][A-Za-z0-9]*[A-Z][A-Za-z0-9]*\b",
                                        line):
                        out.append((nb_path.stem, re.sub(r"(?<=[A-Z])s$", "", w)))
    return out


def test_every_abbreviation_in_a_heading_is_in_the_glossary():
    known = _all_names()
    words = {w.lower() for n in known for w in re.findall(r"[A-Za-z0-9-]+", n)}
    missing = sorted({(nb, w) for nb, w in _heading_abbreviations()
                      if w not in NOT_TERMS and w.lower() not in words
                      and not any(ch.isdigit() for ch in w)})
    assert not missing, f"add these to data/glossary.csv (term or aliases): {missing}"


def test_the_check_can_fail():
    # A heading abbreviation that no row names is caught by the same rule.
    words = {w.lower() for n in _all_names() for w in re.findall(r"[A-Za-z0-9-]+", n)}
    assert "qwerty" not in words and "mfu" in words


def test_issue_terms_have_their_chinese_names():
    for term, zh in ISSUE_TERMS.items():
        row = glossary.lookup(term)
        assert row["chinese"] == zh, (term, row["chinese"])
        assert row["chinese_source"].startswith("the source material"), term


def test_every_row_is_complete_and_points_somewhere_real():
    df = glossary.load_glossary()
    assert len(df) >= 60
    stems = {p.stem for p in numbered_files(NOTEBOOK_DIR)}
    for _, r in df.iterrows():
        assert r["term"] and r["chinese"] and r["definition"], r["term"]
        assert r["notebook"] in stems, (r["term"], r["notebook"])
        if r["function"]:
            obj = glossary.resolve_function(r["function"])  # ValueError names a stale one
            assert callable(obj) or isinstance(obj, dict), r["function"]


def test_every_function_resolves_and_the_check_can_fail():
    # every row's function exists (a submodule path is imported: llmcost.laws.moe....)
    for f in glossary.load_glossary()["function"]:
        if f:
            assert glossary.resolve_function(f) is not None, f
    assert glossary.resolve_function("llmcost.laws.moe.effective_params").__name__ == \
        "effective_params"
    with pytest.raises(ValueError, match="llmcost.laws.moe.no_such_function"):
        glossary.resolve_function("llmcost.laws.moe.no_such_function")
    with pytest.raises(ValueError, match="name='numpy.sum'"):
        glossary.resolve_function("numpy.sum")


def test_new_terms_of_the_notebooks():
    # the terms the notebooks use (serving, post-training, the bill's other lines), each with
    # its Chinese name; the four source-material terms marked as such
    for term in ("TTFT", "TPOT", "GQA", "MLA", "LoRA", "SFT", "PUE", "RAG", "distillation",
                 "over-training", "effective parameter count", "granularity"):
        assert glossary.lookup(term)["function"], term
    for zh in ("加码训练", "标注", "隐性成本", "实验管理"):
        row = glossary.load_glossary().set_index("chinese").loc[zh]
        assert "source material's term" in row["chinese_source"], zh


def test_lookup_and_tables():
    assert glossary.lookup("dp")["term"] == "data parallelism"  # aliases, any case
    assert glossary.lookup("HBM")["chinese"] == "显存"
    with pytest.raises(ValueError, match="name='no such term'"):
        glossary.lookup("no such term")
    with pytest.raises(ValueError, match="name=3"):
        glossary.lookup(3)
    table = glossary.markdown_table("parallelism")
    assert "| **pipeline bubble** (bubble) | 流水线气泡 |" in table
    assert "[02](02_batch_size.ipynb) `llmcost.bubble_fraction`" in table
    with pytest.raises(ValueError, match="topic='x'"):
        glossary.markdown_table("x")


def test_the_terms_a_teacher_found_missing_are_there():
    # A teacher's trial looked up terms the notebooks use and found none of these (the glossary
    # explorer answered "Empty DataFrame" for "FlashAttention" and "P10"); each is now a row or
    # an alias of one, and the lookup finds it under the name the pages print
    for term in ("FlashAttention", "P10", "P90", "Monte Carlo", "tornado", "fixed", "elastic",
                 "amortised", "pilot", "software stack", "held-out", "regime",
                 "selective recomputation", "capacity factor", "continuous batching",
                 "speculative decoding", "DPO", "NCCL"):
        assert term.lower() in {n.lower() for n in _all_names()}, term
        assert glossary.lookup(term)["definition"], term
    # a definition stated as the ledger computes it: fixed is committed capacity and what is
    # paid whatever happens, elastic what is rented as used (ledger.compute_kind)
    from llmcost.bill.ledger import compute_kind
    assert compute_kind("owned") == "fixed" and compute_kind("spot") == "elastic"
    assert "reserved or owned" in glossary.lookup("fixed")["definition"]
