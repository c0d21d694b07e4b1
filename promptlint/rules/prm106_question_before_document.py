"""PRM106 question-before-document."""
from __future__ import annotations

import re

from ..classify import classify_name
from ..impact import impacts
from ..model import Kind, PromptLayout, Related, Segment, Severity
from ..prefix import placed_segments
from . import _prefix_rule as text
from .base import Rule
from ._fanouts import fanout_findings

# What names a value (its own name or the label written just before it) as the request's question,
# and as a document the request is about. Words of identifiers and labels (`<query>`,
# `question_str`, `<webpage_content>`, `PR code diff:`), compared whole.
_QUESTION = {"query", "question", "questions"}
_DOCUMENT = {"content", "contents", "document", "documents", "doc", "docs", "page", "webpage", "markdown",
             "html", "diff", "patch", "article"}
_SUFFIXES = {"str", "text", "string", "txt"}  # `question_str`, `page_text`: the type, not what it is
_KEYWORDS = {"if", "not", "and", "or", "is", "none", "self", "in", "for"}
# What names a question as an in-context example (`icl_query_1`, `example_question`, `fewshot_query`):
# a question shown to the model as a sample, the same in every request of the run, not the request's own.
_EXAMPLE = {"icl", "example", "examples", "exemplar", "shot", "fewshot", "demo", "demonstration", "sample"}
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9]*")


