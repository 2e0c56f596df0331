"""`python -m rooftop`."""

from rooftop.cli import run

run()
