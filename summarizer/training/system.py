"""The Lightning training system: oracle-target loss, optimizer and schedule, ROUGE evaluation."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, cast

import pytorch_lightning as pl
import torch
from pytorch_lightning.utilities.types import OptimizerLRSchedulerConfig
from torch import nn
from torchmetrics import MeanMetric
from transformers import get_scheduler

from summarizer.modeling.batch import Batch
from summarizer.modeling.modeling_bertsum import BertSumModel, is_lora
from summarizer.selection import SelectionConfig, select_sentences
from summarizer.training.datamodule import DocumentBatch
from summarizer.training.rouge import METRICS, rouge_per_document
from summarizer.training.settings import OptimConfig


class SummarizationSystem(pl.LightningModule):
    """Fine-tunes a `BertSumModel` on oracle targets and scores its selections with ROUGE.

    Logs train_loss, and val_loss and val_rouge1 / val_rouge2 / val_rougeLsum / val_rouge (their
    mean) per validation epoch. Test scores come from `summarizer.training.evaluate` on the exported model.
    """

    def __init__(
        self,
        model: BertSumModel,
        optim: OptimConfig,
        selection: SelectionConfig,
        seed: int = 0,
        model_settings: dict[str, Any] | None = None,
    ) -> None:
        """`model_settings`: the settings `model` was built from, kept in every checkpoint's
        hyperparameters so that resuming can compare against them."""
        super().__init__()
        hyperparameters = {"optim": asdict(optim), "selection": asdict(selection), "seed": seed}
        self.save_hyperparameters({**hyperparameters, "model": model_settings or {}})
        self.model = model.train()
        self.optim = optim
        self.selection = selection
        self.seed = seed
        self.criterion = nn.BCEWithLogitsLoss()
        scores = (*METRICS, "rouge")
        self.metrics = nn.ModuleDict({f"val_{name}": MeanMetric() for name in ("loss", *scores)})

    def loss(self, logits: torch.Tensor, batch: Batch) -> torch.Tensor:
        """Binary cross-entropy against the oracle targets (0/1, or soft) of real sentences only."""
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
        if batch.batch.sentence_mask.any():
            logits = self.model(batch.batch)
            self._update("val_loss", [self.loss(logits, batch.batch).item()], len(batch))
        else:  # only documents without a sentence long enough to score: empty summaries
            logits = torch.zeros_like(batch.batch.labels)
        predictions = self.summaries(batch, logits.float().cpu())
        scores = rouge_per_document(predictions, batch.references, self.model.config.language)
        for metric in METRICS:
            self._update(f"val_{metric}", scores[metric], len(batch))
        mean = [sum(values) / len(METRICS) for values in zip(*scores.values())]
        self._update("val_rouge", mean, len(batch), prog_bar=True)

    def _update(self, name: str, values: Sequence[float], batch_size: int, prog_bar: bool = False) -> None:
        metric = self.metrics[name]
        assert isinstance(metric, MeanMetric)  # every one of `self.metrics`
        metric.update(torch.tensor(values, dtype=torch.float32, device=self.device))
        self.log(name, metric, on_step=False, on_epoch=True, batch_size=batch_size, prog_bar=prog_bar)

    def summaries(self, batch: DocumentBatch, logits: torch.Tensor) -> list[list[str]]:
        """The sentences `selection` picks from each document by the model's scores."""
        out = []
        for row, (sentences, indices) in enumerate(zip(batch.sentences, batch.sentence_indices)):
            scores = logits[row, : len(indices)].tolist()
            chosen = select_sentences(sentences, indices, scores, self.selection, self.model.config.language)
            out.append([sentences[i] for i in chosen])
        return out

    def configure_optimizers(self) -> OptimizerLRSchedulerConfig:
        """AdamW (no decay on biases and norms) with warmup and decay over all optimizer steps."""
        cfg = self.optim
        groups: list[dict[str, Any]] = []
        encoder = list(self.model.encoder.named_parameters())
        parts = (
            ([p for name, p in encoder if not is_lora(name)], cfg.encoder_lr),
            ([p for name, p in encoder if is_lora(name)], cfg.lora_lr),
            (self.model.scratch_parameters(), cfg.head_lr),
        )
        for part, lr in parts:
            params = [p for p in part if p.requires_grad]
            for decay in (True, False):
                chosen = [p for p in params if (p.ndim >= 2) == decay]
                if chosen:
                    groups.append({"params": chosen, "lr": lr, "weight_decay": cfg.weight_decay if decay else 0.0})
        grouped = [id(p) for group in groups for p in group["params"]]
        trainable = {id(p) for p in self.model.parameters() if p.requires_grad}
        if len(grouped) != len(set(grouped)) or set(grouped) != trainable:
            raise RuntimeError("optimizer groups must hold every trainable parameter exactly once")
        # Lightning refuses to clip gradients of a fused optimizer under 16-mixed and bf16-mixed alike.
        mixed_clipping = "mixed" in str(self.trainer.precision) and bool(self.trainer.gradient_clip_val)
        fused = cfg.fused and self.device.type in ("cpu", "cuda") and not mixed_clipping
        betas = cast(tuple[float, float], tuple(cfg.betas))  # OptimConfig checks there are two
        optimizer = torch.optim.AdamW(groups, betas=betas, eps=cfg.eps, fused=fused or None)
        total = int(self.trainer.estimated_stepping_batches)
        warmup = cfg.warmup_steps if cfg.warmup_steps is not None else int(cfg.warmup_ratio * total)
        scheduler = get_scheduler(cfg.scheduler, optimizer, num_warmup_steps=warmup, num_training_steps=total)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}
