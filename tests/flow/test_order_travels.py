"""Order that varies per process travels through containers, returns, attributes and types
(issue 11): a deduplicated list cut with `[:n]`, set methods, sets known from annotations
(parameters, fields, return values), set-valued field factories, `random.shuffle`; and the
shapes that keep a fixed order stay clean (`sorted(...)`, sets of numbers, `dict.fromkeys`)."""
from __future__ import annotations

import pytest
from analysis_support import pos, probe

from promptlint.model import Kind, Volatility


def unordered(p) -> list:
    """The unordered-iteration segments of a probed value."""
    return [s for s in p.segs if s.kind is Kind.UNORDERED_ITERATION]


DEDUPED = """
    def unique(items):
        return list(set(items))


    def f(items, a, b):
        tags = unique(items)
        probe(", ".join(tags[:5]))
        probe(", ".join(sorted(set(items))[:5]))
        probe(", ".join(list(set().union(a, b))[:3]))
        probe(", ".join(set(range(3)).union(range(4))))
        probe(", ".join(list(dict.fromkeys(items))[:3]))
        probe(", ".join(list(set(items))[0]))
"""


def test_a_cut_of_a_deduplicated_list_keeps_its_order_problem(tmp_path):
    seg, = unordered(probe(tmp_path, DEDUPED, index=0))
    # placed where the cut takes items by that order: the fix sorts before the cut
    assert seg.span.start == pos(DEDUPED, "tags[:5]")
    assert seg.anchor is not None and seg.anchor.place == "iterable" and seg.expr == "tags"
    assert seg.origin.start == pos(DEDUPED, "set(items)")  # where the set was made (in the helper)


def test_set_methods_keep_the_hash_order(tmp_path):
    seg, = unordered(probe(tmp_path, DEDUPED, index=2))
    assert "union" in seg.evidence and seg.expr == "list(set().union(a, b))"


@pytest.mark.parametrize("index", [1, 3, 4])
def test_sorted_number_sets_and_fromkeys_stay_ordered(tmp_path, index):
    assert unordered(probe(tmp_path, DEDUPED, index=index)) == []


def test_one_element_of_a_set_is_not_an_iteration(tmp_path):
    # `list(s)[0]`: an element that may differ per process, but no list order in the prompt
    assert unordered(probe(tmp_path, DEDUPED, index=5)) == []


ANNOTATED = """
    from dataclasses import dataclass, field
    from typing import Optional, Set

    from pydantic import BaseModel, Field


    @dataclass
    class Job:
        tags: set[str]
        ids: set[int]
        pairs: frozenset[tuple[int, int]]
        names: list[str]
        later: set = field(default_factory=set)


    class Task(BaseModel):
        depends_on: "set[Task]" = Field(default_factory=set)
        extra = Field(default_factory=set)
        words: list = Field(default_factory=list)


    class Store:
        def load(self) -> set:
            return self.backend.read()

        def rows(self) -> list[str]:
            return self.backend.read()


    def f(job: Job, task: Task, store: Store, tags: Set[str], maybe: Optional[set[str]], ids: set[int],
          names: list[str], opt: set[str] | None):
        probe(", ".join(job.tags))
        probe(", ".join(str(i) for i in job.ids))
        probe(", ".join(str(p) for p in job.pairs))
        probe(", ".join(job.names))
        probe(", ".join(job.later))
        probe("".join(t.name for t in task.depends_on))
        probe(", ".join(task.extra))
        probe(", ".join(task.words))
        probe(", ".join(store.load()))
        probe(", ".join(store.rows()))
        probe(", ".join(tags))
        probe(", ".join(maybe))
        probe(", ".join(str(i) for i in ids))
        probe(", ".join(names))
        probe(", ".join(opt))
"""


@pytest.mark.parametrize("index, expr", [(0, "job.tags"), (4, "job.later"), (5, "task.depends_on"),
                                         (6, "task.extra"), (8, "store.load()"), (10, "tags"),
                                         (11, "maybe"), (14, "opt")])
def test_sets_known_from_types_and_factories(tmp_path, index, expr):
    seg, = unordered(probe(tmp_path, ANNOTATED, index=index))
    assert seg.expr == expr and seg.anchor is not None  # placed at the iteration, with its fix
    assert seg.volatility is Volatility.PER_PROCESS


@pytest.mark.parametrize("index", [1, 2, 3, 7, 9, 12, 13])
def test_numbers_lists_and_other_types_are_not_sets(tmp_path, index):
    assert unordered(probe(tmp_path, ANNOTATED, index=index)) == []


def test_the_annotation_is_where_the_order_comes_from(tmp_path):
    seg, = unordered(probe(tmp_path, ANNOTATED, index=0))
    assert seg.origin.start == pos(ANNOTATED, "set[str]")
    assert "annotated `set[str]`" in seg.evidence
    seg, = unordered(probe(tmp_path, ANNOTATED, index=8))
    assert seg.origin.start == pos(ANNOTATED, "set:") and "`load()`'s result" in seg.evidence


