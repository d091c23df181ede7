"""The package version (one place: the root, the CLI and the report read it here)."""

__version__ = "0.1.0"
