from common import *
from nets import *

model = build()
loader = loader_for(make_data(), 16)
for epoch in range(2):
    for x, y in loader:
        step(model, x, y)
    report(epoch)
