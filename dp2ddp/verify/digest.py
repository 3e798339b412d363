"""Short content hashes of tensors and of each sample of a batch (inside the user's processes)."""

from __future__ import annotations

import hashlib

import torch


def _row_bytes(rows: torch.Tensor) -> list[bytes]:
    """Bytes of each row of a 2-D uint8 CPU tensor."""
    try:
        array = rows.numpy()
    except (RuntimeError, TypeError):  # torch built without numpy
        return [bytes(row.tolist()) for row in rows]
    return [row.tobytes() for row in array]


def _as_bytes_rows(t: torch.Tensor, rows: int) -> torch.Tensor:
    flat = t.detach().reshape(rows, -1).contiguous()
    if flat.stride(-1) != 1:
        # One value per row (a transposed batch of one): "contiguous" whatever its stride,
        # which view(uint8) refuses (ShichenLiu/CondenseNet's measure_model, batch 1).
        flat = flat.clone(memory_format=torch.contiguous_format)
    if flat.device.type != "cpu":
        flat = flat.cpu()
    if flat.is_conj():
        flat = flat.resolve_conj()
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return flat.view(torch.uint8).reshape(rows, -1)


def sample_digests(t: torch.Tensor) -> list[str]:
    """One hash per sample (index along dim 0); the dtype and sample shape are part of it."""
    if t.dim() == 0:
        return [tensor_digest(t)]
    rows = t.shape[0]
    if rows == 0:
        return []
    tag = f"{t.dtype}{tuple(t.shape[1:])}".encode()
    return [
        hashlib.blake2b(tag + raw, digest_size=8).hexdigest()
        for raw in _row_bytes(_as_bytes_rows(t, rows))
    ]


def tensor_digest(t: torch.Tensor) -> str:
    """Hash of a whole tensor's values, dtype and shape (bitwise: for replicas in sync)."""
    tag = f"{t.dtype}{tuple(t.shape)}".encode()
    raw = b"".join(_row_bytes(_as_bytes_rows(t.reshape(1, -1), 1))) if t.numel() else b""
    return hashlib.blake2b(tag + raw, digest_size=12).hexdigest()


def float64_bytes(t: torch.Tensor) -> bytes:
    """A tensor's values as raw float64 (native byte order), flattened: what the harness
    reads back without torch (see arrays.py). Exact for every real floating dtype."""
    if not t.numel():
        return b""
    values = t.detach().to(device="cpu", dtype=torch.float64).reshape(1, -1)
    return _row_bytes(_as_bytes_rows(values, 1))[0]
