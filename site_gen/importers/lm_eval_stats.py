"""lm-evaluation-harness figures recomputed from per-document samples: a metric's value and
standard error, and the paired difference of two runs over the documents both scored, with its
interval.

Per-document scores are averaged (their standard error exactly as the harness computes it). A
corpus metric keeps one item a document (a (gold, prediction) pair, or a (reference, prediction)
pair of texts) and aggregates them all at once, by the task's own function: sitegen recognises
the aggregation that gives back the results file's own value and says which (binary F1 with
positive label 1, macro, micro or weighted F1, Matthews' correlation; BLEU, chrF and TER as
sacrebleu computes them for the harness, when sacrebleu is installed); its standard error is a
seeded bootstrap of that aggregation (the harness bootstraps with its own unrecorded resampling:
within 30% of ours). A metric no known aggregation gives back is imported as the file states it,
marked "not recomputed"; none refuses a file by itself.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from site_gen.core.errors import SitegenError
from site_gen.importers import serving_common as sc

if TYPE_CHECKING:
    from site_gen.importers.lm_eval import Task

Z95 = 1.959963984540054
RESAMPLES = 2000
SEED = 0
# The harness's own standard error of a corpus metric is a bootstrap of its own (100 resamples,
# an unrecorded seed): the recomputed one must land within this share of it.
BOOTSTRAP_TOLERANCE = 0.30
# Per-document metrics the harness always averages: their samples must give the file's value.
MEAN_METRICS = {"acc", "acc_norm", "exact_match", "em", "acc_mutual_info", "contains", "pass@1", "bypass"}
NOT_RECOMPUTED = "as stated, not recomputed"


def _confusion(pairs: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per label (last axis): true positives, false positives, false negatives and support, over
    the documents axis of `pairs` (..., n, 2)."""
    gold, pred = pairs[..., 0][..., None], pairs[..., 1][..., None]
    g, p = gold == labels, pred == labels
    tp = (g & p).sum(axis=-2)
    return tp, (~g & p).sum(axis=-2), (g & ~p).sum(axis=-2), g.sum(axis=-2)


def _ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)