SHUFFLED = """
    import random

    EXAMPLES = ["a", "b", "c"]


    def f(items):
        shots = list(EXAMPLES)
        random.shuffle(shots)
        probe("\\n".join(shots))
        rng = random.Random(0)
        fixed = list(EXAMPLES)
        rng.shuffle(fixed)
        probe("\\n".join(fixed))
        probe("\\n".join(EXAMPLES))
"""


def test_a_shuffled_list_is_in_a_new_order_on_every_call(tmp_path):
    seg, = unordered(probe(tmp_path, SHUFFLED, index=0))
    assert seg.span.start == pos(SHUFFLED, "random.shuffle(shots)")
    assert seg.volatility is Volatility.PER_REQUEST and seg.anchor is None  # sorting would undo it


@pytest.mark.parametrize("index", [1, 2])
def test_a_seeded_generator_and_an_unshuffled_list_are_not(tmp_path, index):
    assert unordered(probe(tmp_path, SHUFFLED, index=index)) == []


SEEDED = """
    import random

    NEEDLES = ["a", "b", "c"]


    def build(repeats):
        for counter in range(repeats):
            random.seed(counter)
            needles = list(NEEDLES)
            random.shuffle(needles)
            probe("\\n".join(needles))
"""


def test_a_shuffle_after_the_process_wide_generator_is_seeded_is_in_the_seeds_order(tmp_path):
    # `random.seed(counter)` before it: the same order in every process for that seed (a benchmark's sample)
    assert unordered(probe(tmp_path, SEEDED, index=0)) == []
    unseeded = SEEDED.replace("random.seed(counter)", "pass")
    seg, = unordered(probe(tmp_path / "unseeded", unseeded, index=0))
    assert seg.span.start == pos(unseeded, "random.shuffle(needles)")


PER_INSTANCE = """
    import random

    NAMES = ["Ada", "Bo"]


    class Agent:
        def __init__(self, name=None):
            self.name = name or random.choice(NAMES)

        def prompt(self):
            probe(f"I am {self.name}")
"""


def test_a_default_chosen_in_init_is_per_instance_in_each_branch(tmp_path):
    seg = next(s for s in probe(tmp_path, PER_INSTANCE).segs if s.kind is Kind.UNIQUE_ID)
    assert seg.volatility is Volatility.PER_CONVERSATION


WALKED = """
    class Task:
        def __init__(self, name):
            self.name = name
            self.depends_on: set["Task"] = set()


    def walk(task, seen=None):
        seen = seen or set()
        out = []
        for dep in task.depends_on:
            if dep in seen:
                continue
            seen.add(dep)
            out.extend(walk(dep, seen))
            out.append(dep)
        return out


    def f(root: Task, names: list[str]):
        steps = walk(root)
        probe("\\n".join(f"{i}. {t.name}" for i, t in enumerate(steps)))
        probe("\\n".join(f"{i}. {n}" for i, n in enumerate(names)))
"""


def test_a_depth_first_walk_over_a_set_attribute_keeps_its_order_problem(tmp_path):
    seg, = unordered(probe(tmp_path, WALKED, index=0))  # through `enumerate` in a comprehension
    assert seg.span.start == pos(WALKED, "task.depends_on:")


def test_enumerating_a_list_in_a_comprehension_is_ordered(tmp_path):
    assert unordered(probe(tmp_path, WALKED, index=1)) == []


SELF_TYPED = """
    class Memory:
        def __init__(self, store, names):
            self.facts: set[str] = store.load()
            self.names: set[str] = sorted(names)
            self.ids: set[int] = store.ids()
            self.rows: list[str] = store.rows()

        def prompt(self):
            probe(", ".join(self.facts))
            probe(", ".join(self.names))
            probe(", ".join(str(i) for i in self.ids))
            probe(", ".join(self.rows))
"""


def test_an_instance_attribute_typed_as_a_set(tmp_path):
    seg, = unordered(probe(tmp_path, SELF_TYPED, index=0))
    assert seg.origin.start == pos(SELF_TYPED, "set[str] = store")


@pytest.mark.parametrize("index", [1, 2, 3])  # sorted whatever its annotation, numbers, a list
def test_instance_attributes_that_are_not_unordered_sets(tmp_path, index):
    assert unordered(probe(tmp_path, SELF_TYPED, index=index)) == []


PICKS = """
    def f(exts, names: set[str], scores: list, counts: set[int]):
        probe(max(set(exts), key=exts.count))
        probe(min(names, key=len))
        probe(next(iter(names)))
        probe(max(names))
        probe(max(scores, key=len))
        probe(max(sorted(set(exts)), key=exts.count))
        probe(max(counts, key=str))
"""


@pytest.mark.parametrize("index, picked", [(0, True), (1, True), (2, True), (3, False), (4, False), (5, False),
                                           (6, False)])
def test_an_item_picked_from_a_set_by_a_key_or_first_depends_on_the_order(tmp_path, index, picked):
    # max(..., key=...) keeps the first of equal keys; without a key (or from a list, a sorted
    # list, a set of numbers) the pick is the same in every process
    p = probe(tmp_path, PICKS, index=index)
    found = unordered(p)
    assert bool(found) is picked
    if picked:
        assert found[0].volatility is Volatility.PER_PROCESS and "depends on the order of" in found[0].evidence


