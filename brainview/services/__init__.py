"""Services: one use case each; they own transaction boundaries (no Textual)."""