def _f1_binary(pairs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    tp, fp, fn, _ = _confusion(pairs, np.array([1.0]))
    return _ratio(2 * tp, 2 * tp + fp + fn)[..., 0]


def _f1_per_label(pairs: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    tp, fp, fn, support = _confusion(pairs, labels)
    present = (support + tp + fp) > 0  # a label neither true nor predicted in a resample is left out, as sklearn does
    return _ratio(2 * tp, 2 * tp + fp + fn), support, present


def _f1_macro(pairs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    f1, _, present = _f1_per_label(pairs, labels)
    return _ratio((f1 * present).sum(axis=-1), present.sum(axis=-1))


def _f1_weighted(pairs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    f1, support, _ = _f1_per_label(pairs, labels)
    return _ratio((f1 * support).sum(axis=-1), support.sum(axis=-1))


def _f1_micro(pairs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    tp, fp, fn, _ = _confusion(pairs, labels)
    return _ratio(2 * tp.sum(axis=-1), 2 * tp.sum(axis=-1) + fp.sum(axis=-1) + fn.sum(axis=-1))


def _mcc(pairs: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Matthews' correlation of several classes (sklearn's matthews_corrcoef): from the confusion
    matrix's diagonal, row and column sums."""
    tp, fp, _, support = _confusion(pairs, labels)
    t, p = support, tp + fp
    s = support.sum(axis=-1).astype(float)
    c = tp.sum(axis=-1).astype(float)
    num = c * s - (t * p).sum(axis=-1)
    den = np.sqrt((s * s - (p * p).sum(axis=-1)) * (s * s - (t * t).sum(axis=-1)))
    return _ratio(num, den)


# Aggregations of (gold, prediction) pairs, by name: the function, what it is in words.
PAIRED: dict[str, tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], str]] = {
    "f1": (_f1_binary, "binary F1 of the (gold, prediction) pairs, positive label 1"),
    "f1_weighted": (_f1_weighted, "weighted F1 of the (gold, prediction) pairs (each label's F1 by its support)"),
    "f1_macro": (_f1_macro, "macro F1 of the (gold, prediction) pairs (the labels' F1 averaged)"),
    "f1_micro": (_f1_micro, "micro F1 of the (gold, prediction) pairs"),
    "mcc": (_mcc, "Matthews' correlation of the (gold, prediction) pairs"),
}
CORPUS = {name: words for name, (_, words) in PAIRED.items()}
TEXT = {"bleu": "corpus_bleu", "chrf": "corpus_chrf", "ter": "corpus_ter"}


def _order(metric: str, hint: str) -> list[str]:
    """The aggregations to try, the likeliest first: the one the task's config or the metric's
    name points to, then the others."""
    names = list(PAIRED)
    text = f"{metric} {hint}".lower()
    first = [n for n in ("f1_weighted", "f1_macro", "f1_micro") if n.split("_")[1] in text] if "f1" in text else []
    if "mcc" in text or "matthews" in text:
        first.append("mcc")
    if metric == "f1" and "average" not in hint:
        first.insert(0, "f1")
    return list(dict.fromkeys(first + names))


def _sacreformat(items: list) -> tuple[list, list]:
    """The harness's `_sacreformat`: references as streams (one list a reference), predictions as texts."""
    refs = [r if isinstance(r, (list, tuple)) else [r] for r, _ in items]
    preds = [p[0] if isinstance(p, (list, tuple)) else p for _, p in items]
    return [list(x) for x in zip(*refs)], preds


def _text_score(name: str, items: list) -> float | None:
    """BLEU, chrF or TER of (reference, prediction) texts as the harness computes it, or None
    without sacrebleu."""
    try:
        import sacrebleu  # optional: a maintained implementation of the harness's own scorer
    except ImportError:
        return None
    refs, preds = _sacreformat(items)
    return float(getattr(sacrebleu, TEXT[name])(preds, refs).score)


def label_codes(values: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """(gold, prediction) pairs as numbers: numbers as they are (binary F1's positive label is the
    value 1), text labels as their index among `labels`."""
    if values.dtype != object:
        return values.astype(float)
    index = {str(label): float(i) for i, label in enumerate(labels)}
    return np.vectorize(lambda x: index[str(x)], otypes=[float])(values)


def _per_doc(t: Task, metric: str, filt: str) -> tuple[list[int], list[Any], list[int | None]]:
    rows = [d for d in t.docs if d["filter"] == filt or (filt == "none" and d["filter"] in (None, "none"))]
    return [d["doc_id"] for d in rows], [d[metric] for d in rows], [d["line"] for d in rows]


def _boot_idx(n: int) -> np.ndarray:
    return np.random.default_rng(SEED).integers(0, n, size=(RESAMPLES, n))


@dataclass
class Figures:
    kind: str                     # "mean", a PAIRED aggregation, a TEXT score, or NOT_RECOMPUTED
    value: float
    stderr: float | None
    docs: list[int]
    hashes: list[str | None]
    values: np.ndarray            # per document: scores, or (gold, prediction) pairs as label indices
    what: str = ""                # the aggregation in words
    labels: Any = None

    @property
    def recomputed(self) -> bool:
        return self.kind != NOT_RECOMPUTED

    @property
    def bootstrappable(self) -> bool:
        return self.kind in PAIRED


def figures(t: Task, metric: str, filt: str, stated: dict, src_path: Path, hint: str = "") -> Figures | None:
    """The metric's value and standard error from the task's samples (None without samples), by
    the aggregation that gives back the file's value; refused where the harness's rule is known
    (a per-document mean) and the samples disagree."""
    if t.samples is None:
        return None
    ids, vals, lines = _per_doc(t, metric, filt)
    hashes = {d["doc_id"]: d["doc_hash"] for d in t.docs}
    if not ids:
        return None
    samples = t.samples
    where = lambda i: sc.at(lines[i], f"$.{metric}")
    stated_value = stated["value"]
    agrees = lambda v: abs(v - stated_value) <= 1e-9 * max(1.0, abs(v))

    def made(kind: str, value: float, stderr: float | None, arr: np.ndarray, what: str, labels: Any = None) -> Figures:
        return Figures(kind, value, stderr, ids, [hashes[i] for i in ids], arr, what, labels)

    name = metric.split("_")[0]
    pairs = bool(vals) and all(isinstance(v, (list, tuple)) and len(v) == 2 for v in vals)
    if pairs and name in TEXT:
        return _text_figures(name, vals, stated, made)
    if pairs:
        flat = [x for v in vals for x in v]
        numeric = all(sc.is_number(x) and math.isfinite(x) for x in flat)
        if numeric or all(isinstance(x, str) for x in flat):
            values = np.array(vals, dtype=float if numeric else object)
            labels = np.unique(values.astype(float) if numeric else values.astype(str))
            arr = label_codes(values, labels)
            codes = np.unique(arr)
            for agg in _order(metric, hint):
                if agg == "f1" and not numeric:
                    continue  # binary F1 needs the positive label 1: labels that are numbers
                fn, what = PAIRED[agg]
                value = float(fn(arr, codes))
                if agrees(value):
                    boot = fn(arr[_boot_idx(len(arr))], codes)
                    return _checked(made(agg, value, float(np.std(boot, ddof=1)), values, what, labels), stated, t, src_path)
        return made(NOT_RECOMPUTED, stated_value, stated["stderr"], np.array([]), "no known aggregation of its (gold, "
                    "prediction) pairs gives the results file's value")
    if not all(sc.is_number(v) and math.isfinite(v) for v in vals):
        bad = next(i for i, v in enumerate(vals) if not (sc.is_number(v) and math.isfinite(v)))
        if metric in MEAN_METRICS:
            raise SitegenError(f"expected a number for {metric}, got {str(vals[bad])[:40]}", samples.path, where(bad))
        return made(NOT_RECOMPUTED, stated_value, stated["stderr"], np.array([]), "its samples are not numbers sitegen "
                    "can aggregate")
    arr = np.array(vals, dtype=float)
    value = float(arr.mean())
    stderr = float(arr.std(ddof=1) / math.sqrt(len(arr))) if len(arr) > 1 else 0.0
    if metric in MEAN_METRICS or "mean" in hint or agrees(value):
        return _checked(made("mean", value, stderr, arr, "mean of the per-document scores"), stated, t, src_path)
    if agrees(float(np.median(arr))):
        return made(NOT_RECOMPUTED, stated_value, stated["stderr"], arr, "the median of the per-document scores (its "
                    "standard error not recomputed)")
    return made(NOT_RECOMPUTED, stated_value, stated["stderr"], arr, "no known aggregation of its per-document scores "
                "gives the results file's value")


def _text_figures(name: str, vals: list, stated: dict, made: Callable[..., Figures]) -> Figures:
    """BLEU, chrF or TER of (reference, prediction) texts: recomputed with sacrebleu where it is
    installed and gives back the file's value; else as the file states it, not recomputed."""
    value = _text_score(name, vals)
    if value is None:
        return made(NOT_RECOMPUTED, stated["value"], stated["stderr"], np.array([]), "sacrebleu is not installed here")
    if abs(value - stated["value"]) <= 1e-9 * max(1.0, abs(value)):
        return made(name, value, stated["stderr"], np.array([]), f"{'chrF' if name == 'chrf' else name.upper()} of the "
                    "(reference, prediction) texts, as sacrebleu computes it for the harness")
    return made(NOT_RECOMPUTED, stated["value"], stated["stderr"], np.array([]), f"sacrebleu's {name} of the samples gives "
                f"{value}, not the file's value (another tokenizer or setting)")


def _checked(f: Figures, stated: dict, t: Task, src_path: Path) -> Figures:
    """The file's value and standard error against ours: the value to 1e-9; a mean's standard
    error exactly, a bootstrapped one within BOOTSTRAP_TOLERANCE."""
    if abs(f.value - stated["value"]) > 1e-9 * max(1.0, abs(f.value)):
        raise SitegenError(f"'{stated['key']}' says {stated['value']}, but the samples give {f.value} ({f.what})", src_path,
                           f"$.results.{t.name}[\"{stated['key']}\"]")
    s = stated["stderr"]
    if s is not None and f.stderr is not None:
        exact = f.kind == "mean"
        ok = abs(s - f.stderr) <= 1e-9 * max(1.0, s) if exact else abs(s - f.stderr) <= BOOTSTRAP_TOLERANCE * max(s, f.stderr)
        if not ok:
            raise SitegenError(f"'{stated['stderr_key']}' says {s}, but the samples give {f.stderr}"
                               + ("" if exact else f" (a bootstrap: {RESAMPLES} resamples, seed {SEED})"),
                               src_path, f"$.results.{t.name}[\"{stated['stderr_key']}\"]")
    return f


def paired(b: Figures, c: Figures, shared: list[int]) -> tuple[float, list[float], str] | None:
    """The paired difference over the shared documents and its 95% interval, or None where it
    cannot be paired (a score not recomputed, or a text score not bootstrapped)."""
    if b.kind != c.kind or not (b.kind == "mean" or b.bootstrappable):
        return None
    ib = {d: i for i, d in enumerate(b.docs)}
    ic = {d: i for i, d in enumerate(c.docs)}
    xb = b.values[[ib[d] for d in shared]]
    xc = c.values[[ic[d] for d in shared]]
    if b.kind == "mean":
        d = xc - xb
        diff = float(d.mean())
        se = float(d.std(ddof=1) / math.sqrt(len(d))) if len(d) > 1 else 0.0
        return diff, [diff - Z95 * se, diff + Z95 * se], ("paired over documents: mean of the per-document differences "
                                                          "± 1.96 of their standard error")
    fn = PAIRED[b.kind][0]
    try:
        labels = np.union1d(b.labels, c.labels)  # both sides' labels coded alike
    except TypeError:
        return None
    xb, xc = label_codes(xb, labels), label_codes(xc, labels)
    codes = np.unique(np.concatenate([xb.ravel(), xc.ravel()]))
    idx = _boot_idx(len(shared))
    diff = float(fn(xc, codes) - fn(xb, codes))
    boot = np.sort(fn(xc[idx], codes) - fn(xb[idx], codes))
    low, high = np.quantile(boot, [0.025, 0.975], method="lower")
    return diff, [float(low), float(high)], (f"paired bootstrap over documents ({RESAMPLES} resamples, seed {SEED}), "
                                             "percentile interval")
