"""Analyses of one module that passes share: questions, not rewrites.

Each takes the module's tree and a view of it (`_support.nodes.NodeView`: parents and
qualified names), so it needs no pass: a pass is a view, and so is the metadata of a tree
alone (`_support.metadata.PassMetadata`). A pass may import `analysis/` and `_support/`,
never another pass's modules.

- guards.py: code that already runs on rank 0 only, and dp2ddp's own guards;
- per_process.py: the per-process reads (clock, random, uuid, file-system state) a shared
  path comes from, asked of the flow view (dp2ddp/flow/);
- module_index.py + uniformity.py: which values are the same on every rank, and which
  places every rank reaches (where an inserted collective may go);
- per_rank.py: values a rank computes on its own, named as likely causes in warnings.
"""
