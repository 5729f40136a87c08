"""The per-process memo of model results: each distinct input reaches the model once, bounded."""

from properties.scorers.runtime.memo import Memo


def test_each_distinct_key_is_computed_once_in_order():
    calls = []
    memo: Memo[str] = Memo(capacity=10)

    def run(keys):
        def compute(missing):
            calls.append([keys[i] for i in missing])
            return [keys[i].upper() for i in missing]

        return memo.compute(keys, compute)

    assert run(["a", "b", "a"]) == ["A", "B", "A"]
    assert run(["b", "c"]) == ["B", "C"]
    assert calls == [["a", "b"], ["c"]]
    assert (memo.hits, memo.misses) == (2, 3)


def test_least_recently_used_entries_go_first():
    memo: Memo[int] = Memo(capacity=2)
    memo.compute(["a", "b"], lambda missing: [1, 2])
    memo.compute(["a"], lambda missing: [0])  # a is now the most recent
    memo.compute(["c"], lambda missing: [3])  # b goes
    seen = []
    memo.compute(["a", "b"], lambda missing: seen.extend(missing) or [9] * len(missing))
    assert seen == [1]


def test_nothing_missing_runs_nothing():
    memo: Memo[int] = Memo(capacity=2)
    memo.compute(["a"], lambda missing: [1])
    assert memo.compute(["a", "a"], lambda missing: 1 / 0) == [1, 1]
