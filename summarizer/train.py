"""`python -m summarizer.train`: see `summarizer.training.train`."""

from summarizer.training.train import main

if __name__ == "__main__":
    raise SystemExit(main())
