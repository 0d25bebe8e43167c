"""The built-in `multilingual` model of bertsum: its folder `model/` (configs/multilingual.yaml)."""
