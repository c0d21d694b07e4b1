"""The readings of function bodies (`ScopesMixin.ensure`), kept across analysed files.

A reading (a `Frame` with its snapshots, returns and markers) depends only on the code of its
module when reading it looked at nothing else: then the next file's analysis that uses the same
parsed module reads the same and is given it (a function of a module a package's files share is
read once per process, not once per file). Kept across files: the readings of functions (not of
module bodies: those are read once per file at most, and hold the most bindings), made from their
code alone (not one that resolved a name, `newest_iters`: that goes through the project and the
evaluator's caches, which depend on the analysed file), of a module the project still holds
parsed (`Project.held`: a module parsed again is read again), at most `MAX_KEPT` bindings in all
(the snapshots' entries: the least recently used readings go first). Other readings are kept for
the running file only, as before.
"""
from __future__ import annotations

#: Bindings (entries of the snapshots) of the readings kept across files: a bound on their memory.
MAX_KEPT = 30_000


class Bodies:
    """Body readings: key ((id(function node or module tree), id(class node))) -> Frame."""

    def __init__(self) -> None:
        self._read: dict = {}  # readings of the running file, and those kept (least recently used first)
        self._own: dict = {}  # key -> bindings of a reading that may be kept (a function's, of its code alone)
        self.looked_out = False  # set by a reading that resolved a name (`newest_iters`)

    def __iter__(self):
        return iter(self._read)

    def __contains__(self, key) -> bool:
        return key in self._read

    def get(self, key, module):
        """The reading kept under `key` of a body of `module` (this very parsed module), or None."""
        body = self._read.get(key)
        if body is None or body.module is not module:
            return None
        if key in self._own:  # the most recently used last
            self._read[key] = self._read.pop(key)
            self._own[key] = self._own.pop(key)
        return body

    def start(self) -> bool:
        """A reading starts (`looked_out` is then set by what it asks beyond its body); returns the
        flag of a reading this one runs inside of, for `put`."""
        outer, self.looked_out = self.looked_out, False
        return outer

    def put(self, key, body, outer: bool = False) -> None:
        """Keep the finished reading `body` (the nodes of its key live as long as it does).
        `outer`: what `start` returned (the reading around this one depends on what it read)."""
        self._read[key] = body
        self._own.pop(key, None)
        if not self.looked_out and body.func is not None:
            self._own[key] = sum(len(s) for s in body.snapshots.values())
        self.looked_out = outer or self.looked_out

    def forget(self, project) -> None:
        """The analysis of a file is over: keep only the readings of functions' code alone, of
        modules `project` still holds, the most recently used, `MAX_KEPT` bindings at most."""
        held: dict = {}
        kept, own, total = {}, {}, 0
        for key in reversed(self._own):
            body = self._read[key]
            alive = held.get(id(body.module))
            if alive is None:
                alive = held[id(body.module)] = project.held(body.module)
            size = self._own[key]
            if alive and total + size <= MAX_KEPT:
                kept[key], own[key] = body, size
                total += size
        self._read = dict(reversed(kept.items()))
        self._own = dict(reversed(own.items()))
