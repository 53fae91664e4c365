"""frames.records builds the frame pandas builds from the flattened records (DataFrame(rows)):
the same columns in order of first appearance, the same dtypes, the same values."""
from __future__ import annotations

import random

import pandas as pd
import pytest

from site_gen.analysis.frames import field, frame, from_rows, of_rows, records


def _flat(record: dict, prefix: str = "") -> dict:
    out: dict = {}
    for key, value in record.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}_"))
        else:
            out[f"{prefix}{key}"] = value
    return out


def _pandas(items: list[dict], path: str) -> pd.DataFrame:
    rows = [{**_flat(item), "source": f"{path}[{i}]"} for i, item in enumerate(items)]
    return pd.DataFrame(rows)


VALUES = [0, 1, -7, 2 ** 62, 2 ** 63, -(2 ** 63), 1.5, float("nan"), True, False, None, "a", "b", "", "café",
          "日本語", "\ud800"]


@pytest.mark.parametrize("seed", range(40))
def test_records_frame_is_pandas_frame(seed):
    rnd = random.Random(seed)
    names = ["n", "x", "kind", "flag", "nested"]
    kinds = {name: rnd.sample(VALUES, rnd.randint(1, 3)) for name in names}
    items = []
    for _ in range(rnd.randint(1, 12)):
        item: dict = {}
        for name in rnd.sample(names, len(names)) if rnd.random() < 0.3 else names:
            if rnd.random() < (0.2 if seed % 2 else 0.0):
                continue  # a record without this field (every other seed: all records whole)
            if name == "nested":
                item[name] = {"a": rnd.choice(kinds["n"]), "b": {"c": rnd.choice(kinds["kind"])}}
            else:
                item[name] = rnd.choice(kinds[name])
        items.append(item)
    pd.testing.assert_frame_equal(records(items, "$.part.rows"), _pandas(items, "$.part.rows"))


def test_a_record_holding_a_dict_subclass_is_flattened():
    class Ordered(dict):
        pass

    items = [{"a": 1, "b": Ordered(c=2)}, {"a": 3, "b": Ordered(c=4)}]
    pd.testing.assert_frame_equal(records(items, "$.r"), _pandas(items, "$.r"))


TEXTS = [["a", "b"], ["é"], ["日本語", "", "x y"], ["\ud800", "a"], ["a", None], ["a", float("nan")], ["a", 1],
         ["1", "2.5"], [], ["a", "b", "a"]]


@pytest.mark.parametrize("values", TEXTS)
def test_a_column_of_text_is_the_column_pandas_infers(values):
    """`frame` gives a column of text pandas' own dtype (`str` in pandas 3) without its inference."""
    data = {"text": values, "n": list(range(len(values)))}
    got, want = frame(data), pd.DataFrame(data)
    pd.testing.assert_frame_equal(got, want)
    assert [str(t) for t in got.dtypes] == [str(t) for t in want.dtypes]
    assert type(got["text"].array) is type(want["text"].array)


def _series_columns(n: int) -> dict:
    rng = random.Random(n)
    return {
        "object_text": pd.Series([rng.choice(["a", "é", "日本"]) for _ in range(n)], dtype=object),
        "text": pd.Series([rng.choice(["x", "ü"]) for _ in range(n)]),
        "float": pd.Series([rng.choice([1.5, float("nan")]) for _ in range(n)]),
        "int": pd.Series(list(range(n))),
        "bool": pd.Series([rng.random() < 0.5 for _ in range(n)]),
        "nullable": pd.Series([rng.choice([1, None]) for _ in range(n)], dtype="Int64"),
        "category": pd.Series([rng.choice(["p", "q"]) for _ in range(n)], dtype="category"),
        "when": pd.Series(pd.to_datetime(["2026-01-01"] * n)),
        "mixed": pd.Series([rng.choice([None, "s", 1]) for _ in range(n)], dtype=object),
        "list": [rng.choice(["l", "m"]) for _ in range(n)],
        "numbers": [float(i) for i in range(n)],
    }


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_a_frame_of_series_on_the_default_index_is_pandas_frame(n):
    """`frame` takes a Series on the default index as it is (its dtype kept, its values copied)."""
    data = _series_columns(n)
    got = frame(dict(data))
    pd.testing.assert_frame_equal(got, pd.DataFrame(data))
    if n:  # the frame's values are its own (a lone column too: no block of several to copy into)
        for alone in (got, frame({"float": data["float"]})):
            alone.loc[0, "float"] = 99.0
            assert data["float"].iloc[0] != 99.0


@pytest.mark.parametrize("index", [pd.RangeIndex(1, 4), pd.Index([2, 0, 1]), pd.RangeIndex(3, name="i")])
def test_a_series_on_another_index_is_aligned_as_pandas_aligns_it(index):
    data = {"s": pd.Series(["a", "b", "c"], index=index), "t": pd.Series([1.0, 2.0, 3.0], index=index)}
    pd.testing.assert_frame_equal(frame(dict(data)), pd.DataFrame(data))
    data = {"s": pd.Series(["a", "b", "c"], index=index), "n": pd.Series([1, 2, 3])}
    pd.testing.assert_frame_equal(frame(dict(data)), pd.DataFrame(data))


