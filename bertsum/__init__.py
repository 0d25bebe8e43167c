"""Launchers of the bertsum distribution, kept outside `summarizer` so they can check it."""
