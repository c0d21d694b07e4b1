"""promptlint: find what breaks LLM prompt caching in code, before it ships.

The distribution is `promptlint-cache` (the name `promptlint` on the package index belongs to
another project); the module and the command are `promptlint`. Releases are tagged `v<version>`.
"""
__version__ = "0.2.0"
