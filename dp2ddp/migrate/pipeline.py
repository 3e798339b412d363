"""The fixed order in which transforms run. Each one is a module of `dp2ddp.transforms`."""

from __future__ import annotations

from dp2ddp.transforms._support.base import MigrationTransform
from dp2ddp.transforms.batches import ShardBatches
from dp2ddp.transforms.data import ShardDataLoaders
from dp2ddp.transforms.detect import DetectDataParallel
from dp2ddp.transforms.devices import PinDevices
from dp2ddp.transforms.gradient_penalty import RoutePenaltyAroundDDP
from dp2ddp.transforms.hazards import FlagHazards
from dp2ddp.transforms.model_wrap import WrapModelInDDP
from dp2ddp.transforms.process_group import InsertProcessGroup
from dp2ddp.transforms.rank_zero import RankZeroOnly
from dp2ddp.transforms.shared_draws import ShareDatasetDraws

#: Analysis first (positions are still the user's), then rewrites, then the setup block
#: (which needs to know which helpers the rewrites used).
PIPELINE: tuple[type[MigrationTransform], ...] = (
    DetectDataParallel,
    FlagHazards,
    WrapModelInDDP,
    RoutePenaltyAroundDDP,
    PinDevices,
    ShardDataLoaders,
    ShareDatasetDraws,
    ShardBatches,
    RankZeroOnly,
    InsertProcessGroup,
)

#: What still runs on a file whose only DataParallel uses are isinstance checks and that
#: no open program gate reaches (MigrationState.checks_only): the checks follow the new
#: wrapper, and nothing else of a DDP program is added.
CHECKS_ONLY: frozenset[type[MigrationTransform]] = frozenset({DetectDataParallel, WrapModelInDDP})
