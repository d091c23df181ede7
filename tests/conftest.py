"""Shared fixtures. Notebook kernels are started from this interpreter (--nbval-current-env)."""

import os

import pytest

# Headless matplotlib everywhere (tests and the kernels they start inherit the environment).
os.environ.setdefault("MPLBACKEND", "Agg")

import llmcost  # noqa: E402


@pytest.fixture(scope="session")
def h100():
    return llmcost.load_accelerator("H100-SXM")


@pytest.fixture(scope="session")
def a100():
    return llmcost.load_accelerator("A100-80GB")
