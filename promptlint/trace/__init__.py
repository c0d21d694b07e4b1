"""`promptlint trace`: from request bodies logged in production to the line of code that breaks
the cached prefix. Reading is offline: nothing is ever sent anywhere.

Modules: `formats` (request bodies of each API as units in cache order), `reader` (the JSONL log,
streamed; envelopes and LiteLLM's logged forms), `counting` (token counts with bounded caches),
`diverge` (first divergence and its cost), `sourcemap` (layouts matched to requests, divergences
placed in segments), `describe` (source references and messages), `engine` (grouping,
conversations, aggregation), `json_report` / `text_report` / `sarif_report` (renderers) and
`command` (the click command).
"""
from .engine import TraceOptions, trace, trace_requests
from .model import Divergence, Group, TraceReport

__all__ = ["Divergence", "Group", "TraceOptions", "TraceReport", "trace", "trace_requests"]
