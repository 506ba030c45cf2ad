"""The split-reduction paths of the argmax and amin reference solutions (few long slices: stage 1 per chunk,
stage 2 over the chunks), on the values the spec tiers rarely put across chunk boundaries: NaN in a later
chunk, ties between chunks (first occurrence must win), all -inf and +inf slices."""

from __future__ import annotations

import torch

from tests.operators.solution_files import load_reference_solution


def _long_rows(dtype: torch.dtype) -> torch.Tensor:
    x = torch.randn(4, 20000, generator=torch.Generator().manual_seed(0)).to(dtype)
    x[0, [19000, 9000, 12000]] = 100.0  # tie across three chunks: index 9000 is the first
    x[1, [15000, 17000]] = float("nan")  # the first NaN wins argmax; amin is NaN
    x[1, 2] = 100.0
    x[2] = float("-inf")
    x[3] = float("inf")
    x[3, 16500] = 1.0
    return x


def _long_columns(dtype: torch.dtype) -> torch.Tensor:
    return _long_rows(dtype)[:, :3000].t().contiguous()  # (3000, 4): reduced over dim 0


def test_argmax_split_path_matches_torch() -> None:
    solution = load_reference_solution("aten__argmax")
    assert solution._split_rows(4, 20000, 1, *solution._block_shape(20000, 1))[0] > 1
    assert solution._split_rows(1, 3000, 4, *solution._block_shape(3000, 4))[0] > 1
    for dtype in (torch.float32, torch.bfloat16, torch.float64):
        rows, columns = _long_rows(dtype), _long_columns(dtype)
        columns[[700, 2500], 0] = 50.0
        columns[[2900, 2000], 1] = float("nan")
        assert torch.equal(solution.argmax(rows, -1), torch.argmax(rows, -1))
        assert torch.equal(solution.argmax(rows, 1, True), torch.argmax(rows, 1, True))
        assert torch.equal(solution.argmax(columns, 0), torch.argmax(columns, 0))


def test_amin_split_path_matches_torch() -> None:
    solution = load_reference_solution("aten__amin")
    assert solution._split_rows(4, 20000, 1, *solution._block_shape(20000, 1))[0] > 1
    assert solution._split_rows(1, 3000, 4, *solution._block_shape(3000, 4))[0] > 1
    for dtype in (torch.float32, torch.bfloat16):
        rows, columns = _long_rows(dtype), _long_columns(dtype)
        columns[2999, 0] = float("nan")
        out = torch.full((4,), 7.0, dtype=dtype)
        assert solution.amin_out(rows, [-1], False, out=out) is out
        for got, ref in (
            (out, torch.amin(rows, -1)),
            (solution.amin(columns, [0]), torch.amin(columns, 0)),
            (solution.amin(rows, [1], True), torch.amin(rows, 1, True)),
        ):
            assert got.shape == ref.shape
            assert torch.equal(got.isnan(), ref.isnan())
            assert torch.equal(got[~got.isnan()], ref[~ref.isnan()])
