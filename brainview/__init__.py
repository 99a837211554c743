"""brainview — a console for a Spikuit project's user brain and sibling agent brain."""

__version__ = "0.1.0"
