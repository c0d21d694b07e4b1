"""Model names that stand for no model: a default left for the user to replace (`id: str =
"not-provided"`, `model = ""`, `"default"`). A request whose model is one has no model known
statically: estimates and statistics use the targets of its provider, as for `model=self.model`."""
from __future__ import annotations

_PLACEHOLDERS = frozenset({"", "none", "null", "unknown", "default", "not-provided", "not_provided", "not provided",
                           "n/a", "na", "tbd", "todo", "placeholder", "changeme", "your-model", "model-name"})


def is_placeholder_model(model: str | None) -> bool:
    """True for a model name that names no model (`"not-provided"`, `""`, `"none"`, `"unknown"`,
    `"default"`, any case, spaces around it ignored); False for None (no name at all)."""
    return model is not None and model.strip().lower() in _PLACEHOLDERS
