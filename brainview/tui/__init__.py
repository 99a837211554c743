"""The Textual face of brainview."""
