"""verify's DistributedSampler alignment: an epoch value draws the original's order of the pass
it was first set at.

Round 36, wvinzh/WS_DAN_PyTorch@cbf7ff5: the training loader is passed twice each epoch
(training, then evaluating on the training set) after `set_epoch(epoch)`. The original's
RandomSampler drew a new order for each pass; the migrated sampler was aligned by epoch, so
the second epoch's training pass took the first evaluation's order and verify said NOT
EQUIVALENT, "DistributedSampler.set_epoch not called". Run in a child process: the patches
change torch's classes."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

_SCRIPT = textwrap.dedent(
    """
    import json, types
    import torch
    from torch.utils.data.distributed import DistributedSampler
    from dp2ddp.verify import alignment

    recorder = types.SimpleNamespace(samplers=[], current=types.SimpleNamespace(index=0))
    alignment._patch_distributed_sampler(recorder, 7)
    data = list(range(10))
    orders = {}
    set_each = DistributedSampler(data, num_replicas=1, rank=0, shuffle=True)
    passes = []
    for epoch in range(2):
        set_each.set_epoch(epoch)
        passes += [list(set_each), list(set_each)]  # train, then evaluate on it
    orders["set"] = passes
    never = DistributedSampler(data, num_replicas=1, rank=0, shuffle=True)
    orders["never"] = [list(never), list(never)]
    orders["expected"] = [alignment.epoch_order(7, k, 10) for k in range(4)]
    print(json.dumps(orders))
    """
)


def test_an_epoch_draws_the_originals_order_of_the_pass_it_begins() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True
    )
    orders = json.loads(done.stdout.strip().splitlines()[-1])
    expected = orders["expected"]
    # each epoch's training pass the original's (passes 0 and 2); the evaluating pass after
    # it repeats its epoch's order, as DistributedSampler does
    assert orders["set"] == [expected[0], expected[0], expected[2], expected[2]]
    # no set_epoch ever: every pass repeats epoch 0's order (what verify names a defect)
    assert orders["never"] == [orders["expected"][0]] * 2
