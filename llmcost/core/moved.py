"""Names that moved to a sibling module and keep resolving where they were.

A module whose functions moved (``training.step``'s ranking and validation, ``training.batch``'s
notebook-02 analysis) keeps a table ``MOVED`` (name -> sibling module) and a module
``__getattr__`` (PEP 562) that finds a moved name in its new home on first use. The new module
imports the old one, so an import back at the top would be a cycle; the lookup happens when the
name is asked for. New code imports the new module.
"""

from __future__ import annotations

import importlib


def moved_names(module_name: str, package: str, moved: dict, namespace: dict):
    """``(__getattr__, __dir__)`` for the module ``module_name`` of ``package``: a name of
    ``moved`` is looked up in ``package.<moved[name]>``; any other unknown name is an
    ``AttributeError``; ``dir()`` lists the module's own names and the moved ones."""

    def __getattr__(name: str):
        home = moved.get(name)
        if home is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        return getattr(importlib.import_module(f"{package}.{home}"), name)

    def __dir__():
        return sorted(set(namespace) | set(moved))

    return __getattr__, __dir__
