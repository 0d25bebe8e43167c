"""The Lightning training system: oracle-label loss, optimizer and schedule, ROUGE evaluation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

import pytorch_lightning as pl
import torch
from torch import nn
from torchmetrics import MeanMetric
from transformers import get_scheduler

from summarizer.batch import Batch
from summarizer.config import OptimConfig
from summarizer.datamodule import DocumentBatch
from summarizer.model import ExtractiveSummarizer
from summarizer.rouge import METRICS, rouge_per_document
from summarizer.selection import SelectionConfig, select_sentences

# Test summaries scored beside the model's: the first sentences, and the oracle labels.
BASELINES = ("lead", "oracle")


class SummarizationSystem(pl.LightningModule):
    """Fine-tunes an `ExtractiveSummarizer` on oracle labels and scores its selections with ROUGE.

    Logs train_loss; val_loss and val_rouge1 / val_rouge2 / val_rougeLsum / val_rouge (their
    mean) per validation epoch; the same under test_ plus test_lead_* and test_oracle_*.
    """

    def __init__(
        self, model: ExtractiveSummarizer, optim: OptimConfig, selection: SelectionConfig, seed: int = 0
    ) -> None:
        super().__init__()
        self.save_hyperparameters({"optim": asdict(optim), "selection": asdict(selection), "seed": seed})
        self.model = model.train()
        self.optim = optim
        self.selection = selection
        self.seed = seed
        self.criterion = nn.BCEWithLogitsLoss()
        scores = (*METRICS, "rouge")
        names = [f"{stage}_{name}" for stage in ("val", "test") for name in ("loss", *scores)]
        names += [f"test_{baseline}_{name}" for baseline in BASELINES for name in scores]
        self.metrics = nn.ModuleDict({name: MeanMetric() for name in names})

    def loss(self, logits: torch.Tensor, batch: Batch) -> torch.Tensor:
        """Binary cross-entropy against the oracle labels of real sentences only."""
        mask = batch.sentence_mask
        return self.criterion(logits[mask].float(), batch.labels[mask])

    def on_train_batch_start(self, batch: DocumentBatch, batch_idx: int) -> None:
        # Dropout masks depend only on the batch's place in training, so a resumed run repeats them.
        torch.manual_seed(hash((self.seed, self.current_epoch, batch_idx, self.global_rank)))

    def training_step(self, batch: DocumentBatch, batch_idx: int) -> torch.Tensor:
        loss = self.loss(self.model(batch.batch), batch.batch)
        self.log("train_loss", loss, prog_bar=True, batch_size=len(batch))
        return loss

    def validation_step(self, batch: DocumentBatch, batch_idx: int) -> None:
        self._evaluate(batch, "val")

    def test_step(self, batch: DocumentBatch, batch_idx: int) -> None:
        self._evaluate(batch, "test")

    def _evaluate(self, batch: DocumentBatch, stage: str) -> None:
        if batch.batch.sentence_mask.any():
            logits = self.model(batch.batch)
            self._update(f"{stage}_loss", [self.loss(logits, batch.batch).item()], len(batch))
        else:  # only documents without a sentence long enough to score: empty summaries
            logits = torch.zeros_like(batch.batch.labels)
        summaries = {"": self.summaries(batch, logits.float().cpu())}
        if stage == "test":
            summaries.update({f"{b}_": self.baseline_summaries(batch, b) for b in BASELINES})
        for prefix, predictions in summaries.items():
            scores = rouge_per_document(predictions, batch.references)
            for metric in METRICS:
                self._update(f"{stage}_{prefix}{metric}", scores[metric], len(batch))
            mean = [sum(values) / len(METRICS) for values in zip(*scores.values())]
            self._update(f"{stage}_{prefix}rouge", mean, len(batch), prog_bar=not prefix)

    def _update(self, name: str, values: Sequence[float], batch_size: int, prog_bar: bool = False) -> None:
        metric = self.metrics[name]
        metric.update(torch.tensor(values, dtype=torch.float32, device=self.device))
        self.log(name, metric, on_step=False, on_epoch=True, batch_size=batch_size, prog_bar=prog_bar)

    def summaries(self, batch: DocumentBatch, logits: torch.Tensor) -> list[list[str]]:
        """The sentences `selection` picks from each document by the model's scores."""
        out = []
        for row, (sentences, indices) in enumerate(zip(batch.sentences, batch.sentence_indices)):
            chosen = select_sentences(sentences, indices, logits[row, : len(indices)].tolist(), self.selection)
            out.append([sentences[i] for i in chosen])
        return out

    def baseline_summaries(self, batch: DocumentBatch, baseline: str) -> list[list[str]]:
        """Lead (the first sentences, as many as `selection` allows) or the oracle labels."""
        if baseline == "oracle":
            labels = batch.batch.labels.cpu()
            return [
                [sentences[i] for j, i in enumerate(indices) if labels[row, j] > 0]
                for row, (sentences, indices) in enumerate(zip(batch.sentences, batch.sentence_indices))
            ]
        lead = replace(self.selection, trigram_blocking=False, order="document")
        out = []
        for sentences in batch.sentences:
            positions = range(len(sentences))
            chosen = select_sentences(sentences, positions, [-float(i) for i in positions], lead)
            out.append([sentences[i] for i in chosen])
        return out

    def configure_optimizers(self) -> dict[str, Any]:
        """AdamW (no decay on biases and norms) with warmup and decay over all optimizer steps."""
        cfg = self.optim
        groups = []
        for module, lr in ((self.model.encoder, cfg.encoder_lr), (self.model.head, cfg.head_lr)):
            params = [p for p in module.parameters() if p.requires_grad]
            for decay in (True, False):
                chosen = [p for p in params if (p.ndim >= 2) == decay]
                if chosen:
                    groups.append({"params": chosen, "lr": lr, "weight_decay": cfg.weight_decay if decay else 0.0})
        # Lightning cannot clip gradients under mixed precision when the optimizer unscales them.
        mixed_clipping = "mixed" in str(self.trainer.precision) and bool(self.trainer.gradient_clip_val)
        fused = cfg.fused and self.device.type in ("cpu", "cuda") and not mixed_clipping
        optimizer = torch.optim.AdamW(groups, betas=tuple(cfg.betas), eps=cfg.eps, fused=fused or None)
        total = int(self.trainer.estimated_stepping_batches)
        warmup = cfg.warmup_steps if cfg.warmup_steps is not None else int(cfg.warmup_ratio * total)
        scheduler = get_scheduler(cfg.scheduler, optimizer, num_warmup_steps=warmup, num_training_steps=total)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
