"""Core: pure logic and maths, no Textual and no database sessions."""
