"""A learner's options from stored or typed parameters, checked, with one-line errors."""
from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

from bridge.engine import BadInput

T = TypeVar("T")


def option_names(cls: type) -> frozenset[str]:
    """The option names of an options dataclass."""
    return frozenset(f.name for f in fields(cls))


def checked(cls: type[T], params: dict[str, Any], learner: str) -> T:
    """``cls(**params).check()``; BadInput names an unknown or bad option."""
    unknown = set(params) - option_names(cls)
    if unknown:
        raise BadInput(f"unknown {learner} option(s): {', '.join(sorted(unknown))}")
    try:
        return cls(**params).check()
    except (TypeError, ValueError) as exc:
        raise BadInput(str(exc)) from None
