"""The encoder's attention, traced for ONNX as ONNX Runtime's fused `MultiHeadAttention`.

Exported as written (eager products), each layer's attention is some eight nodes (two products,
the scale, the mask, the softmax, transposes) that ONNX Runtime runs one by one. Encoders whose
attention goes through transformers' attention interface (BERT and its kin) are traced instead
with `ATTENTION`, registered here: it hands the projected queries, keys and values to the custom
op `bertsum::attention`, which the exporter writes as ONNX Runtime's
`com.microsoft.MultiHeadAttention` (`TRANSLATIONS`). Other encoders (MPNet, whose attention adds
a relative-position bias of its own), and attention that is not over every token of a window
(sliding windows, causal masks: `UnfusableAttention` as it is traced), are traced eagerly.

ONNX Runtime runs that kernel tiled (flash attention) on the CPU only without a mask, so the
padding mask of the keys goes in as one more dimension of every head instead: each query gains a
1, each key a 0 where it is a token and `PADDING / scale` where it is padding. A token's scores
are then exactly what they were, a padding key's `PADDING` less, which the softmax weighs as 0,
as the mask would (docs/benchmarks.md, ONNX Runtime: about a quarter less time in attention).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import onnx
import onnxscript
import torch
from transformers import AttentionInterface
from transformers.masking_utils import AttentionMaskInterface, bidirectional_mask_function

ATTENTION = "bertsum_onnx"  # the attention implementation `use_fused_attention` sets
PADDING = -10000.0  # what a padding key adds to its scores (ONNX Runtime's own mask value)
FUSED_OP = "MultiHeadAttention"


class UnfusableAttention(ValueError):
    """The encoder's attention is not what `attention` computes: the export traces it eagerly."""


@torch.library.custom_op("bertsum::attention", mutates_args=())
def attention(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, heads: int, scale: float) -> torch.Tensor:
    """Scaled dot-product attention of `query` [batch, queries, heads * size] over `key`
    [batch, keys, heads * size] and `value` [batch, keys, heads * value size]: [batch, queries,
    heads * value size], as ONNX Runtime's MultiHeadAttention computes it."""
    batch, queries, _ = query.shape

    def split(x: torch.Tensor) -> torch.Tensor:  # [batch, heads, length, size]
        return x.view(batch, x.shape[1], heads, x.shape[2] // heads).transpose(1, 2)

    out = torch.nn.functional.scaled_dot_product_attention(split(query), split(key), split(value), scale=scale)
    return out.transpose(1, 2).reshape(batch, queries, value.shape[2])


@attention.register_fake
def _(query: torch.Tensor, key: torch.Tensor, value: torch.Tensor, heads: int, scale: float) -> torch.Tensor:
    return query.new_empty(query.shape[0], query.shape[1], value.shape[2])


def _schema() -> onnx.defs.OpSchema:
    """The part of MultiHeadAttention's signature (ONNX Runtime's contrib ops, domain
    com.microsoft) the graph uses: query, key and value, the number of heads and the scale."""
    schema, parameter = onnx.defs.OpSchema, onnx.defs.OpSchema.FormalParameter
    return schema(
        FUSED_OP,
        "com.microsoft",
        1,
        inputs=[parameter("query", "T"), parameter("key", "T"), parameter("value", "T")],
        outputs=[parameter("output", "T")],
        type_constraints=[("T", ["tensor(float)"], "")],
        attributes=[
            schema.Attribute("num_heads", schema.AttrType.INT, ""),
            schema.Attribute("scale", schema.AttrType.FLOAT, ""),
        ],
    )


_MULTI_HEAD_ATTENTION = onnxscript.values.Op(onnxscript.values.Opset("com.microsoft", 1), FUSED_OP, _schema())


def _attention_onnx(query: Any, key: Any, value: Any, heads: int, scale: float) -> Any:
    return _MULTI_HEAD_ATTENTION(query, key, value, num_heads=heads, scale=scale)


# `torch.onnx.export(..., custom_translation_table=TRANSLATIONS)`
TRANSLATIONS: dict[Callable[..., Any], Callable[..., Any]] = {torch.ops.bertsum.attention.default: _attention_onnx}


def _fused(
    module: torch.nn.Module,
    query: torch.Tensor,
    key: torch.Tensor,
    value: torch.Tensor,
    attention_mask: torch.Tensor | None,
    scaling: float | None = None,
    dropout: float = 0.0,
    **kwargs: object,
) -> tuple[torch.Tensor, None]:
    """transformers' attention interface over `attention`: [batch, heads, length, head dim] in,
    [batch, length, heads, head dim] out; `attention_mask` as `_key_padding_mask` made it, the
    padding mask as one more dimension of each head (above)."""
    batch, heads, queries, size = query.shape
    keys = key.shape[2]
    if getattr(module, "is_causal", False) or kwargs.get("is_causal") or kwargs.get("sliding_window"):
        raise UnfusableAttention("the fused attention reads every token of a window")
    if attention_mask is None:
        attention_mask = torch.ones(batch, keys, dtype=torch.bool, device=query.device)
    elif attention_mask.shape != (batch, keys):  # an encoder that made its mask otherwise
        raise UnfusableAttention(f"the fused attention takes a [batch, keys] padding mask, not {attention_mask.shape}")
    scale = float(scaling) if scaling is not None else size**-0.5
    # Laid out [batch, length, heads, size] first: that transposition undoes the encoder's own.
    query, key, value = (x.transpose(1, 2) for x in (query, key, value))
    ones = query.new_ones(batch, queries, heads, 1)
    penalty = (~attention_mask.bool()).to(key.dtype) * (PADDING / scale)
    penalty = penalty[:, :, None, None].expand(batch, keys, heads, 1)

    def merge(x: torch.Tensor) -> torch.Tensor:  # [batch, length, heads * its size]
        return x.reshape(batch, x.shape[1], heads * x.shape[3])

    out = attention(
        merge(torch.cat([query, ones], dim=-1)), merge(torch.cat([key, penalty], dim=-1)), merge(value), heads, scale
    )
    return out.view(batch, queries, heads, size), None


def _key_padding_mask(
    batch_size: int,
    q_length: int,
    kv_length: int,
    q_offset: int = 0,
    kv_offset: int = 0,
    mask_function: object = None,
    attention_mask: torch.Tensor | None = None,
    **kwargs: object,
) -> torch.Tensor | None:
    """transformers' mask interface: the [batch, keys] padding mask as given (1 for a token), for
    attention over every token of a window only."""
    if mask_function is not bidirectional_mask_function:  # windows, causal masks, or more
        raise UnfusableAttention("the fused attention reads every token of a window")
    return attention_mask


AttentionInterface.register(ATTENTION, _fused)
AttentionMaskInterface.register(ATTENTION, _key_padding_mask)


def use_fused_attention(encoder: Any) -> str | None:
    """Trace `encoder`'s attention as `ATTENTION` where its attention goes through transformers'
    interface, else eagerly; returns the implementation to restore afterwards. (transformers
    leaves the implementation of an encoder without that interface as it was, with a warning.)"""
    previous = encoder.config._attn_implementation
    try:
        encoder.set_attn_implementation(ATTENTION)
    except (ValueError, ImportError):
        pass
    if encoder.config._attn_implementation != ATTENTION:
        encoder.set_attn_implementation("eager")
    return previous


def unfusable(error: BaseException) -> bool:
    """Whether `error` (as the exporter raises it, wrapping what tracing raised) comes from
    `UnfusableAttention`."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, UnfusableAttention):
            return True
        seen = seen.__cause__ or seen.__context__
    return False
