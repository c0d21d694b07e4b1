"""PRM901 unused-suppression: a suppression comment that suppresses nothing."""
from __future__ import annotations

from typing import Callable, Iterable, Iterator

from ..model import Applicability, Diagnostic, Edit, Fix, Position, Severity, Span
from ..suppress import Suppression, apply_suppressions, file_kind, parse_suppressions
from .base import Rule


class UnusedSuppressionRule(Rule):
    """
    ## What it does
    Checks for suppression comments (`# promptlint: ignore[...]`, `# noqa: PRM...`,
    `{# promptlint: ignore[...] #}`, `<!-- promptlint: ignore[...] -->`, `# promptlint:
    file-ignore[...]`) that suppress no finding, and for codes in them that name no promptlint rule.

    ## Why is this bad?
    A suppression outlives the code it was written for. Once the finding is gone, the comment
    only hides the next real problem on that line, and a misspelt code never suppressed anything.

    Codes of rules that are not enabled in this run are not reported, and neither is a bare
    `# noqa` or the codes of other linters in a `# noqa` list, since other tools read them.

    ## Example
    ```python
    SYSTEM = "You are a helpful assistant."  # noqa: PRM102
    ```

    Use instead:
    ```python
    SYSTEM = "You are a helpful assistant."
    ```

    ## Fix safety
    The fix is safe: it deletes the comment (the whole line when the comment is alone on it), or
    only the unused codes when others in the list are still used. In Jinja templates it deletes
    only the `{# ... #}` comment and keeps the line, so the rendered prompt is unchanged.
    """

    code = "PRM901"
    brief = "a suppression comment that suppresses nothing"
    severity = Severity.INFO
    fix_availability = "always"
    fix_title = "Remove unused suppression"

    def check_suppressions(
        self,
        suppressions: Iterable[Suppression],
        used: dict[Suppression, set[str]],
        is_enabled: Callable[[str], bool],
        rules: Iterable[type[Rule]],
    ) -> Iterator[Diagnostic]:
        """Diagnostics for the unused parts of `suppressions` of one file.

        `used` maps each suppression that suppressed something to the selectors that matched
        (from `apply_suppressions`); `is_enabled(code)` tells whether a rule ran on this file;
        `rules` are the rules that exist (a selector naming none of them is unknown).
        """
        rules = list(rules)
        for s in suppressions:
            matched = used.get(s, set())
            if s.codes is None:
                if s.directive == "noqa" or matched:
                    continue
                yield self._diagnostic(s, f"Unused suppression `{_text(s)}`", s.listed)
                continue
            unused, unknown = [], []
            for selector in s.codes:
                if selector in matched:
                    continue
                named = [r for r in rules if selector == r.name or r.code.startswith(selector.upper())]
                if not named:
                    unknown.append(selector)
                elif any(is_enabled(r.code) for r in named):
                    unused.append(selector)
            if not unused and not unknown:
                continue
            parts = []
            if unused:
                parts.append("unused: " + ", ".join(f"`{c}`" for c in unused))
            if unknown:
                parts.append("unknown: " + ", ".join(f"`{c}`" for c in unknown))
            yield self._diagnostic(s, f"Unused suppression ({'; '.join(parts)})",
                                   [*unused, *unknown])

    def _diagnostic(self, s: Suppression, message: str, remove: Iterable[str]) -> Diagnostic:
        remove = {c.upper() for c in remove}
        remaining = [c for c in s.listed if c.upper() not in remove]
        if remaining and s.codes_start is not None and s.codes_end is not None:
            edit = Edit(", ".join(remaining), s.codes_start, s.codes_end)
        else:
            edit = _remove_directive(s)
        fix = Fix(Applicability.SAFE, self.fix_title, [edit])
        return self.diagnostic(message, Span(s.filename, s.start, s.end), fix=fix)


def _text(s: Suppression) -> str:
    if s.start.row == s.end.row:
        return s.line[s.start.column - 1:s.end.column - 1]
    return s.line[s.start.column - 1:]


def _remove_directive(s: Suppression) -> Edit:
    """Delete the directive: the whole line when it is all the line holds (not in Jinja, whose
    lines are prompt text), else the comment and the spaces before it (a POML comment is the
    whole directive: nothing after it is kept as a comment)."""
    if s.kind == "jinja" or s.start.row != s.end.row:
        return Edit("", s.start, s.end)
    if s.kind == "xml" and s.line[s.end.column - 1:].strip():
        return Edit("", Position(s.row, len(s.line[:s.start.column - 1].rstrip()) + 1), s.end)
    begin, end = s.start.column - 1, s.end.column - 1
    rest = s.line[end:].strip()
    if rest:
        if not s.line[:begin].rstrip().endswith("#") and rest.startswith("#"):
            return Edit("", s.start, s.end)  # another comment follows the directive: keep it
        return Edit("#", s.start, s.end)  # a reason written after the directive stays a comment
    before = s.line[:begin]
    if not before.strip():
        if s.has_next_line:
            return Edit("", Position(s.row, 1), Position(s.row + 1, 1))
        return Edit("", Position(s.row, 1), Position(s.row, len(s.line) + 1))
    return Edit("", Position(s.row, len(before.rstrip()) + 1), Position(s.row, len(s.line) + 1))


def suppress(
    diagnostics: Iterable[Diagnostic],
    files: Iterable[str],
    read_text: Callable[[str], str | None],
    is_enabled: Callable[[str, str], bool] = lambda code, filename: True,
    kind_of: Callable[[str], str | None] = file_kind,
    rules: Iterable[type[Rule]] = (),
) -> list[Diagnostic]:
    """Apply suppressions and add PRM901 for the unused ones in `files`.

    `files` are the checked files (display names, as in the diagnostics); `is_enabled(code,
    filename)` is `Settings.is_enabled`; `rules` the rules that exist (the registry,
    `promptlint.rules.ALL_RULES`: passed in, so this module does not import the registry that
    lists it). The result is sorted by `Diagnostic.sort_key`.
    """
    diagnostics = list(diagnostics)
    kept, used = apply_suppressions(diagnostics, read_text, kind_of)
    rule = UnusedSuppressionRule()
    for filename in dict.fromkeys([*files, *(d.span.filename for d in diagnostics)]):
        if not is_enabled(rule.code, filename):
            continue
        text = read_text(filename)
        if text is None:
            continue
        suppressions = parse_suppressions(filename, text, kind_of(filename))
        kept.extend(rule.check_suppressions(suppressions, used,
                                            lambda code, f=filename: is_enabled(code, f), rules))
    return sorted(kept, key=lambda d: d.sort_key)
