"""The data pass's rewrites of single reads: a size read per rank, a figure gathered.

The plans (chunks.py, size_guards.py, batch_shapes.py, handed_sizes.py: `ChunkPlan.swaps`;
sample_grids.py: `_gathers`) name the nodes; here each is replaced as the pass leaves it: a
name or an attribute (`B` -> `ddp_per_rank_batch(B)`), and an integer literal handed as the
loader's global batch size (`sample(batch_size=4, img=og)` beside that loader's batch:
handed_sizes.py, stop 52 s2).
"""

from __future__ import annotations

import libcst as cst

from dp2ddp.transforms.analysis.chunk_sizes import ChunkPlan


class SizeSwaps:
    """The leave hooks of the data pass that swap the planned nodes (a mixin of the pass)."""

    _chunk_sizes: ChunkPlan
    _gathers: dict[cst.Name, cst.BaseExpression]

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        gathered = self._gathers.get(original_node)  # sample_grids.py
        return gathered or self._chunk_sizes.swaps.get(original_node, updated_node)

    def leave_Attribute(
        self, original_node: cst.Attribute, updated_node: cst.Attribute
    ) -> cst.BaseExpression:
        return self._chunk_sizes.swaps.get(original_node, updated_node)

    def leave_Integer(
        self, original_node: cst.Integer, updated_node: cst.Integer
    ) -> cst.BaseExpression:
        return self._chunk_sizes.swaps.get(original_node, updated_node)

    def leave_Comparison(
        self, original_node: cst.Comparison, updated_node: cst.Comparison
    ) -> cst.BaseExpression:
        """A comparison of a batch's size with 1 read over the global batch (size_guards)."""
        return self._chunk_sizes.swaps.get(original_node, updated_node)
