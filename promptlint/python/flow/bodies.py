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
    """Body readings: key ((id(function node or module tree), id(class node))) -> Frame. Those
    that may be kept across files (`_kept`, least recently used first, with their bindings) are
    listed per module (`_of`), so that the end of a file costs a look at each module, not at each
    reading (a file without a prompt reads none)."""

    def __init__(self) -> None:
        self._file: dict = {}  # readings of the running file that are not kept past it
        self._kept: dict = {}  # key -> (reading, its bindings): a function's, of its code alone
        self._of: dict = {}  # id(module) -> (module, keys of its readings in `_kept`)
        self._total = 0  # bindings of the readings in `_kept`
        self._drops = -1  # `project.drops` when the modules of `_kept` were last looked at (`forget`)
        self.looked_out = False  # set by a reading that resolved a name (`newest_iters`)

    def __iter__(self):
        return iter([*self._kept, *self._file])

    def __contains__(self, key) -> bool:
        return key in self._kept or key in self._file

    def get(self, key, module):
        """The reading kept under `key` of a body of `module` (this very parsed module), or None."""
        kept = self._kept.pop(key, None)
        if kept is not None:
            self._kept[key] = kept  # the most recently used last
            body = kept[0]
        else:
            body = self._file.get(key)
        return body if body is not None and body.module is module else None

    def start(self) -> bool:
        """A reading starts (`looked_out` is then set by what it asks beyond its body); returns the
        flag of a reading this one runs inside of, for `put`."""
        outer, self.looked_out = self.looked_out, False
        return outer

    def put(self, key, body, outer: bool = False) -> None:
        """Keep the finished reading `body` (the nodes of its key live as long as it does).
        `outer`: what `start` returned (the reading around this one depends on what it read)."""
        self._remove(key)
        self._file.pop(key, None)
        if not self.looked_out and body.func is not None:
            size = sum(len(s) for s in body.snapshots.values())
            self._kept[key] = (body, size)
            self._total += size
            self._of.setdefault(id(body.module), (body.module, set()))[1].add(key)
        else:
            self._file[key] = body
        self.looked_out = outer or self.looked_out

    def _remove(self, key) -> None:
        kept = self._kept.pop(key, None)
        if kept is not None:
            self._total -= kept[1]
            module, keys = self._of[id(kept[0].module)]
            keys.discard(key)
            if not keys:
                del self._of[id(module)]

    def forget(self, project) -> None:
        """The analysis of a file is over: keep only the readings of functions' code alone, of
        modules `project` still holds, the most recently used, `MAX_KEPT` bindings at most."""
        self._file.clear()
        if project.drops != self._drops:  # (else every module of `_kept` is held still)
            self._drops = project.drops
            for module, keys in list(self._of.values()):
                if not project.held(module):
                    for key in list(keys):
                        self._remove(key)
        while self._total > MAX_KEPT:
            self._remove(next(iter(self._kept)))
