"""The command line: parse, call the library, render. No logic of its own."""
