"""mkdocs.yml read safely: MkDocs' own tags (`!ENV`, `!!python/name:` refused as text), limits on
nesting and on what aliases expand to, and one error naming the line of a YAML fault."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, cast

import yaml

from site_gen.core.errors import SitegenError


# Limits of mkdocs.yml, far above any real config: nesting (the YAML composer recurses once per
# level) and values counted as if every alias were copied out (a "billion laughs" document is a few
# lines whose aliases expand to 10^9 values: whatever walks it never finishes).
MAX_DEPTH = 50
MAX_VALUES = 100_000


class _Refused(yaml.YAMLError):
    """A document over a limit, refused while it is composed (before any of it is built)."""

    def __init__(self, problem: str, mark: yaml.Mark, key: str | None):
        super().__init__(problem)
        self.problem, self.problem_mark, self.key = problem, mark, key


class _Loader(yaml.SafeLoader):
    """SafeLoader with the limits above, tolerating MkDocs' `!ENV` and Material's `!!python/name:` tags."""

    def __init__(self, stream) -> None:
        super().__init__(stream)
        self._depth = 0
        self._values = 0                  # so far, each alias counted at its full size
        self._sizes: dict[int, int] = {}  # id of a composed node -> its size, aliases expanded
        self._key: str | None = None      # the top-level setting being composed, to name in a refusal

    def _refuse(self, problem: str, mark: yaml.Mark) -> None:
        raise _Refused(problem, mark, self._key)

    def _count(self, n: int, mark: yaml.Mark) -> None:
        self._values += n
        if self._values > MAX_VALUES:
            self._refuse(f"expected at most {MAX_VALUES:,} values with aliases expanded, got more", mark)

    def construct_object(self, node, deep=False):
        try:
            value = super().construct_object(node, deep)
        except (ValueError, OverflowError) as exc:  # `!!float x`, `!!int 1e999`, `!!binary ?`: a value its tag cannot take
            raise yaml.constructor.ConstructorError(None, None, f"{node.tag} cannot take {node.value!r} ({exc})"
                                                    if isinstance(node, yaml.ScalarNode) else str(exc), node.start_mark) from None
        if isinstance(value, str) and not value.isascii():
            try:
                value.encode("utf-8")
            except UnicodeEncodeError as exc:  # "\ud800": a half of a character, which no page can hold
                raise yaml.constructor.ConstructorError(None, None, f"text holds the lone surrogate U+{ord(value[exc.start]):04X}",
                                                        node.start_mark) from None
        return value

    def fetch_flow_collection_start(self, TokenClass) -> None:
        # The scanner looks ahead over every open `[` for a possible `key:` (up to 1,024 characters,
        # each step over all of them): refused at the limit, a line of 50,000 `[` costs microseconds.
        if self.flow_level >= MAX_DEPTH:
            self._refuse(f"expected at most {MAX_DEPTH} levels of nesting, got more", self.get_mark())
        super().fetch_flow_collection_start(TokenClass)

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            node = self.anchors.get(event.anchor)
            if node is not None:
                if id(node) not in self._sizes:  # its anchor is still open: a value containing itself
                    self._refuse(f"expected an alias outside its anchor, got *{event.anchor} inside it",
                                 event.start_mark)
                self._count(self._sizes[id(node)], event.start_mark)
            return super().compose_node(parent, index)
        if self._depth == 1 and isinstance(index, yaml.ScalarNode):
            self._key = index.value
        self._depth += 1
        if self._depth > MAX_DEPTH:
            self._refuse(f"expected at most {MAX_DEPTH} levels of nesting, got more", event.start_mark)
        before = self._values
        node = super().compose_node(parent, index)
        self._depth -= 1
        self._count(1, event.start_mark)
        self._sizes[id(node)] = self._values - before
        return node


def _env_tag(loader: _Loader, node: yaml.Node) -> Any:
    given: list[Any]
    if isinstance(node, yaml.ScalarNode):
        given = [loader.construct_scalar(node)]
    else:  # a mapping is refused by construct_sequence itself, as yaml words it
        given = loader.construct_sequence(cast(yaml.SequenceNode, node))
    *names, default = given if len(given) > 1 else (given + [None])
    for name in names:
        if isinstance(name, str) and name in os.environ:
            return yaml.load(os.environ[name], Loader=_Loader)
    return default


def _any_tag(loader: _Loader, suffix: str, node: yaml.Node) -> Any:
    return None


_Loader.add_constructor("!ENV", _env_tag)
_Loader.add_multi_constructor("tag:yaml.org,2002:python/", _any_tag)
_Loader.add_multi_constructor("!", _any_tag)


def load_yaml(file: Path) -> Any:
    try:
        return yaml.load(file.read_text(encoding="utf-8"), Loader=_Loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = ", ".join(part for part in (getattr(exc, "key", None), mark and f"line {mark.line + 1}") if part)
        problem = getattr(exc, "problem", None) or str(exc)
        raise SitegenError(problem if isinstance(exc, _Refused) else f"not valid YAML: {problem}", file,
                           where or None) from None
    except UnicodeDecodeError:
        raise SitegenError("not UTF-8 text", file) from None
