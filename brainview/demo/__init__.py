"""Deterministic demo / test / benchmark brains."""
