"""The model and the inference pipeline: sentences -> features -> batch -> scores -> selection.

`configuration_bertsum` (`BertSumConfig`) and `modeling_bertsum` (`BertSumModel`: encoder,
poolings, centrality projection, heads) are the transformers model; `features` lays documents
out as BERTSUM windows, `arrays` and `batch` pad them into numpy arrays and torch tensors;
`onnx_model` scores them on ONNX Runtime and `onnx_export` writes that graph; `backends` and
`precision` choose the runtime and number format; `selection` picks the summary; `pipeline`
(`Summarizer`) runs it all for the library and the command.
"""