SERIALISED = """
    import json


    def f(cols: list, extra: dict):
        fields = set(cols)
        probe(json.dumps({x: {} for x in fields}))
        schema = dict((x, {}) for x in fields)
        for k, v in extra.items():
            schema[k]["values"] = v
        if cols:
            schema = {k: v for k, v in schema.items() if k in cols}
        probe(json.dumps(schema, indent=4))
        probe(json.dumps(schema, sort_keys=True))
        probe(json.dumps({x: {} for x in set(range(3))}))
        probe(json.dumps(dict(extra)))
"""


@pytest.mark.parametrize("index,expected", [(0, ["fields"]), (1, ["fields"]), (2, []), (3, []), (4, [])])
def test_a_dict_made_from_a_set_is_serialised_in_the_sets_order(tmp_path, index, expected):
    """`json.dumps` of a dict whose keys were made by iterating a set (a comprehension,
    `dict(<pairs>)`, then filled and filtered) writes them in hash order: the finding is the
    iteration of the set; sorted keys, or a set of numbers, keep a fixed order."""
    p = probe(tmp_path, SERIALISED, index=index)
    assert [s.expr for s in unordered(p)] == expected


HANDED = """
    from typing import Annotated

    import typing_extensions


    class Garage:
        def __init__(self, bays):
            self.bays = bays

        def plates(self):
            return ", ".join({car.plate for car in self.bays})


    def Provide(key):
        return key


    def f(garage: Annotated[Garage, Provide("garage")], other: typing_extensions.Annotated["Garage", "meta"],
          plain: Annotated[str, "note"]):
        probe(garage.plates())
        probe(other.plates())
        probe(plain)
"""


@pytest.mark.parametrize("index", [0, 1])
def test_a_parameter_annotated_with_metadata_is_an_instance_of_its_type(tmp_path, index):
    # `Annotated[T, ...]` is a `T` (the metadata is for a framework): its methods are read
    seg, = unordered(probe(tmp_path, HANDED, index=index))
    assert "set comprehension" in seg.evidence
    assert seg.span.start == pos(HANDED, "{car.plate for car in self.bays}")


def test_a_text_annotated_with_metadata_is_still_an_unknown_parameter(tmp_path):
    p = probe(tmp_path, HANDED, index=2)
    assert p.described == [("unknown", "unknown", "plain")]


LISTED_JSON = """
    import json


    def f(rows):
        kinds = {r["kind"] for r in rows}
        probe(json.dumps(list(kinds)))
        probe(json.dumps(list(kinds), sort_keys=True))
        probe(json.dumps(sorted(kinds)))
"""


@pytest.mark.parametrize("index", [0, 1])
def test_a_list_serialised_in_a_sets_order_keeps_that_order(tmp_path, index):
    # sorted keys do not sort a list: the order is the set's, placed where it is listed
    seg, = unordered(probe(tmp_path, LISTED_JSON, index=index))
    assert seg.span.start == pos(LISTED_JSON, "list(kinds)", nth=index)
    assert seg.anchor is not None and seg.anchor.place == "iterable"
    assert [s for s in probe(tmp_path, LISTED_JSON, index=index).segs if s.kind is Kind.SERIALIZED] == []


def test_a_sorted_list_serialised_is_in_a_fixed_order(tmp_path):
    p = probe(tmp_path, LISTED_JSON, index=2)
    assert unordered(p) == []
    assert [s.kind for s in p.segs] == [Kind.SERIALIZED] and p.segs[0].ordered


FROM_KEYS = """
    from collections import OrderedDict


    def f(items, tags: set[str]):
        seen = dict.fromkeys(set(items))
        probe("\\n".join(seen))
        probe("\\n".join(dict.fromkeys(tags, 0).keys()))
        probe(f"Counts: {dict((t, 0) for t in tags)}")
        probe(", ".join(OrderedDict.fromkeys(items)))
        probe("\\n".join(dict.fromkeys(sorted(set(items)))))
        probe(f"Counts: {dict.fromkeys(sorted(tags), 0)}")
"""


@pytest.mark.parametrize("index,expected", [(0, "set(items)"), (1, "tags"), (2, "tags")])
def test_a_dedupe_by_dict_keys_keeps_the_sets_order(tmp_path, index, expected):
    """`dict.fromkeys(s)` (and any dict built by iterating a set) has the set's hash order: joined,
    listed by its keys or written as a dict, the text is in that order."""
    seg, = unordered(probe(tmp_path, FROM_KEYS, index=index))
    assert seg.expr == expected


@pytest.mark.parametrize("index", [3, 4, 5])
def test_a_dedupe_by_dict_keys_of_a_list_or_sorted_set_keeps_that_order(tmp_path, index):
    """`dict.fromkeys(xs)` of a list (the order-keeping dedupe) or of a sorted set is ordered;
    its keys carry the list's own reading (a parameter: unknown, never an order finding)."""
    p = probe(tmp_path, FROM_KEYS, index=index)
    assert unordered(p) == []
    assert any(s.volatility is not None for s in p.segs)