def _words(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [w.lower() for w in _WORD.findall(spaced.replace("_", " "))]


_MEASURES = {"len", "bool", "int", "float", "hash", "id", "type", "repr"}
_WRAPPED = re.compile(r"^[A-Za-z_]\w*\(\s*([A-Za-z_][\w.]*)\s*\)$")  # `sanitize(content)`: a function of one name


def _name(seg: Segment) -> str:
    """The name a dynamic segment reads: the first name of its expression that is not a keyword,
    its last attribute (`{% if question_str %}` -> question_str, `page.markdown` -> markdown,
    `diff|trim` -> diff), or the one name a plain function is applied to (`sanitize(content)` ->
    content)."""
    expr = seg.expr.strip().strip("{}%").split("|")[0].strip()
    wrapped = _WRAPPED.match(expr)
    if wrapped and expr.split("(", 1)[0] in _MEASURES:
        return ""  # `len(content)` is a number, not the document
    if wrapped:
        return wrapped.group(1).rsplit(".", 1)[-1]
    for chain in re.findall(r"[A-Za-z_][\w.]*", expr):
        last = chain.rsplit(".", 1)[-1]
        if last.lower() not in _KEYWORDS:
            return last
    return ""


_RULE = re.compile(r"^[\s=\-`*_#~]*$")  # a separator line (`======`, a code fence) between a label and its value
_TAG = re.compile(r"^<\s*([A-Za-z][\w\- ]*)>$")  # `<query>`, `<webpage_content>`
_HEADING = re.compile(r"^(#+\s*)?([A-Za-z][\w\- ]*):?$")  # `Question:`, `## Page content`, `The PR code diff:`


def _label(segs: list[Segment], i: int) -> str:
    """The last word of the label written just before segment `i` of a part, or ''. A label is
    the last line of the static text before the value (separator lines skipped): a tag (`<query>`
    -> query), a heading or a short line ending with a colon (`The PR code diff:` -> diff); prose
    (`Let's try again with a broader query.`) is no label."""
    if i == 0 or not segs[i - 1].is_static:
        return ""
    lines = segs[i - 1].text.split("\n")
    while lines and _RULE.match(lines[-1]):
        lines.pop()
    if not lines:
        return ""
    line = lines[-1].strip()
    m = _TAG.match(line)
    if m is None:
        m = _HEADING.match(line)
        if m is None or len(line.split()) > 5 or not (line.endswith(":") or m.group(1)):
            return ""
    words = _words(m.group(m.lastindex))
    return words[-1] if words else ""


def _says(seg: Segment, segs: list[Segment], i: int, vocabulary: set[str]) -> str | None:
    """None when neither the segment's name nor the label before it is in `vocabulary`; else ''
    when its name says it (any word for a question: `user_query`, `question_str`; the last word
    for a document: `page_markdown`, not `content_stats`), or ' (after the label `query`)' when
    the label does."""
    name = _name(seg)
    words = [w for w in _words(name) if w not in _SUFFIXES]
    if vocabulary is _QUESTION and (set(words) & _EXAMPLE or name[-1:].isdigit()):
        return None  # an in-context example's question (`icl_query_1`): shared by the requests
    if set(words[-1:] if vocabulary is _DOCUMENT else words) & vocabulary:
        return ""
    label = _label(segs, i)
    return f" (after the label `{label}`)" if label in vocabulary else None


def _task(seg: Segment, segs: list[Segment], i: int) -> bool:
    """True when the question is named as the task, not a request's question: a word of its
    expression or of what the code writes there (`writing_task.query`, `{task_query}`), or the label
    before it (`Task: {query}`). A run's task is the same for the many requests that apply it to
    one document after another (a resource, a draft's revision; Policy 7: a run's own, not a
    request's), so the requests share it and what follows it until the document: first is its place."""
    caret = seg.written
    names = [seg.expr, caret.text if caret is not None else ""]
    words = {w for name in names for chain in re.findall(r"[A-Za-z_][\w.]*", name) for w in _words(chain)}
    return "task" in words or _label(segs, i) == "task"


def _question(seg: Segment) -> bool:
    return seg.kind in (Kind.USER_INPUT, Kind.UNKNOWN, Kind.TEMPLATE_VARIABLE, Kind.CONDITIONAL)


def _document(seg: Segment) -> bool:
    """A value that may be the same in many requests (a page cut in one of several ways is still
    the page): not the user's own text or content retrieved for the turn (named so), which change
    with the question anyway."""
    if seg.kind not in (Kind.UNKNOWN, Kind.TEMPLATE_VARIABLE, Kind.SERIALIZED, Kind.CONDITIONAL):
        return False
    named = classify_name(_name(seg))
    return named is None or named[0] is not Kind.USER_INPUT


class QuestionBeforeDocumentRule(Rule):
    """## What it does
    Finds the request's question (a value named `query` or `question`, or written after a label
    that says so, such as `<query>`; not an in-context example's question, named for an example or
    numbered: `icl_query_1`, `example_question`) placed before a document the request is about (a page, its
    markdown, a diff, a file's content: named so, or written after such a label) in the same
    message of the prompt's cacheable prefix.
    Also, from the code of the callers rather than names: a value a function writes into the
    prompt's text from one of its parameters before another parameter's value, where its calls
    differ in the first and share the second (a fan-out: one diff, page or document sent with
    another instruction each). A call made once per element of a loop whose element the first
    argument reads and the second does not (`for check in checks: request_goal(git_diff,
    goal=check["goal"])`), or several calls in one function that pass the same name for the
    second and different arguments for the first, none excluding another (branches of one `if`, a
    `try` and its handler); through the wrappers that send the text (its parameters read from
    those calls), not a text whose function's return value is joined into one request. Not a
    shared value written as a literal, nor one named as the user's message. A value of each pass
    of a loop placed before text every pass shares is `PRM101`'s finding.

    ## Why is this bad?
    Both values change, but not equally often: the question changes on every request, while the
    document (a web page, a pull request's diff) is often the same for several requests that ask
    different questions about it (several extractions from one page, a re-review with answers).
    With the question first, those requests share nothing after the question, so the document,
    usually the largest part of the request, is processed uncached each time. With the document
    first and the question after it, they share the document's tokens.

    The evidence is in the code, not in the sizes: the names of the two values (or the labels
    written before them) say which is the question and which the document; the question's name
    alone does not prove that the document is re-sent with other questions, nor how large it is.
    So the finding is info. The document is never a value named as the user's message or as
    content retrieved for the turn (`retrieved_docs`, `search_results`): it changes with the
    question, and the order costs nothing. Nor is the question one named as the task
    (`writing_task.query`, `{task_query}`, written after `Task:`): a run's task is the same for the
    many requests that apply it to one document after another, so it belongs first. A question that `PRM101` or `PRM104` already reports
    as a warning (much static text follows it) is that rule's finding; at one place this rule is
    more specific than PRM101's info.
    From the callers' evidence the calls are known to share the second value, not how large it
    is: info, unless its whole text is known (a file read with a static path) and alone reaches
    the minimum cacheable length of every model the request may go to, on a request that caches
    without markers or has a breakpoint: a warning then.

    ## Example
    ```python
    prompt = f"<query>\\n{query}\\n</query>\\n<webpage_content>\\n{page_markdown}\\n</webpage_content>"
    ```
    Use instead: the page first, the query last:
    `f"<webpage_content>\\n{page_markdown}\\n</webpage_content>\\n<query>\\n{query}\\n</query>"`.

    ## Fix safety
    Display-only: the reorder changes the prompt.
    """

    code = "PRM106"
    brief = "the request's question, or a value its builder's calls vary, before a document they share (a page, a diff)"
    specificity = 3
    severity = Severity.INFO
    fix_title = "Put the document first and the question after it"

    def check_layout(self, layout: PromptLayout):
        placed = [p for p in placed_segments(layout) if not p.part.is_history and p.part.role != "tools"]
        warned = {id(imp.seg) for imp in impacts(layout) if imp.severity is Severity.WARNING}
        found = False
        for diagnostic in fanout_findings(self, layout):
            found = True
            yield diagnostic
        if found:
            return  # (one finding per prompt, Policy 8: the code's evidence is the stronger)
        for p in placed:
            if id(p.seg) in warned:
                continue  # PRM101 / PRM104 report it as a warning: static text after it is lost anyway
            segs = p.part.segments
            if not _question(p.seg):
                continue
            asked = _says(p.seg, segs, p.seg_index, _QUESTION)
            if asked is None or _task(p.seg, segs, p.seg_index):
                continue
            doc = next(((j, s) for j, s in enumerate(segs) if j > p.seg_index and not s.is_static and _document(s)
                        and _says(s, segs, j, _DOCUMENT) is not None), None)
            if doc is None:
                continue
            j, d = doc
            what = "The question section" if p.seg.kind is Kind.CONDITIONAL else "The question"
            message = (f"{what} {text.describe(p.seg)}{asked} comes before the document "
                       f"{text.describe(d)}{_says(d, segs, j, _DOCUMENT)} in the {p.where}: requests that ask "
                       "another question about the same document share nothing after the question, so the "
                       "document is processed uncached each time; placed after the document, the question "
                       "would let them share it")
            related = [Related(d.span, "the document")] if d.span is not None else []
            yield self.diagnostic(message, p.seg.span or layout.site, prompt=layout.id,
                                  related=related + text.related(p.seg))
            break  # one finding per prompt (Policy 8: later questions are the same cause)
