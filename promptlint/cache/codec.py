"""The data model (`promptlint.model`) as JSON values, and back: what the persistent cache stores.

Never pickle: a cache file is data, so a crafted one can at worst give a wrong report for the
file it names, never run code. Encoding follows the dataclasses' fields: a dataclass becomes an
object of its fields (fields equal to their default are left out), a Position a `[row, column]`
pair, a Span `[filename, row, column, end row, end column]`, an enum its value, a tuple a list
(a tuple of integers, character offsets, `{"runs": [[first, length], ...]}`).
Decoding reads the field types (`typing.get_type_hints`) back: `decode(Diagnostic, value)`.

Round trip: `decode(T, encode(x)) == x` for every model value x of type T. Data that does not
fit the types raises `CodecError` (the cache then ignores the entry).
"""
from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any

from .. import model
from ..model import Position, Span


class CodecError(ValueError):
    """A JSON value that does not decode to the requested model type."""


def encode(value: Any) -> Any:
    """A model value (dataclass, enum, list, tuple, dict, str, int, float, bool, None) as a JSON
    value."""
    if value is None or isinstance(value, (str, bool, int, float)):
        return value.value if isinstance(value, enum.Enum) else value
    cls = type(value)
    if cls is Position:
        return [value.row, value.column]
    if cls is Span:
        return [value.filename, value.start.row, value.start.column, value.end.row, value.end.column]
    if isinstance(value, enum.Enum):
        return value.value
    if dataclasses.is_dataclass(value):
        out = {}
        for f, default in _defaults(cls):
            item = getattr(value, f)
            if default is not _REQUIRED and item == default:
                continue
            out[f] = encode(item)
        return out
    if isinstance(value, tuple) and value and all(type(v) is int for v in value):
        return {"runs": _runs(value)}  # character offsets: mostly consecutive, kept as runs
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): encode(v) for k, v in value.items()}
    raise CodecError(f"cannot encode a {cls.__name__}")


def decode(hint: Any, data: Any) -> Any:
    """The value of type `hint` (a model class or a typing form of the model's fields) that
    `encode` gave `data` for. Raises CodecError."""
    try:
        return _decoder(hint)(data)
    except CodecError:
        raise
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:
        raise CodecError(f"cannot decode {getattr(hint, '__name__', hint)}: {exc}") from None


_REQUIRED = object()
_DEFAULTS: dict[type, list[tuple[str, Any]]] = {}
_HINTS: dict[type, dict[str, Any]] = {}


def _defaults(cls: type) -> list[tuple[str, Any]]:
    found = _DEFAULTS.get(cls)
    if found is None:
        found = []
        for f in dataclasses.fields(cls):
            if f.default is not dataclasses.MISSING:
                default = f.default
            elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
                default = f.default_factory()  # type: ignore[misc]
            else:
                default = _REQUIRED
            found.append((f.name, default))
        _DEFAULTS[cls] = found
    return found


def _hints(cls: type) -> dict[str, Any]:
    found = _HINTS.get(cls)
    if found is None:
        found = _HINTS[cls] = typing.get_type_hints(cls, vars(model))
    return found


_DECODERS: dict[Any, Any] = {}


def _decoder(hint: Any):
    """A function that decodes a JSON value of type `hint` (built once per type)."""
    found = _DECODERS.get(hint)
    if found is None:
        found = _DECODERS[hint] = _build(hint)
    return found


def _build(hint: Any):
    if hint is Position:
        def position(data):
            row, column = data
            return Position(_int(row), _int(column))
        return position
    if hint is Span:
        def span(data):
            filename, row, column, end_row, end_column = data
            if not isinstance(filename, str):
                raise CodecError("a span's filename is not a string")
            return Span(filename, Position(_int(row), _int(column)), Position(_int(end_row), _int(end_column)))
        return span
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(options) != 1:
            raise CodecError(f"ambiguous type {hint}")
        inner, nullable = _decoder(options[0]), type(None) in typing.get_args(hint)

        def union(data):
            if data is None:
                if nullable:
                    return None
                raise CodecError("null where a value is required")
            return inner(data)
        return union
    if origin is list:
        item = _decoder(typing.get_args(hint)[0])
        return lambda data: [item(d) for d in _list(data)]
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _decoder(args[0])
            if args[0] is int:
                return lambda data: _unruns(data) if isinstance(data, dict) else tuple(item(d) for d in _list(data))
            return lambda data: tuple(item(d) for d in _list(data))
        items = [_decoder(a) for a in args]
        return lambda data: tuple(f(d) for f, d in zip(items, _list(data), strict=True))
    if origin is dict:
        key, item = (_decoder(a) for a in typing.get_args(hint))
        return lambda data: {key(k): item(v) for k, v in _dict(data).items()}
    if hint is tuple:  # an untyped tuple (Anchor.detail): nested lists are tuples again
        return lambda data: _frozen(_list(data))
    if hint is dict:
        return _dict
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return hint
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        fields: dict[str, Any] = {}
        cls = hint

        def dataclass(data):
            if not fields:
                fields.update((name, _decoder(h)) for name, h in _hints(cls).items())
            if not isinstance(data, dict):
                raise CodecError(f"{cls.__name__}: not an object")
            try:
                return cls(**{name: fields[name](v) for name, v in data.items()})
            except KeyError as exc:
                raise CodecError(f"{cls.__name__}: unknown field {exc}") from None
        return dataclass
    if hint is bool:
        return _bool
    if hint is int:
        return _int
    if hint is float:
        return _float
    if hint is str:
        return _str
    if hint is Any:
        return lambda data: data
    raise CodecError(f"unsupported type {hint}")


def _bool(data: Any) -> bool:
    if not isinstance(data, bool):
        raise CodecError("not a boolean")
    return data


def _float(data: Any) -> float:
    if isinstance(data, bool) or not isinstance(data, (int, float)):
        raise CodecError("not a number")
    return data


def _str(data: Any) -> str:
    if not isinstance(data, str):
        raise CodecError("not a string")
    return data


def _dict(data: Any) -> dict:
    if not isinstance(data, dict):
        raise CodecError("not an object")
    return data


def _runs(values: tuple[int, ...]) -> list[list[int]]:
    """[[first, length], ...] of the runs of consecutive integers of `values`."""
    runs: list[list[int]] = []
    for v in values:
        if runs and runs[-1][0] + runs[-1][1] == v:
            runs[-1][1] += 1
        else:
            runs.append([v, 1])
    return runs


def _unruns(data: Any) -> tuple[int, ...]:
    out: list[int] = []
    for first, length in _list(_dict(data).get("runs")):
        if _int(length) < 0:
            raise CodecError("a negative run")
        out.extend(range(_int(first), first + length))
    return tuple(out)


def _int(data: Any) -> int:
    if isinstance(data, bool) or not isinstance(data, int):
        raise CodecError("not an integer")
    return data


def _list(data: Any) -> list:
    if not isinstance(data, list):
        raise CodecError("not an array")
    return data


def _frozen(items: list) -> tuple:
    return tuple(_frozen(i) if isinstance(i, list) else i for i in items)
