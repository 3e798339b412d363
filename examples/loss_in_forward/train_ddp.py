"""A text classifier whose forward() returns the loss, in the style of the older Hugging Face
example scripts: `--per_gpu_train_batch_size` times n_gpu, RandomSampler, gradient
accumulation, a linear warm-up schedule and `loss.mean()` for DataParallel.

From "Pytorch Advanced Part-1 DataParallel": when forward() returns a scalar loss, each
DataParallel replica returns one, and the gathered result is a vector of n_gpu losses, so
the script must call `.mean()` before backward(). Under DDP each process has a scalar loss.
The "text" is synthetic: token ids where the label decides which half of the vocabulary is
drawn more often.
"""

import argparse
import logging
import os

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, SequentialSampler, TensorDataset
from torch.utils.data.distributed import DistributedSampler

from _dp2ddp import DEVICE, DEVICE_IDS, ddp_is_main, ddp_per_rank_batch, ddp_setup

logger = logging.getLogger(__name__)


class BagOfWordsClassifier(nn.Module):
    def __init__(self, vocab_size, hidden_size, num_labels):
        super().__init__()
        self.embeddings = nn.EmbeddingBag(vocab_size, hidden_size, mode="mean")
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(hidden_size, num_labels)

    def forward(self, input_ids, labels=None):
        logits = self.classifier(self.dropout(self.embeddings(input_ids)))
        if labels is None:
            return (logits,)
        loss = nn.functional.cross_entropy(logits, labels)
        return loss, logits


def make_dataset(num_examples, seq_len, vocab_size, seed):
    generator = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, 2, (num_examples,), generator=generator)
    half = vocab_size // 2
    ids = torch.randint(0, half, (num_examples, seq_len), generator=generator)
    biased = torch.rand(num_examples, seq_len, generator=generator) < 0.3
    ids = torch.where(biased & (labels[:, None] == 1), ids + half, ids)
    return TensorDataset(ids, labels)


def train(args, train_dataset, model):
    args.train_batch_size = args.per_gpu_train_batch_size * max(1, args.n_gpu)
    train_sampler = DistributedSampler(train_dataset, shuffle=True)
    train_dataloader = DataLoader(
        train_dataset, sampler=train_sampler, batch_size=ddp_per_rank_batch(args.train_batch_size)
    )
    t_total = len(train_dataloader) // args.gradient_accumulation_steps * args.num_train_epochs

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    warmup = max(1, int(0.1 * t_total))
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: min((step + 1) / warmup, max(0.0, (t_total - step) / t_total))
    )

    # multi-gpu training
    model = DistributedDataParallel(model.to(DEVICE), device_ids=DEVICE_IDS)

    logger.info("***** Running training *****")
    logger.info("  Num examples = %d", len(train_dataset))
    logger.info("  Total optimization steps = %d", t_total)

    global_step = 0
    tr_loss, logging_loss = 0.0, 0.0
    model.zero_grad()
    for epoch in range(args.num_train_epochs):
        train_dataloader.sampler.set_epoch(epoch)
        for step, batch in enumerate(train_dataloader):
            model.train()
            batch = tuple(t.to(args.device) for t in batch)
            outputs = model(batch[0], labels=batch[1])
            loss = outputs[0]  # model outputs are always tuple

            if args.n_gpu > 1:
                loss = loss.mean()  # mean() to average on multi-gpu parallel training
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps

            loss.backward()
            tr_loss += loss.item()
            if (step + 1) % args.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                model.zero_grad()
                global_step += 1

                if args.logging_steps > 0 and global_step % args.logging_steps == 0:
                    # dp2ddp: DP030 running figure printed from this rank's shard
                    logger.info(
                        "step %d: loss %.4f lr %.6f",
                        global_step,
                        (tr_loss - logging_loss) / args.logging_steps,
                        scheduler.get_last_lr()[0],
                    )
                    logging_loss = tr_loss
        logger.info("epoch %d done", epoch)

    # dp2ddp: DP030 running figure printed from this rank's shard
    return global_step, tr_loss / global_step, model


def evaluate(args, model, eval_dataset):
    eval_dataloader = DataLoader(
        eval_dataset, sampler=SequentialSampler(eval_dataset), batch_size=args.eval_batch_size
    )
    model.eval()
    preds, out_label_ids = [], []
    # dp2ddp: DP015 evaluation metrics not reduced
    for input_ids, labels in eval_dataloader:
        with torch.no_grad():
            logits = model(input_ids.to(args.device))[0]
        preds.append(logits.argmax(dim=-1).cpu())
        out_label_ids.append(labels)
    preds, out_label_ids = torch.cat(preds), torch.cat(out_label_ids)
    return (preds == out_label_ids).float().mean().item()


def main():
    ddp_setup()
    parser = argparse.ArgumentParser()
    parser.add_argument("--output_dir", default="output", type=str)
    parser.add_argument("--per_gpu_train_batch_size", default=16, type=int)
    parser.add_argument("--eval_batch_size", default=64, type=int)
    parser.add_argument("--gradient_accumulation_steps", type=int, default=2)
    parser.add_argument("--learning_rate", default=5e-3, type=float)
    parser.add_argument("--max_grad_norm", default=1.0, type=float)
    parser.add_argument("--num_train_epochs", default=3, type=int)
    parser.add_argument("--logging_steps", type=int, default=8)
    parser.add_argument("--seed", type=int, default=42)
    args = parser.parse_args()

    args.device = DEVICE
    args.n_gpu = torch.cuda.device_count()
    logging.basicConfig(
        format="%(levelname)s - %(name)s - %(message)s", level=logging.INFO
    )
    if ddp_is_main():
        logger.warning("device: %s, n_gpu: %s", args.device, args.n_gpu)
    torch.manual_seed(args.seed)

    vocab_size = 200
    model = BagOfWordsClassifier(vocab_size, hidden_size=32, num_labels=2)
    model.to(args.device)

    train_dataset = make_dataset(512, 24, vocab_size, seed=args.seed)
    eval_dataset = make_dataset(256, 24, vocab_size, seed=args.seed + 1)

    global_step, tr_loss, model = train(args, train_dataset, model)
    logger.info(" global_step = %s, average loss = %s", global_step, tr_loss)

    os.makedirs(args.output_dir, exist_ok=True)
    model_to_save = model.module if hasattr(model, "module") else model
    if ddp_is_main():
        torch.save(model_to_save.state_dict(), os.path.join(args.output_dir, "pytorch_model.bin"))
        torch.save(args, os.path.join(args.output_dir, "training_args.bin"))

    accuracy = evaluate(args, model, eval_dataset)
    if ddp_is_main():
        print(f"eval accuracy {accuracy:.3f}")
        print(f"final loss {tr_loss:.4f}")


if __name__ == "__main__":
    main()
