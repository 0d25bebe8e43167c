"""The built-in `news-accurate` model of bertsum: its folder `model/` (configs/cnndm-accurate.yaml)."""
