# Text twin of notebooks/10_glossary.ipynb, written by `llmcost twins` (jupytext percent format).
# Edit the notebook, not this file; the twin exists so that a change reads as a diff.

# %% [markdown]
# # 10 · What does each term mean, and what is it called in Chinese?
#
# [← 00 · Index](00_index.ipynb) · previous: [09 · Which savings are real, and which only look like it?](09_savings.ipynb)

# %% tags=["parameters"]
interactive: bool = True  # widgets on (reading) or off (report runs)

# %%
from IPython.display import Markdown, display

import llmcost
from llmcost import glossary

p = llmcost.notebook_parameters(globals())  # every name of the parameters cell, validated
g = glossary.load_glossary()

# %%
from IPython.display import Markdown

from llmcost.present import answers

display(Markdown(answers.glossary(g)))

# %% [markdown]
# Every term the notebooks use, with its definition, its formula where it has one, the notebook
# that explains it and the `llmcost` function that computes it (one hop to the docstring that
# writes the formula and its source), and the Chinese term, since many readers come from
# Chinese-language material (总计算量 total FLOPs, 模型算力利用率 MFU, 显存 GPU memory, ...).
#
# A Chinese term marked † is the usual one in Chinese LLM-training writing, not checked against the
# source material; unmarked ones are the source material's own. The table lives in
# `data/glossary.csv` (`llmcost.glossary`); `tests/test_glossary.py` fails when a notebook heading
# uses an abbreviation the glossary lacks.

# %%
# NBVAL_CHECK_OUTPUT
print(f"{len(g)} terms in {g['topic'].nunique()} topics; "
      f"{(g['formula'] != '').sum()} with a formula, {(g['function'] != '').sum()} with a function")
for name in ("total FLOPs", "MFU", "GPU memory", "pipeline bubble", "resuming from a checkpoint"):
    row = glossary.lookup(name)
    print(f"{row['term']}: {row['chinese']}")

# %% [markdown]
# ## 1. FLOPs, MFU and GPU-hours (notebook 01)

# %%
display(Markdown(glossary.markdown_table("compute")))

# %% [markdown]
# ## 2. Batch size (notebook 02)

# %%
display(Markdown(glossary.markdown_table("batch")))

# %% [markdown]
# ## 3. Memory (notebook 03)

# %%
display(Markdown(glossary.markdown_table("memory")))

# %% [markdown]
# ## 4. Parallelism (notebooks 02–03)

# %%
display(Markdown(glossary.markdown_table("parallelism")))

# %% [markdown]
# ## 5. Communication (notebook 04)

# %%
display(Markdown(glossary.markdown_table("communication")))

# %% [markdown]
# ## 6. Inference and RL post-training (notebook 05)

# %%
display(Markdown(glossary.markdown_table("inference")))

# %% [markdown]
# ## 7. Scaling laws (notebook 06)

# %%
display(Markdown(glossary.markdown_table("scaling")))

# %% [markdown]
# ## 8. Failures and checkpoints (notebook 07)

# %%
display(Markdown(glossary.markdown_table("reliability")))

# %% [markdown]
# ## 9. Prices (notebooks 00–01)

# %%
display(Markdown(glossary.markdown_table("cost")))

# %% [markdown]
# ## Explore
#
# Type part of a term, an abbreviation or a Chinese word; the matching rows follow. (In a report
# this widget is switched off; run the notebook in Jupyter to use it.)

# %%
if interactive:
    from llmcost.present.widgets import glossary_explorer

    display(glossary_explorer())

# %% [markdown]
# ---
# **Sources.** The definitions and formulas are those of the notebooks linked in each row, which
# cite their papers. Chinese terms: the source material's terms and, marked †,
# the usual terms of Chinese LLM-training writing.
#
# [← 00 · Index](00_index.ipynb) · previous: [09 · Which savings are real, and which only look like it?](09_savings.ipynb)
