"""rmtree_makedirs's race in a script with no main(): ddp_setup() runs after the imports,
so the removal at module level is waited for there too (issue 29; ermongroup/ncsn@7f27f4a's
class). Launched with `logs` made before (holding `stale.txt`); the rank named by
E2E_SLOW_RANK starts 1.1 s late.
"""

import os
import shutil
import time

import torch.nn as nn

if os.environ.get("RANK", "0") == os.environ.get("E2E_SLOW_RANK"):
    time.sleep(1.1)
model = nn.DataParallel(nn.Linear(4, 2))
log = "logs"
if os.path.exists(log):
    shutil.rmtree(log)
os.makedirs(log)
stale = os.path.exists(os.path.join(log, "stale.txt"))
rank = os.environ.get("RANK", "0")
with open(os.path.join(log, f"rank{rank}.txt"), "w") as f:
    f.write(f"stale={stale}")
print("stale:", stale)
