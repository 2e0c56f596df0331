"""Rendering: terminal tables, figures, HTML, JSON. Compute functions never print."""
