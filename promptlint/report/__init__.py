"""Renderers: pure functions from a Report to text, one module per output format."""
