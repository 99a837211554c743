"""Store: brain discovery, era detection, read model and writers (no Textual)."""
