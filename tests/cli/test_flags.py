"""cli/flags.py: the CLI names the option a library error came from; the library does not."""

from __future__ import annotations

import pytest

from rooftop.cli.flags import flag, hint
from rooftop.errors import ReportError, TelemetryError


def test_flag_prefixes_and_hint_appends_keeping_the_error_type() -> None:
    with pytest.raises(ReportError, match=r"^--plot: x\.gif: the file must end"):
        with flag("--plot"):
            raise ReportError("x.gif: the file must end in .png or .svg")
    with pytest.raises(TelemetryError, match=r"^http://h/v1/models: cannot list served models; pass --served-model$"):
        with hint("pass --served-model"):
            raise TelemetryError("http://h/v1/models: cannot list served models")


def test_other_exceptions_pass_through() -> None:
    with pytest.raises(KeyError):
        with flag("--plot"):
            raise KeyError("x")
