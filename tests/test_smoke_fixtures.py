import torch

from summarizer.model import ExtractiveSummarizer, load_tokenizer
from summarizer.features import FeatureBuilder, FeatureConfig
from summarizer.batch import collate


def test_tiny_model_scores_each_sentence(tiny_model_dir):
    model = ExtractiveSummarizer.from_pretrained(tiny_model_dir)
    tokenizer = load_tokenizer(tiny_model_dir)
    features = FeatureBuilder(tokenizer, FeatureConfig())(["One sentence here.", "Another sentence there.", "A third one."])
    row = {**features.to_columns(), "labels": [0, 1, 0]}
    with torch.no_grad():
        logits = model(collate([row], tokenizer.pad_token_id))
    assert logits.shape == (1, 3)


def test_distilbert_has_no_token_types(tiny_distilbert_dir):
    tokenizer = load_tokenizer(tiny_distilbert_dir)
    features = FeatureBuilder(tokenizer, FeatureConfig())(["One sentence here.", "Another sentence there."])
    assert features.windows[0].token_type_ids is None
    assert "token_type_ids" not in features.to_columns()
