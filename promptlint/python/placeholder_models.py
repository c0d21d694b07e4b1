"""Model names that stand for no model of the request: a default left for the user to replace
(`id: str = "not-provided"`, `model = ""`, `"default"`), or a name of another provider's model
given to an SDK that serves only its own (`defaults.get(self.provider, "gpt-4o-mini")` read for an
Anthropic request: the fallback of a lookup whose key is not known). A request whose model is one
has no model known statically: estimates and statistics use the targets of its provider, as for
`model=self.model`."""
from __future__ import annotations

from ..profiles import canonical_provider, model_provider

#: Providers whose SDK sends only to their own models (the OpenAI SDK also reaches other providers'
#: OpenAI-compatible endpoints and gateways, LiteLLM and Bedrock name models of many vendors).
_OWN_MODELS_ONLY = frozenset({"anthropic", "google", "mistral", "cohere"})

_PLACEHOLDERS = frozenset({"", "none", "null", "unknown", "default", "not-provided", "not_provided", "not provided",
                           "n/a", "na", "tbd", "todo", "placeholder", "changeme", "your-model", "model-name"})


def is_placeholder_model(model: str | None) -> bool:
    """True for a model name that names no model (`"not-provided"`, `""`, `"none"`, `"unknown"`,
    `"default"`, any case, spaces around it ignored); False for None (no name at all)."""
    return model is not None and model.strip().lower() in _PLACEHOLDERS


def is_foreign_model(provider: str | None, model: str | None) -> bool:
    """True when `provider` is one whose SDK serves only its own models and `model` is named by
    another provider's model patterns (`("anthropic", "gpt-4o-mini")`); False when either is
    unknown or they agree."""
    own = canonical_provider(provider) if provider else None
    if own not in _OWN_MODELS_ONLY or not model:
        return False
    other = model_provider(model)
    return other is not None and other != own
