"""Repository-wide pytest configuration (applies to tests/ and to the notebooks nbval runs).

nbval compares what a reader sees: the plain-text outputs of ``# NBVAL_CHECK_OUTPUT`` cells, where
headline numbers are printed rounded. The JSON copy that ``llmcost.report.publish_summary`` adds
under ``SUMMARY_MIME`` carries full float precision for the report, so a last-digit change in numpy
would fail the comparison without any visible change: nbval is told to skip that MIME type. Whether
the numbers are right is checked against sourced bands in tests/test_report.py
(tests/data/summary_bands.csv), not by nbval.
"""

from llmcost.present.report import SUMMARY_MIME


def pytest_collection_modifyitems(items):
    for item in items:
        parent = getattr(item, "parent", None)
        skip = getattr(parent, "skip_compare", None)
        if skip is not None and SUMMARY_MIME not in skip:
            parent.skip_compare = tuple(skip) + (SUMMARY_MIME,)
