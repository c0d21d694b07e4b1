"""The symbolic evaluator of Python prompt code (values, bindings and scopes, calls, containers,
text, objects and the work budget), on the stdlib `ast`. See `core.Evaluator`."""
from .core import Evaluator
from .frames import Frame, Thunk

__all__ = ["Evaluator", "Frame", "Thunk"]
