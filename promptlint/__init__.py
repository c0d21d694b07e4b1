"""promptlint: find what breaks LLM prompt caching in code, before it ships."""
__version__ = "0.1.0"
