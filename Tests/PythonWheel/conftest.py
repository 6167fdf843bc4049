"""Only `pytester` (pytest's own, to run inner sessions); every server comes from the installed
wheel's `httpmock` fixture."""

pytest_plugins = ["pytester"]
