"""PRM205 model-switched-mid-conversation."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterable

from ..model import Diagnostic, Related, Severity
from ..python.model_conditions import find_model_conditions
from ..python.model_switches import find_model_switches
from .base import Rule

if TYPE_CHECKING:  # pragma: no cover
    from ..python.module import Module


class ModelSwitchedMidConversationRule(Rule):
    """## What it does
    Finds a model chosen anew for each request from a list of models: drawn at random
    (`random.choice(self.models)`) or taken in turns by a counter kept across calls
    (`self.models[self.calls % len(self.models)]`, an index a method advances around the list:
    `self.current = (self.current + 1) % len(self.models)`, then `self.models[self.current]`;
    `next(self.rotation)` of an `itertools.cycle`), in a function that runs per request (not
    `__init__`), when the chosen model then makes a request (a method called on it, or a call
    given it as `model=`), there or in the function that calls the method returning it (`model = self.select_model()`, then
    `model.query(...)`), or written into a request dict under `"model"` (`payload = {**body,
    "model": pick}`, `form_data["model"] = pick`, `params.update(model=pick)`) that is then sent
    (`create(**payload)`, given to a call named as a request, or handed back to the caller that uses
    it as a request: its messages read or written there). The list
    is one of models by its name (`models`, `llms`, `model_names`). A model chosen only in an `except`
    handler (a fallback after an error) is not reported.

    Also, as info: a request's model chosen between two model names written in the code by a
    condition on what the request sends (`if num_tokens > 3500: model = "gpt-3.5-turbo-16k"`,
    the tokens counted over its `messages`) or on the turn's request (`query`): requests of one
    conversation on either side of the test go to different models. And an Anthropic thinking
    budget computed from the request's `max_tokens` (`budget = min(BUDGETS[effort],
    params.max_tokens - 1024)`, then `{"budget_tokens": budget}`): a caller that sizes
    `max_tokens` per call sends another budget on those requests (facts of
    `python/thinking_budgets.py`), where the budget is computed.

    ## Why is this bad?
    Providers cache a prompt's prefix per model: a request sent to another model than the previous
    request of the same conversation reads nothing from the cache, and every switch writes the
    prefix again for the new model. With two models taken in turns, each request re-sends the
    whole conversation to a model whose cache ends two turns earlier or has expired: the history
    is processed uncached on most requests. A warning when the request passes a value named as
    the conversation (`messages`, `history`; for a request dict: unpacked into the call, with its
    messages named so); info when what the request carries is not known here (a wrapper forwarding
    `*args`, a dict of unknown messages or sent elsewhere), since a one-shot request loses only its
    static prefix.

    A change of the thinking parameters (a new `budget_tokens`) invalidates Anthropic's cache of
    the messages the same way: the conversation is read uncached on the request where it changes.

    ## Example
    ```python
    def query(self, messages):
        model = random.choice(self.models)
        return model.complete(messages)
    ```
    Use instead: choose the model once per conversation (when it starts, or by a hash of its
    id), so that every request of one conversation goes to the same model.

    ## Fix safety
    Display-only: which model answers is the application's choice.
    """

    code = "PRM205"
    brief = "a model chosen anew for each request, at random or in turns, from a list of models"
    severity = Severity.WARNING
    fix_title = "Choose the model once per conversation, not per request"

    def check_module(self, module: "Module") -> Iterable[Diagnostic]:
        for node in module.facts.get("thinking_budgets", ()):
            message = ("The thinking budget sent is computed here from the request's `max_tokens`: a caller that "
                       "sizes `max_tokens` per call (the room left in the context, a step's own limit) sends another "
                       "`budget_tokens` on those requests, and a change of the thinking parameters invalidates "
                       "Anthropic's cache of the messages, so the conversation is read uncached there although the "
                       "effort asked for did not change (how callers set `max_tokens` is not followed here: how much "
                       "it costs is not known); keep the budget fixed per effort level and raise `max_tokens` to fit "
                       "it instead")
            yield self.diagnostic(message, module.span(node), severity=Severity.INFO,
                                  advice="Keep the thinking budget fixed per effort level; fit max_tokens to it")
        for c in find_model_conditions(module):
            models = " and ".join(f"`{m}`" for m in dict.fromkeys(c.models))
            why = (f"reads what the request sends (`{c.sent}`)" if c.evidence == "messages"
                   else "reads the turn's own request (only its name says so)")
            message = (f"The model of the request (line {c.request.lineno}) is chosen here between {models} by "
                       f"`{module.code(c.node)}`, which {why}: requests of one conversation on either side of it go "
                       "to different models, and providers cache a prefix per model, so the request after a switch "
                       "reads none of the conversation from the cache (how often the test changes its answer is "
                       "not known here); choose the model once per conversation")
            yield self.diagnostic(message, module.span(c.node), severity=Severity.INFO,
                                  related=[Related(module.span(c.request), "the request sent with the chosen model")],
                                  name_only=c.evidence == "name")
        for switch in find_model_switches(module):
            chosen = (f"A model is chosen {switch.how} from `{switch.pool}` for each request (in "
                      f"`{switch.function}`)")
            if switch.via:
                message, related = self._payload(chosen, switch)
                severity = Severity.WARNING if switch.conversation and switch.sent == "spread" else Severity.INFO
                yield self.diagnostic(message, module.span(switch.node), severity=severity,
                                      related=[Related(module.span(switch.request), related)])
                continue
            if switch.conversation:
                message = (f"{chosen}, and the request made with it (line {switch.request.lineno}) re-sends the "
                           "conversation: providers cache a prefix per model, so a request to another model than "
                           "the previous one of the conversation reads none of the history from the cache, and "
                           "each switch writes it again for that model; choose the model once per conversation")
            else:
                message = (f"{chosen}, and a request is made with it (line {switch.request.lineno}): providers cache "
                           "a prefix per model, so when it re-sends a conversation (what it carries is not known "
                           "here), a request to another model than the previous one reads none of it from the "
                           "cache; choose the model once per conversation")
            severity = Severity.WARNING if switch.conversation else Severity.INFO
            yield self.diagnostic(message, module.span(switch.node), severity=severity,
                                  related=[Related(module.span(switch.request), "the request made with it")])

    @staticmethod
    def _payload(chosen: str, switch) -> tuple[str, str]:
        """The message and the related location's label of a model written into a payload dict."""
        line, via = switch.request.lineno, switch.via
        cost = ("providers cache a prefix per model, so a request to another model than the previous one of "
                "the conversation reads none of it from the cache; choose the model once per conversation")
        if switch.sent == "spread":
            what = ("re-sends the conversation" if switch.conversation
                    else "is sent (whether it re-sends a conversation is not known here)")
            return (f"{chosen} and written into `{via}`, which {what} at line {line}: {cost}",
                    "the request sent with it")
        if switch.sent == "wrapper":
            return (f"{chosen} and written into `{via}`, which is given at line {line} to a call whose name says it "
                    f"makes a request (the name is the evidence): {cost}", "the call given the request dict")
        return (f"{chosen} and written into `{via}` (line {line}), which goes back to the caller that sends it "
                f"(the send is not seen here): {cost}", "the model written into the request dict")
