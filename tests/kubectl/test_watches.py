"""watches.py's pure part: a pipe's bytes cut into lines however the reads split them."""

from __future__ import annotations

import itertools

from hypothesis import given
from hypothesis import strategies as st

from kubectl_adapter.kubectl.watches import _Lines


@given(
    st.lists(st.binary(max_size=40).map(lambda b: b.replace(b"\n", b"")), max_size=8),
    st.lists(st.integers(min_value=0, max_value=400), max_size=10),
)
def test_lines_are_the_same_however_the_pipe_splits_them(
    lines: list[bytes], cuts: list[int]
) -> None:
    """A watch event is one line; kubectl's writes reach us in reads of any size."""
    data = b"".join(line + b"\n" for line in lines)
    bounds = sorted({0, len(data), *(min(cut, len(data)) for cut in cuts)})
    reader = _Lines()
    seen: list[bytes] = []
    for start, end in itertools.pairwise(bounds):
        seen.extend(reader.feed(data[start:end]))
    seen.extend(reader.feed(b""))  # the end of the pipe
    assert seen == lines


def test_a_last_line_without_its_newline_is_given_at_the_end_of_the_pipe() -> None:
    reader = _Lines()
    assert reader.feed(b'{"a": 1}\n{"b"') == [b'{"a": 1}']
    assert reader.feed(b": 2}") == []
    assert reader.feed(b"") == [b'{"b": 2}']
