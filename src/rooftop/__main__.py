"""`python -m rooftop`."""

from rooftop.cli.main import main

main()
