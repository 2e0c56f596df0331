"""The one data model shared by the analytic, measured and live sources."""
