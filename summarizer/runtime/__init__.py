"""Running a model: `backends` (ONNX Runtime or torch, from what is installed and what the model
directory holds) and `precision` (fp32, bf16 or int8) choose; `onnx_model` scores on ONNX Runtime
without torch, `torch_model` loads the torch model; `onnx_export` (with `onnx_attention`) writes
the graphs ONNX Runtime runs."""
