"""Rules over (points, roofs, totals) -> findings; one rule per file in rules/."""
