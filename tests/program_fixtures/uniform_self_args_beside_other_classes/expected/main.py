from _dp2ddp import ddp_setup
from model import Model
from option import args
from trainer import Trainer
from utility import Checkpoint

ddp_setup()


ckpt = Checkpoint(args)
model = Model(args)
trainer = Trainer(args, model, ckpt)
for epoch in range(args.epochs):
    trainer.train()
    trainer.test(epoch)
