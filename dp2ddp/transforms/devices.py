"""Resolve cuda devices to this process's DEVICE."""

from __future__ import annotations

from dp2ddp.transforms.base import MigrationTransform


class PinDevices(MigrationTransform):
    NAME = "devices"
    DESCRIPTION = "Resolve cuda devices to this process's DEVICE."