class _Sub(dict):
    pass


UNIFORM = [
    [{"a": 1, "b": {"c": 2.5, "d": "é"}}, {"a": 2, "b": {"c": None, "d": "日本"}}],   # the shape of a speed cell
    [{"a": 1}],                                                                          # one record
    [{"a_b": 1, "a": {"b": 2}}, {"a_b": 3, "a": {"b": 4}}],                              # a name flattened twice
    [{"source": "mine", "x": 1}, {"source": "yours", "x": 2}],                           # a field named source
    [{"a": {}, "b": 1}, {"a": {}, "b": 2}],                                              # empty objects
    [{"a": _Sub(c=1)}, {"a": {"c": 2}}],                                                 # a dict subclass beside dicts
    [{"a": {"b": {"c": {"d": 1}}}}, {"a": {"b": {"c": {"d": 2}}}}],                       # deep
    [{"a": [1, 2], "b": {"c": [3]}}, {"a": [], "b": {"c": []}}],                          # lists stay values
    [{"a": 1, "b": 2}, {"b": 2, "a": 1}],                                                # keys in another order
    [{"a": 1, "b": {"c": 1}}, {"a": 1, "b": None}],                                      # an object or not
    [{"a": 1, "b": {"c": 1}}, {"a": 1, "b": {"d": 1}}],                                  # objects of two shapes
    [{"a": 1}, {"a": 1, "b": 2}],                                                        # a field left out
    [{"a": float("nan"), "b": {"c": True}}, {"a": 1, "b": {"c": False}}],
]


@pytest.mark.parametrize("items", UNIFORM)
def test_records_of_one_shape_flatten_as_record_by_record(items):
    pd.testing.assert_frame_equal(records(items, "$.r", ["a", "extra"]), _pandas_with(items, "$.r", ["a", "extra"]))
    pd.testing.assert_frame_equal(records(iter(items), "$.r"), _pandas(items, "$.r"))


def _pandas_with(items: list[dict], path: str, columns: list[str]) -> pd.DataFrame:
    out = _pandas(items, path)
    for column in columns:
        if column not in out:
            out[column] = pd.Series([float("nan")] * len(out), dtype=object)
    return out


@pytest.mark.parametrize("items", [[], [{"a": 1}], [{"a": 1}, {"b": 2}, {"a": None}], [{"b": 1}, {"a": "é"}],
                                   [{"a": float("nan")}, {"a": [1]}, {"a": {"x": 1}}]])
def test_a_field_of_records_is_each_records_value_or_none(items):
    got = field(items, "a")
    assert len(got) == len(items)
    assert all(g is item.get("a") for g, item in zip(got, items))


ROW_VALUES = [0, 1, -7, 2 ** 63, 1.5, float("nan"), True, False, None, "a", "é", "", [1, 2], {"x": 1}]


@pytest.mark.parametrize("seed", range(60))
def test_from_rows_is_pandas_frame_of_rows(seed):
    rnd = random.Random(seed)
    columns = rnd.sample(["a", "b", "c", "d"], rnd.randint(1, 4))
    kinds = {c: rnd.sample(ROW_VALUES, rnd.randint(1, 3)) for c in "abcde"}
    rows = []
    for _ in range(rnd.randint(1, 8)):
        names = [c for c in "abcde" if rnd.random() < (0.9 if seed % 3 else 1.0)]  # a row may lack a column
        rows.append({c: rnd.choice(kinds[c]) for c in rnd.sample(names, len(names))})
    if seed % 5 == 0:
        rows = [[row.get(c) for c in columns] for row in rows]  # rows as sequences
    pd.testing.assert_frame_equal(from_rows(rows, columns), pd.DataFrame(rows, columns=columns))


@pytest.mark.parametrize("seed", range(40))
def test_of_rows_is_pandas_frame_of_rows(seed):
    rnd = random.Random(seed)
    kinds = {c: rnd.sample(ROW_VALUES, rnd.randint(1, 3)) for c in "abcd"}
    rows = []
    for _ in range(rnd.randint(0, 6)):
        names = [c for c in "abcd" if rnd.random() < (0.8 if seed % 2 else 1.0)]
        rows.append({c: rnd.choice(kinds[c]) for c in (rnd.sample(names, len(names)) if seed % 4 == 1 else names)})
    pd.testing.assert_frame_equal(of_rows(rows), pd.DataFrame(rows))


@pytest.mark.parametrize("rows", [[{}], [{}, {}], [{}, {"a": 1}], [{"a": 1}, {}]])
def test_empty_rows_count_as_pandas_counts_them(rows):
    pd.testing.assert_frame_equal(of_rows(rows), pd.DataFrame(rows))
    pd.testing.assert_frame_equal(from_rows(rows, []), pd.DataFrame(rows, columns=[]))
