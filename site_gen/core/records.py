"""What an output was made from (`Dependencies`), and how every input of a record is named
(`content_hash`): plain records, low enough that the views can say what a page they make was made
from (site_gen/building/dependencies.py keeps and compares them)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field


def content_hash(data: str | bytes) -> str:
    """sha256 of text (UTF-8) or bytes, in hex: how every input of a record is named."""
    return hashlib.sha256(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data).hexdigest()


@dataclass(frozen=True)
class Dependencies:
    """What one output was made from. Equal records mean the output would come out the same bytes.

    receipts:  (report id, sha256 of its SUMMARY.json) of every report it draws on
    ledes:     (report id, sha256 of the report's lede text), where the output shows a lede
    templates: (template name, sha256 of its source) of its whole template closure; the name "*"
               stands for a template chosen at render time, its hash for every template's
    docs:      (docs page path inside docs_dir, sha256 of its text) for a page written in docs_dir
    site:      sha256 of the site-wide inputs it shows (the navigation's site entries, asset URLs,
               the list of reports, as the output kind needs)
    links:     sha256 of what it shows of other reports (their titles, candidates and pages:
               site_gen/render/related.py), for a report's pages; not their receipts, so an edit of a
               linked report that leaves these as they were remakes none of them
    files:     the source files behind the above, as absolute paths: what `invalidate` matches a
               changed path against (not part of the key: where a file is does not change bytes)
    """

    receipts: tuple[tuple[str, str], ...] = ()
    ledes: tuple[tuple[str, str], ...] = ()
    templates: tuple[tuple[str, str], ...] = ()
    docs: tuple[tuple[str, str], ...] = ()
    site: str = ""
    files: frozenset[str] = field(default=frozenset(), compare=False)
    links: str = ""

    @property
    def key(self) -> str:
        """A stable content key: the same inputs give the same key in any process, on any day."""
        return content_hash(json.dumps([self.receipts, self.ledes, self.templates, self.docs, self.site, self.links]))

    def __or__(self, other: Dependencies) -> Dependencies:
        """Both records' inputs, as an output made of two parts records them (`site` is taken from `self`)."""
        def union(a, b):
            return tuple(sorted(set(a) | set(b)))
        return Dependencies(union(self.receipts, other.receipts), union(self.ledes, other.ledes),
                            union(self.templates, other.templates), union(self.docs, other.docs),
                            self.site or other.site, self.files | other.files, self.links or other.links)
