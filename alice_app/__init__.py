"""ALICE: find, record and repair the reasoning failures of language models."""

__version__ = "0.1.0"
