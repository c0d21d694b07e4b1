"""The rule base class: declarative metadata plus one or two check hooks.

A rule is a small class (docs/architecture.md "Where to add things"): `code`, kebab-case `name` derived from the class
name, default `severity`, `fix_availability`, `fix_title`, and a docstring with the fixed sections
What it does / Why is this bad? / Example / Fix safety. Prefix rules implement `check_layout`
(they read PromptLayout only); API rules implement `check_module` (they read the file's stdlib `ast`
tree: `promptlint.python.module.Module`).
"""
from __future__ import annotations

import dataclasses
import inspect
import re
from typing import TYPE_CHECKING, ClassVar, Iterable

from ..model import Applicability, Diagnostic, Fix, PromptLayout, Related, Severity, Span

if TYPE_CHECKING:  # pragma: no cover
    from ..python.module import Module


class Rule:
    """Base class of every rule. Subclasses set the class attributes and override a hook."""

    code: ClassVar[str]
    name: ClassVar[str]
    severity: ClassVar[Severity] = Severity.WARNING
    #: One line (a noun phrase, lower case, no final stop): what the rule finds, as the README's
    #: rule table, `promptlint rules` and SARIF's `shortDescription` say it.
    brief: ClassVar[str]
    fix_availability: ClassVar[str] = "none"  # none | sometimes | always
    fix_title: ClassVar[str | None] = None
    since: ClassVar[str] = "0.1.0"
    # Rules that report the cause of a broken prefix at the place a value enters the prompt: at one
    # place the lowest number wins (docs/policies.md, Policy 8; `promptlint.dedupe`). None: not such a rule.
    specificity: ClassVar[int | None] = None
    # A rule whose finding at one place (a template placeholder) several prompts reach: the related
    # locations of every such prompt's finding are kept on the one reported there (`promptlint.dedupe`).
    merges_related: ClassVar[bool] = False
    # A rule whose finding at one place that several prompts reach keeps the places each of them
    # only names (`Related.evidence` False: a caller's `list(s)`), its own evidence unchanged.
    merges_named: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            words = re.findall(r"[A-Z][a-z0-9]*", cls.__name__.removesuffix("Rule"))
            cls.name = "-".join(w.lower() for w in words)

    @classmethod
    def summary(cls) -> str:
        """The first line of the docstring's "What it does" section."""
        doc = cls.doc()
        m = re.search(r"## What it does\n(.+?)(\n\n|$)", doc, re.S)
        return " ".join((m.group(1) if m else doc.split("\n")[0]).split())

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")  # also dedents `"""## What it does`

    def check_layout(self, layout: PromptLayout) -> Iterable[Diagnostic]:
        """Findings for one prompt layout."""
        return ()

    def check_module(self, module: "Module") -> Iterable[Diagnostic]:
        """Findings for one parsed Python module (API-specific rules): an `ast` Module with
        1-based character columns (`module.span(node)`)."""
        return ()

    def diagnostic(self, message: str, span: Span, *, severity: Severity | None = None,
                   fix: Fix | None = None, prompt: str | None = None,
                   related: list[Related] | None = None, advice: str | None = None,
                   name_only: bool = False) -> Diagnostic:
        """A Diagnostic of this rule; severity defaults to the rule's and never exceeds error.
        `name_only`: the only evidence is a name (docs/policies.md, Policy 7). A fix whose edits
        are for another file than `span`'s is dropped (a fix edits the diagnostic's own file)."""
        if fix is not None and fix.filename and fix.filename != span.filename:
            fix = None
        if fix is not None and name_only and fix.applicability is Applicability.SAFE:
            # a name is a hint, not a fact: `promptlint fix` applies it only with --unsafe-fixes
            fix = dataclasses.replace(fix, applicability=Applicability.UNSAFE)
        return Diagnostic(code=self.code, name=self.name, severity=severity or self.severity,
                          message=message, span=span, fix=fix, prompt=prompt,
                          related=related or [], advice=advice if advice is not None else self.fix_title,
                          name_only=name_only)
