"""PRM402 semantic-threshold-too-loose: a match threshold clearly looser than the defaults of its measure."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model import Diagnostic, Related
from ..profiles.semantic_caches import Threshold, table
from ..python.semantic import Site, ThresholdSetting, find_sites, threshold_setting
from ._defined_thresholds import findings as defined_threshold_findings
from .base import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..python.module import Module

#: How much more distance from a perfect match than the reference a threshold may accept before
#: it is reported: 0.25 = a quarter more (Redis cosine distance: reference 0.2, reported above 0.25).
MARGIN = 0.25


def accepted_distance(kind: str, value: float) -> float:
    """How far from a perfect match a threshold accepts: a distance as it is, a similarity as
    1 - value (1 is identical)."""
    return value if kind == "distance" else 1.0 - value


def reference(threshold: Threshold) -> float:
    """The loosest default among the libraries whose threshold measures the same thing (same kind
    and unit): redisvl's 0.1 and LangChain's 0.2 are both Redis cosine distances, so 0.2."""
    measure = (threshold.kind, threshold.unit)
    same = [lib.threshold.default for lib in table().libraries
            if lib.threshold is not None and (lib.threshold.kind, lib.threshold.unit) == measure]
    return max(same or [threshold.default], key=lambda d: accepted_distance(threshold.kind, d))


def default_applies(setting: ThresholdSetting) -> bool:
    """False when a parameter of `applies_when` is passed with another value (another metric)
    or with a value that is not a string literal: the default says nothing about it then."""
    for param, accepted in setting.threshold.applies_when:
        if param in setting.options:
            value = setting.options[param]
            if value is None or value.lower() not in accepted:
                return False
    return True


def too_loose(setting: ThresholdSetting) -> bool:
    """True when the threshold accepts more than (1 + MARGIN) times the distance from a perfect
    match that the reference of its measure accepts."""
    t = setting.threshold
    limit = accepted_distance(t.kind, reference(t)) * (1 + MARGIN)
    return default_applies(setting) and round(accepted_distance(t.kind, setting.value), 9) > round(limit, 9)


class SemanticThresholdTooLooseRule(Rule):
    """## What it does
    Flags a semantic-cache threshold clearly looser than the defaults the libraries ship, read in
    the library's own meaning: a *distance* (lower is stricter: LangChain `RedisSemanticCache`
    `distance_threshold` / `score_threshold` 0.2, redisvl `SemanticCache` `distance_threshold`
    0.1, both Redis cosine distance on a 0-2 scale) or a *similarity* (higher is stricter:
    GPTCache `Config` `similarity_threshold` 0.8, LiteLLM `similarity_threshold` 0.8 (no default:
    the value its documentation uses), Cassandra / Astra DB 0.85). Only numbers written as
    literals or module/function constants are judged.

    In the code of a cache library itself, a semantic cache class whose constructor's threshold
    defaults to None, with no number put in its place anywhere in the class (`t or 0.8`; a zero
    counts only for a distance), is a warning at that parameter when the class itself turns the
    filter off when none is set (`if self.t:`, `self.t or 0.0`): every cache made with the
    defaults matches with no threshold at all. When the class only hands the None on to a
    search whose default is not shown, it is info.

    A default is a starting point tuned for one embedding model, not a limit, so the rule keeps a
    margin. The reference of a threshold is the loosest default shipped for the same measure
    (redisvl's 0.1 and LangChain's 0.2 are both Redis cosine distances, and LangChain's cache is
    built on redisvl: the reference is 0.2 for both). A threshold is reported only when it
    accepts more than a quarter more distance from a perfect match than the reference does
    (a distance d accepts d, a similarity s accepts 1 - s): above 0.25 for a Redis cosine
    distance, below 0.75 for a similarity whose default is 0.8, below 0.8125 for 0.85.

    ## Why is this bad?
    The threshold decides how different two questions may be and still share an answer. Too
    loose, and "can I cancel my annual plan?" gets the answer stored for "can I cancel my monthly
    plan?". Mixing up the two meanings is common: `distance_threshold=0.9` reads as "90% similar"
    but accepts almost anything.

    ## Example
    ```python
    cache = SemanticCache(name="faq", distance_threshold=0.5)
    ```

    Use instead:
    ```python
    cache = SemanticCache(name="faq", distance_threshold=0.1)
    ```

    ## Fix safety
    No fix is offered: the right threshold depends on the embedding model and the questions;
    measure it on real traffic.

    ## References
    Each default, range and its public source: `promptlint/profiles/semantic_caches.toml`.
    """

    code = "PRM402"
    brief = "a similarity threshold loose enough to answer a different question"
    fix_availability = "none"

    def check_module(self, module: "Module") -> Iterable[Diagnostic]:
        for site in find_sites(module):
            setting = threshold_setting(site)
            if setting is None or not too_loose(setting):
                continue
            related = []
            if setting.origin is not None:
                related.append(Related(module.span(setting.origin), "threshold value set here"))
            yield self.diagnostic(self.message(site, setting), module.span(setting.node), related=related)
        yield from defined_threshold_findings(self, module)

    @staticmethod
    def message(site: Site, setting: ThresholdSetting) -> str:
        """The value read in the library's own meaning, its default, and the mix-up it suggests."""
        t = setting.threshold
        value, default = _fmt(setting.value), _fmt(t.default)
        other = _fmt(round(1 - setting.value, 6))
        reference_text = f"default {default}" if t.documented else f"no default; its documentation uses {default}"
        on_scale = f" on a {t.range} scale" if t.range else ""
        if t.kind == "distance":
            text = (f"`{t.param}={value}` accepts cached answers up to {t.unit} {value} ({reference_text}"
                    f"{on_scale}; lower is stricter): questions that differ may get the same answer")
            if t.complement and setting.value >= 0.5:
                text += f"; this is a distance, not a similarity: to require similarity {value} pass {other}"
            return text
        text = (f"`{t.param}={value}` accepts cached answers down to {t.unit} {value} ({reference_text}"
                f"{on_scale}; higher is stricter): questions that differ may get the same answer")
        if t.complement:
            text += f"; {site.library.project} searches with distance 1 - {value} = {other}"
        return text


def _fmt(value: float) -> str:
    return f"{value:g}"
