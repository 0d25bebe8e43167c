"""The model: `settings` (a model directory's files and `config.json`, read and checked without
torch or transformers), `features` (documents laid out as BERTSUM windows), `arrays` and `batch`
(the windows padded into numpy arrays and torch tensors), `configuration_bertsum`
(`BertSumConfig`) and `modeling_bertsum` (`BertSumModel`: encoder, poolings, centrality
projection, heads), one way: the configuration knows nothing of the network. Running it is
`summarizer.runtime`'s, summarizing with it `summarizer.pipeline`'s.
"""
